package planner

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// The rewrite rules, in the order they run. Each firing records why.
//
//	watermark    put a WatermarkAssigner above the scan of a table with a WATERMARK
//	pushdown     move WHERE and ON predicates that read one side into that side
//	keys         split each join condition into equi-join keys, both sides
//	             cast to the type they compare in, and the rest (joinkeys.go)
//	interval     recognise time bounds between two time attributes: IntervalJoin
//	temporal     FOR SYSTEM_TIME AS OF against a versioned table: TemporalJoin
//	window       an aggregate grouped by window_start, window_end: WindowAggregate
//	windowjoin   a join of two inputs with the same window on their window_start
//	             and window_end: WindowJoin
//	rank         a filter on ROW_NUMBER's result (rn <= N) becomes the Rank's
//	             range; after pruning, each Rank becomes a WindowRank, a
//	             Deduplicate or stays a Top-N Rank (rank.go)
//	project      merge a projection into the projection below it; drop identities
//	prune        mark the columns each scan really reads
//
// A rule is a rewrite and nothing else: it reports no diagnostic, what it
// makes of a plan depends on the plan alone, and it leaves that plan as it
// was: it copies the nodes it changes and those above them (withChildren,
// shallowCopy), so that each trace step keeps its plan. What a rule's input can be
// refused for is decided by a check that runs between the rules (checks.go),
// from the same functions the rule reads (intervalBounds, versionedProblem),
// so that a rule and its check cannot disagree. Interval and temporal joins
// are recognised in one bottom-up pass (step "joins"), as are window
// aggregates and window joins (step "windows"): a rule's firing names the
// rule, a trace step (Session.Trace) the pass.

// Firing is one application of a rule.
type Firing struct {
	Rule   string
	Reason string
	Span   diag.Span
}

type optimizer struct {
	fired []Firing
	trace *tracer
}

func (o *optimizer) fire(rule string, sp diag.Span, format string, args ...any) {
	o.fired = append(o.fired, Firing{Rule: rule, Reason: fmt.Sprintf(format, args...), Span: sp})
}

// step applies one rewrite pass to the whole plan and traces the result.
func (o *optimizer) step(name string, root logical.Node, rewrite func(logical.Node) logical.Node) logical.Node {
	before := len(o.fired)
	root = rewrite(root)
	o.trace.step(name, root, o.fired[before:])
	return root
}

// optimize applies the rules to a bound plan, and the checks of what the
// rules cannot rewrite into something that runs (reporting to l).
func optimize(root logical.Node, l *diag.List, tr *tracer) (logical.Node, []Firing) {
	o := &optimizer{trace: tr}
	tr.step("bound", root, nil)
	root = o.step("watermark", root, o.watermarks)
	root = o.step("pushdown", root, o.pushdown)
	root = o.step("keys", root, o.keys)
	checkTemporalJoins(root, l) // on the joins as keys left them
	root = o.step("joins", root, o.joins)
	checkIntervalJoins(root, l) // on the joins the interval rule kept
	root = o.step("windows", root, o.windows)
	root = o.step("rank", root, o.ranks)
	root = o.step("project", root, o.projects)
	root = o.step("prune", root, o.prune)
	root = o.step("rankkinds", root, o.rankKinds)
	return root, o.fired
}

// mapChildren returns n with f applied to each child: n itself when f
// changed none, else a copy (withChildren).
func mapChildren(n logical.Node, f func(logical.Node) logical.Node) logical.Node {
	cs := logical.Children(n)
	if len(cs) == 0 {
		return n
	}
	out := make([]logical.Node, len(cs))
	changed := false
	for i, c := range cs {
		out[i] = f(c)
		changed = changed || out[i] != c
	}
	if !changed {
		return n
	}
	return withChildren(n, out)
}

// withChildren returns a copy of n with the inputs children: a rewrite
// leaves the plan it was given as it was (logical.Replace alone would
// change n, which an earlier plan, a trace step, still holds).
func withChildren(n logical.Node, children []logical.Node) logical.Node {
	return logical.Replace(shallowCopy(n), children)
}

// shallowCopy returns a copy of the node n points to, whatever its kind.
func shallowCopy[N logical.Node](n N) N {
	v := reflect.ValueOf(n).Elem()
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return c.Interface().(N)
}

// ---- watermark ----

func (o *optimizer) watermarks(n logical.Node) logical.Node {
	if s, ok := n.(*logical.Scan); ok && s.Table.Watermark != nil {
		wm := s.Table.Watermark
		o.fire("watermark", s.S, "%s declares WATERMARK FOR %s AS %s", s.Table.Name, s.Table.Columns[wm.Column].Name, ast.Format(s.Table.Def.Watermarks[0].Expr))
		return &logical.WatermarkAssigner{Input: s, TimeCol: wm.Column, DelayMillis: wm.DelayMillis, S: s.S}
	}
	return mapChildren(n, o.watermarks)
}

// ---- pushdown ----

func (o *optimizer) pushdown(n logical.Node) logical.Node {
	switch f := n.(type) {
	case *logical.Filter:
		switch in := f.Input.(type) {
		case *logical.Filter:
			merged := &logical.Filter{Input: in.Input, Cond: expr.And(in.Cond, f.Cond), S: f.S}
			return o.pushdown(merged)
		case *logical.Join:
			if moved := o.filterIntoJoin(f, in); moved != n {
				return o.pushdown(moved)
			}
		case *logical.Correlate:
			if moved := o.filterBelowCorrelate(f, in); moved != n {
				return o.pushdown(moved)
			}
		case *logical.Project:
			if sub, ok := substitute(f.Cond, in.Exprs); ok {
				o.fire("pushdown", f.S, "the filter reads only columns passed through unchanged, so it runs below the projection")
				p := shallowCopy(in)
				p.Input = &logical.Filter{Input: in.Input, Cond: sub, S: f.S}
				return o.pushdown(p)
			}
		}
	case *logical.Join:
		n = o.joinCondIntoInputs(f)
	}
	return mapChildren(n, o.pushdown)
}

// substitute rewrites e over a projection's outputs into e over its input,
// when every output e reads is a plain column.
func substitute(e expr.Expr, exprs []expr.Expr) (expr.Expr, bool) {
	for _, i := range expr.Columns(e) {
		if _, ok := exprs[i].(*expr.Column); !ok {
			return nil, false
		}
	}
	return expr.Remap(e, func(i int) int { return exprs[i].(*expr.Column).Index }), true
}

// side says which join inputs an expression reads: 1 left, 2 right, 3 both,
// 0 neither.
func side(e expr.Expr, nLeft int) int {
	s := 0
	for _, i := range expr.Columns(e) {
		if i < nLeft {
			s |= 1
		} else {
			s |= 2
		}
	}
	return s
}

func shiftLeft(e expr.Expr, n int) expr.Expr { return expr.Remap(e, func(i int) int { return i - n }) }

func addFilter(n logical.Node, conds []expr.Expr, s diag.Span) logical.Node {
	if len(conds) == 0 {
		return n
	}
	return &logical.Filter{Input: n, Cond: expr.And(conds...), S: s}
}

func (o *optimizer) filterIntoJoin(f *logical.Filter, j *logical.Join) logical.Node {
	nL := len(j.Left.Columns())
	var keep, left, right, both []expr.Expr
	for _, c := range expr.Conjuncts(f.Cond) {
		switch s := side(c, nL); {
		case s == 1 && (j.Kind == ast.InnerJoin || j.Kind == ast.CrossJoin || j.Kind == ast.LeftJoin || isSemi(j.Kind)):
			left = append(left, c)
		case s == 2 && (j.Kind == ast.InnerJoin || j.Kind == ast.CrossJoin || j.Kind == ast.RightJoin) && j.AsOf == nil:
			right = append(right, shiftLeft(c, nL))
		case s == 3 && (j.Kind == ast.InnerJoin || j.Kind == ast.CrossJoin):
			both = append(both, c)
		default:
			keep = append(keep, c)
		}
	}
	if len(left)+len(right)+len(both) == 0 {
		return f
	}
	j = shallowCopy(j)
	if len(left) > 0 {
		o.fire("pushdown", f.S, "%d WHERE predicate(s) read only the left input of the %s JOIN", len(left), j.Kind)
	}
	if len(right) > 0 {
		o.fire("pushdown", f.S, "%d WHERE predicate(s) read only the right input of the %s JOIN", len(right), j.Kind)
	}
	if len(both) > 0 {
		o.fire("pushdown", f.S, "%d WHERE predicate(s) relate both inputs: they become part of the join condition", len(both))
		j.Cond = expr.And(append([]expr.Expr{j.Cond}, both...)...)
		if j.Kind == ast.CrossJoin {
			j.Kind = ast.InnerJoin
		}
	}
	j.Left = addFilter(j.Left, left, f.S)
	j.Right = addFilter(j.Right, right, f.S)
	return addFilter(j, keep, f.S)
}

func (o *optimizer) joinCondIntoInputs(j *logical.Join) logical.Node {
	if j.Cond == nil {
		return j
	}
	nL := len(j.Left.Columns())
	var keep, left, right []expr.Expr
	for _, c := range expr.Conjuncts(j.Cond) {
		switch s := side(c, nL); {
		case s == 1 && (j.Kind == ast.InnerJoin || j.Kind == ast.RightJoin || j.Kind == ast.SemiJoin):
			// (Not into the left of an anti join: a left row that fails
			// the predicate has no match, and is emitted.)
			left = append(left, c)
		case s == 2 && (j.Kind == ast.InnerJoin || j.Kind == ast.LeftJoin || isSemi(j.Kind)) && j.AsOf == nil:
			// (Not below a temporal join's versioned side: a version that
			// fails the predicate must still end the one before it, so the
			// join tests the version valid at the probe's time.)
			right = append(right, shiftLeft(c, nL))
		default:
			keep = append(keep, c)
		}
	}
	if len(left)+len(right) == 0 {
		return j
	}
	o.fire("pushdown", j.Keyword, "%d ON predicate(s) read only one input of the %s JOIN and filter it before the join", len(left)+len(right), j.Kind)
	j = shallowCopy(j)
	j.Left = addFilter(j.Left, left, j.Keyword)
	j.Right = addFilter(j.Right, right, j.Keyword)
	j.Cond = expr.And(keep...)
	return j
}

// ---- interval and temporal joins ----

func (o *optimizer) joins(n logical.Node) logical.Node {
	n = mapChildren(n, o.joins)
	j, ok := n.(*logical.Join)
	if !ok {
		return n
	}
	if j.AsOf != nil {
		return o.temporal(j)
	}
	if isSemi(j.Kind) {
		// Flink has no interval semi join: a semi or anti join stays a
		// regular one, whatever its condition says about time.
		return j
	}
	if ij := o.interval(j); ij != nil {
		return ij
	}
	return j
}

// isSemi reports whether a join is a semi or anti join (of a subquery):
// its output is its left input's columns only.
func isSemi(k ast.JoinKind) bool { return k == ast.SemiJoin || k == ast.AntiJoin }

// condCols are the columns a join's condition reads: the left input's,
// then the right input's.
func condCols(j *logical.Join) []logical.Column {
	if !isSemi(j.Kind) {
		return j.Cols
	}
	return append(append([]logical.Column(nil), j.Left.Columns()...), j.Right.Columns()...)
}

// timeRef is a time column plus a constant offset in milliseconds.
type timeRef struct {
	col    int
	offset int64
}

// timeOperand recognises col, col + INTERVAL, INTERVAL + col, col - INTERVAL.
func timeOperand(e expr.Expr) (timeRef, bool) {
	switch e := e.(type) {
	case *expr.Column:
		if e.T.Kind.IsTimestamp() {
			return timeRef{col: e.Index}, true
		}
	case *expr.Call:
		if len(e.Args) != 2 || e.Fn != "+" && e.Fn != "-" {
			return timeRef{}, false
		}
		c, cOK := e.Args[0].(*expr.Column)
		k, kOK := e.Args[1].(*expr.Const)
		if !cOK && e.Fn == "+" {
			c, cOK = e.Args[1].(*expr.Column)
			k, kOK = e.Args[0].(*expr.Const)
		}
		if !cOK || !kOK || k.T.Kind != types.Interval || !c.T.Kind.IsTimestamp() {
			return timeRef{}, false
		}
		ms, _ := k.V.(int64)
		if e.Fn == "-" {
			ms = -ms
		}
		return timeRef{col: c.Index, offset: ms}, true
	}
	return timeRef{}, false
}

// timeBound turns a comparison between a left and a right time column into
// a bound on left.time - right.time. op is one of >= > <= <.
type timeBound struct {
	lcol, rcol int // left index, right index (in the join's columns)
	op         string
	c          int64
}

func parseTimeBound(e expr.Expr, nL int) (timeBound, bool) {
	call, ok := e.(*expr.Call)
	if !ok || len(call.Args) != 2 {
		return timeBound{}, false
	}
	switch call.Fn {
	case ">=", ">", "<=", "<":
	default:
		return timeBound{}, false
	}
	a, okA := timeOperand(call.Args[0])
	b, okB := timeOperand(call.Args[1])
	if !okA || !okB {
		return timeBound{}, false
	}
	flip := map[string]string{">=": "<=", ">": "<", "<=": ">=", "<": ">"}
	switch {
	case a.col < nL && b.col >= nL:
		// l + oa op r + ob  =>  l - r op ob - oa
		return timeBound{a.col, b.col, call.Fn, b.offset - a.offset}, true
	case b.col < nL && a.col >= nL:
		// r + oa op l + ob  =>  l - r flip(op) oa - ob
		return timeBound{b.col, a.col, flip[call.Fn], a.offset - b.offset}, true
	}
	return timeBound{}, false
}

// precisionUnit is one unit of a timestamp precision in milliseconds (a
// strict bound shifts by it, as in Flink).
func precisionUnit(t types.T) int64 {
	u := int64(1)
	for p := t.Precision; p < 3; p++ {
		u *= 10
	}
	return u
}

// bounds is what a join condition says about the time between its two
// inputs: the bounds on left.time - right.time (both set, or the join is not
// an interval join), the conjuncts that are no such bound, and the
// comparisons between times of which one is no time attribute.
type bounds struct {
	lower, upper *int64
	lcol, rcol   int // in the join's columns
	rest         []expr.Expr
	plain        []expr.Expr
}

// intervalBounds reads the time bounds of a regular join's residual
// condition (nil when it has none).
func intervalBounds(j *logical.Join) *bounds {
	if j.Residual == nil {
		return nil
	}
	nL := len(j.Left.Columns())
	ltimes, rtimes := timeCols(j.Left), timeCols(j.Right)
	b := &bounds{lcol: -1, rcol: -1}
	for _, c := range expr.Conjuncts(j.Residual) {
		tb, ok := parseTimeBound(c, nL)
		if !ok {
			b.rest = append(b.rest, c)
			continue
		}
		lt, rt := ltimes[tb.lcol], rtimes[tb.rcol-nL]
		if lt == expr.NoTime || rt == expr.NoTime || lt != rt || b.lcol >= 0 && (tb.lcol != b.lcol || tb.rcol != b.rcol) {
			if lt == expr.NoTime || rt == expr.NoTime {
				b.plain = append(b.plain, c)
			}
			b.rest = append(b.rest, c)
			continue
		}
		b.lcol, b.rcol = tb.lcol, tb.rcol
		unit := precisionUnit(j.Cols[tb.lcol].Type)
		switch tb.op {
		case ">=", ">":
			v := tb.c
			if tb.op == ">" {
				v += unit
			}
			if b.lower == nil || v > *b.lower {
				b.lower = &v
			}
		case "<=", "<":
			v := tb.c
			if tb.op == "<" {
				v -= unit
			}
			if b.upper == nil || v < *b.upper {
				b.upper = &v
			}
		}
	}
	return b
}

// interval turns a join whose condition bounds the time between its inputs
// from both sides into an IntervalJoin, or returns nil.
func (o *optimizer) interval(j *logical.Join) logical.Node {
	b := intervalBounds(j)
	if b == nil || b.lower == nil || b.upper == nil {
		return nil
	}
	nL := len(j.Left.Columns())
	ij := &logical.IntervalJoin{Kind: j.Kind, Left: j.Left, Right: j.Right, LeftTime: b.lcol, RightTime: b.rcol - nL,
		Lower: *b.lower, Upper: *b.upper, Keys: j.Keys, Residual: expr.And(b.rest...), Keyword: j.Keyword, Cols: j.Cols, S: j.S}
	if ij.Kind == ast.CrossJoin {
		ij.Kind = ast.InnerJoin
	}
	o.fire("interval", nodeSpan(j), "the join condition bounds %s - %s to [%s, %s]: rows wait only as long as a partner can arrive",
		colName(j.Cols, b.lcol), colName(j.Cols, b.rcol), expr.FormatMillis(ij.Lower), expr.FormatMillis(ij.Upper))
	return ij
}

// temporal turns a join FOR SYSTEM_TIME AS OF into a TemporalJoin (the
// check refuses it when the right input is no versioned table), a lookup
// join when AS OF a processing-time attribute (the check refuses it when
// the right input cannot be looked up).
func (o *optimizer) temporal(j *logical.Join) logical.Node {
	asOf := j.AsOf.(*expr.Column)
	tj := &logical.TemporalJoin{Kind: j.Kind, Left: j.Left, Right: j.Right, AsOf: asOf.Index, Keys: j.Keys,
		Residual: j.Residual, Keyword: j.Keyword, Cols: j.Cols, S: j.S}
	if asOf.Time == expr.ProcTime {
		tj.Lookup = true
		if versionedProblem(j) == nil {
			t := baseScan(j.Right).Table.Name
			o.fire("temporal", j.Keyword, "%s is joined AS OF %s, a processing-time attribute: a lookup join, each probe row queries the connector of %s by key when it arrives",
				t, asOf.Name, t)
		}
		return tj
	}
	if versionedProblem(j) == nil {
		o.fire("temporal", j.Keyword, "%s is versioned (primary key and watermark): each probe row joins the version valid at %s", baseScan(j.Right).Table.Name, asOf.Name)
	}
	return tj
}

// baseScan finds the scan under watermark assigners, changelog
// normalizers, filters, column projections and window TVFs: the table
// whose rows an operator input sees (for its name, its state TTL hint,
// where its late rows go).
func baseScan(n logical.Node) *logical.Scan {
	for {
		switch x := n.(type) {
		case *logical.Scan:
			return x
		case *logical.Window:
			n = x.Input
		case *logical.WatermarkAssigner:
			n = x.Input
		case *logical.ChangelogNormalize:
			n = x.Input
		case *logical.Filter:
			n = x.Input
		case *logical.Project:
			n = x.Input
		default:
			return nil
		}
	}
}

// ---- window aggregates ----

func (o *optimizer) windows(n logical.Node) logical.Node {
	n = mapChildren(n, o.windows)
	if j, ok := n.(*logical.Join); ok && j.AsOf == nil && !isSemi(j.Kind) {
		if wj := o.windowJoin(j); wj != nil {
			return wj
		}
		return n
	}
	a, ok := n.(*logical.Aggregate)
	if !ok {
		return n
	}
	w, start, end := windowOf(a.Input)
	if w == nil {
		return n
	}
	hasStart, hasEnd := false, false
	for _, k := range a.Keys {
		if c, ok := k.(*expr.Column); ok {
			hasStart = hasStart || c.Index == start
			hasEnd = hasEnd || c.Index == end
		}
	}
	if !hasStart || !hasEnd {
		return n
	}
	o.fire("window", a.S, "the aggregate groups by window_start and window_end of %s: a window aggregate, which emits each window when the watermark passes its end", w.Func)
	return &logical.WindowAggregate{Input: a.Input, Keys: a.Keys, Aggs: a.Aggs, Cols: a.Cols, S: a.S}
}

// windowJoin recognises a join of two windowed inputs with the same window
// whose condition equates both window_start and window_end: each window's
// rows are joined once, when the watermark passes its end (Flink's window
// join).
func (o *optimizer) windowJoin(j *logical.Join) logical.Node {
	if len(j.Keys) == 0 || j.Kind == ast.CrossJoin {
		return nil
	}
	lw, ls, le := windowCols(j.Left)
	rw, rs, re := windowCols(j.Right)
	if lw == nil || rw == nil || ls < 0 || le < 0 || rs < 0 || re < 0 || !sameWindow(lw, rw) {
		return nil
	}
	hasStart, hasEnd := false, false
	for _, k := range j.Keys {
		a, aok := k.Left.(*expr.Column)
		b, bok := k.Right.(*expr.Column)
		if !aok || !bok {
			continue
		}
		hasStart = hasStart || a.Index == ls && b.Index == rs
		hasEnd = hasEnd || a.Index == le && b.Index == re
	}
	if !hasStart || !hasEnd {
		return nil
	}
	o.fire("windowjoin", j.Keyword, "both inputs are windowed by %s and the condition equates their window_start and window_end: each window's rows are joined once, when the watermark passes its end, then freed", lw.Func)
	return &logical.WindowJoin{Kind: j.Kind, Left: j.Left, Right: j.Right, LeftStart: ls, LeftEnd: le,
		RightStart: rs, RightEnd: re, Window: lw, Keys: j.Keys, Residual: j.Residual, Keyword: j.Keyword, Cols: j.Cols, S: j.S}
}

func sameWindow(a, b *logical.Window) bool {
	return a.Func == b.Func && a.Size == b.Size && a.Slide == b.Slide && a.Step == b.Step && a.Offset == b.Offset
}

// windowCols is windowOf through window aggregates too: a window
// aggregate grouped by window_start and window_end keeps them as columns.
func windowCols(n logical.Node) (*logical.Window, int, int) {
	switch x := n.(type) {
	case *logical.WindowAggregate:
		w, s, e := windowOf(x.Input)
		if w == nil {
			return nil, -1, -1
		}
		ns, ne := passedThrough(x.Keys, s, e)
		return w, ns, ne
	case *logical.Filter:
		return windowCols(x.Input)
	case *logical.Project:
		w, s, e := windowCols(x.Input)
		if w == nil {
			return nil, -1, -1
		}
		ns, ne := passedThrough(x.Exprs, s, e)
		return w, ns, ne
	}
	return windowOf(n)
}

// passedThrough returns where exprs (a projection's, an aggregate's keys)
// pass input columns s and e through unchanged, or -1.
func passedThrough(exprs []expr.Expr, s, e int) (ns, ne int) {
	ns, ne = -1, -1
	for i, ex := range exprs {
		if c, ok := ex.(*expr.Column); ok {
			if c.Index == s {
				ns = i
			}
			if c.Index == e {
				ne = i
			}
		}
	}
	return ns, ne
}

// windowOf finds a window TVF under filters, column projections and UNNEST, and the
// indexes of window_start and window_end in n's columns.
func windowOf(n logical.Node) (*logical.Window, int, int) {
	w, ok := windowColumns(n)
	if !ok {
		return nil, 0, 0
	}
	return w.w, w.start, w.end
}

// windowIdx is where a window TVF's columns are in the columns of a node
// above it: window_start, window_end, window_time and the rows' own time
// column (-1 where a projection dropped one).
type windowIdx struct {
	w                      *logical.Window
	start, end, time, orig int
}

// windowColumns finds a window TVF under filters, column projections and
// UNNEST (a Correlate keeps its input's columns first, at the same
// indexes, and every row it expands has its input row's window, as
// Flink keeps window_start, window_end and window_time through a
// correlate), and where its columns are in n's.
func windowColumns(n logical.Node) (windowIdx, bool) {
	switch x := n.(type) {
	case *logical.Window:
		k := len(x.Cols)
		return windowIdx{w: x, start: k - 3, end: k - 2, time: k - 1, orig: x.TimeCol}, true
	case *logical.Filter:
		return windowColumns(x.Input)
	case *logical.Correlate:
		return windowColumns(x.Input)
	case *logical.Project:
		w, ok := windowColumns(x.Input)
		if !ok {
			return w, false
		}
		out := windowIdx{w: w.w, start: -1, end: -1, time: -1, orig: -1}
		for i, ex := range x.Exprs {
			if c, isCol := ex.(*expr.Column); isCol {
				switch c.Index {
				case w.start:
					out.start = i
				case w.end:
					out.end = i
				case w.time:
					out.time = i
				case w.orig:
					out.orig = i
				}
			}
		}
		return out, true
	}
	return windowIdx{}, false
}

// ---- projections ----

// inline replaces each column reference of e by the expression it names.
func inline(e expr.Expr, exprs []expr.Expr) expr.Expr {
	switch x := e.(type) {
	case *expr.Column:
		return exprs[x.Index]
	case *expr.Call:
		c := *x
		c.Args = make([]expr.Expr, len(x.Args))
		for i, a := range x.Args {
			c.Args[i] = inline(a, exprs)
		}
		return &c
	}
	return e
}

func isIdentity(p *logical.Project) bool {
	in := p.Input.Columns()
	if len(p.Exprs) != len(in) {
		return false
	}
	for i, e := range p.Exprs {
		c, ok := e.(*expr.Column)
		if !ok || c.Index != i || in[i].Name != p.Cols[i].Name {
			return false
		}
	}
	return true
}

func (o *optimizer) projects(n logical.Node) logical.Node {
	n = mapChildren(n, o.projects)
	p, ok := n.(*logical.Project)
	if !ok {
		return n
	}
	merged := 0
	for {
		inner, ok := p.Input.(*logical.Project)
		if !ok {
			break
		}
		exprs := make([]expr.Expr, len(p.Exprs))
		for i, e := range p.Exprs {
			exprs[i] = inline(e, inner.Exprs)
		}
		p = &logical.Project{Input: inner.Input, Exprs: exprs, Cols: p.Cols, S: p.S}
		merged++
	}
	if merged > 0 {
		o.fire("project", p.S, "%d projection(s) merged into the one above", merged)
	}
	if isIdentity(p) {
		o.fire("project", p.S, "a projection that passes every column through unchanged is dropped")
		return p.Input
	}
	return p
}

// ---- projection pruning ----

func (o *optimizer) prune(root logical.Node) logical.Node {
	need := make([]bool, len(root.Columns()))
	for i := range need {
		need[i] = true
	}
	return o.require(root, need)
}

func mark(need []bool, e expr.Expr, offset int) {
	if e == nil {
		return
	}
	for _, i := range expr.Columns(e) {
		if j := i - offset; j >= 0 && j < len(need) {
			need[j] = true
		}
	}
}

// require records which columns of n its consumer reads, and passes the
// requirement down; it returns n with its scans marked.
func (o *optimizer) require(n logical.Node, need []bool) logical.Node {
	one := func(in logical.Node) logical.Node { return withChildren(n, []logical.Node{in}) }
	switch x := n.(type) {
	case *logical.Scan:
		used := append([]bool(nil), need...)
		// A changelog is applied by its key, which the scan then reads.
		if c := x.Table.Config; c != nil && c.Spec != nil && c.SourceMode() != connectors.InsertOnly {
			for _, k := range x.Table.PrimaryKey {
				used[k] = true
			}
		}
		// Late rows are written to the table's dead-letter file as the
		// operator that found them late sees them: with every column.
		if c := x.Table.Config; c != nil && c.Has("scan.late-rows.path") {
			for i := range used {
				used[i] = true
			}
		}
		// A computed column needs the columns it is computed from.
		for i, c := range x.Table.Columns {
			if used[i] && c.Expr != nil {
				mark(used, c.Expr, 0)
			}
		}
		s := shallowCopy(x)
		s.Used = used
		n := 0
		var names []string
		for i, u := range used {
			if u {
				n++
				names = append(names, x.Table.Columns[i].Name)
			}
		}
		if n < len(used) {
			o.fire("prune", x.S, "%s: the plan reads %d of %d columns (%s)", x.Table.Name, n, len(used), strings.Join(names, ", "))
		}
		return s
	case *logical.Values:
		return x
	case *logical.WatermarkAssigner:
		in := append([]bool(nil), need...)
		in[x.TimeCol] = true
		return one(o.require(x.Input, in))
	case *logical.Filter:
		in := append([]bool(nil), need...)
		mark(in, x.Cond, 0)
		return one(o.require(x.Input, in))
	case *logical.Correlate:
		in := append([]bool(nil), need[:len(x.Input.Columns())]...)
		mark(in, x.Expr, 0)
		return one(o.require(x.Input, in))
	case *logical.Project:
		in := make([]bool, len(x.Input.Columns()))
		for i, e := range x.Exprs {
			if need[i] {
				mark(in, e, 0)
			}
		}
		return one(o.require(x.Input, in))
	case *logical.Join:
		all := append([]bool(nil), need...)
		if isSemi(x.Kind) {
			// Its condition reads the right input's columns too.
			all = append(all, make([]bool, len(x.Right.Columns()))...)
		}
		mark(all, x.AsOf, 0)
		return o.requireJoin(x, all, x.Keys, x.Residual)
	case *logical.IntervalJoin:
		nL := len(x.Left.Columns())
		all := append([]bool(nil), need...)
		all[x.LeftTime], all[nL+x.RightTime] = true, true
		return o.requireJoin(x, all, x.Keys, x.Residual)
	case *logical.TemporalJoin:
		all := append([]bool(nil), need...)
		all[x.AsOf] = true
		return o.requireJoin(x, all, x.Keys, x.Residual)
	case *logical.WindowJoin:
		return o.requireJoin(x, need, x.Keys, x.Residual)
	case *logical.Window:
		nIn := len(x.Input.Columns())
		in := append([]bool(nil), need[:nIn]...)
		in[x.TimeCol] = true
		return one(o.require(x.Input, in))
	case *logical.Aggregate:
		return one(o.requireAgg(x.Input, x.Keys, x.Aggs))
	case *logical.WindowAggregate:
		return one(o.requireAgg(x.Input, x.Keys, x.Aggs))
	case *logical.Union:
		ins := make([]logical.Node, len(x.Inputs))
		for i, in := range x.Inputs {
			ins[i] = o.require(in, append([]bool(nil), need...))
		}
		return withChildren(x, ins)
	case *logical.OverAggregate:
		nIn := len(x.Input.Columns())
		in := append([]bool(nil), need[:nIn]...)
		in[x.TimeCol] = true
		for _, p := range x.Partition {
			mark(in, p, 0)
		}
		for _, a := range x.Aggs {
			for _, arg := range a.Args {
				mark(in, arg, 0)
			}
		}
		for _, k := range x.SortKeys {
			mark(in, k.Expr, 0)
		}
		return one(o.require(x.Input, in))
	case *logical.Rank:
		nIn := len(x.Input.Columns())
		in := append([]bool(nil), need[:nIn]...)
		for _, p := range x.Partition {
			mark(in, p, 0)
		}
		for _, k := range x.Order {
			mark(in, k.Expr, 0)
		}
		r := one(o.require(x.Input, in)).(*logical.Rank)
		if x.RankCol && !need[nIn] {
			// Nothing reads the row number: the Rank does not compute it
			// (its column stays, a constant 0, so that the columns of the
			// nodes above keep their places).
			r.RankCol = false
		}
		return r
	case *logical.Sink:
		all := make([]bool, len(x.Input.Columns()))
		for i := range all {
			all[i] = true
		}
		return one(o.require(x.Input, all))
	default:
		panic(fmt.Sprintf("require: unknown node %T", n))
	}
}

// requireJoin passes down what a join of the two inputs of n reads.
func (o *optimizer) requireJoin(n logical.Node, need []bool, keys []logical.JoinKey, residual expr.Expr) logical.Node {
	cs := logical.Children(n)
	l, r := cs[0], cs[1]
	all := append([]bool(nil), need...)
	mark(all, residual, 0)
	nL := len(l.Columns())
	left, right := all[:nL], all[nL:]
	for _, k := range keys {
		mark(left, k.Left, 0)
		mark(right, k.Right, 0)
	}
	return withChildren(n, []logical.Node{o.require(l, left), o.require(r, right)})
}

func (o *optimizer) requireAgg(in logical.Node, keys []expr.Expr, aggs []*logical.AggCall) logical.Node {
	need := make([]bool, len(in.Columns()))
	for _, k := range keys {
		mark(need, k, 0)
	}
	for _, a := range aggs {
		for _, x := range a.Args {
			mark(need, x, 0)
		}
	}
	return o.require(in, need)
}
