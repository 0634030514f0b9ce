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
// they are more than an eighth of a bucket.
//
// What the index counts against the budget (bytes) is what it holds: the
// capacity of the buckets' slices, not their length; each bucket's own
// struct, map slot and heap slot; and the entry struct that a stale entry
// of a key that left the hot tier keeps alive (pinned). Before, only the
// live length was counted: under spilling the hot tier held ~170 MB for an
// estimate of 128 MB (docs/performance.md, "Where the bytes go").
type bucketIndex struct {
	shift  uint
	m      map[int64]*bucket
	ids    []int64 // min-heap of the ids in m
	capN   int64   // sum of cap(b.ents)
	pinned int64   // sum of b.pinned
}

type bucket struct {
	id     int64
	ents   []bent
	stale  int32 // entries known stale
	pinned int32 // of those, entries whose key left the hot tier (an estimate)
	sorted bool  // by (exp, seq)
}

type bent struct {
	exp int64
	seq uint64
	e   *entry // stale once e left the hot tier (slot < 0)
}

const (
	bentBytes = int64(unsafe.Sizeof(bent{}))
	// bucketBytes is a bucket's own memory: its struct, its slot in the
	// map (with the map's free slots) and in the heap of ids.
	bucketBytes = int64(unsafe.Sizeof(bucket{})) + 40
	// pinnedBytes is what a stale entry keeps alive once its key left the
	// hot tier: the key's entry struct (cleared, but still referenced).
	pinnedBytes = int64(unsafe.Sizeof(entry{}))
)

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

// bytes is the index's share of the budget (see bucketIndex). Every change
// to what it depends on goes through Table.bucketsChanged, which keeps the
// store's total in step.
func (x *bucketIndex) bytes() int64 {
	return x.capN*bentBytes + int64(len(x.m))*bucketBytes + x.pinned*pinnedBytes
}

// bucketsChanged adds to the store's estimate what the index's bytes moved
// by since they were before.
func (t *Table) bucketsChanged(before int64) {
	t.s.used += t.buckets.bytes() - before
}

func (t *Table) bucketAdd(exp int64, seq uint64, e *entry) {
	x := &t.buckets
	before := x.bytes()
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
	c := cap(b.ents)
	b.ents = append(b.ents, ent)
	x.capN += int64(cap(b.ents) - c)
	t.bucketsChanged(before)
}

// bucketStale notes that the entry for a record of expiry exp no longer
// leads to a live hot record; left says why: its key left the hot tier, so
// the entry keeps the key's entry struct alive until it is dropped.
func (t *Table) bucketStale(exp int64, left bool) {
	x := &t.buckets
	b := x.m[x.id(exp)]
	if b == nil {
		return
	}
	b.stale++
	if left {
		before := x.bytes()
		b.pinned++
		x.pinned++
		t.bucketsChanged(before)
	}
	if 8*int(b.stale) > len(b.ents) {
		t.compactBucket(b)
	}
}

// compactBucket keeps the entries that still lead to a live hot record of
// this bucket.
func (t *Table) compactBucket(b *bucket) {
	x := &t.buckets
	before := x.bytes()
	kept := b.ents[:0]
	for _, be := range b.ents {
		if e := be.e; e.slot >= 0 {
			if i := e.find(be.seq); i >= 0 {
				r := &e.recs[i]
				if !r.dead && r.expiry != NoExpiry && x.id(r.expiry) == b.id {
					kept = append(kept, be)
				}
			}
		}
	}
	clear(b.ents[len(kept):])
	b.ents = kept
	c := cap(b.ents)
	switch {
	case len(b.ents) == 0:
		b.ents = nil
	case c > 16 && c > 2*len(b.ents):
		b.ents = append([]bent(nil), b.ents...)
	}
	x.capN += int64(cap(b.ents) - c)
	x.pinned -= int64(b.pinned)
	b.stale, b.pinned = 0, 0
	t.bucketsChanged(before)
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
