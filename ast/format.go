package ast

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format prints a node as canonical SQL: keywords upper-case, identifiers
// quoted only when needed, one space between tokens. The output parses back
// to an equivalent tree.
func Format(n Node) string {
	var p printer
	p.node(n)
	return p.b.String()
}

type printer struct{ b strings.Builder }

func (p *printer) w(s ...string) {
	for _, x := range s {
		p.b.WriteString(x)
	}
}

// QuoteIdent returns name, backquoted when it is not a plain identifier or is
// a reserved word.
func QuoteIdent(name string) string {
	if isPlainIdent(name) && !IsReserved(name) && !quoteAlso[strings.ToUpper(name)] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError {
			return false
		}
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// QuoteString returns s as a single-quoted SQL literal.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (p *printer) ident(id *Ident) {
	if id == nil {
		p.w("?")
		return
	}
	p.w(QuoteIdent(id.Name))
}

func (p *printer) idents(ids []*Ident) {
	for i, id := range ids {
		if i > 0 {
			p.w(", ")
		}
		p.ident(id)
	}
}

func (p *printer) options(opts []*Option) {
	for i, o := range opts {
		if i > 0 {
			p.w(", ")
		}
		p.w(QuoteString(o.Key.Value), " = ", QuoteString(o.Value.Value))
	}
}

func (p *printer) node(n Node) {
	switch n := n.(type) {
	case Stmt:
		p.stmt(n)
	case Query:
		p.query(n)
	case TableExpr:
		p.table(n)
	case Expr:
		p.expr(n)
	case *TypeName:
		p.w(n.String())
	case *SelectItem:
		p.item(n)
	case *Ident:
		p.ident(n)
	default:
		panic(fmt.Sprintf("ast.Format: unexpected node %T", n))
	}
}

// String renders the type as written canonically, e.g. DECIMAL(15, 2).
func (t *TypeName) String() string {
	s := t.Name
	if t.Name == "ARRAY" || t.Name == "MAP" || t.Name == "ROW" {
		var b strings.Builder
		b.WriteString(t.Name)
		b.WriteByte('<')
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if t.Name == "ROW" && i < len(t.FieldNames) {
				b.WriteString(QuoteIdent(t.FieldNames[i].Name))
				b.WriteByte(' ')
			}
			b.WriteString(e.String())
		}
		b.WriteByte('>')
		s = b.String()
	} else if t.HasParams {
		ps := make([]string, len(t.Params))
		for i, v := range t.Params {
			ps[i] = strconv.Itoa(v)
		}
		// TIMESTAMP(3) WITH LOCAL TIME ZONE: parameters follow the first word.
		head, tail, _ := strings.Cut(s, " ")
		s = head + "(" + strings.Join(ps, ", ") + ")"
		if tail != "" {
			s += " " + tail
		}
	}
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *CreateTable:
		p.w("CREATE ")
		if s.Temporary {
			p.w("TEMPORARY ")
		}
		p.w("TABLE ")
		if s.IfNotExists {
			p.w("IF NOT EXISTS ")
		}
		p.ident(s.Name)
		if s.Like == nil || len(s.Columns)+len(s.Watermarks)+len(s.PrimaryKeys) > 0 {
			p.columnList(s) // CREATE TABLE t WITH (...) LIKE s has none
		}
		if s.Comment != nil {
			p.w(" COMMENT ", QuoteString(s.Comment.Value))
		}
		if len(s.PartitionBy) > 0 {
			p.w(" PARTITIONED BY (")
			p.idents(s.PartitionBy)
			p.w(")")
		}
		if s.WithSpan.IsValid() {
			p.w(" WITH (")
			p.options(s.Options)
			p.w(")")
		}
		if s.Like != nil {
			p.w(" LIKE ")
			p.ident(s.Like.Source)
			if len(s.Like.Options) > 0 {
				p.w(" (")
				for i, o := range s.Like.Options {
					if i > 0 {
						p.w(", ")
					}
					p.w(o.Strategy, " ", o.Feature)
				}
				p.w(")")
			}
		}
	case *CreateView:
		p.w("CREATE ")
		if s.Temporary {
			p.w("TEMPORARY ")
		}
		p.w("VIEW ")
		if s.IfNotExists {
			p.w("IF NOT EXISTS ")
		}
		p.ident(s.Name)
		if len(s.Columns) > 0 {
			p.w(" (")
			p.idents(s.Columns)
			p.w(")")
		}
		p.w(" AS ")
		p.query(s.Query)
	case *Drop:
		p.w("DROP ")
		if s.View {
			p.w("VIEW ")
		} else {
			p.w("TABLE ")
		}
		if s.IfExists {
			p.w("IF EXISTS ")
		}
		p.ident(s.Name)
	case *Insert:
		if s.Overwrite {
			p.w("INSERT OVERWRITE ")
		} else {
			p.w("INSERT INTO ")
		}
		p.ident(s.Table)
		if len(s.Hints) > 0 {
			p.w(" ")
			p.hints(s.Hints)
		}
		if len(s.Columns) > 0 {
			p.w(" (")
			p.idents(s.Columns)
			p.w(")")
		}
		p.w(" ")
		p.query(s.Query)
	case *QueryStmt:
		p.query(s.Query)
	case *Set:
		p.w("SET")
		if s.Key != nil {
			p.w(" ", QuoteString(s.Key.Value), " = ", QuoteString(s.Value.Value))
		}
	case *Reset:
		p.w("RESET")
		if s.Key != nil {
			p.w(" ", QuoteString(s.Key.Value))
		}
	case *Show:
		p.w("SHOW ", s.What)
	case *Describe:
		p.w("DESCRIBE ")
		p.ident(s.Name)
	case *Explain:
		p.w("EXPLAIN ")
		if len(s.Details) > 0 {
			p.w(strings.Join(s.Details, ", "), " ")
		}
		p.stmt(s.Stmt)
	case *StatementSet:
		p.w("EXECUTE STATEMENT SET BEGIN ")
		for _, ins := range s.Inserts {
			p.stmt(ins)
			p.w("; ")
		}
		p.w("END")
	case *StopJob:
		p.w("STOP JOB ", QuoteString(s.ID.Value))
	default:
		panic(fmt.Sprintf("ast.Format: unexpected statement %T", s))
	}
}

func (p *printer) columnList(s *CreateTable) {
	p.w(" (")
	first := true
	sep := func() {
		if !first {
			p.w(", ")
		}
		first = false
	}
	for _, c := range s.Columns {
		sep()
		p.ident(c.Name)
		switch c.Kind {
		case PhysicalColumn:
			p.w(" ", c.Type.String())
		case ComputedColumn:
			p.w(" AS ")
			p.expr(c.Expr)
		case MetadataColumn:
			p.w(" ", c.Type.String(), " METADATA")
			if c.MetadataKey != nil {
				p.w(" FROM ", QuoteString(c.MetadataKey.Value))
			}
			if c.Virtual {
				p.w(" VIRTUAL")
			}
		}
		if c.InlinePrimaryKey != nil {
			p.w(" PRIMARY KEY NOT ENFORCED")
		}
		if c.Comment != nil {
			p.w(" COMMENT ", QuoteString(c.Comment.Value))
		}
	}
	for _, wm := range s.Watermarks {
		sep()
		p.w("WATERMARK FOR ")
		p.ident(wm.Column)
		p.w(" AS ")
		p.expr(wm.Expr)
	}
	for _, pk := range s.PrimaryKeys {
		if inlinePK(s, pk) {
			continue
		}
		sep()
		if pk.Name != nil {
			p.w("CONSTRAINT ")
			p.ident(pk.Name)
			p.w(" ")
		}
		p.w("PRIMARY KEY (")
		p.idents(pk.Columns)
		p.w(")")
		if pk.NotEnforced {
			p.w(" NOT ENFORCED")
		}
	}
	p.w(")")
}

func inlinePK(s *CreateTable, pk *PrimaryKeyDef) bool {
	for _, c := range s.Columns {
		if c.InlinePrimaryKey == pk {
			return true
		}
	}
	return false
}

func (p *printer) query(q Query) {
	switch q := q.(type) {
	case *Select:
		p.w("SELECT ")
		if len(q.Hints) > 0 {
			p.hints(q.Hints)
			p.w(" ")
		}
		if q.Distinct {
			p.w("DISTINCT ")
		}
		for i, f := range q.Fields {
			if i > 0 {
				p.w(", ")
			}
			p.item(f)
		}
		if q.From != nil {
			p.w(" FROM ")
			p.table(q.From)
		}
		if q.Where != nil {
			p.w(" WHERE ")
			p.expr(q.Where)
		}
		if len(q.GroupBy) > 0 || len(q.Grouping) > 0 {
			p.w(" GROUP BY ")
			p.exprs(q.GroupBy)
			for i, g := range q.Grouping {
				if i > 0 || len(q.GroupBy) > 0 {
					p.w(", ")
				}
				p.w(g.Kind, " (")
				if g.Kind != "GROUPING SETS" {
					p.exprs(g.Exprs)
				}
				for j, set := range g.Sets {
					if j > 0 {
						p.w(", ")
					}
					p.w("(")
					p.exprs(set)
					p.w(")")
				}
				p.w(")")
			}
		}
		if q.Having != nil {
			p.w(" HAVING ")
			p.expr(q.Having)
		}
		for i, nw := range q.Windows {
			if i == 0 {
				p.w(" WINDOW ")
			} else {
				p.w(", ")
			}
			p.ident(nw.Name)
			p.w(" AS ")
			p.windowSpec(nw.Spec)
		}
		if len(q.OrderBy) > 0 {
			p.w(" ORDER BY ")
			p.orderItems(q.OrderBy)
		}
		if q.Limit != nil {
			p.w(" LIMIT ")
			p.expr(q.Limit)
		}
	case *SetOp:
		// INTERSECT binds tighter than UNION and EXCEPT, and each is
		// read from left to right: parenthesize an input that would
		// otherwise group differently.
		l, lok := q.Left.(*SetOp)
		if lok && l.Op != "INTERSECT" && q.Op == "INTERSECT" {
			p.w("(")
			p.query(q.Left)
			p.w(")")
		} else {
			p.query(q.Left)
		}
		p.w(" ", q.Op)
		if q.All {
			p.w(" ALL")
		}
		p.w(" ")
		if _, rok := q.Right.(*SetOp); rok {
			p.w("(")
			p.query(q.Right)
			p.w(")")
		} else {
			p.query(q.Right)
		}
	case *With:
		p.w("WITH ")
		for i, c := range q.CTEs {
			if i > 0 {
				p.w(", ")
			}
			p.ident(c.Name)
			if len(c.Columns) > 0 {
				p.w(" (")
				for j, id := range c.Columns {
					if j > 0 {
						p.w(", ")
					}
					p.ident(id)
				}
				p.w(")")
			}
			p.w(" AS (")
			p.query(c.Query)
			p.w(")")
		}
		p.w(" ")
		p.query(q.Body)
	default:
		panic(fmt.Sprintf("ast.Format: unexpected query %T", q))
	}
}

func (p *printer) orderItems(items []*OrderItem) {
	for i, o := range items {
		if i > 0 {
			p.w(", ")
		}
		p.expr(o.Expr)
		if o.Desc {
			p.w(" DESC")
		}
	}
}

// windowSpec prints an OVER clause's window: (w PARTITION BY ... ORDER BY
// ... ROWS BETWEEN ... AND ...).
func (p *printer) windowSpec(s *WindowSpec) {
	p.w("(")
	sep := ""
	if s.Ref != nil {
		p.ident(s.Ref)
		sep = " "
	}
	if len(s.PartitionBy) > 0 {
		p.w(sep, "PARTITION BY ")
		p.exprs(s.PartitionBy)
		sep = " "
	}
	if len(s.OrderBy) > 0 {
		p.w(sep, "ORDER BY ")
		p.orderItems(s.OrderBy)
		sep = " "
	}
	if f := s.Frame; f != nil {
		p.w(sep)
		if f.Rows {
			p.w("ROWS BETWEEN ")
		} else {
			p.w("RANGE BETWEEN ")
		}
		p.frameBound(f.Start)
		p.w(" AND ")
		p.frameBound(f.End)
	}
	p.w(")")
}

func (p *printer) frameBound(b *FrameBound) {
	switch b.Kind {
	case UnboundedPreceding:
		p.w("UNBOUNDED PRECEDING")
	case UnboundedFollowing:
		p.w("UNBOUNDED FOLLOWING")
	case CurrentRow:
		p.w("CURRENT ROW")
	case Preceding:
		p.expr(b.Offset)
		p.w(" PRECEDING")
	case Following:
		p.expr(b.Offset)
		p.w(" FOLLOWING")
	}
}

func (p *printer) item(f *SelectItem) {
	if f.Star {
		if f.Qualifier != nil {
			p.ident(f.Qualifier)
			p.w(".")
		}
		p.w("*")
		return
	}
	p.expr(f.Expr)
	if f.Alias != nil {
		p.w(" AS ")
		p.ident(f.Alias)
	}
}

func (p *printer) alias(a *Ident) {
	if a != nil {
		p.w(" AS ")
		p.ident(a)
	}
}

func (p *printer) hints(hs []*Hint) {
	p.w("/*+ ")
	for i, h := range hs {
		if i > 0 {
			p.w(" ")
		}
		p.ident(h.Name)
		p.w("(")
		p.options(h.Options)
		if len(h.Options) > 0 && len(h.Args) > 0 {
			p.w(", ")
		}
		p.idents(h.Args)
		p.w(")")
	}
	p.w(" */")
}

func (p *printer) table(t TableExpr) {
	switch t := t.(type) {
	case *TableRef:
		p.ident(t.Name)
		if len(t.Hints) > 0 {
			p.w(" ")
			p.hints(t.Hints)
		}
		if t.AsOf != nil {
			p.w(" FOR SYSTEM_TIME AS OF ")
			if _, ok := t.AsOf.(*ColumnRef); ok {
				p.expr(t.AsOf)
			} else {
				// Parenthesized, so that the expression's end is plain
				// (in `AS OF NOT a` the a would read as an alias).
				p.w("(")
				p.expr(t.AsOf)
				p.w(")")
			}
		}
		p.alias(t.Alias)
	case *Join:
		p.table(t.Left)
		if t.Kind == CrossJoin && t.On == nil {
			p.w(", ")
		} else {
			p.w(" ", t.Kind.String(), " JOIN ")
		}
		if _, nested := t.Right.(*Join); nested {
			p.w("(")
			p.table(t.Right)
			p.w(")")
		} else {
			p.table(t.Right)
		}
		if t.On != nil {
			p.w(" ON ")
			p.expr(t.On)
		}
		if len(t.Using) > 0 {
			p.w(" USING (")
			p.idents(t.Using)
			p.w(")")
		}
	case *Subquery:
		if t.Lateral {
			p.w("LATERAL ")
		}
		p.w("(")
		p.query(t.Query)
		p.w(")")
		p.alias(t.Alias)
	case *Values:
		p.w("(VALUES ")
		for i, r := range t.Rows {
			if i > 0 {
				p.w(", ")
			}
			p.w("(")
			p.exprs(r)
			p.w(")")
		}
		p.w(")")
		p.alias(t.Alias)
		if len(t.Columns) > 0 {
			p.w("(")
			p.idents(t.Columns)
			p.w(")")
		}
	case *Unnest:
		p.w("UNNEST(")
		p.exprs(t.Exprs)
		p.w(")")
		if t.Ordinality {
			p.w(" WITH ORDINALITY")
		}
		p.alias(t.Alias)
		if len(t.Columns) > 0 {
			p.w(" (")
			p.idents(t.Columns)
			p.w(")")
		}
	case *WindowTVF:
		p.w("TABLE(", t.Func, "(TABLE ")
		p.ident(t.Table)
		if len(t.PartitionBy) > 0 {
			p.w(" PARTITION BY ")
			p.idents(t.PartitionBy)
		}
		p.w(", DESCRIPTOR(")
		p.ident(t.TimeCol)
		p.w(")")
		for _, iv := range []*IntervalLit{t.Slide, t.Step, t.Size, t.Offset} {
			if iv != nil {
				p.w(", ")
				p.expr(iv)
			}
		}
		p.w("))")
		p.alias(t.Alias)
	default:
		panic(fmt.Sprintf("ast.Format: unexpected table expression %T", t))
	}
}

func (p *printer) exprs(es []Expr) {
	for i, e := range es {
		if i > 0 {
			p.w(", ")
		}
		p.expr(e)
	}
}

func (p *printer) expr(e Expr) {
	switch e := e.(type) {
	case *ColumnRef:
		if e.Qualifier != nil {
			p.ident(e.Qualifier)
			p.w(".")
		}
		p.ident(e.Name)
		for _, f := range e.Path {
			p.w(".")
			p.ident(f)
		}
	case *Index:
		p.operand(e.X, precAtom)
		p.w("[")
		p.expr(e.Index)
		p.w("]")
	case *Constructor:
		p.w(e.Kind)
		open, closer := "[", "]"
		if e.Kind == "ROW" {
			open, closer = "(", ")"
		}
		p.w(open)
		for i, a := range e.Args {
			if i > 0 {
				p.w(", ")
			}
			p.expr(a)
		}
		p.w(closer)
	case *Literal:
		switch e.Kind {
		case StringLitKind:
			p.w(QuoteString(e.Raw))
		case TimestampLit:
			p.w("TIMESTAMP ", QuoteString(e.Raw))
		case DateLit:
			p.w("DATE ", QuoteString(e.Raw))
		case TimeLit:
			p.w("TIME ", QuoteString(e.Raw))
		case DecimalLit:
			raw := e.Raw
			if strings.HasSuffix(raw, ".") {
				raw += "0"
			}
			if strings.HasPrefix(raw, ".") {
				raw = "0" + raw
			}
			p.w(raw)
		default:
			p.w(e.Raw)
		}
	case *IntervalLit:
		p.w("INTERVAL ", QuoteString(e.Value), " ", e.Unit)
	case *Unary:
		if e.Op == "NOT" {
			p.w("NOT ")
		} else {
			p.w(e.Op)
			if u, ok := e.X.(*Unary); ok && u.Op != "NOT" {
				p.w(" ") // - -1, not --1 (a comment)
			}
		}
		p.operand(e.X, precedence(e))
	case *Binary:
		prec := precedence(e)
		p.operand(e.L, prec)
		p.w(" ", e.Op, " ")
		p.operand(e.R, prec+1) // left-associative: a tie on the right needs parentheses
	case *Between:
		p.operand(e.X, precCompare+1)
		if e.Not {
			p.w(" NOT")
		}
		p.w(" BETWEEN ")
		p.operand(e.Lo, precCompare+1)
		p.w(" AND ")
		p.operand(e.Hi, precCompare+1)
	case *IsNull:
		p.operand(e.X, precCompare+1)
		if e.Not {
			p.w(" IS NOT NULL")
		} else {
			p.w(" IS NULL")
		}
	case *IsBool:
		p.operand(e.X, precCompare+1)
		p.w(" IS ")
		if e.Not {
			p.w("NOT ")
		}
		if e.Value {
			p.w("TRUE")
		} else {
			p.w("FALSE")
		}
	case *In:
		p.operand(e.X, precCompare+1)
		if e.Not {
			p.w(" NOT")
		}
		if len(e.List) == 1 {
			if _, ok := e.List[0].(*SubqueryExpr); ok {
				p.w(" IN ")
				p.expr(e.List[0])
				break
			}
		}
		p.w(" IN (")
		p.exprs(e.List)
		p.w(")")
	case *Like:
		p.operand(e.X, precCompare+1)
		if e.Not {
			p.w(" NOT")
		}
		if e.Similar {
			p.w(" SIMILAR TO ")
		} else {
			p.w(" LIKE ")
		}
		p.operand(e.Pattern, precCompare+1)
		if e.Escape != nil {
			p.w(" ESCAPE ")
			p.expr(e.Escape)
		}
	case *FuncCall:
		if e.Name.Name == "IS JSON" && len(e.Args) == 2 {
			// x IS JSON kind (the parser's form of the predicate).
			if k, ok := e.Args[1].(*Literal); ok {
				p.expr(e.Args[0])
				p.w(" IS JSON ", k.Raw)
				return
			}
		}
		if (e.Name.Name == "FLOOR" || e.Name.Name == "CEIL") && len(e.Args) == 2 {
			if u, ok := e.Args[1].(*Literal); ok && u.Kind == SymbolLit {
				p.w(e.Name.Name, "(")
				p.expr(e.Args[0])
				p.w(" TO ", u.Raw, ")")
				return
			}
		}
		if e.Name.Name == "TRIM" && len(e.Args) >= 2 {
			if side, ok := e.Args[0].(*Literal); ok && side.Kind == SymbolLit {
				p.w("TRIM(", side.Raw, " ")
				if len(e.Args) == 3 {
					p.expr(e.Args[1])
					p.w(" ")
				}
				p.w("FROM ")
				p.expr(e.Args[len(e.Args)-1])
				p.w(")")
				return
			}
		}
		if e.Name.Name == "OVERLAY" && (len(e.Args) == 3 || len(e.Args) == 4) {
			p.w("OVERLAY(")
			p.expr(e.Args[0])
			p.w(" PLACING ")
			p.expr(e.Args[1])
			p.w(" FROM ")
			p.expr(e.Args[2])
			if len(e.Args) == 4 {
				p.w(" FOR ")
				p.expr(e.Args[3])
			}
			p.w(")")
			return
		}
		if e.Name.Name == "POSITION" && len(e.Args) == 2 {
			p.w("POSITION(")
			p.expr(e.Args[0])
			p.w(" IN ")
			p.expr(e.Args[1])
			p.w(")")
			return
		}
		if e.Name.Name == "EXTRACT" && len(e.Args) == 2 {
			p.w("EXTRACT(")
			p.expr(e.Args[0])
			p.w(" FROM ")
			p.expr(e.Args[1])
			p.w(")")
			return
		}
		if e.Name.Name == "JSON_OBJECTAGG" && len(e.Args) == 2 {
			p.w("JSON_OBJECTAGG(KEY ")
			p.expr(e.Args[0])
			p.w(" VALUE ")
			p.expr(e.Args[1])
		} else {
			p.w(e.Name.Name, "(")
			if e.Distinct {
				p.w("DISTINCT ")
			}
			if e.Star {
				p.w("*")
			}
			p.exprs(e.Args)
		}
		if e.OnNull != "" {
			p.w(" ", e.OnNull, " ON NULL")
		}
		p.w(")")
		if e.Filter != nil {
			p.w(" FILTER (WHERE ")
			p.expr(e.Filter)
			p.w(")")
		}
		if e.Over != nil {
			p.w(" OVER ")
			if e.Over.Ref != nil && len(e.Over.PartitionBy) == 0 && len(e.Over.OrderBy) == 0 && e.Over.Frame == nil {
				p.ident(e.Over.Ref)
			} else {
				p.windowSpec(e.Over)
			}
		}
	case *JSONConstruct:
		p.w(e.Func, "(")
		for i, v := range e.Values {
			if i > 0 {
				p.w(", ")
			}
			if e.Func == "JSON_OBJECT" {
				p.w("KEY ")
				p.expr(e.Keys[i])
				p.w(" VALUE ")
			}
			p.expr(v)
		}
		if e.OnNull != "" {
			if len(e.Values) > 0 {
				p.w(" ")
			}
			p.w(e.OnNull, " ON NULL")
		}
		p.w(")")
	case *JSONCall:
		p.w(e.Func, "(")
		p.expr(e.JSON)
		p.w(", ")
		p.expr(e.Path)
		if e.Returning != nil {
			p.w(" RETURNING ", e.Returning.String())
		}
		if e.Wrapper != "" {
			p.w(" ", e.Wrapper, " ARRAY WRAPPER")
		}
		for _, c := range []struct {
			mode, on string
			def      Expr
		}{{e.OnEmpty, "EMPTY", e.EmptyDefault}, {e.OnError, "ERROR", e.ErrorDefault}} {
			switch c.mode {
			case "":
			case "DEFAULT":
				p.w(" DEFAULT ")
				p.expr(c.def)
				p.w(" ON ", c.on)
			default:
				p.w(" ", c.mode, " ON ", c.on)
			}
		}
		p.w(")")
	case *Cast:
		if e.Try {
			p.w("TRY_CAST(")
		} else {
			p.w("CAST(")
		}
		p.expr(e.X)
		p.w(" AS ", e.Type.String(), ")")
	case *Case:
		p.w("CASE")
		if e.Operand != nil {
			p.w(" ")
			p.expr(e.Operand)
		}
		for _, w := range e.Whens {
			p.w(" WHEN ")
			p.expr(w.Cond)
			p.w(" THEN ")
			p.expr(w.Result)
		}
		if e.Else != nil {
			p.w(" ELSE ")
			p.expr(e.Else)
		}
		p.w(" END")
	case *Paren:
		p.w("(")
		p.expr(e.X)
		p.w(")")
	case *SubqueryExpr:
		if e.Exists {
			p.w("EXISTS ")
		}
		p.w("(")
		p.query(e.Query)
		p.w(")")
	default:
		panic(fmt.Sprintf("ast.Format: unexpected expression %T", e))
	}
}

// Operator precedence, loosest first, for printing the fewest parentheses
// that keep the tree's shape.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCompare
	precConcat
	precAdd
	precMul
	precUnary
	precAtom
)

func precedence(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		switch e.Op {
		case "OR":
			return precOr
		case "AND":
			return precAnd
		case "=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
			return precCompare
		case "||":
			return precConcat
		case "+", "-":
			return precAdd
		}
		return precMul
	case *Unary:
		if e.Op == "NOT" {
			return precNot
		}
		return precUnary
	case *Between, *IsNull, *IsBool, *In, *Like:
		return precCompare
	}
	return precAtom
}

// operand prints e, in parentheses when it binds more loosely than prec.
func (p *printer) operand(e Expr, prec int) {
	if precedence(e) < prec {
		p.w("(")
		p.expr(e)
		p.w(")")
		return
	}
	p.expr(e)
}

// Children returns the direct sub-expressions of e, in source order. It
// panics on an expression type it does not know.
func Children(e Expr) []Expr {
	switch e := e.(type) {
	case *ColumnRef, *Literal, *IntervalLit, *SubqueryExpr:
		return nil
	case *Unary:
		return []Expr{e.X}
	case *Binary:
		return []Expr{e.L, e.R}
	case *Between:
		return []Expr{e.X, e.Lo, e.Hi}
	case *IsNull:
		return []Expr{e.X}
	case *IsBool:
		return []Expr{e.X}
	case *In:
		return append([]Expr{e.X}, e.List...)
	case *Like:
		return []Expr{e.X, e.Pattern}
	case *FuncCall:
		if e.Filter != nil {
			return append(slices.Clip(e.Args), e.Filter)
		}
		return e.Args
	case *Cast:
		return []Expr{e.X}
	case *JSONConstruct:
		return append(slices.Clip(e.Keys), e.Values...)
	case *JSONCall:
		out := []Expr{e.JSON, e.Path}
		if e.EmptyDefault != nil {
			out = append(out, e.EmptyDefault)
		}
		if e.ErrorDefault != nil {
			out = append(out, e.ErrorDefault)
		}
		return out
	case *Index:
		return []Expr{e.X, e.Index}
	case *Constructor:
		return e.Args
	case *Case:
		var out []Expr
		if e.Operand != nil {
			out = append(out, e.Operand)
		}
		for _, w := range e.Whens {
			out = append(out, w.Cond, w.Result)
		}
		if e.Else != nil {
			out = append(out, e.Else)
		}
		return out
	case *Paren:
		return []Expr{e.X}
	}
	panic(fmt.Sprintf("ast.Children: unexpected expression %T", e))
}

// Inspect calls f for e and, while f returns true, for each sub-expression.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, c := range Children(e) {
		Inspect(c, f)
	}
}
