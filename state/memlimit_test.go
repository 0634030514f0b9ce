package state

import (
	"math"
	"runtime/debug"
	"testing"
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

// In a container with a memory limit, the Go limit is at most three
// quarters of it, whatever the budgets.
func TestMemoryLimitCappedByContainer(t *testing.T) {
	if userMemLimit {
		t.Skip("GOMEMLIMIT is set: the stores leave the limit alone")
	}
	defer func(f func() int64) { containerLimit = f }(containerLimit)
	containerLimit = func() int64 { return 512 << 20 }
	s, err := Open("", Options{MemoryBudget: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 384<<20 {
		t.Errorf("a 128 MiB budget in a 512 MiB container: limit %d, want %d", got, 384<<20)
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
	if got, want := debug.SetMemoryLimit(-1), 2*budgets+memLimitBase+int64(dbs)*memLimitSlack; got != want {
		t.Errorf("a 1 MiB budget in a 64 GiB container: limit %d, want the budgets' %d", got, want)
	}
	s.Close()
}

// expectLimit checks that the Go memory limit is the one of open stores
// with these budgets on dbs Badger databases.
func expectLimit(t *testing.T, what string, budgets int64, dbs int) {
	t.Helper()
	want := capToContainer(2*budgets + memLimitBase + int64(dbs)*memLimitSlack)
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("%s: limit %d, want %d", what, got, want)
	}
}
