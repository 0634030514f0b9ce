package planner

import (
	"errors"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// checkRunnable compiles every expression of a plan the way the runtime
// will (package eval), so that what the runtime would refuse when the job
// starts is an error of `check` instead: a function the runtime lacks, a
// date format or a regular expression that does not compile, a constant
// that does not fit its type, CURRENT_WATERMARK outside WHERE and SELECT.
// Filters and projections know their operator's watermark; nothing else
// does. Each error is at the smallest sub-expression that fails.
//
// CURRENT_WATERMARK over an input that retracts is refused: it is evaluated
// when a change passes, so a -U or -D would carry another value than the
// row it retracts, and whatever downstream matches rows (the upsert
// materializer, a GROUP BY) would keep the stale row.
func checkRunnable(root logical.Node, props map[logical.Node]*Props, l *diag.List) {
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		withWM := false
		var es []expr.Expr
		switch x := n.(type) {
		case *logical.Scan:
			for _, c := range x.Table.Columns {
				if c.Expr != nil {
					es = append(es, c.Expr)
				}
			}
		case *logical.Values:
			for _, r := range x.Rows {
				es = append(es, r...)
			}
		case *logical.Filter:
			withWM, es = true, []expr.Expr{x.Cond}
		case *logical.Correlate:
			es = []expr.Expr{x.Expr}
		case *logical.Project:
			withWM, es = true, x.Exprs
		case *logical.Join:
			es = append(joinExprs(x.Keys, x.Residual), x.Cond, x.AsOf)
		case *logical.IntervalJoin:
			es = joinExprs(x.Keys, x.Residual)
		case *logical.WindowJoin:
			es = joinExprs(x.Keys, x.Residual)
		case *logical.TemporalJoin:
			es = joinExprs(x.Keys, x.Residual)
		case *logical.Aggregate:
			es = append(es, x.Keys...)
			es = append(es, aggArgs(x.Aggs)...)
		case *logical.WindowAggregate:
			es = append(es, x.Keys...)
			es = append(es, aggArgs(x.Aggs)...)
		case *logical.Sink:
			// The runtime casts what the query gives to the sink's types.
			in := x.Input.Columns()
			for i, c := range x.Cols {
				if i < len(in) && !types.SameIgnoringNull(in[i].Type, c.Type) {
					es = append(es, &expr.Call{Fn: "CAST", T: c.Type, S: x.S,
						Args: []expr.Expr{&expr.Column{Index: i, Name: in[i].Name, T: in[i].Type, S: x.S}}})
				}
			}
		case *logical.WatermarkAssigner, *logical.Window, *logical.Union:
		}
		opts := eval.Options{Now: func() int64 { return 0 }}
		if withWM {
			opts.Watermark = func() (int64, bool) { return 0, false }
		}
		for _, e := range es {
			if e != nil && compileCheck(e, opts, l) && withWM {
				checkWatermarkOverRetractions(n, e, props, l)
			}
		}
		for _, c := range logical.Children(n) {
			walk(c)
		}
	}
	walk(root)
}

// joinExprs are what the runtime compiles of a join: each side of each
// key, and the residual condition.
func joinExprs(keys []logical.JoinKey, residual expr.Expr) []expr.Expr {
	out := []expr.Expr{residual}
	for _, k := range keys {
		out = append(out, k.Left, k.Right)
	}
	return out
}

func aggArgs(aggs []*logical.AggCall) []expr.Expr {
	var out []expr.Expr
	for _, a := range aggs {
		out = append(out, a.Args...)
	}
	return out
}

// compileCheck compiles e; when it fails, it reports the failure of its
// smallest sub-expression that fails alone, at its span. It reports
// whether e compiled.
func compileCheck(e expr.Expr, opts eval.Options, l *diag.List) bool {
	if c, ok := e.(*expr.Call); ok {
		for _, a := range c.Args {
			if !compileCheck(a, opts, l) {
				return false
			}
		}
	}
	if _, err := eval.CompileWith(e, opts); err != nil {
		code := diag.UnsupportedFeature
		switch {
		case errors.Is(err, eval.ErrInvalidArgument):
			code = diag.WrongArguments
		case errors.Is(err, eval.ErrOverflow), errors.Is(err, eval.ErrInvalidCast):
			code = diag.InvalidLiteral
		}
		l.Errorf(code, e.Span(), "%s", strings.TrimPrefix(err.Error(), "eval: "))
		return false
	}
	return true
}

// checkWatermarkOverRetractions refuses CURRENT_WATERMARK in a filter or
// projection whose input retracts rows (see checkRunnable).
func checkWatermarkOverRetractions(n logical.Node, e expr.Expr, props map[logical.Node]*Props, l *diag.List) {
	in := props[logical.Children(n)[0]]
	if in == nil || in.Produced.IsInsertOnly() || !in.Produced.Has(changelogmode.UpdateBefore) && !in.Produced.Has(changelogmode.Delete) {
		return
	}
	c := findCall(e, "CURRENT_WATERMARK")
	if c == nil {
		return
	}
	l.Errorf(diag.UnsupportedFeature, c.Span(),
		"CURRENT_WATERMARK over an input that retracts rows (%s): a retraction would carry another watermark than the row it retracts, so the row downstream would never be removed",
		in.Produced).
		WithHint("compute it before the updating operator, or write the updates without it")
}

// findCall returns the first call of fn in e, or nil.
func findCall(e expr.Expr, fn string) *expr.Call {
	c, ok := e.(*expr.Call)
	if !ok {
		return nil
	}
	if c.Fn == fn {
		return c
	}
	for _, a := range c.Args {
		if f := findCall(a, fn); f != nil {
			return f
		}
	}
	return nil
}
