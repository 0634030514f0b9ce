package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

// Nested values (ARRAY, MAP, ROW) in expressions. Each becomes a Call
// that package eval knows:
//
//	r.f, t.r.f         FIELD(r, i)       i the field's index (a constant)
//	a[i]               ITEM(a, i)        1-based; out of range is NULL
//	m[k]               ITEM(m, k)        k converted to the key type; absent is NULL
//	ARRAY[a, ...]      ARRAY(a, ...)     elements converted to their common type
//	MAP[k, v, ...]     MAP(k, v, ...)    keys and values likewise
//	ROW(a, ...)        ROW(a, ...)       fields EXPR$0, EXPR$1, ... as Flink names them
//	CARDINALITY(x), ELEMENT(a)           registered functions (see init)

func init() {
	functions["CARDINALITY"] = &fn{1, 1, "CARDINALITY(array or map) returns its number of elements (entries)",
		func(a []Expr) (types.T, string) {
			if k := a[0].Type().Kind; k != types.Array && k != types.Map && k != types.Null {
				return types.T{}, "takes an ARRAY or a MAP, got " + a[0].Type().String()
			}
			return types.New(types.Int).WithNullable(a[0].Type().Nullable), ""
		}}
	functions["ELEMENT"] = &fn{1, 1, "ELEMENT(array) returns the only element of an array of one element, NULL for an empty one, and fails for more",
		func(a []Expr) (types.T, string) {
			if a[0].Type().Kind != types.Array {
				return types.T{}, "takes an ARRAY, got " + a[0].Type().String()
			}
			return a[0].Type().Elem().WithNullable(true), ""
		}}
}

// nested binds x[i] and constructors; ok is false for other expressions.
func (b *Binder) nested(e ast.Expr) (Expr, bool) {
	switch e := e.(type) {
	case *ast.Index:
		return b.index(e), true
	case *ast.Constructor:
		return b.constructor(e), true
	}
	return nil, false
}

func (b *Binder) index(e *ast.Index) Expr {
	x, i := b.bind(e.X), b.bind(e.Index)
	t := x.Type()
	switch t.Kind {
	case types.Array:
		if k := i.Type().Kind; !k.IsIntegral() && k != types.Null {
			b.L.Errorf(diag.TypeMismatch, e.Index.Span(), "an array index must be an integer, but %s is %s", ast.Format(e.Index), i.Type()).
				WithHint("arrays are indexed from 1: %s[1] is the first element", ast.Format(e.X))
			return nullConst(e.S)
		}
		return &Call{Fn: "ITEM", Args: []Expr{x, i}, T: t.Elem().WithNullable(true), S: e.S}
	case types.Map:
		if !types.Comparable(i.Type(), t.Key()) {
			b.L.Errorf(diag.TypeMismatch, e.Index.Span(), "the keys of %s are %s, but %s is %s", ast.Format(e.X), t.Key(), ast.Format(e.Index), i.Type()).
				WithHint("CAST the key: %s[CAST(%s AS %s)]", ast.Format(e.X), ast.Format(e.Index), t.Key().WithNullable(true))
			return nullConst(e.S)
		}
		return &Call{Fn: "ITEM", Args: []Expr{x, i}, T: t.Value().WithNullable(true), S: e.S}
	case types.Null:
		return nullConst(e.S)
	default:
		b.L.Errorf(diag.TypeMismatch, e.S, "%s is %s: only an ARRAY or a MAP can be indexed with [...]", ast.Format(e.X), t)
		return nullConst(e.S)
	}
}

func (b *Binder) constructor(e *ast.Constructor) Expr {
	args := make([]Expr, len(e.Args))
	for i, a := range e.Args {
		args[i] = b.bind(a)
	}
	switch e.Kind {
	case "ROW":
		fs := make([]types.Field, len(args))
		for i, a := range args {
			fs[i] = types.Field{Name: "EXPR$" + strconv.Itoa(i), Type: a.Type()}
			if a.Type().Kind == types.Null {
				fs[i].Type = types.StringType() // ROW(NULL): Flink gives the field type NULL; STRING is what JSON writes
			}
		}
		return &Call{Fn: "ROW", Args: args, T: types.RowOf(fs...).NotNull(), S: e.S}
	case "MAP":
		if len(args) == 0 || len(args)%2 != 0 {
			b.L.Errorf(diag.WrongArguments, e.S, "MAP[...] takes keys and values in pairs, as in MAP['a', 1, 'b', 2]; got %d values", len(args))
			return nullConst(e.S)
		}
		var ks, vs []Expr
		for i := 0; i < len(args); i += 2 {
			ks, vs = append(ks, args[i]), append(vs, args[i+1])
		}
		kt, ok1 := b.elemType(e, ks, "keys")
		vt, ok2 := b.elemType(e, vs, "values")
		if !ok1 || !ok2 {
			return nullConst(e.S)
		}
		return &Call{Fn: "MAP", Args: args, T: types.MapOf(kt, vt).NotNull(), S: e.S}
	default: // ARRAY
		if len(args) == 0 {
			b.L.Errorf(diag.WrongArguments, e.S, "ARRAY[] needs at least one element, as in ARRAY[1, 2]")
			return nullConst(e.S)
		}
		et, ok := b.elemType(e, args, "elements")
		if !ok {
			return nullConst(e.S)
		}
		return &Call{Fn: "ARRAY", Args: args, T: types.ArrayOf(et).NotNull(), S: e.S}
	}
}

// elemType is the common type of a constructor's elements (keys, values).
func (b *Binder) elemType(e *ast.Constructor, args []Expr, what string) (types.T, bool) {
	t, msg := commonOf(args)
	if msg != "" {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		b.L.Errorf(diag.TypeMismatch, e.S, "the %s of %s[...] have no common type (%s)", what, e.Kind, strings.Join(ts, ", ")).
			WithHint("CAST them to one type")
		return types.T{}, false
	}
	if t.Kind == types.Null {
		b.L.Errorf(diag.TypeMismatch, e.S, "the %s of %s[...] are all NULL: their type cannot be known", what, e.Kind).
			WithHint("CAST one of them, as in CAST(NULL AS STRING)")
		return types.T{}, false
	}
	return t, true
}

// fieldPath splits a column reference with more names than a table and a
// column (r.f where no table is called r, t.r.f, r.f.g) into the column
// and the ROW fields after it; ok is false for a plain column.
func (b *Binder) fieldPath(e *ast.ColumnRef) (col *ast.ColumnRef, fields []*ast.Ident, ok bool) {
	if e.Qualifier == nil {
		return nil, nil, false
	}
	isTable := false
	for _, t := range b.Scope.Tables {
		if t.Alias == e.Qualifier.Name {
			isTable = true
		}
	}
	if isTable {
		if len(e.Path) == 0 {
			return nil, nil, false
		}
		c := &ast.ColumnRef{Qualifier: e.Qualifier, Name: e.Name}
		c.S = e.Qualifier.S.Join(e.Name.S)
		return c, e.Path, true
	}
	// r.f...: r must be a column (of a ROW type, checked by the caller).
	found := false
	for _, c := range b.Scope.Cols {
		if c.Name == e.Qualifier.Name && c.T.Kind == types.Row {
			found = true
		}
	}
	if !found {
		return nil, nil, false
	}
	c := &ast.ColumnRef{Name: e.Qualifier}
	c.S = e.Qualifier.S
	return c, append([]*ast.Ident{e.Name}, e.Path...), true
}

// fields binds x.f.g... on a bound ROW value x.
func (b *Binder) fields(x Expr, src ast.Expr, fields []*ast.Ident, whole diag.Span) Expr {
	for _, f := range fields {
		t := x.Type()
		if t.Kind != types.Row {
			b.L.Errorf(diag.UnknownColumn, f.S, "%s is %s, not a ROW: it has no field %s", ast.Format(src), t, f.Name)
			return nullConst(whole)
		}
		i := t.FieldIndex(f.Name)
		if i < 0 {
			var names []string
			for _, fd := range t.Fields() {
				names = append(names, fd.Name)
			}
			d := b.L.Errorf(diag.UnknownColumn, f.S, "%s has no field %s", ast.Format(src), f.Name)
			if j := t.FieldIndexFold(f.Name); j >= 0 {
				d.WithHint("did you mean %s? (field names are case-sensitive)", names[j])
			} else {
				d.WithHint("its fields are: %s", strings.Join(names, ", "))
			}
			return nullConst(whole)
		}
		ft := t.Fields()[i].Type
		x = &Call{Fn: "FIELD", Args: []Expr{x, &Const{V: int64(i), T: types.New(types.Int).NotNull(), S: f.S}},
			T: ft.WithNullable(ft.Nullable || t.Nullable), S: x.Span().Join(f.S)}
	}
	return x
}

// FieldOf returns the name of the ROW field e reads when e is a field
// access (r.f): the name Flink gives a select item r.f without an alias.
func FieldOf(e Expr) (string, bool) {
	c, ok := e.(*Call)
	if !ok || c.Fn != "FIELD" || len(c.Args) != 2 {
		return "", false
	}
	k, ok := c.Args[1].(*Const)
	if !ok {
		return "", false
	}
	i, ok := k.V.(int64)
	if !ok || int(i) >= c.Args[0].Type().NumFields() {
		return "", false
	}
	return c.Args[0].Type().Fields()[i].Name, true
}

// fieldName is the name of the field a FIELD call reads.
func fieldName(c *Call) string {
	if len(c.Args) == 2 {
		if k, ok := c.Args[1].(*Const); ok {
			if i, ok := k.V.(int64); ok && int(i) < c.Args[0].Type().NumFields() {
				return ast.QuoteIdent(c.Args[0].Type().Fields()[i].Name)
			}
		}
	}
	return fmt.Sprint(c.Args[1])
}
