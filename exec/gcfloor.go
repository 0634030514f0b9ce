package exec

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// While a job runs, the Go collector lets the heap grow by at least
// gcHeapFloor over what the last collection left live, not only by GOGC's
// 100% of it (issue #18). A job whose live heap is small (the join state of
// a second or two of input, batches in flight) but which allocates fast
// (every row decoded, joined, encoded) otherwise collects many times a
// second: at 100k events/s through an interval join, 30 MB live and a heap
// goal of 60 MB meant seven collections a second, each marking for 25 ms
// (longer on a loaded machine), a quarter of the wall time with the
// collector taking half of one of the two cores and slowing the rest with
// its write barrier and assists: the tail of the end-to-end latency (see
// docs/performance.md, "End-to-end latency through Kafka"). With the floor
// the heap goal is max(2 × live, live + gcHeapFloor): a job with a large
// heap collects as before, a small one at most gcHeapFloor more, and the
// state's memory limit (package state) still caps the heap. GOGC set in the
// environment turns the floor off.
//
// The floor is applied after every collection (a cleanup on an object that
// each collection frees re-arms itself), as GOGC = floor / live.
var gcHeapFloor int64 = 64 << 20

var gcFloor struct {
	sync.Mutex
	jobs int    // running jobs
	gen  uint64 // the chain of cleanups that is current
	prev int    // GOGC before the first job started
}

var userGOGC = os.Getenv("GOGC") != ""

// startGCFloor applies the heap floor until the returned function is
// called; jobs running at once share it.
func startGCFloor() (stop func()) {
	if userGOGC || gcHeapFloor <= 0 {
		return func() {}
	}
	g := &gcFloor
	g.Lock()
	g.jobs++
	if g.jobs == 1 {
		g.prev = debug.SetGCPercent(100)
		debug.SetGCPercent(g.prev)
		g.gen++
		gen := g.gen
		g.Unlock()
		gcFloorApply(gen)
	} else {
		g.Unlock()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			g.Lock()
			defer g.Unlock()
			g.jobs--
			if g.jobs == 0 {
				g.gen++ // ends the chain
				debug.SetGCPercent(g.prev)
			}
		})
	}
}

// gcFloorApply sets GOGC from the live heap and arms itself to run again
// after the next collection, unless chain gen has ended.
func gcFloorApply(gen uint64) {
	g := &gcFloor
	g.Lock()
	defer g.Unlock()
	if g.gen != gen || g.jobs == 0 {
		return
	}
	debug.SetGCPercent(gcPercentFor(gcLiveHeap(), gcHeapFloor, g.prev))
	runtime.AddCleanup(new(gcSentinel), gcFloorApply, gen)
}

// gcSentinel is what each collection frees: it holds a pointer so that
// it is not a tiny allocation, which shares its block and its fate with
// others.
type gcSentinel struct{ _ *int }

// gcPercentFor is the GOGC that gives a heap goal of max(live × (1 +
// base/100), live + floor).
func gcPercentFor(live, floor int64, base int) int {
	if base < 0 {
		return base // GOGC=off stays off
	}
	live = max(live, 1<<20)
	p := floor * 100 / live
	return int(min(max(p, int64(base)), 10_000))
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// gcLiveHeap is the heap the last collection left live (bytes).
func gcLiveHeap() int64 {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(liveSample[0].Value.Uint64())
}
