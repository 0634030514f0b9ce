package planner

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// unnest binds UNNEST(x) [WITH ORDINALITY] [AS] u [(cols)] joined to the
// FROM item l by j (CROSS JOIN, a comma, INNER JOIN … ON cond, LEFT JOIN …
// ON TRUE); l and j are nil for UNNEST alone in FROM, which unnests x
// (naming no column) once. It becomes a logical.Correlate, Flink's plan
// for it. Its columns, as Flink (Calcite) names them when u has no column
// list: an ARRAY's element EXPR$0, or the fields of a ROW element by their
// names; a MAP's KEY and VALUE; then ORDINALITY.
func (b *binder) unnest(l *rel, j *ast.Join, u *ast.Unnest) *rel {
	if l == nil {
		l = &rel{node: &logical.Values{Rows: [][]expr.Expr{{}}, S: u.S}}
	}
	left := false
	var on ast.Expr
	if j != nil {
		switch j.Kind {
		case ast.CrossJoin, ast.InnerJoin:
			on = j.On
		case ast.LeftJoin:
			left = true
			if !isTrueLit(j.On) {
				sp := j.Keyword
				if j.On != nil {
					sp = j.On.Span()
				}
				b.errorf(diag.UnsupportedFeature, sp, "LEFT JOIN UNNEST(…) takes ON TRUE only: every element is joined to the row it comes from").
					WithHint("write LEFT JOIN UNNEST(…) AS u (x) ON TRUE, and filter the elements in WHERE (or use CROSS JOIN, which drops the rows with no element)")
				return nil
			}
		default:
			b.errorf(diag.UnsupportedFeature, j.Keyword, "UNNEST is joined to the rows it comes from with CROSS JOIN, [INNER] JOIN … ON or LEFT JOIN … ON TRUE, not a %s JOIN", j.Kind)
			return nil
		}
		if len(j.Using) > 0 {
			b.errorf(diag.UnsupportedFeature, j.Using[0].S, "UNNEST cannot be joined with USING: write ON TRUE, or CROSS JOIN")
			return nil
		}
	}
	if len(u.Exprs) != 1 {
		// Flink does not run it either: its LogicalUnnestRule builds
		// the UNNEST table function from the first value's type alone.
		b.errorf(diag.UnsupportedFeature, u.Exprs[1].Span(), "UNNEST of more than one value is not supported (nor by Flink); the SQL standard pairs their elements by position").
			WithHint("to pair elements by position, unnest one WITH ORDINALITY and index the others: CROSS JOIN UNNEST(a) WITH ORDINALITY AS x (a1, i) gives a1 and b[i]; for every combination, unnest one after the other: CROSS JOIN UNNEST(a) AS x (a1) CROSS JOIN UNNEST(b) AS y (b1)")
		return nil
	}
	bd := &expr.Binder{Scope: scopeOf(l.node.Columns(), l.tables), L: b.l, Clause: "UNNEST"}
	e := bd.Bind(u.Exprs[0])
	if e == nil {
		return nil
	}
	t := e.Type()
	var cols []logical.Column
	switch t.Kind {
	case types.Array:
		el := t.Elem()
		if el.Kind == types.Row {
			for _, f := range el.Fields() {
				cols = append(cols, logical.Column{Name: f.Name, Type: f.Type.WithNullable(f.Type.Nullable || el.Nullable)})
			}
		} else {
			cols = append(cols, logical.Column{Name: "EXPR$0", Type: el})
		}
	case types.Map:
		cols = append(cols, logical.Column{Name: "KEY", Type: t.Key()}, logical.Column{Name: "VALUE", Type: t.Value()})
	default:
		b.errorf(diag.TypeMismatch, u.Exprs[0].Span(), "UNNEST takes an ARRAY or a MAP, but %s is %s", ast.Format(u.Exprs[0]), t).
			WithHint("UNNEST expands an array column (ARRAY<T>) into one row per element, or a MAP into one row per entry")
		return nil
	}
	if u.Ordinality {
		cols = append(cols, logical.Column{Name: "ORDINALITY", Type: types.New(types.Int).NotNull()})
	}
	if len(u.Columns) > 0 {
		if len(u.Columns) != len(cols) {
			b.errorf(diag.WrongArguments, u.Alias.S, "%s names %s, but UNNEST(%s) gives %s", u.Alias.Name, columnsWord(len(u.Columns)), ast.Format(u.Exprs[0]), columnsWord(len(cols))).
				WithHint("%s", unnestColsHint(t, u.Ordinality))
			return nil
		}
		for i, c := range u.Columns {
			cols[i].Name = c.Name
		}
	}
	alias := ""
	if u.Alias != nil {
		alias = u.Alias.Name
		for _, lt := range l.tables {
			if lt.Alias == alias {
				b.errorf(diag.DuplicateAlias, u.Alias.S, "table alias %s is used twice in this FROM", alias)
				return nil
			}
		}
	}
	for i := range cols {
		cols[i].Qualifier = alias
		if left {
			cols[i].Type = cols[i].Type.WithNullable(true)
		}
	}
	c := &logical.Correlate{Input: l.node, Expr: e, Left: left, Ordinality: u.Ordinality,
		Cols: append(slices.Clone(l.node.Columns()), cols...), S: u.S}
	out := &rel{node: c, tables: slices.Clone(l.tables)}
	if alias != "" {
		out.tables = append(out.tables, expr.ScopeTable{Alias: alias, Table: alias})
	}
	if on != nil && !isTrueLit(on) {
		bd := &expr.Binder{Scope: scopeOf(c.Cols, out.tables), L: b.l, Clause: "the ON clause"}
		cond := bd.BindBool(on)
		if cond == nil {
			return nil
		}
		out.node = &logical.Filter{Input: c, Cond: cond, S: j.S}
	}
	return out
}

// unnestColsHint says which columns UNNEST of a value of type t gives.
func unnestColsHint(t types.T, ordinality bool) string {
	var s string
	switch {
	case t.Kind == types.Map:
		s = "a MAP gives two columns, its key and its value: AS u (k, v)"
	case t.Elem().Kind == types.Row:
		s = "an ARRAY of ROWs gives one column per field of the ROW"
	default:
		s = "an ARRAY gives one column, its element: AS u (x)"
	}
	if ordinality {
		s += ", and WITH ORDINALITY one more, the position"
	}
	return s
}

// isTrueLit reports whether e is the literal TRUE.
func isTrueLit(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.BoolLit && l.Raw == "TRUE"
}

// correlateText renders a Correlate for EXPLAIN: its kind, what it
// unnests and the columns it adds.
func correlateText(left, ordinality bool, x string, cols []logical.Column) string {
	kind := "INNER"
	if left {
		kind = "LEFT"
	}
	s := kind + " UNNEST(" + x + ")"
	if ordinality {
		s += " WITH ORDINALITY"
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = ast.QuoteIdent(c.Name)
	}
	return s + " AS (" + strings.Join(names, ", ") + ")"
}

// filterBelowCorrelate moves the conjuncts of f that read only the
// Correlate's input below it: a row they drop would have dropped every row
// it unnests to (the NULL-padded one of a LEFT UNNEST too), and it is not
// expanded first.
func (o *optimizer) filterBelowCorrelate(f *logical.Filter, c *logical.Correlate) logical.Node {
	nIn := len(c.Input.Columns())
	var keep, below []expr.Expr
	for _, x := range expr.Conjuncts(f.Cond) {
		if side(x, nIn) == 1 {
			below = append(below, x)
		} else {
			keep = append(keep, x)
		}
	}
	if len(below) == 0 {
		return f
	}
	o.fire("pushdown", f.S, "%d WHERE predicate(s) read only the rows UNNEST expands: they run before it", len(below))
	c = shallowCopy(c)
	c.Input = addFilter(c.Input, below, f.S)
	return addFilter(c, keep, f.S)
}
