package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"os"
	"path/filepath"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
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
	// MemTableSize is Badger's memtable size; 0 means 4 MB.
	MemTableSize int64
	// BucketWidth is the default expiry bucket width (in the unit of the
	// expiry times, usually milliseconds) for tables that do not set one;
	// 0 means 1024. Widths are rounded up to a power of two.
	BucketWidth int64
	// Scratch says the directory is only where the state spills: its
	// durable copy is elsewhere (checkpoints, read back with Restore), so
	// Close does not write the hot tier into it first.
	Scratch bool
}

// Store is keyed operator state: an in-memory hot tier in front of one
// Badger database. A Store and its tables belong to one goroutine (one
// operator partition); nothing in it is safe for concurrent use.
type Store struct {
	mt     int64 // Badger memtable size
	db     *badger.DB
	dir    string
	temp   bool
	budget int64
	width  int64
	seed   maphash.Seed
	// scratch: Options.Scratch.
	scratch bool

	used   int64    // estimated bytes of every table's hot tier
	ring   []*entry // clock over every hot entry of every table
	hand   int
	tables map[string]*Table
	tlist  []*Table // by Table.idx

	// pageDir is the directory's absolute path as /proc/self/maps shows
	// it; pagedOut is when its mapped pages were last given back.
	pageDir  string
	pagedOut time.Time
	// disk is what the directory took on disk when it was last measured
	// (DiskBytes), at measured.
	disk     int64
	measured time.Time

	err        error // first I/O or decoding error; sticky
	inCallback bool
	closed     bool
	stats      Stats
	arena      arena
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
}

// Stats count the traffic between the tiers since Open.
type Stats struct {
	SpillRounds int64 // eviction rounds (one Badger batch each)
	Spilled     int64 // keys evicted from the hot tier
	Written     int64 // keys written to Badger (evicted dirty, or flushed)
	Loaded      int64 // keys read back from Badger into the hot tier
	ColdExpired int64 // records expired straight from Badger
	ColdBlind   int64 // of those, records whose key was deleted unread (see Table.Expire)
	ColdDropped int64 // of those, records dropped with their whole table's Badger data (see dropCold)
}

// Open opens (or creates) the state in dir. With dir "" the state lives in
// a fresh directory under the system's temporary directory that Close
// removes.
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
	s.mt = opts.MemTableSize
	memLimitOpen(s.budget)
	if dir == "" {
		// A temporary store opens Badger only when something has to spill:
		// state that fits the budget never touches the disk.
		s.temp = true
		return s, nil
	}
	s.dir = dir
	if err := s.openDB(); err != nil {
		memLimitClose(s.budget)
		return nil, err
	}
	return s, nil
}

// openDB opens Badger in s.dir, making a temporary directory first for a
// temporary store.
func (s *Store) openDB() error {
	if s.temp {
		d, err := os.MkdirTemp("", "streamsql-state-")
		if err != nil {
			return fmt.Errorf("state: %w", err)
		}
		s.dir = d
	}
	dir := s.dir
	mt := s.mt
	if mt <= 0 {
		mt = 4 << 20
	}
	bo := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithSyncWrites(false).
		WithNumVersionsToKeep(1).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0).
		WithMemTableSize(mt).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithBaseTableSize(2 << 20).
		WithBaseLevelSize(16 << 20).
		WithValueLogFileSize(64 << 20).
		WithNumCompactors(2).
		WithNumGoroutines(2).
		WithMetricsEnabled(false).
		WithDetectConflicts(false).
		// A value goes to the value log only above this; it must stay
		// under Badger's largest batch (15% of a memtable).
		WithValueThreshold(min(256<<10, mt/8))
	bo.TableSizeMultiplier = 1 // 2 MB tables at every level: compaction buffers stay small
	db, err := badger.Open(bo)
	if err != nil {
		if s.temp {
			os.RemoveAll(dir)
		}
		return fmt.Errorf("state: opening %s: %w", dir, err)
	}
	if err := checkFormat(db); err != nil {
		db.Close()
		return fmt.Errorf("state: %s: %w", dir, err)
	}
	s.db = db
	s.disk = diskUsage(dir)
	s.pageDir = dir
	if abs, err := filepath.Abs(dir); err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		s.pageDir = abs
	}
	return nil
}

// pageOutEvery is how often, at most, a store gives back the resident
// pages of Badger's memory-mapped files (see pageOutMappings): the pages
// Badger touched since then (tables written by spills and compactions,
// tables read) are what its files add to the resident set. A page given
// back that Badger needs again is read from the file again: the index
// and bloom filter of every table a lookup consults are in its mapping,
// so each page-out is followed by a burst of faults on them. At 250 ms
// (before) the 4-hour join under a 32mb budget spent ~25% more CPU than
// at 1 s, for the same peak of file pages (docs/performance.md).
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
	if now.Sub(s.pagedOut) >= pageOutEvery {
		pageOutMappings(s.pageDir)
		s.pagedOut = now
	}
	if now.Sub(s.measured) >= diskEvery {
		s.disk = diskUsage(s.pageDir)
		s.measured = now
	}
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

// Dir is the directory holding the state.
func (s *Store) Dir() string { return s.dir }

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

// DiskBytes is what the store's directory takes on disk (Badger's tables,
// value log and memtable logs, counted as du counts them), as measured
// after Badger last wrote or read, at most every diskEvery; 0 while
// nothing was written there (a temporary store that never spilled).
func (s *Store) DiskBytes() int64 { return s.disk }

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
	if !s.temp && !s.scratch && s.err == nil {
		err = s.Flush()
	}
	s.closed = true
	s.snaps.wait()
	memLimitClose(s.budget)
	if s.db != nil {
		if e := s.db.Close(); err == nil && e != nil {
			err = fmt.Errorf("state: %w", e)
		}
	}
	if s.temp && s.dir != "" {
		if e := os.RemoveAll(s.dir); err == nil && e != nil {
			err = fmt.Errorf("state: %w", e)
		}
	}
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
		dpre:       append([]byte{'d', byte(len(name))}, name...),
		xpre:       append([]byte{'x', byte(len(name))}, name...),
		hot:        map[string]*entry{},
		idx:        uint16(len(s.tlist)),
		cold:       map[uint32]uint32{},
		pendingDel: map[string]struct{}{},
		gone:       map[string]bool{},
		codec:      c,
		coldMinExp: math.MaxInt64,
		coldMaxExp: math.MinInt64,
	}
	t.buckets.init(shift)
	t.reopen()
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

type batch struct {
	wb *badger.WriteBatch
	n  int
}

func (s *Store) newBatch() *batch { return &batch{} }

func (s *Store) set(b *batch, k, v []byte) {
	if b.wb == nil {
		if !s.ensureDB() {
			return
		}
		b.wb = s.db.NewWriteBatch()
	}
	b.n++
	s.fail(b.wb.Set(s.arena.copy(k), s.arena.copy(v)))
}

func (s *Store) del(b *batch, k []byte) {
	if b.wb == nil {
		if !s.ensureDB() {
			return
		}
		b.wb = s.db.NewWriteBatch()
	}
	b.n++
	s.fail(b.wb.Delete(s.arena.copy(k)))
}

// commit writes the batch and waits for it: after commit, reads see it.
func (s *Store) commit(b *batch) {
	if b.wb != nil {
		s.fail(b.wb.Flush())
		s.maybePageOut()
	}
	s.arena.reset()
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
