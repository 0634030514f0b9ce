package exec

import (
	"container/heap"
	"time"
)

// Processing-time timers (the early and late firing of window aggregates,
// 'table.exec.emit.early-fire.*' and '….late-fire.*').
//
// An operator that needs them implements procTimed and keeps its timers
// in a procTimers. It never reads a clock or starts a goroutine for them:
// the goroutine that runs it (the job's task, or the stage of its
// partition or fan-in) asks every timed operator it runs for its earliest
// timer between two messages, waits for that moment as well as for its
// next message (Options.Wake), and then calls fireTimers on the driver,
// which calls the operator's onTimer. A timer therefore fires on the
// operator's own goroutine, between two calls of the operator contract,
// never during one: no lock and no race. Its output goes downstream
// synchronously like any other.
//
//	stage loop: select { next message ─► driver ─► operator
//	                   | Wake(earliest timer) ─► driver.fireTimers(Clock()) ─► operator.onTimer }
//
// Time is Options.Clock (ms) and Options.Wake; tests replace both with a
// fake clock and advance it themselves (nothing sleeps). Timers are not
// part of a checkpoint: what they guard is (a group's last emitted result
// is in its state), and a resumed job arms a group's timer again with the
// group's next row; the watermark's firing and the horizon emit whatever a
// lost timer would have, later.

// procTimed is implemented by an operator with processing-time timers.
type procTimed interface {
	operator
	// nextTimer is the earliest pending timer (ms of processing time);
	// ok is false when none is pending.
	nextTimer() (at int64, ok bool)
	// onTimer fires every timer at or before now. It is called between
	// two calls of the operator contract, from the operator's goroutine,
	// never after finish or an error.
	onTimer(now int64) error
	// timed reports whether the operator sets timers at all (a window
	// aggregate without early or late firing does not).
	timed() bool
}

// procTimers are one operator's pending processing-time timers, at most
// one per key: a min-heap by time.
type procTimers struct {
	h       timerHeap
	pending map[string]int64
}

type procTimer struct {
	at  int64
	key string
}

type timerHeap []procTimer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push is heap.Interface's.
func (h *timerHeap) Push(x any) { *h = append(*h, x.(procTimer)) }

// Pop is heap.Interface's.
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// add sets a timer for key at at, unless key has one pending already
// (which fires first, or at the same time): it reports whether it did.
func (t *procTimers) add(key []byte, at int64) bool {
	if _, ok := t.pending[string(key)]; ok {
		return false
	}
	if t.pending == nil {
		t.pending = map[string]int64{}
	}
	k := string(key)
	t.pending[k] = at
	heap.Push(&t.h, procTimer{at: at, key: k})
	return true
}

// next is the earliest pending timer.
func (t *procTimers) next() (int64, bool) {
	if len(t.h) == 0 {
		return 0, false
	}
	return t.h[0].at, true
}

// due takes the timers at or before now off, earliest first, calling each
// with its key.
func (t *procTimers) due(now int64, each func(key string) error) error {
	for len(t.h) > 0 && t.h[0].at <= now {
		x := heap.Pop(&t.h).(procTimer)
		delete(t.pending, x.key)
		if err := each(x.key); err != nil {
			return err
		}
	}
	return nil
}

// fireTimers fires the operator's timers due at now (driver side of
// procTimed): nothing once the operator failed, finished or closed.
func (d *driver) fireTimers(now int64) (err error) {
	op, ok := d.op.(procTimed)
	if !ok || d.failed || d.closed || d.finished {
		return nil
	}
	if at, ok := op.nextTimer(); !ok || at > now {
		return nil
	}
	defer d.recovered(&err)
	return d.wrap(op.onTimer(now))
}

// timerLoop is the timers of the operators one goroutine runs: the loop
// selects on wake() besides its messages, and calls fire when it is due.
type timerLoop struct {
	drivers []*driver
	clock   func() int64
	wake    func(at int64) <-chan struct{}
	// armed is the deadline ch was made for (ch nil: none).
	armed int64
	ch    <-chan struct{}
}

// wait is the channel to select on for the earliest timer of the loop's
// operators (nil, which blocks forever, when none is pending). A channel
// made for an earlier deadline is kept: it fires first.
func (l *timerLoop) wait() <-chan struct{} {
	if l == nil || len(l.drivers) == 0 {
		return nil
	}
	first, have := int64(0), false
	for _, d := range l.drivers {
		if d.failed || d.closed || d.finished {
			continue
		}
		if at, ok := d.op.(procTimed).nextTimer(); ok && (!have || at < first) {
			first, have = at, true
		}
	}
	if !have {
		return nil
	}
	if l.ch == nil || first < l.armed {
		l.armed, l.ch = first, l.wake(first)
	}
	return l.ch
}

// fire fires every due timer of the loop's operators.
func (l *timerLoop) fire() error {
	l.ch = nil
	now := l.clock()
	for _, d := range l.drivers {
		if err := d.fireTimers(now); err != nil {
			return err
		}
	}
	return nil
}

// realWake is Options.Wake's default: a channel closed when clock reaches
// at (the system clock's time.Timer, for the difference).
func realWake(clock func() int64) func(at int64) <-chan struct{} {
	return func(at int64) <-chan struct{} {
		c := make(chan struct{})
		time.AfterFunc(time.Duration(at-clock())*time.Millisecond, func() { close(c) })
		return c
	}
}

// timedAt registers d's operator, when it has timers, with the loop of
// the goroutine that runs it: stage st, or the job's task (nil).
func (b *builder) timedAt(d *driver, st *stage) {
	op, ok := d.op.(procTimed)
	if !ok || !op.timed() {
		return
	}
	l := &b.job.timers
	if st != nil {
		l = &st.timers
	}
	if *l == nil {
		*l = &timerLoop{clock: b.opts.Clock, wake: b.opts.Wake}
	}
	(*l).drivers = append((*l).drivers, d)
}

// fireTimers fires every due timer of the job's operators, in every
// goroutine's loop, from the caller's goroutine: for tests that feed a
// job's entries themselves (runScript), where one goroutine runs all.
func (j *Job) fireTimers() error {
	loops := []*timerLoop{j.timers}
	for _, st := range j.stages {
		loops = append(loops, st.timers)
	}
	for _, l := range loops {
		if l == nil {
			continue
		}
		if err := l.fire(); err != nil {
			return err
		}
	}
	return nil
}
