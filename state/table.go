package state

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"slices"
	"unsafe"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/streamsql/streamsql/row"
)

// Record is one row held in a Table, with the bookkeeping the operators
// keep beside it. Which fields mean what is the operator's business; the
// store only looks at Expiry.
type Record struct {
	Vals    []row.Value
	Count   int64  // e.g. how many identical rows this record stands for
	Matches int64  // e.g. partner rows joined with it (outer join sides)
	Time    int64  // e.g. the row's event time
	Expiry  int64  // Expire(upTo) removes the record once upTo >= Expiry; NoExpiry: never
	Flags   uint32 // operator bits, e.g. "matched"
	seq     uint64
}

// rec is a record as the hot tier holds it: the header fields, and the
// values in their encoding (AppendValues), one string per record. A row
// decoded from its input usually aliases a larger buffer (the input line,
// a slab of values shared by a batch); keeping the encoding instead costs
// about a fifth of the memory and keeps nothing else alive. Scan and Expire
// decode the values for their callbacks.
type rec struct {
	vals    string // AppendValues encoding; immutable
	count   int64
	matches int64
	time    int64
	expiry  int64
	seq     uint64
	flags   uint32
	dead    bool
	indexed bool // Badger's expiry index has (expiry, seq) for it
}

// Seq is the record's insertion number, unique and increasing within its
// table (a record keeps it across spills and reopening).
func (r *Record) Seq() uint64 { return r.seq }

// Table is a namespace of keyed state, one per operator input side: a
// multimap from key to records in insertion order (see the package
// comment). It belongs to its Store's goroutine.
type Table struct {
	s          *Store
	idx        uint16 // in s.tlist
	name       string
	dpre, xpre []byte
	codec      *anyCodec // Map tables

	hot      map[string]*entry
	buckets  bucketIndex
	hotBytes int64
	rows     int64
	seq      uint64

	// cold counts the keys with data in Badger by hash (a key is looked
	// up in Badger only when its hash is here); coldKeys is their number.
	cold       map[uint32]uint32
	coldKeys   int64
	pendingDel map[string]struct{} // keys whose Badger data is to be deleted
	// gone are the keys changed since the store's last snapshot that are
	// not listed hot in Store.chg: deleted, evicted after a change, or
	// changed in Badger by a cold expiry (Store.track only); true when
	// Badger holds the key's value (false: deleted, last).
	gone map[string]bool
	// horizon is the greatest upTo an Expire passed since the store's
	// last snapshot (math.MinInt64: none). A key whose records all expired
	// and that did not change otherwise since that snapshot is not put in
	// gone: the next incremental snapshot says "every record expiring at
	// or before horizon is gone" for the whole table instead (see
	// writeDelta), which restoring applies to the values the chain had
	// before it. An expiry of a key is one map insert less, and one delete
	// less to write, read and sort on restore.
	horizon    int64
	coldMinExp int64 // no cold index entry expires before this
	// coldMaxExp bounds every expiry ever written to Badger, and
	// coldNoExp says a record without expiry may be there: when neither
	// stands in the way, an Expire without callback that passes
	// coldMaxExp drops the table's Badger data whole (see dropCold).
	coldMaxExp int64
	coldNoExp  bool

	epoch     uint32
	kbuf      []byte
	xbuf      []byte
	vbuf      []byte
	blob      []byte
	keyBuf    []byte
	due       []dueRec
	coldDue   []dueRec
	touched   []*entry
	requeue   []bent
	coldCache map[string]*coldKey
	ebuf      []byte
	vslab     []row.Value
	// idxDel are Badger index entries of records that changed or left
	// while hot, to delete at the start of the next batch (see unindex).
	idxDel []idxKey
	blindN int // records a cold expiry removed without reading them
}

type idxKey struct {
	exp int64
	seq uint64
}

// entry is a hot key. It is kept to 80 bytes (a size class), one per hot
// key: its table is an index into the store's tables, and its share of
// the budget is recomputed when it leaves the hot tier (entrySize).
type entry struct {
	key     string
	recs    []rec // by seq
	obj     any   // Map tables
	objSize int64
	slot    int32
	mark    uint32
	tab     uint16 // index in Store.tlist
	ref     bool   // clock bit
	dirty   bool   // differs from Badger
	// chk: changed since the store's last snapshot (and listed in
	// Store.chg); kept only once the store has been snapshotted (see
	// Store.SnapshotChanges).
	chk      bool
	inBadger bool // Badger holds data for the key (maybe stale)
	// frozen: a snapshot being written holds the key as it was at its
	// barrier and has not encoded it yet (guarded by the snapshot's cow.mu;
	// see Store.thaw).
	frozen bool
	// fresh: made since the store's last snapshot, not read from Badger
	// (Store.track only): a delete of the key before the next snapshot
	// need not be in it, unless an earlier one of the same key is.
	fresh bool
}

// entrySize is what e counts against the budget: what newEntry, load,
// Append, Scan, Expire and Map.Put added and removed with grow.
func entrySize(e *entry) int64 {
	n := entryBytes + int64(len(e.key)) + e.objSize + recSlack(e)
	for i := range e.recs {
		n += recSize(&e.recs[i])
	}
	return n
}

// recSlack is the memory of the unused capacity of e's record slice
// (appends double it; removing records leaves it): counted too, so that
// what the hot tier holds is what it counts.
func recSlack(e *entry) int64 { return int64(cap(e.recs)-len(e.recs)) * recordBytes }

// appendRec appends r to e's records and counts it, with the slack the
// append added.
func (t *Table) appendRec(e *entry, r rec) {
	c := cap(e.recs)
	e.recs = append(e.recs, r)
	t.grow(e, recSize(&r)+int64(cap(e.recs)-c-1)*recordBytes)
}

type coldKey struct {
	key  string
	recs []rec
	obj  any
	dead int
}

type dueRec struct {
	exp int64
	seq uint64
	e   *entry
	ck  *coldKey
	idx int32
}

func cmpDue(a, b dueRec) int {
	if c := cmp.Compare(a.exp, b.exp); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// Size estimates.
const (
	entryBytes  = int64(unsafe.Sizeof(entry{})) + 64 // + map slot, ring slot
	recordBytes = int64(unsafe.Sizeof(rec{}))
	valueBytes  = int64(unsafe.Sizeof(row.Value{}))
)

// recSize is a record's memory: its header and its encoded values (with
// the allocator's rounding, about 8 bytes on average).
func recSize(r *rec) int64 {
	if len(r.vals) == 0 {
		return recordBytes
	}
	return recordBytes + int64(len(r.vals)) + 8
}

// newRec makes the hot tier's form of r.
func (t *Table) newRec(r *Record, seq uint64) rec {
	var vals string
	if len(r.Vals) > 0 {
		t.ebuf = t.encodeVals(t.ebuf[:0], r.Vals)
		vals = string(t.ebuf)
	}
	return rec{vals: vals, count: r.Count, matches: r.Matches, time: r.Time, expiry: r.Expiry, seq: seq, flags: r.Flags}
}

// view fills out with r's header and its values, decoded into fresh
// memory from the table's slab (the callback may keep them); the strings
// alias r.vals, which never changes.
func (t *Table) view(r *rec, out *Record) {
	out.Count, out.Matches, out.Time, out.Expiry, out.Flags, out.seq = r.count, r.matches, r.time, r.expiry, r.flags, r.seq
	out.Vals = nil
	if len(r.vals) == 0 {
		return
	}
	b := unsafe.Slice(unsafe.StringData(r.vals), len(r.vals))
	n, _ := binary.Uvarint(b)
	out.Vals = decodeChecked(t.slab(int(n)), b, int(n), nil, true)
}

// slab hands out value slices carved from larger allocations, never
// reused (a callback may keep what it was given).
func (t *Table) slab(n int) []row.Value {
	if len(t.vslab) < n {
		t.vslab = make([]row.Value, max(n, 1024))
	}
	v := t.vslab[:0:n]
	t.vslab = t.vslab[n:]
	return v
}

func (e *entry) find(seq uint64) int {
	i, ok := slices.BinarySearchFunc(e.recs, seq, func(r rec, s uint64) int { return cmp.Compare(r.seq, s) })
	if !ok {
		return -1
	}
	return i
}

func (t *Table) grow(_ *entry, d int64) {
	t.hotBytes += d
	t.s.used += d
}

// The cold count is by a 32-bit hash: a collision only costs a Badger
// lookup that finds nothing, and a slot is half the size of a 64-bit one.
func (t *Table) hash(key []byte) uint32 { return uint32(maphash.Bytes(t.s.seed, key)) }

func (t *Table) coldInc(key string) {
	t.cold[uint32(maphash.String(t.s.seed, key))]++
	t.coldKeys++
}

func (t *Table) coldDec(key string) {
	h := uint32(maphash.String(t.s.seed, key))
	if n := t.cold[h]; n <= 1 {
		delete(t.cold, h)
	} else {
		t.cold[h] = n - 1
	}
	t.coldKeys--
}

// lookup finds the hot entry of key, loading it from Badger when it is
// cold, or creates an empty one when create is set.
func (t *Table) lookup(key []byte, create bool) *entry {
	if e := t.hotEntry(key); e != nil {
		return e
	}
	if t.mayBeCold(key) {
		if e := t.load(key); e != nil {
			return e
		}
	}
	if !create {
		return nil
	}
	e := t.newEntry(string(key))
	e.fresh = t.s.track
	return e
}

// hotEntry is key's hot entry (its clock bit set), or nil.
func (t *Table) hotEntry(key []byte) *entry {
	e := t.hot[string(key)]
	if e != nil {
		e.ref = true
		if t.s.cow != nil {
			t.s.thaw(e)
		}
	}
	return e
}

// mayBeCold says whether a key that is not hot may have records in
// Badger: its hash is counted cold and its data is not to be deleted.
func (t *Table) mayBeCold(key []byte) bool {
	if t.coldKeys == 0 || t.cold[t.hash(key)] == 0 {
		return false
	}
	_, gone := t.pendingDel[string(key)]
	return !gone
}

func (t *Table) newEntry(key string) *entry {
	e := &entry{key: key, tab: t.idx, ref: true}
	t.hot[key] = e
	t.s.ringAdd(e)
	t.grow(e, entryBytes+int64(len(key)))
	return e
}

func (t *Table) load(key []byte) *entry {
	recs, obj, found := t.readCold(key)
	if !found {
		return nil
	}
	return t.loaded(key, recs, obj)
}

// readCold reads key's records (and a Map's value) from Badger, through
// the store's shared read transaction, decoded into memory of their own.
func (t *Table) readCold(key []byte) (recs []rec, obj any, found bool) {
	if t.s.db == nil {
		return nil, nil, false // nothing was ever spilled
	}
	err := func() error {
		item, err := t.s.readTxn().Get(t.dataKey(key))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return item.Value(func(v []byte) error {
			var err error
			recs, obj, err = t.decodeEntry(v)
			return err
		})
	}()
	if err != nil {
		t.s.fail(err)
		return nil, nil, false
	}
	t.s.maybePageOut()
	return recs, obj, found
}

// loaded makes key hot with the records readCold read.
func (t *Table) loaded(key []byte, recs []rec, obj any) *entry {
	e := t.newEntry(string(key))
	e.recs, e.obj, e.inBadger = recs, obj, true
	var d int64
	for i := range recs {
		r := &recs[i]
		d += recSize(r)
		if r.expiry != NoExpiry {
			t.bucketAdd(r.expiry, r.seq, e)
		}
	}
	if t.codec != nil {
		e.objSize = t.codec.size(obj)
		d += e.objSize
	}
	t.grow(e, d)
	t.s.stats.Loaded++
	return e
}

// encodeEntry appends the Badger value of a key: uvarint(live records),
// then per record uvarint(seq) and the record; then, in a Map table,
// uvarint(len) and the value's encoding.
func (t *Table) encodeEntry(dst []byte, recs []rec, obj any) []byte {
	return appendEntry(dst, recs, t.codec, obj, &t.blob)
}

// appendEntry is encodeEntry without the table: it reads recs and obj and
// writes only dst and *scratch (the codec's output), so a snapshot's
// background writer can call it with its own scratch.
func appendEntry(dst []byte, recs []rec, codec *anyCodec, obj any, scratch *[]byte) []byte {
	n := 0
	for i := range recs {
		if !recs[i].dead {
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for i := range recs {
		if r := &recs[i]; !r.dead {
			dst = binary.AppendUvarint(dst, r.seq)
			dst = appendHeader(dst, r.expiry, r.count, r.matches, r.time, r.flags)
			if len(r.vals) == 0 {
				dst = append(dst, 0) // no values
			} else {
				dst = append(dst, r.vals...)
			}
		}
	}
	if codec != nil {
		*scratch = codec.append((*scratch)[:0], obj)
		dst = binary.AppendUvarint(dst, uint64(len(*scratch)))
		dst = append(dst, *scratch...)
	}
	return dst
}

func (t *Table) decodeEntry(b []byte) ([]rec, any, error) {
	recs, raw, hasObj, err := splitEntry(b)
	if err != nil {
		return nil, nil, err
	}
	if hasObj != (t.codec != nil) {
		return nil, nil, ErrCorrupt
	}
	var obj any
	if hasObj {
		if obj, err = t.codec.decode(raw); err != nil {
			return nil, nil, err
		}
	}
	return recs, obj, nil
}

// splitEntry decodes a Badger value (encodeEntry) without its table: the
// records, each with its values in memory of its own, and a Map's value,
// still encoded (aliasing b), when the records are followed by one.
func splitEntry(b []byte) (recs []rec, raw []byte, hasObj bool, err error) {
	recs, p, err := decodeRecs(b)
	if err != nil {
		return nil, nil, false, err
	}
	if p == len(b) {
		return recs, nil, false, nil
	}
	l, w := binary.Uvarint(b[p:])
	if w <= 0 || l != uint64(len(b)-p-w) {
		return nil, nil, false, ErrCorrupt
	}
	return recs, b[p+w:], true, nil
}

// decodeRecs decodes the records of a Badger value, each with its values
// in memory of its own, and returns where they end (a Map's value follows).
func decodeRecs(b []byte) ([]rec, int, error) {
	n, p := binary.Uvarint(b)
	if p <= 0 || n == 0 || n > uint64(len(b)) {
		return nil, 0, ErrCorrupt
	}
	recs := make([]rec, n)
	var prev uint64
	var hdr Record
	for i := range recs {
		seq, w := binary.Uvarint(b[p:])
		if w <= 0 || (i > 0 && seq <= prev) {
			return nil, 0, ErrCorrupt
		}
		p += w
		m, err := DecodeHeader(b[p:], &hdr)
		if err != nil {
			return nil, 0, err
		}
		p += m
		cnt, size, _, err := valuesLen(b[p:])
		if err != nil {
			return nil, 0, err
		}
		r := &recs[i]
		if cnt > 0 {
			r.vals = string(b[p : p+size])
		}
		p += size
		r.count, r.matches, r.time, r.expiry, r.flags = hdr.Count, hdr.Matches, hdr.Time, hdr.Expiry, hdr.Flags
		r.seq, prev = seq, seq
		r.indexed = r.expiry != NoExpiry
	}
	return recs, p, nil
}

// writeEntry writes a hot key and the index entries of its records.
func (t *Table) writeEntry(wb *batch, e *entry) {
	t.vbuf = t.encodeEntry(t.vbuf[:0], e.recs, e.obj)
	t.s.set(wb, t.dataKey(unsafe.Slice(unsafe.StringData(e.key), len(e.key))), t.vbuf)
	// Each index entry says how many records the key has and the latest
	// expiry among them, so a cold expiry that needs no callback can
	// delete a key whose only record is due without reading it.
	n, maxExp := 0, int64(math.MinInt64)
	for i := range e.recs {
		if r := &e.recs[i]; !r.dead {
			n++
			maxExp = max(maxExp, r.expiry)
			if r.expiry == NoExpiry {
				t.coldNoExp = true
			}
		}
	}
	t.coldMaxExp = max(t.coldMaxExp, maxExp)
	t.blob = binary.BigEndian.AppendUint64(t.blob[:0], uint64(maxExp))
	t.blob = binary.AppendUvarint(t.blob, uint64(n))
	t.blob = append(t.blob, e.key...)
	for i := range e.recs {
		r := &e.recs[i]
		if r.dead || r.expiry == NoExpiry {
			continue
		}
		t.s.set(wb, t.indexKey(r.expiry, r.seq), t.blob)
		r.indexed = true
		t.coldMinExp = min(t.coldMinExp, r.expiry)
	}
	if !e.inBadger {
		t.coldInc(e.key)
		e.inBadger = true
	}
	delete(t.pendingDel, e.key)
	e.dirty = false
	t.s.stats.Written++
}

// changed marks e changed: to be written to Badger when it spills, and
// in the next incremental snapshot.
func (t *Table) changed(e *entry) {
	e.dirty = true
	if !e.chk && t.s.track {
		e.chk = true
		t.s.chg = append(t.s.chg, e)
	}
}

// dropHot takes e out of the hot tier.
func (t *Table) dropHot(e *entry) {
	delete(t.hot, e.key)
	t.s.ringRemove(e)
	size := entrySize(e)
	t.hotBytes -= size
	t.s.used -= size
	left := true // the first stale entry is counted as keeping e alive
	for i := range e.recs {
		if r := &e.recs[i]; !r.dead && r.expiry != NoExpiry {
			t.bucketStale(r.expiry, left)
			left = false
		}
	}
	// Stale bucket entries may still point at e: keep it small.
	e.recs, e.obj, e.objSize = nil, nil, 0
}

func (t *Table) evict(wb *batch, e *entry) {
	if t.s.cow != nil {
		t.s.thaw(e)
	}
	if e.chk {
		t.gone[e.key] = true // its change is in Badger now
		e.chk = false
	}
	if e.dirty {
		t.writeEntry(wb, e)
	}
	t.dropHot(e)
	e.key = ""
	t.s.stats.Spilled++
}

// removeEntry deletes a key that has no records left (or, from Delete and
// Map.Delete, whose records all go); expired: an Expire took its last
// records.
func (t *Table) removeEntry(e *entry, expired bool) {
	if t.s.track {
		// Deleted: Badger's data goes with the pending deletes, written
		// before a snapshot reads Badger. A key made since the last
		// snapshot was in none: nothing to delete (a delete of it before,
		// if any, is in gone already). Nor is a key that expired whole
		// without changing otherwise since the last snapshot: every record
		// the snapshots hold of it expired by the table's horizon.
		if !e.fresh && (!expired || e.chk) {
			t.markGone(e.key, false)
		}
		e.chk = false
	}
	for i := range e.recs {
		t.unindex(&e.recs[i])
	}
	t.dropHot(e)
	if e.inBadger {
		t.coldDec(e.key)
		t.pendingDel[e.key] = struct{}{}
	}
	t.flushDeletesIfMany()
	e.key = ""
}

// markGone notes that key changed outside the hot tier since the last
// snapshot (get: Badger holds its value, else it was deleted), for the
// next incremental one. When a store's tables hold more such keys than
// records (most of the state went: a bounded input ended, a window of
// every key fired), the next snapshot is a whole one instead — smaller to
// write and to restore than the deletes — and the store stops keeping
// what changed until then (a map insert per key gone).
func (t *Table) markGone(key string, get bool) {
	t.gone[key] = get
	if n := len(t.gone); n >= untrackAfter && n%untrackEvery == 0 {
		s := t.s
		var gone int64
		for _, u := range s.tlist {
			gone += int64(len(u.gone))
		}
		if gone > s.Rows() {
			s.track, s.wholeNext = false, true
			for _, u := range s.tlist {
				u.gone = map[string]bool{}
			}
		}
	}
}

// untrackAfter is the number of keys gone from a table from which
// markGone compares them with the store's records, every untrackEvery
// (variables for the tests).
var untrackAfter, untrackEvery = 1 << 16, 4096

// unindex notes that r, read from or written to Badger with an index
// entry, is about to leave or change its expiry: the entry is deleted at
// the start of the next batch, so every index entry always names a record
// as Badger's latest value of its key holds it (and its record count and
// latest expiry are never too low).
func (t *Table) unindex(r *rec) {
	if r.indexed {
		t.idxDel = append(t.idxDel, idxKey{r.expiry, r.seq})
		r.indexed = false
	}
}

// writeIdxDeletes starts a batch with the index deletes unindex queued
// (before any set in it: a batch applies its writes in order).
func (t *Table) writeIdxDeletes(wb *batch) {
	for _, x := range t.idxDel {
		t.s.del(wb, t.indexKey(x.exp, x.seq))
	}
	t.idxDel = keepSmall(t.idxDel)
}

func (t *Table) flushDeletesIfMany() {
	if len(t.pendingDel)+len(t.idxDel) >= 4096 {
		wb := t.s.newBatch()
		t.writeIdxDeletes(wb)
		t.writeDeletes(wb)
		t.s.commit(wb)
	}
}

func (t *Table) writeDeletes(wb *batch) {
	for k := range t.pendingDel {
		t.s.del(wb, t.dataKey(unsafe.Slice(unsafe.StringData(k), len(k))))
	}
	clear(t.pendingDel)
}

// coldCount is what reopen counts of a table's keys in Badger: Restore
// counts it as it writes them (Store.restored), and a table opened after
// takes it instead of reading them all again.
type coldCount struct {
	cold     map[uint32]uint32
	keys     int64
	rows     int64
	seq      uint64 // the next sequence number
	minExp   int64
	hasIndex bool // minExp is set
}

// add counts the data entry of key whose value is v.
func (c *coldCount) add(seed maphash.Seed, key, v []byte) error {
	n, maxSeq, err := scanEntry(v)
	if err != nil {
		return err
	}
	c.rows += int64(n)
	c.seq = max(c.seq, maxSeq+1)
	c.cold[uint32(maphash.Bytes(seed, key))]++
	c.keys++
	return nil
}

// reopen counts what an earlier run (or Restore) left in Badger for this
// table.
func (t *Table) reopen() {
	if t.s.db == nil {
		return
	}
	if c := t.s.restored[t.name]; c != nil {
		delete(t.s.restored, t.name)
		t.cold, t.coldKeys, t.rows, t.seq = c.cold, c.keys, c.rows, c.seq
		t.coldNoExp = c.keys > 0 // not known: never drop the table whole
		if c.hasIndex {
			t.coldMinExp = c.minExp
		}
		return
	}
	err := t.s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: t.dpre, PrefetchValues: false})
		defer it.Close()
		for it.Seek(t.dpre); it.ValidForPrefix(t.dpre); it.Next() {
			item := it.Item()
			key := item.Key()[len(t.dpre):]
			err := item.Value(func(v []byte) error {
				n, maxSeq, err := scanEntry(v)
				if err != nil {
					return err
				}
				t.rows += int64(n)
				t.seq = max(t.seq, maxSeq+1)
				t.coldNoExp = true // not known: never drop the table whole
				return nil
			})
			if err != nil {
				return err
			}
			t.coldInc(string(key))
		}
		it.Close()
		ix := txn.NewIterator(badger.IteratorOptions{Prefix: t.xpre})
		defer ix.Close()
		ix.Seek(t.xpre)
		if ix.ValidForPrefix(t.xpre) {
			exp, _, ok := t.parseIndexKey(ix.Item().Key())
			if !ok {
				return ErrCorrupt
			}
			t.coldMinExp = exp
		}
		return nil
	})
	t.s.fail(err)
}

// scanEntry reads the record count and the largest seq of a Badger value.
func scanEntry(b []byte) (int, uint64, error) {
	n, p := binary.Uvarint(b)
	if p <= 0 || n > uint64(len(b)) {
		return 0, 0, ErrCorrupt
	}
	var seq uint64
	var r Record
	for i := uint64(0); i < n; i++ {
		s, w := binary.Uvarint(b[p:])
		if w <= 0 {
			return 0, 0, ErrCorrupt
		}
		p += w
		seq = max(seq, s)
		m, err := DecodeHeader(b[p:], &r)
		if err != nil {
			return 0, 0, err
		}
		p += m
		_, m, _, err = valuesLen(b[p:])
		if err != nil {
			return 0, 0, err
		}
		p += m
	}
	return int(n), seq, nil
}

// ---- the multimap API ----

func (t *Table) multimap() {
	if t.codec != nil {
		panic("state: table " + t.name + " is a Map")
	}
}

// Append adds a record under key, after the key's other records. The table
// keeps an encoded copy of rec.Vals and a copy of the key: the caller may
// reuse both.
func (t *Table) Append(key []byte, rec Record) {
	t.s.checkCallback()
	t.multimap()
	e := t.lookup(key, true)
	r := t.newRec(&rec, t.seq)
	t.seq++
	t.appendRec(e, r)
	if r.expiry != NoExpiry {
		t.bucketAdd(r.expiry, r.seq, e)
	}
	t.changed(e)
	t.rows++
	t.s.maybeSpill()
}

// Scan calls fn for each record of key in insertion order. fn may change
// the record's header fields (Count, Matches, Time, Flags, Expiry) in
// place, but not its Vals (a decoded copy, which fn may keep); keep=false removes the record; stop=true ends
// the scan. A cold key is read from Badger, and becomes hot only when fn
// changes or removes one of its records (see scanCold). fn must
// not call methods of the Store or its tables. It returns whether the key
// had records.
func (t *Table) Scan(key []byte, fn func(r *Record) (keep, stop bool)) bool {
	t.s.checkCallback()
	t.multimap()
	e := t.hotEntry(key)
	if e == nil {
		return t.mayBeCold(key) && t.scanCold(key, fn)
	}
	t.scan(e, false, nil, fn)
	return true
}

// scanCold is Scan of a key that is not hot. Its records are read from
// Badger and shown to fn without making the key hot: a probe of a
// spilled key that changes nothing (an inner join's) would otherwise add
// the key to the hot tier, which then evicts another key — a Badger write
// for every read. Only when fn changes or removes a record does the key
// become hot (as Scan always made it), with that change and fn's calls
// for the records after it applied as Scan of a hot key applies them.
func (t *Table) scanCold(key []byte, fn func(r *Record) (keep, stop bool)) bool {
	recs, obj, found := t.readCold(key)
	if !found {
		return false
	}
	t.s.inCallback = true
	var v Record
	at := -1
	keep, stop := true, false
	for i := range recs {
		r := &recs[i]
		t.view(r, &v)
		keep, stop = fn(&v)
		if !keep || v.Count != r.count || v.Matches != r.matches || v.Time != r.time || v.Flags != r.flags || v.Expiry != r.expiry {
			at = i
			break
		}
		if stop {
			break
		}
	}
	t.s.inCallback = false
	if at < 0 {
		t.s.stats.ReadCold++
		return true
	}
	// fn changed record at: the records before it went unchanged, and
	// fn has yet to see those after it (unless it stopped).
	e := t.loaded(key, recs, obj)
	i := 0
	t.scan(e, false, nil, func(r *Record) (bool, bool) {
		j := i
		i++
		switch {
		case j < at:
			return true, false
		case j == at:
			r.Count, r.Matches, r.Time, r.Flags, r.Expiry = v.Count, v.Matches, v.Time, v.Flags, v.Expiry
			return keep, stop
		}
		return fn(r)
	})
	return true
}

// Find calls fn for the first record of key whose values equal vals (each
// by row.Value.Equal), as Scan would: fn may change its header fields, and
// keep=false removes it. The values are compared in their encoding (which
// is canonical for Equal), so the key's other records are not decoded:
// finding the record that holds a row among many costs a byte comparison
// each. It returns whether such a record was found.
func (t *Table) Find(key []byte, vals []row.Value, fn func(r *Record) (keep bool)) bool {
	t.s.checkCallback()
	t.multimap()
	e := t.lookup(key, false)
	if e == nil {
		return false
	}
	t.ebuf = t.encodeVals(t.ebuf[:0], vals)
	found := false
	t.scan(e, true, t.ebuf, func(r *Record) (keep, stop bool) {
		found = true
		return fn(r), true
	})
	return found
}

// encodeVals is a record's stored values: empty for no values, else
// their AppendValues encoding.
func (t *Table) encodeVals(dst []byte, vals []row.Value) []byte {
	if len(vals) == 0 {
		return dst
	}
	return AppendValues(dst, vals)
}

// scan runs fn over e's records (with filter, only those whose encoded
// values are match), applying what it changed.
func (t *Table) scan(e *entry, filter bool, match []byte, fn func(r *Record) (keep, stop bool)) {
	t.s.inCallback = true
	n := len(e.recs)
	j := 0
	changed, stopped := false, false
	var v Record
	for i := 0; i < n; i++ {
		r := &e.recs[i]
		if !stopped && (!filter || r.vals == string(match)) {
			t.view(r, &v)
			keep, stop := fn(&v)
			stopped = stop
			if !keep {
				changed = true
				t.grow(e, recordBytes-recSize(r)) // its slot stays as slack
				t.rows--
				if r.expiry != NoExpiry {
					t.bucketStale(r.expiry, false)
				}
				t.unindex(r)
				continue
			}
			if v.Count != r.count || v.Matches != r.matches || v.Time != r.time || v.Flags != r.flags || v.Expiry != r.expiry {
				changed = true
				old := r.expiry
				if v.Expiry != old {
					t.unindex(r)
				}
				r.count, r.matches, r.time, r.flags, r.expiry = v.Count, v.Matches, v.Time, v.Flags, v.Expiry
				if r.expiry != old {
					t.reindex(e, r.seq, old, r.expiry)
				}
			}
		}
		if j != i {
			e.recs[j] = *r
		}
		j++
	}
	t.s.inCallback = false
	clear(e.recs[j:n])
	e.recs = e.recs[:j]
	if changed {
		t.changed(e)
	}
	if j == 0 {
		t.removeEntry(e, false)
	}
	t.s.maybeSpill()
}

// reindex moves a record's bucket entry after its expiry changed.
func (t *Table) reindex(e *entry, seq uint64, old, now int64) {
	if old != NoExpiry {
		if now != NoExpiry && now >= old && t.buckets.id(now) == t.buckets.id(old) {
			return // the old entry is still a lower bound
		}
		t.bucketStale(old, false)
	}
	if now != NoExpiry {
		t.bucketAdd(now, seq, e)
	}
}

// Delete removes every record of key and returns how many there were.
func (t *Table) Delete(key []byte) int {
	t.s.checkCallback()
	e := t.lookup(key, false)
	if e == nil {
		return 0
	}
	n := len(e.recs)
	t.rows -= int64(n)
	t.removeEntry(e, false)
	t.s.maybeSpill()
	return n
}

// Len is the number of records held, hot and cold.
func (t *Table) Len() int64 { return t.rows }

// MemBytes is the estimated size of the table's hot tier, its expiry
// buckets included.
func (t *Table) MemBytes() int64 { return t.hotBytes + t.buckets.bytes() }

// HotKeys is the number of keys in the hot tier.
func (t *Table) HotKeys() int { return len(t.hot) }

// Expire removes every record whose Expiry <= upTo, hot or cold, calling
// fn for each just before, in order of (Expiry, Seq): the same order
// whatever was spilled. fn must not call methods of the Store or its
// tables, nor keep key (r.Vals it may keep). It returns the number of
// records removed. It touches only the due buckets in memory and the due
// prefix of the Badger expiry index; with fn nil, a spilled key whose only
// record is due is deleted without being read.
func (t *Table) Expire(upTo int64, fn func(key []byte, r *Record)) int {
	t.multimap()
	return t.expire(upTo, fn, nil)
}

func strBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func (t *Table) expire(upTo int64, fnRec func([]byte, *Record), fnObj func([]byte, any)) int {
	s := t.s
	s.checkCallback()
	if upTo >= NoExpiry {
		upTo = NoExpiry - 1
	}
	t.horizon = max(t.horizon, upTo)
	t.epoch++
	hot, touched := t.due[:0], t.touched[:0]

	// Hot: the due buckets, in id order.
	x := &t.buckets
	limit := x.id(upTo)
	for len(x.ids) > 0 && x.ids[0] <= limit {
		b := x.m[x.ids[0]]
		if !b.sorted {
			slices.SortFunc(b.ents, cmpBent)
			b.sorted = true
		}
		rq := t.requeue[:0]
		before := x.bytes()
		i, left := 0, int32(0)
		for ; i < len(b.ents) && b.ents[i].exp <= upTo; i++ {
			be := &b.ents[i]
			e := be.e
			if e.slot < 0 {
				left++
				continue
			}
			idx := e.find(be.seq)
			if idx < 0 {
				continue
			}
			r := &e.recs[idx]
			if r.dead || r.expiry == NoExpiry {
				continue
			}
			if r.expiry <= upTo {
				if s.cow != nil {
					s.thaw(e) // before r changes, and fn sees (and may change) its value
				}
				r = &e.recs[idx]
				r.dead = true
				hot = append(hot, dueRec{exp: r.expiry, seq: r.seq, e: e, idx: int32(idx)})
				if e.mark != t.epoch {
					e.mark = t.epoch
					touched = append(touched, e)
				}
				continue
			}
			if x.id(r.expiry) == b.id {
				rq = append(rq, bent{r.expiry, r.seq, e})
			}
		}
		rest := copy(b.ents, b.ents[i:])
		clear(b.ents[rest:])
		b.ents = b.ents[:rest]
		b.stale = max(0, b.stale-int32(i))
		left = min(left, b.pinned)
		b.pinned -= left
		x.pinned -= int64(left)
		if p := min(b.pinned, b.stale); p < b.pinned {
			x.pinned -= int64(b.pinned - p)
			b.pinned = p
		}
		c := cap(b.ents)
		if len(rq) > 0 {
			b.ents = append(b.ents, rq...)
			b.sorted = false
		}
		t.requeue = rq[:0]
		if len(b.ents) > 0 {
			x.capN += int64(cap(b.ents) - c)
			t.bucketsChanged(before)
			break // the bucket of upTo, partly due
		}
		x.capN -= int64(c)
		x.pinned -= int64(b.pinned)
		delete(x.m, b.id)
		x.pop()
		t.bucketsChanged(before)
	}
	slices.SortFunc(hot, cmpDue)

	// Callbacks in (expiry, seq) order over both tiers: the cold records
	// come from the due prefix of the Badger index, a chunk at a time, and
	// the hot ones that sort before each cold one go first.
	var v Record
	emit := func(d *dueRec) {
		var key string
		var r *rec
		var obj any
		if d.e != nil {
			key, r, obj = d.e.key, &d.e.recs[d.idx], d.e.obj
		} else {
			key, r, obj = d.ck.key, &d.ck.recs[d.idx], d.ck.obj
		}
		if fnRec != nil {
			t.view(r, &v)
			fnRec(strBytes(key), &v)
		} else if fnObj != nil {
			fnObj(strBytes(key), obj)
		}
	}
	n := len(hot)
	i := 0
	if t.coldKeys > 0 && fnRec == nil && fnObj == nil && !t.coldNoExp && upTo >= t.coldMaxExp && t.s.snaps.idle() {
		n += t.dropCold()
	}
	if t.coldKeys > 0 && upTo >= t.coldMinExp {
		from := slices.Clone(t.indexKey(t.coldMinExp, 0)) // indexKey's buffer is reused
		for {
			wb := s.newBatch()
			t.writeIdxDeletes(wb)
			t.blindN = 0
			cold, next := t.coldChunk(upTo, from, t.coldDue[:0], wb, fnRec == nil && fnObj == nil)
			s.inCallback = true
			for j := range cold {
				for i < len(hot) && cmpDue(hot[i], cold[j]) < 0 {
					emit(&hot[i])
					i++
				}
				emit(&cold[j])
			}
			s.inCallback = false
			n += len(cold) + t.blindN
			t.applyCold(wb)
			s.commit(wb)
			clear(cold)
			t.coldDue = cold[:0]
			if next == nil {
				break
			}
			from = next
		}
	}
	s.inCallback = true
	for ; i < len(hot); i++ {
		emit(&hot[i])
	}
	s.inCallback = false

	// Apply: hot keys lose their due records.
	for _, e := range touched {
		k := 0
		for m := range e.recs {
			r := &e.recs[m]
			if r.dead {
				t.grow(e, recordBytes-recSize(r)) // its slot stays as slack
				t.rows--
				t.unindex(r)
				continue
			}
			if k != m {
				e.recs[k] = *r
			}
			k++
		}
		clear(e.recs[k:])
		e.recs = e.recs[:k]
		if k == 0 {
			if t.codec != nil {
				t.grow(e, -e.objSize)
				e.obj, e.objSize = nil, 0
			}
			t.removeEntry(e, true)
		} else {
			t.changed(e)
		}
	}
	s.maybeSpill()
	clear(hot)
	clear(touched)
	t.due, t.touched = keepSmall(hot), keepSmall(touched)
	return n
}

// dropCold removes every record the table has in Badger, for an expiry
// without callback that every one of them is due for (no record without
// expiry was ever written, and the latest expiry written is passed): one
// DropPrefix instead of reading the index and deleting each key, which
// at the end of a bounded input (the watermark at +inf) was most of the
// cost of expiring a large spilled state. Hot keys keep their records;
// those Badger also had are marked dirty, so they are written again if
// they spill. It returns the number of records removed.
func (t *Table) dropCold() int {
	s := t.s
	s.endRead()
	s.d.writes.Lock() // (DropPrefix fails every other write meanwhile)
	err := s.db.DropPrefix(t.dpre, t.xpre)
	s.d.writes.Unlock()
	if err != nil {
		s.fail(err)
		return 0
	}
	var hotRows int64
	for _, e := range t.hot {
		hotRows += int64(len(e.recs)) // due ones included: expire counts them off
		if e.inBadger {
			e.inBadger, e.dirty = false, true
		}
		for i := range e.recs {
			e.recs[i].indexed = false
		}
	}
	n := t.rows - hotRows
	t.rows = hotRows
	// Which keys went is not known: the next snapshot is a whole one.
	s.wholeNext = true
	clear(t.cold)
	t.coldKeys = 0
	clear(t.pendingDel)
	t.idxDel = keepSmall(t.idxDel)
	t.coldMinExp, t.coldMaxExp = math.MaxInt64, math.MinInt64
	s.stats.ColdExpired += n
	s.stats.ColdDropped += n
	return int(n)
}

// keepSmall empties a scratch slice for reuse, dropping it when it is
// large: one expiry of many records should not pin its list for good.
func keepSmall[T any](s []T) []T {
	if cap(s) > 4096 {
		return nil
	}
	return s[:0]
}

// coldChunkSize is the number of index entries one chunk of a cold expiry
// reads: the keys it names are decoded and rewritten together, so this
// bounds the memory of expiring any amount of spilled state (a variable
// for the tests).
var coldChunkSize = 4096

// coldChunk collects due cold records, starting at the index key from,
// deleting the index entries it passes, for at most coldChunkSize index
// entries. It returns the key to resume from, or nil when every due entry
// was read. With blind set (no callback), a key whose index entry says it
// has one record, due, is deleted without being read (counted in blindN).
func (t *Table) coldChunk(upTo int64, from []byte, due []dueRec, wb *batch, blind bool) ([]dueRec, []byte) {
	if t.coldCache == nil {
		t.coldCache = map[string]*coldKey{}
	}
	clear(t.coldCache)
	s := t.s
	next := int64(math.MaxInt64)
	var resume []byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: t.xpre})
		defer it.Close()
		// No live index entry is below coldMinExp: seeking there skips the
		// tombstones of the entries earlier passes deleted.
		read := 0
		for it.Seek(from); it.ValidForPrefix(t.xpre); it.Next() {
			item := it.Item()
			exp, seq, ok := t.parseIndexKey(item.Key())
			if !ok {
				return ErrCorrupt
			}
			if exp > upTo {
				next = exp
				break
			}
			if read == coldChunkSize {
				resume = item.KeyCopy(nil)
				return nil
			}
			read++
			s.del(wb, item.Key())
			var maxExp int64
			var nrec uint64
			err := item.Value(func(v []byte) error {
				if len(v) < 9 {
					return ErrCorrupt
				}
				maxExp = int64(binary.BigEndian.Uint64(v))
				var w int
				if nrec, w = binary.Uvarint(v[8:]); w <= 0 {
					return ErrCorrupt
				}
				t.keyBuf = append(t.keyBuf[:0], v[8+w:]...)
				return nil
			})
			if err != nil {
				return err
			}
			key := t.keyBuf
			if t.hot[string(key)] != nil {
				continue // the hot tier has the key and expires it
			}
			if _, gone := t.pendingDel[string(key)]; gone {
				continue
			}
			ck, seen := t.coldCache[string(key)]
			if !seen && blind && nrec == 1 && maxExp <= upTo {
				// The key's only record is this one, and it is due.
				s.del(wb, t.dataKey(key))
				t.coldDec(string(key))
				// Not in gone: its only record is due by the horizon (a key
				// in gone already is read from the snapshot's view).
				t.rows--
				s.stats.ColdExpired++
				s.stats.ColdBlind++
				t.blindN++
				continue
			}
			if !seen {
				ck, err = t.loadCold(txn, key)
				if err != nil {
					return err
				}
				t.coldCache[string(key)] = ck
			}
			if ck == nil {
				continue
			}
			idx, found := slices.BinarySearchFunc(ck.recs, seq, func(r rec, s uint64) int { return cmp.Compare(r.seq, s) })
			if !found {
				continue
			}
			r := &ck.recs[idx]
			if r.dead || r.expiry != exp {
				continue
			}
			r.dead = true
			ck.dead++
			due = append(due, dueRec{exp: exp, seq: seq, ck: ck, idx: int32(idx)})
		}
		return nil
	})
	if err != nil {
		s.fail(err)
		return due[:0], nil
	}
	if resume == nil {
		t.coldMinExp = next
	}
	return due, resume
}

// applyCold rewrites the keys of the last cold chunk without their due
// records.
func (t *Table) applyCold(wb *batch) {
	s := t.s
	for _, ck := range t.coldCache {
		if ck == nil || ck.dead == 0 {
			continue
		}
		t.rows -= int64(ck.dead)
		s.stats.ColdExpired += int64(ck.dead)
		if s.track && ck.dead != len(ck.recs) {
			// Some records stay, and fn may have changed its value: a
			// key that expired whole is gone by the horizon (removeEntry).
			t.markGone(ck.key, true)
		}
		kb := strBytes(ck.key)
		if ck.dead == len(ck.recs) {
			s.del(wb, t.dataKey(kb))
			t.coldDec(ck.key)
			continue
		}
		t.vbuf = t.encodeEntry(t.vbuf[:0], ck.recs, ck.obj)
		s.set(wb, t.dataKey(kb), t.vbuf)
	}
	clear(t.coldCache)
}

func (t *Table) loadCold(txn *badger.Txn, key []byte) (*coldKey, error) {
	item, err := txn.Get(t.dataKey(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ck := &coldKey{key: string(key)}
	err = item.Value(func(v []byte) error {
		var err error
		ck.recs, ck.obj, err = t.decodeEntry(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ck, nil
}
