package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// File is a parsed job file: its statements in order, and every diagnostic
// found while parsing. A statement with a syntax error is left out; the
// statements around it are still parsed.
type File struct {
	Source *diag.Source
	Stmts  []ast.Stmt
	Diags  diag.List
}

// Parse parses every statement of src. It never panics on any input.
func Parse(src *diag.Source) *File {
	f := &File{Source: src}
	f.Diags.Source = src
	toks := lex(src.Text, 0, len(src.Text), &f.Diags)
	lexErrs := append([]*diag.Diagnostic(nil), f.Diags.Items...)
	for _, st := range split(toks) {
		if hasErrorIn(lexErrs, st.toks[0].start, st.end) {
			continue // already reported; parsing it would only add noise
		}
		if s := parseStmt(src.Text, st, &f.Diags); s != nil {
			f.Stmts = append(f.Stmts, s)
		}
	}
	f.Diags.Sort()
	return f
}

func hasErrorIn(ds []*diag.Diagnostic, from, to diag.Pos) bool {
	for _, d := range ds {
		if d.Span.Start >= from && d.Span.Start <= to {
			return true
		}
	}
	return false
}

// ParseString is Parse on a string named name.
func ParseString(name, text string) *File { return Parse(diag.NewSource(name, text)) }

// stmtToks is the tokens of one statement, and where it ends (the position
// of its ';', or the end of input).
type stmtToks struct {
	toks []token
	end  diag.Pos
}

// split cuts a token stream into statements at ';'. Inside a statement set
// (EXECUTE STATEMENT SET BEGIN ... END, or BEGIN STATEMENT SET; ... END) the
// semicolons belong to the set, which ends at END.
func split(toks []token) []stmtToks {
	var out []stmtToks
	start := 0
	inSet := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.is("STATEMENT") && i+1 < len(toks) && toks[i+1].is("SET") {
			inSet = true
		}
		if inSet && t.is("END") {
			inSet = false
		}
		if t.isOp(";") && !inSet {
			if i > start {
				out = append(out, stmtToks{toks[start:i], t.start})
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		last := toks[len(toks)-1]
		out = append(out, stmtToks{toks[start:], last.end})
	}
	return out
}

// bailout is raised inside one statement's parse to abandon it after an
// error has been reported; parseStmt recovers it.
type bailout struct{}

type stmtParser struct {
	src  string
	toks []token
	i    int
	end  diag.Pos
	l    *diag.List
}

func parseStmt(src string, st stmtToks, l *diag.List) (s ast.Stmt) {
	p := &stmtParser{src: src, toks: st.toks, end: st.end, l: l}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				// An internal error must not take the process down on user
				// input; report it where the statement starts.
				l.Errorf(diag.SyntaxError, p.toks[0].span(), "internal error while parsing this statement: %v", r)
			}
			s = nil
		}
	}()
	s = p.statement()
	if s != nil && p.i < len(p.toks) {
		p.failf(diag.SyntaxError, p.peek().span(), "unexpected %s after the end of the statement; expected ';'", p.peek().describe())
	}
	return s
}

func (p *stmtParser) peek() token { return p.peekN(0) }

func (p *stmtParser) peekN(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return token{kind: tEOF, start: p.end, end: p.end}
}

func (p *stmtParser) next() token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

// prevEnd is the end of the last consumed token.
func (p *stmtParser) prevEnd() diag.Pos {
	if p.i == 0 {
		return p.toks[0].start
	}
	return p.toks[p.i-1].end
}

func (p *stmtParser) failf(code diag.Code, sp diag.Span, format string, args ...any) {
	p.l.Errorf(code, sp, format, args...)
	panic(bailout{})
}

// expectedf reports that something else was expected at the next token.
func (p *stmtParser) expectedf(format string, args ...any) {
	t := p.peek()
	what := fmt.Sprintf(format, args...)
	if t.kind == tEOF {
		p.failf(diag.UnexpectedEnd, t.span(), "statement ends too early: expected %s", what)
	}
	p.failf(diag.SyntaxError, t.span(), "expected %s, found %s", what, t.describe())
}

func (p *stmtParser) accept(word string) bool {
	if p.peek().is(word) {
		p.i++
		return true
	}
	return false
}

func (p *stmtParser) acceptSeq(words ...string) bool {
	for k, w := range words {
		if !p.peekN(k).is(w) {
			return false
		}
	}
	p.i += len(words)
	return true
}

func (p *stmtParser) acceptOp(op string) bool {
	if p.peek().isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *stmtParser) expect(word string) token {
	if !p.peek().is(word) {
		p.expectedf("%s", word)
	}
	return p.next()
}

func (p *stmtParser) expectOp(op string) token {
	if !p.peek().isOp(op) {
		p.expectedf("'%s'", op)
	}
	return p.next()
}

func (p *stmtParser) ident(what string) *ast.Ident {
	t := p.peek()
	if !t.isName() {
		p.expectedf("%s", what)
	}
	p.i++
	if t.kind == tIdent && ast.IsReserved(t.val) && !nonReservedHere[strings.ToUpper(t.val)] {
		p.failf(diag.SyntaxError, t.span(), "%s is a reserved word and cannot be %s here; quote it as `%s`", strings.ToUpper(t.val), what, t.val)
	}
	if p.peek().isOp(".") && p.peekN(1).isName() {
		// A qualified name: [catalog.]database.name. Flink's built-in
		// default_catalog.default_database is the only one there is.
		parts := []token{t}
		for len(parts) < 4 && p.peek().isOp(".") && p.peekN(1).isName() {
			p.i++
			parts = append(parts, p.next())
		}
		last := parts[len(parts)-1]
		sp := diag.Span{Start: t.start, End: last.end}
		prefix := make([]string, 0, 2)
		for _, q := range parts[:len(parts)-1] {
			prefix = append(prefix, q.val)
		}
		switch strings.Join(prefix, ".") {
		case defaultDatabase, defaultCatalog + "." + defaultDatabase:
			t = last
		default:
			p.failf(diag.UnsupportedFeature, sp,
				"%s: streamsql has one catalog and database, %s.%s; write %s alone or as %s.%s",
				strings.Join(append(prefix, last.val), "."), defaultCatalog, defaultDatabase, last.val, defaultDatabase, last.val)
		}
	}
	id := &ast.Ident{Name: t.val, Quoted: t.kind == tQIdent}
	id.S = t.span()
	return id
}

// nonReservedHere are words our own grammar allows as names even though
// they are reserved in queries.
var nonReservedHere = map[string]bool{}

func (p *stmtParser) stringLit(what string) *ast.StringLit {
	t := p.peek()
	if t.kind != tString {
		if t.kind == tDQString {
			p.failf(diag.SyntaxError, t.span(), "expected %s in single quotes, found \"%s\"; Flink SQL strings use single quotes", what, t.val)
		}
		p.expectedf("%s (a single-quoted string)", what)
	}
	p.i++
	s := &ast.StringLit{Value: t.val}
	s.S = t.span()
	return s
}

func (p *stmtParser) span(from diag.Pos) diag.Span { return diag.Span{Start: from, End: p.prevEnd()} }

func (p *stmtParser) statement() ast.Stmt {
	t := p.peek()
	switch {
	case t.is("CREATE"):
		return p.create()
	case t.is("DROP"):
		return p.drop()
	case t.is("INSERT"):
		return p.insert()
	case t.is("SELECT"), t.is("WITH"), t.isOp("("), t.is("VALUES"):
		q := p.query(len(p.toks))
		s := &ast.QueryStmt{Query: q}
		s.S = q.Span()
		return s
	case t.is("SET"):
		return p.set()
	case t.is("RESET"):
		p.next()
		s := &ast.Reset{}
		if p.peek().kind == tString {
			s.Key = p.stringLit("a configuration key")
		}
		s.S = p.span(t.start)
		return s
	case t.is("SHOW"):
		p.next()
		w := p.peek()
		switch {
		case w.is("TABLES"), w.is("VIEWS"), w.is("JOBS"), w.is("FUNCTIONS"):
			p.next()
		default:
			p.expectedf("TABLES, VIEWS, JOBS or FUNCTIONS after SHOW")
		}
		s := &ast.Show{What: strings.ToUpper(w.val)}
		s.S = p.span(t.start)
		return s
	case t.is("DESCRIBE"), t.is("DESC"):
		p.next()
		s := &ast.Describe{Name: p.ident("a table or view name")}
		s.S = p.span(t.start)
		return s
	case t.is("EXPLAIN"):
		return p.explain()
	case t.is("EXECUTE"), t.is("BEGIN"):
		return p.statementSet()
	case t.is("STOP"):
		p.next()
		p.expect("JOB")
		s := &ast.StopJob{ID: p.stringLit("a job id")}
		s.S = p.span(t.start)
		return s
	case t.kind == tIdent && statementWords[strings.ToUpper(t.val)]:
		p.failf(diag.UnsupportedStatement, t.span(), "%s statements are not supported; streamsql runs CREATE TABLE, CREATE VIEW, DROP, INSERT INTO, SELECT, SET, RESET, SHOW, DESCRIBE, EXPLAIN and EXECUTE STATEMENT SET", strings.ToUpper(t.val))
	}
	p.failf(diag.SyntaxError, t.span(), "expected a statement (CREATE, INSERT, SELECT, SET, EXPLAIN, ...), found %s", t.describe())
	return nil
}

var statementWords = map[string]bool{"ALTER": true, "UPDATE": true, "DELETE": true, "USE": true, "LOAD": true,
	"UNLOAD": true, "TRUNCATE": true, "ANALYZE": true, "CALL": true, "ADD": true, "REMOVE": true, "REPLACE": true}

func (p *stmtParser) create() ast.Stmt {
	start := p.next().start
	temp := p.accept("TEMPORARY")
	switch {
	case p.accept("TABLE"):
		return p.createTable(start, temp)
	case p.accept("VIEW"):
		v := &ast.CreateView{Temporary: temp}
		v.IfNotExists = p.acceptSeq("IF", "NOT", "EXISTS")
		v.Name = p.ident("a view name")
		if p.acceptOp("(") {
			v.Columns = p.identList("a column name")
			p.expectOp(")")
		}
		p.expect("AS")
		v.Query = p.query(len(p.toks))
		v.S = p.span(start)
		return v
	}
	w := p.peek()
	if w.kind == tIdent {
		p.failf(diag.UnsupportedStatement, w.span(), "CREATE %s is not supported; streamsql creates TABLEs and VIEWs", strings.ToUpper(w.val))
	}
	p.expectedf("TABLE or VIEW after CREATE")
	return nil
}

func (p *stmtParser) identList(what string) []*ast.Ident {
	var ids []*ast.Ident
	for {
		ids = append(ids, p.ident(what))
		if !p.acceptOp(",") {
			return ids
		}
	}
}

func (p *stmtParser) drop() ast.Stmt {
	start := p.next().start
	p.accept("TEMPORARY")
	d := &ast.Drop{}
	switch {
	case p.accept("TABLE"):
	case p.accept("VIEW"):
		d.View = true
	default:
		p.expectedf("TABLE or VIEW after DROP")
	}
	d.IfExists = p.acceptSeq("IF", "EXISTS")
	d.Name = p.ident("a table or view name")
	d.S = p.span(start)
	return d
}

func (p *stmtParser) insert() *ast.Insert {
	start := p.next().start
	ins := &ast.Insert{}
	switch {
	case p.accept("INTO"):
	case p.accept("OVERWRITE"):
		ins.Overwrite = true
	default:
		p.expectedf("INTO after INSERT")
	}
	p.accept("TABLE")
	ins.Table = p.ident("a sink table name")
	if t := p.peek(); t.kind == tHint {
		p.next()
		ins.Hints = parseHints(p.src, t, p.l)
	}
	if p.peek().isOp("(") && !p.peekN(1).is("SELECT") && !p.peekN(1).is("WITH") {
		p.next()
		ins.Columns = p.identList("a column name")
		p.expectOp(")")
	}
	if p.peek().kind == tEOF {
		p.expectedf("a query (SELECT ...) after INSERT INTO %s", ins.Table.Name)
	}
	ins.Query = p.query(p.queryEnd())
	ins.S = p.span(start)
	return ins
}

// queryEnd is where a query that starts at the current token ends: the end
// of the statement, or inside a statement set the next ';' or END.
func (p *stmtParser) queryEnd() int {
	depth := 0
	for k := p.i; k < len(p.toks); k++ {
		t := p.toks[k]
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		case depth == 0 && (t.isOp(";") || t.is("END") && (k+1 == len(p.toks) || p.toks[k+1].isOp(";"))):
			return k
		}
	}
	return len(p.toks)
}

func (p *stmtParser) set() ast.Stmt {
	start := p.next().start
	s := &ast.Set{}
	if p.peek().kind == tEOF {
		s.S = p.span(start)
		return s
	}
	if t := p.peek(); t.kind == tIdent || t.kind == tQIdent {
		// SET key = value without quotes (Flink accepts it in the SQL client).
		var b strings.Builder
		k0 := t.start
		for p.peek().kind == tIdent || p.peek().isOp(".") || p.peek().isOp("-") || p.peek().kind == tNumber {
			b.WriteString(p.next().val)
		}
		s.Key = &ast.StringLit{Value: b.String()}
		s.Key.S = p.span(k0)
	} else {
		s.Key = p.stringLit("a configuration key")
	}
	p.expectOp("=")
	if t := p.peek(); t.kind == tString {
		s.Value = p.stringLit("a value")
	} else if t.kind == tIdent || t.kind == tNumber {
		v0 := t.start
		var b strings.Builder
		for p.peek().kind != tEOF {
			b.WriteString(p.src[p.peek().start:p.peek().end])
			p.next()
		}
		s.Value = &ast.StringLit{Value: b.String()}
		s.Value.S = p.span(v0)
	} else {
		p.expectedf("a value after '=' (for example '24h')")
	}
	s.S = p.span(start)
	return s
}

func (p *stmtParser) explain() ast.Stmt {
	start := p.next().start
	e := &ast.Explain{}
	for {
		t := p.peek()
		switch {
		case t.is("CHANGELOG_MODE"), t.is("ESTIMATED_COST"), t.is("JSON_EXECUTION_PLAN"), t.is("PLAN_ADVICE"):
			e.Details = append(e.Details, strings.ToUpper(p.next().val))
			if p.acceptOp(",") {
				continue
			}
		case t.is("PLAN"):
			p.next()
			p.expect("FOR")
			continue
		}
		break
	}
	t := p.peek()
	switch {
	case t.is("INSERT"):
		e.Stmt = p.insert()
	case t.is("EXECUTE"), t.is("STATEMENT"), t.is("BEGIN"):
		e.Stmt = p.statementSet()
	case t.is("SELECT"), t.is("WITH"), t.isOp("("), t.is("VALUES"):
		q := p.query(len(p.toks))
		qs := &ast.QueryStmt{Query: q}
		qs.S = q.Span()
		e.Stmt = qs
	default:
		p.expectedf("a query, INSERT or STATEMENT SET after EXPLAIN")
	}
	e.S = p.span(start)
	return e
}

func (p *stmtParser) statementSet() ast.Stmt {
	start := p.peek().start
	switch {
	case p.accept("EXECUTE"):
		p.expect("STATEMENT")
		p.expect("SET")
		p.expect("BEGIN")
	case p.accept("STATEMENT"):
		p.expect("SET")
		p.expect("BEGIN")
	case p.accept("BEGIN"):
		p.expect("STATEMENT")
		p.expect("SET")
		p.acceptOp(";")
	}
	set := &ast.StatementSet{}
	for {
		for p.acceptOp(";") {
		}
		if p.accept("END") {
			break
		}
		if !p.peek().is("INSERT") {
			p.expectedf("INSERT INTO or END inside the statement set")
		}
		set.Inserts = append(set.Inserts, p.insert())
		if !p.peek().isOp(";") && !p.peek().is("END") {
			p.expectedf("';' after the INSERT inside the statement set")
		}
	}
	set.S = p.span(start)
	return set
}

// intLit reads an unsigned integer.
func (p *stmtParser) intLit(what string) int {
	t := p.peek()
	if t.kind != tNumber {
		p.expectedf("%s", what)
	}
	n, err := strconv.Atoi(t.val)
	if err != nil || n < 0 {
		p.failf(diag.InvalidLiteral, t.span(), "%s must be a whole number, found %s", what, t.val)
	}
	p.next()
	return n
}
