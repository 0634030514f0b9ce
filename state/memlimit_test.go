package state

import (
	"fmt"
	"math"
	"runtime/debug"
	"testing"

	"github.com/streamsql/streamsql/row"
)

func TestMemoryLimitFollowsBudgets(t *testing.T) {
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
	a, err := Open("", Options{MemoryBudget: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	expectLimit(t, "one store of 64 MiB", budgets+64<<20, dbs+1)
	b, err := Open("", Options{MemoryBudget: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	expectLimit(t, "two stores", budgets+96<<20, dbs+2)
	u, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != capToContainer(math.MaxInt64) {
		t.Fatalf("with an unlimited store open: limit %d, want none (or the container's)", got)
	}
	u.Close()
	u.Close() // a second Close counts nothing
	expectLimit(t, "after closing the unlimited store", budgets+96<<20, dbs+2)
	a.Close()
	b.Close()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Fatalf("all stores closed: limit %d, want the previous %d", got, prev)
	}
}

// A restore's working set is counted in the limit while it runs, and only
// then.
func TestMemoryLimitCountsRestores(t *testing.T) {
	if userMemLimit {
		t.Skip("GOMEMLIMIT is set: the stores leave the limit alone")
	}
	memLimit.Lock()
	budgets, dbs, restoring := memLimit.budgets, memLimit.dbs, memLimit.restoring
	memLimit.Unlock()
	a, err := Open("", Options{MemoryBudget: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want := func(extra int64) int64 { return capToContainer(memLimitFor(budgets+64<<20, dbs+1) + restoring + extra) }
	if got := debug.SetMemoryLimit(-1); got != want(0) {
		t.Fatalf("one store: limit %d, want %d", got, want(0))
	}
	memLimitRestore(100 << 20)
	if got := debug.SetMemoryLimit(-1); got != want(100<<20) {
		t.Fatalf("while a restore holds 100 MiB: limit %d, want %d", got, want(100<<20))
	}
	memLimitRestore(-100 << 20)
	if got := debug.SetMemoryLimit(-1); got != want(0) {
		t.Fatalf("after the restore: limit %d, want %d", got, want(0))
	}
}

// In a container with a memory limit, the Go limit is at most three
// quarters of it, whatever the budgets.
func TestMemoryLimitCappedByContainer(t *testing.T) {
	if userMemLimit {
		t.Skip("GOMEMLIMIT is set: the stores leave the limit alone")
	}
	defer func(f func() int64) { containerLimit = f }(containerLimit)
	containerLimit = func() int64 { return 512 << 20 }
	s, err := Open("", Options{MemoryBudget: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 384<<20 {
		t.Errorf("a 256 MiB budget in a 512 MiB container: limit %d, want %d", got, 384<<20)
	}
	s.Close()
	containerLimit = func() int64 { return 64 << 30 }
	s, err = Open("", Options{MemoryBudget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	memLimit.Lock()
	budgets, dbs := memLimit.budgets, memLimit.dbs
	memLimit.Unlock()
	if got, want := debug.SetMemoryLimit(-1), memLimitFor(budgets, dbs); got != want {
		t.Errorf("a 1 MiB budget in a 64 GiB container: limit %d, want the budgets' %d", got, want)
	}
	s.Close()
}

// expectLimit checks that the Go memory limit is the one of open stores
// with these budgets on dbs Badger databases.
func expectLimit(t *testing.T, what string, budgets int64, dbs int) {
	t.Helper()
	want := capToContainer(memLimitFor(budgets, dbs))
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("%s: limit %d, want %d", what, got, want)
	}
}

// The limit of the documented cases (docs/performance.md): the 4-hour
// join's two stores of 64 MiB on one database, and a 1 GiB budget.
func TestMemoryLimitFormula(t *testing.T) {
	for _, c := range []struct {
		budgets int64
		dbs     int
		want    int64
	}{
		{128 << 20, 1, 456 << 20}, // 192 + 40 + 2 × 16 + 192
		{128 << 20, 2, 496 << 20}, // one database per partition: 192 + 2 × (40 + 2 × 8) + 192
		{32 << 20, 1, 288 << 20},  // 48 + 40 + 2 × 4 + 192
		{1 << 30, 1, 1800 << 20},  // 1536 + 40 + 2 × 16 + 192
		{0, 0, 192 << 20},
	} {
		if got := memLimitFor(c.budgets, c.dbs); got != c.want {
			t.Errorf("budgets %d MiB on %d databases: limit %d MiB, want %d MiB", c.budgets>>20, c.dbs, got>>20, c.want>>20)
		}
	}
}

// The budget a container leaves is the one whose Go limit is the
// container's cap: 86.9 MiB in a 512 MiB container (a limit of 130.3 +
// 40 + 2 × 10.9 + 192 = 384 MiB), none outside a container.
func TestContainerBudget(t *testing.T) {
	if userMemLimit {
		t.Skip("GOMEMLIMIT is set: the stores leave the limit alone")
	}
	defer func(f func() int64) { containerLimit = f }(containerLimit)
	containerLimit = func() int64 { return 512 << 20 }
	// 1.75 b = 384 - 192 - 40 MiB, give or take the integer divisions.
	if got, want := ContainerBudget(), int64(152<<20)*4/7; got < want-2 || got > want+2 {
		t.Errorf("in a 512 MiB container: budget %d, want %d", got, want)
	}
	containerLimit = func() int64 { return 256 << 20 }
	if got := ContainerBudget(); got != 1 {
		t.Errorf("in a 256 MiB container, where the job's own 240 MiB leave nothing: budget %d, want 1", got)
	}
	for _, c := range []int64{1 << 30, 6 << 30, 64 << 30} {
		containerLimit = func() int64 { return c }
		b := ContainerBudget()
		if lim := memLimitFor(b, 1); b <= 0 || lim > c/4*3 || memLimitFor(b+3, 1) <= c/4*3 {
			t.Errorf("in a %d MiB container: budget %d MiB, whose limit %d MiB is not the largest under %d MiB", c>>20, b>>20, lim>>20, c/4*3>>20)
		}
	}
	containerLimit = func() int64 { return 0 }
	if got := ContainerBudget(); got != 0 {
		t.Errorf("outside a container: budget %d, want 0 (none)", got)
	}
}

// The index of spilled keys, outside the budget, is counted in the limit
// as it grows, and no longer once its store is closed.
func TestMemoryLimitCountsSpilledKeys(t *testing.T) {
	if userMemLimit {
		t.Skip("GOMEMLIMIT is set: the stores leave the limit alone")
	}
	memLimit.Lock()
	budgets, dbs, restoring, cold := memLimit.budgets, memLimit.dbs, memLimit.restoring, memLimit.cold
	memLimit.Unlock()
	prev := debug.SetMemoryLimit(-1)
	s, err := Open("", Options{MemoryBudget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	base := memLimitFor(budgets+1<<20, dbs+1) + restoring + cold
	tab := s.Table("t", TableOptions{})
	const n = 400_000 // 6.1 MiB of index at 16 bytes a key: over coldLimStep
	for i := range n {
		tab.Append(fmt.Appendf(nil, "key-%d", i), Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: NoExpiry})
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	s.countCold()
	spilled := tab.coldKeys
	if spilled < n/2 {
		t.Fatalf("%d of %d keys spilled under a 1 MiB budget; want most", spilled, n)
	}
	got := debug.SetMemoryLimit(-1)
	want := base + spilled*coldKeyBytes
	if got < capToContainer(want-coldLimStep) || got > capToContainer(want+coldLimStep) {
		t.Fatalf("%d keys spilled: limit %d, want %d ± %d (without them %d)", spilled, got, want, coldLimStep, base)
	}
	// Deleting the keys takes them out of Badger and, at the next count,
	// out of the limit.
	for i := range n {
		tab.Delete(fmt.Appendf(nil, "key-%d", i))
	}
	s.countCold()
	if got := debug.SetMemoryLimit(-1); got != capToContainer(base+s.coldLim) || s.coldLim >= coldLimStep {
		t.Fatalf("all keys deleted (%d still counted cold): limit %d, want %d", tab.coldKeys, got, capToContainer(base))
	}
	s.Close()
	memLimit.Lock()
	after := memLimit.cold
	memLimit.Unlock()
	if after != cold {
		t.Fatalf("after Close the limit counts %d bytes of spilled keys, want %d", after, cold)
	}
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Fatalf("store closed: limit %d, want the previous %d", got, prev)
	}
}
