package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/physical"
)

// overFrame renders an OverAggregate's frame: ROWS 10 PRECEDING.
func overFrame(x *logical.OverAggregate) string {
	frame := "RANGE"
	if x.Rows {
		frame = "ROWS"
	}
	switch {
	case x.Preceding < 0:
		return frame + " UNBOUNDED PRECEDING"
	case x.Rows:
		return fmt.Sprintf("%s %d PRECEDING", frame, x.Preceding)
	}
	return frame + " " + expr.FormatMillis(x.Preceding) + " PRECEDING"
}

// overText is an OverAggregate's EXPLAIN title.
func overText(x *logical.OverAggregate) string {
	in := x.Input.Columns()
	if x.Sort {
		order := []string{colName(in, x.TimeCol)}
		for _, k := range x.SortKeys {
			s := render(k.Expr, in)
			if k.Desc {
				s += " DESC"
			}
			order = append(order, s)
		}
		return "TemporalSort order=[" + strings.Join(order, ", ") + "]"
	}
	var aggs []string
	for _, a := range x.Aggs {
		s := a.Fn + "("
		if a.Distinct {
			s += "DISTINCT "
		}
		if a.Star {
			s += "*"
		}
		aggs = append(aggs, s+renderList(a.Args, in)+")")
	}
	order := colName(in, x.TimeCol)
	if x.ProcTime {
		order += " PROCTIME"
	}
	return fmt.Sprintf("OverAggregate partition=[%s] order=[%s] %s %s", renderList(x.Partition, in), order, overFrame(x), strings.Join(aggs, ", "))
}

// overState checks an OverAggregate's input and says what it keeps.
func (d *deriver) overState(x *logical.OverAggregate, p *Props) {
	if in := d.props[x.Input]; x.Sort && !in.Produced.IsInsertOnly() {
		o := d.origin(x.Input)
		d.l.Errorf(diag.OverWindow, x.S, "ORDER BY a time attribute needs an insert-only input, but its input emits %s", in.Produced).
			WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
			WithHint("each row is emitted once, in time order, when the watermark passes its time, and cannot be corrected later")
	} else if !in.Produced.IsInsertOnly() {
		o := d.origin(x.Input)
		d.l.Errorf(diag.OverWindow, x.S, "an OVER aggregate needs an insert-only input, but its input emits %s", in.Produced).
			WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
			WithHint("each row is emitted once, with the aggregates of the rows before it, and cannot be corrected later")
	}
	if x.Sort {
		p.State = []string{"rows until watermark >= their time, then emitted in time order"}
		if len(x.SortKeys) > 0 {
			p.State[0] += " (the rows of one time sorted by the other keys)"
		}
		return
	}
	keep := "the running aggregates"
	switch {
	case x.Preceding >= 0 && x.Rows:
		keep = fmt.Sprintf("the last %d rows", x.Preceding)
	case x.Preceding >= 0:
		keep = "the rows of the last " + expr.FormatMillis(x.Preceding)
	}
	p.State = []string{"per partition: rows until watermark >= their time, then emitted in time order; and " + keep}
	if x.ProcTime {
		p.State = []string{"per partition: " + keep + " (rows are emitted as they come, in processing-time order)"}
	}
	if x.Preceding < 0 {
		p.State[0] += " (one per partition, kept forever)"
		p.Unbounded = true
		hasLag := slices.ContainsFunc(x.Aggs, func(a *logical.AggCall) bool { return a.Fn == "LAG" })
		switch {
		case bounded(x):
		case hasLag:
			// LAG takes no frame (as in Flink): the fix is the partition.
			d.l.Warnf(diag.UnboundedState, x.S, "this OVER window keeps its running values per partition forever (LAG: the last offset+1 values): state grows with the number of partitions").
				WithHint("partition by a key with a bounded number of values; LAG takes no frame to bound it by")
		default:
			d.l.Warnf(diag.UnboundedState, x.S, "this OVER aggregate keeps running aggregates per partition forever: state grows with the number of partitions").
				WithHint("bound the frame: ROWS BETWEEN 100 PRECEDING AND CURRENT ROW, or RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW")
		}
	}
}

// over lowers an OverAggregate.
func (l *lowerer) over(x *logical.OverAggregate) (physical.Node, error) {
	in, err := l.node(x.Input)
	if err != nil {
		return nil, err
	}
	o := &physical.OverAggregate{Op: op("OverAggregate", x), Input: in, Partition: x.Partition, TimeCol: x.TimeCol,
		Rows: x.Rows, Preceding: x.Preceding, Late: l.late(x.Input), InCols: physCols(x.Input.Columns()), Sort: x.Sort, ProcTime: x.ProcTime}
	for _, k := range x.SortKeys {
		o.SortKeys = append(o.SortKeys, physical.SortKey{Expr: k.Expr, Desc: k.Desc})
	}
	for _, c := range x.Aggs {
		o.Aggs = append(o.Aggs, &physical.AggCall{Fn: c.Fn, Args: c.Args, Distinct: c.Distinct, Star: c.Star, T: c.T})
	}
	var keys []string
	for _, p := range x.Partition {
		keys = append(keys, render(p, x.Input.Columns()))
	}
	o.Name = "OverAggregate(" + strings.Join(keys, ", ") + ")"
	if x.Sort {
		o.Name = "TemporalSort(" + colName(x.Input.Columns(), x.TimeCol) + ")"
		for _, k := range x.SortKeys {
			o.Name = strings.TrimSuffix(o.Name, ")") + ", " + render(k.Expr, x.Input.Columns())
			if k.Desc {
				o.Name += " DESC"
			}
			o.Name += ")"
		}
	}
	return o, nil
}
