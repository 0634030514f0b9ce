package parser

import (
	"regexp"
	"strconv"
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"
	tast "github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// query parses the tokens from the current one up to index end as a query.
func (p *stmtParser) query(end int) ast.Query {
	toks := p.toks[p.i:end]
	if len(toks) == 0 {
		p.expectedf("a query (SELECT ...)")
	}
	q := parseQueryRegion(p.src, toks, p.l)
	p.i = end
	if q == nil {
		panic(bailout{})
	}
	return q
}

func newTiDB() *tidb.Parser {
	tp := tidb.New()
	// Flink: || concatenates, and a backslash in a string is just a backslash.
	tp.SetSQLMode(mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	return tp
}

// checkParens reports the first unbalanced parenthesis of a region.
func checkParens(toks []token, l *diag.List) bool {
	var open []token
	for _, t := range toks {
		switch {
		case t.isOp("("):
			open = append(open, t)
		case t.isOp(")"):
			if len(open) == 0 {
				l.Errorf(diag.UnbalancedParen, t.span(), "unexpected ')': no '(' is open here")
				return false
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		t := open[len(open)-1]
		l.Errorf(diag.UnbalancedParen, t.span(), "'(' is never closed: expected ')' before the end of the statement")
		return false
	}
	return true
}

// parseQueryRegion parses tokens as one query. It returns nil after
// reporting errors.
func parseQueryRegion(src string, toks []token, l *diag.List) ast.Query {
	if !checkParens(toks, l) {
		return nil
	}
	if len(toks) > 0 && toks[0].is("VALUES") {
		// VALUES … as the whole query: SELECT * FROM (VALUES …).
		v, ok := parseValues(src, toks, l)
		if !ok {
			return nil
		}
		sel := &ast.Select{From: v, Fields: []*ast.SelectItem{{Loc: v.Loc, Star: true}}}
		sel.S = v.S
		return sel
	}
	rw := newRewriter(src, toks, l)
	if rw.failed {
		return nil
	}
	text := rw.text()
	stmts, _, err := newTiDB().ParseSQL(text)
	if err != nil {
		reportTiDBError(err, text, 0, rw, l)
		return nil
	}
	if len(stmts) != 1 {
		l.Errorf(diag.SyntaxError, toks[0].span(), "expected one query here")
		return nil
	}
	c := &conv{rw: rw, toks: toks, l: l}
	var q ast.Query
	func() {
		defer func() { c.recovered(recover()) }()
		q = c.query(stmts[0])
	}()
	if c.failed {
		return nil
	}
	return q
}

// parseExprRegion parses tokens as one scalar expression (a computed
// column, a watermark, an AS OF expression). It returns nil after reporting
// errors.
func parseExprRegion(src string, toks []token, l *diag.List) ast.Expr {
	if len(toks) == 0 {
		return nil
	}
	if !checkParens(toks, l) {
		return nil
	}
	rw := newRewriter(src, toks, l)
	if rw.failed {
		return nil
	}
	const prefix = "SELECT "
	text := prefix + rw.text()
	stmts, _, err := newTiDB().ParseSQL(text)
	if err != nil {
		reportTiDBError(err, text, len(prefix), rw, l)
		return nil
	}
	sel, ok := stmts[0].(*tast.SelectStmt)
	if len(stmts) != 1 || !ok || sel.From != nil || len(sel.Fields.Fields) != 1 || sel.Where != nil {
		l.Errorf(diag.SyntaxError, diag.Span{Start: toks[0].start, End: toks[len(toks)-1].end}, "expected a single expression here")
		return nil
	}
	c := &conv{rw: rw, toks: toks, l: l}
	var e ast.Expr
	func() {
		defer func() { c.recovered(recover()) }()
		f := sel.Fields.Fields[0]
		if f.Expr == nil {
			c.failf(diag.SyntaxError, toks[0].span(), "expected an expression, found *")
		}
		e = c.expr(f.Expr)
		if rest := c.nextVisible(); rest >= 0 {
			c.failf(diag.SyntaxError, toks[rest].span(), "unexpected %s after the expression", toks[rest].describe())
		}
	}()
	if c.failed {
		return nil
	}
	return e
}

var tidbErrRE = regexp.MustCompile(`line (\d+) column (\d+) near "((?s).*)"`)

// reportTiDBError turns a TiDB syntax error into a diagnostic at the user's
// position, saying what was expected where the previous token tells.
func reportTiDBError(err error, text string, prefix int, rw *rewriter, l *diag.List) {
	msg := err.Error()
	off := len(text)
	if m := tidbErrRE.FindStringSubmatch(msg); m != nil {
		near := m[3]
		if strings.HasSuffix(text, near) {
			off = len(text) - len(near)
		} else if i := strings.Index(text, near); near != "" && i >= 0 {
			off = i
		}
	}
	pos := rw.origPos(max(off-prefix, 0))
	noun := "query"
	if prefix > 0 {
		noun = "expression"
	}
	// Find the token at or after pos, and the one before it.
	at, prev := -1, -1
	for k, t := range rw.toks {
		if t.end <= pos {
			prev = k
			continue
		}
		if t.start >= pos || t.end > pos {
			at = k
			break
		}
	}
	if at < 0 {
		var end diag.Pos
		if n := len(rw.toks); n > 0 {
			end = rw.toks[n-1].end
		}
		sp := diag.Span{Start: end, End: end}
		if prev >= 0 {
			l.Errorf(diag.UnexpectedEnd, sp, "%s ends too early after %s: expected %s", noun, rw.toks[prev].describe(), expectedAfter(rw.toks, prev))
		} else {
			l.Errorf(diag.UnexpectedEnd, sp, "%s ends too early", noun)
		}
		return
	}
	t := rw.toks[at]
	sp := t.span()
	switch {
	case prev >= 0 && t.isOp(",") && rw.toks[prev].isOp(","):
		l.Errorf(diag.SyntaxError, sp, "expected an expression between the two commas")
	case prev >= 0 && (t.is("FROM") || t.is("WHERE")) && rw.toks[prev].isOp(","):
		l.Errorf(diag.SyntaxError, rw.toks[prev].span(), "unexpected ',' before %s: remove the trailing comma", strings.ToUpper(t.val))
	case t.kind == tIdent && ast.IsReserved(t.val) && prev >= 0 && (rw.toks[prev].is("AS") || rw.toks[prev].isOp(".") || rw.toks[prev].isOp(",") || rw.toks[prev].is("SELECT")):
		l.Errorf(diag.SyntaxError, sp, "%s is a reserved word; quote it as `%s` to use it as a name", strings.ToUpper(t.val), t.val)
	case prev >= 0:
		l.Errorf(diag.SyntaxError, sp, "syntax error at %s: expected %s after %s", t.describe(), expectedAfter(rw.toks, prev), rw.toks[prev].describe())
	default:
		l.Errorf(diag.SyntaxError, sp, "syntax error at %s: expected SELECT", t.describe())
	}
}

// expectedAfter names what may follow the token at index k.
func expectedAfter(toks []token, k int) string {
	t := toks[k]
	switch {
	case t.is("SELECT") || t.is("DISTINCT"):
		return "a select list (columns or expressions)"
	case t.is("FROM") && k > 0 && toks[k-1].is("DISTINCT") && k > 1 && (toks[k-2].is("IS") || toks[k-2].is("NOT")):
		return "an expression" // x IS [NOT] DISTINCT FROM y
	case t.is("FROM") || t.is("JOIN"):
		return "a table name"
	case t.is("WHERE") || t.is("AND") || t.is("OR") || t.is("NOT") || t.is("HAVING") || t.is("WHEN") || t.is("THEN") || t.is("ELSE") || t.is("BETWEEN"):
		return "an expression"
	case t.is("ON"):
		return "a join condition"
	case t.is("BY"):
		return "an expression to group or order by"
	case t.is("GROUP") || t.is("ORDER"):
		return "BY"
	case t.is("AS"):
		return "an alias"
	case t.kind == tOp && t.val != ")" && t.val != "*":
		return "an expression"
	case t.isName() && k > 0 && toks[k-1].is("JOIN"), t.isName() && k > 1 && toks[k-2].is("JOIN"):
		return "ON and a join condition"
	}
	return "a continuation of the query"
}

// conv converts TiDB's tree into ours. It walks the tree in source order and
// keeps a cursor over the region's tokens, so each node finds the tokens it
// was written with and gets their span in the original text.
type conv struct {
	rw     *rewriter
	toks   []token
	pos    int
	l      *diag.List
	failed bool
}

// recovered takes what recover returned in a deferred call: a bailout
// from failf marks the conversion failed; any other panic goes on.
func (c *conv) recovered(r any) {
	if r != nil {
		if _, ok := r.(bailout); !ok {
			panic(r)
		}
		c.failed = true
	}
}

func (c *conv) failf(code diag.Code, sp diag.Span, format string, args ...any) {
	c.l.Errorf(code, sp, format, args...)
	panic(bailout{})
}

// nextVisible returns the index of the next token not hidden by a rewrite,
// or -1.
func (c *conv) nextVisible() int {
	for k := c.pos; k < len(c.toks); k++ {
		if !c.rw.hidden[k] {
			return k
		}
	}
	return -1
}

// here is the span of the next visible token (for errors about a node whose
// own tokens are not known).
func (c *conv) here() diag.Span {
	if k := c.nextVisible(); k >= 0 {
		return c.toks[k].span()
	}
	if n := len(c.toks); n > 0 {
		return diag.Span{Start: c.toks[n-1].end, End: c.toks[n-1].end}
	}
	return diag.NoSpan
}

// find moves the cursor past the next visible token that satisfies f and
// returns its index, or -1 (and does not move) when there is none. The
// search never leaves the parenthesised group or the comma-separated item it
// starts in, so a token the converter does not expect cannot make it run
// away into the rest of the query.
func (c *conv) find(f func(token) bool) int {
	depth := 0
	for k := c.pos; k < len(c.toks); k++ {
		if c.rw.hidden[k] {
			continue
		}
		t := c.toks[k]
		if f(t) {
			c.pos = k + 1
			return k
		}
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			if depth == 0 {
				return -1
			}
			depth--
		case t.isOp(",") && depth == 0:
			return -1
		}
	}
	return -1
}

func isComma(t token) bool { return t.isOp(",") }

// accept moves past the next visible token if it satisfies f.
func (c *conv) accept(f func(token) bool) int {
	if k := c.nextVisible(); k >= 0 && f(c.toks[k]) {
		c.pos = k + 1
		return k
	}
	return -1
}

func (c *conv) findWord(w string) int { return c.find(func(t token) bool { return t.is(w) }) }
func (c *conv) findOp(op string) int  { return c.find(func(t token) bool { return t.isOp(op) }) }

// peekIs reports whether the next visible token satisfies f.
func (c *conv) peekIs(f func(token) bool) bool {
	k := c.nextVisible()
	return k >= 0 && f(c.toks[k])
}

func (c *conv) spanOf(k int) diag.Span {
	if k < 0 {
		return c.here()
	}
	return c.toks[k].span()
}

// identTok finds the token of a name.
func (c *conv) identTok(name string) int {
	return c.find(func(t token) bool { return t.isName() && strings.EqualFold(t.val, name) })
}

func (c *conv) ident(name string) *ast.Ident {
	k := c.identTok(name)
	id := &ast.Ident{Name: name}
	id.S = c.spanOf(k)
	if k >= 0 {
		id.Name = c.toks[k].val
		id.Quoted = c.toks[k].kind == tQIdent
	}
	return id
}

// ---- queries ----

func (c *conv) query(n tast.Node) ast.Query {
	switch n := n.(type) {
	case *tast.SelectStmt:
		if n.With != nil {
			w := c.with(n.With)
			n.With = nil
			w.Body = c.selectStmt(n)
			w.S = w.S.Join(w.Body.Span())
			return w
		}
		return c.selectStmt(n)
	case *tast.SetOprStmt:
		var w *ast.With
		if n.With != nil {
			w = c.with(n.With)
		}
		if n.OrderBy != nil || n.Limit != nil {
			c.failf(diag.UnsupportedSyntax, c.here(), "ORDER BY and LIMIT on a UNION are not supported")
		}
		q := c.setOprList(n.SelectList)
		if w != nil {
			w.Body = q
			w.S = w.S.Join(q.Span())
			return w
		}
		return q
	}
	c.failf(diag.UnsupportedSyntax, c.here(), "this kind of query is not supported")
	return nil
}

// with reads WITH name [(col, ...)] AS (query), ...; the caller reads the
// body after it.
func (c *conv) with(w *tast.WithClause) *ast.With {
	k := c.findWord("WITH")
	out := &ast.With{}
	out.S = c.spanOf(k)
	if w.IsRecursive {
		c.failf(diag.UnsupportedFeature, c.spanOf(c.findWord("RECURSIVE")), "WITH RECURSIVE is not supported (Flink has no recursive queries)")
	}
	for i, cte := range w.CTEs {
		if i > 0 {
			c.accept(isComma)
		}
		d := &ast.CTE{Name: c.ident(cte.Name.O)}
		if len(cte.ColNameList) > 0 {
			c.findOp("(")
			for j, col := range cte.ColNameList {
				if j > 0 {
					c.accept(isComma)
				}
				d.Columns = append(d.Columns, c.ident(col.O))
			}
			c.findOp(")")
		}
		c.findWord("AS")
		c.findOp("(")
		if cte.Query == nil || cte.Query.Query == nil {
			c.failf(diag.UnsupportedSyntax, d.Name.S, "WITH %s: expected AS (query)", d.Name.Name)
		}
		d.Query = c.query(cte.Query.Query)
		closeAt := c.findOp(")")
		d.S = d.Name.S.Join(c.spanOf(closeAt))
		out.CTEs = append(out.CTEs, d)
	}
	return out
}

// setOprList reads a set operation's inputs in order; INTERSECT binds
// tighter than UNION and EXCEPT (as in Flink, PostgreSQL and the SQL
// standard: a UNION b INTERSECT c is a UNION (b INTERSECT c)), which TiDB
// leaves to us with a flat list.
func (c *conv) setOprList(sl *tast.SetOprSelectList) ast.Query {
	var (
		qs  []ast.Query
		ops []*ast.SetOp // ops[i] joins qs[i] to what is before it
	)
	for i, s := range sl.Selects {
		var q ast.Query
		var after *tast.SetOprType
		switch s := s.(type) {
		case *tast.SelectStmt:
			q = c.selectStmt(s)
			after = s.AfterSetOperator
		case *tast.SetOprSelectList:
			open := c.findOp("(")
			q = c.setOprList(s)
			closeAt := c.findOp(")")
			if open >= 0 && closeAt >= 0 {
				if sel, ok := q.(*ast.Select); ok {
					sel.S = diag.Span{Start: c.toks[open].start, End: c.toks[closeAt].end}
				}
			}
			after = s.AfterSetOperator
		default:
			c.failf(diag.UnsupportedSyntax, c.here(), "unsupported set operation input")
		}
		qs = append(qs, q)
		if i == 0 {
			ops = append(ops, nil)
			continue
		}
		op := &ast.SetOp{}
		if after != nil {
			switch *after {
			case tast.Union:
				op.Op = "UNION"
			case tast.UnionAll:
				op.Op, op.All = "UNION", true
			case tast.Except:
				op.Op = "EXCEPT"
			case tast.ExceptAll:
				op.Op, op.All = "EXCEPT", true
			case tast.Intersect:
				op.Op = "INTERSECT"
			case tast.IntersectAll:
				op.Op, op.All = "INTERSECT", true
			}
		}
		ops = append(ops, op)
	}
	if len(qs) == 0 {
		c.failf(diag.SyntaxError, c.here(), "empty set operation")
	}
	join := func(op *ast.SetOp, l, r ast.Query) ast.Query {
		op.Left, op.Right = l, r
		op.S = l.Span().Join(r.Span())
		return op
	}
	// INTERSECT first, then UNION and EXCEPT from left to right.
	var terms []ast.Query
	var between []*ast.SetOp
	cur := qs[0]
	for i := 1; i < len(qs); i++ {
		if ops[i].Op == "INTERSECT" {
			cur = join(ops[i], cur, qs[i])
			continue
		}
		terms = append(terms, cur)
		between = append(between, ops[i])
		cur = qs[i]
	}
	terms = append(terms, cur)
	out := terms[0]
	for i, op := range between {
		out = join(op, out, terms[i+1])
	}
	return out
}

func (c *conv) selectStmt(s *tast.SelectStmt) ast.Query {
	if s.With != nil {
		c.failf(diag.UnsupportedSyntax, c.here(), "WITH inside one input of a set operation is not supported; put the WITH before the whole query")
	}
	if s.Kind != tast.SelectStmtKindSelect {
		c.failf(diag.UnsupportedSyntax, c.here(), "VALUES and TABLE statements are not supported as queries yet")
	}
	open := -1
	if s.IsInBraces {
		open = c.findOp("(")
	}
	selTok := c.findWord("SELECT")
	sel := &ast.Select{Distinct: s.Distinct, Hints: c.rw.hints[selTok]}
	// Past DISTINCT (or ALL): a literal is looked for at the next token.
	if s.Distinct {
		c.findWord("DISTINCT")
	} else {
		c.accept(func(t token) bool { return t.is("ALL") })
	}
	if s.Fields != nil {
		for i, f := range s.Fields.Fields {
			if i > 0 {
				c.accept(isComma)
			}
			sel.Fields = append(sel.Fields, c.field(f))
		}
	}
	if s.From != nil && s.From.TableRefs != nil {
		c.findWord("FROM")
		sel.From = c.join(s.From.TableRefs)
	}
	if s.Where != nil {
		c.findWord("WHERE")
		sel.Where = c.expr(s.Where)
	}
	if s.GroupBy != nil {
		c.findWord("GROUP")
		c.findWord("BY")
		for i, it := range s.GroupBy.Items {
			if i > 0 {
				c.accept(isComma)
			}
			if v, ok := it.Expr.(*tast.VariableExpr); ok && strings.HasPrefix(v.Name, "_g") && !v.IsSystem {
				if n, err := strconv.Atoi(v.Name[2:]); err == nil && n < len(c.rw.groupings) {
					g := c.rw.groupings[n]
					c.skipTo(g.S.End)
					sel.Grouping = append(sel.Grouping, g)
					continue
				}
			}
			sel.GroupBy = append(sel.GroupBy, c.expr(it.Expr))
		}
		if s.GroupBy.Rollup {
			c.failf(diag.UnsupportedSyntax, c.here(), "WITH ROLLUP is not supported")
		}
	}
	if s.Having != nil {
		c.findWord("HAVING")
		sel.Having = c.expr(s.Having.Expr)
	}
	for i := range s.WindowSpecs {
		ws := &s.WindowSpecs[i]
		if i == 0 {
			c.findWord("WINDOW")
		} else {
			c.accept(isComma)
		}
		nw := &ast.NamedWindow{Name: c.ident(ws.Name.O)}
		c.findWord("AS")
		nw.Spec = c.windowSpec(ws)
		nw.S = nw.Name.S.Join(nw.Spec.S)
		sel.Windows = append(sel.Windows, nw)
	}
	if s.OrderBy != nil {
		c.findWord("ORDER")
		c.findWord("BY")
		sel.OrderBy = c.orderItems(s.OrderBy.Items)
	}
	if s.Limit != nil {
		c.findWord("LIMIT")
		if s.Limit.Offset != nil {
			c.failf(diag.UnsupportedSyntax, c.here(), "LIMIT with OFFSET is not supported")
		}
		sel.Limit = c.expr(s.Limit.Count)
	}
	if s.LockInfo != nil && s.LockInfo.LockType != tast.SelectLockNone {
		c.failf(diag.UnsupportedSyntax, c.here(), "locking clauses are not supported")
	}
	start := c.spanOf(selTok).Start
	if open >= 0 {
		start = c.toks[open].start
	}
	end := c.lastEnd()
	if open >= 0 {
		if k := c.findOp(")"); k >= 0 {
			end = c.toks[k].end
		}
	}
	sel.S = diag.Span{Start: start, End: end}
	return sel
}

// lastEnd is the end of the last token the cursor passed.
func (c *conv) lastEnd() diag.Pos {
	if c.pos > 0 {
		return c.toks[c.pos-1].end
	}
	if len(c.toks) > 0 {
		return c.toks[0].end
	}
	return 0
}

// skipTo moves the cursor past the hidden tokens of a rewritten piece that
// ends at end, so that the enclosing node's span covers it.
func (c *conv) skipTo(end diag.Pos) {
	for c.pos < len(c.toks) && c.toks[c.pos].end <= end {
		c.pos++
	}
}

func (c *conv) field(f *tast.SelectField) *ast.SelectItem {
	it := &ast.SelectItem{}
	if f.WildCard != nil {
		it.Star = true
		start := c.here().Start
		if f.WildCard.Table.O != "" {
			it.Qualifier = c.ident(f.WildCard.Table.O)
			start = it.Qualifier.S.Start
		}
		k := c.findOp("*")
		it.S = diag.Span{Start: start, End: c.spanOf(k).End}
		return it
	}
	it.Expr = c.expr(f.Expr)
	it.S = it.Expr.Span()
	if f.AsName.O != "" {
		it.Alias = c.ident(f.AsName.O)
		it.S = it.S.Join(it.Alias.S)
	}
	return it
}

func (c *conv) join(j *tast.Join) ast.TableExpr {
	open := -1
	if j.ExplicitParens {
		open = c.findOp("(")
	}
	left := c.resultSet(j.Left)
	if j.Right == nil {
		if open >= 0 {
			c.findOp(")")
		}
		return left
	}
	out := &ast.Join{Left: left}
	// The join keywords sit between the two inputs.
	if c.peekIs(func(t token) bool { return t.isOp(",") }) {
		c.findOp(",")
		out.Kind = ast.CrossJoin
		out.Keyword = diag.NoSpan
	} else {
		kwStart := c.nextVisible()
		k := c.find(func(t token) bool { return t.is("JOIN") || t.is("STRAIGHT_JOIN") })
		if k < 0 {
			c.failf(diag.SyntaxError, c.here(), "expected JOIN")
		}
		if kwStart < 0 || kwStart > k {
			kwStart = k
		}
		out.Keyword = diag.Span{Start: c.toks[kwStart].start, End: c.toks[k].end}
		switch {
		case c.rw.full[c.toks[k].start]:
			out.Kind = ast.FullJoin
		case j.Tp == tast.LeftJoin:
			out.Kind = ast.LeftJoin
		case j.Tp == tast.RightJoin:
			out.Kind = ast.RightJoin
		case c.toks[kwStart].is("CROSS"):
			out.Kind = ast.CrossJoin
		default:
			out.Kind = ast.InnerJoin
		}
		if j.NaturalJoin {
			c.failf(diag.UnsupportedSyntax, out.Keyword, "NATURAL JOIN is not supported; write the join condition with ON")
		}
	}
	out.Right = c.resultSet(j.Right)
	if j.On != nil {
		c.findWord("ON")
		out.On = c.expr(j.On.Expr)
	}
	if len(j.Using) > 0 {
		c.findWord("USING")
		c.accept(func(t token) bool { return t.isOp("(") })
		for i, u := range j.Using {
			if i > 0 {
				c.accept(isComma)
			}
			out.Using = append(out.Using, c.ident(u.Name.O))
		}
	}
	out.S = left.Span().Join(c.spanOf(c.pos - 1))
	if open >= 0 {
		if k := c.findOp(")"); k >= 0 {
			out.S = diag.Span{Start: c.toks[open].start, End: c.toks[k].end}
		}
	}
	if out.Kind == ast.InnerJoin && out.On == nil && len(out.Using) == 0 {
		out.Kind = ast.CrossJoin
	}
	return out
}

func (c *conv) resultSet(n tast.ResultSetNode) ast.TableExpr {
	switch n := n.(type) {
	case *tast.Join:
		return c.join(n)
	case *tast.TableSource:
		return c.tableSource(n)
	}
	c.failf(diag.UnsupportedSyntax, c.here(), "unsupported FROM item")
	return nil
}

var (
	tvfName    = regexp.MustCompile(`^_tvf(\d+)$`)
	valuesName = regexp.MustCompile(`^_vals(\d+)$`)
	unnestName = regexp.MustCompile(`^_unnest(\d+)$`)
)

func (c *conv) tableSource(ts *tast.TableSource) ast.TableExpr {
	alias := func(start diag.Pos) *ast.Ident {
		if ts.AsName.O == "" {
			return nil
		}
		return c.ident(ts.AsName.O)
	}
	switch src := ts.Source.(type) {
	case *tast.TableName:
		if m := valuesName.FindStringSubmatch(src.Name.O); m != nil {
			i, _ := strconv.Atoi(m[1])
			if i < len(c.rw.values) {
				v := c.rw.values[i]
				c.skipTo(v.S.End)
				return v
			}
		}
		if m := unnestName.FindStringSubmatch(src.Name.O); m != nil {
			i, _ := strconv.Atoi(m[1])
			if i < len(c.rw.unnests) {
				u := c.rw.unnests[i]
				c.skipTo(u.S.End)
				return u
			}
		}
		if m := tvfName.FindStringSubmatch(src.Name.O); m != nil {
			i, _ := strconv.Atoi(m[1])
			if i < len(c.rw.tvfs) {
				w := c.rw.tvfs[i]
				c.skipTo(w.S.End)
				w.Alias = alias(w.S.Start)
				if w.Alias != nil {
					w.S = w.S.Join(w.Alias.S)
				}
				return w
			}
		}
		if src.Schema.O != "" {
			c.failf(diag.UnsupportedFeature, c.here(), "table %s.%s: streamsql has one catalog and database, %s.%s; name the table %s alone or as %s.%s",
				src.Schema.O, src.Name.O, defaultCatalog, defaultDatabase, src.Name.O, defaultDatabase, src.Name.O)
		}
		if src.AsOf != nil || len(src.IndexHints) > 0 || src.TableSample != nil || len(src.PartitionNames) > 0 {
			c.failf(diag.UnsupportedSyntax, c.here(), "unsupported table options after %s", src.Name.O)
		}
		k := c.identTok(src.Name.O)
		tr := &ast.TableRef{Name: &ast.Ident{Name: src.Name.O}}
		tr.Name.S = c.spanOf(k)
		if k >= 0 {
			tr.Name.Name = c.toks[k].val
			tr.Name.Quoted = c.toks[k].kind == tQIdent
			tr.AsOf = c.rw.asOf[k]
			tr.Hints = c.rw.tblHints[k]
			if tr.AsOf != nil {
				c.skipTo(tr.AsOf.Span().End)
			}
		}
		tr.S = tr.Name.S
		tr.Alias = alias(tr.S.Start)
		if tr.Alias != nil {
			tr.S = tr.S.Join(tr.Alias.S)
		}
		if tr.AsOf != nil {
			tr.S = tr.S.Join(tr.AsOf.Span())
		}
		return tr
	case *tast.SelectStmt, *tast.SetOprStmt:
		open := c.findOp("(")
		lateral := open >= 0 && c.rw.lateral[c.toks[open].start]
		q := c.query(src)
		closeAt := c.findOp(")")
		sq := &ast.Subquery{Query: q, Lateral: lateral}
		sq.S = diag.Span{Start: c.spanOf(open).Start, End: c.spanOf(closeAt).End}
		sq.Alias = alias(sq.S.Start)
		if sq.Alias != nil {
			sq.S = sq.S.Join(sq.Alias.S)
		}
		return sq
	case *tast.Join:
		return c.join(src)
	}
	c.failf(diag.UnsupportedSyntax, c.here(), "unsupported FROM item")
	return nil
}

// ---- expressions ----

var binOps = map[opcode.Op]string{
	opcode.LogicAnd: "AND", opcode.LogicOr: "OR", opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<", opcode.LE: "<=",
	opcode.GT: ">", opcode.GE: ">=", opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*", opcode.Div: "/",
	opcode.Mod: "%",
}

func (c *conv) opTok(op string) int {
	switch op {
	case "AND":
		return c.find(func(t token) bool { return t.is("AND") || t.isOp("&&") })
	case "OR":
		return c.find(func(t token) bool { return t.is("OR") })
	case "<>":
		return c.find(func(t token) bool { return t.isOp("<>") || t.isOp("!=") })
	case "%":
		return c.find(func(t token) bool { return t.isOp("%") || t.is("MOD") })
	}
	return c.findOp(op)
}

func (c *conv) exprs(es []tast.ExprNode) []ast.Expr {
	out := make([]ast.Expr, 0, len(es))
	for i, e := range es {
		if i > 0 {
			// Arguments are separated by commas, or by the keywords of
			// special forms such as EXTRACT(HOUR FROM ts).
			c.accept(func(t token) bool { return t.isOp(",") || t.is("FROM") || t.is("FOR") || t.is("IN") })
		}
		out = append(out, c.expr(e))
	}
	return out
}

func (c *conv) expr(e tast.ExprNode) ast.Expr {
	switch e := e.(type) {
	case *tast.ColumnNameExpr:
		n := e.Name
		cr := &ast.ColumnRef{}
		if n.Schema.O != "" {
			// t.r.f: table t's column r's field f (or column t's
			// fields r.f); the binder decides.
			cr.Qualifier = c.ident(n.Schema.O)
			c.accept(func(t token) bool { return t.isOp(".") })
			cr.Name = c.ident(n.Table.O)
			c.accept(func(t token) bool { return t.isOp(".") })
			cr.Path = []*ast.Ident{c.ident(n.Name.O)}
		} else {
			if n.Table.O != "" {
				cr.Qualifier = c.ident(n.Table.O)
				c.accept(func(t token) bool { return t.isOp(".") })
			}
			cr.Name = c.ident(n.Name.O)
		}
		cr.S = cr.Name.S
		if cr.Qualifier != nil {
			cr.S = cr.Qualifier.S.Join(cr.Name.S)
		}
		if len(cr.Path) > 0 {
			cr.S = cr.S.Join(cr.Path[len(cr.Path)-1].S)
		}
		return cr
	case *test_driver.ValueExpr:
		return c.literal(e)
	case *tast.VariableExpr:
		if strings.HasPrefix(e.Name, "_i") && !e.IsSystem {
			if i, err := strconv.Atoi(e.Name[2:]); err == nil && i < len(c.rw.intervals) {
				c.skipTo(c.rw.intervals[i].S.End)
				return c.rw.intervals[i]
			}
		}
		if strings.HasPrefix(e.Name, "_u") && !e.IsSystem {
			if i, err := strconv.Atoi(e.Name[2:]); err == nil && i < len(c.rw.units) {
				c.skipTo(c.rw.units[i].S.End)
				return c.rw.units[i]
			}
		}
		if strings.HasPrefix(e.Name, "_o") && !e.IsSystem {
			if i, err := strconv.Atoi(e.Name[2:]); err == nil && i < len(c.rw.jsonCons) {
				c.skipTo(c.rw.jsonCons[i].S.End)
				return c.rw.jsonCons[i]
			}
		}
		if strings.HasPrefix(e.Name, "_j") && !e.IsSystem {
			if i, err := strconv.Atoi(e.Name[2:]); err == nil && i < len(c.rw.jsons) {
				c.skipTo(c.rw.jsons[i].S.End)
				return c.rw.jsons[i]
			}
		}
		if strings.HasPrefix(e.Name, "_t") && !e.IsSystem {
			if i, err := strconv.Atoi(e.Name[2:]); err == nil && i < len(c.rw.typedLits) {
				c.skipTo(c.rw.typedLits[i].S.End)
				return c.rw.typedLits[i]
			}
		}
		c.failf(diag.UnsupportedSyntax, c.here(), "variables (@%s) are not supported", e.Name)
	case *tast.ParenthesesExpr:
		open := c.findOp("(")
		x := c.expr(e.Expr)
		closeAt := c.findOp(")")
		p := &ast.Paren{X: x}
		p.S = diag.Span{Start: c.spanOf(open).Start, End: c.spanOf(closeAt).End}
		return p
	case *tast.BinaryOperationExpr:
		l := c.expr(e.L)
		if e.Op == opcode.NullEQ {
			return c.distinctFrom(l, e.R)
		}
		op, ok := binOps[e.Op]
		if !ok {
			c.failf(diag.UnsupportedSyntax, c.here(), "operator %s is not supported", opText(e.Op))
		}
		funcForm := false
		if c.opTok(op) < 0 {
			// The function form of an operator, MOD(a, b).
			funcForm = c.accept(isComma) >= 0
		}
		r := c.expr(e.R)
		if funcForm {
			c.accept(func(t token) bool { return t.isOp(")") })
		}
		b := &ast.Binary{Op: op, L: l, R: r}
		b.S = l.Span().Join(r.Span())
		return b
	case *tast.UnaryOperationExpr:
		var op string
		var k int
		switch e.Op {
		case opcode.Not, opcode.Not2:
			op = "NOT"
			k = c.find(func(t token) bool { return t.is("NOT") || t.isOp("!") })
		case opcode.Minus:
			op = "-"
			k = c.findOp("-")
		case opcode.Plus:
			op = "+"
			k = c.findOp("+")
		default:
			c.failf(diag.UnsupportedSyntax, c.here(), "operator %s is not supported", opText(e.Op))
		}
		x := c.expr(e.V)
		u := &ast.Unary{Op: op, X: x}
		u.S = c.spanOf(k).Join(x.Span())
		return u
	case *tast.BetweenExpr:
		x := c.expr(e.Expr)
		c.findWord("BETWEEN")
		lo := c.expr(e.Left)
		c.findWord("AND")
		hi := c.expr(e.Right)
		b := &ast.Between{X: x, Lo: lo, Hi: hi, Not: e.Not}
		b.S = x.Span().Join(hi.Span())
		return b
	case *tast.IsNullExpr:
		x := c.expr(e.Expr)
		k := c.findWord("NULL")
		n := &ast.IsNull{X: x, Not: e.Not}
		n.S = x.Span().Join(c.spanOf(k))
		return n
	case *tast.IsTruthExpr:
		x := c.expr(e.Expr)
		save := c.pos
		if is := c.findWord("IS"); is >= 0 {
			if rec, ok := c.rw.isJSON[is]; ok {
				// x IS [NOT] JSON [kind]: the function IS JSON of x
				// and the kind, under NOT for IS NOT JSON.
				c.pos = rec.last + 1
				kind := &ast.Literal{Kind: ast.StringLitKind, Raw: rec.kind}
				kind.S = c.toks[rec.last].span()
				name := &ast.Ident{Name: "IS JSON"}
				name.S = c.toks[is].span()
				fc := &ast.FuncCall{Name: name, Args: []ast.Expr{x, kind}}
				fc.S = x.Span().Join(c.toks[rec.last].span())
				if !e.Not {
					return fc
				}
				n := &ast.Unary{Op: "NOT", X: fc}
				n.S = fc.S
				return n
			}
		}
		c.pos = save
		k := c.find(func(t token) bool { return t.is("TRUE") || t.is("FALSE") || t.is("UNKNOWN") })
		n := &ast.IsBool{X: x, Not: e.Not, Value: e.True != 0}
		n.S = x.Span().Join(c.spanOf(k))
		return n
	case *tast.PatternInExpr:
		x := c.expr(e.Expr)
		c.findWord("IN")
		if e.Sel != nil {
			// x IN (SELECT ...): the list is the one subquery.
			sq := c.expr(e.Sel)
			in := &ast.In{X: x, List: []ast.Expr{sq}, Not: e.Not}
			in.S = x.Span().Join(sq.Span())
			return in
		}
		c.findOp("(")
		list := c.exprs(e.List)
		k := c.findOp(")")
		in := &ast.In{X: x, List: list, Not: e.Not}
		in.S = x.Span().Join(c.spanOf(k))
		return in
	case *tast.PatternLikeOrIlikeExpr:
		if !e.IsLike {
			c.failf(diag.UnsupportedSyntax, c.here(), "ILIKE is not supported; use LOWER(x) LIKE ...")
		}
		x := c.expr(e.Expr)
		op := c.find(func(t token) bool { return t.is("LIKE") || t.is("SIMILAR") })
		pat := c.expr(e.Pattern)
		lk := &ast.Like{X: x, Pattern: pat, Not: e.Not, Similar: op >= 0 && c.toks[op].is("SIMILAR")}
		lk.S = x.Span().Join(pat.Span())
		for j := c.pos; j < len(c.toks) && j < c.pos+3; j++ {
			if esc, ok := c.rw.escapes[j]; ok {
				lk.Escape = esc
				lk.S = lk.S.Join(esc.S)
				c.pos = j + 2
				break
			}
		}
		return lk
	case *tast.FuncCallExpr:
		if e.Schema.O != "" {
			c.failf(diag.UnsupportedSyntax, c.here(), "a function name qualified by a database (%s.%s) is not supported; call %s(...)", e.Schema.O, e.FnName.O, e.FnName.O)
		}
		if n := c.nestedCall(e); n != nil {
			return n
		}
		return c.funcCall(strings.TrimPrefix(e.FnName.O, renamedPrefix), e.Args, false, false)
	case *tast.AggregateFuncExpr:
		if e.Order != nil {
			c.failf(diag.UnsupportedSyntax, c.here(), "ORDER BY inside an aggregate is not supported")
		}
		return c.funcCall(e.F, e.Args, e.Distinct, true)
	case *tast.FuncCastExpr:
		k := c.find(func(t token) bool { return t.is("CAST") || t.is("TRY_CAST") || t.is("CONVERT") })
		if k < 0 || !c.toks[k].is("CAST") && !c.toks[k].is("TRY_CAST") {
			c.failf(diag.UnsupportedSyntax, c.spanOf(k), "use CAST(x AS type) to convert values")
		}
		rec, ok := c.rw.casts[c.toks[k].start]
		if !ok {
			c.failf(diag.SyntaxError, c.toks[k].span(), "expected CAST(expression AS type)")
		}
		c.findOp("(")
		x := c.expr(e.Expr)
		c.findWord("AS")
		closeAt := c.findOp(")")
		ce := &ast.Cast{X: x, Type: rec.typ, Try: rec.try}
		ce.S = diag.Span{Start: c.toks[k].start, End: c.spanOf(closeAt).End}
		return ce
	case *tast.CaseExpr:
		k := c.findWord("CASE")
		ce := &ast.Case{}
		if e.Value != nil {
			ce.Operand = c.expr(e.Value)
		}
		for _, w := range e.WhenClauses {
			wk := c.findWord("WHEN")
			cond := c.expr(w.Expr)
			c.findWord("THEN")
			res := c.expr(w.Result)
			wh := &ast.When{Cond: cond, Result: res}
			wh.S = c.spanOf(wk).Join(res.Span())
			ce.Whens = append(ce.Whens, wh)
		}
		if e.ElseClause != nil {
			c.findWord("ELSE")
			ce.Else = c.expr(e.ElseClause)
		}
		end := c.findWord("END")
		ce.S = diag.Span{Start: c.spanOf(k).Start, End: c.spanOf(end).End}
		return ce
	case *tast.SubqueryExpr:
		open := c.findOp("(")
		q := c.query(e.Query)
		closeAt := c.findOp(")")
		sq := &ast.SubqueryExpr{Query: q, Exists: e.Exists}
		sq.S = diag.Span{Start: c.spanOf(open).Start, End: c.spanOf(closeAt).End}
		return sq
	case *tast.ExistsSubqueryExpr:
		not := -1
		if e.Not {
			not = c.findWord("NOT")
		}
		k := c.findWord("EXISTS")
		inner := c.expr(e.Sel)
		if sq, ok := inner.(*ast.SubqueryExpr); ok {
			sq.Exists = true
			sq.S = c.spanOf(k).Join(sq.S)
			if e.Not {
				// TiDB folds NOT into the node: it is a NOT over EXISTS.
				u := &ast.Unary{Op: "NOT", X: sq}
				u.S = c.spanOf(not).Join(sq.S)
				return u
			}
			return sq
		}
		c.failf(diag.UnsupportedSyntax, c.spanOf(k), "unsupported EXISTS form")
	case *tast.TimeUnitExpr:
		k := c.find(func(t token) bool { return t.kind == tIdent })
		raw := e.Unit.String()
		if u := strings.ToUpper(c.toks[k].val); flinkOnlyUnits[u] {
			raw = u // the dialect layer gave TiDB DAY in its place
		}
		lit := &ast.Literal{Kind: ast.SymbolLit, Raw: raw}
		lit.S = c.spanOf(k)
		return lit
	case *tast.WindowFuncExpr:
		return c.windowFunc(e)
	case *tast.PositionExpr:
		c.failf(diag.UnsupportedSyntax, c.here(), "positions (GROUP BY 1) are not supported; name the column or repeat the expression")
	case *tast.DefaultExpr, *tast.ValuesExpr, *tast.RowExpr, *tast.MatchAgainst,
		*tast.CompareSubqueryExpr, *tast.TrimDirectionExpr, *tast.SetCollationExpr:
		c.failf(diag.UnsupportedSyntax, c.here(), "this expression is not supported")
	}
	c.failf(diag.UnsupportedSyntax, c.here(), "this expression is not supported")
	return nil
}

// orderItems converts the items of an ORDER BY whose keywords the cursor
// has passed.
// distinctFrom converts x IS [NOT] DISTINCT FROM y, which TiDB read as
// x <=> y (the dialect layer's rewrite), once x is converted: its record
// is the next one after the cursor. A <=> the user wrote was refused by the
// dialect layer.
func (c *conv) distinctFrom(l ast.Expr, re tast.ExprNode) ast.Expr {
	is := -1
	for k := c.pos; k < len(c.toks); k++ {
		if _, ok := c.rw.distinctFrom[k]; ok {
			is = k
			break
		}
	}
	if is < 0 {
		c.failf(diag.UnsupportedSyntax, c.here(), "the operator <=> is not supported: write IS NOT DISTINCT FROM")
	}
	rec := c.rw.distinctFrom[is]
	c.pos = rec.last + 1
	r := c.expr(re)
	op := "IS DISTINCT FROM"
	if rec.not {
		op = "IS NOT DISTINCT FROM"
	}
	b := &ast.Binary{Op: op, L: l, R: r}
	b.S = l.Span().Join(r.Span())
	return b
}

func (c *conv) orderItems(items []*tast.ByItem) []*ast.OrderItem {
	var out []*ast.OrderItem
	for i, it := range items {
		if i > 0 {
			c.accept(isComma)
		}
		e := c.expr(it.Expr)
		oi := &ast.OrderItem{Expr: e, Desc: it.Desc}
		oi.S = e.Span()
		if it.Desc {
			if k := c.findWord("DESC"); k >= 0 {
				oi.S = oi.S.Join(c.toks[k].span())
			}
		} else if k := c.accept(func(t token) bool { return t.is("ASC") }); k >= 0 {
			oi.S = oi.S.Join(c.toks[k].span())
		}
		out = append(out, oi)
	}
	return out
}

// windowFunc converts name(args) OVER window.
func (c *conv) windowFunc(e *tast.WindowFuncExpr) ast.Expr {
	if e.IgnoreNull || e.FromLast {
		c.failf(diag.UnsupportedSyntax, c.here(), "IGNORE NULLS and FROM LAST are not supported in window functions")
	}
	name := strings.ToUpper(e.Name)
	x := c.funcCall(name, e.Args, e.Distinct, tidbAggregates[name])
	fc, ok := x.(*ast.FuncCall)
	if !ok {
		c.failf(diag.UnsupportedSyntax, x.Span(), "unsupported window function")
	}
	k := c.findWord("OVER")
	if e.Spec.OnlyAlias {
		ref := c.ident(e.Spec.Name.O)
		fc.Over = &ast.WindowSpec{Ref: ref}
		fc.Over.S = ref.S
	} else {
		fc.Over = c.windowSpec(&e.Spec)
	}
	if k < 0 {
		c.failf(diag.SyntaxError, fc.S, "expected OVER after %s(...)", name)
	}
	fc.S = fc.S.Join(fc.Over.S)
	return fc
}

// windowSpec converts ([w] [PARTITION BY ...] [ORDER BY ...] [frame]).
func (c *conv) windowSpec(s *tast.WindowSpec) *ast.WindowSpec {
	open := c.findOp("(")
	out := &ast.WindowSpec{}
	if s.Ref.O != "" {
		out.Ref = c.ident(s.Ref.O)
	}
	if s.PartitionBy != nil {
		c.findWord("PARTITION")
		c.findWord("BY")
		for i, it := range s.PartitionBy.Items {
			if i > 0 {
				c.accept(isComma)
			}
			out.PartitionBy = append(out.PartitionBy, c.expr(it.Expr))
		}
	}
	if s.OrderBy != nil {
		c.findWord("ORDER")
		c.findWord("BY")
		out.OrderBy = c.orderItems(s.OrderBy.Items)
	}
	if f := s.Frame; f != nil {
		k := c.find(func(t token) bool { return t.is("ROWS") || t.is("RANGE") })
		fr := &ast.Frame{Rows: f.Type == tast.Rows}
		if f.Type == tast.Groups {
			c.failf(diag.UnsupportedSyntax, c.spanOf(k), "GROUPS frames are not supported; use ROWS or RANGE")
		}
		between := c.accept(func(t token) bool { return t.is("BETWEEN") }) >= 0
		fr.Start = c.frameBound(&f.Extent.Start)
		if between {
			c.findWord("AND")
			fr.End = c.frameBound(&f.Extent.End)
		} else {
			fr.End = &ast.FrameBound{Kind: ast.CurrentRow}
			fr.End.S = fr.Start.S
		}
		fr.S = c.spanOf(k).Join(fr.End.S)
		out.Frame = fr
	}
	closeAt := c.findOp(")")
	out.S = diag.Span{Start: c.spanOf(open).Start, End: c.spanOf(closeAt).End}
	return out
}

func (c *conv) frameBound(b *tast.FrameBound) *ast.FrameBound {
	out := &ast.FrameBound{}
	start := c.here()
	switch {
	case b.Type == tast.CurrentRow:
		c.findWord("CURRENT")
		k := c.findWord("ROW")
		out.Kind = ast.CurrentRow
		out.S = start.Join(c.spanOf(k))
		return out
	case b.UnBounded:
		c.findWord("UNBOUNDED")
		out.Kind = ast.UnboundedPreceding
		if b.Type == tast.Following {
			out.Kind = ast.UnboundedFollowing
		}
	default:
		if v, ok := b.Expr.(*tast.VariableExpr); b.Unit != tast.TimeUnitInvalid && (!ok || !strings.HasPrefix(v.Name, "_i")) {
			c.failf(diag.UnsupportedSyntax, c.here(), "write a RANGE frame's offset as INTERVAL '1' HOUR")
		}
		out.Offset = c.expr(b.Expr)
		out.Kind = ast.Preceding
		if b.Type == tast.Following {
			out.Kind = ast.Following
		}
	}
	k := c.find(func(t token) bool { return t.is("PRECEDING") || t.is("FOLLOWING") })
	out.S = start.Join(c.spanOf(k))
	return out
}

// tidbAggregates are the aggregates TiDB's grammar knows by name.
var tidbAggregates = map[string]bool{"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true,
	"GROUP_CONCAT": true, "BIT_AND": true, "BIT_OR": true, "BIT_XOR": true, "STDDEV": true, "VARIANCE": true}

// synonyms are other names for functions; a call gets the canonical name.
var synonyms = map[string]string{
	"SUBSTR": "SUBSTRING", "CEILING": "CEIL", "LCASE": "LOWER", "UCASE": "UPPER",
	"POW": "POWER", "STDDEV": "STDDEV_SAMP", "VARIANCE": "VAR_SAMP",
}

// tidbRenames maps the names TiDB gives some functions to the other names
// users write for them. The call keeps TiDB's (canonical) name.
var tidbRenames = map[string][]string{
	"SUBSTRING":         {"SUBSTR", "MID"},
	"CURRENT_TIMESTAMP": {"NOW", "LOCALTIMESTAMP", "LOCALTIME"},
	"CURRENT_DATE":      {"CURDATE"},
	"CURRENT_TIME":      {"CURTIME"},
	"CEIL":              {"CEILING"},
	"LOWER":             {"LCASE"},
	"UPPER":             {"UCASE"},
	"POW":               {"POWER"},
	"DATE_ADD":          {"ADDDATE"},
	"DATE_SUB":          {"SUBDATE"},
	"CHAR_LENGTH":       {"CHARACTER_LENGTH"},
	"STDDEV_POP":        {"STDDEV", "STD"},
	"VAR_POP":           {"VARIANCE"},
}

func (c *conv) funcCall(name string, args []tast.ExprNode, distinct, agg bool) ast.Expr {
	upper := strings.ToUpper(name)
	if upper == "CONCAT" && len(args) == 2 {
		// a || b arrives as CONCAT(a, b); keep the user's operator.
		save := c.pos
		if k := c.nextVisible(); k >= 0 && !c.toks[k].is("CONCAT") {
			l := c.expr(args[0])
			if c.peekIs(func(t token) bool { return t.isOp("||") }) {
				c.findOp("||")
				r := c.expr(args[1])
				b := &ast.Binary{Op: "||", L: l, R: r}
				b.S = l.Span().Join(r.Span())
				return b
			}
			c.pos = save
		}
	}
	k := -1
	if upper == "JSON_ARRAYAGG" || upper == "JSON_OBJECTAGG" {
		// ARRAY_AGG(x) OVER and LISTAGG(x [, sep]) OVER, which TiDB read
		// as JSON_ARRAYAGG or JSON_OBJECTAGG (rewriter.scan).
		for _, w := range []string{"ARRAY_AGG", "LISTAGG"} {
			if c.peekIs(func(t token) bool { return t.is(w) }) {
				k, upper = c.findWord(w), w
			}
		}
	}
	if k < 0 {
		k = c.find(func(t token) bool { return t.kind == tIdent && strings.EqualFold(t.val, name) })
	}
	if k < 0 {
		// TiDB renames a few functions; find the user's spelling.
		for _, alias := range tidbRenames[upper] {
			if k = c.find(func(t token) bool { return t.is(alias) }); k >= 0 {
				switch {
				case upper == "POW":
					upper = "POWER" // the name streamsql's registry uses
				case alias == "LOCALTIMESTAMP", alias == "LOCALTIME", alias == "STDDEV", alias == "VARIANCE", alias == "STD":
					// Flink's LOCALTIMESTAMP and LOCALTIME are a TIMESTAMP and
					// a TIME, not CURRENT_TIMESTAMP's TIMESTAMP_LTZ; its
					// STDDEV and VARIANCE are the sample ones, not MySQL's
					// population ones; STD is MySQL's only.
					upper = alias
				}
				break
			}
		}
	}
	if k < 0 {
		c.failf(diag.UnsupportedSyntax, c.here(), "unsupported function call %s", upper)
	}
	if canon, ok := synonyms[upper]; ok {
		upper = canon
	}
	fc := &ast.FuncCall{Distinct: distinct}
	fc.Name = &ast.Ident{Name: upper}
	fc.Name.S = c.spanOf(k)
	if !c.peekIs(func(t token) bool { return t.isOp("(") }) {
		fc.S = fc.Name.S
		return fc
	}
	open := c.findOp("(")
	if open >= 0 && c.rw.distinct[open] {
		fc.Distinct = true
	}
	if open >= 0 && (upper == "JSON_OBJECTAGG" || upper == "JSON_ARRAYAGG") {
		fc.OnNull = c.rw.jsonAggOn[open]
	}
	if distinct {
		c.findWord("DISTINCT")
	}
	if agg && upper == "COUNT" && c.peekIs(func(t token) bool { return t.isOp("*") }) {
		c.findOp("*")
		fc.Star = true
	} else {
		fc.Args = c.exprs(args)
	}
	if len(fc.Args) == 0 && !fc.Star && tidbAggregates[upper] {
		// TiDB reads COUNT () as a plain call but not COUNT(): refuse both.
		c.failf(diag.WrongArguments, fc.Name.S, "%s needs an argument, as in %s(x)", upper, upper)
	}
	closeAt := c.findOp(")")
	fc.S = diag.Span{Start: fc.Name.S.Start, End: c.spanOf(closeAt).End}
	if f, ok := c.rw.filters[closeAt]; ok && closeAt >= 0 {
		fc.Filter = f.cond
		fc.S.End = f.end
	}
	return fc
}

// nestedCall converts the calls the dialect layer made of brackets and ROW
// (see rewriter.bracket): ssql_item(x, i) is x[i], ssql_ARRAY(...) and
// ssql_MAP(...) are ARRAY[...] and MAP[...], ssql_ROW(...) is ROW(...).
// It returns nil for any other call.
func (c *conv) nestedCall(e *tast.FuncCallExpr) ast.Expr {
	name := e.FnName.O
	if !strings.HasPrefix(name, renamedPrefix) {
		return nil
	}
	switch kind := strings.TrimPrefix(name, renamedPrefix); kind {
	case "item":
		if len(e.Args) != 2 {
			return nil
		}
		x := c.expr(e.Args[0])
		c.findOp("[")
		i := c.expr(e.Args[1])
		closeAt := c.findOp("]")
		ix := &ast.Index{X: x, Index: i}
		ix.S = diag.Span{Start: x.Span().Start, End: c.spanOf(closeAt).End}
		return ix
	case "TRIM_BOTH", "TRIM_LEADING", "TRIM_TRAILING":
		// TRIM(side [chars] FROM s) (rewriter.trim): TRIM(side, [chars,] s).
		k := c.findWord("TRIM")
		open := c.findOp("(")
		side := &ast.Literal{Kind: ast.SymbolLit, Raw: strings.TrimPrefix(kind, "TRIM_")}
		side.S = c.spanOf(k)
		if j := open + 1; j > 0 && j < len(c.toks) && c.toks[j].is(side.Raw) {
			side.S = c.toks[j].span()
		}
		fc := &ast.FuncCall{Args: append([]ast.Expr{side}, c.exprs(e.Args)...)}
		fc.Name = &ast.Ident{Name: "TRIM"}
		fc.Name.S = c.spanOf(k)
		closeAt := c.findOp(")")
		fc.S = diag.Span{Start: fc.Name.S.Start, End: c.spanOf(closeAt).End}
		return fc
	case "ARRAY", "MAP", "ROW":
		k := c.findWord(kind)
		open, closer := "[", "]"
		if kind == "ROW" {
			open, closer = "(", ")"
		}
		c.findOp(open)
		ce := &ast.Constructor{Kind: kind, Args: c.exprs(e.Args)}
		closeAt := c.findOp(closer)
		ce.S = diag.Span{Start: c.spanOf(k).Start, End: c.spanOf(closeAt).End}
		return ce
	}
	return nil
}

// literal takes the kind of a constant from the user's token: TiDB turns
// TRUE into 1, and we must not.
func (c *conv) literal(v *test_driver.ValueExpr) ast.Expr {
	// A literal is always the next token: anything else means TiDB read
	// the text differently than our lexer did, and guessing would give the
	// wrong value.
	k := c.accept(func(t token) bool {
		return t.kind == tNumber || t.kind == tString || t.is("NULL") || t.is("TRUE") || t.is("FALSE")
	})
	if k < 0 {
		c.failf(diag.UnsupportedSyntax, c.here(), "unsupported literal or syntax here (near %v)", v.GetValue())
	}
	t := c.toks[k]
	lit := &ast.Literal{Raw: t.val}
	lit.S = t.span()
	switch {
	case t.kind == tString:
		lit.Kind = ast.StringLitKind
	case t.is("NULL"):
		lit.Kind, lit.Raw = ast.NullLit, "NULL"
	case t.is("TRUE"), t.is("FALSE"):
		lit.Kind, lit.Raw = ast.BoolLit, strings.ToUpper(t.val)
	case strings.ContainsAny(t.val, "eE"):
		lit.Kind = ast.FloatLit
	case strings.Contains(t.val, "."):
		lit.Kind = ast.DecimalLit
	default:
		lit.Kind = ast.IntLit
	}
	return lit
}

// opText is an operator as the user wrote it (<=>, &), not TiDB's name
// for it (nulleq, bitand).
func opText(op opcode.Op) string {
	var b strings.Builder
	op.Format(&b)
	return strings.TrimSpace(b.String())
}
