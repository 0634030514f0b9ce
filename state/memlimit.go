package state

import (
	"math"
	"os"
	"runtime/debug"
	"sync"

	cgmemlimit "github.com/KimMachineGun/automemlimit/memlimit"
)

// The Go runtime's memory limit follows the budgets of the open stores.
//
// The budget bounds the hot tier, but by default the Go collector lets the
// heap grow to twice what was live after the last collection, so a job
// whose state is held to 128 MB could still peak at several times that.
// While stores are open, and unless the user set GOMEMLIMIT, the limit is
// twice the sum of their budgets (the hot tier, and room for the garbage
// its churn makes: with only the budget, the collector ran so often that
// a spilling join took 40% more CPU) plus memLimitSlack per Badger
// database with a store open (its memtables and compaction buffers)
// plus memLimitBase (everything that is not state: sources, batches in
// flight, sinks). The limit only makes the collector run sooner; a job
// whose live heap exceeds it runs slower (the runtime caps the collector
// at about half the CPU), never fails. Any open store with an unlimited budget
// lifts the limit. When the last store closes, the limit goes back to what
// it was.
//
// In a container with a memory limit (a cgroup's memory.max, v1 or v2,
// read once with github.com/KimMachineGun/automemlimit) the limit is
// also at most three quarters of the container's: the rest is for what
// the Go limit does not count and the container does (Badger's mapped
// table pages between page-outs, the kernel's buffers). Without it a job
// whose budgets set the limit above the container's was killed by the
// kernel instead of collecting sooner: the 4-hour join under a 128mb
// budget in a 512 MB container (see docs/performance.md).
const (
	memLimitBase  = 192 << 20
	memLimitSlack = 48 << 20
)

// containerLimit is the cgroup's memory limit in bytes, 0 when there is
// none (a variable for the tests).
var containerLimit = sync.OnceValue(func() int64 {
	n, err := cgmemlimit.FromCgroup()
	if err != nil || n == 0 || n > math.MaxInt64/2 {
		return 0
	}
	return int64(n)
})

// capToContainer lowers limit to three quarters of the container's memory
// limit, when there is one.
func capToContainer(limit int64) int64 {
	if c := containerLimit(); c > 0 {
		return min(limit, c/4*3)
	}
	return limit
}

var memLimit struct {
	sync.Mutex
	budgets   int64 // sum of the finite budgets of open stores
	stores    int   // open stores with a finite budget
	dbs       int   // Badger databases with a store open
	unlimited int   // open stores with no budget
	prev      int64 // the limit before the first store opened
	active    bool  // the limit is ours
}

// userMemLimit reports whether the user set the limit (GOMEMLIMIT): then
// the stores leave it alone.
var userMemLimit = os.Getenv("GOMEMLIMIT") != ""

// memLimitOpen and memLimitClose count a store in or out of the limit, and
// its Badger database when it is the first (last) store open on it.
func memLimitOpen(budget int64, db bool) { memLimitAdd(budget, 1, db) }

func memLimitClose(budget int64, db bool) { memLimitAdd(budget, -1, db) }

func memLimitAdd(budget int64, d int, db bool) {
	if userMemLimit {
		return
	}
	m := &memLimit
	m.Lock()
	defer m.Unlock()
	if budget >= 1<<50 { // a PiB, or none: no limit (and sums cannot overflow)
		m.unlimited += d
	} else {
		m.budgets += int64(d) * budget
		m.stores += d
	}
	if db {
		m.dbs += d
	}
	if m.stores+m.unlimited == 0 {
		if m.active {
			debug.SetMemoryLimit(m.prev)
			m.active = false
		}
		return
	}
	if !m.active {
		m.prev = debug.SetMemoryLimit(-1)
		m.active = true
	}
	limit := int64(math.MaxInt64)
	if m.unlimited == 0 {
		limit = 2*m.budgets + memLimitBase + int64(m.dbs)*memLimitSlack
	}
	debug.SetMemoryLimit(capToContainer(limit))
}
