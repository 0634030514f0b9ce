package eval

import (
	"fmt"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// nestedCall compiles the calls on nested values the binder makes (see
// package expr, nested.go): FIELD, ITEM, ARRAY, MAP, ROW, CARDINALITY and
// ELEMENT. ok is false for any other call.
func (c *compiler) nestedCall(e *expr.Call, args []node) (f Func, ok bool, err error) {
	switch e.Fn {
	case "FIELD":
		if len(args) != 2 || !args[1].konst {
			return nil, true, fmt.Errorf("eval: FIELD takes a row and a constant index")
		}
		i := int(args[1].v.Int())
		return un(args[0], func(x row.Value) (row.Value, error) {
			v, _, err := row.ListAt(x.Str(), i)
			return v, err
		}), true, nil
	case "ITEM":
		if len(args) != 2 {
			return nil, true, fmt.Errorf("eval: ITEM takes 2 arguments")
		}
		if args[0].t.Kind == types.Map {
			// The key is converted to the map's key type; a key that
			// does not convert exactly (1.5 for INT keys, 300 for
			// TINYINT ones) is no key of the map.
			kt := args[0].t.Key()
			to, err := converter(args[1].t, kt, false)
			if err != nil {
				return nil, true, err
			}
			back, err := converter(kt, args[1].t, false)
			if err != nil {
				return nil, true, err
			}
			cmp, err := comparer(&node{t: args[1].t}, &node{t: args[1].t})
			if err != nil && to != nil {
				return nil, true, err
			}
			return bin(args[0], args[1], func(m, k row.Value) (row.Value, error) {
				if to != nil {
					kk, err := to(k)
					if err != nil {
						return row.NullValue, nil
					}
					if back != nil {
						if b, err := back(kk); err != nil || cmp(b, k) != 0 {
							return row.NullValue, nil
						}
					}
					k = kk
				}
				v, _, err := row.MapGet(m.Str(), k)
				return v, err
			}), true, nil
		}
		return bin(args[0], args[1], func(a, i row.Value) (row.Value, error) {
			// 1-based; an index out of range is NULL, as in Flink.
			n := i.Int()
			if n < 1 || n > int64(len(a.Str())) {
				return row.NullValue, nil
			}
			v, _, err := row.ListAt(a.Str(), int(n-1))
			return v, err
		}), true, nil
	case "CARDINALITY":
		return un(args[0], func(x row.Value) (row.Value, error) {
			n, err := row.ListLen(x.Str())
			return row.IntValue(int64(n)), err
		}), true, nil
	case "ELEMENT":
		return un(args[0], func(x row.Value) (row.Value, error) {
			vals, err := row.DecodeList(nil, x.Str())
			switch {
			case err != nil:
				return row.NullValue, err
			case len(vals) > 1:
				return row.NullValue, errorf(ErrInvalidArgument, "ELEMENT of an array of %d elements: it takes an array of at most one", len(vals))
			case len(vals) == 0:
				return row.NullValue, nil
			}
			return vals[0], nil
		}), true, nil
	case "ARRAY", "ROW":
		convs := make([]conv, len(args))
		for i, a := range args {
			to := e.T.Elem()
			if e.Fn == "ROW" {
				to = e.T.Fields()[i].Type
			}
			if convs[i], err = converter(a.t, to, false); err != nil {
				return nil, true, err
			}
		}
		return func(vals []row.Value) (row.Value, error) {
			out := make([]row.Value, len(args))
			for i, a := range args {
				v, err := evalConv(a, convs[i], vals)
				if err != nil {
					return row.NullValue, err
				}
				out[i] = v
			}
			return row.ListValue(out), nil
		}, true, nil
	case "MAP":
		convs := make([]conv, len(args))
		for i, a := range args {
			to := e.T.Key()
			if i%2 == 1 {
				to = e.T.Value()
			}
			if convs[i], err = converter(a.t, to, false); err != nil {
				return nil, true, err
			}
		}
		return func(vals []row.Value) (row.Value, error) {
			keys := make([]row.Value, 0, len(args)/2)
			vs := make([]row.Value, 0, len(args)/2)
			for i, a := range args {
				v, err := evalConv(a, convs[i], vals)
				if err != nil {
					return row.NullValue, err
				}
				if i%2 == 0 {
					keys = append(keys, v)
				} else {
					vs = append(vs, v)
				}
			}
			return row.MapValue(keys, vs), nil
		}, true, nil
	}
	return nil, false, nil
}

// evalConv evaluates a and converts a non-NULL result with cv (nil: as it
// is).
func evalConv(a node, cv conv, vals []row.Value) (row.Value, error) {
	v, err := a.f(vals)
	if err != nil || v.IsNull() || cv == nil {
		return v, err
	}
	return cv(v)
}
