package exec

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live, floor int64
		base, want  int
	}{
		{live: 32 << 20, floor: 64 << 20, base: 100, want: 200},  // goal live + floor
		{live: 16 << 20, floor: 64 << 20, base: 100, want: 400},  // small heap: a larger percent
		{live: 256 << 20, floor: 64 << 20, base: 100, want: 100}, // large heap: GOGC as it was
		{live: 32 << 20, floor: 64 << 20, base: 300, want: 300},  // a higher GOGC stays
		{live: 0, floor: 64 << 20, base: 100, want: 6400},        // no heap yet: counted as 1 MB
		{live: 1, floor: 1 << 40, base: 100, want: 10_000},       // capped
		{live: 32 << 20, floor: 64 << 20, base: -1, want: -1},    // GOGC=off stays off
	} {
		if got := gcPercentFor(c.live, c.floor, c.base); got != c.want {
			t.Errorf("gcPercentFor(%d, %d, %d) = %d, want %d", c.live, c.floor, c.base, got, c.want)
		}
	}
}

// TestGCFloorWhileJobsRun: while a job runs the collector's percent
// follows the floor after each collection; when the last job ends it is
// what it was.
func TestGCFloorWhileJobsRun(t *testing.T) {
	if userGOGC {
		t.Skip("GOGC is set: the floor is off")
	}
	percent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	before := percent()
	stop1 := startGCFloor()
	stop2 := startGCFloor() // a second job at once
	want := func() int { return gcPercentFor(gcLiveHeap(), gcHeapFloor, before) }
	waitFor(t, "the floor's percent", func() bool { runtime.GC(); return percent() == want() && want() > before })
	stop1()
	stop1() // twice is once
	runtime.GC()
	waitFor(t, "the floor's percent after a collection", func() bool { runtime.GC(); return percent() == want() })
	stop2()
	if got := percent(); got != before {
		t.Errorf("after the last job GOGC is %d, want %d as before", got, before)
	}
	runtime.GC() // a cleanup armed before the end changes nothing
	runtime.GC()
	if got := percent(); got != before {
		t.Errorf("after collections GOGC is %d, want %d", got, before)
	}
}
