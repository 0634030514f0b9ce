package state

import (
	"fmt"
	"os"
	"runtime/debug"
	"testing"

	"github.com/streamsql/streamsql/row"
)

// testShared, when set, is the database the model tests' stores open in
// (openTest), whatever directory they ask for.
var testShared *Shared

func openTest(dir string, o Options) (*Store, error) {
	if testShared != nil {
		o.Shared = testShared
		dir = ""
	}
	return Open(dir, o)
}

// Stores sharing one database, each driven from its own goroutine at once,
// give the answers of the plain-map models, spilling (1-byte budget),
// expiring from Badger (one of them dropping its tables' data whole while
// the others write), snapshotting and restoring: each store sees its own
// keys only, whatever the others do with the same table names.
func TestSharedAgainstModels(t *testing.T) {
	sh := NewShared()
	testShared = sh
	defer func() { testShared = nil }()
	t.Run("stores", func(t *testing.T) {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("model%d", seed), func(t *testing.T) {
				t.Parallel()
				st := runModel(t, seed, 1, 1500, false)
				if st.Spilled == 0 || st.Loaded == 0 || st.ColdExpired == 0 {
					t.Errorf("the cold tier was not exercised: %+v", st)
				}
			})
			t.Run(fmt.Sprintf("snapshots%d", seed), func(t *testing.T) {
				t.Parallel()
				snapshotRun(t, 1, seed)
			})
			t.Run(fmt.Sprintf("incremental%d", seed), func(t *testing.T) {
				t.Parallel()
				incrementalRun(t, 3000, seed)
			})
		}
		// A store that drops its table's Badger data whole (DropPrefix,
		// which blocks every write of the database) while the others
		// write.
		t.Run("drop", func(t *testing.T) {
			t.Parallel()
			s, err := Open("", Options{MemoryBudget: 1, Shared: sh})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tab := s.Table("side", TableOptions{})
			for round := range 20 {
				for i := range 2000 {
					tab.Append(fmt.Appendf(nil, "k%d", i), Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: int64(round*10 + 5)})
				}
				if n := tab.Expire(int64(round*10+9), nil); n != 2000 {
					t.Fatalf("round %d: expired %d records, want 2000", round, n)
				}
				if tab.Len() != 0 {
					t.Fatalf("round %d: %d records left", round, tab.Len())
				}
			}
			if st := s.Stats(); st.ColdDropped == 0 {
				t.Errorf("no table was dropped whole: %+v", st)
			}
		})
	})
	if sh.d.refs != 0 || sh.d.db != nil {
		t.Fatalf("every store closed: %d still counted, database open %v", sh.d.refs, sh.d.db != nil)
	}
	if dir := sh.d.dir; dir != "" {
		t.Fatalf("the shared temporary directory %s was not removed", dir)
	}
}

// A shared database is opened when its first store has to spill and
// removed when its last store closes; the directory's size on disk is
// the DiskBytes of the store that has keys in it, none of the other's.
func TestSharedLifetime(t *testing.T) {
	sh := NewShared()
	a, err := Open("", Options{MemoryBudget: 1, Shared: sh})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open("", Options{MemoryBudget: -1, Shared: sh})
	if err != nil {
		t.Fatal(err)
	}
	if a.Dir() != "" {
		t.Fatalf("a database was made before anything spilled: %s", a.Dir())
	}
	if _, err := Open(t.TempDir(), Options{Shared: sh}); err == nil {
		t.Fatal("a store in a shared database was opened with a directory of its own")
	}
	ta := a.Table("t", TableOptions{})
	for i := range 20000 {
		ta.Append(fmt.Appendf(nil, "k%d", i), Record{Vals: []row.Value{row.StrValue("some value to make tables")}, Expiry: NoExpiry})
	}
	dir := a.Dir()
	if dir == "" || b.Dir() != dir {
		t.Fatalf("after a spill: directories %q and %q, want one", dir, b.Dir())
	}
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	a.measure()
	b.measure()
	if du := diskUsage(a.pageDir); du == 0 || a.DiskBytes() != du || b.DiskBytes() != 0 {
		t.Errorf("on disk: %d bytes for the store that spilled (want the directory's %d), %d for the other (want 0)", a.DiskBytes(), du, b.DiskBytes())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the database went with its first store: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the last store closed, %s is still there (%v)", dir, err)
	}
	if _, err := Restore("", Options{Shared: sh}, nil, nil); err == nil {
		t.Fatal("a restore into a shared database was accepted")
	}
}

// The memory limit counts Badger's share once per database: two stores on
// one shared database add one memLimitSlack and one database's memtables,
// a store of its own another.
func TestMemoryLimitPerDatabase(t *testing.T) {
	if userMemLimit {
		t.Skip("GOMEMLIMIT is set: the stores leave the limit alone")
	}
	prev := debug.SetMemoryLimit(-1)
	memLimit.Lock()
	budgets, dbs, unlimited := memLimit.budgets, memLimit.dbs, memLimit.unlimited
	memLimit.Unlock()
	if unlimited > 0 {
		t.Fatalf("%d stores with no budget were left open by other tests", unlimited)
	}
	sh := NewShared()
	var open []*Store
	for range 2 {
		s, err := Open("", Options{MemoryBudget: 32 << 20, Shared: sh})
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, s)
	}
	expectLimit(t, "two stores on one database", budgets+64<<20, dbs+1)
	own, err := Open("", Options{MemoryBudget: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	expectLimit(t, "and one of its own", budgets+96<<20, dbs+2)
	own.Close()
	for _, s := range open {
		s.Close()
	}
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Fatalf("all stores closed: limit %d, want the previous %d", got, prev)
	}
}

// A database's memtables are an eighth of its stores' budgets, from 4 MB
// to 16 MB: summed over the stores of a Shared (two 64 MB partitions make
// 16 MB memtables), saturating for stores without a budget, and a store's
// own database follows its own budget unless MemTableSize is set.
func TestMemtableFollowsBudgets(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		budgets []int64
		mt      int64 // Options.MemTableSize of a store's own database
		want    int64
	}{
		{budgets: []int64{64 * mb, 64 * mb}, want: 16 * mb},
		{budgets: []int64{32 * mb, 16 * mb}, want: 6 * mb},
		{budgets: []int64{1, 1}, want: 4 * mb},
		{budgets: []int64{-1, -1}, want: 16 * mb}, // unlimited, twice: no overflow
		{budgets: []int64{1 << 30}, want: 16 * mb},
		{budgets: []int64{16 * mb}, want: 4 * mb},
		{budgets: []int64{1 << 30}, mt: 5 * mb, want: 5 * mb},
	} {
		var sh *Shared
		if len(c.budgets) > 1 {
			sh = NewShared()
		}
		var stores []*Store
		for _, b := range c.budgets {
			s, err := Open("", Options{MemoryBudget: b, Shared: sh, MemTableSize: c.mt})
			if err != nil {
				t.Fatal(err)
			}
			stores = append(stores, s)
		}
		if err := stores[0].openDB(); err != nil {
			t.Fatal(err)
		}
		if got := stores[0].db.Opts().MemTableSize; got != c.want {
			t.Errorf("budgets %v, MemTableSize %d: memtables of %d bytes, want %d", c.budgets, c.mt, got, c.want)
		}
		for _, s := range stores {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
