package main

import (
	"runtime"
	"strings"
	"testing"
)

// The summary speaks of the Go collector only when it took a third of the
// CPU or more, and a second or more.
func TestCollectorLine(t *testing.T) {
	for _, c := range []struct {
		gc, busy float64
		want     string // "" for no line
	}{
		{0, 0, ""},
		{0.5, 1, ""},  // half, but under a second
		{10, 100, ""}, // a tenth
		{33, 100, ""}, // under a third
		{34, 100, "34 %"},
		{41.2, 100, "41 % of the CPU (41.2 s of 100.0 s)"},
		{5, -1, ""}, // no estimate
	} {
		got := collectorLine(c.gc, c.busy)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("collectorLine(%v, %v) = %q, want %q", c.gc, c.busy, got, c.want)
		}
		if got != "" && (!strings.HasPrefix(got, "  Go collector: ") || !strings.HasSuffix(got, "\n")) {
			t.Errorf("collectorLine(%v, %v) = %q: want one summary line", c.gc, c.busy, got)
		}
	}
	// The runtime's estimates: the collection just run used some CPU, and
	// no more than the process used.
	runtime.GC()
	gc, busy := collectorCPU()
	if gc <= 0 || busy < gc {
		t.Errorf("collectorCPU() = %v, %v: want 0 < collector <= busy", gc, busy)
	}
}
