package expr

import (
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

// The SQL/JSON query functions (ast.JSONCall) bind to calls whose
// arguments carry their clauses, as package eval reads them (json.go):
//
//	JSON_VALUE(json, path, onEmpty, emptyDefault, onError, errorDefault)  the RETURNING type
//	JSON_QUERY(json, path, wrapper, onEmpty, onError)                    STRING
//	JSON_EXISTS(json, path, onError)                                     BOOLEAN
//
// the behaviours as constant strings, an omitted one as its default (NULL
// ON EMPTY and ON ERROR, WITHOUT ARRAY WRAPPER, FALSE ON ERROR), and the
// DEFAULT values converted to the RETURNING type (NULL when not given).

// jsonReturning are the types JSON_VALUE's RETURNING takes, as Flink's.
var jsonReturning = map[types.Kind]bool{types.Varchar: true, types.Char: true, types.Boolean: true, types.Int: true,
	types.BigInt: true, types.Double: true}

func init() {
	str3 := func(args []Expr) string {
		for i, a := range args {
			if (i < 2 || a.Type().Kind != types.Null) && !kindOK(a, isStr) && i != 3 && i != 5 {
				return "the JSON text and the path must be strings, got " + describeTypes(args)
			}
		}
		return ""
	}
	functions["JSON_VALUE"] = &fn{6, 6, "JSON_VALUE(json, path [RETURNING type] [{NULL | ERROR | DEFAULT v} ON EMPTY] [{NULL | ERROR | DEFAULT v} ON ERROR])",
		func(args []Expr) (types.T, string) {
			if m := str3(args); m != "" {
				return types.T{}, m
			}
			return types.StringType(), ""
		}}
	functions["JSON_QUERY"] = &fn{5, 5, "JSON_QUERY(json, path [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [… ON ERROR])",
		func(args []Expr) (types.T, string) {
			if m := str3(args[:2]); m != "" {
				return types.T{}, m
			}
			return types.StringType(), ""
		}}
	construct := func(args []Expr) (types.T, string) {
		for _, a := range args[1:] {
			if !jsonValueType(a.Type()) {
				return types.T{}, "takes strings, booleans, numbers, and ARRAY, MAP and ROW values of those, got " + describeTypes(args)
			}
		}
		return types.StringType().NotNull(), ""
	}
	functions["IS JSON"] = &fn{2, 2, "text IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT] is whether text is JSON (of that kind; VALUE: any); FALSE for NULL",
		func(args []Expr) (types.T, string) {
			if !kindOK(args[0], isStr) {
				return types.T{}, "takes a string, got " + args[0].Type().String()
			}
			return types.New(types.Boolean).NotNull(), ""
		}}
	functions["JSON_STRING"] = &fn{1, 1, "JSON_STRING(value) is value written as JSON text (a string quoted, an ARRAY as a list, a MAP or ROW as an object); NULL for NULL",
		func(args []Expr) (types.T, string) {
			if !jsonValueType(args[0].Type()) {
				return types.T{}, "takes a string, boolean, number, or an ARRAY, MAP or ROW of those, got " + describeTypes(args)
			}
			return types.StringType(), ""
		}}
	functions["JSON_OBJECT"] = &fn{1, -1, "JSON_OBJECT([[KEY] k VALUE v, …] [{NULL | ABSENT} ON NULL])", construct}
	functions["JSON_ARRAY"] = &fn{1, -1, "JSON_ARRAY([v, …] [{NULL | ABSENT} ON NULL])", construct}
	functions["JSON_EXISTS"] = &fn{3, 3, "JSON_EXISTS(json, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])",
		func(args []Expr) (types.T, string) {
			if m := str3(args[:2]); m != "" {
				return types.T{}, m
			}
			return types.New(types.Boolean), ""
		}}
}

func (b *Binder) jsonCall(e *ast.JSONCall) Expr {
	j, p := b.bind(e.JSON), b.bind(e.Path)
	for _, a := range []struct {
		x   Expr
		src ast.Expr
	}{{j, e.JSON}, {p, e.Path}} {
		if !kindOK(a.x, isStr) {
			b.L.Errorf(diag.WrongArguments, a.src.Span(), "%s: %s is %s, but the JSON text and the path are strings", e.Func, ast.Format(a.src), a.x.Type())
			return nullConst(e.S)
		}
	}
	mode := func(m, def string) Expr {
		if m == "" {
			m = def
		}
		return &Const{V: m, T: types.StringType().NotNull(), S: e.S}
	}
	switch e.Func {
	case "JSON_EXISTS":
		return &Call{Fn: e.Func, Args: []Expr{j, p, mode(e.OnError, "FALSE")}, T: types.New(types.Boolean), S: e.S}
	case "JSON_QUERY":
		return &Call{Fn: e.Func, Args: []Expr{j, p, mode(strings.TrimPrefix(e.Wrapper, "WITH "), "WITHOUT"), mode(e.OnEmpty, "NULL"), mode(e.OnError, "NULL")},
			T: types.StringType(), S: e.S}
	}
	t := types.StringType()
	if e.Returning != nil {
		rt, ok := types.FromAST(e.Returning, b.L)
		if !ok {
			return nullConst(e.S)
		}
		if !jsonReturning[rt.Kind] {
			b.L.Errorf(diag.UnsupportedFeature, e.Returning.S, "JSON_VALUE returns STRING, BOOLEAN, INT, BIGINT or DOUBLE, not %s", rt).
				WithHint("RETURNING STRING and then CAST(… AS %s)", rt)
			return nullConst(e.S)
		}
		t = rt.WithNullable(true)
	}
	def := func(x ast.Expr, on string) Expr {
		if x == nil {
			return &Const{V: nil, T: t, S: e.S}
		}
		d := b.bind(x)
		if !isNull(d) && !types.CanCast(d.Type(), t) {
			b.L.Errorf(diag.TypeMismatch, x.Span(), "the DEFAULT … ON %s of JSON_VALUE is %s, which does not convert to the RETURNING type %s", on, d.Type(), t)
			return nil
		}
		if types.SameIgnoringNull(d.Type(), t) {
			return d
		}
		return &Call{Fn: "CAST", Args: []Expr{d}, T: t, S: x.Span()}
	}
	ed, xd := def(e.EmptyDefault, "EMPTY"), def(e.ErrorDefault, "ERROR")
	if ed == nil || xd == nil {
		return nullConst(e.S)
	}
	return &Call{Fn: e.Func, Args: []Expr{j, p, mode(e.OnEmpty, "NULL"), ed, mode(e.OnError, "NULL"), xd}, T: t, S: e.S}
}

// JSONValueType reports whether values of t can be written as JSON (by
// JSON_STRING, JSON_OBJECT, JSON_OBJECTAGG, …).
func JSONValueType(t types.T) bool { return jsonValueType(t) }

// jsonValueType reports whether values of t can go into JSON_OBJECT and
// JSON_ARRAY: strings, booleans, numbers, and ARRAY, MAP (of string keys)
// and ROW of those.
func jsonValueType(t types.T) bool {
	switch {
	case t.Kind == types.Null, t.Kind.IsString(), t.Kind == types.Boolean, t.Kind.IsNumeric():
		return true
	case t.Kind == types.Array:
		return jsonValueType(t.Elem())
	case t.Kind == types.Map:
		return t.Key().Kind.IsString() && jsonValueType(t.Value())
	case t.Kind == types.Row:
		for _, f := range t.Fields() {
			if !jsonValueType(f.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonConstruct binds JSON_OBJECT and JSON_ARRAY to calls of their ON NULL
// behaviour (NULL ON NULL for JSON_OBJECT, ABSENT ON NULL for JSON_ARRAY
// when omitted, as Flink's) and then their keys and values:
//
//	JSON_OBJECT(onNull, k1, v1, k2, v2, …)   JSON_ARRAY(onNull, v1, v2, …)
func (b *Binder) jsonConstruct(e *ast.JSONConstruct) Expr {
	onNull := e.OnNull
	if onNull == "" {
		onNull = map[string]string{"JSON_OBJECT": "NULL", "JSON_ARRAY": "ABSENT"}[e.Func]
	}
	args := []Expr{&Const{V: onNull, T: types.StringType().NotNull(), S: e.S}}
	ok := true
	for i, v := range e.Values {
		if e.Func == "JSON_OBJECT" {
			k := b.bind(e.Keys[i])
			if !kindOK(k, isStr) {
				b.L.Errorf(diag.WrongArguments, e.Keys[i].Span(), "JSON_OBJECT: the key %s is %s, but keys are strings", ast.Format(e.Keys[i]), k.Type())
				ok = false
			}
			args = append(args, k)
		}
		x := b.bind(v)
		if !jsonValueType(x.Type()) {
			b.L.Errorf(diag.WrongArguments, v.Span(), "%s: %s is %s, which streamsql does not write as JSON yet", e.Func, ast.Format(v), x.Type()).
				WithHint("CAST it to STRING: %s(… CAST(%s AS STRING) …)", e.Func, ast.Format(v))
			ok = false
		}
		args = append(args, x)
	}
	if !ok {
		return nullConst(e.S)
	}
	return &Call{Fn: e.Func, Args: args, T: types.StringType().NotNull(), S: e.S}
}
