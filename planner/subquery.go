package planner

import (
	"slices"
	"strconv"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// Subqueries in WHERE, as Flink plans them (FlinkSubQueryRemoveRule): a
// conjunct of WHERE that is x [NOT] IN (SELECT …) or [NOT] EXISTS (SELECT
// …) becomes a semi join (IN, EXISTS) or an anti join (NOT IN, NOT
// EXISTS) of the query's rows with the subquery's. The subquery may name
// the outer query's columns in its WHERE (a correlated subquery): those
// conjuncts become the join's condition, the rest filter the subquery's
// rows. A name resolves in the subquery's FROM first, then in the outer
// query's, as SQL says.
//
// x NOT IN (S) is true when no s of S makes x = s true or unknown (SQL's
// three-valued logic: 1 NOT IN (2, NULL) is unknown, and WHERE drops the
// row): the anti join's condition is x = s OR x IS NULL OR s IS NULL,
// which is a plain key equality only when neither can be NULL.
//
// A subquery anywhere else (under OR, in the select list, in ON) is
// refused by the expression binder (SQL315).

// subqueryConj recognises a WHERE conjunct that is a subquery condition:
// the subquery, the IN operand (nil for EXISTS) and whether it is negated.
func subqueryConj(e ast.Expr) (sq *ast.SubqueryExpr, x ast.Expr, not, ok bool) {
	for {
		switch p := e.(type) {
		case *ast.Paren:
			e = p.X
			continue
		case *ast.Unary:
			if p.Op == "NOT" {
				sq, x, not, ok = subqueryConj(p.X)
				return sq, x, !not, ok
			}
		case *ast.SubqueryExpr:
			if p.Exists {
				return p, nil, false, true
			}
		case *ast.In:
			if len(p.List) == 1 {
				if s, isSub := p.List[0].(*ast.SubqueryExpr); isSub && !s.Exists {
					return s, p.X, p.Not, true
				}
			}
		}
		return nil, nil, false, false
	}
}

// astConjuncts splits e at its top-level ANDs.
func astConjuncts(e ast.Expr) []ast.Expr {
	switch x := e.(type) {
	case *ast.Binary:
		if x.Op == "AND" {
			return append(astConjuncts(x.L), astConjuncts(x.R)...)
		}
	case *ast.Paren:
		if b, ok := x.X.(*ast.Binary); ok && b.Op == "AND" {
			return astConjuncts(b)
		}
	}
	return []ast.Expr{e}
}

// where binds a WHERE clause over node: its subquery conjuncts become semi
// and anti joins, the rest a filter below them. It returns nil after
// reporting.
func (b *binder) where(node logical.Node, tables []expr.ScopeTable, w ast.Expr) logical.Node {
	var plain []ast.Expr
	type subq struct {
		conj ast.Expr
		sq   *ast.SubqueryExpr
		x    ast.Expr
		not  bool
	}
	var subs []subq
	for _, c := range astConjuncts(w) {
		if sq, x, not, ok := subqueryConj(c); ok {
			subs = append(subs, subq{c, sq, x, not})
			continue
		}
		plain = append(plain, c)
	}
	scope := scopeOf(node.Columns(), tables)
	if len(plain) > 0 {
		bd := &expr.Binder{Scope: scope, L: b.l, Clause: "WHERE"}
		var conds []expr.Expr
		failed := false
		for _, c := range plain {
			x := bd.BindBool(c)
			if x == nil {
				failed = true
				continue
			}
			conds = append(conds, x)
		}
		if failed {
			return nil
		}
		node = &logical.Filter{Input: node, Cond: expr.And(conds...), S: w.Span()}
	}
	for _, s := range subs {
		node = b.semiJoin(node, tables, s.conj, s.sq, s.x, s.not)
		if node == nil {
			return nil
		}
	}
	return node
}

// semiJoin joins outer with the rows of subquery sq: a semi join (EXISTS,
// x IN) or an anti join (NOT EXISTS, x NOT IN).
func (b *binder) semiJoin(outer logical.Node, tables []expr.ScopeTable, conj ast.Expr, sq *ast.SubqueryExpr, x ast.Expr, not bool) logical.Node {
	what := "EXISTS"
	if x != nil {
		what = "IN"
	}
	if not {
		what = "NOT " + what
	}
	outerCols := outer.Columns()
	nOuter := len(outerCols)
	outerScope := scopeOf(outerCols, tables)

	// The subquery's rows, its WHERE conjuncts that name the outer query
	// (the correlation), and its select list.
	var inner logical.Node
	var innerTables []expr.ScopeTable
	var corrAst []ast.Expr
	var fields []*ast.SelectItem
	if sel, ok := sq.Query.(*ast.Select); ok && simpleSelect(sel) {
		r := b.from(sel.From)
		if r == nil {
			return nil
		}
		b.hints(sel.Hints, r)
		inner, innerTables, fields = r.node, r.tables, sel.Fields
		if sel.Where != nil {
			// Conjuncts that name only the subquery's own columns filter
			// its rows (subqueries among them too); the others relate the
			// two queries.
			var own []ast.Expr
			innerScope := scopeOf(inner.Columns(), innerTables)
			for _, c := range astConjuncts(sel.Where) {
				if readsOnly(c, innerScope) {
					own = append(own, c)
				} else {
					corrAst = append(corrAst, c)
				}
			}
			if len(own) > 0 {
				if inner = b.where(inner, innerTables, andOf(own)); inner == nil {
					return nil
				}
			}
		}
	} else {
		// GROUP BY, DISTINCT, UNION …: the subquery is planned as a
		// query of its own, which cannot name the outer query.
		inner = b.query(sq.Query)
		if inner == nil {
			return nil
		}
	}
	innerCols := inner.Columns()
	innerScope := scopeOf(innerCols, innerTables)

	// The join condition is over the outer columns followed by the
	// subquery's. A column resolves in the subquery first, then outside.
	comb := &expr.Scope{Tables: append(append([]expr.ScopeTable(nil), innerTables...), tables...)}
	comb.Cols = append(append(comb.Cols, outerScope.Cols...), innerScope.Cols...)
	var xBound expr.Expr
	hook := func(e ast.Expr) (expr.Expr, bool) {
		if e == x && xBound != nil {
			return xBound, true
		}
		ref, ok := e.(*ast.ColumnRef)
		if !ok {
			return nil, false
		}
		if names(innerScope, ref) {
			// The subquery's own column (an ambiguous name is reported).
			i := innerScope.Resolve(ref, b.l)
			if i < 0 {
				return &expr.Const{T: types.New(types.Null), S: ref.S}, true
			}
			c := innerScope.Cols[i]
			return &expr.Column{Index: nOuter + i, Name: c.Name, T: c.T, S: ref.S}, true
		}
		var scratch diag.List
		if i := outerScope.Resolve(ref, &scratch); i >= 0 {
			c := outerScope.Cols[i]
			return &expr.Column{Index: i, Name: c.Name, T: c.T, S: ref.S}, true
		}
		// Report it where the user meant it: the outer query's when it
		// names one of its tables, else the subquery's.
		report := innerScope
		for _, t := range tables {
			if ref.Qualifier != nil && t.Alias == ref.Qualifier.Name {
				report = outerScope
			}
		}
		report.Resolve(ref, b.l)
		return &expr.Const{T: types.New(types.Null), S: ref.S}, true
	}
	bd := &expr.Binder{Scope: comb, L: b.l, Hook: hook, Clause: "the subquery's WHERE"}
	var conds []expr.Expr
	for _, c := range corrAst {
		e := bd.BindBool(c)
		if e == nil {
			return nil
		}
		conds = append(conds, e)
	}

	if x != nil {
		// x [NOT] IN (SELECT s …): the subquery has one column.
		var s ast.Expr
		var sCol expr.Expr
		switch {
		case fields != nil:
			if len(fields) != 1 || fields[0].Star {
				b.errorf(diag.SetOpMismatch, sq.S, "the subquery of %s must select exactly one column", what)
				return nil
			}
			s = fields[0].Expr
		case len(innerCols) != 1:
			b.errorf(diag.SetOpMismatch, sq.S, "the subquery of %s must select exactly one column, not %d", what, len(innerCols))
			return nil
		default:
			c := innerCols[0]
			sCol = &expr.Column{Index: nOuter, Name: c.Name, T: c.Type, S: sq.S}
		}
		ob := &expr.Binder{Scope: outerScope, L: b.l, Clause: "WHERE"}
		if xBound = ob.Bind(x); xBound == nil {
			return nil
		}
		var eq expr.Expr
		if sCol != nil {
			// Bind x = s with s already bound: the hook hands back both.
			sx := &ast.ColumnRef{Loc: ast.Loc{S: sq.S}, Name: &ast.Ident{Loc: ast.Loc{S: sq.S}, Name: "$s"}}
			sb := &expr.Binder{Scope: comb, L: b.l, Clause: "WHERE", Hook: func(e ast.Expr) (expr.Expr, bool) {
				if e == x {
					return xBound, true
				}
				if e == sx {
					return sCol, true
				}
				return nil, false
			}}
			eq = sb.BindBool(&ast.Binary{Loc: ast.Loc{S: conj.Span()}, Op: "=", L: x, R: sx})
		} else {
			eq = bd.BindBool(&ast.Binary{Loc: ast.Loc{S: conj.Span()}, Op: "=", L: x, R: s})
		}
		if eq == nil {
			return nil
		}
		if not {
			// (x = s) IS NOT FALSE: NULL on either side counts as a match.
			eq = notFalse(eq)
		}
		conds = append(conds, eq)
	} else {
		// EXISTS ignores what the subquery selects, but it must be valid.
		for _, f := range fields {
			if !f.Star && bd.Bind(f.Expr) == nil {
				return nil
			}
		}
	}
	kind := ast.SemiJoin
	if not {
		kind = ast.AntiJoin
	}
	cols := make([]logical.Column, nOuter)
	for i, c := range outerCols {
		cols[i] = c
		// Rows leave a semi or anti join whenever the subquery's side
		// changes: the time columns become plain ones, as after a regular
		// join.
		cols[i].Time = expr.NoTime
	}
	return &logical.Join{Kind: kind, Left: outer, Right: inner, Cond: expr.And(conds...), Keyword: conj.Span(), Cols: cols, S: conj.Span()}
}

// notFalse is e IS NOT FALSE, written so that the join-key rule still sees
// an equality when neither side can be NULL.
func notFalse(eq expr.Expr) expr.Expr {
	c, ok := eq.(*expr.Call)
	if !ok || c.Fn != "=" || len(c.Args) != 2 {
		return &expr.Call{Fn: "IS_NOT_FALSE", Args: []expr.Expr{eq}, T: types.New(types.Boolean).NotNull(), S: eq.Span()}
	}
	if !c.Args[0].Type().Nullable && !c.Args[1].Type().Nullable {
		return eq
	}
	boolT := types.New(types.Boolean).NotNull()
	isNull := func(a expr.Expr) expr.Expr {
		return &expr.Call{Fn: "IS_NULL", Args: []expr.Expr{a}, T: boolT, S: eq.Span()}
	}
	or := func(a, b expr.Expr) expr.Expr {
		return &expr.Call{Fn: "OR", Args: []expr.Expr{a, b}, T: types.New(types.Boolean), S: eq.Span()}
	}
	return or(or(eq, isNull(c.Args[0])), isNull(c.Args[1]))
}

// simpleSelect reports whether a subquery is a plain SELECT [DISTINCT] …
// FROM … WHERE …, whose WHERE may name the outer query (DISTINCT changes
// nothing for a semi or anti join).
func simpleSelect(s *ast.Select) bool {
	if s.From == nil || len(s.GroupBy) > 0 || s.Having != nil || len(s.OrderBy) > 0 || s.Limit != nil || hasOver(s) {
		return false
	}
	for _, f := range s.Fields {
		if f.Expr != nil && containsAgg(f.Expr) {
			return false
		}
	}
	return true
}

// readsOnly reports whether every column e names resolves in scope (e
// names no outer column).
func readsOnly(e ast.Expr, scope *expr.Scope) bool {
	ok := true
	ast.Inspect(e, func(x ast.Expr) bool {
		if _, isSub := x.(*ast.SubqueryExpr); isSub {
			return false // its own scope; bound later
		}
		if ref, isRef := x.(*ast.ColumnRef); isRef && !names(scope, ref) {
			ok = false
		}
		return ok
	})
	return ok
}

// names reports whether some column of scope has ref's name (and
// qualifier, if it has one).
func names(scope *expr.Scope, ref *ast.ColumnRef) bool {
	for _, c := range scope.Cols {
		if c.Name == ref.Name.Name && (ref.Qualifier == nil || c.Qualifier == ref.Qualifier.Name) {
			return true
		}
	}
	return false
}

// andOf joins conjuncts with AND.
func andOf(es []ast.Expr) ast.Expr {
	out := es[0]
	for _, e := range es[1:] {
		out = &ast.Binary{Loc: ast.Loc{S: out.Span().Join(e.Span())}, Op: "AND", L: out, R: e}
	}
	return out
}

// lateral binds FROM left, LATERAL (SELECT … FROM t WHERE corr [ORDER BY o
// LIMIT n]) as Flink decorrelates it: the conjuncts of the subquery's WHERE
// that name left's columns must be equalities (= or IS NOT DISTINCT FROM)
// between an expression of t and one of left (corr); they become the join's condition (returned, over
// left's columns then the subquery's). With ORDER BY … LIMIT n, the
// subquery's rows are first ranked per correlation value: ROW_NUMBER()
// OVER (PARTITION BY the t side of corr ORDER BY o) <= n, a Top-N (an
// updating output, as Flink's Rank). The t side of each equality is an
// extra column of the subquery without a name (* leaves it out).
func (b *binder) lateral(left *rel, sq *ast.Subquery) (*rel, []expr.Expr) {
	const shape = "a LATERAL subquery is supported as SELECT … FROM … WHERE <inner column> = <outer column> [AND …] [ORDER BY … LIMIT n]"
	sel, ok := sq.Query.(*ast.Select)
	if !ok || sel.From == nil || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Distinct || hasOver(sel) {
		b.errorf(diag.UnsupportedFeature, sq.S, "%s", shape)
		return nil, nil
	}
	for _, f := range sel.Fields {
		if f.Expr != nil && containsAgg(f.Expr) {
			b.errorf(diag.UnsupportedFeature, f.S, "%s: without aggregates", shape)
			return nil, nil
		}
	}
	if (len(sel.OrderBy) > 0) != (sel.Limit != nil) {
		b.errorf(diag.UnsupportedFeature, sq.S, "%s: ORDER BY and LIMIT go together (the top n rows of each outer row)", shape)
		return nil, nil
	}
	r := b.from(sel.From)
	if r == nil {
		return nil, nil
	}
	inner := r.node
	innerScope := scopeOf(inner.Columns(), r.tables)
	outerCols := left.node.Columns()
	outerScope := scopeOf(outerCols, left.tables)
	var own []ast.Expr
	type pair struct {
		in, out  expr.Expr
		nullSafe bool // IS NOT DISTINCT FROM: NULL matches NULL
	}
	var corr []pair
	if sel.Where != nil {
		for _, c := range astConjuncts(sel.Where) {
			if readsOnly(c, innerScope) {
				own = append(own, c)
				continue
			}
			eq, isEq := c.(*ast.Binary)
			if !isEq || eq.Op != "=" && eq.Op != "IS NOT DISTINCT FROM" {
				b.errorf(diag.UnsupportedFeature, c.Span(), "%s: this condition names the outer query but is no equality", shape)
				return nil, nil
			}
			a, z := eq.L, eq.R
			if !readsOnly(a, innerScope) {
				a, z = z, a
			}
			if !readsOnly(a, innerScope) || !readsOnly(z, outerScope) {
				b.errorf(diag.UnsupportedFeature, c.Span(), "%s: each side of this equality must name one query's columns", shape)
				return nil, nil
			}
			ib := &expr.Binder{Scope: innerScope, L: b.l, Clause: "the LATERAL subquery's WHERE"}
			ob := &expr.Binder{Scope: outerScope, L: b.l, Clause: "the LATERAL subquery's WHERE"}
			x, y := ib.Bind(a), ob.Bind(z)
			if x == nil || y == nil {
				return nil, nil
			}
			if !types.Comparable(x.Type(), y.Type()) {
				b.errorf(diag.TypeMismatch, c.Span(), "cannot compare %s (%s) with %s (%s)", ast.Format(a), x.Type(), ast.Format(z), y.Type())
				return nil, nil
			}
			corr = append(corr, pair{x, y, eq.Op == "IS NOT DISTINCT FROM"})
		}
	}
	if len(corr) == 0 {
		b.errorf(diag.UnsupportedFeature, sq.S, "%s: its WHERE names no column of the outer query; without one, write a plain join", shape)
		return nil, nil
	}
	if len(own) > 0 {
		// Filters of the subquery's own rows (the columns stay the same).
		if inner = b.where(inner, r.tables, andOf(own)); inner == nil {
			return nil, nil
		}
	}
	if sel.Limit != nil {
		lit, isLit := sel.Limit.(*ast.Literal)
		var n int64
		if isLit && lit.Kind == ast.IntLit {
			n, _ = strconv.ParseInt(lit.Raw, 10, 64)
		}
		if n <= 0 {
			b.errorf(diag.UnsupportedFeature, sel.Limit.Span(), "LIMIT of a LATERAL subquery must be a positive whole number")
			return nil, nil
		}
		in := inner.Columns()
		rank := &logical.Rank{Input: inner, Func: "ROW_NUMBER", Start: 1, RankCol: true, FuncSpan: sel.Limit.Span(), S: sq.S}
		for _, c := range corr {
			rank.Partition = append(rank.Partition, c.in)
		}
		ob := &expr.Binder{Scope: scopeOf(in, r.tables), L: b.l, Clause: "ORDER BY"}
		for _, o := range sel.OrderBy {
			x := ob.Bind(o.Expr)
			if x == nil {
				return nil, nil
			}
			if !types.Comparable(x.Type(), x.Type()) {
				b.errorf(diag.TypeMismatch, o.S, "cannot order by %s: %s values have no order", ast.Format(o.Expr), x.Type())
				return nil, nil
			}
			rank.Order = append(rank.Order, logical.SortKey{Expr: x, Desc: o.Desc})
		}
		bigint := types.New(types.BigInt).NotNull()
		rank.Cols = append(slices.Clone(in), logical.Column{Name: "$rn", Type: bigint})
		rn := &expr.Column{Index: len(in), Name: "$rn", T: bigint, S: sel.Limit.Span()}
		cond := &expr.Call{Fn: "<=", Args: []expr.Expr{rn, &expr.Const{V: n, T: bigint, S: sel.Limit.Span()}}, T: types.New(types.Boolean).NotNull(), S: sel.Limit.Span()}
		inner = &logical.Filter{Input: rank, Cond: cond, S: sel.Limit.Span()}
	}
	// The select list over the subquery's rows, then the inner side of
	// each correlation as a column without a name.
	p := b.project(sel, inner, scopeOf(inner.Columns(), r.tables), r.tables, nil)
	if p == nil {
		return nil, nil
	}
	proj := p.(*logical.Project)
	for _, c := range corr {
		proj.Exprs = append(proj.Exprs, c.in)
		proj.Cols = append(proj.Cols, logical.Column{Type: c.in.Type()})
	}
	alias := ""
	if sq.Alias != nil {
		alias = sq.Alias.Name
	}
	out := requalify(proj, alias, alias, sq.S)
	nL := len(outerCols)
	nR := len(proj.Cols)
	var conds []expr.Expr
	for i, c := range corr {
		in := &expr.Column{Index: nL + nR - len(corr) + i, T: c.in.Type(), S: sq.S}
		if c.nullSafe {
			conds = append(conds, &expr.Call{Fn: "IS NOT DISTINCT FROM", Args: []expr.Expr{c.out, in}, T: types.New(types.Boolean).NotNull(), S: sq.S})
			continue
		}
		conds = append(conds, &expr.Call{Fn: "=", Args: []expr.Expr{c.out, in}, T: types.New(types.Boolean), S: sq.S})
	}
	return out, conds
}
