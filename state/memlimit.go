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
// one and a half times the sum of their budgets (the hot tier, and room
// for the garbage its churn makes) plus memLimitSlack and two memtables
// per Badger database with a store open (its compaction buffers and
// memtables: memLimitFor) plus
// memLimitBase (everything that is not state: sources, batches in flight,
// sinks). It was twice the budgets: the 4-hour join under a 128mb budget,
// whose live heap is 200-300 MB, then held 520 MB of anonymous memory, the
// collector letting the heap grow to the limit. A limit nearer the live
// heap costs collector CPU, steeply below about 1.8 times its mean (the
// same join at 384 MiB: 17% more CPU than at 448 MiB; docs/performance.md,
// "Memory under a budget"). The limit only makes the collector run
// sooner; a job whose live heap exceeds it runs slower (the runtime caps
// the collector at about half the CPU), never fails. Any open store with
// an unlimited budget lifts the limit. When the last store closes, the
// limit goes back to what it was.
//
// The index of spilled keys (a 32-bit hash a key: 12-19 bytes a key in a
// Go map, coldKeyBytes counted) is outside the budget and grows with the
// state on disk, not with the budget: the limit counts it too
// (memLimitCold). Without it the room the collector has shrank as the
// state grew: the 4-hour join at 10M keys under the 1gb budget, 16M keys
// spilled, held a live heap within a fifth of the limit, and the collector
// took two thirds of the CPU (docs/performance.md, "Issue #18 on
// 2026-12-06 (night)").
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
	memLimitSlack = 40 << 20
	// coldKeyBytes is what a spilled key costs in the index of spilled
	// keys (map[uint32]uint32: 12 to 19 bytes a key as the map fills and
	// grows), and coldLimStep how far a store's count may drift from it
	// before the limit is set again.
	coldKeyBytes = 16
	coldLimStep  = 4 << 20
)

// memLimitFor is the Go memory limit for stores with these budgets (their
// sum) on dbs Badger databases, before the container's cap: besides
// memLimitSlack, each database's two memtables (memtableFor of its share
// of the budgets: exact for one database, or for databases of equal
// budgets). Counting them kept the collector's room: with 16 MB memtables
// under the same limit as 4 MB ones the regular join (q20) under a 128mb
// budget used 11% more CPU (docs/performance.md).
func memLimitFor(budgets int64, dbs int) int64 {
	n := int64(dbs)
	var memtables int64
	if n > 0 {
		memtables = n * 2 * memtableFor(budgets/n)
	}
	return budgets + budgets/2 + memLimitBase + n*memLimitSlack + memtables
}

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

// ContainerBudget is the largest total of budgets whose Go memory limit
// (with one Badger database) fits the container the process runs in —
// the limit's cap, three quarters of the container's memory limit — or 0
// outside a container, or when the user set GOMEMLIMIT. Budgets above it
// hold a live heap above the Go limit, which the collector cannot keep
// under the container's: the job runs with the collector at half the CPU,
// and may be killed by the kernel.
func ContainerBudget() int64 {
	c := containerLimit()
	if c <= 0 || userMemLimit {
		return 0
	}
	limit := c / 4 * 3
	// memLimitFor grows with the budgets: the largest budget under the cap,
	// by bisection (at least 1).
	lo, hi := int64(1), limit
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if memLimitFor(mid, 1) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

type memLimitState struct {
	sync.Mutex
	budgets   int64 // sum of the finite budgets of open stores
	stores    int   // open stores with a finite budget
	dbs       int   // Badger databases with a store open
	unlimited int   // open stores with no budget
	restoring int64 // what running restores hold beside the stores (memLimitRestore)
	cold      int64 // the open stores' indexes of spilled keys (memLimitCold)
	prev      int64 // the limit before the first store opened
	active    bool  // the limit is ours
}

var memLimit memLimitState

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
	m.set()
}

// memLimitRestore counts n bytes a restore holds for as long as it runs
// (its deltas' sorted set, Badger's stream writer's buffers) in the limit,
// or takes them out (n < 0). A store's limit counts its hot tier, not a
// restore's working set: under a small budget the restore of the 4-hour
// join's checkpoint (1.7M rows, 14 deltas) under a 64mb budget held 450
// MB against a limit of 384 MB: the collector ran 156 times in 12 s, and
// the restore took twice the CPU it took with room (docs/performance.md).
func memLimitRestore(n int64) { memLimit.addBytes(&memLimit.restoring, n) }

// memLimitCold counts n more bytes of indexes of spilled keys in the
// limit (n < 0: fewer).
func memLimitCold(n int64) { memLimit.addBytes(&memLimit.cold, n) }

// addBytes adds n to count, one of m's byte counts, and sets the limit
// again.
func (m *memLimitState) addBytes(count *int64, n int64) {
	if userMemLimit || n == 0 {
		return
	}
	m.Lock()
	defer m.Unlock()
	*count += n
	m.set()
}

// set sets the Go limit from the counts (m locked).
func (m *memLimitState) set() {
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
		limit = memLimitFor(m.budgets, m.dbs) + m.restoring + m.cold
	}
	debug.SetMemoryLimit(capToContainer(limit))
}
