package state

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// disk is the Badger database a store spills to: the store's own (Open
// without Options.Shared), or one that every store of a job shares (a
// Shared), each store's keys under a prefix of its own.
//
// Badger's memory is per database, not per amount of data: its memtables,
// the allocators and 3 MB index builders of the tables its compactions are
// building (up to 8 at once per compactor), its compactor and write
// goroutines. With one database per operator partition a job paid that
// once per partition; sharing one pays it once per job (docs/performance.md,
// "Memory under a budget").
type disk struct {
	mu     sync.Mutex // guards what follows, up to writes
	dir    string     // "" for a temporary database not yet opened
	temp   bool       // dir is made when Badger opens, removed when it closes
	shared bool
	mt     int64 // memtable size (0: memtableFor(budgets))
	// budgets is the sum of the budgets of the stores that have opened on
	// the database (saturating; an unlimited store counts as MaxInt64).
	budgets int64
	db      *badger.DB
	// pageDir is dir's absolute path as /proc/self/maps shows it.
	pageDir string
	refs    int    // stores open on the database
	ids     uint32 // store prefixes handed out (shared)

	// writes orders writes against DropPrefix, which blocks every write
	// to the database while it runs (Badger fails a write meanwhile with
	// ErrBlockedWrites, even one of another store's): a store holds it
	// shared while it commits a batch (and nowhere else: never across a
	// callback, which may wait for another store's goroutine), and
	// exclusively for a DropPrefix.
	writes sync.RWMutex
	// pagedOut is when the database's mapped pages were last given back
	// (Unix nanoseconds).
	pagedOut atomic.Int64
	// cold is the number of keys its stores have in it, as they last
	// measured (shared: see Store.measure).
	cold atomic.Int64
}

// Shared is a Badger database that several stores of one job spill to,
// each store's keys under a prefix of its own: the job pays Badger's
// memtables, table builders and compactions once rather than once per
// store. It lives in a fresh directory under the system's temporary
// directory, made when the first store has to spill and removed when the
// last store on it closes. Its stores may be used from different
// goroutines (each store from one).
type Shared struct{ d disk }

// NewShared returns a shared database for the stores opened with it
// (Options.Shared).
func NewShared() *Shared { return &Shared{d: disk{temp: true, shared: true}} }

// acquire counts a store with this budget in and gives its key prefix
// (empty for a store's own database); first reports whether it is the
// first open store.
func (d *disk) acquire(budget int64) (pre []byte, first bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refs++
	if d.budgets > math.MaxInt64-budget {
		d.budgets = math.MaxInt64
	} else {
		d.budgets += budget
	}
	if d.shared {
		d.ids++
		pre = binary.BigEndian.AppendUint32([]byte{'s'}, d.ids)
	}
	return pre, d.refs == 1
}

// release counts a store out; the last one closes Badger (and removes a
// temporary directory). last reports whether it was the last.
func (d *disk) release() (last bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refs--
	if d.refs > 0 {
		return false, nil
	}
	d.budgets = 0
	if d.db != nil {
		if e := d.db.Close(); e != nil {
			err = fmt.Errorf("state: %w", e)
		}
		d.db = nil
	}
	if d.temp && d.dir != "" {
		if e := os.RemoveAll(d.dir); err == nil && e != nil {
			err = fmt.Errorf("state: %w", e)
		}
		d.dir, d.pageDir = "", ""
	}
	return true, err
}

// directory is where the database is ("" while a temporary one is not
// open).
func (d *disk) directory() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dir
}

// open opens Badger unless it is open, making a temporary directory first
// for a temporary database, and returns it with its directory as
// /proc/self/maps names it.
func (d *disk) open() (*badger.DB, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db != nil {
		return d.db, d.pageDir, nil
	}
	if d.temp {
		t, err := os.MkdirTemp("", "streamsql-state-")
		if err != nil {
			return nil, "", fmt.Errorf("state: %w", err)
		}
		d.dir = t
	}
	mt := d.mt
	if mt <= 0 {
		mt = memtableFor(d.budgets)
	}
	db, err := badger.Open(badgerOptions(d.dir, mt))
	if err == nil {
		if err = checkFormat(db); err != nil {
			db.Close()
			err = fmt.Errorf("state: %s: %w", d.dir, err)
		}
	} else {
		err = fmt.Errorf("state: opening %s: %w", d.dir, err)
	}
	if err != nil {
		if d.temp {
			os.RemoveAll(d.dir)
			d.dir = ""
		}
		return nil, "", err
	}
	d.db = db
	d.pageDir = d.dir
	if abs, err := filepath.Abs(d.dir); err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		d.pageDir = abs
	}
	return db, d.pageDir, nil
}

// memtableFor is the memtable size of a database whose stores' budgets
// add up to budgets: an eighth of them, at least 4 MB and at most 16 MB.
//
// Every memtable Badger fills becomes a level-0 table, and every two of
// those a compaction into level 1, so small memtables mean many small
// flushes and compactions, each with its fixed costs (a 3 MB index builder
// per table, an msync). With 16 MB memtables rather than 4 (and the Go
// limit counting them: memLimitFor) the 4-hour join under a 128mb budget
// (two stores of 64 MB on one database) wrote 37% fewer bytes to disk and
// read 31% fewer, for about the same CPU; 32 and 64 MB ones did no better,
// taking the collector's room (docs/performance.md, "Issue #18 on
// 2026-12-06 (evening)"). Under 32 MB of budgets the memtables stay 4 MB.
func memtableFor(budgets int64) int64 {
	return min(max(budgets/8, minMemtable), maxMemtable)
}

const (
	minMemtable = 4 << 20
	maxMemtable = 16 << 20
)

// badgerOptions are the options of a state database in dir with memtables
// of mt bytes (0: 4 MB); see "Badger layout and durability" in doc.go.
func badgerOptions(dir string, mt int64) badger.Options {
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
	return bo
}

// pageOutDue reports whether the database's mapped pages are due to be
// given back (not done for pageOutEvery), and claims the page-out for the
// caller: of the stores sharing a database, one does it.
func (d *disk) pageOutDue(now time.Time) bool {
	last := d.pagedOut.Load()
	return now.UnixNano()-last >= int64(pageOutEvery) && d.pagedOut.CompareAndSwap(last, now.UnixNano())
}

// tableTails maps each of db's tables to the bytes at the end of its file
// that hold its index and bloom filter (Badger 4 keeps both there, read
// in place from the mapping, and consults them on every lookup that
// reaches the table), with its footer: what a page-out leaves resident.
// They are about 2 % of a table of short rows.
func tableTails(db *badger.DB) map[uint64]int64 {
	ts := db.Tables()
	m := make(map[uint64]int64, len(ts))
	for _, t := range ts {
		m[t.ID] = int64(t.IndexSz) + tableFooter
	}
	return m
}

// tableFooter bounds what follows a table's index in its file: the
// index's length (4 bytes), its checksum (a small protobuf) and the
// checksum's length (4 bytes).
const tableFooter = 64
