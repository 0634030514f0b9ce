package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/streamsql/streamsql/connector"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/row"
)

// scalarFunc computes one value from a row's values.
type scalarFunc func([]row.Value) (row.Value, error)

// predFunc decides whether a row passes; NULL is false.
type predFunc func([]row.Value) (bool, error)

// calcOp filters and projects, one row at a time.
type calcOp struct {
	noLifecycle
	filter predFunc     // nil: keep all
	exprs  []scalarFunc // nil: pass the row through
	out    collector
	c      *Counters
	buf    row.Batch
	// in is the view of the operator's input (open): CURRENT_WATERMARK
	// reads its watermark, the last that passed.
	in inputs
}

func (o *calcOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

// evalOptions are o with the operator's watermark for CURRENT_WATERMARK
// (which runs only after open).
func (o *calcOp) evalOptions(opts eval.Options) eval.Options {
	opts.Watermark = func() (int64, bool) {
		wm := o.in.watermark()
		return wm, wm != MinWatermark
	}
	return opts
}

func (o *calcOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	out := o.buf[:0]
	for _, r := range b {
		if o.filter != nil {
			ok, err := o.filter(r.Vals)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		if o.exprs != nil {
			vals := make([]row.Value, len(o.exprs))
			for i, f := range o.exprs {
				v, err := f(r.Vals)
				if err != nil {
					return err
				}
				vals[i] = v
			}
			r = row.Row{Kind: r.Kind, Vals: vals}
		}
		out = append(out, r)
	}
	o.buf = out[:0]
	if len(out) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(out)))
	return o.out.push(out)
}

func (o *calcOp) advance(int64) error { return nil }

func (o *calcOp) counters() *Counters { return o.c }

// unionOp merges inputs (the runtime makes its watermark the minimum of
// theirs).
type unionOp struct {
	noLifecycle
	out collector
	c   *Counters
}

func (o *unionOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	o.c.Out.Add(int64(len(b)))
	return o.out.push(b)
}

func (o *unionOp) advance(int64) error { return nil }
func (o *unionOp) counters() *Counters { return o.c }

// sinkOp hands rows to a connector's sink: it opens the sink at open,
// flushes it at finish and closes it at close (Job.Close, run or not).
type sinkOp struct {
	sink  connector.Sink
	casts []scalarFunc    // per column, nil when the value is written as is
	ctx   context.Context // the sinks' context, given at open
	c     *Counters
	// upsert sinks drop -U: the +U that follows carries the row. When the
	// planner says the input carries -U that matter (a filter over
	// updates), they are deletions of their key instead.
	dropBefore, beforeAsDelete bool
	// done is signalled once, at the end of the sink's input.
	done chan struct{}
	// resume is the sink's state in the checkpoint the job resumes from
	// (nil: none): open resumes the sink from it instead of opening it.
	resume []byte
}

func (o *sinkOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	out := make(row.Batch, 0, len(b))
	var kinds [len(o.c.Kinds)]int64 // counted here, added once per batch
	for _, r := range b {
		if r.Kind == changelogmode.UpdateBefore {
			if o.dropBefore {
				continue
			}
			if o.beforeAsDelete {
				r.Kind = changelogmode.Delete
			}
		}
		if o.casts != nil {
			vals := make([]row.Value, len(r.Vals))
			for i, v := range r.Vals {
				if f := o.casts[i]; f != nil {
					cv, err := f(r.Vals)
					if err != nil {
						return fmt.Errorf("column %d: %w", i+1, err)
					}
					v = cv
				}
				vals[i] = v
			}
			r = row.Row{Kind: r.Kind, Vals: vals}
		}
		if int(r.Kind) < len(kinds) {
			kinds[r.Kind]++
		}
		out = append(out, r)
	}
	for k, n := range kinds {
		if n > 0 {
			o.c.Kinds[k].Add(n)
		}
	}
	if len(out) == 0 {
		return nil
	}
	err := o.sink.Write(o.ctx, out)
	if err != nil {
		o.c.WriteErrors.Add(1)
	}
	if ack, ok := o.sink.(connector.Acknowledger); ok {
		o.c.Out.Store(ack.Acknowledged())
	} else if err == nil {
		o.c.Out.Add(int64(len(out)))
	}
	return err
}

// acknowledged brings the count of rows written up to date for a sink
// whose writes are acknowledged later.
func (o *sinkOp) acknowledged() {
	if ack, ok := o.sink.(connector.Acknowledger); ok {
		o.c.Out.Store(ack.Acknowledged())
	}
}

// close closes the sink (it flushes what it holds) and counts what that
// acknowledged.
func (o *sinkOp) close() error {
	err := o.sink.Close()
	o.acknowledged()
	return err
}

func (o *sinkOp) open(ctx context.Context, _ inputs) error {
	o.ctx = ctx
	if o.resume != nil {
		return o.sink.(connector.SinkCheckpointer).Resume(ctx, o.resume)
	}
	return o.sink.Open(ctx)
}

// advance tells a sink that acts on event time (connector.SinkWatermarker)
// the watermark of its input.
func (o *sinkOp) advance(wm int64) error {
	if w, ok := o.sink.(connector.SinkWatermarker); ok {
		return w.Watermark(o.ctx, wm)
	}
	return nil
}

func (o *sinkOp) endInput(int) error  { return nil }
func (o *sinkOp) counters() *Counters { return o.c }

// finish flushes the sink and signals the end of its input.
func (o *sinkOp) finish() error {
	err := o.sink.Flush(o.ctx)
	o.acknowledged()
	if err != nil {
		return err
	}
	o.done <- struct{}{}
	return nil
}

// lateWriter records the late rows of one operator input: it counts them
// against the source they came from and, when that table has a dead-letter
// path, writes each with the reason as one JSON line to the file, which it
// shares with the other writers of that path (deadletter.go). (The
// operator counts its own.)
type lateWriter struct {
	src  *Counters       // nil when the input is not one table (a join, a union)
	file *deadLetterFile // nil: no dead-letter path
	// passed is the last checkpoint barrier the writer's operator passed,
	// done that it has finished (guarded by file.mu).
	passed int64
	done   bool
}

func (w *lateWriter) write(operator string, r row.Row, t, wm int64, cols []connector.Column) error {
	if w == nil {
		return nil
	}
	if w.src != nil {
		w.src.Late.Add(1)
	}
	return w.record(operator, "late: event time at or below the watermark", r, FormatMillis(t), wm, cols)
}

// noTime records a row the operator could not place in time (see
// eventTime): counted against its source, and, when dropped is set,
// written to the dead-letter file with why (its "time" is null).
func (w *lateWriter) noTime(operator, why string, r row.Row, wm int64, cols []connector.Column, dropped bool) error {
	if w == nil {
		return nil
	}
	if w.src != nil {
		w.src.NoTime.Add(1)
	}
	if !dropped {
		return nil
	}
	return w.record(operator, why, r, nil, wm, cols)
}

// record writes one dead letter, when the table has a dead-letter path.
func (w *lateWriter) record(operator, reason string, r row.Row, t any, wm int64, cols []connector.Column) error {
	if w.file == nil {
		return nil
	}
	vals := map[string]any{}
	for i, v := range r.Vals {
		name := fmt.Sprintf("$%d", i)
		if i < len(cols) {
			name = cols[i].Name
		}
		switch {
		case v.IsNull():
			vals[name] = nil
		case i < len(cols):
			vals[name] = eval.FormatValue(v, cols[i].Type)
		default:
			vals[name] = v.String()
		}
	}
	rec := map[string]any{"operator": operator, "reason": reason, "time": t, "watermark": FormatMillis(wm), "row": vals}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return w.file.write(w, append(b, '\n'))
}
