package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"

	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// DefaultMemoryBudget is the hot tier's budget when Options.MemoryBudget is 0.
const DefaultMemoryBudget = 256 << 20

// NoExpiry is the Expiry of a record that never expires: Expire never
// removes it, whatever its argument (so an operator whose expiry
// saturates at math.MaxInt64 should clamp it to NoExpiry-1).
const NoExpiry = math.MaxInt64

// Options configure a Store.
type Options struct {
	// MemoryBudget is the estimated size in bytes of the hot tier (all
	// tables of the store) above which the coldest keys spill to Badger.
	// 0 means DefaultMemoryBudget; a negative budget never spills.
	MemoryBudget int64
	// MemTableSize is Badger's memtable size; 0 means an eighth of the
	// budget, at least 4 MB and at most 16 MB (of all the budgets of a
	// Shared's stores: memtableFor).
	MemTableSize int64
	// BucketWidth is the default expiry bucket width (in the unit of the
	// expiry times, usually milliseconds) for tables that do not set one;
	// 0 means 1024. Widths are rounded up to a power of two.
	BucketWidth int64
	// Scratch says the directory is only where the state spills: its
	// durable copy is elsewhere (checkpoints, read back with Restore), so
	// Close does not write the hot tier into it first.
	Scratch bool
	// Shared, when set, is the Badger database the store spills to, with
	// the other stores of the job (Open's dir must be ""); MemTableSize
	// is then the Shared's.
	Shared *Shared
}

// Store is keyed operator state: an in-memory hot tier in front of one
// Badger database. A Store and its tables belong to one goroutine (one
// operator partition); nothing in it is safe for concurrent use.
type Store struct {
	// d is the Badger database the store spills to, its own or shared;
	// kpre begins every key of the store in it (empty in its own). db is
	// d's once open, and pageDir its directory as /proc/self/maps shows it.
	d       *disk
	kpre    []byte
	db      *badger.DB
	pageDir string
	budget  int64
	width   int64
	seed    maphash.Seed
	// scratch: Options.Scratch.
	scratch bool

	used   int64    // estimated bytes of every table's hot tier
	ring   []*entry // clock over every hot entry of every table
	hand   int
	tables map[string]*Table
	tlist  []*Table // by Table.idx

	// disk is what the store took on disk when it was last measured
	// (DiskBytes), at measured; coldPub is the count of its keys in
	// Badger it last added to its shared database's (measure).
	disk     int64
	measured time.Time
	coldPub  int64
	// coldLim is what the store counts in the Go memory limit for the
	// index of its spilled keys (memLimitCold), updated with measure.
	coldLim int64

	// restored is what Restore counted of each table it wrote (by name),
	// taken by the table when it is opened instead of a scan of Badger.
	restored map[string]*coldCount
	// hotRestored is what Restore took into the hot tier for each table,
	// adopted by the table when it is opened (restore_hot.go).
	hotRestored map[string]*restoredHot
	// restoreRoom is what Restore may still take into the hot tier, in
	// estimated bytes; restoreDisk the bytes of what it restores (0: not
	// known), and probe the sample it decides by (restore_hot.go).
	restoreRoom int64
	restoreDisk int64
	probe       probe

	err        error // first I/O or decoding error; sticky
	inCallback bool
	closed     bool
	stats      Stats
	arena      arena
	wb         batch     // the batch being made (newBatch)
	snaps      snapshots // being written (snapshot.go); Close waits
	// cow is the hot tier of the snapshot being written while it still
	// has frozen keys (see thaw); nil otherwise.
	cow *cow
	// track: the store keeps what changed since its last snapshot, for
	// SnapshotChanges (set by the first snapshot): chg lists the hot
	// entries marked chk, each table's gone the other changed keys.
	// wholeNext: what changed is not known (a table's Badger data was
	// dropped whole), so the next snapshot must be a whole one.
	track     bool
	chg       []*entry
	wholeNext bool
	// rtxn is the read transaction the lookups of cold keys share (a
	// transaction per lookup cost a round trip through Badger's watermark
	// goroutine each), with the reads made through it: it is ended after
	// readTxnReads reads (it holds back the versions compactions may
	// discard) and whenever the store writes, so a read sees every
	// write the store made before it (see readTxn).
	rtxn  *badger.Txn
	rtxnN int
}

// Stats count the traffic between the tiers since Open.
type Stats struct {
	SpillRounds int64 // eviction rounds (one Badger batch each)
	Spilled     int64 // keys evicted from the hot tier
	Written     int64 // keys written to Badger (evicted dirty, or flushed)
	Loaded      int64 // keys read back from Badger into the hot tier
	ReadCold    int64 // keys a Scan read from Badger without making them hot
	ColdExpired int64 // records expired straight from Badger
	ColdBlind   int64 // of those, records whose key was deleted unread (see Table.Expire)
	ColdDropped int64 // of those, records dropped with their whole table's Badger data (see dropCold)
	RestoredHot int64 // keys Restore put in the hot tier (the rest it wrote to Badger)
}

// Open opens (or creates) the state in dir. With dir "" the state lives in
// a fresh directory under the system's temporary directory that Close
// removes, or in opts.Shared.
func Open(dir string, opts Options) (*Store, error) {
	s := &Store{budget: opts.MemoryBudget, tables: map[string]*Table{}, seed: maphash.MakeSeed(), scratch: opts.Scratch}
	if s.budget == 0 {
		s.budget = DefaultMemoryBudget
	}
	if s.budget < 0 {
		s.budget = math.MaxInt64
	}
	s.width = opts.BucketWidth
	if s.width <= 0 {
		s.width = 1024
	}
	switch {
	case opts.Shared != nil && dir != "":
		return nil, fmt.Errorf("state: a store in a shared database has no directory of its own (%s)", dir)
	case opts.Shared != nil:
		s.d = &opts.Shared.d
	default:
		s.d = &disk{dir: dir, temp: dir == "", mt: opts.MemTableSize}
	}
	var first bool
	s.kpre, first = s.d.acquire(s.budget)
	memLimitOpen(s.budget, first)
	if dir == "" {
		// A temporary store opens Badger only when something has to spill:
		// state that fits the budget never touches the disk.
		return s, nil
	}
	if err := s.openDB(); err != nil {
		_ = s.release() // (nothing opened: only the counts)
		return nil, err
	}
	return s, nil
}

// openDB opens the store's Badger database (shared: unless another store
// did).
func (s *Store) openDB() error {
	db, pageDir, err := s.d.open()
	if err != nil {
		return err
	}
	s.db, s.pageDir = db, pageDir
	s.measure()
	return nil
}

// release counts the store out of its database (closing it if it was the
// last) and out of the memory limit.
func (s *Store) release() error {
	s.d.cold.Add(-s.coldPub)
	memLimitCold(-s.coldLim)
	s.coldLim = 0
	last, err := s.d.release()
	memLimitClose(s.budget, last)
	return err
}

// pageOutEvery is how often, at most, a store gives back the resident
// pages of Badger's memory-mapped files (see pageOutMappings): the pages
// Badger touched since then (tables written by spills and compactions,
// tables read) are what its files add to the resident set. A page given
// back that Badger needs again is read from the file again. The index and
// bloom filter of a table, at the end of its file and consulted by every
// lookup that reaches the table, stay (tableTails): given back, each
// page-out was followed by a burst of faults on them, each reading ahead
// around the faulting page. At 250 ms (before) the 4-hour join under a
// 32mb budget spent ~25% more CPU than at 1 s, for the same peak of file
// pages (docs/performance.md).
const pageOutEvery = time.Second

// diskEvery is how often, at most, a store measures its directory's size
// (DiskBytes, the state disk metric).
const diskEvery = 250 * time.Millisecond

// maybePageOut gives back the mapped pages of Badger's files when it has
// not done so for pageOutEvery, and measures the directory when it has not
// for diskEvery. It runs after Badger writes and reads.
func (s *Store) maybePageOut() {
	if s.db == nil {
		return
	}
	now := time.Now()
	if s.d.pageOutDue(now) {
		pageOutMappings(s.pageDir, tableTails(s.db))
	}
	if now.Sub(s.measured) >= diskEvery {
		s.measure()
		s.measured = now
		s.countCold()
	}
}

// coldKeys is the number of the store's keys with data in Badger.
func (s *Store) coldKeys() int64 {
	var n int64
	for _, t := range s.tlist {
		n += t.coldKeys
	}
	return n
}

// countCold keeps what the store counts in the Go memory limit for the
// index of its spilled keys near its size (coldKeyBytes a key), updating
// the limit when it is off by coldLimStep or more.
func (s *Store) countCold() {
	if d := s.coldKeys()*coldKeyBytes - s.coldLim; d >= coldLimStep || d <= -coldLimStep {
		memLimitCold(d)
		s.coldLim += d
	}
}

// measure sets what the store takes on disk: its directory's size, or in
// a shared database the directory's size in proportion to the keys the
// store has in it (Badger's tables mix the stores' keys, so this is an
// estimate; the stores' figures add up to the directory's).
func (s *Store) measure() {
	if s.db == nil {
		s.disk = 0
		return
	}
	n := diskUsage(s.pageDir)
	if s.d.shared {
		cold := s.coldKeys()
		total := s.d.cold.Add(cold - s.coldPub)
		s.coldPub = cold
		if total > 0 {
			n = int64(float64(n) * float64(cold) / float64(total))
		} else {
			n = 0
		}
	}
	s.disk = n
}

// formatKey holds the layout version of a state directory (see "key
// layout"); formatVersion 2 added the record count and latest expiry to
// the index values.
var formatKey = []byte("\x00format")

const formatVersion = "2"

// checkFormat stamps a new directory with formatVersion and refuses one
// written in another layout: reading it would misread the index.
func checkFormat(db *badger.DB) error {
	var got []byte
	used := false
	err := db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(formatKey)
		if err == nil {
			got, err = item.ValueCopy(nil)
			return err
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		it.Rewind()
		used = it.Valid()
		return nil
	})
	switch {
	case err != nil:
		return err
	case got != nil && string(got) == formatVersion:
		return nil
	case got != nil || used:
		v := string(got)
		if v == "" {
			v = "1"
		}
		return fmt.Errorf("the state was written in layout %s by another streamsql version; this one reads layout %s (remove the directory to start afresh)", v, formatVersion)
	}
	return db.Update(func(txn *badger.Txn) error { return txn.Set(formatKey, []byte(formatVersion)) })
}

// ensureDB opens Badger on first need; false after a failure (in s.err).
func (s *Store) ensureDB() bool {
	if s.db != nil {
		return true
	}
	if s.err != nil {
		return false
	}
	if err := s.openDB(); err != nil {
		s.fail(err)
		return false
	}
	return true
}

// Dir is the directory holding the state (shared with other stores when
// opened with Options.Shared; "" while a temporary store has not spilled).
func (s *Store) Dir() string { return s.d.directory() }

// Err is the first I/O or decoding error the store met. Tables keep
// working from memory after one, but their results are no longer
// trustworthy: an operator checks Err once per batch and fails the job.
func (s *Store) Err() error { return s.err }

func (s *Store) fail(err error) {
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("state: %w", err)
	}
}

// MemBytes is the estimated size of the hot tier of all tables.
func (s *Store) MemBytes() int64 { return s.used }

// DiskBytes is what the store takes on disk (Badger's tables, value log
// and memtable logs, counted as du counts them): its directory, or in a
// shared database the directory's size in proportion to the keys the
// store has there; measured after Badger last wrote or read, at most
// every diskEvery; 0 while nothing was written there (a temporary store
// that never spilled).
func (s *Store) DiskBytes() int64 { return s.disk }

// Rows is the number of records every table holds, hot and cold (the sum
// of their Len).
func (s *Store) Rows() int64 {
	var n int64
	for _, t := range s.tlist {
		n += t.rows
	}
	return n
}

// Budget is the memory budget in bytes (math.MaxInt64: unlimited).
func (s *Store) Budget() int64 { return s.budget }

// Stats returns the tier traffic counters.
func (s *Store) Stats() Stats { return s.stats }

// Flush writes every changed hot key of every table (and pending deletes)
// to Badger and syncs it to disk. After Flush returns, Badger holds exactly
// the contents of every table; a checkpoint is a Flush followed by a copy
// of the directory (or Badger's backup) while the operator is paused.
func (s *Store) Flush() error {
	s.checkCallback()
	if s.err != nil {
		return s.err
	}
	if !s.ensureDB() {
		return s.err
	}
	s.writeChanged()
	if s.err == nil {
		s.fail(s.db.Sync())
	}
	return s.err
}

// writeChanged writes every changed hot key and pending delete to Badger
// (Flush without the sync; Snapshot's first step).
func (s *Store) writeChanged() {
	wb := s.newBatch()
	for _, t := range s.tlist {
		t.writeIdxDeletes(wb)
	}
	for _, e := range s.ring {
		if e.dirty {
			s.tlist[e.tab].writeEntry(wb, e)
		}
	}
	for _, t := range s.tables {
		t.writeDeletes(wb)
	}
	s.commit(wb)
}

// Close flushes the hot tier when the directory is kept and not scratch
// space (so a clean shutdown leaves Badger holding every table), closes
// Badger, and removes the directory if Open made it.
func (s *Store) Close() error {
	if s.closed {
		return nil
	}
	var err error
	if !s.d.temp && !s.scratch && s.err == nil {
		err = s.Flush()
	}
	s.closed = true
	s.endRead()
	s.snaps.wait()
	if e := s.release(); err == nil {
		err = e
	}
	s.db = nil
	if err == nil {
		err = s.err
	}
	return err
}

func (s *Store) checkCallback() {
	if s.inCallback {
		panic("state: a Store method was called from inside a Scan or Expire callback")
	}
}

// TableOptions configure one table.
type TableOptions struct {
	// BucketWidth is the expiry bucket width; 0: the store's.
	BucketWidth int64
}

// Table returns the multimap table called name, creating it or, when the
// directory holds it from an earlier run, reopening it (its keys start
// cold). Calling Table again with the same name returns the same table.
// A name is at most 255 bytes.
func (s *Store) Table(name string, o TableOptions) *Table {
	return s.table(name, o, nil)
}

func (s *Store) table(name string, o TableOptions, c *anyCodec) *Table {
	s.checkCallback()
	if t := s.tables[name]; t != nil {
		if (t.codec == nil) != (c == nil) {
			panic(fmt.Sprintf("state: table %q is already open as another kind", name))
		}
		return t
	}
	if len(name) > 255 {
		panic(fmt.Sprintf("state: table name %q is longer than 255 bytes", name))
	}
	if len(s.tlist) > math.MaxUint16 {
		panic("state: too many tables in one store")
	}
	w := o.BucketWidth
	if w <= 0 {
		w = s.width
	}
	shift := uint(0)
	for int64(1)<<shift < w && shift < 62 {
		shift++
	}
	t := &Table{
		s:          s,
		name:       name,
		dpre:       append(append(slices.Clip(s.kpre), 'd', byte(len(name))), name...),
		xpre:       append(append(slices.Clip(s.kpre), 'x', byte(len(name))), name...),
		hot:        map[string]*entry{},
		idx:        uint16(len(s.tlist)),
		cold:       map[uint32]uint32{},
		pendingDel: map[string]struct{}{},
		gone:       map[string]bool{},
		codec:      c,
		horizon:    math.MinInt64,
		coldMinExp: math.MaxInt64,
		coldMaxExp: math.MinInt64,
	}
	t.buckets.init(shift)
	t.reopen()
	t.adoptRestored()
	s.tables[name] = t
	s.tlist = append(s.tlist, t)
	return t
}

// ---- Badger write batches ----

// arena holds keys and values handed to a WriteBatch, which keeps the
// slices until it commits.
type arena struct {
	chunks [][]byte
	cur    int
}

func (a *arena) copy(b []byte) []byte {
	for {
		if a.cur == len(a.chunks) {
			size := 64 << 10
			if len(b) > size {
				size = len(b)
			}
			a.chunks = append(a.chunks, make([]byte, 0, size))
		}
		c := a.chunks[a.cur]
		if cap(c)-len(c) >= len(b) {
			n := len(c)
			c = append(c, b...)
			a.chunks[a.cur] = c
			return c[n:len(c):len(c)]
		}
		a.cur++
	}
}

func (a *arena) reset() {
	for i := range a.chunks {
		a.chunks[i] = a.chunks[i][:0]
	}
	a.cur = 0
	if len(a.chunks) > 16 {
		a.chunks = a.chunks[:16]
	}
}

// batch is a Badger write batch being made: its writes, their keys and
// values in the store's arena, go to Badger together at commit.
type batch struct {
	ops  []batchOp
	busy bool // (the store's own batch, being made)
}

type batchOp struct {
	k, v []byte
	del  bool
}

// newBatch returns an empty batch: the store's own, reused, unless it is
// being made.
func (s *Store) newBatch() *batch {
	if s.wb.busy {
		return &batch{}
	}
	s.wb.busy = true
	return &s.wb
}

func (s *Store) set(b *batch, k, v []byte) {
	b.ops = append(b.ops, batchOp{k: s.arena.copy(k), v: s.arena.copy(v)})
}

func (s *Store) del(b *batch, k []byte) {
	b.ops = append(b.ops, batchOp{k: s.arena.copy(k), del: true})
}

// commit writes the batch and waits for it: after commit, reads see it.
// The writes go to Badger here, not as they are made, so that a store
// holds its database's writes lock (see disk) only while it commits.
func (s *Store) commit(b *batch) {
	if len(b.ops) > 0 && s.ensureDB() {
		s.d.writes.RLock()
		wb := s.db.NewWriteBatch()
		for i := range b.ops {
			op := &b.ops[i]
			if op.del {
				s.fail(wb.Delete(op.k))
			} else {
				s.fail(wb.Set(op.k, op.v))
			}
		}
		s.fail(wb.Flush())
		s.d.writes.RUnlock()
		s.endRead()
		s.maybePageOut()
	}
	clear(b.ops)
	b.ops = b.ops[:0]
	if cap(b.ops) > 1<<16 {
		b.ops = nil // (a Flush of the whole hot tier)
	}
	b.busy = false
	s.arena.reset()
}

// readTxnReads is how many lookups of cold keys share a read transaction.
const readTxnReads = 1024

// readTxn returns the read transaction for a lookup of a cold key:
// the store's current one, or a new one after readTxnReads reads or a
// write (commit and dropCold end it). Only the store writes its keys,
// so a transaction begun after its last write sees all of them.
func (s *Store) readTxn() *badger.Txn {
	if s.rtxn != nil && s.rtxnN >= readTxnReads {
		s.endRead()
	}
	if s.rtxn == nil {
		s.rtxn = s.db.NewTransaction(false)
	}
	s.rtxnN++
	return s.rtxn
}

// endRead ends the shared read transaction, if there is one.
func (s *Store) endRead() {
	if s.rtxn != nil {
		s.rtxn.Discard()
		s.rtxn, s.rtxnN = nil, 0
	}
}

// ---- the clock over hot entries ----

func (s *Store) ringAdd(e *entry) {
	e.slot = int32(len(s.ring))
	s.ring = append(s.ring, e)
}

func (s *Store) ringRemove(e *entry) {
	last := len(s.ring) - 1
	m := s.ring[last]
	s.ring[e.slot] = m
	m.slot = e.slot
	s.ring[last] = nil
	s.ring = s.ring[:last]
	e.slot = -1
}

// maybeSpill evicts the coldest hot entries, by the clock, when the hot
// tier is over budget, down to 7/8 of it, in one Badger batch.
func (s *Store) maybeSpill() {
	if s.used <= s.budget {
		return
	}
	target := s.budget - s.budget/8
	wb := s.newBatch()
	for _, t := range s.tlist {
		t.writeIdxDeletes(wb)
	}
	for s.used > target && len(s.ring) > 0 {
		if s.hand >= len(s.ring) {
			s.hand = 0
		}
		e := s.ring[s.hand]
		if e.ref {
			e.ref = false
			s.hand++
			continue
		}
		s.tlist[e.tab].evict(wb, e) // swaps another entry into this slot
	}
	for _, t := range s.tables {
		t.writeDeletes(wb)
	}
	s.commit(wb)
	s.stats.SpillRounds++
}

// ---- key layout ----
//
//	'd' len(table) table key             -> the key's records (see encodeEntry)
//	'x' len(table) table exp(8) seq(8)   -> maxexp(8) uvarint(n) key
//
// (exp sign-flipped, big-endian; n and maxexp are the key's record count
// and latest expiry when it was last written whole, see writeEntry)
//
// The index sorts by expiry then sequence number, so expiring a table's
// cold records is one forward scan over the due prefix of its index.

func appendExp(dst []byte, exp int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(exp)^(1<<63))
}

func (t *Table) dataKey(key []byte) []byte {
	t.kbuf = append(append(t.kbuf[:0], t.dpre...), key...)
	return t.kbuf
}

func (t *Table) indexKey(exp int64, seq uint64) []byte {
	t.xbuf = appendExp(append(t.xbuf[:0], t.xpre...), exp)
	t.xbuf = binary.BigEndian.AppendUint64(t.xbuf, seq)
	return t.xbuf
}

func (t *Table) parseIndexKey(k []byte) (exp int64, seq uint64, ok bool) {
	if len(k) != len(t.xpre)+16 {
		return 0, 0, false
	}
	k = k[len(t.xpre):]
	return int64(binary.BigEndian.Uint64(k) ^ (1 << 63)), binary.BigEndian.Uint64(k[8:]), true
}
