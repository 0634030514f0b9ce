package eval

import (
	"fmt"
	"time"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Func evaluates a compiled expression over one row's values. It returns a
// run-time error (an *Error) for bad data, never panics, and does not keep
// vals.
type Func func(vals []row.Value) (row.Value, error)

// Options configure compilation.
type Options struct {
	// Now returns the wall clock in milliseconds since 1970-01-01 UTC, read
	// by PROCTIME(), NOW(), CURRENT_TIMESTAMP and UNIX_TIMESTAMP(). nil
	// means the system clock.
	Now func() int64
	// Watermark returns the current watermark of the operator evaluating
	// the expression, and false before its first one: CURRENT_WATERMARK
	// reads it. nil means the expression is not evaluated where a
	// watermark is known (only filters and projections supply one), and
	// CURRENT_WATERMARK does not compile.
	Watermark func() (int64, bool)
}

// Compile compiles e into a Func. It fails, saying which, on functions and
// operators the runtime does not support, on constants that do not fit
// their type, and on conversions between types that have none.
func Compile(e expr.Expr) (Func, error) { return CompileWith(e, Options{}) }

// CompileWith is Compile with options.
func CompileWith(e expr.Expr, o Options) (Func, error) {
	if o.Now == nil {
		o.Now = func() int64 { return time.Now().UnixMilli() }
	}
	c := &compiler{opts: o}
	n, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	if n.konst {
		v := n.v
		return func([]row.Value) (row.Value, error) { return v, nil }, nil
	}
	return safe(n.f), nil
}

// CompilePredicate compiles a BOOLEAN condition. NULL counts as false, as in
// WHERE and ON.
func CompilePredicate(e expr.Expr) (func([]row.Value) (bool, error), error) {
	return CompilePredicateWith(e, Options{})
}

// CompilePredicateWith is CompilePredicate with options.
func CompilePredicateWith(e expr.Expr, o Options) (func([]row.Value) (bool, error), error) {
	if k := e.Type().Kind; k != types.Boolean && k != types.Null {
		return nil, fmt.Errorf("eval: a condition must be BOOLEAN, but %s is %s", describe(e), e.Type())
	}
	f, err := CompileWith(e, o)
	if err != nil {
		return nil, err
	}
	return func(vals []row.Value) (bool, error) {
		v, err := f(vals)
		return v.Bool(), err
	}, nil
}

// safe turns a panic, which would be a bug in this package, into an error,
// so that one bad row cannot take the engine down.
func safe(f Func) Func {
	return func(vals []row.Value) (v row.Value, err error) {
		defer func() {
			if r := recover(); r != nil {
				v, err = row.NullValue, fmt.Errorf("eval: internal error: %v", r)
			}
		}()
		return f(vals)
	}
}

// describe renders e for messages, naming columns by name.
func describe(e expr.Expr) string {
	return expr.Format(e, func(c *expr.Column) string {
		if c.Name != "" {
			return c.Name
		}
		return fmt.Sprintf("$%d", c.Index)
	})
}

// node is a compiled sub-expression: its function, its type, and its value
// when it is constant.
type node struct {
	f     Func
	t     types.T
	konst bool
	v     row.Value
}

func constNode(v row.Value, t types.T) node {
	return node{t: t, konst: true, v: v, f: func([]row.Value) (row.Value, error) { return v, nil }}
}

type compiler struct {
	opts Options
}

func (c *compiler) compile(e expr.Expr) (node, error) {
	switch e := e.(type) {
	case *expr.Column:
		i := e.Index
		if i < 0 {
			return node{}, fmt.Errorf("eval: column %s has no input index", e.Name)
		}
		return node{t: e.T, f: func(vals []row.Value) (row.Value, error) {
			if i >= len(vals) {
				return row.NullValue, errorf(ErrInvalidArgument, "column %d does not exist: the row has %d values", i, len(vals))
			}
			return vals[i], nil
		}}, nil
	case *expr.Const:
		v, err := constValue(e)
		if err != nil {
			return node{}, err
		}
		return constNode(v, e.T), nil
	case *expr.Call:
		args := make([]node, len(e.Args))
		allConst := true
		for i, a := range e.Args {
			n, err := c.compile(a)
			if err != nil {
				return node{}, err
			}
			args[i] = n
			allConst = allConst && n.konst
		}
		f, err := c.call(e, args)
		if err != nil {
			return node{}, err
		}
		n := node{f: f, t: e.T}
		if allConst && !volatile[e.Fn] {
			// Fold constants; an error is left for run time, where it is
			// reported with the row.
			if v, err := f(nil); err == nil {
				return constNode(v, e.T), nil
			}
		}
		return n, nil
	case nil:
		return node{}, fmt.Errorf("eval: nil expression")
	}
	return node{}, fmt.Errorf("eval: unsupported expression %T", e)
}

// volatile functions are never folded.
var volatile = map[string]bool{"PROCTIME": true, "NOW": true, "CURRENT_TIMESTAMP": true, "UNIX_TIMESTAMP": true,
	"CURRENT_WATERMARK": true}

// constValue converts a bound constant to its runtime encoding.
func constValue(e *expr.Const) (row.Value, error) {
	t := e.T
	switch v := e.V.(type) {
	case nil:
		return row.NullValue, nil
	case bool:
		return row.BoolValue(v), nil
	case int64:
		switch {
		case t.Kind == types.Decimal:
			r, ok := rescale(v, 0, t.Scale)
			if !ok {
				return row.NullValue, fmt.Errorf("eval: DECIMAL overflow: constant %d does not fit %s", v, t)
			}
			return row.IntValue(r), nil
		case t.Kind.IsApproximate():
			return row.FloatValue(float64(v)), nil
		}
		return row.IntValue(v), nil
	case float64:
		switch {
		case t.Kind == types.Decimal:
			r, ok := floatToDec(v, t.Scale)
			if !ok {
				return row.NullValue, fmt.Errorf("eval: DECIMAL overflow: constant %v does not fit %s", v, t)
			}
			return row.IntValue(r), nil
		case t.Kind.IsExactNumeric():
			return row.IntValue(int64(v)), nil
		}
		return row.FloatValue(v), nil
	case string:
		if t.Kind == types.Null {
			return row.NullValue, nil
		}
		if t.Kind == types.Decimal {
			// Literals carry their own precision; only the 18-digit runtime
			// limit applies.
			r, err := DecimalFromString(v, t.Scale)
			if err != nil {
				return row.NullValue, fmt.Errorf("eval: constant %s: %w", v, err)
			}
			return row.IntValue(r), nil
		}
		r, err := ParseValue(v, t)
		if err != nil {
			return row.NullValue, fmt.Errorf("eval: constant '%s': %w", v, err)
		}
		return r, nil
	}
	return row.NullValue, fmt.Errorf("eval: unsupported constant %v (%T)", e.V, e.V)
}

// un applies op to a non-NULL argument; NULL gives NULL.
func un(a node, op func(row.Value) (row.Value, error)) Func {
	af := a.f
	return func(vals []row.Value) (row.Value, error) {
		x, err := af(vals)
		if err != nil || x.IsNull() {
			return row.NullValue, err
		}
		return op(x)
	}
}

// bin applies op to two non-NULL arguments; a NULL gives NULL. A constant
// argument is captured rather than called.
func bin(a, b node, op func(x, y row.Value) (row.Value, error)) Func {
	af, bf := a.f, b.f
	switch {
	case b.konst:
		y := b.v
		if y.IsNull() {
			return nullFunc
		}
		return func(vals []row.Value) (row.Value, error) {
			x, err := af(vals)
			if err != nil || x.IsNull() {
				return row.NullValue, err
			}
			return op(x, y)
		}
	case a.konst:
		x := a.v
		if x.IsNull() {
			return nullFunc
		}
		return func(vals []row.Value) (row.Value, error) {
			y, err := bf(vals)
			if err != nil || y.IsNull() {
				return row.NullValue, err
			}
			return op(x, y)
		}
	}
	return func(vals []row.Value) (row.Value, error) {
		x, err := af(vals)
		if err != nil || x.IsNull() {
			return row.NullValue, err
		}
		y, err := bf(vals)
		if err != nil || y.IsNull() {
			return row.NullValue, err
		}
		return op(x, y)
	}
}

// strict applies op to all arguments when none is NULL.
func strict(args []node, op func(xs []row.Value) (row.Value, error)) Func {
	fs := funcsOf(args)
	return func(vals []row.Value) (row.Value, error) {
		var buf [4]row.Value
		xs := buf[:0]
		for _, f := range fs {
			x, err := f(vals)
			if err != nil || x.IsNull() {
				return row.NullValue, err
			}
			xs = append(xs, x)
		}
		return op(xs)
	}
}

func funcsOf(args []node) []Func {
	fs := make([]Func, len(args))
	for i, a := range args {
		fs[i] = a.f
	}
	return fs
}

func nullFunc([]row.Value) (row.Value, error) { return row.NullValue, nil }

// coerce converts a's values to type t (implicitly: numeric widening).
func coerce(a node, t types.T) (Func, error) {
	if a.t.Kind == types.Null {
		return nullFunc, nil
	}
	cv, err := converter(a.t, t, false)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if cv == nil {
		return a.f, nil
	}
	return un(a, cv), nil
}
