package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/streamsql/streamsql/row"
)

// MaxWatermark is the final watermark of a bounded input: every timer fires.
const MaxWatermark int64 = math.MaxInt64

// MinWatermark is the watermark before any row: nothing is known yet.
const MinWatermark int64 = math.MinInt64

// collector receives what an operator emits: rows, watermarks and the end
// of its input, in that order.
type collector interface {
	push(b row.Batch) error
	watermark(wm int64) error
	end() error
}

// operator has one or more input ports.
type operator interface {
	process(port int, b row.Batch) error
	watermark(port int, wm int64) error
	end(port int) error
}

// portOf adapts one input port of an operator to a collector.
type portOf struct {
	op   operator
	port int
}

func (p portOf) push(b row.Batch) error   { return p.op.process(p.port, b) }
func (p portOf) watermark(wm int64) error { return p.op.watermark(p.port, wm) }
func (p portOf) end() error               { return p.op.end(p.port) }

// wmTracker keeps the watermark of a multi-input operator: the minimum over
// its inputs that have not ended. It never goes backwards.
type wmTracker struct {
	in    []int64
	ended []bool
	cur   int64
}

func newWMTracker(n int) *wmTracker {
	t := &wmTracker{in: make([]int64, n), ended: make([]bool, n), cur: MinWatermark}
	for i := range t.in {
		t.in[i] = MinWatermark
	}
	return t
}

// update records port's watermark and returns the operator's new watermark
// and whether it advanced.
func (t *wmTracker) update(port int, wm int64) (int64, bool) {
	if wm > t.in[port] {
		t.in[port] = wm
	}
	m := MaxWatermark
	for i, w := range t.in {
		if !t.ended[i] && w < m {
			m = w
		}
	}
	if m > t.cur {
		t.cur = m
		return m, true
	}
	return t.cur, false
}

// finish marks port ended; it reports whether every port has ended.
func (t *wmTracker) finish(port int) bool {
	t.ended[port] = true
	for _, e := range t.ended {
		if !e {
			return false
		}
	}
	return true
}

// Counters are a job's live numbers, safe to read while it runs.
type Counters struct {
	Name string
	In   atomic.Int64
	Out  atomic.Int64
	Late atomic.Int64
	Bad  atomic.Int64
	// Watermark is the last watermark seen (MinWatermark before any).
	Watermark atomic.Int64
	// MaxTime is the largest event time seen (sources).
	MaxTime atomic.Int64
	// StateRows is the number of rows the operator keeps, and PeakState
	// the most it has kept.
	StateRows atomic.Int64
	PeakState atomic.Int64
	// Spilled counts state keys written out to Badger under the budget.
	Spilled atomic.Int64
}

func (c *Counters) setState(n int64) {
	c.StateRows.Store(n)
	if n > c.PeakState.Load() {
		c.PeakState.Store(n)
	}
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
	err   error
}

type msgKind uint8

const (
	msgBatch msgKind = iota
	msgWatermark
	msgEnd
	msgErr
)

// sourceRunner reads one source in its own goroutine.
type sourceRunner struct {
	idx      int
	bounded  bool // the source ends by itself (files, bounded reads)
	name     string
	src      Source
	prepare  func(row.Batch) (row.Batch, error) // computed columns
	timeCol  int                                // -1: no watermark
	delay    int64
	skipBad  bool
	counters *Counters
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
	n := max(r.src.Splits(), 1)
	splitWM := make([]int64, n)
	done := make([]bool, n)
	for i := range splitWM {
		splitWM[i] = MinWatermark
	}
	cur := MinWatermark
	emitWM := func() bool {
		if r.timeCol < 0 {
			return true
		}
		m := MaxWatermark
		active := false
		for i, w := range splitWM {
			if !done[i] {
				active = true
				m = min(m, w)
			}
		}
		if !active || m <= cur {
			return true
		}
		cur = m
		r.counters.Watermark.Store(m)
		return send(msg{src: r.idx, kind: msgWatermark, wm: m})
	}
	for {
		split, rows, err := r.src.Read(ctx)
		var bad *BadRowError
		if errors.As(err, &bad) {
			r.counters.Bad.Add(1)
			if !r.skipBad {
				fail(bad)
				return
			}
			err = nil
		}
		if len(rows) > 0 {
			if split < 0 || split >= n {
				split = 0
			}
			rows, perr := r.prepare(rows)
			if perr != nil {
				fail(perr)
				return
			}
			r.counters.In.Add(int64(len(rows)))
			if r.timeCol >= 0 {
				maxT := splitWM[split]
				for _, rw := range rows {
					v := rw.Vals[r.timeCol]
					if v.IsNull() {
						continue
					}
					if t := v.Int(); t-r.delay > maxT {
						maxT = t - r.delay
						if t > r.counters.MaxTime.Load() {
							r.counters.MaxTime.Store(t)
						}
					}
				}
				splitWM[split] = maxT
			}
			if !send(msg{src: r.idx, kind: msgBatch, batch: rows}) {
				return
			}
			if !emitWM() {
				return
			}
		}
		if d, ok := r.src.(SplitDoner); ok {
			for _, s := range d.DoneSplits() {
				if s >= 0 && s < n {
					done[s] = true
				}
			}
		}
		if errors.Is(err, io.EOF) {
			r.counters.Watermark.Store(MaxWatermark)
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

// Job is a built, runnable job: its sources, operators and sinks.
type Job struct {
	sources []*sourceRunner
	// entry is where each source's rows go.
	entry []collector
	sinks []*sinkOp
	// Counters of sources, operators and sinks, for progress and the summary.
	Sources, Operators, Sinks []*Counters
	closers                   []func() error
	// stages run partitioned operators; ctx is the running job's context
	// (set by Run before any stage starts).
	stages []*stage
	ctx    context.Context
	// sinksDone is signalled by each sink at its end.
	sinksDone chan struct{}
}

// Close releases what the job holds: sinks, state stores, dead-letter
// files. Run calls it; a job that was built but not run must call it.
// Calling it again does nothing.
func (j *Job) Close() error {
	var err error
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
func (j *Job) Run(ctx context.Context) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	j.ctx = ctx
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
	for _, s := range j.sinks {
		if err := s.sink.Open(ctx); err != nil {
			return fmt.Errorf("sink %s: %w", s.c.Name, err)
		}
	}
	// When every source is bounded, the task takes one message from each
	// source in turn (round robin, each from its own channel): the order in
	// which batches and watermarks of different sources meet is then the
	// same in every run, and so is the output (at one partition). With an
	// unbounded source, whatever arrives first is taken, so that a quiet
	// source cannot hold the others back.
	deterministic := len(j.sources) > 0
	for _, s := range j.sources {
		deterministic = deterministic && s.bounded
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
	defer func() {
		cancel() // stops the stages, which wait for their next message
		wg.Wait()
	}()
	remaining := len(j.sources)
	ended := make([]bool, len(j.sources))
	next := 0
	for remaining > 0 {
		from := ch
		if deterministic {
			for ended[next] {
				next = (next + 1) % len(own)
			}
			from = own[next]
			next = (next + 1) % len(own)
		}
		var m msg
		select {
		case m = <-from:
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
		case msgEnd:
			remaining--
			ended[m.src] = true
			err = j.entry[m.src].end()
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
