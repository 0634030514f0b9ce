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
	budgets, stores, unlimited := memLimit.budgets, memLimit.stores, memLimit.unlimited
	memLimit.Unlock()
	if unlimited > 0 {
		t.Fatalf("%d stores with no budget were left open by other tests", unlimited)
	}
	a, err := Open("", Options{MemoryBudget: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	want := 2*(budgets+64<<20) + memLimitBase + int64(stores+1)*memLimitSlack
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("one store of 64 MiB: limit %d, want %d", got, want)
	}
	b, err := Open("", Options{MemoryBudget: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	want = 2*(budgets+96<<20) + memLimitBase + int64(stores+2)*memLimitSlack
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("two stores: limit %d, want %d", got, want)
	}
	u, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("with an unlimited store open: limit %d, want none", got)
	}
	u.Close()
	u.Close() // a second Close counts nothing
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("after closing the unlimited store: limit %d, want %d", got, want)
	}
	a.Close()
	b.Close()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Fatalf("all stores closed: limit %d, want the previous %d", got, prev)
	}
}
