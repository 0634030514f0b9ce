package main

import (
	"testing"

	"github.com/streamsql/streamsql/exec"
)

// TestSourceProgress: the progress line says, per input, its watermark, the
// largest event time it has seen, its alignment group and how far ahead it
// is, and whether it is paused or idle.
func TestSourceProgress(t *testing.T) {
	c := &exec.Counters{Name: "impressions", Group: "attribution"}
	c.Watermark.Store(1_763_600_000_000) // 2025-11-20 00:53:20
	c.MaxTime.Store(1_763_600_005_000)
	c.Drift.Store(598_000)
	c.Paused.Store(true)
	c.Late.Store(3)
	want := "impressions=2025-11-20 00:53:20.000 (max 2025-11-20 00:53:25.000, 9m58s ahead of group attribution, paused, 3 late rows)"
	if got := sourceProgress(c); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	q := &exec.Counters{Name: "clicks"}
	q.Watermark.Store(exec.MinWatermark)
	q.MaxTime.Store(exec.MinWatermark)
	q.Idle.Store(true)
	if got, want := sourceProgress(q), "clicks=-inf (idle)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
