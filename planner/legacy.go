package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/physical"
)

// Flink's legacy group windows: GROUP BY TUMBLE(ts, size), HOP(ts, slide,
// size) or SESSION(ts, gap), with TUMBLE_START/_END/_ROWTIME,
// HOP_START/_END/_ROWTIME and SESSION_START/_END/_ROWTIME in the select
// list and HAVING. They are lowered onto the window TVF: the grouping call
// becomes a logical.Window over the FROM (as TABLE(TUMBLE(...)) would
// make), grouped by its window_start and window_end; each auxiliary
// function is the window's window_start, window_end or window_time
// (_ROWTIME for a window over an event-time attribute, _PROCTIME for one
// over a PROCTIME() column: window_time is a time attribute of the same
// kind). The window's columns have no name in the query's scope, as in
// Flink, where the legacy window adds none: the query names them by the
// auxiliary calls only, so an input's own window_start (a view made by
// another legacy window) is never shadowed or ambiguous, and messages show
// the calls as written.
// The window rule then makes the aggregate a WindowAggregate, as for the
// TVF.

// legacyWindowFuncs are the grouping functions, with their interval
// arguments' names.
var legacyWindowFuncs = map[string][]string{"TUMBLE": {"size"}, "HOP": {"slide", "size"}, "SESSION": {"gap"}}

// legacyAux maps an auxiliary function to its window column.
var legacyAux = map[string]string{
	"TUMBLE_START": "window_start", "TUMBLE_END": "window_end", "TUMBLE_ROWTIME": "window_time", "TUMBLE_PROCTIME": "window_time",
	"HOP_START": "window_start", "HOP_END": "window_end", "HOP_ROWTIME": "window_time", "HOP_PROCTIME": "window_time",
	"SESSION_START": "window_start", "SESSION_END": "window_end", "SESSION_ROWTIME": "window_time", "SESSION_PROCTIME": "window_time",
}

// legacyWindowCall returns the GROUP BY item that is a legacy window call.
func legacyWindowCall(q *ast.Select) (int, *ast.FuncCall) {
	for i, g := range q.GroupBy {
		if fc, ok := g.(*ast.FuncCall); ok && fc.Over == nil && legacyWindowFuncs[strings.ToUpper(fc.Name.Name)] != nil {
			return i, fc
		}
	}
	return -1, nil
}

// legacyWindow rewrites a query grouped by a legacy window call onto a
// window TVF over node: it returns the query grouped by the window's
// columns instead (named by the calls TUMBLE_START(...), TUMBLE_END(...)),
// the Window node with its scope, and the hook that binds those calls in
// the GROUP BY. ok is false after an error was reported.
func (b *binder) legacyWindow(q *ast.Select, node logical.Node, scope *expr.Scope, tables []expr.ScopeTable) (*ast.Select, logical.Node, *expr.Scope, expr.Hook, bool) {
	at, call := legacyWindowCall(q)
	if call == nil {
		return q, node, scope, nil, true
	}
	fn := strings.ToUpper(call.Name.Name)
	names := legacyWindowFuncs[fn]
	if len(call.Args) != 1+len(names) {
		b.errorf(diag.WrongArguments, call.S, "%s takes a time attribute and %s, as in %s", fn, strings.Join(names, " and "), legacyExample(fn))
		return nil, nil, nil, nil, false
	}
	for i, g := range q.GroupBy {
		if fc, ok := g.(*ast.FuncCall); ok && i != at && legacyWindowFuncs[strings.ToUpper(fc.Name.Name)] != nil {
			b.errorf(diag.UnsupportedFeature, fc.S, "a query can group by one window only")
			return nil, nil, nil, nil, false
		}
	}
	ref, ok := call.Args[0].(*ast.ColumnRef)
	if !ok {
		b.errorf(diag.TimeAttribute, call.Args[0].Span(), "%s needs a time attribute column as its first argument, as in %s", fn, legacyExample(fn))
		return nil, nil, nil, nil, false
	}
	idx := scope.Resolve(ref, b.l)
	if idx < 0 {
		return nil, nil, nil, nil, false
	}
	cols := node.Columns()
	tc := cols[idx]
	switch tc.Time {
	case expr.NoTime:
		b.errorf(diag.TimeAttribute, ref.S, "%s(%s, ...): %s is not a time attribute", fn, ast.Format(ref), ast.Format(ref)).
			WithHint("declare WATERMARK FOR %s AS %s - INTERVAL '5' SECOND on the table", tc.Name, tc.Name)
		return nil, nil, nil, nil, false
	case expr.ProcTime, expr.RowTime:
	}
	win := &logical.Window{Input: node, Func: fn, TimeCol: idx, S: call.S}
	for i, a := range call.Args[1:] {
		iv, ok := a.(*ast.IntervalLit)
		if !ok || iv.YearMonth || iv.Millis <= 0 {
			b.errorf(diag.InvalidInterval, a.Span(), "the %s of %s must be a positive day-time interval such as INTERVAL '10' MINUTE", names[i], fn)
			return nil, nil, nil, nil, false
		}
		switch {
		case fn == "HOP" && i == 0:
			win.Slide = iv.Millis
		default:
			win.Size = iv.Millis
		}
	}
	if fn == "HOP" && win.Size%win.Slide != 0 {
		b.errorf(diag.InvalidInterval, call.Args[2].Span(), "HOP size %s must be a whole multiple of the slide %s", expr.FormatMillis(win.Size), expr.FormatMillis(win.Slide))
		return nil, nil, nil, nil, false
	}
	win.Cols = append(append([]logical.Column(nil), cols...), windowColumnsOf(tc, "")...)
	// The window's columns are not in the query's scope by name: the
	// query names them only by the auxiliary calls, so the input's own
	// columns (a view's window_start, say) keep their names. The GROUP BY
	// holds the calls TUMBLE_START(...) and TUMBLE_END(...) (and
	// TUMBLE_ROWTIME(...)); keys maps their text to the columns, for the
	// GROUP BY's binder, and the aggregate binds the select list's calls
	// as grouped expressions of the same text.
	timeSuffix := "_ROWTIME"
	if tc.Time == expr.ProcTime {
		timeSuffix = "_PROCTIME"
	}
	auxCall := func(suffix string, s diag.Span) *ast.FuncCall {
		return &ast.FuncCall{Loc: ast.Loc{S: s}, Name: &ast.Ident{Loc: ast.Loc{S: s}, Name: fn + suffix}, Args: call.Args}
	}
	k := len(win.Cols)
	keys := map[string]int{
		ast.Format(auxCall("_START", call.S)):   k - 3,
		ast.Format(auxCall("_END", call.S)):     k - 2,
		ast.Format(auxCall(timeSuffix, call.S)): k - 1,
	}
	out := *q
	out.GroupBy = nil
	for i, g := range q.GroupBy {
		if i == at {
			out.GroupBy = append(out.GroupBy, auxCall("_START", call.S), auxCall("_END", call.S))
			continue
		}
		out.GroupBy = append(out.GroupBy, g)
	}
	rowtime := false // a _ROWTIME call: window_time is grouped by too
	failed := false
	made := map[ast.Expr]bool{}
	aux := func(e ast.Expr) ast.Expr {
		fc, ok := e.(*ast.FuncCall)
		if !ok || fc.Over != nil {
			return e
		}
		name := strings.ToUpper(fc.Name.Name)
		col, isAux := legacyAux[name]
		if !isAux {
			return e
		}
		if !strings.HasPrefix(name, fn+"_") {
			b.errorf(diag.WrongArguments, fc.S, "%s does not match the query's window %s(...)", name, fn)
			failed = true
			return e
		}
		switch {
		case strings.HasSuffix(name, "_PROCTIME") && tc.Time != expr.ProcTime:
			b.errorf(diag.WrongArguments, fc.S, "%s needs a window over a processing-time attribute, but %s is an event-time attribute", name, tc.Name).
				WithHint("use %s_ROWTIME", fn)
			failed = true
			return e
		case strings.HasSuffix(name, "_ROWTIME") && tc.Time != expr.RowTime:
			b.errorf(diag.WrongArguments, fc.S, "%s needs a window over an event-time attribute, but %s is a processing-time attribute", name, tc.Name).
				WithHint("use %s_PROCTIME", fn)
			failed = true
			return e
		}
		if ast.Format(&ast.FuncCall{Name: call.Name, Args: fc.Args}) != ast.Format(&ast.FuncCall{Name: call.Name, Args: call.Args}) {
			b.errorf(diag.WrongArguments, fc.S, "%s must repeat the arguments of the GROUP BY's %s", ast.Format(fc), ast.Format(call))
			failed = true
			return e
		}
		rowtime = rowtime || col == "window_time"
		// The call as the GROUP BY holds it (upper case, its arguments).
		c := auxCall(strings.TrimPrefix(name, fn), fc.S)
		made[c] = true
		return c
	}
	out.Fields = make([]*ast.SelectItem, len(q.Fields))
	for i, f := range q.Fields {
		nf := *f
		if f.Expr != nil {
			nf.Expr = ast.Rewrite(f.Expr, aux)
			if nf.Alias == nil && made[nf.Expr] {
				// Named as Flink names an expression, not window_start.
				nf.Alias = &ast.Ident{Loc: f.Loc, Name: fmt.Sprintf("EXPR$%d", i)}
			}
		}
		out.Fields[i] = &nf
	}
	if q.Having != nil {
		out.Having = ast.Rewrite(q.Having, aux)
	}
	if failed {
		return nil, nil, nil, nil, false
	}
	if rowtime {
		// window_time is window_end - 1ms: the same groups.
		out.GroupBy = append(out.GroupBy, auxCall(timeSuffix, call.S))
	}
	sc := scopeOf(win.Cols, tables)
	for i := k - 3; i < k; i++ {
		sc.Cols[i].Name = "" // not to be named; see above
	}
	hook := func(e ast.Expr) (expr.Expr, bool) {
		fc, ok := e.(*ast.FuncCall)
		if !ok {
			return nil, false
		}
		i, ok := keys[ast.Format(fc)]
		if !ok {
			return nil, false
		}
		c := win.Cols[i]
		return &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: fc.S}, true
	}
	return &out, win, sc, hook, true
}

func legacyExample(fn string) string {
	switch fn {
	case "HOP":
		return "HOP(ts, INTERVAL '1' MINUTE, INTERVAL '10' MINUTE)"
	case "SESSION":
		return "SESSION(ts, INTERVAL '10' MINUTE)"
	}
	return "TUMBLE(ts, INTERVAL '10' MINUTE)"
}

// sessionOf says how a window aggregate over a SESSION window merges its
// rows' windows into sessions: per group of its keys other than the
// window's columns.
func sessionOf(a *logical.WindowAggregate, w windowIdx) (*physical.Session, error) {
	s := &physical.Session{StartKey: -1, EndKey: -1, TimeKey: -1, StartCol: w.start}
	for i, k := range a.Keys {
		c, isCol := k.(*expr.Column)
		switch {
		case isCol && c.Index == w.start:
			s.StartKey = i
		case isCol && c.Index == w.end:
			s.EndKey = i
		case isCol && c.Index == w.time:
			s.TimeKey = i
		default:
			s.Keys = append(s.Keys, k)
			s.KeyPos = append(s.KeyPos, i)
		}
	}
	if s.StartKey < 0 || s.EndKey < 0 || w.start < 0 {
		return nil, fmt.Errorf("internal: session window aggregate without window_start and window_end")
	}
	return s, nil
}

// checkSessions refuses a SESSION window that no window aggregate merges
// (a SESSION window alone gives each row a window of its own time, not
// its session), and a session aggregate that does not group by the
// window's PARTITION BY columns.
func (d *deriver) checkSessions(root logical.Node) {
	merged := map[*logical.Window]bool{}
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		if a, ok := n.(*logical.WindowAggregate); ok {
			if w, ok := windowColumns(a.Input); ok && w.w.Func == "SESSION" {
				merged[w.w] = true
				d.sessionPartition(a, w)
			}
		}
		if w, ok := n.(*logical.Window); ok && w.Func == "SESSION" && !merged[w] {
			d.l.Errorf(diag.UnsupportedFeature, w.S, "a SESSION window can only be aggregated (GROUP BY window_start, window_end, ...): its sessions are known when they end").
				WithHint("aggregate it, or use TUMBLE, HOP or CUMULATE")
		}
		for _, c := range logical.Children(n) {
			walk(c)
		}
	}
	walk(root)
}

// sessionPartition checks that a session aggregate groups by the
// window's PARTITION BY columns: sessions are per group.
func (d *deriver) sessionPartition(a *logical.WindowAggregate, w windowIdx) {
	cols := w.w.Input.Columns()
	for _, p := range w.w.Partition {
		found := false
		for _, k := range a.Keys {
			if c, ok := k.(*expr.Column); ok && c.Name == cols[p].Name {
				found = true
			}
		}
		if !found {
			d.l.Errorf(diag.UnsupportedFeature, w.w.S, "the session window is partitioned by %s, but the aggregate does not group by it: sessions are per group", cols[p].Name).
				WithHint("GROUP BY window_start, window_end, %s", cols[p].Name)
		}
	}
}
