package eval

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The collection functions of expr/funcs_collections.go, with the NULL rules of
// Flink's classes of the same names (ArrayContainsFunction, ...): elements
// are compared as = compares them, except that a NULL needle finds the NULL
// elements where Flink's does (ARRAY_CONTAINS, ARRAY_REMOVE), and the
// distinct functions keep one NULL.
func init() {
	for name, f := range map[string]builtin{
		"ARRAY_CONTAINS":  arrayContains,
		"ARRAY_POSITION":  arrayPosition,
		"ARRAY_REMOVE":    arrayRemove,
		"ARRAY_DISTINCT":  arrayDistinct,
		"ARRAY_REVERSE":   arrayReverse,
		"ARRAY_SLICE":     arraySlice,
		"ARRAY_UNION":     arrayUnion,
		"ARRAY_CONCAT":    arrayConcat,
		"ARRAY_JOIN":      arrayJoin,
		"ARRAY_APPEND":    arrayAdd(false),
		"ARRAY_PREPEND":   arrayAdd(true),
		"ARRAY_MAX":       arrayExtreme(1),
		"ARRAY_MIN":       arrayExtreme(-1),
		"MAP_KEYS":        mapPart(func(k, _ row.Value) row.Value { return k }),
		"MAP_VALUES":      mapPart(func(_, v row.Value) row.Value { return v }),
		"MAP_ENTRIES":     mapPart(func(k, v row.Value) row.Value { return row.ListValue([]row.Value{k, v}) }),
		"MAP_FROM_ARRAYS": mapFromArrays,
	} {
		if _, dup := functions[name]; dup {
			panic("eval: function " + name + " registered twice")
		}
		functions[name] = f
	}
}

// elements decodes an ARRAY value.
func elements(a row.Value) ([]row.Value, error) { return row.DecodeList(nil, a.Str()) }

// elemEqual returns whether an element of array equals a non-NULL needle
// (nil when the needle's type is NULL: it is never a value).
func elemEqual(array, needle node) (func(el, x row.Value) bool, error) {
	if needle.t.Kind == types.Null {
		return nil, nil
	}
	cmp, err := comparer(&node{t: array.t.Elem()}, &node{t: needle.t})
	if err != nil {
		return nil, err
	}
	return func(el, x row.Value) bool { return !el.IsNull() && cmp(el, x) == 0 }, nil
}

// needleFunc evaluates ARRAY_CONTAINS, ARRAY_POSITION and ARRAY_REMOVE:
// NULL when the array is NULL; op gets its elements and the needle (maybe
// NULL) and whether an element equals it.
func needleFunc(args []node, op func(els []row.Value, x row.Value, eq func(el, x row.Value) bool) (row.Value, error)) (Func, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("eval: takes an array and a value")
	}
	eq, err := elemEqual(args[0], args[1])
	if err != nil {
		return nil, err
	}
	af, xf := args[0].f, args[1].f
	return func(vals []row.Value) (row.Value, error) {
		a, err := af(vals)
		if err != nil || a.IsNull() {
			return row.NullValue, err
		}
		x, err := xf(vals)
		if err != nil {
			return row.NullValue, err
		}
		els, err := elements(a)
		if err != nil {
			return row.NullValue, err
		}
		return op(els, x, eq)
	}, nil
}

// matches is whether el is x: both NULL, or equal.
func matches(el, x row.Value, eq func(el, x row.Value) bool) bool {
	if x.IsNull() {
		return el.IsNull()
	}
	return eq(el, x)
}

func arrayContains(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return needleFunc(args, func(els []row.Value, x row.Value, eq func(el, x row.Value) bool) (row.Value, error) {
		for _, el := range els {
			if matches(el, x, eq) {
				return row.BoolValue(true), nil
			}
		}
		return row.BoolValue(false), nil
	})
}

func arrayPosition(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return needleFunc(args, func(els []row.Value, x row.Value, eq func(el, x row.Value) bool) (row.Value, error) {
		if x.IsNull() {
			return row.NullValue, nil
		}
		for i, el := range els {
			if eq(el, x) {
				return row.IntValue(int64(i + 1)), nil
			}
		}
		return row.IntValue(0), nil
	})
}

func arrayRemove(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return needleFunc(args, func(els []row.Value, x row.Value, eq func(el, x row.Value) bool) (row.Value, error) {
		out := els[:0]
		for _, el := range els {
			if !matches(el, x, eq) {
				out = append(out, el)
			}
		}
		return row.ListValue(out), nil
	})
}

// distinctAppend appends the elements of els that are not in out yet (one
// NULL at most), in order.
func distinctAppend(out, els []row.Value, cmp func(x, y row.Value) int) []row.Value {
	for _, el := range els {
		seen := false
		for _, o := range out {
			if el.IsNull() && o.IsNull() || !el.IsNull() && !o.IsNull() && cmp(el, o) == 0 {
				seen = true
				break
			}
		}
		if !seen {
			out = append(out, el)
		}
	}
	return out
}

// elemComparer compares the elements of an array of type t with each
// other.
func elemComparer(t types.T) (func(x, y row.Value) int, error) {
	return comparer(&node{t: t.Elem()}, &node{t: t.Elem()})
}

func arrayDistinct(_ *compiler, e *expr.Call, args []node) (Func, error) {
	cmp, err := elemComparer(e.T)
	if err != nil {
		return nil, err
	}
	return un(args[0], func(a row.Value) (row.Value, error) {
		els, err := elements(a)
		if err != nil {
			return row.NullValue, err
		}
		return row.ListValue(distinctAppend(nil, els, cmp)), nil
	}), nil
}

func arrayUnion(_ *compiler, e *expr.Call, args []node) (Func, error) {
	cmp, err := elemComparer(e.T)
	if err != nil {
		return nil, err
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		var out []row.Value
		for _, a := range xs {
			els, err := elements(a)
			if err != nil {
				return row.NullValue, err
			}
			out = distinctAppend(out, els, cmp)
		}
		return row.ListValue(out), nil
	}), nil
}

func arrayConcat(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		var out []row.Value
		for _, a := range xs {
			var err error
			if out, err = row.DecodeList(out, a.Str()); err != nil {
				return row.NullValue, err
			}
		}
		return row.ListValue(out), nil
	}), nil
}

func arrayReverse(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return un(args[0], func(a row.Value) (row.Value, error) {
		els, err := elements(a)
		if err != nil {
			return row.NullValue, err
		}
		for i, j := 0, len(els)-1; i < j; i, j = i+1, j-1 {
			els[i], els[j] = els[j], els[i]
		}
		return row.ListValue(els), nil
	}), nil
}

// arraySlice is Flink's ArraySliceFunction: a negative offset counts from
// the end (-1 the last), a start before the first is the first, an end
// after the last is the last, an end of 0 is the first; a start after the
// end gives the empty array.
func arraySlice(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		els, err := elements(xs[0])
		if err != nil || len(els) == 0 {
			return xs[0], err
		}
		n := int64(len(els))
		start, end := xs[1].Int(), n
		if len(xs) == 3 {
			end = xs[2].Int()
		}
		if start < 0 {
			start += n + 1
		}
		if end < 0 {
			end += n + 1
		}
		start = max(1, start)
		if end == 0 {
			end = 1
		}
		end = min(end, n)
		if end < start {
			return row.ListValue(nil), nil
		}
		return row.ListValue(els[start-1 : end]), nil
	}), nil
}

// arrayJoin is Flink's ArrayJoinFunction: NULL when the array, the
// delimiter or a given nullReplacement is NULL; NULL elements are left out
// unless replaced.
func arrayJoin(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		els, err := elements(xs[0])
		if err != nil {
			return row.NullValue, err
		}
		var b strings.Builder
		first := true
		for _, el := range els {
			s := ""
			switch {
			case !el.IsNull():
				s = el.Str()
			case len(xs) == 3:
				s = xs[2].Str()
			default:
				continue
			}
			if !first {
				b.WriteString(xs[1].Str())
			}
			first = false
			b.WriteString(s)
		}
		return row.StrValue(b.String()), nil
	}), nil
}

// mapPart is MAP_KEYS, MAP_VALUES and MAP_ENTRIES: part of each entry, in
// the map's order (by key).
func mapPart(part func(k, v row.Value) row.Value) builtin {
	return func(_ *compiler, _ *expr.Call, args []node) (Func, error) {
		return un(args[0], func(m row.Value) (row.Value, error) {
			keys, vals, err := row.DecodeMap(nil, nil, m.Str())
			if err != nil {
				return row.NullValue, err
			}
			out := make([]row.Value, len(keys))
			for i := range keys {
				out[i] = part(keys[i], vals[i])
			}
			return row.ListValue(out), nil
		}), nil
	}
}

// mapFromArrays is MAP_FROM_ARRAYS: NULL when either array is; arrays of
// different lengths are an error, as in Flink (its ArrayBasedMapData).
func mapFromArrays(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		keys, err := elements(xs[0])
		if err != nil {
			return row.NullValue, err
		}
		vals, err := elements(xs[1])
		if err != nil {
			return row.NullValue, err
		}
		if len(keys) != len(vals) {
			return row.NullValue, errorf(ErrInvalidArgument, "MAP_FROM_ARRAYS of %d keys and %d values: the arrays must be as long as each other", len(keys), len(vals))
		}
		return row.MapValue(keys, vals), nil
	}), nil
}

// arrayAdd is ARRAY_APPEND (first false) and ARRAY_PREPEND: NULL when the
// array is; the value, converted to the element type, is added even when
// NULL, as in Flink.
func arrayAdd(first bool) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) != 2 {
			return nil, fmt.Errorf("eval: %s takes an array and a value", e.Fn)
		}
		cv, err := converter(args[1].t, e.T.Elem(), false)
		if err != nil {
			return nil, err
		}
		af, x := args[0].f, args[1]
		return func(vals []row.Value) (row.Value, error) {
			a, err := af(vals)
			if err != nil || a.IsNull() {
				return row.NullValue, err
			}
			v, err := evalConv(x, cv, vals)
			if err != nil {
				return row.NullValue, err
			}
			els, err := elements(a)
			if err != nil {
				return row.NullValue, err
			}
			if first {
				return row.ListValue(append([]row.Value{v}, els...)), nil
			}
			return row.ListValue(append(els, v)), nil
		}, nil
	}
}

// arrayExtreme is ARRAY_MAX (sign 1) and ARRAY_MIN (-1): the first largest
// (smallest) non-NULL element, NULL when there is none, as Flink's
// ArrayMaxFunction.
func arrayExtreme(sign int) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		cmp, err := elemComparer(args[0].t)
		if err != nil {
			return nil, err
		}
		return un(args[0], func(a row.Value) (row.Value, error) {
			els, err := elements(a)
			if err != nil {
				return row.NullValue, err
			}
			best := row.NullValue
			for _, el := range els {
				if !el.IsNull() && (best.IsNull() || sign*cmp(el, best) > 0) {
					best = el
				}
			}
			return best, nil
		}), nil
	}
}
