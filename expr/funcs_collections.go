package expr

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// Flink's collection functions (its BuiltInFunctionDefinitions): ARRAY_*
// and MAP_*. The types follow Flink's input and output type strategies; the
// values, with Flink's NULL rules, are package eval's (funcs_collections.go).
func init() {
	for name, f := range collectionFunctions {
		if _, dup := functions[name]; dup {
			panic("expr: function " + name + " registered twice")
		}
		functions[name] = f
	}
}

var collectionFunctions = map[string]*fn{
	"ARRAY_CONTAINS": {2, 2, "ARRAY_CONTAINS(array, x) is whether x is an element of array (a NULL x finds a NULL element); NULL when array is",
		needleCheck(func(array Expr) types.T { return types.New(types.Boolean).WithNullable(array.Type().Nullable) })},
	"ARRAY_POSITION": {2, 2, "ARRAY_POSITION(array, x) is the position (from 1) of the first element equal to x, 0 if none; NULL when array or x is",
		needleCheck(func(Expr) types.T { return types.New(types.Int) })},
	"ARRAY_REMOVE": {2, 2, "ARRAY_REMOVE(array, x) is array without the elements equal to x (a NULL x removes the NULL elements); NULL when array is",
		needleCheck(func(array Expr) types.T { return array.Type() })},
	"ARRAY_DISTINCT": {1, 1, "ARRAY_DISTINCT(array) is array without repeated elements (the first of each kept, NULL once), in order",
		arrayCheck(func(args []Expr) types.T { return args[0].Type() })},
	"ARRAY_REVERSE": {1, 1, "ARRAY_REVERSE(array) is array in reverse order",
		arrayCheck(func(args []Expr) types.T { return args[0].Type() })},
	"ARRAY_SLICE": {2, 3, "ARRAY_SLICE(array, start [, end]) is the elements from position start to end, inclusive (from 1; negative counts from the end; 0 is the first; end defaults to the last)",
		func(args []Expr) (types.T, string) {
			if msg := arrayArg(args[0], "the first argument"); msg != "" {
				return types.T{}, msg
			}
			for i, a := range args[1:] {
				if k := a.Type().Kind; k != types.Int && k != types.Null {
					return types.T{}, fmt.Sprintf("argument %d must be an INT (a position), got %s", i+2, a.Type())
				}
			}
			return args[0].Type().WithNullable(true), ""
		}},
	"ARRAY_UNION": {2, 2, "ARRAY_UNION(array1, array2) is the elements of both without repeats (the first of each kept, NULL once), in order; NULL when either is",
		arraysCheck},
	"ARRAY_CONCAT": {1, -1, "ARRAY_CONCAT(array1, ...) is the elements of the arrays one after the other; NULL when any is",
		arraysCheck},
	"ARRAY_JOIN": {2, 3, "ARRAY_JOIN(array, delimiter [, nullReplacement]) is the string elements of array joined by delimiter; NULL elements are left out, or replaced by nullReplacement",
		func(args []Expr) (types.T, string) {
			if msg := arrayArg(args[0], "the first argument"); msg != "" {
				return types.T{}, msg
			}
			if !args[0].Type().Elem().Kind.IsString() {
				return types.T{}, fmt.Sprintf("the array's elements must be strings, got %s (CAST them: ARRAY_JOIN(CAST(a AS ARRAY<STRING>), ', '))", args[0].Type())
			}
			for i, a := range args[1:] {
				if !kindOK(a, isStr) {
					return types.T{}, fmt.Sprintf("argument %d must be a string, got %s", i+2, a.Type())
				}
			}
			return str, ""
		}},
	"ARRAY_APPEND": {2, 2, "ARRAY_APPEND(array, x) is array with x added at its end (a NULL x too); NULL when array is",
		elementCheck},
	"ARRAY_PREPEND": {2, 2, "ARRAY_PREPEND(array, x) is array with x added at its start (a NULL x too); NULL when array is",
		elementCheck},
	"ARRAY_MAX": {1, 1, "ARRAY_MAX(array) is its largest element, NULLs left out; NULL when array is NULL or has no other element",
		orderedCheck},
	"ARRAY_MIN": {1, 1, "ARRAY_MIN(array) is its smallest element, NULLs left out; NULL when array is NULL or has no other element",
		orderedCheck},
	"MAP_KEYS": {1, 1, "MAP_KEYS(map) is the array of its keys",
		mapCheck(func(m types.T) types.T { return types.ArrayOf(m.Key()).WithNullable(m.Nullable) })},
	"MAP_VALUES": {1, 1, "MAP_VALUES(map) is the array of its values",
		mapCheck(func(m types.T) types.T { return types.ArrayOf(m.Value()).WithNullable(m.Nullable) })},
	"MAP_ENTRIES": {1, 1, "MAP_ENTRIES(map) is the array of its entries, ROWs of its key and its value",
		mapCheck(func(m types.T) types.T {
			return types.ArrayOf(types.RowOf(types.Field{Name: "key", Type: m.Key()}, types.Field{Name: "value", Type: m.Value()}).NotNull()).WithNullable(m.Nullable)
		})},
	"MAP_FROM_ARRAYS": {2, 2, "MAP_FROM_ARRAYS(keys, values) is the map of keys[i] to values[i] (the arrays must be as long as each other; of repeated keys the last wins)",
		func(args []Expr) (types.T, string) {
			for i, a := range args {
				if msg := arrayArg(a, fmt.Sprintf("argument %d", i+1)); msg != "" {
					return types.T{}, msg
				}
			}
			k, v := args[0].Type(), args[1].Type()
			return types.MapOf(k.Elem(), v.Elem()).WithNullable(k.Nullable || v.Nullable), ""
		}},
}

// arrayArg says what is wrong with a as an ARRAY argument, or "".
func arrayArg(a Expr, what string) string {
	if a.Type().Kind != types.Array {
		return fmt.Sprintf("%s must be an ARRAY, got %s (a NULL needs a CAST: CAST(NULL AS ARRAY<INT>))", what, a.Type())
	}
	return ""
}

// arrayCheck checks the one argument is an ARRAY.
func arrayCheck(result func([]Expr) types.T) func([]Expr) (types.T, string) {
	return func(args []Expr) (types.T, string) {
		if msg := arrayArg(args[0], "the argument"); msg != "" {
			return types.T{}, msg
		}
		return result(args), ""
	}
}

// needleCheck checks an ARRAY and a value that compares with its elements.
func needleCheck(result func(array Expr) types.T) func([]Expr) (types.T, string) {
	return func(args []Expr) (types.T, string) {
		if msg := arrayArg(args[0], "the first argument"); msg != "" {
			return types.T{}, msg
		}
		if el := args[0].Type().Elem(); !types.Comparable(el, args[1].Type()) {
			return types.T{}, fmt.Sprintf("the elements are %s, which cannot be compared with %s", el, args[1].Type())
		}
		return result(args[0]), ""
	}
}

// arraysCheck checks ARRAYs of one element type: the result is their
// common type, nullable when any is.
func arraysCheck(args []Expr) (types.T, string) {
	for i, a := range args {
		if msg := arrayArg(a, fmt.Sprintf("argument %d", i+1)); msg != "" {
			return types.T{}, msg
		}
	}
	t, msg := commonOf(args)
	if msg != "" {
		return types.T{}, "the arrays' elements must be of one type (CAST them), got " + describeTypes(args)
	}
	return t, ""
}

// mapCheck checks the one argument is a MAP.
func mapCheck(result func(types.T) types.T) func([]Expr) (types.T, string) {
	return func(args []Expr) (types.T, string) {
		if args[0].Type().Kind != types.Map {
			return types.T{}, fmt.Sprintf("the argument must be a MAP, got %s", args[0].Type())
		}
		return result(args[0].Type()), ""
	}
}

// elementCheck checks an ARRAY and a value its elements' type takes: the
// result's elements are nullable when the value is.
func elementCheck(args []Expr) (types.T, string) {
	if msg := arrayArg(args[0], "the first argument"); msg != "" {
		return types.T{}, msg
	}
	a, x := args[0].Type(), args[1].Type()
	el := a.Elem()
	switch {
	case el.Kind.IsString() && x.Kind.IsString():
		// Strings of any length: the elements' type grows to hold x.
		el, _ = types.CommonType(el, x)
	case !types.ImplicitCast(x, el):
		return types.T{}, fmt.Sprintf("the elements are %s, which %s does not convert to (CAST it)", a.Elem(), x)
	}
	return types.ArrayOf(el.WithNullable(el.Nullable || x.Nullable)).WithNullable(a.Nullable), ""
}

// orderedCheck checks an ARRAY whose elements have an order: the result is
// an element, nullable.
func orderedCheck(args []Expr) (types.T, string) {
	if msg := arrayArg(args[0], "the argument"); msg != "" {
		return types.T{}, msg
	}
	if el := args[0].Type().Elem(); !types.Orderable(el, el) {
		return types.T{}, fmt.Sprintf("the elements are %s, which have no order", el)
	}
	return args[0].Type().Elem().WithNullable(true), ""
}
