package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// binder turns queries into logical plans, resolving names against the
// catalog and checking types. Errors are reported to l; a function returns
// nil after reporting.
type binder struct {
	cat   *catalog.Catalog
	l     *diag.List
	views []string // views being expanded, to catch a view that names itself
	// ctes are the common table expressions in scope, innermost last.
	ctes *cteScope
	// checked remembers the tables whose direction was checked.
	checked map[directionKey]bool
	// rebind binds the FROM and WHERE of the query block being bound
	// again, for the Expand of GROUPING SETS (grouping.go).
	rebind func() logical.Node
}

// errorf reports and returns nil, for one-line bail-outs.
func (b *binder) errorf(code diag.Code, sp diag.Span, format string, args ...any) *diag.Diagnostic {
	return b.l.Errorf(code, sp, format, args...)
}

func scopeOf(cols []logical.Column, tables []expr.ScopeTable) *expr.Scope {
	s := &expr.Scope{Tables: tables}
	for _, c := range cols {
		s.Cols = append(s.Cols, expr.ScopeColumn{Qualifier: c.Qualifier, Name: c.Name, T: c.Type, Time: c.Time})
	}
	return s
}

// rel is a bound FROM item: its plan and the qualifiers it brings.
type rel struct {
	node   logical.Node
	tables []expr.ScopeTable
}

// query binds a query.
func (b *binder) query(q ast.Query) logical.Node {
	switch q := q.(type) {
	case *ast.Select:
		return b.selectQuery(q)
	case *ast.SetOp:
		return b.setOp(q)
	case *ast.With:
		return b.with(q)
	}
	b.errorf(diag.UnsupportedSyntax, q.Span(), "unsupported query")
	return nil
}

// cteScope is one common table expression in scope, and the scope it was
// defined in (which its query is bound in: it sees the ones before it, not
// itself, not the ones after it).
type cteScope struct {
	def    *ast.CTE
	parent *cteScope
}

func (s *cteScope) lookup(name string) *cteScope {
	for ; s != nil; s = s.parent {
		if strings.EqualFold(s.def.Name.Name, name) {
			return s
		}
	}
	return nil
}

// with binds WITH … body: each name is bound where it is used, as a view
// is, in the scope of the names before it.
func (b *binder) with(q *ast.With) logical.Node {
	saved := b.ctes
	defer func() { b.ctes = saved }()
	for i, d := range q.CTEs {
		for _, e := range q.CTEs[:i] {
			if strings.EqualFold(e.Name.Name, d.Name.Name) {
				b.errorf(diag.DuplicateAlias, d.Name.S, "WITH names %s twice", d.Name.Name).
					WithNote(e.Name.S, "first named here")
				return nil
			}
		}
		// Each query is bound once here, so that its errors are reported
		// even when the body does not read it.
		b.ctes = &cteScope{def: d, parent: b.ctes}
		if b.cteQuery(b.ctes) == nil {
			return nil
		}
	}
	return b.query(q.Body)
}

// cteQuery binds a common table expression's query in the scope it was
// defined in, naming its columns.
func (b *binder) cteQuery(s *cteScope) logical.Node {
	saved := b.ctes
	b.ctes = s.parent
	n := b.query(s.def.Query)
	b.ctes = saved
	if n == nil {
		return nil
	}
	return b.renameColumns(n, s.def.Name, s.def.Columns, s.def.S)
}

// renameColumns names a query's columns (a view's or a WITH's column list).
func (b *binder) renameColumns(n logical.Node, name *ast.Ident, names []*ast.Ident, at diag.Span) logical.Node {
	if len(names) == 0 {
		return n
	}
	in := n.Columns()
	if len(names) != len(in) {
		b.errorf(diag.InsertMismatch, name.S, "%s names %s but its query produces %d", name.Name, columnsWord(len(names)), len(in))
		return nil
	}
	cols := slices.Clone(in)
	for i, id := range names {
		cols[i].Name = id.Name
	}
	exprs := make([]expr.Expr, len(in))
	for i, c := range in {
		exprs[i] = &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: at}
	}
	return &logical.Project{Input: n, Exprs: exprs, Cols: cols, S: at}
}

func (b *binder) setOp(q *ast.SetOp) logical.Node {
	if q.Op != "UNION" && q.All {
		b.errorf(diag.UnsupportedFeature, q.S, "%s ALL is not supported yet; %s (without ALL, which removes duplicates) is", q.Op, q.Op)
		return nil
	}
	l, r := b.query(q.Left), b.query(q.Right)
	if l == nil || r == nil {
		return nil
	}
	lc, rc := l.Columns(), r.Columns()
	if len(lc) != len(rc) {
		b.errorf(diag.SetOpMismatch, q.Right.Span(), "%s inputs have different numbers of columns: %d and %d", q.Op, len(lc), len(rc)).
			WithNote(q.Left.Span(), "the first input has %d", len(lc))
		return nil
	}
	cols := make([]logical.Column, len(lc))
	for i := range lc {
		t, ok := types.CommonType(lc[i].Type, rc[i].Type)
		if !ok {
			b.errorf(diag.SetOpMismatch, q.Right.Span(), "%s column %d (%s) is %s in the first input but %s in the second", q.Op, i+1, lc[i].Name, lc[i].Type, rc[i].Type)
			return nil
		}
		cols[i] = logical.Column{Name: lc[i].Name, Type: t}
		if lc[i].Time == rc[i].Time {
			cols[i].Time = lc[i].Time
		}
	}
	// Each input's values become the union's types (an INT 3 is 3.00 in a
	// DECIMAL(12, 2) union).
	l, r = convertColumns(l, cols), convertColumns(r, cols)
	if q.Op != "UNION" {
		return intersectExcept(q, l, r, cols)
	}
	var out logical.Node = &logical.Union{Inputs: []logical.Node{l, r}, Cols: cols, S: q.S}
	if !q.All {
		// UNION removes duplicates: group by every column.
		keys := make([]expr.Expr, len(cols))
		for i, c := range cols {
			keys[i] = &expr.Column{Index: i, Name: c.Name, T: c.Type, S: q.S}
		}
		agg := &logical.Aggregate{Origin: "UNION", Input: out, Keys: keys, S: q.S}
		for _, c := range cols {
			agg.Cols = append(agg.Cols, logical.Column{Name: c.Name, Type: c.Type})
		}
		out = agg
	}
	return out
}

// intersectExcept plans l INTERSECT r and l EXCEPT r (both distinct) as an
// aggregate, as PostgreSQL's HashSetOp does: each input's rows get a tag (1
// left, 2 right), the union of both is grouped by every column (NULLs in
// one group, as the set operations compare), and a group is kept when it
// has both tags (INTERSECT: MIN = 1 and MAX = 2) or only the left one
// (EXCEPT: MAX = 1). Over changing inputs the aggregate follows every
// insert and retraction: a row leaves EXCEPT's result when its copy
// arrives on the right, and comes back when that copy is retracted.
func intersectExcept(q *ast.SetOp, l, r logical.Node, cols []logical.Column) logical.Node {
	intT := types.New(types.Int).NotNull()
	tag := func(n logical.Node, v int64) logical.Node {
		in := n.Columns()
		p := &logical.Project{Input: n, S: n.Span()}
		for i, c := range in {
			p.Exprs = append(p.Exprs, &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: q.S})
			p.Cols = append(p.Cols, logical.Column{Name: c.Name, Type: c.Type})
		}
		p.Exprs = append(p.Exprs, &expr.Const{V: v, T: intT, S: q.S})
		p.Cols = append(p.Cols, logical.Column{Name: "$set", Type: intT})
		return p
	}
	ucols := append(slices.Clone(cols), logical.Column{Name: "$set", Type: intT})
	for i := range ucols {
		ucols[i].Time = expr.NoTime
	}
	u := &logical.Union{Inputs: []logical.Node{tag(l, 1), tag(r, 2)}, Cols: ucols, S: q.S}
	agg := &logical.Aggregate{Origin: q.Op, Input: u, S: q.S}
	for i, c := range cols {
		agg.Keys = append(agg.Keys, &expr.Column{Index: i, Name: c.Name, T: c.Type, S: q.S})
		agg.Cols = append(agg.Cols, logical.Column{Name: c.Name, Type: c.Type})
	}
	setCol := &expr.Column{Index: len(cols), Name: "$set", T: intT, S: q.S}
	for _, fn := range []string{"MIN", "MAX"} {
		agg.Aggs = append(agg.Aggs, &logical.AggCall{Fn: fn, Args: []expr.Expr{setCol}, T: intT, S: q.S})
		agg.Cols = append(agg.Cols, logical.Column{Name: "$" + strings.ToLower(fn), Type: intT})
	}
	minCol := &expr.Column{Index: len(cols), Name: "$min", T: intT, S: q.S}
	maxCol := &expr.Column{Index: len(cols) + 1, Name: "$max", T: intT, S: q.S}
	boolT := types.New(types.Boolean).NotNull()
	eq := func(c *expr.Column, v int64) expr.Expr {
		return &expr.Call{Fn: "=", Args: []expr.Expr{c, &expr.Const{V: v, T: intT, S: q.S}}, T: boolT, S: q.S}
	}
	cond := eq(maxCol, 1) // EXCEPT: only in the left input
	if q.Op == "INTERSECT" {
		cond = &expr.Call{Fn: "AND", Args: []expr.Expr{eq(minCol, 1), eq(maxCol, 2)}, T: boolT, S: q.S}
	}
	f := &logical.Filter{Input: agg, Cond: cond, S: q.S}
	p := &logical.Project{Input: f, S: q.S}
	for i, c := range cols {
		p.Exprs = append(p.Exprs, &expr.Column{Index: i, Name: c.Name, T: c.Type, S: q.S})
		p.Cols = append(p.Cols, logical.Column{Name: c.Name, Type: c.Type})
	}
	return p
}

func (b *binder) from(t ast.TableExpr) *rel {
	switch t := t.(type) {
	case *ast.TableRef:
		return b.tableRef(t)
	case *ast.Join:
		return b.join(t)
	case *ast.Subquery:
		if t.Lateral {
			b.errorf(diag.UnsupportedFeature, t.S, "LATERAL must follow another FROM item: FROM t, LATERAL (SELECT … WHERE … = t.col)")
			return nil
		}
		n := b.query(t.Query)
		if n == nil {
			return nil
		}
		alias := ""
		if t.Alias != nil {
			alias = t.Alias.Name
		}
		return requalify(n, alias, alias, t.S)
	case *ast.WindowTVF:
		return b.windowTVF(t)
	case *ast.Values:
		return b.values(t)
	case *ast.Unnest:
		return b.unnest(nil, nil, t)
	}
	b.errorf(diag.UnsupportedSyntax, t.Span(), "unsupported FROM item")
	return nil
}

// values binds VALUES (row), … as a table: a bounded, insert-only input of
// rows computed once (the expressions name no column). Each column's type is the common type of its values, as
// a UNION's (an INT 1 and a DECIMAL 2.5 make a DECIMAL column); columns
// are named by the alias's column list, else EXPR$0, EXPR$1, ….
func (b *binder) values(v *ast.Values) *rel {
	bd := &expr.Binder{Scope: &expr.Scope{}, L: b.l, Clause: "VALUES"}
	rows := make([][]expr.Expr, len(v.Rows))
	failed := false
	for i, r := range v.Rows {
		for _, x := range r {
			e := bd.Bind(x)
			if e == nil {
				failed = true
				continue
			}
			rows[i] = append(rows[i], e)
		}
	}
	if failed {
		return nil
	}
	n := len(rows[0])
	if len(v.Columns) > 0 && len(v.Columns) != n {
		b.errorf(diag.InsertMismatch, v.Alias.S, "%s names %s but its VALUES rows have %d", v.Alias.Name, columnsWord(len(v.Columns)), n)
		return nil
	}
	cols := make([]logical.Column, n)
	for j := range cols {
		t := rows[0][j].Type()
		for i, r := range rows[1:] {
			ct, ok := types.CommonType(t, r[j].Type())
			if !ok {
				b.errorf(diag.SetOpMismatch, v.Rows[i+1][j].Span(), "VALUES column %d is %s in the first row but %s here", j+1, t, r[j].Type())
				return nil
			}
			t = ct
		}
		if t.Kind == types.Null {
			b.errorf(diag.TypeMismatch, v.Rows[0][j].Span(), "VALUES column %d is NULL in every row: CAST(NULL AS type) says its type", j+1)
			return nil
		}
		cols[j] = logical.Column{Name: fmt.Sprintf("EXPR$%d", j), Type: t}
		if len(v.Columns) > 0 {
			cols[j].Name = v.Columns[j].Name
		}
	}
	for _, r := range rows {
		for j, e := range r {
			r[j] = castTo(e, cols[j].Type)
		}
	}
	alias := ""
	if v.Alias != nil {
		alias = v.Alias.Name
	}
	node := &logical.Values{Rows: rows, Cols: cols, S: v.S}
	return requalify(node, alias, alias, v.S)
}

// castTo returns e as a value of type t (e's type widens to t): numbers
// converted, a NULL given its type.
func castTo(e expr.Expr, t types.T) expr.Expr {
	if e.Type().Kind == types.Null {
		return &expr.Call{Fn: "CAST", Args: []expr.Expr{e}, T: t.WithNullable(true), S: e.Span()}
	}
	return convert(e, t, "CAST")
}

// requalify exposes a node's columns under one qualifier.
func requalify(n logical.Node, alias, table string, s diag.Span) *rel {
	in := n.Columns()
	cols := make([]logical.Column, len(in))
	exprs := make([]expr.Expr, len(in))
	for i, c := range in {
		cols[i] = c
		cols[i].Qualifier = alias
		exprs[i] = &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: s}
	}
	p := &logical.Project{Input: n, Exprs: exprs, Cols: cols, S: s}
	var tables []expr.ScopeTable
	if alias != "" {
		tables = []expr.ScopeTable{{Alias: alias, Table: table}}
	}
	return &rel{node: p, tables: tables}
}

func (b *binder) tableRef(t *ast.TableRef) *rel {
	name := t.Name.Name
	alias := name
	if t.Alias != nil {
		alias = t.Alias.Name
	}
	opts := b.tableHints(t.Hints)
	if opts != nil {
		_, isTable := b.cat.Table(name)
		_, isView := b.cat.View(name)
		if b.ctes.lookup(name) != nil || !isTable && isView {
			b.errorf(diag.UnknownHint, opts.S, "OPTIONS can only be given to a table, and %s is a view: its options are those of the tables it reads", name).
				WithHint("give the hint to the tables in the view's query")
			return nil
		}
	}
	if s := b.ctes.lookup(name); s != nil {
		// Bound and reported once where it is defined (with): here its
		// diagnostics would only repeat those.
		l := b.l
		b.l = &diag.List{Source: l.Source}
		n := b.cteQuery(s)
		b.l = l
		if n == nil {
			return nil
		}
		return requalify(n, alias, name, t.S)
	}
	if tbl, ok := b.cat.Table(name); ok {
		if tbl.Invalid && !usable(tbl) {
			// Its definition was reported already; more errors about the
			// same table would only be noise.
			return nil
		}
		if opts != nil {
			tbl = b.cat.WithOptions(tbl, opts, b.l)
			if tbl.Invalid {
				return nil
			}
		}
		if !b.direction(tbl, t.Name.S, true) {
			return nil
		}
		cols := make([]logical.Column, len(tbl.Columns))
		for i, c := range tbl.Columns {
			cols[i] = logical.Column{Qualifier: alias, Name: c.Name, Type: c.Type, Time: c.Time}
		}
		return &rel{node: &logical.Scan{Table: tbl, Alias: alias, Cols: cols, S: t.S},
			tables: []expr.ScopeTable{{Alias: alias, Table: name}}}
	}
	if v, ok := b.cat.View(name); ok {
		if v.Invalid {
			return nil // reported where the view is defined
		}
		if slices.Contains(b.views, name) {
			b.errorf(diag.UnknownTable, t.Name.S, "view %s refers to itself", name)
			return nil
		}
		b.views = append(b.views, name)
		n := b.view(v)
		b.views = b.views[:len(b.views)-1]
		if n == nil {
			return nil
		}
		return requalify(n, alias, name, t.S)
	}
	b.cat.UnknownName(t.Name, diag.UnknownTable, "table", b.l)
	return nil
}

func columnsWord(n int) string {
	if n == 1 {
		return "1 column"
	}
	return fmt.Sprintf("%d columns", n)
}

// direction checks that a table's connector can be read (source) or
// written (sink), and the options that only matter one way. Each table is
// checked once per direction.
func (b *binder) direction(t *catalog.Table, at diag.Span, source bool) bool {
	c := t.Config
	if c == nil || c.Spec == nil {
		return true
	}
	if source && !c.Spec.Source {
		b.errorf(diag.SinkNotWritable, at, "table %s cannot be read: connector '%s' only writes", t.Name, c.Spec.Name).
			WithNote(t.Def.Name.S, "%s is declared here", t.Name)
		return false
	}
	if !source && !c.Spec.Sink {
		b.errorf(diag.SinkNotWritable, at, "table %s cannot be written: connector '%s' only reads (it generates or reads rows)", t.Name, c.Spec.Name).
			WithNote(t.Def.Name.S, "%s is declared here", t.Name)
		return false
	}
	key := directionKey{t, source}
	if b.checked == nil {
		b.checked = map[directionKey]bool{}
	}
	if b.checked[key] {
		return true
	}
	b.checked[key] = true
	if source {
		return c.ValidateSource(b.l)
	}
	return c.ValidateSink(b.l)
}

type directionKey struct {
	t      *catalog.Table
	source bool
}

// usable reports whether a table whose definition had errors still has
// well-typed columns, so that queries over it can be checked too.
func usable(t *catalog.Table) bool {
	for _, c := range t.Columns {
		if c.Type.Kind == types.Invalid {
			return false
		}
	}
	return true
}

// view binds a view's query in place, naming its columns.
func (b *binder) view(v *catalog.View) logical.Node {
	sub := &binder{cat: b.cat, l: &diag.List{Source: v.Source}, views: b.views}
	n := sub.query(v.Def.Query)
	if sub.l.HasErrors() || n == nil {
		// The view was valid when created; a table it reads was dropped.
		b.l.Append(sub.l.Items...)
		return nil
	}
	if len(v.Def.Columns) > 0 {
		in := n.Columns()
		cols := slices.Clone(in)
		for i, id := range v.Def.Columns {
			if i < len(cols) {
				cols[i].Name = id.Name
			}
		}
		exprs := make([]expr.Expr, len(in))
		for i, c := range in {
			exprs[i] = &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: v.Def.S}
		}
		return &logical.Project{Input: n, Exprs: exprs, Cols: cols, S: v.Def.S}
	}
	return n
}

func (b *binder) join(j *ast.Join) *rel {
	l := b.from(j.Left)
	if l == nil {
		return nil
	}
	if u, ok := j.Right.(*ast.Unnest); ok {
		return b.unnest(l, j, u)
	}
	var r *rel
	var lateralConds []expr.Expr
	if sq, ok := j.Right.(*ast.Subquery); ok && sq.Lateral {
		if j.Kind != ast.InnerJoin && j.Kind != ast.CrossJoin {
			b.errorf(diag.UnsupportedFeature, j.Keyword, "a LATERAL subquery is supported in a comma or INNER join, not a %s JOIN", j.Kind)
			return nil
		}
		r, lateralConds = b.lateral(l, sq)
	} else {
		r = b.from(j.Right)
	}
	if r == nil {
		return nil
	}
	for _, rt := range r.tables {
		for _, lt := range l.tables {
			if rt.Alias == lt.Alias {
				b.errorf(diag.DuplicateAlias, j.Right.Span(), "table alias %s is used twice in this FROM", rt.Alias).
					WithHint("give each table its own alias, e.g. %s AS %s2", rt.Table, rt.Alias)
				return nil
			}
		}
	}
	cols := append(slices.Clone(l.node.Columns()), r.node.Columns()...)
	tables := append(slices.Clone(l.tables), r.tables...)
	out := &logical.Join{Kind: j.Kind, Left: l.node, Right: r.node, Keyword: j.Keyword, Cols: cols, S: j.S}
	scope := scopeOf(cols, tables)
	var conds []expr.Expr
	if j.On != nil {
		bd := &expr.Binder{Scope: scope, L: b.l, Clause: "the ON clause"}
		c := bd.BindBool(j.On)
		if c == nil {
			return nil
		}
		conds = append(conds, c)
	}
	for _, u := range j.Using {
		lc := b.usingSide(u, l, scopeOf(l.node.Columns(), l.tables))
		rc := b.usingSide(u, r, scopeOf(r.node.Columns(), r.tables))
		if lc == nil || rc == nil {
			return nil
		}
		rc.Index += len(l.node.Columns())
		if !types.Comparable(lc.T, rc.T) {
			b.errorf(diag.TypeMismatch, u.S, "USING (%s): the column is %s on the left and %s on the right", u.Name, lc.T, rc.T)
			return nil
		}
		conds = append(conds, &expr.Call{Fn: "=", Args: []expr.Expr{lc, rc}, T: types.New(types.Boolean), S: u.S})
	}
	if len(lateralConds) > 0 {
		conds = append(conds, lateralConds...)
		out.Kind = ast.InnerJoin
	}
	out.Cond = expr.And(conds...)
	// Temporal join: the right side is read as of the left side's time.
	// The expression is bound in the join's scope, both sides, as Calcite
	// validates it: a processing-time attribute of the looked-up table
	// itself (the cookbook's `JOIN dim FOR SYSTEM_TIME AS OF proctime`,
	// with `proctime AS PROCTIME()` declared on dim) is accepted as Flink
	// accepts it, and means what the probe side's would: the time of the
	// lookup, now. An event time of the versioned table is refused, as
	// Flink refuses it: the version must be chosen by the probe row's time.
	if tr, ok := j.Right.(*ast.TableRef); ok && tr.AsOf != nil {
		bd := &expr.Binder{Scope: scope, L: b.l, Clause: "FOR SYSTEM_TIME AS OF"}
		asOf := bd.Bind(tr.AsOf)
		if asOf == nil {
			return nil
		}
		c, isCol := asOf.(*expr.Column)
		if !isCol || c.Time == expr.NoTime {
			b.errorf(diag.TimeAttribute, tr.AsOf.Span(), "FOR SYSTEM_TIME AS OF needs a time attribute of the probe side, but %s is not one", ast.Format(tr.AsOf)).
				WithHint("use the left table's event-time column (the one with a WATERMARK)")
			return nil
		}
		if nL := len(l.node.Columns()); c.Index >= nL && c.Time != expr.ProcTime {
			b.errorf(diag.TimeAttribute, tr.AsOf.Span(), "FOR SYSTEM_TIME AS OF %s names the event time of %s, the versioned table itself: a temporal join reads the version valid at each probe row's time", ast.Format(tr.AsOf), cols[c.Index].Qualifier).
				WithHint("use the probe side's event-time column (the one with a WATERMARK), as Flink requires")
			return nil
		}
		if j.Kind != ast.InnerJoin && j.Kind != ast.LeftJoin {
			b.errorf(diag.UnsupportedFeature, j.Keyword, "a temporal join must be INNER or LEFT, not %s", j.Kind)
			return nil
		}
		out.AsOf = asOf
	}
	return &rel{node: out, tables: tables}
}

func (b *binder) usingSide(u *ast.Ident, side *rel, s *expr.Scope) *expr.Column {
	i := s.Resolve(&ast.ColumnRef{Loc: u.Loc, Name: u}, b.l)
	if i < 0 {
		return nil
	}
	c := s.Cols[i]
	return &expr.Column{Index: i, Name: c.Name, T: c.T, Time: c.Time, S: u.S}
}

func (b *binder) windowTVF(w *ast.WindowTVF) *rel {
	in := b.tableRef(&ast.TableRef{Loc: w.Table.Loc, Name: w.Table})
	if in == nil {
		return nil
	}
	cols := in.node.Columns()
	s := scopeOf(cols, nil)
	idx := s.Resolve(&ast.ColumnRef{Loc: w.TimeCol.Loc, Name: w.TimeCol}, b.l)
	if idx < 0 {
		return nil
	}
	tc := cols[idx]
	if tc.Time == expr.NoTime {
		b.errorf(diag.TimeAttribute, w.TimeCol.S, "DESCRIPTOR(%s): %s is not a time attribute of %s", w.TimeCol.Name, w.TimeCol.Name, w.Table.Name).
			WithHint("declare WATERMARK FOR %s AS %s - INTERVAL '5' SECOND on the table, or use a PROCTIME() column", w.TimeCol.Name, w.TimeCol.Name)
		return nil
	}
	win := &logical.Window{Input: in.node, Func: w.Func, TimeCol: idx, S: w.S}
	for _, p := range []struct {
		iv  *ast.IntervalLit
		dst *int64
	}{{w.Size, &win.Size}, {w.Slide, &win.Slide}, {w.Step, &win.Step}, {w.Offset, &win.Offset}} {
		if p.iv == nil {
			continue
		}
		if p.iv.YearMonth || p.iv.Millis <= 0 && p.dst != &win.Offset {
			b.errorf(diag.InvalidInterval, p.iv.S, "window intervals must be positive day-time intervals (SECOND, MINUTE, HOUR, DAY)")
			return nil
		}
		*p.dst = p.iv.Millis
	}
	switch {
	case w.Func == "HOP" && win.Size%win.Slide != 0:
		b.errorf(diag.InvalidInterval, w.Size.S, "HOP size %s must be a whole multiple of the slide %s", expr.FormatMillis(win.Size), expr.FormatMillis(win.Slide))
		return nil
	case w.Func == "CUMULATE" && win.Size%win.Step != 0:
		b.errorf(diag.InvalidInterval, w.Size.S, "CUMULATE size %s must be a whole multiple of the step %s", expr.FormatMillis(win.Size), expr.FormatMillis(win.Step))
		return nil
	}
	for _, id := range w.PartitionBy {
		i := s.Resolve(&ast.ColumnRef{Loc: id.Loc, Name: id}, b.l)
		if i < 0 {
			return nil
		}
		win.Partition = append(win.Partition, i)
	}
	alias := w.Table.Name
	if w.Alias != nil {
		alias = w.Alias.Name
	}
	out := make([]logical.Column, 0, len(cols)+3)
	for _, c := range cols {
		c.Qualifier = alias
		out = append(out, c)
	}
	win.Cols = append(out, windowColumnsOf(tc, alias)...)
	return &rel{node: win, tables: []expr.ScopeTable{{Alias: alias, Table: w.Table.Name}}}
}

// windowColumnsOf are the columns a window TVF adds: window_start,
// window_end and window_time, the time attribute of tc.
func windowColumnsOf(tc logical.Column, qualifier string) []logical.Column {
	wt := types.TimestampOf(3).NotNull()
	if tc.Type.Kind == types.TimestampLTZ {
		wt = types.TimestampLTZOf(3).NotNull()
	}
	return []logical.Column{
		{Qualifier: qualifier, Name: "window_start", Type: types.TimestampOf(3).NotNull()},
		{Qualifier: qualifier, Name: "window_end", Type: types.TimestampOf(3).NotNull()},
		{Qualifier: qualifier, Name: "window_time", Type: wt, Time: tc.Time}}
}

func (b *binder) selectQuery(q *ast.Select) logical.Node {
	if len(q.OrderBy) == 0 {
		return b.selectBody(q)
	}
	if q.Limit != nil {
		b.errorf(diag.UnsupportedFeature, q.Limit.Span(), "LIMIT is not supported in streaming queries yet").
			WithHint("for the top rows of each group, number them: ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) AS rn in a subquery, and WHERE rn <= N outside")
		return nil
	}
	unordered := *q
	unordered.OrderBy = nil
	n := b.selectBody(&unordered)
	if n == nil {
		return nil
	}
	return b.orderBy(n, q.OrderBy)
}

// orderBy plans ORDER BY over a query's output, as Flink plans it in a
// streaming query: by a time attribute of the output, ascending, then
// optionally by more keys (Flink's TemporalSort; the rows leave in time
// order as the watermark passes them, the rows of one time sorted by the
// other keys). Anything else is refused with what to write instead.
func (b *binder) orderBy(n logical.Node, items []*ast.OrderItem) logical.Node {
	it := items[0]
	cols := n.Columns()
	bd := &expr.Binder{Scope: scopeOf(cols, nil), L: &diag.List{Source: b.l.Source}, Clause: "ORDER BY"}
	e := bd.Bind(it.Expr)
	if e == nil {
		// Report why, with the output's names.
		(&expr.Binder{Scope: scopeOf(cols, nil), L: b.l, Clause: "ORDER BY"}).Bind(it.Expr)
		return nil
	}
	c, isCol := e.(*expr.Column)
	switch {
	case !isCol || c.Time != expr.RowTime:
		d := b.errorf(diag.UnsupportedFeature, it.S, "ORDER BY in a streaming query must start with a time attribute of the query's output (a column with a WATERMARK), ascending: a sort by anything else never ends")
		if isCol && c.Time == expr.ProcTime {
			d = d.WithHint("%s is a processing-time attribute: the rows already come in its order; leave ORDER BY out", c.Name)
		}
		d.WithHint("for the top rows of each group, number them: ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) AS rn in a subquery, and WHERE rn <= N outside")
		return nil
	case it.Desc:
		b.errorf(diag.UnsupportedFeature, it.S, "ORDER BY %s DESC: a streaming query can sort by a time attribute ascending only (rows leave as the watermark passes them)", c.Name)
		return nil
	}
	var keys []logical.SortKey
	failed := false
	for _, k := range items[1:] {
		if containsAgg(k.Expr) {
			b.errorf(diag.AggregateMisuse, k.Expr.Span(), "ORDER BY sorts the query's output: name an output column instead of an aggregate")
			failed = true
			continue
		}
		x := (&expr.Binder{Scope: scopeOf(cols, nil), L: b.l, Clause: "ORDER BY"}).Bind(k.Expr)
		if x == nil {
			failed = true
			continue
		}
		if !types.Orderable(x.Type(), x.Type()) {
			b.errorf(diag.TypeMismatch, k.S, "cannot order by %s: %s values have no order", ast.Format(k.Expr), x.Type())
			failed = true
			continue
		}
		keys = append(keys, logical.SortKey{Expr: x, Desc: k.Desc})
	}
	if failed {
		return nil
	}
	out := make([]logical.Column, len(cols))
	copy(out, cols)
	return &logical.OverAggregate{Input: n, TimeCol: c.Index, Rows: true, Sort: true, SortKeys: keys, Cols: out, S: it.S}
}

func (b *binder) selectBody(q *ast.Select) logical.Node {
	if q.From == nil {
		b.errorf(diag.UnsupportedFeature, q.S, "SELECT without FROM is not supported: a streaming query reads a table")
		return nil
	}
	r := b.from(q.From)
	if r == nil {
		return nil
	}
	b.hints(q.Hints, r)
	node := r.node
	scope := scopeOf(node.Columns(), r.tables)
	if q.Where != nil {
		if node = b.where(node, r.tables, q.Where); node == nil {
			return nil
		}
		// A semi or anti join's rows have no time attributes.
		scope = scopeOf(node.Columns(), r.tables)
	}
	if q.Limit != nil {
		b.errorf(diag.UnsupportedFeature, q.Limit.Span(), "LIMIT is not supported in streaming queries yet")
		return nil
	}
	hasAgg := len(q.GroupBy) > 0 || len(q.Grouping) > 0 || q.Having != nil || q.Distinct
	if len(q.Grouping) > 0 {
		if _, call := legacyWindowCall(q); call != nil {
			b.errorf(diag.UnsupportedFeature, call.S, "a legacy group window with GROUPING SETS, ROLLUP or CUBE is not supported yet; use the window TVF and group by window_start, window_end")
			return nil
		}
		// The Expand binds the input again for each grouping set.
		prev := b.rebind
		defer func() { b.rebind = prev }()
		b.rebind = func() logical.Node {
			l := b.l
			b.l = &diag.List{Source: l.Source} // reported once, by the first
			defer func() { b.l = l }()
			r := b.from(q.From)
			if r == nil {
				return nil
			}
			b.hints(q.Hints, r)
			n := r.node
			if q.Where != nil {
				bd := &expr.Binder{Scope: scopeOf(n.Columns(), r.tables), L: b.l, Clause: "WHERE"}
				c := bd.BindBool(q.Where)
				if c == nil {
					return nil
				}
				n = &logical.Filter{Input: n, Cond: c, S: q.Where.Span()}
			}
			return n
		}
	}
	for _, f := range q.Fields {
		if f.Expr != nil && containsAgg(f.Expr) {
			hasAgg = true
		}
	}
	if hasOver(q) {
		if hasAgg {
			b.errorf(diag.UnsupportedFeature, overCall(q).S, "OVER windows in a query with GROUP BY, DISTINCT or aggregates are not supported; rank the aggregate's rows in an outer query")
			return nil
		}
		return b.overQuery(q, node, scope, r.tables)
	}
	if hasAgg {
		q, node, scope, keyHook, ok := b.legacyWindow(q, node, scope, r.tables)
		if !ok {
			return nil
		}
		return b.aggregateQuery(q, node, scope, r.tables, keyHook)
	}
	return b.project(q, node, scope, r.tables, nil)
}

// tableHints returns the OPTIONS hint of a table reference (the options a
// scan of it reads with, over the table's own), or nil. Other table hints
// are warned about and ignored, as Flink ignores the ones it does not know.
func (b *binder) tableHints(hints []*ast.Hint) *ast.Hint {
	var out *ast.Hint
	for _, h := range hints {
		switch {
		case h.Name.Name != "OPTIONS":
			b.l.Warnf(diag.UnknownHint, h.Name.S, "unknown table hint %s is ignored; streamsql knows OPTIONS('key' = 'value', ...)", h.Name.Name)
		case len(h.Args) > 0 || len(h.Options) == 0:
			b.errorf(diag.UnknownHint, h.S, "OPTIONS takes 'key' = 'value' pairs, as in /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */")
			return nil
		case out != nil:
			b.errorf(diag.UnknownHint, h.Name.S, "a table takes one OPTIONS hint: put all its options in the first")
			return nil
		default:
			seen := map[string]bool{}
			for _, o := range h.Options {
				if seen[o.Key.Value] {
					b.errorf(diag.DuplicateOption, o.Key.S, "option '%s' is given twice in the hint", o.Key.Value)
					return nil
				}
				seen[o.Key.Value] = true
			}
			out = h
		}
	}
	return out
}

// hints applies /*+ STATE_TTL('alias' = '1d', ...) */ to the joins of the
// query block's FROM.
func (b *binder) hints(hs []*ast.Hint, r *rel) {
	for _, h := range hs {
		if h.Name.Name == "OPTIONS" {
			b.l.Warnf(diag.UnknownHint, h.Name.S, "OPTIONS is a table hint and is ignored here: put it right after the table's name, as in FROM t /*+ OPTIONS('k' = 'v') */")
			continue
		}
		if h.Name.Name != "STATE_TTL" {
			b.l.Warnf(diag.UnknownHint, h.Name.S, "unknown hint %s is ignored; streamsql knows STATE_TTL", h.Name.Name)
			continue
		}
		ttl := map[string]string{}
		for _, o := range h.Options {
			known := false
			for _, t := range r.tables {
				known = known || t.Alias == o.Key.Value || t.Table == o.Key.Value
			}
			if !known {
				var names []string
				for _, t := range r.tables {
					names = append(names, t.Alias)
				}
				b.l.Errorf(diag.UnknownHint, o.Key.S, "STATE_TTL names %s, which is not a table or alias of this query", o.Key.Value).
					WithHint("the tables here are: %s", strings.Join(names, ", "))
				continue
			}
			if _, err := connectors.ParseDuration(o.Value.Value); err != nil {
				b.l.Errorf(diag.UnknownHint, o.Value.S, "STATE_TTL value '%s' is not a duration such as '1d', '12h' or '30 min'", o.Value.Value)
				continue
			}
			ttl[o.Key.Value] = o.Value.Value
		}
		var set func(n logical.Node)
		set = func(n logical.Node) {
			if j, ok := n.(*logical.Join); ok {
				j.Hints = ttl
				set(j.Left)
				set(j.Right)
			}
		}
		set(r.node)
	}
}

// filteredArgs rewrites AGG(x) FILTER (WHERE c) as AGG(CASE WHEN c THEN x
// END): every aggregate ignores NULLs, so a row where c is not TRUE counts
// for nothing, as FILTER says (COUNT(*) becomes COUNT(CASE WHEN c THEN 1
// END); LISTAGG's separator stays as it is).
func filteredArgs(e *ast.FuncCall) []ast.Expr {
	when := func(x ast.Expr) ast.Expr {
		w := &ast.When{Cond: e.Filter, Result: x}
		w.S = e.Filter.Span()
		c := &ast.Case{Whens: []*ast.When{w}}
		c.S = e.S
		return c
	}
	if e.Star {
		one := &ast.Literal{Kind: ast.IntLit, Raw: "1"}
		one.S = e.S
		return []ast.Expr{when(one)}
	}
	out := slices.Clone(e.Args)
	if len(out) > 0 && e.Name.Name == "ARRAY_AGG" {
		// ARRAY_AGG keeps NULLs: it runs as expr.ArrayAggFiltered over
		// CASE WHEN c THEN ROW(x) END, which skips the NULLs of the rows c
		// leaves out and keeps x's own.
		r := &ast.Constructor{Kind: "ROW", Args: []ast.Expr{out[0]}}
		r.S = out[0].Span()
		out[0] = when(r)
		return out
	}
	if len(out) > 0 {
		out[0] = when(out[0])
	}
	return out
}

// jsonAggCall checks JSON_OBJECTAGG(k, v [… ON NULL]) and JSON_ARRAYAGG(v
// [… ON NULL]) and returns the call the runtime folds, as Flink's
// WrapJsonAggFunctionArgumentsRule gives it: JSON_OBJECTAGG(ROW(k,
// JSON_STRING(v))) and JSON_ARRAYAGG(ROW(JSON_STRING(v))) (a value made by
// JSON_OBJECT or JSON_ARRAY goes in as JSON, as in those), with OnNull
// set to the behaviour (Flink's defaults: NULL ON NULL for JSON_OBJECTAGG,
// ABSENT ON NULL for JSON_ARRAYAGG). The ROW lets FILTER (WHERE …) leave a
// row out (a NULL ROW) apart from a NULL value. It reports and returns nil
// on a wrong call.
func (b *binder) jsonAggCall(e *ast.FuncCall, bd *expr.Binder) *ast.FuncCall {
	name := strings.ToUpper(e.Name.Name)
	object := name == "JSON_OBJECTAGG"
	want := map[bool]int{true: 2, false: 1}[object]
	if len(e.Args) != want {
		if object {
			b.errorf(diag.WrongArguments, e.S, "JSON_OBJECTAGG takes a key and a value: JSON_OBJECTAGG(KEY k VALUE v [{NULL | ABSENT} ON NULL])")
		} else {
			b.errorf(diag.WrongArguments, e.S, "JSON_ARRAYAGG takes one value: JSON_ARRAYAGG(v [{NULL | ABSENT} ON NULL])")
		}
		return nil
	}
	if object {
		k := bd.Bind(e.Args[0])
		if k == nil {
			return nil
		}
		switch {
		case k.Type().Kind == types.Null:
			b.errorf(diag.WrongArguments, e.Args[0].Span(), "JSON_OBJECTAGG: the key is NULL, but keys are strings (a NULL key is an error, as in Flink)")
			return nil
		case !k.Type().Kind.IsString():
			b.errorf(diag.WrongArguments, e.Args[0].Span(), "JSON_OBJECTAGG: the key %s is %s, but keys are strings", ast.Format(e.Args[0]), k.Type()).
				WithHint("CAST it: JSON_OBJECTAGG(KEY CAST(%s AS STRING) VALUE …)", ast.Format(e.Args[0]))
			return nil
		}
	}
	v := e.Args[len(e.Args)-1]
	x := bd.Bind(v)
	if x == nil {
		return nil
	}
	if !expr.JSONValueType(x.Type()) {
		b.errorf(diag.WrongArguments, v.Span(), "%s: %s is %s, which streamsql does not write as JSON yet", name, ast.Format(v), x.Type()).
			WithHint("CAST it to STRING: %s(… CAST(%s AS STRING) …)", name, ast.Format(v))
		return nil
	}
	if _, isJSON := v.(*ast.JSONConstruct); !isJSON {
		js := &ast.FuncCall{Name: &ast.Ident{Name: "JSON_STRING"}, Args: []ast.Expr{v}}
		js.S, js.Name.S = v.Span(), v.Span()
		v = js
	}
	r := &ast.Constructor{Kind: "ROW", Args: []ast.Expr{v}}
	if object {
		r.Args = []ast.Expr{e.Args[0], v}
	}
	r.S = e.S
	out := *e
	out.Args = []ast.Expr{r}
	if out.OnNull == "" {
		out.OnNull = map[bool]string{true: "NULL", false: "ABSENT"}[object]
	}
	return &out
}

func containsAgg(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(x ast.Expr) bool {
		if f, ok := x.(*ast.FuncCall); ok && f.Over == nil && expr.IsAggregate(f.Name.Name) {
			found = true
		}
		return !found
	})
	return found
}

// project binds the select list over node. hook, when set, rewrites
// aggregates and grouped expressions.
func (b *binder) project(q *ast.Select, node logical.Node, scope *expr.Scope, tables []expr.ScopeTable, hook expr.Hook) logical.Node {
	bd := &expr.Binder{Scope: scope, L: b.l, Hook: hook, Clause: "the select list"}
	p := &logical.Project{Input: node, S: q.S}
	failed := false
	for i, f := range q.Fields {
		if f.Star {
			n := 0
			for ci, c := range scope.Cols {
				if f.Qualifier != nil && c.Qualifier != f.Qualifier.Name || c.Name == "" {
					continue
				}
				if hook != nil {
					if _, ok := hook(&ast.ColumnRef{Loc: f.Loc, Name: &ast.Ident{Loc: f.Loc, Name: c.Name}, Qualifier: qualIdent(c.Qualifier, f.Loc)}); !ok {
						continue
					}
				}
				p.Exprs = append(p.Exprs, &expr.Column{Index: ci, Name: c.Name, T: c.T, Time: c.Time, S: f.S})
				p.Cols = append(p.Cols, logical.Column{Qualifier: c.Qualifier, Name: c.Name, Type: c.T, Time: c.Time})
				n++
			}
			if f.Qualifier != nil && n == 0 {
				known := false
				for _, t := range tables {
					known = known || t.Alias == f.Qualifier.Name
				}
				if !known {
					b.errorf(diag.UnknownTable, f.Qualifier.S, "unknown table or alias %s in %s.*", f.Qualifier.Name, f.Qualifier.Name)
					failed = true
				}
			}
			continue
		}
		e := bd.Bind(f.Expr)
		if e == nil {
			failed = true
			continue
		}
		col := logical.Column{Name: fmt.Sprintf("EXPR$%d", i), Type: e.Type()}
		if c, ok := e.(*expr.Column); ok {
			col.Time = c.Time
			// A column the query names keeps its name; an expression
			// that the hook bound to an operator's column (an aggregate,
			// GROUPING(…), an OVER call) is EXPR$i, as in Flink, never
			// the operator's internal name ($grouping0, w0$o0).
			if isColumnRef(f.Expr) || !internalName(c.Name) {
				col.Name = c.Name
			}
		}
		if name, ok := expr.FieldOf(e); ok {
			col.Name = name // r.f is called f, as in Flink
		}
		if c, ok := e.(*expr.Call); ok && c.Fn == "PROCTIME" {
			// As in a computed column: PROCTIME() in a query (a view,
			// a subquery) is a processing-time attribute.
			col.Time = expr.ProcTime
		}
		if f.Alias != nil {
			col.Name = f.Alias.Name
		}
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, col)
	}
	if failed {
		return nil
	}
	return p
}

func qualIdent(q string, loc ast.Loc) *ast.Ident {
	if q == "" {
		return nil
	}
	return &ast.Ident{Loc: loc, Name: q}
}

// aggregateQuery binds SELECT ... GROUP BY / aggregates / HAVING / DISTINCT.
// keyHook, when not nil, binds GROUP BY items of its own (a legacy
// window's TUMBLE_START(...) calls).
func (b *binder) aggregateQuery(q *ast.Select, node logical.Node, scope *expr.Scope, tables []expr.ScopeTable, keyHook expr.Hook) logical.Node {
	q = expandStars(q, scope)
	agg := &logical.Aggregate{Input: node, S: q.S}
	switch {
	case len(q.GroupBy) > 0:
		agg.Origin = "GROUP BY"
	case q.Distinct:
		agg.Origin = "SELECT DISTINCT"
	}
	in := &expr.Binder{Scope: scope, L: b.l, Clause: "GROUP BY", Hook: keyHook}
	var keyText []string
	var keyIdx []int // the input column a key is, or -1 (an expression)
	groupBy := q.GroupBy
	var gp *groupingPlan
	if len(q.Grouping) > 0 {
		if gp = b.groupingSets(q); gp == nil {
			return nil
		}
		groupBy = gp.keys
		agg.Origin = "GROUP BY " + q.Grouping[0].Kind
	}
	for _, g := range groupBy {
		if containsAgg(g) {
			b.errorf(diag.AggregateMisuse, g.Span(), "aggregate functions are not allowed in GROUP BY")
			return nil
		}
		k := in.Bind(g)
		if k == nil {
			return nil
		}
		agg.Keys = append(agg.Keys, k)
		keyText = append(keyText, ast.Format(g))
		keyIdx = append(keyIdx, -1)
		if c, ok := k.(*expr.Column); ok {
			keyIdx[len(keyIdx)-1] = c.Index
		}
		col := logical.Column{Name: fmt.Sprintf("EXPR$%d", len(agg.Cols)), Type: k.Type()}
		if c, ok := k.(*expr.Column); ok {
			col = logical.Column{Qualifier: scope.Cols[c.Index].Qualifier, Name: c.Name, Type: c.T}
			// window_start/window_end keep no time attribute; window_time does.
			col.Time = c.Time
		}
		agg.Cols = append(agg.Cols, col)
	}
	// keyOf is the GROUP BY key an expression is: written the same, or
	// the same input column however qualified (s.a or a); -1 if none.
	keyOf := func(a ast.Expr) int {
		if i := slices.Index(keyText, ast.Format(a)); i >= 0 {
			return i
		}
		if cr, ok := a.(*ast.ColumnRef); ok {
			var scratch diag.List
			if idx := scope.Resolve(cr, &scratch); idx >= 0 {
				return slices.Index(keyIdx, idx)
			}
		}
		return -1
	}
	calls, ok := b.groupingCalls(q, keyOf)
	if !ok {
		return nil
	}
	callCol := map[string]int{} // a GROUPING call's column of agg
	if gp != nil {
		// The Expand under the aggregate, which groups by its columns.
		nIn := len(node.Columns())
		u := b.expand(gp, node, b.rebind, agg.Keys, calls, q.Grouping[0].S)
		if u == nil {
			return nil
		}
		agg.Input = u
		ucols := u.Columns()
		for i := range agg.Keys {
			c := ucols[nIn+i]
			agg.Keys[i] = &expr.Column{Index: nIn + i, Name: c.Name, T: c.Type, S: groupBy[i].Span()}
			agg.Cols[i].Type, agg.Cols[i].Time = c.Type, expr.NoTime
		}
		for j := nIn + len(gp.keys); j < len(ucols); j++ {
			c := ucols[j]
			agg.Keys = append(agg.Keys, &expr.Column{Index: j, Name: c.Name, T: c.Type, S: q.Grouping[0].S})
			agg.Cols = append(agg.Cols, logical.Column{Name: c.Name, Type: c.Type})
			if k := j - nIn - len(gp.keys) - 1; k >= 0 {
				callCol[calls[k].text] = len(agg.Cols) - 1
			}
		}
	}
	aggText := map[string]int{}
	failed := false
	hook := func(e ast.Expr) (expr.Expr, bool) {
		if fc, isCall := e.(*ast.FuncCall); isCall && fc.Over == nil && isGroupingFn(fc.Name.Name) {
			bigint := types.New(types.BigInt).NotNull()
			i, ok := callCol[ast.Format(fc)]
			if !ok {
				// Plain GROUP BY: one grouping set with every expression.
				return &expr.Const{V: int64(0), T: bigint, S: fc.S}, true
			}
			return &expr.Column{Index: i, Name: agg.Cols[i].Name, T: bigint, S: fc.S}, true
		}
		for i, kt := range keyText {
			if ast.Format(e) == kt {
				c := agg.Cols[i]
				return &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: e.Span()}, true
			}
		}
		switch e := e.(type) {
		case *ast.ColumnRef:
			var scratch diag.List
			idx := scope.Resolve(e, &scratch)
			if idx < 0 {
				scope.Resolve(e, b.l)
				failed = true
				return &expr.Const{T: types.New(types.Null), S: e.S}, true
			}
			// A key that is this column, however either is written (s.a
			// or a): by the input column both resolve to.
			for i, ki := range keyIdx {
				if ki == idx {
					c := agg.Cols[i]
					return &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: e.S}, true
				}
			}
			b.errorf(diag.AggregateMisuse, e.S, "column %s must appear in GROUP BY or be used inside an aggregate function", ast.Format(e))
			failed = true
			return &expr.Const{T: types.New(types.Null), S: e.S}, true
		case *ast.FuncCall:
			name := strings.ToUpper(e.Name.Name)
			if !expr.IsAggregate(name) {
				return nil, false
			}
			text := ast.Format(e)
			if i, ok := aggText[text]; ok {
				c := agg.Cols[i]
				return &expr.Column{Index: i, Name: c.Name, T: c.Type, S: e.S}, true
			}
			for _, a := range e.Args {
				if containsAgg(a) {
					b.errorf(diag.AggregateMisuse, a.Span(), "aggregate functions cannot be nested")
					failed = true
					return &expr.Const{T: types.New(types.Null), S: e.S}, true
				}
			}
			argB := &expr.Binder{Scope: scope, L: b.l, Clause: "an aggregate"}
			onNull := ""
			if name == "JSON_OBJECTAGG" || name == "JSON_ARRAYAGG" {
				je := b.jsonAggCall(e, argB)
				if je == nil {
					failed = true
					return &expr.Const{T: types.New(types.Null), S: e.S}, true
				}
				e, onNull = je, je.OnNull
			}
			call := &logical.AggCall{Fn: name, Distinct: e.Distinct, Star: e.Star, S: e.S}
			args := e.Args
			if e.Filter != nil {
				if containsAgg(e.Filter) {
					b.errorf(diag.AggregateMisuse, e.Filter.Span(), "aggregate functions are not allowed in FILTER (WHERE ...)")
					failed = true
					return &expr.Const{T: types.New(types.Null), S: e.S}, true
				}
				fb := &expr.Binder{Scope: scope, L: b.l, Clause: "the FILTER (WHERE ...)"}
				if fb.BindBool(e.Filter) == nil {
					failed = true
					return &expr.Const{T: types.New(types.Null), S: e.S}, true
				}
				args = filteredArgs(e)
				call.Star = false
				if name == "ARRAY_AGG" {
					call.Fn = expr.ArrayAggFiltered
				}
			}
			for _, a := range args {
				x := argB.Bind(a)
				if x == nil {
					failed = true
					return &expr.Const{T: types.New(types.Null), S: e.S}, true
				}
				call.Args = append(call.Args, x)
			}
			if onNull != "" {
				call.Args = append(call.Args, &expr.Const{V: onNull, T: types.StringType().NotNull(), S: e.S})
			}
			if e.Star && name != "COUNT" {
				b.errorf(diag.WrongArguments, e.S, "only COUNT accepts *")
				failed = true
			}
			if !e.Star && len(e.Args) == 0 && !expr.IsWindowMeta(name) {
				b.errorf(diag.WrongArguments, e.S, "%s needs an argument", name)
				failed = true
				return &expr.Const{T: types.New(types.Null), S: e.S}, true
			}
			t, msg := expr.AggregateType(call.Fn, call.Args)
			if msg != "" {
				b.errorf(diag.WrongArguments, e.S, "%s", msg)
				failed = true
				return &expr.Const{T: types.New(types.Null), S: e.S}, true
			}
			call.T = t
			agg.Aggs = append(agg.Aggs, call)
			i := len(agg.Cols)
			aggText[text] = i
			agg.Cols = append(agg.Cols, logical.Column{Name: fmt.Sprintf("EXPR$%d", i), Type: t})
			return &expr.Column{Index: i, Name: agg.Cols[i].Name, T: t, S: e.S}, true
		}
		return nil, false
	}
	post := &expr.Scope{Tables: tables} // columns come only through the hook
	if q.Distinct && len(q.GroupBy) == 0 && len(q.Grouping) == 0 {
		// DISTINCT groups by every selected expression.
		for _, f := range q.Fields {
			if f.Star {
				b.errorf(diag.UnsupportedFeature, f.S, "SELECT DISTINCT * is not supported; list the columns")
				return nil
			}
			if containsAgg(f.Expr) {
				continue
			}
			k := in.Bind(f.Expr)
			if k == nil {
				return nil
			}
			agg.Keys = append(agg.Keys, k)
			keyText = append(keyText, ast.Format(f.Expr))
			col := logical.Column{Name: fmt.Sprintf("EXPR$%d", len(agg.Cols)), Type: k.Type()}
			if c, ok := k.(*expr.Column); ok {
				col.Name = c.Name
			}
			agg.Cols = append(agg.Cols, col)
		}
	}
	// Bind the select list and HAVING against the aggregate's output; the
	// hook adds aggregates to agg as they are found. The project's input is
	// agg, whose columns are final once both are bound.
	var having expr.Expr
	if q.Having != nil {
		hb := &expr.Binder{Scope: post, L: b.l, Hook: hook, Clause: "HAVING"}
		having = hb.BindBool(q.Having)
		if having == nil {
			return nil
		}
	}
	p := b.project(q, agg, post, tables, hook)
	if p == nil || failed {
		return nil
	}
	// Point at the grouping (or the first aggregate) rather than the whole
	// SELECT when talking about this aggregate.
	switch {
	case len(q.GroupBy) > 0:
		agg.S = q.GroupBy[0].Span().Join(q.GroupBy[len(q.GroupBy)-1].Span())
	case len(agg.Aggs) > 0:
		agg.S = agg.Aggs[0].S
	}
	if having != nil {
		proj := p.(*logical.Project)
		proj.Input = &logical.Filter{Input: agg, Cond: having, S: q.Having.Span()}
	}
	if q.Distinct && (len(q.GroupBy) > 0 || len(q.Grouping) > 0) {
		// SELECT DISTINCT ... GROUP BY: the groups' rows, each once.
		return distinctOf(p, q.S)
	}
	return p
}

// distinctOf removes duplicate rows of n: an aggregate grouping by every
// column.
func distinctOf(n logical.Node, s diag.Span) logical.Node {
	d := &logical.Aggregate{Origin: "SELECT DISTINCT", Input: n, S: s}
	for i, c := range n.Columns() {
		d.Keys = append(d.Keys, &expr.Column{Index: i, Name: c.Name, T: c.Type, S: s})
		d.Cols = append(d.Cols, logical.Column{Name: c.Name, Type: c.Type})
	}
	return d
}

// insert binds INSERT INTO sink query.
func (b *binder) insert(ins *ast.Insert) *logical.Sink {
	name := ins.Table.Name
	tbl, ok := b.cat.Table(name)
	if !ok {
		if _, isView := b.cat.View(name); isView {
			b.errorf(diag.WrongObjectKind, ins.Table.S, "cannot INSERT INTO %s: it is a view", name)
			return nil
		}
		b.cat.UnknownName(ins.Table, diag.UnknownTable, "sink table", b.l)
		b.query(ins.Query) // still check the query
		return nil
	}
	if h := b.tableHints(ins.Hints); h != nil && !tbl.Invalid {
		// The sink written with the hint's options over its own.
		if tbl = b.cat.WithOptions(tbl, h, b.l); tbl.Invalid {
			b.query(ins.Query)
			return nil
		}
	}
	q := b.query(ins.Query)
	if q == nil || tbl.Invalid || !b.direction(tbl, ins.Table.S, false) {
		return nil
	}
	var target []int
	for i, c := range tbl.Columns {
		if c.Persisted() {
			target = append(target, i)
		}
	}
	if len(ins.Columns) > 0 {
		target = target[:0]
		for _, id := range ins.Columns {
			i := tbl.Column(id.Name)
			if i < 0 || !tbl.Columns[i].Persisted() {
				d := b.errorf(diag.InsertMismatch, id.S, "sink %s has no writable column %s", name, id.Name)
				var names []string
				for _, c := range tbl.Columns {
					if c.Persisted() {
						names = append(names, c.Name)
					}
				}
				if sg := diag.Suggest(id.Name, names); sg != "" {
					d.WithHint("did you mean %s?", sg)
				}
				return nil
			}
			target = append(target, i)
		}
	}
	qc := q.Columns()
	if len(qc) != len(target) {
		var names []string
		for _, i := range target {
			names = append(names, tbl.Columns[i].Name)
		}
		b.errorf(diag.InsertMismatch, ins.Query.Span(), "the query produces %s but sink %s takes %d (%s)", columnsWord(len(qc)), name, len(target), strings.Join(names, ", "))
		return nil
	}
	sink := &logical.Sink{Input: q, Table: tbl, S: ins.S}
	for k, i := range target {
		tc := tbl.Columns[i]
		if !types.ImplicitCast(qc[k].Type, tc.Type) && qc[k].Type.Kind != types.Null {
			b.errorf(diag.InsertMismatch, ins.Query.Span(), "column %d of the query (%s, %s) cannot be written to %s.%s (%s)", k+1, qc[k].Name, qc[k].Type, name, tc.Name, tc.Type).
				WithHint("CAST it: CAST(%s AS %s)", qc[k].Name, tc.Type)
			return nil
		}
		sink.Cols = append(sink.Cols, logical.Column{Name: tc.Name, Type: tc.Type})
	}
	if len(ins.Columns) > 0 {
		// INSERT INTO t (c, …): the sink writes every persisted column of
		// t in t's order, by position. The query's columns go where the
		// list puts them; the columns it leaves out are NULL, as in Flink.
		p := &logical.Project{Input: q, S: ins.S}
		sink.Cols = nil
		for i, tc := range tbl.Columns {
			if !tc.Persisted() {
				continue
			}
			k := slices.Index(target, i)
			if k >= 0 {
				p.Exprs = append(p.Exprs, &expr.Column{Index: k, Name: qc[k].Name, T: qc[k].Type, S: ins.S})
				p.Cols = append(p.Cols, logical.Column{Name: qc[k].Name, Type: qc[k].Type})
			} else {
				t := tc.Type.WithNullable(true)
				p.Exprs = append(p.Exprs, &expr.Call{Fn: "CAST", Args: []expr.Expr{&expr.Const{T: types.New(types.Null), S: ins.S}}, T: t, S: ins.S})
				p.Cols = append(p.Cols, logical.Column{Name: tc.Name, Type: t})
			}
			sink.Cols = append(sink.Cols, logical.Column{Name: tc.Name, Type: tc.Type})
		}
		sink.Input = p
	}
	return sink
}

// internalName says whether a column name is the planner's own ($set,
// $grouping0, w0$o0, EXPR$4): a query's output never carries one.
func internalName(name string) bool { return strings.Contains(name, "$") }

// isColumnRef says whether x is a column reference, in parentheses or not.
func isColumnRef(x ast.Expr) bool {
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			break
		}
		x = p.X
	}
	_, ok := x.(*ast.ColumnRef)
	return ok
}

// expandStars returns q with * and t.* of its select list written out as
// the input's columns, for an aggregate query: each is then a grouped
// column or refused (SQL306), as in Flink, where SELECT * … GROUP BY k
// fails unless every column is grouped. (The select list of an aggregate
// is bound over the aggregate's output, which has no columns by name.) A
// t.* that matches no column stays, for the binder to report.
func expandStars(q *ast.Select, scope *expr.Scope) *ast.Select {
	if !slices.ContainsFunc(q.Fields, func(f *ast.SelectItem) bool { return f.Star }) {
		return q
	}
	out := *q
	out.Fields = nil
	for _, f := range q.Fields {
		if !f.Star {
			out.Fields = append(out.Fields, f)
			continue
		}
		n := len(out.Fields)
		for _, c := range scope.Cols {
			if c.Name == "" || f.Qualifier != nil && c.Qualifier != f.Qualifier.Name {
				continue
			}
			ref := &ast.ColumnRef{Loc: f.Loc, Name: &ast.Ident{Loc: f.Loc, Name: c.Name}, Qualifier: qualIdent(c.Qualifier, f.Loc)}
			out.Fields = append(out.Fields, &ast.SelectItem{Loc: f.Loc, Expr: ref})
		}
		if len(out.Fields) == n {
			out.Fields = append(out.Fields, f)
		}
	}
	return &out
}
