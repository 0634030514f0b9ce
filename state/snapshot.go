package state

// Snapshots: a consistent view of a store, taken at a checkpoint barrier
// on the store's goroutine, written out from another goroutine while the
// operator keeps working, and read back into a new store on restart.
//
// Taking the view (Store.Snapshot) writes nothing to Badger but the
// pending deletes: it opens a Badger read transaction and freezes the
// changed hot keys (copy on write, see cow). Badger is multi-version: the
// transaction reads the database as of its read timestamp, whatever the
// store writes (spills) afterwards, and compaction keeps the versions an
// open transaction can see (it discards only below the oldest open read
// timestamp). The cost at the barrier is therefore a pass over the hot
// keys' pointers, not the state; Snapshot.WriteTo then encodes the frozen
// keys and copies the view in the background.
//
// The snapshot format, one part per store:
//
//	"SSQLSNAP" version(1 byte) formatVersion(len-prefixed)
//	(uvarint(len(k)) k uvarint(len(v)) v)*   Badger's data keys and values
//	uvarint(0) uvarint(count)                end: no key is empty
//
// In version 2 a snapshot holds the data entries ('d') only, in Badger's
// order: the expiry index ('x') is derived from them on restore (each data
// value holds its records' expiries and sequence numbers), as it is for an
// incremental snapshot. The index was as large as the data for state whose
// every record expires (a join's rows): writing it cost a third of a
// checkpoint's CPU and bytes, and sorting it again on restore costs less.
// Version 1 (written by the streamsql before) holds the index entries too,
// after the data entries (Badger's order), and is still read.
//
// The keys are in Badger's order (the frozen keys, sorted, merged into
// the view's), which lets Restore build the new directory's tables with
// Badger's StreamWriter. Restore writes the entries back into a new Badger directory, keeping
// those of the keys a filter accepts: a store of a job restarted at another
// parallelism takes the keys of its key groups from every old partition's
// snapshot (see KeyGroup). Tables then reopen cold, as after a clean
// shutdown (their Len and sequence numbers recovered by a scan).
//
// Sequence numbers are unique in a table, so two index entries with one
// key (expiry and sequence number) can only come from a damaged part: they
// are refused as corruption before Badger's StreamWriter, which panics on
// keys out of order, sees them.

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

const snapshotMagic = "SSQLSNAP"

const snapshotVersion = 2

// An incremental snapshot (SnapshotChanges):
//
//	"SSQLDELT" version(1 byte) formatVersion(len-prefixed)
//	uvarint(n) (uvarint(len(table)) table upTo(8))*n  the tables' expiry horizons (version 3)
//	(uvarint(len(k)) k (0 uvarint(len(v)) v | 1))*   data keys, each once: put | delete
//	uvarint(0) uvarint(count)
//
// A table's horizon upTo (big-endian, two's complement) says that every
// record the chain held before this delta, in a key this delta does not
// name, is gone when its expiry is at or before upTo: the table's
// Expires since the previous snapshot passed upTo, and a key they emptied
// without other change is not named (Table.horizon). Restoring drops those
// records from the values of the base and of the earlier deltas (not from
// this delta's or later ones). Versions 1 and 2 have no horizons: every
// expired key is named, as a delete.
//
// It holds only data entries ('d'): restoring derives the expiry index
// entries of the keys it puts (deltaSet.addIndex), and drops the base's for
// every key it names. In version 2 the keys are in no particular order (in
// version 1, which is still read, they were sorted): a restore sorts the
// entries of all the deltas of a chain together anyway, so sorting each
// delta as it is written, most of the writer's CPU, bought nothing.
const deltaMagic = "SSQLDELT"

const deltaVersion = 3

const (
	deltaPut    = 0
	deltaDelete = 1
)

// maxSnapshotField bounds a key or value read from a snapshot: Badger's
// own limits are far below it, so a larger length is corruption.
const maxSnapshotField = 1 << 30

// snapshots counts a store's snapshots still being written: Close waits
// for them before closing Badger, and a table does not drop its Badger
// data whole (DropPrefix, which removes data an open read transaction
// still sees) while one is (idle).
type snapshots struct {
	wg sync.WaitGroup
	n  atomic.Int32
}

func (s *snapshots) wait() { s.wg.Wait() }

func (s *snapshots) add() {
	s.n.Add(1)
	s.wg.Add(1)
}

func (s *snapshots) done() {
	s.n.Add(-1)
	s.wg.Done()
}

// idle reports whether no snapshot is being written.
func (s *snapshots) idle() bool { return s.n.Load() == 0 }

// Snapshot is a consistent view of a store's tables as they were when
// Store.Snapshot returned. It is written once, by WriteTo (or given up by
// Release), from any goroutine.
type Snapshot struct {
	s    *Store
	txn  *badger.Txn
	cow  *cow
	once sync.Once
	// delta: the snapshot holds what changed since the store's previous
	// one (SnapshotChanges); look are the changed keys whose value at the
	// barrier is Badger's (in txn's view), or that are gone.
	delta bool
	look  []lookKey
	// horizons: each table's horizon at the barrier, for a delta (see
	// Table.horizon): every record the chain held before it expiring at
	// or before it is gone.
	horizons []tableHorizon
	// records: what WriteTo wrote, counted as Records says.
	records int64
}

type tableHorizon struct {
	table string
	upTo  int64
}

type lookKey struct {
	tab uint16
	key string
	get bool // Badger holds its value (else it was deleted)
}

// Delta reports whether the snapshot holds only what changed since the
// store's previous snapshot (see SnapshotChanges).
func (sn *Snapshot) Delta() bool { return sn.delta }

// Records is the number of records WriteTo wrote, a deleted key counting
// as one (what restoring it reads, in records; compare Store.Rows). Call
// it after WriteTo returned, on its goroutine.
func (sn *Snapshot) Records() int64 { return sn.records }

// entryRecords is the number of records the data entry value v holds (its
// leading count), and 1 for a delete (v nil).
func entryRecords(v []byte) int64 {
	if v == nil {
		return 1
	}
	n, w := binary.Uvarint(v)
	if w <= 0 {
		return 0
	}
	return int64(n)
}

// cow is the hot tier of a snapshot, copied on write. At the barrier,
// Snapshot marks every changed hot key frozen and lists it: nothing is
// encoded or written there. WriteTo then encodes the listed keys that are
// still frozen, in the background; the store's goroutine encodes a frozen
// key itself, first, when it is about to change it (Store.thaw: a lookup
// that hands the key out, an eviction, an expiry). Whoever encodes a key
// clears its mark, under mu, so each is encoded once, as it was at the
// barrier. The encoded entries (data keys and values, Badger's layout)
// are laid over the Badger read view when the snapshot is written.
type cow struct {
	mu   sync.Mutex
	tabs []*Table // the store's tables at the barrier (by entry.tab)
	ents []*entry // the changed hot keys at the barrier
	// delta: encode a key without records as a delete (nil value), for
	// an incremental snapshot.
	delta bool
	done  atomic.Bool
	// Under mu: the encoded entries, their bytes in chunks (chunkSize,
	// pooled: a snapshot's worth is garbage once written).
	kvs     []cowKV
	chunks  []*[]byte
	cur     int // 1 + the index in chunks of the chunk being filled; 0: none
	val     []byte
	scratch []byte
}

// cowKV is an encoded entry: its key and value in the cow's chunks (no
// pointer: a snapshot's million entries cost the collector nothing to
// scan), and what sorts it fast: its group (table and kind: tab*2, +1 for
// the index; its rank in Badger's order once sorted) and, once sorted,
// the 8 bytes of its key after what every key of its group begins with.
type cowKV struct {
	pre     uint64
	grp     uint32
	ci, off uint32
	kl, vl  uint32
	del     bool // a delete (incremental snapshots)
	look    bool // read from Badger's view (writeDelta), not encoded
}

func (c *cow) key(kv *cowKV) []byte {
	b := *c.chunks[kv.ci]
	return b[kv.off : kv.off+kv.kl]
}

// value is kv's value (nil: a delete).
func (c *cow) value(kv *cowKV) []byte {
	if kv.del {
		return nil
	}
	b := *c.chunks[kv.ci]
	o := kv.off + kv.kl
	return b[o : o+kv.vl]
}

// sort sorts the entries in Badger's order: by group, ranked by its
// prefix's bytes, then by 8 bytes of the key past what the group's keys
// share, then by the whole key; an encoded entry before one read from
// Badger of the same key.
func (c *cow) sort() {
	type group struct {
		id  uint32
		pre []byte
	}
	gs := make([]group, 0, 2*len(c.tabs))
	for i, t := range c.tabs {
		gs = append(gs, group{uint32(2 * i), t.dpre}, group{uint32(2*i + 1), t.xpre})
	}
	slices.SortFunc(gs, func(a, b group) int { return bytes.Compare(a.pre, b.pre) })
	rank := make([]uint32, len(gs))
	for r, g := range gs {
		rank[g.id] = uint32(r)
	}
	// Within a group, the 8 bytes after what all its keys share (string
	// keys often begin alike: "order-0001...").
	first := make([]int, len(gs)) // 1 + the index of the group's first entry
	lcp := make([]int, len(gs))
	for i := range c.kvs {
		g, k := c.kvs[i].grp, c.key(&c.kvs[i])
		if first[g] == 0 {
			first[g], lcp[g] = i+1, len(k)
			continue
		}
		f := c.key(&c.kvs[first[g]-1])[:lcp[g]]
		n := 0
		for n < len(f) && n < len(k) && f[n] == k[n] {
			n++
		}
		lcp[g] = n
	}
	for i := range c.kvs {
		kv := &c.kvs[i]
		var p [8]byte
		copy(p[:], c.key(kv)[lcp[kv.grp]:])
		kv.pre = binary.BigEndian.Uint64(p[:])
		kv.grp = rank[kv.grp]
	}
	slices.SortFunc(c.kvs, func(a, b cowKV) int {
		if a.grp != b.grp {
			return cmp.Compare(a.grp, b.grp)
		}
		if a.pre != b.pre {
			return cmp.Compare(a.pre, b.pre)
		}
		if r := bytes.Compare(c.key(&a), c.key(&b)); r != 0 {
			return r
		}
		switch {
		case a.look == b.look:
			return 0
		case b.look:
			return -1
		}
		return 1
	})
}

const chunkSize = 1 << 20

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, chunkSize); return &b }}

// alloc returns n bytes from the current chunk (a new one when it is full;
// one of its own for more than a chunk), and where they are.
func (c *cow) alloc(n int) (ci, off uint32, b []byte) {
	if n > chunkSize {
		p := make([]byte, n)
		c.chunks = append(c.chunks, &p)
		return uint32(len(c.chunks) - 1), 0, p
	}
	if c.cur == 0 || len(*c.chunks[c.cur-1])+n > chunkSize {
		c.chunks = append(c.chunks, chunkPool.Get().(*[]byte))
		c.cur = len(c.chunks)
	}
	p := c.chunks[c.cur-1]
	at := len(*p)
	*p = (*p)[:at+n]
	return uint32(c.cur - 1), uint32(at), (*p)[at : at+n : at+n]
}

// free gives the chunks back to the pool, once written.
func (c *cow) free() {
	for _, p := range c.chunks {
		if cap(*p) == chunkSize {
			*p = (*p)[:0]
			chunkPool.Put(p)
		}
	}
	c.chunks, c.cur, c.kvs = nil, 0, nil
}

// thaw encodes e for the snapshot being written when it is still frozen:
// the store's goroutine calls it before it changes e (or hands it out to be
// changed).
func (s *Store) thaw(e *entry) {
	c := s.cow
	if c.done.Load() {
		s.cow = nil
		return
	}
	c.mu.Lock()
	if e.frozen {
		c.encode(e)
	}
	c.mu.Unlock()
}

// encode adds e's Badger entries as they are now (under mu).
func (c *cow) encode(e *entry) {
	e.frozen = false
	t := c.tabs[e.tab]
	n := 0
	for i := range e.recs {
		if !e.recs[i].dead {
			n++
		}
	}
	if n == 0 {
		if c.delta {
			c.put(2*uint32(e.tab), t.dpre, e.key, nil, true)
		}
		return
	}
	c.val = appendEntry(c.val[:0], e.recs, t.codec, e.obj, &c.scratch)
	c.put(2*uint32(e.tab), t.dpre, e.key, c.val, false)
	// The index is derived from the data entries on restore.
}

// put adds the entry pre+key (in group grp), v (or a delete).
func (c *cow) put(grp uint32, pre []byte, key string, v []byte, del bool) {
	kl := len(pre) + len(key)
	ci, off, b := c.alloc(kl + len(v))
	copy(b[copy(b, pre):], key)
	copy(b[kl:], v)
	if c.kvs == nil {
		c.kvs = make([]cowKV, 0, 2*len(c.ents)+16)
	}
	c.kvs = append(c.kvs, cowKV{grp: grp, ci: ci, off: off, kl: uint32(kl), vl: uint32(len(v)), del: del})
}

// run encodes (encode set) or lets go (unset) every key still frozen, a
// chunk at a time under mu, unless the snapshot is done already.
func (c *cow) run(encode bool) {
	c.mu.Lock()
	ents := c.ents
	c.mu.Unlock()
	for i := 0; i < len(ents); i += 256 {
		c.mu.Lock()
		if c.done.Load() {
			c.mu.Unlock()
			return
		}
		for _, e := range ents[i:min(i+256, len(ents))] {
			if !e.frozen {
				continue
			}
			if encode {
				c.encode(e)
			} else {
				e.frozen = false
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.done.Store(true)
	c.ents = nil
	c.mu.Unlock()
}

// Snapshot takes a consistent view of every table of the store. Call it on
// the store's goroutine, between operations (at a checkpoint barrier);
// the store may be used again as soon as it returns. It writes nothing but
// the pending deletes: it opens a Badger read transaction (the spilled
// state) and marks the changed hot keys frozen (the hot tier, copied on
// write; see cow), which costs a pass over the hot keys' pointers.
func (s *Store) Snapshot() (*Snapshot, error) { return s.snapshot(false) }

// SnapshotChanges takes an incremental snapshot: a view of the keys that
// changed since the store's previous snapshot (Snapshot or
// SnapshotChanges) — written, deleted, expired, hot or spilled — each with
// its value at this barrier, or deleted. Restoring the previous snapshot's
// state and then this one (SnapshotPart.Deltas) gives the store as it is
// now. What changed is kept from the first snapshot on, at the cost of a
// flag per changed hot key and a set of the other changed keys; the
// barrier costs a pass over the changed keys only. When the store cannot
// tell what changed (it was never snapshotted, or a table's spilled data
// was dropped whole), it takes a whole snapshot instead: Delta says which.
func (s *Store) SnapshotChanges() (*Snapshot, error) { return s.snapshot(true) }

func (s *Store) snapshot(delta bool) (*Snapshot, error) {
	s.checkCallback()
	if s.err != nil {
		return nil, s.err
	}
	if s.closed {
		return nil, errors.New("state: snapshot of a closed store")
	}
	if err := s.unadopted(); err != nil {
		return nil, err
	}
	if !s.ensureDB() {
		return nil, s.err
	}
	if c := s.cow; c != nil {
		// The last snapshot is still being written: encode what it has not
		// yet, here, so that its keys can be frozen again for this one.
		c.run(true)
		s.cow = nil
	}
	wb := s.newBatch()
	for _, t := range s.tlist {
		t.writeIdxDeletes(wb)
	}
	for _, t := range s.tlist {
		t.writeDeletes(wb)
	}
	s.commit(wb)
	if s.err != nil {
		return nil, s.err
	}
	delta = delta && s.track && !s.wholeNext
	c := &cow{tabs: slices.Clip(s.tlist), delta: delta}
	var look []lookKey
	var horizons []tableHorizon
	if delta {
		for _, t := range s.tlist {
			if t.horizon != math.MinInt64 {
				horizons = append(horizons, tableHorizon{t.name, t.horizon})
			}
		}
		c.ents = make([]*entry, 0, len(s.chg))
		for _, e := range s.chg {
			e.fresh = false
			if e.chk {
				e.chk, e.frozen = false, true
				c.ents = append(c.ents, e)
			}
		}
		for _, t := range s.tlist {
			for k, get := range t.gone {
				if e := t.hot[k]; e != nil && e.frozen {
					continue // changed again since it came back: frozen above
				}
				look = append(look, lookKey{tab: t.idx, key: k, get: get})
			}
		}
	} else {
		for _, e := range s.ring {
			if e.dirty {
				e.frozen = true
				c.ents = append(c.ents, e)
			}
		}
		for _, e := range s.chg {
			e.chk, e.fresh = false, false
		}
	}
	// What changes from here on goes into the next snapshot.
	s.chg = keepSmall(s.chg)
	for _, t := range s.tlist {
		if len(t.gone) > 4096 {
			t.gone = map[string]bool{}
		} else {
			clear(t.gone)
		}
		t.horizon = math.MinInt64
	}
	s.track, s.wholeNext = true, false
	if len(c.ents) > 0 {
		s.cow = c
	} else {
		c.done.Store(true)
	}
	s.snaps.add()
	return &Snapshot{s: s, txn: s.db.NewTransaction(false), cow: c, delta: delta, look: look, horizons: horizons}, nil
}

// Release gives the view up without writing it. WriteTo releases it too;
// calling Release again does nothing.
func (sn *Snapshot) Release() {
	sn.once.Do(func() {
		sn.cow.run(false)
		sn.cow.mu.Lock()
		sn.cow.free()
		sn.cow.mu.Unlock()
		sn.txn.Discard()
		sn.s.snaps.done()
	})
}

// WriteTo writes the view in the snapshot format to w, then releases it:
// it encodes the frozen hot keys the store has not, sorts them, and writes
// them merged with the Badger view (a hot key's entries replace Badger's).
func (sn *Snapshot) WriteTo(w io.Writer) (int64, error) {
	defer sn.Release()
	c := sn.cow
	c.run(true)
	c.mu.Lock() // the store's last encode happened before run's last lock
	defer c.free()
	c.mu.Unlock()
	// The store no longer touches c (run marked it done).
	if sn.delta {
		return sn.writeDelta(w)
	}
	c.sort()
	kvs := c.kvs

	bw := bufio.NewWriterSize(w, 256<<10)
	cw := &countWriter{w: bw}
	var buf []byte
	buf = append(buf, snapshotMagic...)
	buf = append(buf, snapshotVersion)
	buf = binary.AppendUvarint(buf, uint64(len(formatVersion)))
	buf = append(buf, formatVersion...)
	if _, err := cw.Write(buf); err != nil {
		return cw.n, err
	}
	var count uint64
	// The store's keys in a shared database begin with its prefix: the
	// snapshot holds them without it.
	pre := sn.s.kpre
	put := func(k, v []byte) error {
		k = k[len(pre):]
		if k[0] == 'd' {
			sn.records += entryRecords(v)
		}
		buf = binary.AppendUvarint(buf[:0], uint64(len(k)))
		buf = append(buf, k...)
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
		count++
		_, err := cw.Write(buf)
		return err
	}
	// The data entries only (version 2): the index is derived on restore.
	dpre := append(slices.Clip(pre), 'd')
	it := sn.txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: dpre})
	var err error
	i := 0
	for it.Seek(dpre); it.ValidForPrefix(dpre) && err == nil; it.Next() {
		item := it.Item()
		k := item.Key()
		for ; i < len(kvs) && err == nil; i++ {
			kk := c.key(&kvs[i])
			if bytes.Compare(kk, k) > 0 {
				break
			}
			err = put(kk, c.value(&kvs[i]))
			if string(kk) == string(k) {
				k = nil // the hot tier's entry replaces Badger's
			}
		}
		if err != nil || k == nil {
			continue
		}
		var werr error
		if err = item.Value(func(v []byte) error { werr = put(k, v); return nil }); err != nil {
			err = fmt.Errorf("state: snapshot: %w", err)
			break
		}
		err = werr
	}
	it.Close()
	for ; i < len(kvs) && err == nil; i++ {
		err = put(c.key(&kvs[i]), c.value(&kvs[i]))
	}
	if err != nil {
		return cw.n, err
	}
	buf = binary.AppendUvarint(buf[:0], 0)
	buf = binary.AppendUvarint(buf, count)
	if _, err := cw.Write(buf); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

// writeDelta writes an incremental snapshot: the frozen hot keys encoded
// (kvs), and the other changed keys as Badger's view has them, in no order.
func (sn *Snapshot) writeDelta(w io.Writer) (int64, error) {
	c := sn.cow
	var k []byte
	for _, lk := range sn.look {
		t := c.tabs[lk.tab]
		if !lk.get {
			c.put(2*uint32(lk.tab), t.dpre, lk.key, nil, true)
			c.kvs[len(c.kvs)-1].look = true
			continue
		}
		k = append(append(k[:0], t.dpre...), lk.key...)
		item, err := sn.txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			c.put(2*uint32(lk.tab), t.dpre, lk.key, nil, true)
			c.kvs[len(c.kvs)-1].look = true
			continue
		}
		if err == nil {
			err = item.Value(func(v []byte) error {
				c.put(2*uint32(lk.tab), t.dpre, lk.key, v, false)
				c.kvs[len(c.kvs)-1].look = true
				return nil
			})
		}
		if err != nil {
			return 0, fmt.Errorf("state: snapshot: %w", err)
		}
	}
	kvs := c.kvs
	bw := bufio.NewWriterSize(w, 256<<10)
	cw := &countWriter{w: bw}
	var buf []byte
	buf = append(buf, deltaMagic...)
	buf = append(buf, deltaVersion)
	buf = binary.AppendUvarint(buf, uint64(len(formatVersion)))
	buf = append(buf, formatVersion...)
	buf = binary.AppendUvarint(buf, uint64(len(sn.horizons)))
	for _, h := range sn.horizons {
		buf = binary.AppendUvarint(buf, uint64(len(h.table)))
		buf = append(buf, h.table...)
		buf = binary.BigEndian.AppendUint64(buf, uint64(h.upTo))
	}
	if _, err := cw.Write(buf); err != nil {
		return cw.n, err
	}
	var count uint64
	// Each key is once in kvs: encoded (frozen at the barrier) or looked
	// up (changed, not hot at the barrier), never both (see snapshot).
	for i := range kvs {
		kk := c.key(&kvs[i])
		kk = kk[len(sn.s.kpre):] // (see WriteTo)
		buf = binary.AppendUvarint(buf[:0], uint64(len(kk)))
		buf = append(buf, kk...)
		v := c.value(&kvs[i])
		sn.records += entryRecords(v)
		if v == nil {
			buf = append(buf, deltaDelete)
		} else {
			buf = append(buf, deltaPut)
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			buf = append(buf, v...)
		}
		count++
		if _, err := cw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	buf = binary.AppendUvarint(buf[:0], 0)
	buf = binary.AppendUvarint(buf, count)
	if _, err := cw.Write(buf); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// SnapshotPart is one snapshot to restore from.
type SnapshotPart struct {
	Name string // for errors: the checkpoint file it comes from
	R    io.Reader
	// Size is the part's size in bytes (0: not known). Restore takes the
	// state into the memory tier only when the sizes of its parts and
	// their deltas say it fits there (restore_hot.go).
	Size int64
	// Deltas are the incremental snapshots (SnapshotChanges) of the same
	// store taken after this one, oldest first, each with its changes
	// since the one before: the part restores the state of the last.
	Deltas []SnapshotPart
}

// Restore opens a store in dir — which must not exist or be empty — holding
// the entries of the snapshots in parts whose table and key keep accepts
// (keep nil: every entry). Every part is read to its end, so a part reader
// that checks a checksum at the end gets to do so. A part that cannot be
// read is an error naming it, and no store is returned. A restored store
// has a database of its own (opts.Shared must be nil): Restore builds its
// tables with Badger's StreamWriter, which needs an empty database.
func Restore(dir string, opts Options, parts []SnapshotPart, keep func(table string, key []byte) bool) (*Store, error) {
	if opts.Shared != nil {
		return nil, errors.New("state: restoring into a shared database")
	}
	if dir != "" {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			return nil, fmt.Errorf("state: restoring into %s: the directory is not empty", dir)
		}
	}
	s, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	if !s.ensureDB() {
		err := s.err
		s.Close()
		return nil, err
	}
	s.hotRoom(parts)
	for i, p := range parts {
		var rn *renumber
		if len(parts) > 1 {
			rn = &renumber{i: uint64(i), n: uint64(len(parts))}
		}
		if err := s.restorePart(p, keep, rn); err != nil {
			s.Close()
			return nil, fmt.Errorf("state: restoring from %s: %w", p.Name, err)
		}
	}
	return s, nil
}

func (s *Store) restorePart(p SnapshotPart, keep func(string, []byte) bool, rn *renumber) error {
	// Room in the Go limit for what the restore holds while it runs (see
	// memLimitRestore): the deltas' sorted set, counted at their size on
	// disk, and the stream writer's buffers.
	hold := int64(restoreStreamBytes)
	for _, d := range p.Deltas {
		hold += d.Size
	}
	memLimitRestore(hold)
	defer memLimitRestore(-hold)
	var ds *deltaSet
	if len(p.Deltas) > 0 {
		var err error
		if ds, err = readDeltas(p.Deltas, keep); err != nil {
			return err
		}
	}
	if rn == nil {
		return s.streamPart(p, ds, keep)
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	err := mergePart(p, ds, keep, false, s.hotTaker(rn), func(count uint64, k, v []byte) error {
		k, v, err := rn.entry(k, v)
		if err != nil {
			return fmt.Errorf("entry %d: %w", count, err)
		}
		return wb.Set(k, v)
	})
	if err != nil {
		return err
	}
	return wb.Flush()
}

// restoreStreamBytes, with the deltas' size on disk, is what restorePart
// adds to the Go limit while it runs: the 4-hour join's checkpoint (1.7M
// rows, 55 MB of deltas a partition on disk) held 148 MB a partition in
// its deltas' arena and lists and 58 MB in Badger's stream writer (its
// buffer and the tables it builds). Counting all of it (3 times the
// deltas, and 64 MB) halved the restore's CPU under a 64mb budget but let
// the heap grow to twice its live size (peak RSS 560-610 -> 940-970 MiB);
// counting the deltas once and 32 MB gave the same CPU at 665-680 MiB
// (docs/performance.md).
const restoreStreamBytes = 32 << 20

// streamPart fills the new store's empty Badger from one snapshot (and
// its deltas) with Badger's StreamWriter, which builds its tables from
// sorted keys without going through memtables and compactions: restoring
// 1M keys this way takes a fraction of the time a WriteBatch takes. A
// snapshot's keys are sorted (it is written in Badger's order); keys out
// of order are corruption, refused before the StreamWriter sees them.
func (s *Store) streamPart(p SnapshotPart, ds *deltaSet, keep func(string, []byte) bool) error {
	sw := s.db.NewStreamWriter()
	if err := sw.Prepare(); err != nil { // drops the format stamp Open wrote: written again below
		sw.Cancel()
		return err
	}
	buf := z.NewBuffer(32<<20, "streamsql.state.restore")
	defer func() { _ = buf.Release() }()
	kv := &pb.KV{Version: 1}
	// What a table's reopen would count by reading every key back.
	counts := map[string]*coldCount{}
	var cur *coldCount
	var curPre []byte // 'd' or 'x', the table's name's length and name
	add := func(count uint64, k, v []byte) error {
		if count > 0 {
			table, key, ok := entryKey(k, v)
			if !ok {
				return ErrCorrupt
			}
			if cur == nil || len(k) < len(curPre) || string(k[1:len(curPre)]) != string(curPre[1:]) {
				if cur = counts[table]; cur == nil {
					cur = &coldCount{cold: map[uint32]uint32{}}
					counts[table] = cur
				}
				curPre = append(curPre[:0], k[:2+len(table)]...)
			}
			if k[0] == 'd' {
				if err := cur.add(s.seed, key, v); err != nil {
					return fmt.Errorf("the value of %q: %w", k, err)
				}
			} else if !cur.hasIndex {
				// The table's first index entry: its least expiry.
				cur.minExp, cur.hasIndex = int64(binary.BigEndian.Uint64(k[len(k)-16:])^(1<<63)), true
			}
		}
		kv.Key, kv.Value = k, v
		badger.KVToBuffer(kv, buf)
		if buf.LenNoPadding() < 16<<20 {
			return nil
		}
		err := sw.Write(buf)
		buf.Reset()
		return err
	}
	err := add(0, formatKey, []byte(formatVersion))
	if err == nil {
		err = mergePart(p, ds, keep, true, s.hotTaker(nil), add)
	}
	if err == nil {
		err = sw.Write(buf)
	}
	if err != nil {
		sw.Cancel()
		return err
	}
	// StreamWriter.Flush stops Badger's transaction watermark and then
	// waits on it for the last commit (Open's format stamp): a commit the
	// watermark's goroutine had not processed when it stopped made Flush
	// wait forever (a restore that hung, about one in twenty in
	// TestRescaleResume). A read transaction first waits for that commit
	// on the running watermark, so Flush finds it done.
	s.db.NewTransaction(false).Discard()
	if err := sw.Flush(); err != nil {
		return err
	}
	s.restored = counts
	return nil
}

// deltaSet is what a chain of incremental snapshots changed: for each data
// key named, its last value or a delete, sorted, and the index entries of
// the keys put, sorted. Keys and values are in an arena and the lists
// hold offsets and what sorts them (no pointer the collector scans per
// entry, and a comparison rarely reads the arena): a chain of 1M keys
// restores in about what its base alone would take plus a second.
type deltaSet struct {
	// arena holds the keys and values, in chunks that never move once
	// made (a growing slice copied 2 s of 1M keys' worth on restore): a
	// position is the chunk's index << 32 | the offset in it.
	arena [][]byte
	ents  []dent // data entries, sorted by key, one per key
	idx   []ient // derived index entries, in Badger's order
	xpre  [][]byte
	// named is the set of data keys by hash (built on first use by names,
	// when the base has index entries to drop).
	named map[uint64]int32
	seed  maphash.Seed
	recs  []idxKey // scratch of addIndex
	// indexed: idx holds the index entries of ents (deriveIndex); last
	// is the name of the chain's last delta (for errors).
	indexed bool
	last    string
	// after holds, for a value from delta i of the chain, each table's
	// greatest horizon over the deltas after it (after[i+1]; after[0]:
	// over all of them, for the base's values); nil when no delta has
	// one (versions before 3, or no Expire).
	after []map[string]int64
}

// horizon is the expiry horizon that applies to the data entry k from
// delta part of the chain (-1: the base), if any: its records expiring at
// or before it are gone.
func (ds *deltaSet) horizon(k []byte, part int32) (int64, bool) {
	if ds == nil || ds.after == nil || len(k) < 2 || k[0] != 'd' || len(k) < 2+int(k[1]) {
		return 0, false
	}
	upTo, ok := ds.after[part+1][string(k[2:2+int(k[1])])]
	return upTo, ok
}

// setHorizons computes after from each delta's horizons (hz, by delta).
func (ds *deltaSet) setHorizons(hz []map[string]int64) {
	has := false
	for _, m := range hz {
		has = has || len(m) > 0
	}
	if !has {
		return
	}
	ds.after = make([]map[string]int64, len(hz)+1)
	ds.after[len(hz)] = map[string]int64{}
	for i := len(hz) - 1; i >= 0; i-- {
		m := maps.Clone(ds.after[i+1])
		for t, upTo := range hz[i] {
			if old, ok := m[t]; !ok || upTo > old {
				m[t] = upTo
			}
		}
		ds.after[i] = m
	}
}

// nextRecord reads the record of the data value v at q (past the value's
// record count): its sequence number, its header into r, and its values.
// It returns the sequence number, where the header begins and where the
// record ends.
func nextRecord(v []byte, q int, r *Record) (seq uint64, hdr, end int, err error) {
	seq, w := binary.Uvarint(v[q:])
	if w <= 0 {
		return 0, 0, 0, ErrCorrupt
	}
	hdr = q + w
	m, err := DecodeHeader(v[hdr:], r)
	if err != nil {
		return 0, 0, 0, err
	}
	_, size, _, err := valuesLen(v[hdr+m:])
	if err != nil {
		return 0, 0, 0, err
	}
	return seq, hdr, hdr + m + size, nil
}

// expireValue returns the data value v without its records expiring at
// or before upTo: v itself when none does, nil when all do (the key is
// gone, with a Map's value), else a new value.
func expireValue(v []byte, upTo int64) ([]byte, error) {
	n, p := binary.Uvarint(v)
	if p <= 0 || n == 0 || n > uint64(len(v)) {
		return nil, ErrCorrupt
	}
	var r Record
	gone := func() bool { return r.Expiry != NoExpiry && r.Expiry <= upTo }
	expired := uint64(0)
	q := p
	for range n {
		_, _, end, err := nextRecord(v, q, &r)
		if err != nil {
			return nil, err
		}
		if gone() {
			expired++
		}
		q = end
	}
	switch expired {
	case 0:
		return v, nil
	case n:
		return nil, nil
	}
	out := binary.AppendUvarint(make([]byte, 0, len(v)), n-expired)
	q = p
	for range n {
		_, _, end, _ := nextRecord(v, q, &r) // (read above)
		if !gone() {
			out = append(out, v[q:end]...)
		}
		q = end
	}
	return append(out, v[q:]...), nil // a Map's value
}

// dent is a data entry of a deltaSet: key and value as offsets in its
// arena, and the 8 bytes of its key after what all keys share (pre).
type dent struct {
	pre    uint64
	ko, vo int
	kl, vl int32
	part   int32 // the delta it comes from, in the chain
	del    bool
}

// ient is a derived index entry of a deltaSet: the key xpre[tab] exp seq
// (exp sign-flipped, as in the key), its value in the arena (vl -1: none,
// the entry of a key Restore took into the hot tier, kept to be checked).
type ient struct {
	exp, seq uint64
	vo       int
	vl       int32
	tab      uint32
}

const arenaChunk = 4 << 20

// alloc returns n bytes of the arena and their position: in the last
// chunk, or a new one (of their own when n is larger than a chunk).
func (ds *deltaSet) alloc(n int) (int, []byte) {
	last := len(ds.arena) - 1
	if last < 0 || cap(ds.arena[last])-len(ds.arena[last]) < n {
		ds.arena = append(ds.arena, make([]byte, 0, max(arenaChunk, n)))
		last++
	}
	c := ds.arena[last]
	off := len(c)
	ds.arena[last] = c[:off+n]
	return last<<32 | off, c[off : off+n : off+n]
}

// at is the n bytes of the arena at pos.
func (ds *deltaSet) at(pos int, n int32) []byte {
	o := pos & (1<<32 - 1)
	return ds.arena[pos>>32][o : o+int(n)]
}

func (ds *deltaSet) key(e *dent) []byte { return ds.at(e.ko, e.kl) }

// val is e's value (nil: deleted).
func (ds *deltaSet) val(e *dent) []byte {
	if e.del {
		return nil
	}
	return ds.at(e.vo, e.vl)
}

// ikey appends the key of the index entry e to dst.
func (ds *deltaSet) ikey(dst []byte, e *ient) []byte {
	dst = append(dst, ds.xpre[e.tab]...)
	dst = binary.BigEndian.AppendUint64(dst, e.exp)
	return binary.BigEndian.AppendUint64(dst, e.seq)
}

func (ds *deltaSet) ival(e *ient) []byte { return ds.at(e.vo, e.vl) }

func (ds *deltaSet) add(k, v []byte, del bool, part int) {
	pos, b := ds.alloc(len(k) + len(v))
	copy(b[copy(b, k):], v)
	e := dent{ko: pos, kl: int32(len(k)), vo: pos + len(k), vl: int32(len(v)), del: del, part: int32(part)}
	ds.ents = append(ds.ents, e)
}

// names reports whether a delta names the data key k.
func (ds *deltaSet) names(k []byte) bool {
	if ds.named == nil {
		ds.named = make(map[uint64]int32, len(ds.ents))
		for i := range ds.ents {
			h := maphash.Bytes(ds.seed, ds.key(&ds.ents[i]))
			if _, dup := ds.named[h]; dup {
				ds.named[h] = -1
			} else {
				ds.named[h] = int32(i)
			}
		}
	}
	i, ok := ds.named[maphash.Bytes(ds.seed, k)]
	switch {
	case !ok:
		return false
	case i >= 0:
		return bytes.Equal(ds.key(&ds.ents[i]), k)
	}
	// Keys of one hash: search.
	_, found := slices.BinarySearchFunc(ds.ents, k, func(e dent, k []byte) int { return bytes.Compare(ds.key(&e), k) })
	return found
}

// readDeltas reads the deltas in order, the later's value of a key
// replacing the earlier's, keeping the keys keep accepts.
func readDeltas(parts []SnapshotPart, keep func(string, []byte) bool) (*deltaSet, error) {
	ds := &deltaSet{seed: maphash.MakeSeed()}
	hz := make([]map[string]int64, len(parts))
	for i, p := range parts {
		err := readDelta(p, func(table string, upTo int64) {
			if hz[i] == nil {
				hz[i] = map[string]int64{}
			}
			hz[i][table] = upTo
		}, func(count uint64, k, v []byte) error {
			table, key, ok := entryKey(k, nil)
			if !ok || k[0] != 'd' {
				return fmt.Errorf("entry %d: %w", count, ErrCorrupt)
			}
			if keep != nil && !keep(table, key) {
				return nil
			}
			ds.add(k, v, v == nil, i)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("state: restoring from %s: %w", p.Name, err)
		}
	}
	if dup := ds.sortEnts(); dup >= 0 {
		return nil, fmt.Errorf("state: restoring from %s: a key twice: %w", parts[dup].Name, ErrCorrupt)
	}
	ds.last = parts[len(parts)-1].Name
	ds.setHorizons(hz)
	return ds, nil
}

// deriveIndex derives the index entries of the keys the deltas put (once:
// only a base of version 1 merges them with its own).
func (ds *deltaSet) deriveIndex() error {
	if ds.indexed {
		return nil
	}
	ds.indexed = true
	for i := range ds.ents {
		e := &ds.ents[i]
		if e.del {
			continue
		}
		v := ds.val(e)
		if upTo, ok := ds.horizon(ds.key(e), e.part); ok {
			var err error
			if v, err = expireValue(v, upTo); err != nil {
				return fmt.Errorf("the value of %q in %s: %w", ds.key(e), ds.last, err)
			}
			if v == nil {
				continue // (as mergePart emits it: with what stays)
			}
		}
		if err := ds.addIndex(ds.key(e), v, false); err != nil {
			return fmt.Errorf("the value of %q in %s: %w", ds.key(e), ds.last, err)
		}
	}
	return ds.sortIndex()
}

// sortEnts sorts the data entries by key, the deltas' order kept among
// equal keys (their arena offsets), and keeps the last of each key: its
// value. Most comparisons are of the 8 key bytes past the keys' common
// prefix, held in the entry. A key twice in one delta is corruption: it
// returns that delta's index (else -1).
func (ds *deltaSet) sortEnts() int {
	if len(ds.ents) == 0 {
		return -1
	}
	first := ds.key(&ds.ents[0])
	lcp := len(first)
	for i := 1; i < len(ds.ents) && lcp > 0; i++ {
		k := ds.key(&ds.ents[i])
		n := 0
		for n < lcp && n < len(k) && first[n] == k[n] {
			n++
		}
		lcp = n
	}
	for i := range ds.ents {
		var p [8]byte
		copy(p[:], ds.key(&ds.ents[i])[lcp:])
		ds.ents[i].pre = binary.BigEndian.Uint64(p[:])
	}
	slices.SortFunc(ds.ents, func(a, b dent) int {
		if a.pre != b.pre {
			return cmp.Compare(a.pre, b.pre)
		}
		if c := bytes.Compare(ds.key(&a), ds.key(&b)); c != 0 {
			return c
		}
		return cmp.Compare(a.ko, b.ko)
	})
	n := 0
	for i := range ds.ents {
		if e := &ds.ents[i]; i+1 < len(ds.ents) && e.pre == ds.ents[i+1].pre && bytes.Equal(ds.key(e), ds.key(&ds.ents[i+1])) {
			if e.part == ds.ents[i+1].part {
				return int(e.part)
			}
			continue
		}
		ds.ents[n] = ds.ents[i]
		n++
	}
	ds.ents = slices.Clip(ds.ents[:n])
	return -1
}

// addIndex adds the expiry index entries of the data entry k, v (as
// writeEntry writes them); hot: of an entry taken into the hot tier, whose
// index entries are only checked, not written (they have no value).
func (ds *deltaSet) addIndex(k, v []byte, hot bool) error {
	_, key, ok := entryKey(k, nil)
	if !ok || k[0] != 'd' {
		return ErrCorrupt
	}
	n, p := binary.Uvarint(v)
	if p <= 0 || n == 0 || n > uint64(len(v)) {
		return ErrCorrupt
	}
	due := ds.recs[:0]
	maxExp := int64(math.MinInt64)
	var r Record
	for range n {
		seq, _, end, err := nextRecord(v, p, &r)
		if err != nil {
			return err
		}
		p = end
		maxExp = max(maxExp, r.Expiry)
		if r.Expiry != NoExpiry {
			due = append(due, idxKey{r.Expiry, seq})
		}
	}
	ds.recs = due[:0]
	if len(due) == 0 {
		return nil
	}
	// The table's index prefix: 'x' and the data key's table.
	xpre := k[:len(k)-len(key)]
	tab := -1
	for i := len(ds.xpre) - 1; i >= 0; i-- {
		if string(ds.xpre[i][1:]) == string(xpre[1:]) {
			tab = i
			break
		}
	}
	if tab < 0 {
		tab = len(ds.xpre)
		ds.xpre = append(ds.xpre, append([]byte{'x'}, xpre[1:]...))
	}
	vo, vl := 0, int32(-1)
	if !hot {
		var nb [binary.MaxVarintLen64]byte
		nw := binary.PutUvarint(nb[:], n)
		var b []byte
		vo, b = ds.alloc(8 + nw + len(key))
		binary.BigEndian.PutUint64(b, uint64(maxExp))
		copy(b[8+copy(b[8:], nb[:nw]):], key)
		vl = int32(len(b))
	}
	for _, d := range due {
		ds.idx = append(ds.idx, ient{exp: uint64(d.exp) ^ (1 << 63), seq: d.seq, vo: vo, vl: vl, tab: uint32(tab)})
	}
	return nil
}

// sortIndex puts the index entries in Badger's order: by their table's
// prefix (bytes), then expiry and sequence number (integers). Two entries
// with one key (a sequence number twice in a table) are corruption.
func (ds *deltaSet) sortIndex() error {
	order := make([]int, len(ds.xpre))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(ds.xpre[a], ds.xpre[b]) })
	rank := make([]uint32, len(order))
	xpre := make([][]byte, len(order))
	for r, i := range order {
		rank[i] = uint32(r)
		xpre[r] = ds.xpre[i]
	}
	ds.xpre = xpre
	for i := range ds.idx {
		ds.idx[i].tab = rank[ds.idx[i].tab]
	}
	slices.SortFunc(ds.idx, func(a, b ient) int {
		if a.tab != b.tab {
			return cmp.Compare(a.tab, b.tab)
		}
		if a.exp != b.exp {
			return cmp.Compare(a.exp, b.exp)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := 1; i < len(ds.idx); i++ {
		a, b := &ds.idx[i-1], &ds.idx[i]
		if a.tab == b.tab && a.exp == b.exp && a.seq == b.seq {
			return fmt.Errorf("record sequence number %d twice in table %q: %w", a.seq, ds.xpre[a.tab][2:], ErrCorrupt)
		}
	}
	return nil
}

// readDelta reads an incremental snapshot, checking its header, its order
// (version 1) and its end, calls hz (unless nil) for each table's horizon
// (version 3) and fn for each entry (v nil: deleted; k and v are valid
// until fn returns).
func readDelta(p SnapshotPart, hz func(table string, upTo int64), fn func(count uint64, k, v []byte) error) error {
	r := bufio.NewReaderSize(p.R, 256<<10)
	head := make([]byte, len(deltaMagic)+1)
	if _, err := io.ReadFull(r, head); err != nil {
		return fmt.Errorf("not an incremental state snapshot (%w)", unexpected(err))
	}
	if string(head[:len(deltaMagic)]) != deltaMagic {
		return errors.New("not an incremental state snapshot")
	}
	version := head[len(deltaMagic)]
	if version < 1 || version > deltaVersion {
		return fmt.Errorf("an incremental state snapshot in version %d; this streamsql reads versions 1 to %d", version, deltaVersion)
	}
	layout, err := readField(r)
	if err != nil {
		return err
	}
	if string(layout) != formatVersion {
		return fmt.Errorf("state in layout %s; this streamsql reads layout %s", layout, formatVersion)
	}
	if version >= 3 {
		if err := readHorizons(r, hz); err != nil {
			return err
		}
	}
	var count uint64
	var last []byte
	kb, vb := make([]byte, 0, 256), make([]byte, 0, 4096)
	for {
		k, err := readFieldInto(r, kb)
		if err != nil {
			return err
		}
		if len(k) == 0 {
			break
		}
		kb = k[:0]
		count++
		if version == 1 {
			if count > 1 && bytes.Compare(k, last) <= 0 {
				return fmt.Errorf("entry %d: %w", count, ErrCorrupt)
			}
			last = append(last[:0], k...)
		}
		op, err := r.ReadByte()
		if err != nil {
			return fmt.Errorf("truncated (%w)", unexpected(err))
		}
		var v []byte
		switch op {
		case deltaPut:
			if v, err = readFieldInto(r, vb); err != nil {
				return err
			}
			vb = v[:0]
		case deltaDelete:
		default:
			return fmt.Errorf("entry %d: %w", count, ErrCorrupt)
		}
		if err := fn(count, k, v); err != nil {
			return err
		}
	}
	return readTrailer(r, count)
}

// readHorizons reads the tables' horizons of a delta of version 3 (see
// deltaMagic), each table once.
func readHorizons(r *bufio.Reader, hz func(table string, upTo int64)) error {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return fmt.Errorf("truncated (%w)", unexpected(err))
	}
	if n > math.MaxUint16+1 { // (a store's tables are numbered by a uint16)
		return fmt.Errorf("%d expiry horizons: %w", n, ErrCorrupt)
	}
	seen := map[string]bool{}
	var b [8]byte
	for range n {
		name, err := readField(r)
		if err != nil {
			return err
		}
		if len(name) > math.MaxUint8 || seen[string(name)] {
			return fmt.Errorf("the expiry horizon of table %q: %w", name, ErrCorrupt)
		}
		seen[string(name)] = true
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return fmt.Errorf("truncated (%w)", unexpected(err))
		}
		if hz != nil {
			hz(string(name), int64(binary.BigEndian.Uint64(b[:])))
		}
	}
	return nil
}

// mergePart calls fn for the entries of the snapshot p with the deltas ds
// applied (nil: none), in Badger's order, keeping those keep accepts: a
// data entry a delta names is the delta's (or gone). A snapshot of version
// 2 holds data entries only: the index entries of every entry emitted are
// derived, sorted and emitted after them. In one of version 1, an index
// entry of a key a delta names is dropped and the delta's derived ones are
// merged in. Keys out of order, and an index entry twice, are corruption.
//
// take, when not nil, is offered each data entry of a snapshot of version 2
// or later before fn: an entry it takes (true) is neither passed to fn nor
// indexed (see hotTaker). A version 1 snapshot holds index entries of its
// own, which would name keys Badger does not hold: nothing is taken.
func mergePart(p SnapshotPart, ds *deltaSet, keep func(string, []byte) bool, reuse bool,
	take func(k, v []byte) (bool, error), fn func(count uint64, k, v []byte) error) error {
	var last []byte
	var out uint64
	var version byte
	// ix collects the index entries of the data entries emitted (version 2).
	var ix *deltaSet
	emit := func(k, v []byte) error {
		if take != nil && version >= 2 && k[0] == 'd' {
			took, err := take(k, v)
			if err != nil {
				return fmt.Errorf("the value of %q: %w", k, err)
			}
			if took {
				if ix != nil {
					// Its index entries are not written, but checked with
					// the others: a sequence number twice is corruption.
					if err := ix.addIndex(k, v, true); err != nil {
						return fmt.Errorf("the value of %q: %w", k, err)
					}
				}
				return nil
			}
		}
		out++
		if ix != nil && k[0] == 'd' {
			if err := ix.addIndex(k, v, false); err != nil {
				return fmt.Errorf("the value of %q: %w", k, err)
			}
		}
		return fn(out, k, v)
	}
	// emitAfter emits the data entry k, v from delta part of the chain (-1:
	// the base) without its records the later deltas' horizons expired.
	emitAfter := func(k, v []byte, part int32) error {
		if upTo, ok := ds.horizon(k, part); ok {
			var err error
			if v, err = expireValue(v, upTo); err != nil {
				return fmt.Errorf("the value of %q: %w", k, err)
			}
			if v == nil {
				return nil
			}
		}
		return emit(k, v)
	}
	i, j := 0, 0 // next delta entry, next derived index entry
	// putsBefore emits the deltas' data entries before k (nil: all).
	putsBefore := func(k []byte) error {
		for ; ds != nil && i < len(ds.ents) && (k == nil || bytes.Compare(ds.key(&ds.ents[i]), k) < 0); i++ {
			if e := &ds.ents[i]; !e.del {
				if err := emitAfter(ds.key(e), ds.val(e), e.part); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var ik []byte // the key of idx[j]
	ikey := func(s *deltaSet) []byte {
		ik = s.ikey(ik[:0], &s.idx[j])
		return ik
	}
	// idxBefore emits the index entries of s before k (nil: all).
	idxBefore := func(s *deltaSet, k []byte) error {
		for ; j < len(s.idx) && (k == nil || bytes.Compare(ikey(s), k) < 0); j++ {
			if s.idx[j].vl < 0 {
				continue // of a key in the hot tier (addIndex)
			}
			x := ikey(s)
			if !reuse {
				x = bytes.Clone(x) // fn keeps it
			}
			if err := emit(x, s.ival(&s.idx[j])); err != nil {
				return err
			}
		}
		return nil
	}
	dk := []byte{}
	err := readPart(p, reuse, &version, func(count uint64, k, v []byte) error {
		table, key, ok := entryKey(k, v)
		if !ok || count > 1 && bytes.Compare(k, last) <= 0 {
			return fmt.Errorf("entry %d: %w", count, ErrCorrupt)
		}
		last = append(last[:0], k...)
		if version >= 2 {
			if k[0] != 'd' {
				return fmt.Errorf("entry %d: an index entry in a snapshot of version %d: %w", count, version, ErrCorrupt)
			}
			if ix == nil {
				ix = &deltaSet{}
			}
		}
		if ds != nil {
			if k[0] == 'd' {
				if err := putsBefore(k); err != nil {
					return err
				}
				if i < len(ds.ents) && bytes.Equal(ds.key(&ds.ents[i]), k) {
					// The delta's value (or delete) replaces the snapshot's.
					e := &ds.ents[i]
					i++
					if e.del {
						return nil
					}
					return emitAfter(ds.key(e), ds.val(e), e.part)
				}
			} else {
				if err := putsBefore(nil); err != nil {
					return err
				}
				if err := ds.deriveIndex(); err != nil {
					return err
				}
				dk = append(append(append(dk[:0], 'd', byte(len(table))), table...), key...)
				if ds.names(dk) {
					return nil // the delta's index entries stand for the key's
				}
				if upTo, ok := ds.horizon(dk, -1); ok && int64(binary.BigEndian.Uint64(k[len(k)-16:])^(1<<63)) <= upTo {
					// Of a record the horizons drop from the key's value
					// (the entries of the records that stay keep a count
					// and a latest expiry that may be too high, never too
					// low: see Table.unindex).
					return nil
				}
				if err := idxBefore(ds, k); err != nil {
					return err
				}
				if j < len(ds.idx) && bytes.Equal(ikey(ds), k) {
					return fmt.Errorf("entry %d: an index entry both in the snapshot and its deltas: %w", count, ErrCorrupt)
				}
			}
		}
		if keep != nil && !keep(table, key) {
			return nil
		}
		if k[0] == 'd' {
			return emitAfter(k, v, -1)
		}
		return emit(k, v)
	})
	if err != nil {
		return err
	}

	if version >= 2 && ix == nil {
		ix = &deltaSet{} // an empty snapshot: the deltas' entries only
	}
	if err := putsBefore(nil); err != nil {
		return err
	}
	if ix != nil {
		if err := ix.sortIndex(); err != nil {
			return err
		}
		return idxBefore(ix, nil)
	}
	if ds == nil {
		return nil
	}
	if err := ds.deriveIndex(); err != nil {
		return err
	}
	return idxBefore(ds, nil)
}

// readPart reads a snapshot part, checking its header and end, sets
// *version to its version once the header is read, and calls fn for each
// entry (numbered from 1; k and v are fn's to keep, unless reuse is set:
// then they are valid until fn returns).
func readPart(p SnapshotPart, reuse bool, version *byte, fn func(count uint64, k, v []byte) error) error {
	r := bufio.NewReaderSize(p.R, 256<<10)
	head := make([]byte, len(snapshotMagic)+1)
	if _, err := io.ReadFull(r, head); err != nil {
		return fmt.Errorf("not a state snapshot (%w)", unexpected(err))
	}
	if string(head[:len(snapshotMagic)]) != snapshotMagic {
		return errors.New("not a state snapshot")
	}
	v := head[len(snapshotMagic)]
	if v < 1 || v > snapshotVersion {
		return fmt.Errorf("a state snapshot in version %d; this streamsql reads versions 1 to %d", v, snapshotVersion)
	}
	*version = v
	layout, err := readField(r)
	if err != nil {
		return err
	}
	if string(layout) != formatVersion {
		return fmt.Errorf("state in layout %s; this streamsql reads layout %s", layout, formatVersion)
	}
	var count uint64
	var kb, vb []byte
	if reuse {
		kb, vb = make([]byte, 0, 256), make([]byte, 0, 4096)
	}
	for {
		k, err := readFieldInto(r, kb)
		if err != nil {
			return err
		}
		if len(k) == 0 {
			break
		}
		v, err := readFieldInto(r, vb)
		if err != nil {
			return err
		}
		if reuse {
			kb, vb = k[:0], v[:0]
		}
		count++
		if err := fn(count, k, v); err != nil {
			return err
		}
	}
	return readTrailer(r, count)
}

// readTrailer reads what ends a snapshot or a delta after its entries:
// their count, which must be count, and nothing after it.
func readTrailer(r *bufio.Reader, count uint64) error {
	want, err := binary.ReadUvarint(r)
	if err != nil {
		return fmt.Errorf("truncated after %d entries (%w)", count, unexpected(err))
	}
	if want != count {
		return fmt.Errorf("%d entries where its end says %d: it is corrupted", count, want)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return errors.New("bytes after its end: it is corrupted")
	}
	return nil
}

// renumber makes the sequence numbers of records restored from several
// snapshots into one store unique: each store numbers its records from 0,
// and the expiry index is keyed by (expiry, seq), so two stores' records
// with one expiry and one seq would be one index entry, and one of them
// would never expire (a window never fired). Record seq s of part i of n
// becomes s*n+i, which keeps each key's records in their order (a key's
// records all come from one part).
type renumber struct{ i, n uint64 }

func (rn *renumber) seq(s uint64) (uint64, error) {
	if s > (^uint64(0)-rn.i)/rn.n {
		return 0, ErrCorrupt
	}
	return s*rn.n + rn.i, nil
}

// entry returns the Badger entry k, v with its seqs renumbered (k and v
// are the caller's: rewritten in place or copied).
func (rn *renumber) entry(k, v []byte) ([]byte, []byte, error) {
	if k[0] == 'x' {
		at := len(k) - 8
		s, err := rn.seq(binary.BigEndian.Uint64(k[at:]))
		if err != nil {
			return nil, nil, err
		}
		binary.BigEndian.PutUint64(k[at:], s)
		return k, v, nil
	}
	n, p := binary.Uvarint(v)
	if p <= 0 || n > uint64(len(v)) {
		return nil, nil, ErrCorrupt
	}
	out := make([]byte, 0, len(v)+int(n)*2)
	out = append(out, v[:p]...)
	var r Record
	for range n {
		s, hdr, end, err := nextRecord(v, p, &r)
		if err != nil {
			return nil, nil, err
		}
		ns, err := rn.seq(s)
		if err != nil {
			return nil, nil, err
		}
		out = binary.AppendUvarint(out, ns)
		out = append(out, v[hdr:end]...)
		p = end
	}
	return k, append(out, v[p:]...), nil
}

// readField reads a uvarint length and that many bytes.
func readField(r *bufio.Reader) ([]byte, error) { return readFieldInto(r, nil) }

// readFieldInto is readField into buf's memory when it is large enough
// (nil: new memory).
func readFieldInto(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, fmt.Errorf("truncated (%w)", unexpected(err))
	}
	if n > maxSnapshotField {
		return nil, fmt.Errorf("a field of %d bytes: %w", n, ErrCorrupt)
	}
	var b []byte
	if uint64(cap(buf)) >= n {
		b = buf[:n]
	} else if buf != nil {
		b = make([]byte, n, max(n, 2*uint64(cap(buf))))
	} else {
		b = make([]byte, n)
	}
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("truncated (%w)", unexpected(err))
	}
	return b, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// entryKey returns the table and the operator's key of a Badger entry:
// for a data entry 'd' len table key, for an index entry 'x' len table
// exp seq, whose value ends with the key.
func entryKey(k, v []byte) (table string, key []byte, ok bool) {
	if len(k) < 2 || (k[0] != 'd' && k[0] != 'x') || len(k) < 2+int(k[1]) {
		return "", nil, false
	}
	table = string(k[2 : 2+int(k[1])])
	rest := k[2+int(k[1]):]
	if k[0] == 'd' {
		return table, rest, true
	}
	if len(rest) != 16 || len(v) < 9 {
		return "", nil, false
	}
	_, w := binary.Uvarint(v[8:])
	if w <= 0 {
		return "", nil, false
	}
	return table, v[8+w:], true
}
