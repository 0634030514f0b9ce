package exec

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/row"
)

// operator is one step of a job: a join, an aggregate, a filter, a sink.
// It has one or more numbered input ports and at most one output, a
// collector given when it is built. The runtime (a driver per operator)
// calls it; the driver, not the operator, keeps what its inputs are doing —
// each input's watermark, idleness and end (valve) — and tells it only
// what follows for the operator as a whole.
//
// # Call order
//
// For one operator instance the runtime calls, in this order:
//
//	open  (process | advance | endInput)*  [finish]  close
//
// open comes first and once. process, advance and endInput come in any
// interleaving the inputs produce. finish comes once, after every input has
// ended (and after advance(MaxWatermark)); it is skipped when the job
// stops first — cancelled, or failed anywhere. close comes last and once,
// whether or not open or finish came or succeeded; nothing is called after
// it. Checkpoints (checkpoint.go) need nothing more of an operator than
// its state store (checkpointable): its driver snapshots the store between
// two calls, once a barrier has come on every input, and a resumed job
// opens the operator on its restored store.
//
// Calls come from one goroutine and never overlap: each returns before the
// next is made, and there is no re-entry — what an operator emits goes
// downstream, which may call further operators synchronously, but never
// back into it (the plan is a DAG). An operator therefore needs no locks
// for its own state. (Its Counters are read concurrently, hence atomic.)
//
// # Batches
//
// A batch passed to process is lent for the duration of the call. The
// operator must not modify the batch or the values of its rows (a table
// read once for several consumers hands each the same batch, fanOut), and
// must not keep the batch after process returns (the caller reuses it).
// It may keep a row's values: they are never modified by anyone once
// emitted. In turn, a batch the operator pushes to its output is lent to
// the consumer until push returns, and the operator may reuse it after.
//
// # Time
//
// advance(wm) says that the combined watermark of the operator's inputs
// has risen to wm (strictly: it is never called with a value at or below
// an earlier one): no more rows with time <= wm are expected, except late
// ones. The operator fires what wm releases (timers, windows, padded
// rows), emitting rows on its output before it returns; the runtime then
// sends the operator's output watermark on — wm, or what outputWatermark
// says for an operator that holds time back. A row that process gets at or
// below the combined watermark (inputs.watermark(), the wm of the last
// advance) is late for this operator.
//
// # End
//
// endInput(port) says that input port has ended; its rows are all in. Any
// advance that the end caused (an ended input no longer holds the
// watermark back) comes before it. finish says every input has ended,
// after advance(MaxWatermark); the operator emits what it still holds, and
// the runtime then ends its output. Idleness is the runtime's alone: an
// operator's output is idle exactly when all its inputs are.
//
// # Errors
//
// An error from any call stops the job: the runtime wraps it in a
// RuntimeError naming the operator and the SQL it came from, makes no
// further call to the operator except close, and Run returns the first
// error. A panic in a call is turned into such an error ("internal
// error"); it must not take the process down. An error from open is the
// same as any other. close's error is reported only when the job had none.
type operator interface {
	// open prepares the operator to run: ctx is the run's context (Run's,
	// or for sinks, one that ends only after they are closed), in its view
	// of its inputs.
	open(ctx context.Context, in inputs) error
	// process takes a batch on input port (0 for single-input operators).
	process(port int, b row.Batch) error
	// advance says the combined watermark of the inputs rose to wm.
	advance(wm int64) error
	// endInput says input port has ended.
	endInput(port int) error
	// finish says every input has ended; what is left is emitted.
	finish() error
	// close releases what open took. It is called once, last.
	close() error
	// counters are the operator's live numbers; their Name names it in
	// errors and in the progress line.
	counters() *Counters
}

// inputs is an operator's read-only view of its inputs (its valve).
type inputs interface {
	// watermark is the combined watermark: the wm of the last advance,
	// MinWatermark before the first.
	watermark() int64
	// inputWatermark is port's own watermark: the largest it has sent.
	inputWatermark(port int) int64
}

// watermarkHolder is implemented by an operator whose output watermark
// lags its input's (Flink's KeyedCoProcessOperatorWithWatermarkDelay): the
// interval join emits rows up to its time bound after the watermark that
// releases them.
type watermarkHolder interface {
	outputWatermark(wm int64) int64
}

// noLifecycle gives an operator that needs nothing at open, end and close
// the empty calls of the contract.
type noLifecycle struct{}

func (noLifecycle) open(context.Context, inputs) error { return nil }
func (noLifecycle) endInput(int) error                 { return nil }
func (noLifecycle) finish() error                      { return nil }
func (noLifecycle) close() error                       { return nil }

// RuntimeError is an error of one operator while the job runs: it names
// the operator (as the progress line and EXPLAIN do) and, when known,
// where in the job's SQL the operator comes from.
type RuntimeError struct {
	// Op is the operator's name, e.g. "Join INNER(o, c)".
	Op string
	// ID is the operator's stable id in the physical plan ("" when not
	// known), as its Counters carry it.
	ID string
	// Pos is FILE:LINE:COL of the SQL the operator comes from; "" when
	// not known.
	Pos string
	Err error
}

func (e *RuntimeError) Error() string {
	if e.Pos != "" {
		return fmt.Sprintf("%s: runtime error in %s: %v", e.Pos, e.Op, e.Err)
	}
	return fmt.Sprintf("runtime error in %s: %v", e.Op, e.Err)
}

func (e *RuntimeError) Unwrap() error { return e.Err }

// driver runs one operator: it feeds each input port's batches to it, and
// each port's watermarks, idleness and end to its valve, calling the
// operator's advance, endInput and finish when the valve says so, and it
// sends the operator's watermark, idleness and end downstream. It turns
// every error and panic of the operator into a RuntimeError.
type driver struct {
	op   operator
	v    *valve
	out  collector // nil for a sink
	hold watermarkHolder
	// name names the operator in errors: its counters' name, or "sink T".
	name string
	// sink: opened with the sinks' context (Job.Run).
	sink bool
	// span is the SQL the operator comes from (diag.NoSpan: not known),
	// src the job's text it points into (nil: not known).
	span   diag.Span
	src    *diag.Source
	failed bool
	closed bool
	// finished: finish was called (no timer fires after it).
	finished bool
	// id and part name the operator instance in checkpoints, parts is
	// the number of partitions of its operator (1: unpartitioned), merge
	// marks the union behind a partitioned operator's partitions; al holds
	// inputs while a barrier is aligned (checkpoint.go).
	id    string
	part  int
	parts int
	merge bool
	al    aligner
	// cp is the job's checkpoint state (nil: no checkpoints). final is
	// the driver's part once its inputs have all ended (recordFinal);
	// replay marks the inputs that had ended at the checkpoint the job
	// resumed from (their ends come again: replayEnd), restoredFinished
	// that the operator had finished.
	cp               *cpState
	final            atomic.Pointer[[]byte]
	replay           []bool
	restoredFinished bool
	// chain is the store's parts in the last checkpoint that completed
	// (nil: none, or a checkpoint failed since): the next snapshot may be
	// an incremental one over it (checkpoint.go).
	chain atomic.Pointer[stateChain]
	// late are the operator's dead-letter writers (deadletter.go).
	late []*lateWriter
}

func newDriver(op operator, ports int, out collector) *driver {
	d := &driver{op: op, v: newValve(ports), out: out, name: op.counters().Name, span: diag.NoSpan}
	d.hold, _ = op.(watermarkHolder)
	return d
}

// port is input port i of the driver's operator, as a collector.
func (d *driver) port(i int) collector { return portOf{d, i} }

// wrap attributes err to the operator, unless a downstream operator's
// driver already did (its error comes back through this one's push). It
// marks the operator failed: it gets no call but close after this.
func (d *driver) wrap(err error) error {
	if err == nil {
		return nil
	}
	d.failed = true
	var re *RuntimeError
	if errors.As(err, &re) || errors.Is(err, context.Canceled) {
		// Already named; or the job was stopped, which is no operator's
		// failure.
		return err
	}
	e := &RuntimeError{Op: d.name, ID: d.op.counters().ID, Err: err}
	if d.src != nil && d.span.IsValid() {
		line, col := d.src.Position(d.span.Start)
		e.Pos = fmt.Sprintf("%s:%d:%d", d.src.Name, line, col)
	}
	return e
}

// recovered turns a panic of the operator into its error. It is called
// deferred (defer d.recovered(&err)), so recover sees the panic.
func (d *driver) recovered(err *error) {
	if r := recover(); r != nil { //nolint:revive // recovered is the deferred function

		*err = d.wrap(fmt.Errorf("internal error: %v (please report it with the job file)", r))
	}
}

func (d *driver) open(ctx context.Context) (err error) {
	defer d.recovered(&err)
	return d.wrap(d.op.open(ctx, d.v))
}

// close closes the operator, once.
func (d *driver) close() (err error) {
	if d.closed {
		return nil
	}
	d.closed = true
	defer d.recovered(&err)
	return d.wrap(d.op.close())
}

// errFailed is what a driver answers when called after its operator
// failed: the contract makes no further call but close, and the runtime
// stops at the first error, so this is never seen unless that breaks.
var errFailed = errors.New("internal error: called after it failed")

func (d *driver) process(port int, b row.Batch) (err error) {
	if d.failed {
		return d.wrap(errFailed)
	}
	if d.al.holds(port) {
		return d.al.enqueue(queued{port: port, kind: msgBatch, batch: b})
	}
	defer d.recovered(&err)
	return d.wrap(d.op.process(port, b))
}

func (d *driver) watermark(port int, wm int64) (err error) {
	if d.failed {
		return d.wrap(errFailed)
	}
	if d.al.holds(port) {
		return d.al.enqueue(queued{port: port, kind: msgWatermark, wm: wm})
	}
	defer d.recovered(&err)
	if w, ok := d.v.update(port, wm); ok {
		return d.advance(w)
	}
	return nil
}

// advance tells the operator the combined watermark rose to w, then sends
// its output watermark on.
func (d *driver) advance(w int64) error {
	d.op.counters().Watermark.Store(w)
	if err := d.op.advance(w); err != nil {
		return d.wrap(err)
	}
	if d.out == nil {
		return nil
	}
	if d.hold != nil {
		w = d.hold.outputWatermark(w)
	}
	return d.wrap(d.out.watermark(w))
}

func (d *driver) idle(port int, idle bool) (err error) {
	if d.failed {
		return d.wrap(errFailed)
	}
	if d.al.holds(port) {
		return d.al.enqueue(queued{port: port, kind: msgIdle, idle: idle})
	}
	defer d.recovered(&err)
	if w, ok := d.v.setIdle(port, idle); ok {
		if err := d.advance(w); err != nil {
			return err
		}
	}
	return d.reportIdle()
}

func (d *driver) reportIdle() error {
	if now, changed := d.v.idleChanged(); changed && d.out != nil {
		return d.wrap(d.out.idle(now))
	}
	return nil
}

func (d *driver) end(port int) (err error) {
	if d.failed {
		return d.wrap(errFailed)
	}
	if d.al.holds(port) {
		return d.al.enqueue(queued{port: port, kind: msgEnd})
	}
	if port < len(d.replay) && d.replay[port] {
		return d.replayEnd(port)
	}
	defer d.recovered(&err)
	w, advanced, all := d.v.end(port)
	// The watermark the end lets through goes on first: the replay below
	// may advance further, and advance must only rise.
	if advanced {
		if err := d.advance(w); err != nil {
			return err
		}
	}
	// An ended input no longer holds a barrier's alignment: it goes on
	// before the end does.
	if err := d.aligned(); err != nil {
		return err
	}
	if err := d.op.endInput(port); err != nil {
		return d.wrap(err)
	}
	if !all {
		return d.reportIdle()
	}
	if err := d.recordFinal(); err != nil {
		return d.wrap(err)
	}
	d.finished = true
	if err := d.op.finish(); err != nil {
		return d.wrap(err)
	}
	d.lateFinished()
	if d.out == nil {
		return nil
	}
	return d.wrap(d.out.end())
}

// portOf adapts one input port of a driven operator to a collector.
type portOf struct {
	d    *driver
	port int
}

func (p portOf) push(b row.Batch) error   { return p.d.process(p.port, b) }
func (p portOf) watermark(wm int64) error { return p.d.watermark(p.port, wm) }
func (p portOf) idle(idle bool) error     { return p.d.idle(p.port, idle) }
func (p portOf) end() error               { return p.d.end(p.port) }
func (p portOf) barrier(b *barrier) error { return p.d.barrier(p.port, b) }
