package exec

import (
	"context"
	"github.com/streamsql/streamsql/connector"
	"sync"
	"time"
)

// Watermark alignment ('scan.watermark.alignment.group', '…max-drift',
// '…update-interval'), as Flink's FLIP-182/217: the sources of one group
// publish their watermarks; a source whose watermark is more than its
// max-drift ahead of the group's minimum stops reading until the others
// catch up. A source that can pause single splits (connector.SplitPauser: Kafka
// partitions) pauses only the splits that are ahead, so within one source
// a rewound partition holds the others back too. Idle sources and sources
// that have ended do not count in the minimum.
//
// What it costs: the fast input is held back on purpose. Its lag grows
// while the slow one catches up; state stays bounded by the drift instead
// of by the gap.

// alignGroup is one alignment group of a job.
type alignGroup struct {
	mu      sync.Mutex
	members []*alignMember
	// wake is closed (and cleared) when a member's watermark or status
	// changes while someone waits.
	wake chan struct{}
}

// alignMember is one source of a group.
type alignMember struct {
	g        *alignGroup
	drift    int64
	interval time.Duration
	wm       int64
	idle     bool
	left     bool
}

func (g *alignGroup) join(drift int64, interval time.Duration) *alignMember {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := &alignMember{g: g, drift: drift, interval: interval, wm: MinWatermark}
	g.members = append(g.members, m)
	return m
}

// changed wakes the waiters; g.mu is held.
func (g *alignGroup) changed() {
	if g.wake != nil {
		close(g.wake)
		g.wake = nil
	}
}

func (m *alignMember) set(wm int64) {
	m.g.mu.Lock()
	m.wm = wm
	m.g.changed()
	m.g.mu.Unlock()
}

func (m *alignMember) setIdle(idle bool) {
	m.g.mu.Lock()
	m.idle = idle
	m.g.changed()
	m.g.mu.Unlock()
}

func (m *alignMember) leave() {
	m.g.mu.Lock()
	m.left = true
	m.g.changed()
	m.g.mu.Unlock()
}

// limit returns the group's minimum watermark and the largest watermark m
// may run to; wake is closed when either may have changed.
func (m *alignMember) limit() (groupMin, limit int64, wake <-chan struct{}) {
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	groupMin = MaxWatermark
	for _, o := range g.members {
		if !o.left && !o.idle {
			groupMin = min(groupMin, o.wm)
		}
	}
	if g.wake == nil {
		g.wake = make(chan struct{})
	}
	// A member without a watermark yet (it has read nothing) holds the
	// others at the start, as a lagging one does later: otherwise a fast
	// source would read everything before a slow one has opened. A member
	// that never gets data must be marked idle ('scan.watermark.idle-timeout')
	// or it holds the group for good, as it holds the watermark.
	return groupMin, satAdd(groupMin, m.drift), g.wake
}

// pastLimit reports whether a source whose watermark is w must stop
// reading under its group's limit.
func pastLimit(w, limit int64) bool { return w != MaxWatermark && w > limit }

// alignWait applies alignment before a read. Without a SplitPauser it
// waits while the source is ahead; with one, it pauses the splits that are
// ahead, resumes those that are no longer, and waits only when every split
// still reading is paused (a Read would find nothing). It returns false
// when ctx ends.
func (r *sourceRunner) alignWait(ctx context.Context, w *splitWatermarks, pauser connector.SplitPauser) bool {
	a := r.align
	waited := false
	for {
		groupMin, limit, wake := a.limit()
		own, _ := w.min()
		if groupMin != MaxWatermark && groupMin != MinWatermark && own != MaxWatermark && own > groupMin {
			r.counters.Drift.Store(own - groupMin)
		} else {
			r.counters.Drift.Store(0)
		}
		waiting := false
		if pauser != nil {
			var pause, resume []int
			open, live := false, false
			for i, x := range w.wm {
				if w.done[i] {
					continue
				}
				live = true
				ahead := x > limit
				switch {
				case ahead && !w.paused[i]:
					w.paused[i] = true
					pause = append(pause, i)
				case !ahead && w.paused[i]:
					w.paused[i] = false
					w.last[i] = r.now() // waiting was not idleness
					resume = append(resume, i)
				}
				open = open || !w.paused[i]
			}
			if len(pause) > 0 {
				pauser.PauseSplits(pause)
			}
			if len(resume) > 0 {
				pauser.ResumeSplits(resume)
			}
			// Every split that has not ended is paused: a Read would find
			// nothing. (When all have ended, Read reports the end.)
			waiting = live && !open
		} else {
			waiting = pastLimit(own, limit)
		}
		r.counters.Paused.Store(waiting || pauser != nil && anyPaused(w))
		if !waiting {
			if waited {
				now := r.now() // waiting was not idleness
				for i := range w.last {
					w.last[i] = now
				}
			}
			return true
		}
		waited = true
		t := time.NewTimer(a.interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func anyPaused(w *splitWatermarks) bool {
	for i, p := range w.paused {
		if p && !w.done[i] {
			return true
		}
	}
	return false
}
