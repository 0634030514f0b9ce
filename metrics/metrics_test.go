package metrics

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/exec"
)

func counters(name string, subtask int) *exec.Counters {
	c := &exec.Counters{Name: name, Subtask: subtask}
	c.Watermark.Store(exec.MinWatermark)
	c.MaxTime.Store(exec.MinWatermark)
	return c
}

// TestOperatorIDs: built without physical ids, the subtasks of one
// partitioned operator share an id; two operators of the same name built
// one after the other do not.
func TestOperatorIDs(t *testing.T) {
	job := &exec.Job{Operators: []*exec.Counters{counters("Join", 0), counters("Join", 1), counters("Filter", 0),
		counters("Filter", 0), counters("GroupAggregate(k)", 0), counters("GroupAggregate(k)", 1)}}
	var got []string
	for _, o := range Take(job, time.Now()).Operators {
		got = append(got, o.ID)
	}
	want := []string{"op-1", "op-1", "op-2", "op-3", "op-4", "op-4"}
	if len(got) != len(want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ids %v, want %v", got, want)
		}
	}
}

// TestGap: a source's gap is known only when both its watermark and its
// max event time are real instants.
func TestGap(t *testing.T) {
	for _, c := range []struct {
		wm, max int64
		gap     int64
		ok      bool
	}{
		{exec.MinWatermark, exec.MinWatermark, 0, false},
		{exec.MinWatermark, 1000, 0, false},
		{exec.MaxWatermark, 1000, 0, false}, // ended
		{1000, 6000, 5000, true},
	} {
		gap, ok := Source{Watermark: c.wm, MaxEventTime: c.max}.Gap()
		if gap != c.gap || ok != c.ok {
			t.Errorf("Gap(wm %d, max %d) = %d, %v; want %d, %v", c.wm, c.max, gap, ok, c.gap, c.ok)
		}
	}
}

// TestHistoryWindow: sampling keeps the window's snapshots, and one last
// snapshot of a job that ended, then no more.
func TestHistoryWindow(t *testing.T) {
	src := counters("clicks", 0)
	r := &Registry{Window: 10 * time.Second}
	j := &Job{Exec: &exec.Job{Sources: []*exec.Counters{src}}}
	r.Add(j)
	t0 := time.Now().Add(-20 * time.Second)
	for i := range 15 {
		src.In.Store(int64(i))
		r.Sample(t0.Add(time.Duration(i) * time.Second))
	}
	h := j.History()
	if len(h) != 11 || h[0].Sources[0].RowsRead != 4 || h[10].Sources[0].RowsRead != 14 {
		t.Fatalf("history of %d snapshots, rows %d..%d; want 11, 4..14", len(h), h[0].Sources[0].RowsRead, h[len(h)-1].Sources[0].RowsRead)
	}
	j.SetState(Finished)
	src.In.Store(15)
	r.Sample(time.Now())
	src.In.Store(16)
	r.Sample(time.Now())
	h = j.History()
	if last := h[len(h)-1].Sources[0].RowsRead; last != 15 {
		t.Errorf("after the job ended, the last snapshot has %d rows; want 15 (one final snapshot, then none)", last)
	}
}
