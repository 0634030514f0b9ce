package exec

import (
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// feedSource is a source whose rows the test hands over one batch at a
// time; it has n splits and can pause them.
type feedSource struct {
	n    int
	feed chan feedItem
	mu   sync.Mutex
	// paused is the set of paused splits; pauses and resumes log the calls.
	paused          map[int]bool
	pauses, resumes [][]int
	// held keeps items of paused splits, as a broker that stops fetching.
	held     []feedItem
	canPause bool
}

type feedItem struct {
	split int
	times []int64
}

func newFeed(n int, canPause bool) *feedSource {
	return &feedSource{n: n, feed: make(chan feedItem, 1024), paused: map[int]bool{}, canPause: canPause}
}

func (f *feedSource) Open(context.Context) error { return nil }
func (f *feedSource) Splits() int                { return f.n }
func (f *feedSource) Close() error               { return nil }

func (f *feedSource) Read(ctx context.Context) (int, row.Batch, error) {
	for {
		f.mu.Lock()
		for i, it := range f.held {
			if !f.paused[it.split] {
				f.held = slices.Delete(f.held, i, i+1)
				f.mu.Unlock()
				return it.split, rowsAt(it.times), nil
			}
		}
		f.mu.Unlock()
		select {
		case it, ok := <-f.feed:
			if !ok {
				return 0, nil, io.EOF
			}
			f.mu.Lock()
			if f.paused[it.split] {
				f.held = append(f.held, it)
				f.mu.Unlock()
				continue
			}
			f.mu.Unlock()
			return it.split, rowsAt(it.times), nil
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		}
	}
}

func rowsAt(times []int64) row.Batch {
	b := make(row.Batch, len(times))
	for i, t := range times {
		b[i] = row.Row{Kind: changelogmode.Insert, Vals: []row.Value{row.IntValue(t)}}
	}
	return b
}

// pausing wraps a feed as a SplitPauser.
type pausing struct{ *feedSource }

func (p pausing) PauseSplits(s []int)  { p.set(s, true, &p.pauses) }
func (p pausing) ResumeSplits(s []int) { p.set(s, false, &p.resumes) }

// set marks splits paused or not, logging the call.
func (p pausing) set(s []int, paused bool, log *[][]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*log = append(*log, s)
	for _, i := range s {
		p.paused[i] = paused
	}
}

// collect runs sources and records what they send, per source.
type collect struct {
	mu   sync.Mutex
	msgs [][]msg
}

func runSources(t *testing.T, rs ...*sourceRunner) *collect {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan msg, 16)
	c := &collect{msgs: make([][]msg, len(rs))}
	var wg sync.WaitGroup
	for i, r := range rs {
		r.idx = i
		r.prepare = func(b row.Batch) (row.Batch, error) { return b, nil }
		if r.counters == nil {
			r.counters = newCounters(r.name)
		}
		wg.Add(1)
		go func() { defer wg.Done(); r.run(ctx, out) }()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case m := <-out:
				c.mu.Lock()
				c.msgs[m.src] = append(c.msgs[m.src], m)
				c.mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		<-done
	})
	return c
}

// waitFor polls cond until it holds; the deadline only guards against a
// hang (it is not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// last returns the last message of a kind that source i sent.
func (c *collect) last(i int, kind msgKind) (msg, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for j := len(c.msgs[i]) - 1; j >= 0; j-- {
		if c.msgs[i][j].kind == kind {
			return c.msgs[i][j], true
		}
	}
	return msg{}, false
}

func (c *collect) watermark(i int) int64 {
	m, ok := c.last(i, msgWatermark)
	if !ok {
		return MinWatermark
	}
	return m.wm
}

func (c *collect) seq(i int) []msg {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs[i])
}

// TestIdleTimeout: a split that stays quiet for the idle timeout no longer
// holds the source's watermark back; when every split is quiet the source
// says it is idle, and active again before its next rows.
func TestIdleTimeout(t *testing.T) {
	f := newFeed(2, false)
	r := &sourceRunner{name: "clicks", src: f, timeCol: 0, idleTimeout: 20 * time.Millisecond}
	c := runSources(t, r)
	f.feed <- feedItem{split: 0, times: []int64{1000}}
	// Split 1 never produces: after the timeout, split 0 alone sets time.
	waitFor(t, "the watermark of split 0 alone", func() bool { return c.watermark(0) == 1000 })
	// Then split 0 is quiet too: the source is idle.
	waitFor(t, "the source to go idle", func() bool { m, ok := c.last(0, msgIdle); return ok && m.idle })
	if !r.counters.Idle.Load() {
		t.Error("counters do not show the source idle")
	}
	f.feed <- feedItem{split: 1, times: []int64{500}}
	waitFor(t, "the rows after idleness", func() bool { _, ok := c.last(0, msgBatch); return len(c.seq(0)) > 0 && ok && c.batches(0) == 2 })
	// Active is said before the rows; the watermark never goes back.
	s := c.seq(0)
	var kinds []string
	for _, m := range s {
		switch m.kind {
		case msgIdle:
			if m.idle {
				kinds = append(kinds, "idle")
			} else {
				kinds = append(kinds, "active")
			}
		case msgBatch:
			kinds = append(kinds, "rows")
		case msgWatermark:
			kinds = append(kinds, "wm")
		case msgEnd, msgErr:
			kinds = append(kinds, "end")
		case msgBarrier:
			kinds = append(kinds, "barrier")
		}
	}
	want := []string{"rows", "wm", "idle", "active", "rows"}
	if got := kinds[:min(len(kinds), len(want))]; !slices.Equal(got, want) {
		t.Errorf("messages %v, want them to start %v", kinds, want)
	}
	for _, m := range s {
		if m.kind == msgWatermark && m.wm < 1000 {
			t.Errorf("watermark went back to %d", m.wm)
		}
	}
}

func (c *collect) batches(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.msgs[i] {
		if m.kind == msgBatch {
			n++
		}
	}
	return n
}

// TestAlignmentHoldsFastSource: a source whose watermark runs more than
// max-drift ahead of its group stops reading until the slow one catches
// up; it never runs further ahead than the drift plus one batch.
func TestAlignmentHoldsFastSource(t *testing.T) {
	g := &alignGroup{}
	const drift = 10_000
	slow, fast := newFeed(1, false), newFeed(1, false)
	rs := &sourceRunner{name: "slow", src: slow, timeCol: 0, align: g.join(drift, 5*time.Millisecond)}
	rf := &sourceRunner{name: "fast", src: fast, timeCol: 0, align: g.join(drift, 5*time.Millisecond)}
	c := runSources(t, rs, rf)
	slow.feed <- feedItem{times: []int64{0}}
	waitFor(t, "the slow source's first watermark", func() bool { return c.watermark(0) == 0 })
	for i := range int64(100) {
		fast.feed <- feedItem{times: []int64{i * 1000}}
	}
	waitFor(t, "the fast source to pause", func() bool { return rf.counters.Paused.Load() })
	if w := c.watermark(1); w > drift+1000 {
		t.Errorf("fast source's watermark %d runs ahead of the slow one (0) by more than the drift", w)
	}
	if d := rf.counters.Drift.Load(); d <= 0 || d > drift+1000 {
		t.Errorf("drift shown as %d", d)
	}
	// The slow source moves: the fast one follows, never more than the drift
	// (plus one batch) ahead of what the slow one had published.
	for _, ts := range []int64{20_000, 50_000, 99_000} {
		slow.feed <- feedItem{times: []int64{ts}}
		waitFor(t, "the fast source to catch up", func() bool {
			return c.watermark(1) >= min(ts+drift-1000, 99_000) && (rf.counters.Paused.Load() || c.watermark(1) == 99_000)
		})
		if w := c.watermark(1); w > ts+drift+1000 {
			t.Errorf("slow at %d, fast at %d: more than the drift ahead", ts, w)
		}
	}
	// When the slow source ends, it no longer holds the group.
	close(slow.feed)
	close(fast.feed)
	waitFor(t, "both ends", func() bool {
		_, a := c.last(0, msgEnd)
		_, b := c.last(1, msgEnd)
		return a && b
	})
}

// TestAlignmentPausesSplits: with a source that can pause splits, only the
// split that runs ahead stops; it resumes once the group catches up.
func TestAlignmentPausesSplits(t *testing.T) {
	g := &alignGroup{}
	const drift = 10_000
	f := newFeed(2, true)
	r := &sourceRunner{name: "clicks", src: pausing{f}, timeCol: 0, align: g.join(drift, 5*time.Millisecond)}
	c := runSources(t, r)
	f.feed <- feedItem{split: 0, times: []int64{0}}
	f.feed <- feedItem{split: 1, times: []int64{60_000}}
	waitFor(t, "split 1 to be paused", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.paused[1]
	})
	f.feed <- feedItem{split: 1, times: []int64{61_000}} // held by the "broker"
	f.feed <- feedItem{split: 0, times: []int64{55_000}}
	waitFor(t, "split 1 to resume", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return !f.paused[1] && len(f.resumes) > 0
	})
	waitFor(t, "the held rows", func() bool { return c.batches(0) == 4 })
	f.mu.Lock()
	defer f.mu.Unlock()
	// (Split 0 may be paused at first, while split 1 has no watermark yet.)
	if len(f.pauses) == 0 || !slices.Equal(f.pauses[len(f.pauses)-1], []int{1}) || f.paused[0] || f.paused[1] {
		t.Errorf("pauses %v, resumes %v, paused now %v: want split 1 paused last, and nothing paused now", f.pauses, f.resumes, f.paused)
	}
}

// TestFutureTimeWarning: a row far ahead of the wall clock (a unit error,
// a broken clock) is warned about once, with the source and the time.
func TestFutureTimeWarning(t *testing.T) {
	f := newFeed(1, false)
	var mu sync.Mutex
	var warnings []string
	r := &sourceRunner{name: "orders", src: f, timeCol: 0, future: 24 * time.Hour,
		warn: func(_, msg string) { mu.Lock(); warnings = append(warnings, msg); mu.Unlock() }}
	c := runSources(t, r)
	now := time.Now().UnixMilli()
	f.feed <- feedItem{times: []int64{now}}
	far := now + 3*86_400_000
	f.feed <- feedItem{times: []int64{far, far + 1}}
	waitFor(t, "the rows", func() bool { return c.watermark(0) == far+1 })
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "source orders: a row has event time "+FormatMillis(far)) ||
		!strings.Contains(warnings[0], "3d ahead of the wall clock") {
		t.Errorf("warnings: %q", warnings)
	}
}
