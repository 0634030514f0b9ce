package state

import (
	"cmp"
	"unsafe"
)

// bucketIndex finds the hot records due to expire without scanning every
// key: a record with an expiry is listed (expiry, seq, entry) in the bucket
// expiry>>shift; a min-heap orders the bucket ids. An entry's exp is a
// lower bound of its record's expiry: a record whose expiry moves later
// within its bucket keeps its entry (which is requeued when reached), and a
// record whose expiry moves earlier or to another bucket gets a new entry,
// leaving the old one stale. Stale entries (their record gone, evicted or
// moved) are dropped when their bucket comes due, or by compaction when
// they are more than a quarter of a bucket (a stale entry keeps its
// evicted entry struct alive).
type bucketIndex struct {
	shift uint
	m     map[int64]*bucket
	ids   []int64 // min-heap of the ids in m
	n     int64   // entries
}

type bucket struct {
	id     int64
	ents   []bent
	sorted bool // by (exp, seq)
	stale  int
}

type bent struct {
	exp int64
	seq uint64
	e   *entry // stale once e left the hot tier (slot < 0)
}

const bentBytes = int64(unsafe.Sizeof(bent{}))

func cmpBent(a, b bent) int {
	if c := cmp.Compare(a.exp, b.exp); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func (x *bucketIndex) init(shift uint) {
	x.shift = shift
	x.m = map[int64]*bucket{}
}

func (x *bucketIndex) id(exp int64) int64 { return exp >> x.shift }

func (x *bucketIndex) bytes() int64 { return x.n * bentBytes }

func (t *Table) bucketAdd(exp int64, seq uint64, e *entry) {
	x := &t.buckets
	id := x.id(exp)
	b := x.m[id]
	if b == nil {
		b = &bucket{id: id, sorted: true}
		x.m[id] = b
		x.push(id)
	}
	ent := bent{exp, seq, e}
	if b.sorted && len(b.ents) > 0 && cmpBent(ent, b.ents[len(b.ents)-1]) < 0 {
		b.sorted = false
	}
	b.ents = append(b.ents, ent)
	x.n++
	t.s.used += bentBytes
}

// bucketStale notes that the entry for a record of expiry exp no longer
// leads to a live hot record.
func (t *Table) bucketStale(exp int64) {
	b := t.buckets.m[t.buckets.id(exp)]
	if b == nil {
		return
	}
	b.stale++
	if len(b.ents) >= 32 && 4*b.stale > len(b.ents) {
		t.compactBucket(b)
	}
}

// compactBucket keeps the entries that still lead to a live hot record of
// this bucket.
func (t *Table) compactBucket(b *bucket) {
	kept := b.ents[:0]
	for _, be := range b.ents {
		if e := be.e; e.slot >= 0 {
			if i := e.find(be.seq); i >= 0 {
				r := &e.recs[i]
				if !r.dead && r.expiry != NoExpiry && t.buckets.id(r.expiry) == b.id {
					kept = append(kept, be)
				}
			}
		}
	}
	gone := len(b.ents) - len(kept)
	clear(b.ents[len(kept):])
	b.ents = kept
	if cap(b.ents) > 64 && cap(b.ents) > 4*len(b.ents) {
		b.ents = append([]bent(nil), b.ents...)
	}
	b.stale = 0
	t.buckets.n -= int64(gone)
	t.s.used -= int64(gone) * bentBytes
}

func (x *bucketIndex) push(id int64) {
	h := append(x.ids, id)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	x.ids = h
}

func (x *bucketIndex) pop() {
	h := x.ids
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	x.ids = h
}
