package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/secret"
)

// Text renders a plan as a tree, one node a line with its changelog
// mode, keys and time attributes, and under each stateful node what it
// keeps and when a row leaves:
//
//	Sink orders_out (kafka, json)  mode=[+I]
//	└── IntervalJoin INNER o.order_id = s.order_id, ...  mode=[+I]
//	    │ state: left rows: until watermark > order_time + 4h
//	    ├── WatermarkAssigner order_time - 5s  mode=[+I]
//	    ...
func (p *Plan) Text() string {
	var b strings.Builder
	e := &explainer{b: &b, props: p.Props}
	e.node(p.Root, "", "")
	if len(p.Fired) > 0 {
		b.WriteString("rules:\n")
		for _, f := range p.Fired {
			fmt.Fprintf(&b, "  %s: %s\n", f.Rule, f.Reason)
		}
	}
	return b.String()
}

type explainer struct {
	b     *strings.Builder
	props map[logical.Node]*Props
}

// colName names column i of cols, qualified when the name alone is
// ambiguous.
func colName(cols []logical.Column, i int) string {
	if i < 0 || i >= len(cols) {
		return fmt.Sprintf("$%d", i)
	}
	c := cols[i]
	n := 0
	for _, o := range cols {
		if o.Name == c.Name {
			n++
		}
	}
	if n > 1 && c.Qualifier != "" {
		return ast.QuoteIdent(c.Qualifier) + "." + ast.QuoteIdent(c.Name)
	}
	return ast.QuoteIdent(c.Name)
}

func render(e expr.Expr, cols []logical.Column) string {
	if e == nil {
		return "true"
	}
	return expr.FormatBare(e, func(c *expr.Column) string { return colName(cols, c.Index) })
}

func renderList(es []expr.Expr, cols []logical.Column) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = render(e, cols)
	}
	return strings.Join(out, ", ")
}

func (e *explainer) title(n logical.Node) string {
	switch x := n.(type) {
	case *logical.Scan:
		s := "Scan " + x.Table.Name
		if x.Alias != x.Table.Name {
			s += " AS " + x.Alias
		}
		s += " (" + connectorText(x.Table.Config) + ")" + hintText(x.Table)
		if x.Used != nil {
			var names []string
			all := true
			for i, u := range x.Used {
				if u {
					names = append(names, x.Table.Columns[i].Name)
				} else {
					all = false
				}
			}
			if !all {
				s += " columns=[" + strings.Join(names, ", ") + "]"
			}
		}
		return s
	case *logical.Values:
		rows := make([]string, len(x.Rows))
		for i, r := range x.Rows {
			rows[i] = "(" + renderList(r, nil) + ")"
		}
		if len(rows) > 3 {
			rows = append(rows[:3:3], fmt.Sprintf("… %d rows", len(x.Rows)))
		}
		return "Values " + strings.Join(rows, ", ")
	case *logical.WatermarkAssigner:
		cols := x.Input.Columns()
		return fmt.Sprintf("WatermarkAssigner %s", plus(colName(cols, x.TimeCol), -x.DelayMillis))
	case *logical.Filter:
		return "Filter " + render(x.Cond, x.Input.Columns())
	case *logical.Correlate:
		return "Correlate " + correlateText(x.Left, x.Ordinality, render(x.Expr, x.Input.Columns()), x.Cols[len(x.Input.Columns()):])
	case *logical.Project:
		parts := make([]string, len(x.Exprs))
		in := x.Input.Columns()
		for i, ex := range x.Exprs {
			parts[i] = render(ex, in)
			if c, ok := ex.(*expr.Column); !ok || in[c.Index].Name != x.Cols[i].Name {
				parts[i] += " AS " + ast.QuoteIdent(x.Cols[i].Name)
			}
		}
		return "Project " + strings.Join(parts, ", ")
	case *logical.Join:
		cond := joinCond(x.Keys, x.Residual, len(x.Left.Columns()))
		if x.Keys == nil && x.Residual == nil {
			cond = x.Cond // not split into keys yet (a rule trace)
		}
		s := "Join " + x.Kind.String() + " " + render(cond, condCols(x))
		if x.AsOf != nil {
			s += " FOR SYSTEM_TIME AS OF " + render(x.AsOf, x.Cols)
		}
		return s
	case *logical.IntervalJoin:
		nL := len(x.Left.Columns())
		s := fmt.Sprintf("IntervalJoin %s %s - %s in [%s, %s]", x.Kind, colName(x.Cols, x.LeftTime), colName(x.Cols, nL+x.RightTime),
			expr.FormatMillis(x.Lower), expr.FormatMillis(x.Upper))
		if c := joinCond(x.Keys, x.Residual, nL); c != nil {
			s += ", " + render(c, x.Cols)
		}
		return s
	case *logical.WindowJoin:
		return fmt.Sprintf("WindowJoin %s %s, %s", x.Kind, windowText(x.Window), render(joinCond(x.Keys, x.Residual, len(x.Left.Columns())), x.Cols))
	case *logical.TemporalJoin:
		if x.Lookup {
			return fmt.Sprintf("LookupJoin %s AS OF %s, %s", x.Kind, colName(x.Cols, x.AsOf), render(joinCond(x.Keys, x.Residual, len(x.Left.Columns())), x.Cols))
		}
		return fmt.Sprintf("TemporalJoin %s AS OF %s, %s", x.Kind, colName(x.Cols, x.AsOf), render(joinCond(x.Keys, x.Residual, len(x.Left.Columns())), x.Cols))
	case *logical.Window:
		in := x.Input.Columns()
		return "Window " + windowCall(x, colName(in, x.TimeCol))
	case *logical.Aggregate:
		return "GroupAggregate " + aggText(x.Keys, x.Aggs, x.Input.Columns())
	case *logical.WindowAggregate:
		return "WindowAggregate " + aggText(x.Keys, x.Aggs, x.Input.Columns())
	case *logical.Union:
		return "UnionAll"
	case *logical.Rank:
		return rankText(x)
	case *logical.OverAggregate:
		return overText(x)
	case *logical.ChangelogNormalize:
		cols := x.Input.Columns()
		names := make([]string, len(x.Key))
		for i, k := range x.Key {
			names[i] = colName(cols, k)
		}
		return "ChangelogNormalize key=(" + strings.Join(names, ", ") + ")"
	case *logical.UpsertMaterialize:
		cols := x.Cols
		names := func(k []int) string {
			out := make([]string, len(k))
			for i, c := range k {
				out[i] = colName(cols, c)
			}
			return strings.Join(out, ", ")
		}
		s := "UpsertMaterialize key=(" + names(x.Key) + ")"
		if x.UpsertKey != nil {
			return s + " rows by upsert key (" + names(x.UpsertKey) + ")"
		}
		return s + " rows by all columns"
	case *logical.Sink:
		return "Sink " + x.Table.Name + " (" + connectorText(x.Table.Config) + ")" + hintText(x.Table) + sinkAccepts(x)
	}
	return fmt.Sprintf("%T", n)
}

// windowCall renders a window TVF: TUMBLE(dateTime, 10s).
func windowCall(x *logical.Window, timeCol string) string {
	s := x.Func + "("
	if timeCol != "" {
		s += timeCol + ", "
	}
	var args []string
	for _, v := range []int64{x.Slide, x.Step, x.Size} {
		if v > 0 {
			args = append(args, expr.FormatMillis(v))
		}
	}
	if x.Offset != 0 {
		args = append(args, "offset "+expr.FormatMillis(x.Offset))
	}
	return s + strings.Join(args, ", ") + ")"
}

// windowText renders the window a window join's inputs share.
func windowText(x *logical.Window) string { return windowCall(x, "") }

func aggText(keys []expr.Expr, aggs []*logical.AggCall, in []logical.Column) string {
	var parts []string
	for _, a := range aggs {
		s := a.Fn + "("
		if a.Distinct {
			s += "DISTINCT "
		}
		if a.Star {
			s += "*"
		}
		s += renderList(a.Args, in) + ")"
		parts = append(parts, s)
	}
	out := "group=[" + renderList(keys, in) + "]"
	if len(parts) > 0 {
		out += " " + strings.Join(parts, ", ")
	}
	return out
}

// sinkAccepts says what a sink takes: the top-down requirement of the plan,
// including whether a delete needs the full row or only the key.
func sinkAccepts(s *logical.Sink) string {
	c := s.Table.Config
	if c == nil || c.Spec == nil {
		return ""
	}
	switch c.SinkMode() {
	case connectors.InsertOnly:
		return " accepts=[+I]"
	case connectors.Upsert:
		var pk []string
		for _, i := range s.Table.PrimaryKey {
			pk = append(pk, s.Table.Columns[i].Name)
		}
		return " accepts=[+I,+U,-D] by key (" + strings.Join(pk, ", ") + ")"
	case connectors.AllKinds:
		return " accepts=[+I,-U,+U,-D] full rows"
	}
	return ""
}

// connectorText renders a table's connector and format: "kafka, json".
// hintText shows the options of the table hint a table is read with
// (secrets masked), or "".
func hintText(t *catalog.Table) string {
	if len(t.Hinted) == 0 {
		return ""
	}
	parts := make([]string, len(t.Hinted))
	for i, o := range t.Hinted {
		parts[i] = fmt.Sprintf("'%s'='%s'", o.Key.Value, secret.Show(o.Key.Value, o.Value.Value))
	}
	return " OPTIONS(" + strings.Join(parts, ", ") + ")"
}

func connectorText(c *connectors.Config) string {
	if c == nil || c.Spec == nil {
		return "?"
	}
	s := c.Spec.Name
	if c.KeyFormat != nil {
		s += ", key " + c.KeyFormat.Name
		if c.Format != nil {
			s += ", value " + c.Format.Name
		}
	} else if c.Format != nil {
		s += ", " + c.Format.Name
	}
	return s
}

func (e *explainer) node(n logical.Node, first, rest string) {
	p := e.props[n]
	fmt.Fprintf(e.b, "%s%s", first, e.title(n))
	if p != nil {
		fmt.Fprintf(e.b, "  mode=%s", p.Mode)
		cols := n.Columns()
		if len(p.Keys) > 0 {
			var ks []string
			for _, k := range p.Keys {
				names := make([]string, len(k))
				for i, c := range k {
					names[i] = colName(cols, c)
				}
				ks = append(ks, "("+strings.Join(names, ", ")+")")
			}
			fmt.Fprintf(e.b, " keys=%s", strings.Join(ks, ","))
		}
		var ts []string
		for i, t := range p.Time {
			if t != expr.NoTime {
				ts = append(ts, colName(cols, i)+" "+t.String())
			}
		}
		if len(ts) > 0 {
			fmt.Fprintf(e.b, " time=[%s]", strings.Join(ts, ", "))
		}
	}
	e.b.WriteString("\n")
	children := logical.Children(n)
	bar := rest + "│ "
	if len(children) == 0 {
		bar = rest + "  "
	}
	if p != nil {
		if p.WatermarkDelay > 0 {
			fmt.Fprintf(e.b, "%swatermark: held back %s behind the inputs'\n", bar, expr.FormatMillis(p.WatermarkDelay))
		}
		for _, s := range p.State {
			fmt.Fprintf(e.b, "%sstate: %s\n", bar, s)
		}
	}
	for i, c := range children {
		if i == len(children)-1 {
			e.node(c, rest+"└── ", rest+"    ")
		} else {
			e.node(c, rest+"├── ", rest+"│   ")
		}
	}
}
