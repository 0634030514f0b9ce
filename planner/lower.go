package planner

import (
	"fmt"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/types"
)

// Lower turns a job's plans (its INSERTs and SELECTs, in order, without
// EXPLAINs) into the physical plans exec runs. Every fact the runtime
// needs is decided here or earlier in the planner, from the plan, its
// properties and the settings each statement was planned under; exec
// decides nothing about meaning. Operator IDs are assigned over the whole
// job (physical.AssignIDs).
func Lower(plans []*Plan) ([]*physical.Plan, error) {
	var out []*physical.Plan
	queries := 0
	used, tables := usedColumns(plans)
	// A table dropped and declared again under its name is another table,
	// with another source.
	decls := map[*catalog.Table]int{}
	byName := map[string]int{}
	for _, t := range tables {
		decls[t] = byName[t.Name]
		byName[t.Name]++
	}
	for _, p := range plans {
		if p.Root == nil {
			return nil, fmt.Errorf("internal: a plan without a root")
		}
		l := &lowerer{props: p.Props, settings: p.Settings, sources: map[*logical.Scan]*physical.Source{}, used: used, decls: decls}
		var root *physical.Sink
		var err error
		if s, ok := p.Root.(*logical.Sink); ok {
			root, err = l.sink(s)
		} else {
			queries++
			root, err = l.query(queries, p.Root)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, &physical.Plan{Root: root, MaxParallelism: p.Settings.MaxParallelism})
	}
	physical.AssignIDs(out)
	return out, nil
}

// ExplainText renders p for EXPLAIN in sections, as Flink does: the optimised
// logical plan with its derived properties (Text), then the physical plan
// exec runs (operator IDs, and the keys, casts, retention, delays and
// columns every operator is built from).
func (p *Plan) ExplainText() string {
	ps, err := Lower([]*Plan{p})
	if err != nil {
		return explainText(p, nil, err)
	}
	return explainText(p, ps[0], nil)
}

func explainText(p *Plan, phys *physical.Plan, err error) string {
	var b strings.Builder
	b.WriteString("== Optimized Logical Plan ==\n")
	b.WriteString(p.Text())
	b.WriteString("\n== Physical Plan ==\n")
	if err != nil {
		fmt.Fprintf(&b, "(not lowered: %v)\n", err)
		return b.String()
	}
	b.WriteString(physical.Text(phys))
	return b.String()
}

// ExplainJob renders ExplainText for each plan of a job, with the physical
// plans of its INSERTs and SELECTs lowered together, as run lowers them:
// the IDs are the ones run gives, and each source decodes what the whole
// job reads of its table. An EXPLAIN statement's plan is lowered alone.
func ExplainJob(plans []*Plan) []string {
	var run []*Plan
	for _, p := range plans {
		if p.Explain == nil {
			run = append(run, p)
		}
	}
	phys, err := Lower(run)
	out := make([]string, len(plans))
	k := 0
	for i, p := range plans {
		switch {
		case p.Explain != nil:
			out[i] = p.ExplainText()
		case err != nil:
			out[i] = explainText(p, nil, err)
		default:
			out[i] = explainText(p, phys[k], nil)
			k++
		}
	}
	return out
}

type lowerer struct {
	props    map[logical.Node]*Props
	settings settings.Settings
	// sources are the Sources lowered from each scan, for the late-row
	// destinations of the operators above them.
	sources map[*logical.Scan]*physical.Source
	// used are the columns the job reads of each table (usedColumns).
	used map[*catalog.Table][]bool
	// decls number the declarations of one table name in the job.
	decls map[*catalog.Table]int
}

// usedColumns are the columns the job reads of each table it scans: the
// union over its scans (logical.Scan.Used, set by the prune rule) in every
// plan, since a table is read once per job and its rows go to each. tables
// lists the tables in the order the plans first read them.
func usedColumns(plans []*Plan) (out map[*catalog.Table][]bool, tables []*catalog.Table) {
	out = map[*catalog.Table][]bool{}
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		if s, ok := n.(*logical.Scan); ok {
			u := out[s.Table]
			if u == nil {
				u = make([]bool, len(s.Table.Columns))
				out[s.Table] = u
				tables = append(tables, s.Table)
			}
			for i := range u {
				u[i] = u[i] || s.Used == nil || i < len(s.Used) && s.Used[i]
			}
		}
		for _, c := range logical.Children(n) {
			walk(c)
		}
	}
	for _, p := range plans {
		if p.Root != nil {
			walk(p.Root)
		}
	}
	return out, tables
}

func physCols(cols []logical.Column) []physical.Column {
	out := make([]physical.Column, len(cols))
	for i, c := range cols {
		out[i] = physical.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

func op(name string, n logical.Node) physical.Op {
	return physical.Op{Name: name, Span: n.Span(), Cols: physCols(n.Columns())}
}

func (l *lowerer) sink(s *logical.Sink) (*physical.Sink, error) {
	in, err := l.node(s.Input)
	if err != nil {
		return nil, err
	}
	t := s.Table
	k := &physical.Sink{Op: op(t.Name, s), Input: in, Spec: t.ConnectorSpec(t.SinkColumns()), Format: connectorText(t.Config), Hint: hintText(t),
		TableSpan: tableSpan(t), TableSource: t.Source, Invalid: t.Invalid}
	if p := l.props[s]; p != nil {
		k.Mode = p.Mode
	}
	if t.Config != nil && t.Config.Spec != nil {
		k.Accepts = modeByName(t.Config.SinkMode())
	}
	k.DropBefore = t.Config != nil && t.Config.Spec != nil && t.Config.SinkMode() == connectors.Upsert
	if k.DropBefore && s.UpdateBefore {
		k.DropBefore, k.BeforeAsDelete = false, true
	}
	// Implicit conversions from the query's types to the sink's (compiled
	// by checkRunnable too).
	cols := s.Input.Columns()
	for i, c := range k.Spec.Schema {
		if i >= len(cols) || types.SameIgnoringNull(cols[i].Type, c.Type) {
			continue
		}
		if k.Casts == nil {
			k.Casts = make([]expr.Expr, len(k.Spec.Schema))
		}
		k.Casts[i] = sinkCast(i, cols[i], c.Type, s)
	}
	return k, nil
}

// sinkCast converts column i of a sink's input to the sink column's type.
func sinkCast(i int, in logical.Column, t types.T, s *logical.Sink) expr.Expr {
	return &expr.Call{Fn: "CAST", T: t, S: s.S, Args: []expr.Expr{&expr.Column{Index: i, Name: in.Name, T: in.Type, S: s.S}}}
}

// query lowers the n-th SELECT (from 1) of the job: its rows go to a sink
// the caller of exec provides, named "query n".
func (l *lowerer) query(n int, root logical.Node) (*physical.Sink, error) {
	in, err := l.node(root)
	if err != nil {
		return nil, err
	}
	k := &physical.Sink{Op: op(fmt.Sprintf("query %d", n), root), Input: in, Query: true}
	for _, c := range root.Columns() {
		k.Spec.Schema = append(k.Spec.Schema, connector.Column{Name: c.Name, Type: c.Type})
	}
	if p := l.props[root]; p != nil {
		k.Mode = p.Mode
		k.Accepts = p.Mode
	}
	return k, nil
}

// sourcePlaces are the table positions of the columns a connector decodes
// for t (physical and metadata columns, in table order).
func sourcePlaces(t *catalog.Table) []int {
	var place []int
	for i, c := range t.Columns {
		if c.Expr == nil {
			place = append(place, i)
		}
	}
	return place
}

func tableSpan(t *catalog.Table) (sp diag.Span) {
	if t.Def != nil {
		sp = t.Def.Name.S
	}
	return sp
}

func (l *lowerer) source(s *logical.Scan, wm *logical.WatermarkAssigner) (*physical.Source, error) {
	t := s.Table
	used := l.used[t]
	src := &physical.Source{Op: op(t.Name, s), Place: sourcePlaces(t),
		TableName: t.Name, Alias: s.Alias, Decl: l.decls[t], Format: connectorText(t.Config), Hint: hintText(t), TableSpan: tableSpan(t), TableSource: t.Source, Invalid: t.Invalid}
	// The connector decodes only the columns the job reads; the others
	// stay NULL (connector.Column.Unused), as computed columns nobody
	// reads stay uncomputed.
	schema := t.SourceColumns()
	for j, at := range src.Place {
		schema[j].Unused = used != nil && !used[at]
	}
	src.Spec = t.ConnectorSpec(schema)
	for i, c := range t.Columns {
		if c.Expr != nil && (used == nil || used[i]) {
			src.Computed = append(src.Computed, physical.Computed{At: i, Name: c.Name, Expr: c.Expr})
		}
	}
	if wm != nil {
		src.Watermark = &physical.Watermark{Col: wm.TimeCol, Delay: wm.DelayMillis}
	}
	c := t.Config
	if c != nil && c.Has("scan.watermark.idle-timeout") {
		src.IdleTimeout, _ = c.Duration("scan.watermark.idle-timeout")
	} else {
		src.IdleTimeout = l.settings.IdleTimeout
	}
	if c != nil && c.Has("scan.watermark.gap-alert") {
		src.GapAlert, _ = c.Duration("scan.watermark.gap-alert")
	} else {
		src.GapAlert = l.settings.GapAlert
	}
	if c != nil && wm != nil && c.Has("scan.watermark.alignment.group") {
		a := &physical.Alignment{Group: c.Get("scan.watermark.alignment.group")}
		a.MaxDrift, _ = c.Duration("scan.watermark.alignment.max-drift")
		interval, ok := c.Duration("scan.watermark.alignment.update-interval")
		if !ok || interval <= 0 {
			interval = time.Second
		}
		a.Interval = interval
		src.Align = a
	}
	if c != nil {
		src.Bounded = c.Spec != nil && c.Bounded()
		src.SkipBad = strings.EqualFold(c.FormatOption("ignore-parse-errors"), "true")
	}
	l.sources[s] = src
	return src, nil
}

// late is the late-row destination of an operator input n: the source of
// the table under n (baseScan), and that table's dead-letter file. It is
// nil when n is not one table's rows.
func (l *lowerer) late(n logical.Node) *physical.LateRows {
	s := baseScan(n)
	if s == nil || l.sources[s] == nil {
		return nil
	}
	lr := &physical.LateRows{Source: l.sources[s]}
	if c := s.Table.Config; c != nil && c.Has("scan.late-rows.path") {
		p, err := connectors.LocalPath(c.Get("scan.late-rows.path"))
		if err != nil {
			p = c.Get("scan.late-rows.path") // refused at check; opening it fails with its name
		}
		lr.Path = p
	}
	return lr
}

// sideName names an operator input by its table alias.
func sideName(n logical.Node) string {
	if s := baseScan(n); s != nil {
		return s.Alias
	}
	return "…"
}

func (l *lowerer) join(kind ast.JoinKind, left, right logical.Node, keys []logical.JoinKey, residual expr.Expr) (physical.Join, error) {
	var j physical.Join
	var err error
	if j.Left, err = l.node(left); err != nil {
		return j, err
	}
	if j.Right, err = l.node(right); err != nil {
		return j, err
	}
	for i, k := range keys {
		j.Keys[0] = append(j.Keys[0], k.Left)
		j.Keys[1] = append(j.Keys[1], k.Right)
		if k.NullSafe {
			if j.NullSafe == nil {
				j.NullSafe = make([]bool, len(keys))
			}
			j.NullSafe[i] = true
		}
	}
	j.Residual = residual
	j.Outer = [2]bool{kind == ast.LeftJoin || kind == ast.FullJoin, kind == ast.RightJoin || kind == ast.FullJoin}
	j.Semi, j.Anti = kind == ast.SemiJoin, kind == ast.AntiJoin
	j.Sides = [2]string{sideName(left), sideName(right)}
	j.Width = [2]int{len(left.Columns()), len(right.Columns())}
	return j, nil
}

func joinName(kind ast.JoinKind, what string, l, r logical.Node) string {
	return fmt.Sprintf("%s %s(%s, %s)", what, kind, sideName(l), sideName(r))
}

func (l *lowerer) aggregate(in logical.Node, keys []expr.Expr, calls []*logical.AggCall) (physical.Aggregate, error) {
	var a physical.Aggregate
	var err error
	if a.Input, err = l.node(in); err != nil {
		return a, err
	}
	a.Keys = keys
	for _, c := range calls {
		a.Aggs = append(a.Aggs, &physical.AggCall{Fn: c.Fn, Args: c.Args, Distinct: c.Distinct, Star: c.Star, T: c.T})
	}
	// Accumulators must take values back out when the input may retract
	// (assumed when its mode is not known).
	a.Retract = true
	if p := l.props[in]; p != nil {
		a.Retract = !p.Produced.IsInsertOnly()
	}
	return a, nil
}

func (l *lowerer) stateTTL(n logical.Node) [2]int64 {
	if p := l.props[n]; p != nil {
		return p.StateTTL
	}
	return [2]int64{}
}

// node lowers n and its inputs.
func (l *lowerer) node(n logical.Node) (physical.Node, error) {
	switch x := n.(type) {
	case *logical.Scan:
		return l.source(x, nil)
	case *logical.Values:
		return &physical.Values{Op: op(fmt.Sprintf("Values(%d rows)", len(x.Rows)), x), Rows: x.Rows}, nil
	case *logical.WatermarkAssigner:
		s, ok := x.Input.(*logical.Scan)
		if !ok {
			return nil, fmt.Errorf("internal: a watermark assigner must sit on a scan, not %T", x.Input)
		}
		return l.source(s, x)
	case *logical.Filter:
		in, err := l.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &physical.Calc{Op: op("Filter", x), Input: in, Cond: x.Cond}, nil
	case *logical.Project:
		in, err := l.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &physical.Calc{Op: op("Project", x), Input: in, Exprs: x.Exprs}, nil
	case *logical.Union:
		u := &physical.Union{Op: op("UnionAll", x)}
		for _, c := range x.Inputs {
			in, err := l.node(c)
			if err != nil {
				return nil, err
			}
			u.Ins = append(u.Ins, in)
		}
		return u, nil
	case *logical.Correlate:
		in, err := l.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &physical.Correlate{Op: op("Correlate", x), Input: in, Expr: x.Expr, Left: x.Left, Ordinality: x.Ordinality}, nil
	case *logical.Window:
		in, err := l.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &physical.Window{Op: op("Window "+x.Func+"("+sideName(x.Input)+")", x), Input: in, Func: x.Func, TimeCol: x.TimeCol,
			Size: x.Size, Slide: x.Slide, Step: x.Step, Offset: x.Offset, Late: l.late(x.Input), InCols: physCols(x.Input.Columns())}, nil
	case *logical.Join:
		j, err := l.join(x.Kind, x.Left, x.Right, x.Keys, x.Residual)
		if err != nil {
			return nil, err
		}
		return &physical.RegularJoin{Op: op(joinName(x.Kind, "Join", x.Left, x.Right), x), Join: j, TTL: l.stateTTL(x)}, nil
	case *logical.IntervalJoin:
		j, err := l.join(x.Kind, x.Left, x.Right, x.Keys, x.Residual)
		if err != nil {
			return nil, err
		}
		return &physical.IntervalJoin{Op: op(joinName(x.Kind, "IntervalJoin", x.Left, x.Right), x), Join: j,
			TimeCol: [2]int{x.LeftTime, x.RightTime}, Lower: x.Lower, Upper: x.Upper, Delay: intervalDelay(x),
			Late: [2]*physical.LateRows{l.late(x.Left), l.late(x.Right)}, InCols: [2][]physical.Column{physCols(x.Left.Columns()), physCols(x.Right.Columns())}}, nil
	case *logical.WindowJoin:
		j, err := l.join(x.Kind, x.Left, x.Right, x.Keys, x.Residual)
		if err != nil {
			return nil, err
		}
		wj := &physical.WindowJoin{Op: op(joinName(x.Kind, "WindowJoin", x.Left, x.Right), x), Join: j, End: [2]int{x.LeftEnd, x.RightEnd},
			Late: [2]*physical.LateRows{l.late(x.Left), l.late(x.Right)}, InCols: [2][]physical.Column{physCols(x.Left.Columns()), physCols(x.Right.Columns())}}
		wj.Lateness, wj.FinalOnly = l.settings.AllowLateness.Milliseconds(), l.settings.FinalOnly
		return wj, nil
	case *logical.TemporalJoin:
		if x.Lookup {
			return l.lookupJoin(x)
		}
		j, err := l.join(x.Kind, x.Left, x.Right, x.Keys, x.Residual)
		if err != nil {
			return nil, err
		}
		name := joinName(x.Kind, "TemporalJoin", x.Left, x.Right)
		rt := -1
		for i, c := range x.Right.Columns() {
			if c.Time == expr.RowTime {
				rt = i
				break
			}
		}
		if rt < 0 {
			return nil, fmt.Errorf("%s: the versioned side has no event-time column", name)
		}
		return &physical.TemporalJoin{Op: op(name, x), Join: j, LeftTime: x.AsOf, RightTime: rt,
			Late: [2]*physical.LateRows{l.late(x.Left), l.late(x.Right)}, InCols: [2][]physical.Column{physCols(x.Left.Columns()), physCols(x.Right.Columns())}}, nil
	case *logical.WindowAggregate:
		a, err := l.aggregate(x.Input, x.Keys, x.Aggs)
		if err != nil {
			return nil, err
		}
		w, ok := windowColumns(x.Input)
		if !ok || w.end < 0 {
			return nil, fmt.Errorf("internal: window aggregate without window_end")
		}
		t := w.orig // late rows are reported with their own time
		if t < 0 {
			t = w.time
		}
		if t < 0 {
			t = w.end
		}
		wa := &physical.WindowAggregate{Op: op("WindowAggregate", x), Aggregate: a, EndCol: w.end, TimeCol: t,
			Late: l.late(x.Input), InCols: physCols(x.Input.Columns())}
		s := l.settings
		wa.Lateness, wa.FinalOnly = s.AllowLateness.Milliseconds(), s.FinalOnly
		wa.ProcTime = w.w.Input.Columns()[w.w.TimeCol].Time == expr.ProcTime
		if w.w.Func == "SESSION" {
			// Early and late firing are refused for sessions (validate.go).
			if wa.Session, err = sessionOf(x, w); err != nil {
				return nil, err
			}
		} else {
			wa.EarlyFire, wa.EarlyFireDelay = s.EarlyFire, s.EarlyFireDelay.Milliseconds()
			wa.LateFire, wa.LateFireDelay = s.LateFire, s.LateFireDelay.Milliseconds()
		}
		return wa, nil
	case *logical.Aggregate:
		a, err := l.aggregate(x.Input, x.Keys, x.Aggs)
		if err != nil {
			return nil, err
		}
		var keys []string
		for _, c := range x.Cols[:len(x.Keys)] {
			keys = append(keys, c.Name)
		}
		return &physical.GroupAggregate{Op: op("GroupAggregate("+strings.Join(keys, ", ")+")", x), Aggregate: a, TTL: l.stateTTL(x)[0]}, nil
	case *logical.ChangelogNormalize:
		in, err := l.node(x.Input)
		if err != nil {
			return nil, err
		}
		return &physical.Normalize{Op: op("ChangelogNormalize("+sideName(x)+")", x), Input: in, Key: x.Key, UpdateBefore: x.UpdateBefore, TTL: x.TTL}, nil
	case *logical.UpsertMaterialize:
		in, err := l.node(x.Input)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, k := range x.Key {
			names = append(names, x.Cols[k].Name)
		}
		return &physical.UpsertMaterialize{Op: op("UpsertMaterialize("+strings.Join(names, ", ")+")", x), Input: in,
			Key: x.Key, UpsertKey: x.UpsertKey, TTL: x.TTL}, nil
	case *logical.Rank:
		return l.rank(x)
	case *logical.OverAggregate:
		return l.over(x)
	case *logical.Sink:
		return nil, fmt.Errorf("internal: a sink inside a plan")
	}
	return nil, fmt.Errorf("internal: no operator for %T", n)
}

// lookupJoin lowers a lookup join: the probe side as any input, the dim
// table as the Source it would be (its Spec, Place, names), without
// making it an input.
func (l *lowerer) lookupJoin(x *logical.TemporalJoin) (physical.Node, error) {
	in, err := l.node(x.Left)
	if err != nil {
		return nil, err
	}
	scan := baseScan(x.Right)
	if scan == nil {
		return nil, fmt.Errorf("internal: a lookup join without a table")
	}
	dim, err := l.source(scan, nil)
	if err != nil {
		return nil, err
	}
	delete(l.sources, scan) // not read as a source: no late rows, no ID
	name := fmt.Sprintf("LookupJoin %s(%s, %s)", x.Kind, sideName(x.Left), scan.Alias)
	j := &physical.LookupJoin{Op: op(name, x), Input: in, Dim: dim, Residual: x.Residual,
		Outer: x.Kind == ast.LeftJoin, Side: sideName(x.Left)}
	for _, k := range x.Keys {
		col, ok := lookupKeyColumn(k.Right)
		if !ok {
			return nil, fmt.Errorf("internal: %s: lookup key %s is not a column", name, k.Right)
		}
		at := -1
		for i, p := range dim.Place {
			if p == col.Index {
				at = i
			}
		}
		if at < 0 {
			return nil, fmt.Errorf("internal: %s: lookup key %s is not read from the table", name, col.Name)
		}
		j.Keys = append(j.Keys, k.Left)
		j.DimKeys = append(j.DimKeys, at)
	}
	if c := scan.Table.Config; c != nil {
		cc := c.LookupCache()
		j.Cache = physical.LookupCache{MaxRows: cc.MaxRows, AfterWrite: cc.AfterWrite, AfterAccess: cc.AfterAccess, Missing: cc.Missing, Reload: cc.Reload}
	}
	return j, nil
}
