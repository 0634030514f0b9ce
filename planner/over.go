package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// OVER windows in the select list. A ranking function (ROW_NUMBER) becomes
// a logical.Rank under the select list's projection, its number the
// Rank's last column; the rank rule (rank.go) then takes the filter on
// that number from the query above.

// overCall returns the first window function call of q's select list.
func overCall(q *ast.Select) *ast.FuncCall {
	var found *ast.FuncCall
	for _, f := range q.Fields {
		if f.Expr == nil {
			continue
		}
		ast.Inspect(f.Expr, func(x ast.Expr) bool {
			if fc, ok := x.(*ast.FuncCall); ok && fc.Over != nil && found == nil {
				found = fc
			}
			return found == nil
		})
	}
	return found
}

func hasOver(q *ast.Select) bool { return overCall(q) != nil }

// rankingFunctions are the ranking window functions; ROW_NUMBER runs.
var rankingFunctions = map[string]bool{"ROW_NUMBER": true, "RANK": true, "DENSE_RANK": true,
	"PERCENT_RANK": true, "CUME_DIST": true, "NTILE": true}

// windowSpec resolves a window reference against the WINDOW clause: OVER w,
// or OVER (w ...) adding to w's definition.
func (b *binder) windowSpec(q *ast.Select, s *ast.WindowSpec) *ast.WindowSpec {
	if s.Ref == nil {
		return s
	}
	for _, nw := range q.Windows {
		if strings.EqualFold(nw.Name.Name, s.Ref.Name) {
			base := b.windowSpec(q, nw.Spec)
			if base == nil {
				return nil
			}
			out := *base
			out.S = s.S
			if len(s.PartitionBy) > 0 {
				b.errorf(diag.UnsupportedSyntax, s.PartitionBy[0].Span(), "a window that names window %s cannot add PARTITION BY to it", nw.Name.Name)
				return nil
			}
			if len(s.OrderBy) > 0 {
				if len(base.OrderBy) > 0 {
					b.errorf(diag.UnsupportedSyntax, s.OrderBy[0].S, "window %s already has an ORDER BY", nw.Name.Name)
					return nil
				}
				out.OrderBy = s.OrderBy
			}
			if s.Frame != nil {
				out.Frame = s.Frame
			}
			return &out
		}
	}
	var names []string
	for _, nw := range q.Windows {
		names = append(names, nw.Name.Name)
	}
	d := b.errorf(diag.UnknownTable, s.Ref.S, "unknown window %s: the query's WINDOW clause does not define it", s.Ref.Name)
	if sg := diag.Suggest(s.Ref.Name, names); sg != "" {
		d.WithHint("did you mean %s?", sg)
	}
	return nil
}

// overQuery binds a SELECT whose select list calls a window function.
func (b *binder) overQuery(q *ast.Select, node logical.Node, scope *expr.Scope, tables []expr.ScopeTable) logical.Node {
	call := overCall(q)
	name := strings.ToUpper(call.Name.Name)
	for _, c := range overCalls(q) {
		if n := strings.ToUpper(c.Name.Name); n == "JSON_OBJECTAGG" || n == "JSON_ARRAYAGG" {
			b.errorf(diag.UnsupportedFeature, c.S, "%s(...) OVER is not supported, as in Flink (its JSON aggregates do not run in OVER windows)", n).
				WithHint("aggregate with GROUP BY (or a window TVF) instead")
			return nil
		}
		if c.Filter != nil {
			b.errorf(diag.UnsupportedFeature, c.Filter.Span(), "FILTER (WHERE ...) is not supported on a window function (OVER); filter the rows in a subquery")
			return nil
		}
	}
	if name == "LEAD" {
		b.errorf(diag.UnsupportedFeature, call.Name.S, "LEAD(...) OVER is not supported on a stream, as in Flink (\"LEAD Function is not supported in stream mode\"): a row would wait for the rows after it").
			WithHint("look back instead: LAG(x) OVER (PARTITION BY … ORDER BY time) gives each row the value of the row before it")
		return nil
	}
	if expr.IsAggregate(name) || name == "LAG" {
		return b.overAggregate(q, node, scope, tables)
	}
	if !rankingFunctions[name] {
		b.errorf(diag.UnsupportedFeature, call.S, "%s(...) OVER is not supported yet; of the window functions, ROW_NUMBER (Top-N and deduplication) and LAG run", name)
		return nil
	}
	if name != "ROW_NUMBER" {
		b.errorf(diag.UnsupportedFeature, call.Name.S, "%s() is not supported on a stream, as in Flink (\"%s() on streaming table is not supported currently\")", name, name).
			WithHint("number the rows with ROW_NUMBER() instead: rows that tie on the ORDER BY are numbered in arrival order")
		return nil
	}
	if len(call.Args) > 0 || call.Star || call.Distinct {
		b.errorf(diag.WrongArguments, call.S, "ROW_NUMBER takes no arguments")
		return nil
	}
	spec := b.windowSpec(q, call.Over)
	if spec == nil {
		return nil
	}
	if spec.Frame != nil {
		b.errorf(diag.UnsupportedSyntax, spec.Frame.S, "ROW_NUMBER numbers the whole partition: it takes no ROWS or RANGE frame")
		return nil
	}
	if len(spec.OrderBy) == 0 {
		b.errorf(diag.OverWindow, call.Over.S, "ROW_NUMBER needs an ORDER BY in its OVER clause: it numbers each partition's rows in that order")
		return nil
	}
	in := node.Columns()
	bd := &expr.Binder{Scope: scope, L: b.l, Clause: "PARTITION BY"}
	rank := &logical.Rank{Input: node, Func: name, Start: 1, RankCol: true, FuncSpan: call.S, S: call.S}
	for _, p := range spec.PartitionBy {
		x := bd.Bind(p)
		if x == nil {
			return nil
		}
		rank.Partition = append(rank.Partition, x)
	}
	bd.Clause = "the ORDER BY of OVER"
	for _, o := range spec.OrderBy {
		x := bd.Bind(o.Expr)
		if x == nil {
			return nil
		}
		if !types.Orderable(x.Type(), x.Type()) {
			b.errorf(diag.TypeMismatch, o.S, "cannot order by %s: %s values have no order", ast.Format(o.Expr), x.Type())
			return nil
		}
		rank.Order = append(rank.Order, logical.SortKey{Expr: x, Desc: o.Desc})
	}
	rnName := "rn"
	for _, f := range q.Fields {
		if f.Expr == call && f.Alias != nil {
			rnName = f.Alias.Name
		}
	}
	rank.Cols = append(append([]logical.Column(nil), in...), logical.Column{Name: rnName, Type: types.New(types.BigInt).NotNull()})
	// The select list sees the input's columns and, through the hook, the
	// row number (a column without a name, so that * leaves it out).
	rs := &expr.Scope{Tables: scope.Tables, Cols: append(append([]expr.ScopeColumn(nil), scope.Cols...), expr.ScopeColumn{T: rank.Cols[len(in)].Type})}
	rnIdx := len(in)
	failed := false
	hook := func(e ast.Expr) (expr.Expr, bool) {
		if cr, ok := e.(*ast.ColumnRef); ok {
			// Bound as without the hook (the select list's * asks too).
			i := rs.Resolve(cr, b.l)
			if i < 0 {
				failed = true
				return &expr.Const{T: types.New(types.Null), S: cr.S}, true
			}
			c := rs.Cols[i]
			return &expr.Column{Index: i, Name: c.Name, T: c.T, Time: c.Time, S: cr.S}, true
		}
		fc, ok := e.(*ast.FuncCall)
		if !ok || fc.Over == nil {
			return nil, false
		}
		if fc != call {
			b.errorf(diag.UnsupportedFeature, fc.S, "only one window function per query is supported; number the rows in a subquery")
			failed = true
			return &expr.Const{T: types.New(types.Null), S: fc.S}, true
		}
		return &expr.Column{Index: rnIdx, Name: rnName, T: rank.Cols[rnIdx].Type, S: fc.S}, true
	}
	p := b.project(q, rank, rs, tables, hook)
	if p == nil || failed {
		return nil
	}
	return p
}

// overCalls returns every window function call of q's select list, in
// order.
func overCalls(q *ast.Select) []*ast.FuncCall {
	var out []*ast.FuncCall
	for _, f := range q.Fields {
		if f.Expr == nil {
			continue
		}
		ast.Inspect(f.Expr, func(x ast.Expr) bool {
			if fc, ok := x.(*ast.FuncCall); ok && fc.Over != nil {
				out = append(out, fc)
				return false
			}
			return true
		})
	}
	return out
}

// overAggregate binds a SELECT whose select list computes aggregates OVER
// a window: all over one window (as Flink requires), ordered by an
// event-time attribute, framed from rows or an interval before the row (or
// UNBOUNDED PRECEDING) to the current row.
func (b *binder) overAggregate(q *ast.Select, node logical.Node, scope *expr.Scope, tables []expr.ScopeTable) logical.Node {
	calls := overCalls(q)
	spec := b.windowSpec(q, calls[0].Over)
	if spec == nil {
		return nil
	}
	for _, c := range calls[1:] {
		name := strings.ToUpper(c.Name.Name)
		if name == "LEAD" {
			b.errorf(diag.UnsupportedFeature, c.Name.S, "LEAD(...) OVER is not supported on a stream, as in Flink (\"LEAD Function is not supported in stream mode\"): a row would wait for the rows after it").
				WithHint("look back instead: LAG(x) OVER (PARTITION BY … ORDER BY time) gives each row the value of the row before it")
			return nil
		}
		if !expr.IsAggregate(name) && name != "LAG" {
			b.errorf(diag.UnsupportedFeature, c.S, "%s(...) OVER is not supported with OVER aggregates in one query", name)
			return nil
		}
		other := b.windowSpec(q, c.Over)
		if other == nil {
			return nil
		}
		if overWindowText(other) != overWindowText(spec) {
			b.errorf(diag.UnsupportedFeature, c.Over.S, "all OVER aggregates of a query must use the same window, as in Flink: this one differs from %s", overWindowText(spec)).
				WithHint("name the window once (WINDOW w AS (...)) and write OVER w")
			return nil
		}
	}
	in := node.Columns()
	over := &logical.OverAggregate{Input: node, Preceding: -1, S: calls[0].S}
	if len(spec.OrderBy) != 1 || spec.OrderBy[0].Desc {
		b.errorf(diag.OverWindow, spec.S, "an OVER aggregate must be ordered by one event-time attribute, ascending (ORDER BY ts)")
		return nil
	}
	ref, isRef := spec.OrderBy[0].Expr.(*ast.ColumnRef)
	idx := -1
	if isRef {
		idx = scope.Resolve(ref, b.l)
		if idx < 0 {
			return nil
		}
	}
	if idx < 0 || in[idx].Time == expr.NoTime {
		b.errorf(diag.OverWindow, spec.OrderBy[0].S, "an OVER aggregate must be ordered by a time attribute (a column with a WATERMARK, or one computed by PROCTIME()), but %s is not one", ast.Format(spec.OrderBy[0].Expr))
		return nil
	}
	over.TimeCol = idx
	over.ProcTime = in[idx].Time == expr.ProcTime
	for _, c := range calls {
		if strings.EqualFold(c.Name.Name, "LAG") && spec.Frame != nil {
			b.errorf(diag.UnsupportedSyntax, spec.Frame.S, "LAG looks back over the whole partition: it takes no ROWS or RANGE frame, as in Flink").
				WithHint("leave the frame out: LAG(x) OVER (PARTITION BY … ORDER BY %s)", ast.Format(spec.OrderBy[0].Expr))
			return nil
		}
	}
	if f := spec.Frame; f != nil {
		over.Rows = f.Rows
		if f.End.Kind != ast.CurrentRow {
			b.errorf(diag.OverWindow, f.End.S, "an OVER window on a stream must end at CURRENT ROW: later rows are not known yet")
			return nil
		}
		switch f.Start.Kind {
		case ast.UnboundedPreceding:
		case ast.Preceding:
			if f.Rows {
				lit, ok := f.Start.Offset.(*ast.Literal)
				n, err := int64(0), error(nil)
				if ok && lit.Kind == ast.IntLit {
					n, err = strconv.ParseInt(lit.Raw, 10, 64)
				}
				if !ok || lit.Kind != ast.IntLit || err != nil {
					b.errorf(diag.OverWindow, f.Start.S, "ROWS takes a number of rows before the current one, as in ROWS BETWEEN 10 PRECEDING AND CURRENT ROW")
					return nil
				}
				over.Preceding = n
			} else {
				if over.ProcTime {
					b.errorf(diag.UnsupportedFeature, f.S, "RANGE BETWEEN an interval PRECEDING over the processing-time attribute %s is not supported yet", ast.Format(spec.OrderBy[0].Expr)).
						WithHint("count rows instead (ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), or order by an event-time attribute (a column with a WATERMARK)")
					return nil
				}
				iv, ok := f.Start.Offset.(*ast.IntervalLit)
				if !ok || iv.YearMonth || iv.Millis < 0 {
					b.errorf(diag.OverWindow, f.Start.S, "RANGE takes a day-time interval before the current row, as in RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW")
					return nil
				}
				over.Preceding = iv.Millis
			}
		default:
			b.errorf(diag.OverWindow, f.Start.S, "an OVER window on a stream must start before the current row (n PRECEDING or UNBOUNDED PRECEDING)")
			return nil
		}
	}
	bd := &expr.Binder{Scope: scope, L: b.l, Clause: "PARTITION BY"}
	for _, p := range spec.PartitionBy {
		x := bd.Bind(p)
		if x == nil {
			return nil
		}
		over.Partition = append(over.Partition, x)
	}
	over.Cols = append([]logical.Column(nil), in...)
	cols := append([]expr.ScopeColumn(nil), scope.Cols...)
	byText := map[string]int{}
	argB := &expr.Binder{Scope: scope, L: b.l, Clause: "an OVER aggregate"}
	for _, c := range calls {
		text := ast.Format(&ast.FuncCall{Name: c.Name, Args: c.Args, Star: c.Star, Distinct: c.Distinct})
		if _, ok := byText[text]; ok {
			continue
		}
		name := strings.ToUpper(c.Name.Name)
		if name == "LAG" {
			call := b.lagCall(c, argB)
			if call == nil {
				return nil
			}
			byText[text] = len(over.Cols)
			over.Aggs = append(over.Aggs, call)
			over.Cols = append(over.Cols, logical.Column{Name: fmt.Sprintf("w0$o%d", len(over.Aggs)-1), Type: call.T})
			cols = append(cols, expr.ScopeColumn{T: call.T})
			continue
		}
		call := &logical.AggCall{Fn: name, Distinct: c.Distinct, Star: c.Star, S: c.S}
		for _, a := range c.Args {
			x := argB.Bind(a)
			if x == nil {
				return nil
			}
			call.Args = append(call.Args, x)
		}
		if c.Star && name != "COUNT" {
			b.errorf(diag.WrongArguments, c.S, "only COUNT accepts *")
			return nil
		}
		if !c.Star && len(c.Args) == 0 {
			b.errorf(diag.WrongArguments, c.S, "%s needs an argument", name)
			return nil
		}
		t, msg := expr.AggregateType(name, call.Args)
		if msg != "" {
			b.errorf(diag.WrongArguments, c.S, "%s", msg)
			return nil
		}
		call.T = t
		byText[text] = len(over.Cols)
		over.Aggs = append(over.Aggs, call)
		over.Cols = append(over.Cols, logical.Column{Name: fmt.Sprintf("w0$o%d", len(over.Aggs)-1), Type: t})
		cols = append(cols, expr.ScopeColumn{T: t})
	}
	rs := &expr.Scope{Tables: scope.Tables, Cols: cols}
	failed := false
	hook := func(e ast.Expr) (expr.Expr, bool) {
		if cr, ok := e.(*ast.ColumnRef); ok {
			i := rs.Resolve(cr, b.l)
			if i < 0 {
				failed = true
				return &expr.Const{T: types.New(types.Null), S: cr.S}, true
			}
			c := rs.Cols[i]
			return &expr.Column{Index: i, Name: c.Name, T: c.T, Time: c.Time, S: cr.S}, true
		}
		fc, ok := e.(*ast.FuncCall)
		if !ok || fc.Over == nil {
			return nil, false
		}
		i := byText[ast.Format(&ast.FuncCall{Name: fc.Name, Args: fc.Args, Star: fc.Star, Distinct: fc.Distinct})]
		return &expr.Column{Index: i, Name: over.Cols[i].Name, T: over.Cols[i].Type, S: fc.S}, true
	}
	p := b.project(q, over, rs, tables, hook)
	if p == nil || failed {
		return nil
	}
	return p
}

// overWindowText is a resolved window, to compare two.
func overWindowText(s *ast.WindowSpec) string {
	return strings.TrimPrefix(ast.Format(&ast.FuncCall{Name: &ast.Ident{Name: "F"}, Over: &ast.WindowSpec{PartitionBy: s.PartitionBy, OrderBy: s.OrderBy, Frame: s.Frame}}), "F() OVER ")
}

// lagCall binds LAG(x [, offset [, default]]) (Flink's LagAggFunction): x
// of the row offset rows before (1 unless given; an integer literal, 0 the
// row itself), default (a constant; NULL unless given) where the partition
// has fewer rows before. Its arguments become x and default cast to the
// result type (their common type, nullable) and the offset as a constant.
func (b *binder) lagCall(c *ast.FuncCall, argB *expr.Binder) *logical.AggCall {
	if c.Star || c.Distinct || len(c.Args) == 0 || len(c.Args) > 3 {
		b.errorf(diag.WrongArguments, c.S, "LAG takes a value, an optional offset and an optional default: LAG(x [, offset [, default]])")
		return nil
	}
	x := argB.Bind(c.Args[0])
	if x == nil {
		return nil
	}
	offset := int64(1)
	if len(c.Args) > 1 {
		lit, ok := c.Args[1].(*ast.Literal)
		var err error
		if ok && lit.Kind == ast.IntLit {
			offset, err = strconv.ParseInt(lit.Raw, 10, 64)
		}
		if !ok || lit.Kind != ast.IntLit || err != nil || offset < 0 || offset > maxLagOffset {
			b.errorf(diag.WrongArguments, c.Args[1].Span(), "LAG's offset must be an integer literal from 0 to %d (the number of rows back), but it is %s", maxLagOffset, ast.Format(c.Args[1]))
			return nil
		}
	}
	t := x.Type()
	var def expr.Expr
	if len(c.Args) > 2 {
		def = argB.Bind(c.Args[2])
		if def == nil {
			return nil
		}
		if len(expr.Columns(def)) > 0 {
			b.errorf(diag.WrongArguments, c.Args[2].Span(), "LAG's default must be a constant, but %s reads a column", ast.Format(c.Args[2]))
			return nil
		}
		if def.Type().Kind != types.Null {
			ct, ok := types.CommonType(t, def.Type())
			if !ok {
				b.errorf(diag.TypeMismatch, c.Args[2].Span(), "LAG's default %s is %s, which does not fit its value %s of type %s", ast.Format(c.Args[2]), def.Type(), ast.Format(c.Args[0]), t)
				return nil
			}
			t = ct
		}
	}
	t = t.WithNullable(true)
	cast := func(e expr.Expr) expr.Expr {
		if e.Type().WithNullable(true).String() == t.String() {
			return e
		}
		return &expr.Call{Fn: "CAST", Args: []expr.Expr{e}, T: t, S: e.Span()}
	}
	if def == nil || def.Type().Kind == types.Null {
		def = &expr.Const{T: t, S: c.S}
	} else {
		def = cast(def)
	}
	off := &expr.Const{V: offset, T: types.New(types.Int).NotNull(), S: c.S}
	return &logical.AggCall{Fn: "LAG", Args: []expr.Expr{cast(x), off, def}, T: t, S: c.S}
}

// maxLagOffset bounds LAG's offset: the operator keeps offset+1 values per
// partition.
const maxLagOffset = 1000
