package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// MaxWatermark is the final watermark of a bounded input: every timer fires.
const MaxWatermark int64 = math.MaxInt64

// MinWatermark is the watermark before any row: nothing is known yet.
const MinWatermark int64 = math.MinInt64

// collector is an edge of the job: it receives what an operator or a
// source emits — batches, watermarks, idleness and the end of its output —
// in order. Each input port of a driven operator is one (portOf); so are
// the edges between goroutines (chanCollector), the exchange before
// partitioned operators and a shared source's fan-out.
type collector interface {
	// push takes a batch lent for the call: the receiver must neither
	// modify it nor keep it once push returns (see operator).
	push(b row.Batch) error
	// watermark says no more rows at or below wm are expected, except
	// late ones.
	watermark(wm int64) error
	// idle says that the input has become idle (true: it no longer holds
	// watermarks back, see valve) or active again (false, sent before its
	// next rows or watermark).
	idle(idle bool) error
	// end says nothing more comes; a final watermark (MaxWatermark) comes
	// before it.
	end() error
	// barrier says that everything before it belongs to checkpoint b and
	// everything after it to the next (checkpoint.go).
	barrier(b *barrier) error
}

// Counters are a job's live numbers, safe to read while it runs.
type Counters struct {
	Name string
	// ID is the operator's ID in the physical plan (the same for every
	// partition of a keyed operator; "" for the runtime's own merges).
	ID   string
	In   atomic.Int64
	Out  atomic.Int64
	Late atomic.Int64
	Bad  atomic.Int64
	// LateUpdates counts, on a windowed operator with allowed lateness
	// ('table.exec.emit.allow-lateness'), the (row, window) pairs that came
	// after their window's end had passed the watermark and were still
	// taken: each updated a result already emitted (or, final-only, one
	// not emitted yet). On a window aggregate, a window join and a window
	// Top-N the window is the row's own; on a session window, its own or
	// one of the sessions it joined. Late counts those too late even for
	// that.
	LateUpdates atomic.Int64
	// NoTime counts the rows a time-based operator could not place in
	// time (a NULL event time, or one outside years 1 to 9999); on a
	// source, those of its rows that an operator counted (eventTime).
	NoTime atomic.Int64
	// Watermark is the last watermark seen (MinWatermark before any).
	Watermark atomic.Int64
	// MaxTime is the largest event time seen (sources).
	MaxTime atomic.Int64
	// StateRows is the number of rows the operator keeps, and PeakState
	// the most it has kept.
	StateRows atomic.Int64
	PeakState atomic.Int64
	// Spilled counts state keys written out to Badger under the budget;
	// StateMem is the estimated bytes of the state's in-memory tier, and
	// StateDisk the bytes it takes on disk (setStore; state.Store.DiskBytes).
	Spilled   atomic.Int64
	StateMem  atomic.Int64
	StateDisk atomic.Int64
	// Sources only: Idle is set while every split of the source is idle
	// ('scan.watermark.idle-timeout'); Paused while watermark alignment
	// holds it back; Drift is how far its watermark is ahead of its
	// alignment group's (ms; 0 without a group).
	Idle   atomic.Bool
	Paused atomic.Bool
	Drift  atomic.Int64
	// Group is the source's alignment group ("" for none).
	Group string
	// Operators only: Inputs are the watermarks of a multi-input
	// operator's inputs (nil for one input); Subtask is the partition an
	// instance of a keyed operator runs (0 for the first or only one).
	Inputs  []*InputWatermark
	Subtask int
	// Sources only: the watermark of each split (see Splits).
	splits atomic.Pointer[[]*SplitWatermark]
	// Sources only: GapAlerts counts the times the source's event-time gap
	// went over 'scan.watermark.gap-alert'; GapAlerting is set while it is.
	GapAlerts   atomic.Int64
	GapAlerting atomic.Bool
	// Lookup joins only: Lookups counts the keys asked of the table,
	// CacheHits the keys found in the cache.
	Lookups, CacheHits atomic.Int64
	// Sinks only: Kinds counts the rows handed to the sink by change kind
	// (indexed by changelogmode.Kind), WriteErrors the writes that failed.
	Kinds       [4]atomic.Int64
	WriteErrors atomic.Int64
}

func (c *Counters) setState(n int64) {
	c.StateRows.Store(n)
	if n > c.PeakState.Load() {
		c.PeakState.Store(n)
	}
}

// setStore publishes the size of an operator's state store: keys
// spilled, bytes in memory and on disk (three loads the store keeps).
func (c *Counters) setStore(st *state.Store) {
	c.Spilled.Store(st.Stats().Spilled)
	c.StateMem.Store(st.MemBytes())
	c.StateDisk.Store(st.DiskBytes())
}

func newCounters(name string) *Counters {
	c := &Counters{Name: name}
	c.Watermark.Store(MinWatermark)
	c.MaxTime.Store(MinWatermark)
	return c
}

// msg is what crosses from a source goroutine to the task.
type msg struct {
	src   int
	batch row.Batch
	wm    int64
	kind  msgKind
	idle  bool
	err   error
	bar   *barrier
}

type msgKind uint8

const (
	msgBatch msgKind = iota
	msgWatermark
	msgEnd
	msgErr
	msgIdle
	msgBarrier
)

// coalesceRows is the most rows a source runner puts in one batch from
// what its source has already fetched (connector.Buffered).
const coalesceRows = 4096

// sourceRunner reads one source in its own goroutine.
type sourceRunner struct {
	idx      int
	bounded  bool // the source ends by itself (files, bounded reads)
	name     string
	src      connector.Source
	prepare  func(row.Batch) (row.Batch, error) // computed columns
	timeCol  int                                // -1: no watermark
	delay    int64
	skipBad  bool
	counters *Counters
	// idleTimeout marks a split idle when it has produced no row for that
	// long (processing time); 0: never.
	idleTimeout time.Duration
	// align is the source's watermark alignment group (nil: none).
	align *alignMember
	// now is the processing-time clock (tests replace it).
	now func() time.Time
	// warn reports a row whose event time is far ahead of the wall clock
	// (once per source); future is how far is far (0: never).
	warn   func(key, msg string)
	future time.Duration
	// cp is the runner's side of checkpoints (checkpoint.go).
	cp *srcCP
	// gapAlert alerts while max event time minus watermark exceeds it (ms;
	// 0: never); alerting is set while it does (checkGap).
	gapAlert int64
	alerting bool
}

// checkFuture warns once when a row's event time t is more than r.future
// ahead of the wall clock: the watermark jumps with it and every later row
// of the table becomes late.
func (r *sourceRunner) checkFuture(t int64, now time.Time) {
	if r.warn == nil || r.future <= 0 || t <= now.Add(r.future).UnixMilli() {
		return
	}
	r.warn("future:"+r.name, fmt.Sprintf("source %s: a row has event time %s, %s ahead of the wall clock; the watermark "+
		"moves with it and every later row of %s at an earlier time will be late (counted, and written to "+
		"'scan.late-rows.path' if set). A clock or unit error (seconds read as milliseconds)?",
		r.name, FormatMillis(t), FormatDuration(t-now.UnixMilli()), r.name))
	r.future = 0 // once
}

// tick is how often a source that has idleness or alignment to watch wakes
// up when its input is quiet.
func (r *sourceRunner) tick() time.Duration {
	var t time.Duration
	if r.idleTimeout > 0 {
		t = max(r.idleTimeout/4, time.Millisecond)
	}
	if r.align != nil && (t == 0 || r.align.interval < t) {
		t = r.align.interval
	}
	return t
}

func (r *sourceRunner) run(ctx context.Context, out chan<- msg) {
	defer func() {
		if p := recover(); p != nil {
			select {
			case out <- msg{src: r.idx, kind: msgErr, err: fmt.Errorf("source %s: internal error: %v", r.name, p)}:
			case <-ctx.Done():
			}
		}
	}()
	if r.cp == nil {
		r.cp = &srcCP{} // no checkpoints
	}
	if r.align != nil {
		// However the source stops, it no longer holds its group back.
		defer r.align.leave()
	}
	send := func(m msg) bool {
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	fail := func(err error) {
		send(msg{src: r.idx, kind: msgErr, err: fmt.Errorf("source %s: %w", r.name, err)})
	}
	if err := r.src.Open(ctx); err != nil {
		fail(err)
		return
	}
	defer r.src.Close()
	if r.now == nil {
		r.now = time.Now
	}
	w := newSplitWatermarks(max(r.src.Splits(), 1), r.now())
	splits := r.counters.publishSplits(r.src, w.n())
	pauser, _ := r.src.(connector.SplitPauser)
	buffered, _ := r.src.(connector.Buffered)
	if r.align != nil {
		// Alignment checks the group before every Read: a source ahead of
		// it must not read on.
		buffered = nil
	}
	cur := MinWatermark
	if r.cp.restore != nil {
		if err := r.seek(w, &cur); err != nil {
			fail(err)
			return
		}
		if r.cp.restore.Ended {
			// It had ended at the checkpoint: its end comes again, and
			// nothing is read.
			r.counters.Watermark.Store(MaxWatermark)
			r.finishCP(w)
			send(msg{src: r.idx, kind: msgWatermark, wm: MaxWatermark})
			send(msg{src: r.idx, kind: msgEnd})
			return
		}
	}
	idle := false // reported downstream
	// setIdle reports a change of the source's idleness downstream, to the
	// counters and to the alignment group.
	setIdle := func(v bool) bool {
		if v == idle {
			return true
		}
		idle = v
		r.counters.Idle.Store(idle)
		if r.align != nil {
			r.align.setIdle(idle)
		}
		return send(msg{src: r.idx, kind: msgIdle, idle: idle})
	}
	emitWM := func() bool {
		if r.timeCol < 0 {
			return true
		}
		m, active := w.min()
		nowIdle := !active && w.anyIdle()
		if nowIdle {
			// Every split is idle: time moves to the largest of theirs (as
			// a multi-input operator's does), then the source says it is idle.
			m = w.maxIdle()
		}
		if !nowIdle && !setIdle(false) { // active again: say so before the watermark
			return false
		}
		if (active || nowIdle) && m > cur && m != MinWatermark {
			cur = m
			r.counters.Watermark.Store(m)
			if r.align != nil {
				r.align.set(m)
			}
			if !send(msg{src: r.idx, kind: msgWatermark, wm: m}) {
				return false
			}
		}
		return setIdle(nowIdle)
	}
	tick := r.tick()
	for {
		// A checkpoint barrier goes after the rows sent so far.
		select {
		case b := <-r.cp.reqs:
			if !r.inject(b, w, cur, send) {
				return
			}
			if b.final {
				// The job stops after this checkpoint: read nothing more.
				<-ctx.Done()
				return
			}
		default:
		}
		// Watermark alignment: a source ahead of its group by more than the
		// allowed drift stops reading (or, when it can, stops fetching the
		// splits that are ahead) until the group catches up.
		if r.align != nil && r.timeCol >= 0 {
			if !r.alignWait(ctx, w, pauser) {
				return
			}
		}
		split, rows, err := r.read(ctx, tick)
		now := r.now()
		var stop *connector.BadRowError
		var out row.Batch
		for {
			var bad *connector.BadRowError
			if errors.As(err, &bad) {
				r.counters.Bad.Add(1)
				if !r.skipBad {
					stop = bad // after the good rows before it
				}
				err = nil
			}
			if len(rows) > 0 {
				if split < 0 || split >= w.n() {
					split = 0
				}
				var perr error
				if rows, perr = r.take(split, rows, now, w, splits); perr != nil {
					fail(perr)
					return
				}
				if out == nil {
					out = rows
				} else {
					out = append(out, rows...)
				}
			}
			// What the source has already fetched goes in the same batch
			// (issue #18): one message, and one watermark after it, for a
			// whole fetch instead of one per split it holds, so a job that
			// keeps up does not pay the hand-over downstream once for every
			// few rows. Nothing here waits for rows that are not there yet.
			if err != nil || stop != nil || len(out) >= coalesceRows || buffered == nil || !buffered.Buffered() {
				break
			}
			split, rows, err = r.src.Read(ctx)
		}
		if len(out) > 0 {
			if !setIdle(false) { // active again: say so before the rows
				return
			}
			if !send(msg{src: r.idx, kind: msgBatch, batch: out}) {
				return
			}
		}
		if stop != nil {
			// The rows before the bad one went on: the job stops after
			// them, so a sink written in the task holds every row up to
			// the bad one.
			fail(stop)
			return
		}
		if d, ok := r.src.(connector.SplitDoner); ok {
			for _, s := range d.DoneSplits() {
				if s >= 0 && s < w.n() {
					w.done[s] = true
				}
			}
		}
		if r.idleTimeout > 0 {
			w.markIdle(now, r.idleTimeout)
		}
		if !emitWM() {
			return
		}
		if r.gapAlert > 0 {
			r.checkGap()
		}
		if errors.Is(err, io.EOF) {
			r.counters.Watermark.Store(MaxWatermark)
			setIdle(false)
			r.finishCP(w)
			send(msg{src: r.idx, kind: msgWatermark, wm: MaxWatermark})
			send(msg{src: r.idx, kind: msgEnd})
			return
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fail(err)
			return
		}
	}
}

// take prepares rows Read returned from split (computed columns), counts
// them and moves the split's watermark with their times.
func (r *sourceRunner) take(split int, rows row.Batch, now time.Time, w *splitWatermarks, splits []*SplitWatermark) (row.Batch, error) {
	rows, err := r.prepare(rows)
	if err != nil {
		return nil, err
	}
	r.counters.In.Add(int64(len(rows)))
	w.active(split, now)
	if r.timeCol < 0 {
		return rows, nil
	}
	maxT := w.wm[split]
	for _, rw := range rows {
		v := rw.Vals[r.timeCol]
		if v.IsNull() || !validTime(v.Int()) {
			// No time to move the watermark with: the row goes on, and an
			// operator that needs its time counts it.
			continue
		}
		if t := v.Int(); satAdd(t, -r.delay) > maxT {
			maxT = satAdd(t, -r.delay)
			if t > r.counters.MaxTime.Load() {
				r.counters.MaxTime.Store(t)
				r.checkFuture(t, now)
			}
		}
	}
	w.wm[split] = maxT
	splits[split].WM.Store(maxT)
	return rows, nil
}

// read reads once. With a tick, Read gets a deadline so that the runner
// wakes up on a quiet input to check idleness and alignment; a deadline
// that passes is not an error.
func (r *sourceRunner) read(ctx context.Context, tick time.Duration) (int, row.Batch, error) {
	if r.cp.reqs != nil {
		// A barrier request wakes a Read waiting for input.
		bctx, done := r.cp.readCtx(ctx)
		defer done()
		split, rows, err := r.readTick(bctx, tick)
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(bctx), errBarrier) {
			err = nil
		}
		return split, rows, err
	}
	return r.readTick(ctx, tick)
}

func (r *sourceRunner) readTick(ctx context.Context, tick time.Duration) (int, row.Batch, error) {
	if tick <= 0 {
		return r.src.Read(ctx)
	}
	rctx, cancel := context.WithTimeout(ctx, tick)
	split, rows, err := r.src.Read(rctx)
	cancel()
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = nil
	}
	return split, rows, err
}

// splitWatermarks are a source's watermarks per split, with which splits
// are done (ended) and idle.
type splitWatermarks struct {
	wm         []int64
	done, idle []bool
	paused     []bool
	last       []time.Time // when each split last produced a row
}

func newSplitWatermarks(n int, now time.Time) *splitWatermarks {
	w := &splitWatermarks{wm: make([]int64, n), done: make([]bool, n), idle: make([]bool, n),
		paused: make([]bool, n), last: make([]time.Time, n)}
	for i := range w.wm {
		w.wm[i] = MinWatermark
		w.last[i] = now
	}
	return w
}

func (w *splitWatermarks) n() int { return len(w.wm) }

// min is the source's watermark: the minimum over splits neither done nor
// idle; active is false when there is none.
func (w *splitWatermarks) min() (m int64, active bool) {
	m = MaxWatermark
	for i, x := range w.wm {
		if !w.done[i] && !w.idle[i] {
			active = true
			m = min(m, x)
		}
	}
	return m, active
}

// maxIdle is the largest watermark of the idle splits.
func (w *splitWatermarks) maxIdle() int64 {
	m := MinWatermark
	for i, x := range w.wm {
		if !w.done[i] && w.idle[i] {
			m = max(m, x)
		}
	}
	return m
}

func (w *splitWatermarks) anyIdle() bool {
	for i := range w.wm {
		if !w.done[i] && w.idle[i] {
			return true
		}
	}
	return false
}

// active records that split produced rows at now.
func (w *splitWatermarks) active(split int, now time.Time) {
	w.last[split] = now
	w.idle[split] = false
}

// markIdle marks idle the splits quiet for longer than timeout. A split
// paused by alignment is waiting, not idle.
func (w *splitWatermarks) markIdle(now time.Time, timeout time.Duration) {
	for i := range w.wm {
		if !w.done[i] && !w.idle[i] && !w.paused[i] && now.Sub(w.last[i]) >= timeout {
			w.idle[i] = true
		}
	}
}

// Job is a built, runnable job: its sources, operators and sinks.
type Job struct {
	sources []*sourceRunner
	// entry is where each source's rows go.
	entry []collector
	sinks []*sinkOp
	// drivers run the operators and sinks, in the order they were built.
	drivers []*driver
	// Counters of sources, operators and sinks, for progress and the summary.
	Sources, Operators, Sinks []*Counters
	closers                   []func() error
	// stages run partitioned operators.
	stages []*stage
	// sinksDone is signalled by each sink at its end.
	sinksDone chan struct{}
	// Warnings found while running, each once per key.
	warnMu   sync.Mutex
	warned   map[string]bool
	warnings []string
	warnTo   func(string)
	// Checkpoints (checkpoint.go): nil without them.
	cp          *cpState
	lastCP      atomic.Pointer[checkpoint.Checkpoint]
	cpOps       []checkpoint.Operator
	parallelism int
	// CheckpointsDone and CheckpointsFailed count the checkpoints this run
	// completed and failed (LastCheckpoint is the last completed).
	CheckpointsDone, CheckpointsFailed atomic.Int64
	// maxParallelism is the number of key groups (pipeline.max-parallelism).
	maxParallelism int
	// timers are the processing-time timers of the operators the task
	// runs (nil: none has any).
	timers *timerLoop
	// dead are the dead-letter files; stateDir is --state-dir ("": none).
	dead     deadLetters
	stateDir string
}

// warn reports msg once per key (an operator's partitions share its name).
func (j *Job) warn(key, msg string) {
	j.warnMu.Lock()
	if j.warned[key] {
		j.warnMu.Unlock()
		return
	}
	j.warned[key] = true
	j.warnings = append(j.warnings, msg)
	to := j.warnTo
	j.warnMu.Unlock()
	if to != nil {
		to(msg)
	}
}

// Warnings returns the warnings reported so far.
func (j *Job) Warnings() []string {
	j.warnMu.Lock()
	defer j.warnMu.Unlock()
	return append([]string(nil), j.warnings...)
}

// Close releases what the job holds: it closes every operator (a sink
// flushes what it holds), then state stores and dead-letter files. Run
// calls it; a job that was built but not run must call it. Calling it
// again does nothing.
func (j *Job) Close() error {
	var err error
	for _, d := range j.drivers {
		if cerr := d.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	for _, c := range j.closers {
		if cerr := c(); cerr != nil && err == nil {
			err = cerr
		}
	}
	j.closers = nil
	return err
}

// Run executes the job until every bounded source has ended and every sink
// has flushed, or ctx is cancelled, or an error stops it.
//
// Cancelling ctx is a stop, not a failure of the sinks: sources and
// operators stop where they are, and then every sink is closed, which
// flushes what it was given (a file's gathered lines, a Kafka producer's
// buffered records); Run then returns ctx's error. The sinks' own context
// ends only after they are closed. On an error the sinks are closed the
// same way: what they took is written.
func (j *Job) Run(ctx context.Context) (err error) {
	sinkCtx, sinkCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer sinkCancel() // after Close (deferred below): the sinks flush first
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// An operator that panics on data it did not expect stops the job with
	// an error; it must not take the process (and the shell) down.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v (please report it with the job file)", r)
		}
	}()
	defer func() {
		if cerr := j.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	stopGCFloor := startGCFloor()
	defer stopGCFloor()
	checkpoints := j.cp != nil && j.cp.off == "" && j.cp.cfg.Interval > 0
	if why := j.needCheckpoints(); why != "" && !checkpoints {
		return errors.New(why)
	}
	j.tellCheckpointing(checkpoints)
	if j.cp != nil && j.cp.cfg.Restore != nil {
		if err := j.restoreAll(); err != nil {
			return err
		}
	}
	if err := j.restoreDeadLetters(); err != nil {
		return err
	}
	if err := j.open(ctx, sinkCtx); err != nil {
		return err
	}
	// When every source is bounded, the task takes one message from each
	// source in turn (round robin, each from its own channel): the order in
	// which batches and watermarks of different sources meet is then the
	// same in every run, and so is the output (at one partition). With an
	// unbounded source, whatever arrives first is taken, so that a quiet
	// source cannot hold the others back; likewise with idleness or
	// alignment, which depend on processing time (a source waiting for its
	// group must not stop the task from taking the others' rows).
	deterministic := len(j.sources) > 0
	for _, s := range j.sources {
		deterministic = deterministic && s.bounded && s.align == nil && s.idleTimeout == 0
	}
	ch := make(chan msg, 64)
	own := make([]chan msg, len(j.sources))
	for i := range own {
		own[i] = ch
		if deterministic {
			own[i] = make(chan msg, 8)
		}
	}
	errc := make(chan error, len(j.stages)+1)
	var wg sync.WaitGroup
	for _, st := range j.stages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.run(ctx, errc)
		}()
	}
	for i, s := range j.sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run(ctx, own[i])
		}()
	}
	if checkpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.coordinate(ctx)
		}()
	}
	defer func() {
		cancel() // stops the stages, which wait for their next message
		wg.Wait()
	}()
	remaining := len(j.sources)
	ended := make([]bool, len(j.sources))
	// paused counts the sources that stopped reading after a final
	// checkpoint's barrier (Ctrl-C): they send nothing more, and the
	// round robin skips them as if they had ended.
	paused := 0
	next := 0
	for remaining > 0 {
		from := ch
		if deterministic {
			if paused == remaining {
				from = nil // nothing more comes: wait for the stop
			} else {
				for ended[next] {
					next = (next + 1) % len(own)
				}
				from = own[next]
				next = (next + 1) % len(own)
			}
		}
		var m msg
		select {
		case m = <-from:
		case <-j.timers.wait():
			if err := j.timers.fire(); err != nil {
				cancel()
				return err
			}
			continue
		case err := <-errc:
			cancel()
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
		var err error
		switch m.kind {
		case msgBatch:
			err = j.entry[m.src].push(m.batch)
		case msgWatermark:
			err = j.entry[m.src].watermark(m.wm)
		case msgIdle:
			err = j.entry[m.src].idle(m.idle)
		case msgEnd:
			remaining--
			ended[m.src] = true
			err = j.entry[m.src].end()
		case msgBarrier:
			if m.bar.final && !ended[m.src] {
				ended[m.src] = true
				paused++
			}
			err = j.entry[m.src].barrier(m.bar)
		case msgErr:
			err = m.err
		}
		if err != nil {
			cancel()
			return err
		}
	}
	// Partitioned operators finish in their own stages: wait for every
	// sink's end.
	for range j.sinks {
		select {
		case <-j.sinksDone:
		case err := <-errc:
			cancel()
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// open opens every operator, sinks first, with the run's context; sinks
// get sinkCtx, which ends only after they are closed. Run calls it; a test
// that feeds a built job's entries directly calls it first.
func (j *Job) open(ctx, sinkCtx context.Context) error {
	for _, st := range j.stages {
		st.ctx = ctx
	}
	for _, sinks := range []bool{true, false} {
		for _, d := range j.drivers {
			if d.sink != sinks {
				continue
			}
			c := ctx
			if d.sink {
				c = sinkCtx
			}
			if err := d.open(c); err != nil {
				return err
			}
		}
	}
	return nil
}
