package exec

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// correlateOp unnests (physical.Correlate): each input row becomes one row
// per element of an ARRAY or entry of a MAP computed from it, with the
// input row's change kind; it keeps no state, so a -U or -D input row
// retracts exactly the rows its +I or +U gave.
type correlateOp struct {
	noLifecycle
	x     scalarFunc
	kind  types.Kind // Array or Map
	width int        // columns of an element: 1, a ROW's fields, or 2 (MAP)
	rows  bool       // ARRAY of ROW: an element's fields are its columns
	left  bool
	ord   bool
	out   collector
	c     *Counters
	in    inputs
	buf   row.Batch
	elems []row.Value // scratch: an ARRAY's elements, or a MAP's keys
	vals  []row.Value // scratch: a MAP's values
}

func (b *builder) correlate(x *physical.Correlate, out collector) (*correlateOp, error) {
	op := &correlateOp{out: out, c: b.counters(x.Name, &b.job.Operators), left: x.Left, ord: x.Ordinality}
	t := x.Expr.Type()
	op.kind = t.Kind
	switch t.Kind {
	case types.Array:
		op.width = 1
		if el := t.Elem(); el.Kind == types.Row {
			op.rows, op.width = true, el.NumFields()
		}
	case types.Map:
		op.width = 2
	default:
		return nil, fmt.Errorf("internal: UNNEST of %s", t)
	}
	if want := len(x.Input.Base().Cols) + op.width + map[bool]int{true: 1}[op.ord]; want != len(x.Cols) {
		return nil, fmt.Errorf("internal: UNNEST gives %d columns, the plan has %d", want, len(x.Cols))
	}
	f, err := eval.CompileWith(x.Expr, op.evalOptions(b.evalO))
	if err != nil {
		return nil, fmt.Errorf("UNNEST(%s): %w", x.Expr, err)
	}
	op.x = scalarFunc(f)
	return op, nil
}

func (o *correlateOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

// evalOptions are o with the operator's watermark for CURRENT_WATERMARK.
func (o *correlateOp) evalOptions(opts eval.Options) eval.Options {
	opts.Watermark = func() (int64, bool) {
		wm := o.in.watermark()
		return wm, wm != MinWatermark
	}
	return opts
}

func (o *correlateOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	out := o.buf[:0]
	for _, r := range b {
		v, err := o.x(r.Vals)
		if err != nil {
			return err
		}
		n := 0
		if !v.IsNull() {
			o.elems, o.vals = o.elems[:0], o.vals[:0]
			if o.kind == types.Map {
				o.elems, o.vals, err = row.DecodeMap(o.elems, o.vals, v.Str())
			} else {
				o.elems, err = row.DecodeList(o.elems, v.Str())
			}
			if err != nil {
				return fmt.Errorf("UNNEST: %w", err)
			}
			n = len(o.elems)
		}
		for i := 0; i < n; i++ {
			vals := o.row(r.Vals)
			at := len(r.Vals)
			switch {
			case o.kind == types.Map:
				vals[at], vals[at+1] = o.elems[i], o.vals[i]
			case o.rows:
				if e := o.elems[i]; !e.IsNull() {
					fs, err := row.DecodeList(vals[at:at], e.Str())
					if err != nil {
						return fmt.Errorf("UNNEST: %w", err)
					}
					if len(fs) != o.width {
						return fmt.Errorf("UNNEST: a ROW of %d fields where %d were declared", len(fs), o.width)
					}
				}
			default:
				vals[at] = o.elems[i]
			}
			if o.ord {
				vals[len(vals)-1] = row.IntValue(int64(i + 1))
			}
			out = append(out, row.Row{Kind: r.Kind, Vals: vals})
		}
		if n == 0 && o.left {
			out = append(out, row.Row{Kind: r.Kind, Vals: o.row(r.Vals)})
		}
	}
	o.buf = out[:0]
	if len(out) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(out)))
	return o.out.push(out)
}

// row returns a new row of the input's values followed by NULLs for the
// element's columns (and the ordinality).
func (o *correlateOp) row(in []row.Value) []row.Value {
	n := len(in) + o.width
	if o.ord {
		n++
	}
	vals := make([]row.Value, n)
	copy(vals, in)
	for i := len(in); i < n; i++ {
		vals[i] = row.NullValue
	}
	return vals
}

func (o *correlateOp) advance(int64) error { return nil }

func (o *correlateOp) counters() *Counters { return o.c }

func (o *correlateOp) stateStore() *state.Store { return nil }
