package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// call compiles one operator or function over compiled arguments.
func (c *compiler) call(e *expr.Call, args []node) (Func, error) {
	if f, ok, err := c.nestedCall(e, args); ok {
		return f, err
	}
	want := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("eval: %s takes %d arguments, got %d", e.Fn, n, len(args))
		}
		return nil
	}
	switch e.Fn {
	case "+", "-", "*", "/", "%", "MOD":
		if err := want(2); err != nil {
			return nil, err
		}
		op := e.Fn
		if op == "MOD" {
			op = "%"
		}
		return arith(op, args[0], args[1], e.T, describe(e))
	case "NEG":
		if err := want(1); err != nil {
			return nil, err
		}
		return neg(args[0], describe(e))
	case "=", "<>", "<", "<=", ">", ">=":
		if err := want(2); err != nil {
			return nil, err
		}
		return comparison(e.Fn, args[0], args[1])
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		if err := want(2); err != nil {
			return nil, err
		}
		return nullSafe(e.Fn == "IS NOT DISTINCT FROM", args[0], args[1])
	case "AND", "OR":
		if err := want(2); err != nil {
			return nil, err
		}
		return logic(e.Fn == "AND", args[0], args[1]), nil
	case "NOT":
		if err := want(1); err != nil {
			return nil, err
		}
		return un(args[0], func(x row.Value) (row.Value, error) { return row.BoolValue(x.Int() == 0), nil }), nil
	case "IS_NULL", "IS_NOT_NULL", "IS_TRUE", "IS_NOT_TRUE", "IS_FALSE", "IS_NOT_FALSE":
		if err := want(1); err != nil {
			return nil, err
		}
		return isTest(e.Fn, args[0]), nil
	case "IN":
		if len(args) < 2 {
			return nil, fmt.Errorf("eval: IN needs a value and a list")
		}
		return in(args[0], args[1:])
	case "LIKE":
		if len(args) < 2 || len(args) > 3 {
			return nil, fmt.Errorf("eval: LIKE takes 2 arguments, got %d", len(args))
		}
		return like(args)
	case "SIMILAR TO":
		if len(args) < 2 || len(args) > 3 {
			return nil, fmt.Errorf("eval: SIMILAR TO takes 2 or 3 arguments, got %d", len(args))
		}
		return similar(args)
	case "CASE":
		return caseWhen(args, e.T)
	case "IF":
		if err := want(3); err != nil {
			return nil, err
		}
		return caseWhen(args, e.T)
	case "COALESCE", "IFNULL":
		return coalesce(args, e.T)
	case "NULLIF":
		if err := want(2); err != nil {
			return nil, err
		}
		return nullIf(args[0], args[1], e.T)
	case "CAST", "TRY_CAST":
		if err := want(1); err != nil {
			return nil, err
		}
		return cast(args[0], e.T, e.Fn == "TRY_CAST")
	case "CURRENT_WATERMARK":
		// Flink's: the watermark of the operator evaluating it, NULL before
		// its first one; the argument only gives the type.
		wm := c.opts.Watermark
		if wm == nil {
			return nil, fmt.Errorf("eval: CURRENT_WATERMARK is supported in WHERE and SELECT only, where the operator knows its watermark; not in a join condition, a GROUP BY key, an aggregate's argument or a computed column")
		}
		return func([]row.Value) (row.Value, error) {
			if w, ok := wm(); ok {
				return row.IntValue(w), nil
			}
			return row.NullValue, nil
		}, nil
	}
	if f, ok := functions[e.Fn]; ok {
		return f(c, e, args)
	}
	return nil, fmt.Errorf("eval: unsupported function %s", e.Fn)
}

// scaleOf is the DECIMAL scale of an exact numeric type (0 for integers).
func scaleOf(t types.T) int {
	if t.Kind == types.Decimal {
		return t.Scale
	}
	return 0
}

// toFloat returns a reader of a numeric type's values as float64.
func toFloat(t types.T) func(row.Value) float64 {
	switch {
	case t.Kind == types.Decimal:
		s := t.Scale
		return func(v row.Value) float64 { return decToFloat(v.Int(), s) }
	case t.Kind.IsApproximate():
		return row.Value.Float
	}
	return func(v row.Value) float64 {
		if v.Kind() == row.Float {
			return v.Float()
		}
		return float64(v.Int())
	}
}

func overflow(t types.T, where string) error {
	if t.Kind == types.Decimal {
		return errorf(ErrOverflow, "DECIMAL overflow in %s: the result exceeds %d digits (%s)", where, MaxDecimalDigits, t)
	}
	return errorf(ErrOverflow, "%s overflow in %s", t.Kind, where)
}

func divZero(where string) error {
	return errorf(ErrDivisionByZero, "division by zero in %s", where)
}

// arith compiles + - * / % for numbers, times and intervals.
func arith(op string, a, b node, t types.T, where string) (Func, error) {
	ak, bk := a.t.Kind, b.t.Kind
	if ak == types.Null || bk == types.Null || t.Kind == types.Null {
		return nullFunc, nil
	}
	switch {
	case ak.IsNumeric() && bk.IsNumeric():
		switch {
		case t.Kind.IsIntegral():
			return intArith(op, a, b, t, where), nil
		case t.Kind == types.Decimal:
			return decArith(op, a, b, t, where), nil
		case t.Kind.IsApproximate():
			return floatArith(op, a, b, t), nil
		}
	case t.Kind.IsTimestamp() || t.Kind == types.Date || t.Kind == types.Time:
		return timeArith(op, a, b, t, where)
	case t.Kind.IsInterval():
		return intervalArith(op, a, b, t, where)
	}
	return nil, fmt.Errorf("eval: cannot compute %s with %s and %s", where, a.t, b.t)
}

func intArith(op string, a, b node, t types.T, where string) Func {
	lo, hi := intRange(t.Kind)
	check := func(r int64, ok bool) (row.Value, error) {
		if !ok || r < lo || r > hi {
			return row.NullValue, overflow(t, where)
		}
		return row.IntValue(r), nil
	}
	switch op {
	case "+":
		return bin(a, b, func(x, y row.Value) (row.Value, error) { return check(add64(x.Int(), y.Int())) })
	case "-":
		return bin(a, b, func(x, y row.Value) (row.Value, error) { return check(sub64(x.Int(), y.Int())) })
	case "*":
		return bin(a, b, func(x, y row.Value) (row.Value, error) { return check(mul64(x.Int(), y.Int())) })
	case "/":
		return bin(a, b, func(x, y row.Value) (row.Value, error) {
			n, d := x.Int(), y.Int()
			switch d {
			case 0:
				return row.NullValue, divZero(where)
			case -1:
				return check(sub64(0, n))
			}
			return check(n/d, true)
		})
	}
	return bin(a, b, func(x, y row.Value) (row.Value, error) {
		n, d := x.Int(), y.Int()
		switch d {
		case 0:
			return row.NullValue, divZero(where)
		case -1:
			return row.IntValue(0), nil
		}
		return row.IntValue(n % d), nil
	})
}

func decArith(op string, a, b node, t types.T, where string) Func {
	sa, sb, s, p := scaleOf(a.t), scaleOf(b.t), t.Scale, t.Precision
	m := max(sa, sb)
	ovf := func() (row.Value, error) { return row.NullValue, overflow(t, where) }
	done := func(r int64, ok bool) (row.Value, error) {
		if !ok || !decFits(r, p) {
			return ovf()
		}
		return row.IntValue(r), nil
	}
	// aligned brings both operands to scale m.
	aligned := func(x, y row.Value) (int64, int64, bool) {
		xa, ok1 := rescale(x.Int(), sa, m)
		ya, ok2 := rescale(y.Int(), sb, m)
		return xa, ya, ok1 && ok2
	}
	switch op {
	case "+", "-":
		sub := op == "-"
		if sa == sb && s == sa {
			return bin(a, b, func(x, y row.Value) (row.Value, error) {
				if sub {
					return done(sub64(x.Int(), y.Int()))
				}
				return done(add64(x.Int(), y.Int()))
			})
		}
		return bin(a, b, func(x, y row.Value) (row.Value, error) {
			xa, ya, ok := aligned(x, y)
			if !ok {
				return ovf()
			}
			var r int64
			if sub {
				r, ok = sub64(xa, ya)
			} else {
				r, ok = add64(xa, ya)
			}
			if !ok {
				return ovf()
			}
			return done(rescale(r, m, s))
		})
	case "*":
		return bin(a, b, func(x, y row.Value) (row.Value, error) { return done(decMul(x.Int(), sa, y.Int(), sb, s)) })
	case "/":
		return bin(a, b, func(x, y row.Value) (row.Value, error) {
			if y.Int() == 0 {
				return row.NullValue, divZero(where)
			}
			return done(decDiv(x.Int(), sa, y.Int(), sb, s))
		})
	}
	return bin(a, b, func(x, y row.Value) (row.Value, error) {
		xa, ya, ok := aligned(x, y)
		if !ok {
			return ovf()
		}
		if ya == 0 {
			return row.NullValue, divZero(where)
		}
		return done(rescale(xa%ya, m, s))
	})
}

func floatArith(op string, a, b node, t types.T) Func {
	fa, fb := toFloat(a.t), toFloat(b.t)
	single := t.Kind == types.Float
	out := func(r float64) (row.Value, error) {
		if single {
			r = float64(float32(r))
		}
		return row.FloatValue(r), nil
	}
	var f func(x, y float64) float64
	switch op {
	case "+":
		f = func(x, y float64) float64 { return x + y }
	case "-":
		f = func(x, y float64) float64 { return x - y }
	case "*":
		f = func(x, y float64) float64 { return x * y }
	case "/":
		f = func(x, y float64) float64 { return x / y }
	default:
		f = math.Mod
	}
	return bin(a, b, func(x, y row.Value) (row.Value, error) { return out(f(fa(x), fb(y))) })
}

// timeArith compiles TIMESTAMP/DATE/TIME plus or minus an interval.
func timeArith(op string, a, b node, t types.T, where string) (Func, error) {
	tm, iv := a, b
	if a.t.Kind.IsInterval() {
		if op != "+" {
			return nil, fmt.Errorf("eval: cannot compute %s", where)
		}
		tm, iv = b, a
	}
	if !iv.t.Kind.IsInterval() {
		return nil, fmt.Errorf("eval: cannot compute %s with %s and %s", where, a.t, b.t)
	}
	sign := int64(1)
	if op == "-" {
		sign = -1
	} else if op != "+" {
		return nil, fmt.Errorf("eval: cannot compute %s", where)
	}
	months := iv.t.Kind == types.IntervalYM
	ovf := func() (row.Value, error) { return row.NullValue, overflow(t, where) }
	op2 := func(x, y row.Value) (row.Value, error) {
		base, d := x.Int(), y.Int()*sign
		switch tm.t.Kind {
		case types.Date:
			if months {
				return row.IntValue(addMonths(base*msPerDay, d) / msPerDay), nil
			}
			return row.IntValue(base + d/msPerDay), nil
		case types.Time:
			if months {
				return x, nil
			}
			return row.IntValue(floorMod(base+d%msPerDay, msPerDay)), nil
		default: // TIMESTAMP and TIMESTAMP_LTZ: below
		}
		if months {
			if d > 1e6 || d < -1e6 {
				return ovf()
			}
			return row.IntValue(addMonths(base, d)), nil
		}
		r, ok := add64(base, d)
		if !ok {
			return ovf()
		}
		return row.IntValue(r), nil
	}
	if tm.f == nil {
		return nil, fmt.Errorf("eval: cannot compute %s", where)
	}
	return bin(tm, iv, op2), nil
}

// intervalArith compiles interval ± interval, interval * number, number *
// interval and interval / number.
func intervalArith(op string, a, b node, t types.T, where string) (Func, error) {
	ak, bk := a.t.Kind, b.t.Kind
	ovf := func() (row.Value, error) { return row.NullValue, overflow(t, where) }
	switch {
	case ak.IsInterval() && bk.IsInterval() && (op == "+" || op == "-"):
		return bin(a, b, func(x, y row.Value) (row.Value, error) {
			r, ok := add64(x.Int(), y.Int())
			if op == "-" {
				r, ok = sub64(x.Int(), y.Int())
			}
			if !ok {
				return ovf()
			}
			return row.IntValue(r), nil
		}), nil
	case (op == "*" || op == "/") && ak.IsInterval() && bk.IsNumeric(),
		op == "*" && ak.IsNumeric() && bk.IsInterval():
		iv, n := a, b
		if bk.IsInterval() {
			iv, n = b, a
		}
		div := op == "/"
		ns := n.t
		return bin(iv, n, func(x, y row.Value) (row.Value, error) {
			ms := x.Int()
			switch {
			case ns.Kind.IsIntegral():
				if div {
					if y.Int() == 0 {
						return row.NullValue, divZero(where)
					}
					return row.IntValue(ms / y.Int()), nil
				}
				r, ok := mul64(ms, y.Int())
				if !ok {
					return ovf()
				}
				return row.IntValue(r), nil
			case ns.Kind == types.Decimal:
				var r int64
				var ok bool
				if div {
					if y.Int() == 0 {
						return row.NullValue, divZero(where)
					}
					r, ok = decDiv(ms, 0, y.Int(), ns.Scale, 0)
				} else {
					r, ok = decMul(ms, 0, y.Int(), ns.Scale, 0)
				}
				if !ok {
					return ovf()
				}
				return row.IntValue(r), nil
			}
			f := y.Float()
			var r float64
			if div {
				if f == 0 {
					return row.NullValue, divZero(where)
				}
				r = float64(ms) / f
			} else {
				r = float64(ms) * f
			}
			r = math.Round(r)
			if math.IsNaN(r) || r >= 9.2e18 || r <= -9.2e18 {
				return ovf()
			}
			return row.IntValue(int64(r)), nil
		}), nil
	}
	return nil, fmt.Errorf("eval: cannot compute %s with %s and %s", where, a.t, b.t)
}

func neg(a node, where string) (Func, error) {
	k := a.t.Kind
	switch {
	case k == types.Null:
		return nullFunc, nil
	case k.IsApproximate():
		return un(a, func(x row.Value) (row.Value, error) { return row.FloatValue(-x.Float()), nil }), nil
	case k.IsExactNumeric() || k.IsInterval():
		lo, hi := intRange(k)
		return un(a, func(x row.Value) (row.Value, error) {
			r := -x.Int()
			if x.Int() == math.MinInt64 || r < lo || r > hi {
				return row.NullValue, overflow(a.t, where)
			}
			return row.IntValue(r), nil
		}), nil
	}
	return nil, fmt.Errorf("eval: cannot negate %s", a.t)
}

// comparer returns a three-way comparison of non-NULL values of types a and
// b, comparing numbers mathematically across INT, DECIMAL and DOUBLE.
// Constants are pre-scaled where that is exact.
func comparer(a, b *node) (func(x, y row.Value) int, error) {
	ak, bk := a.t.Kind, b.t.Kind
	switch {
	case ak.IsNumeric() && bk.IsNumeric():
		if ak.IsApproximate() || bk.IsApproximate() {
			fa, fb := toFloat(a.t), toFloat(b.t)
			return func(x, y row.Value) int { return cmpFloat(fa(x), fb(y)) }, nil
		}
		sa, sb := scaleOf(a.t), scaleOf(b.t)
		// Bring a constant to the other side's scale when that is exact.
		if b.konst && !b.v.IsNull() && sb < sa {
			if r, ok := rescale(b.v.Int(), sb, sa); ok {
				*b = constNode(row.IntValue(r), types.DecimalOf(MaxDecimalDigits, sa))
				sb = sa
			}
		}
		if a.konst && !a.v.IsNull() && sa < sb {
			if r, ok := rescale(a.v.Int(), sa, sb); ok {
				*a = constNode(row.IntValue(r), types.DecimalOf(MaxDecimalDigits, sb))
				sa = sb
			}
		}
		if sa == sb {
			return func(x, y row.Value) int { return cmpInt(x.Int(), y.Int()) }, nil
		}
		return func(x, y row.Value) int { return cmpDec(x.Int(), sa, y.Int(), sb) }, nil
	case (ak.IsString() || ak.IsBinary()) && (bk.IsString() || bk.IsBinary()):
		return func(x, y row.Value) int { return strings.Compare(x.Str(), y.Str()) }, nil
	case ak == types.Date && bk.IsTimestamp():
		return func(x, y row.Value) int { return cmpInt(x.Int()*msPerDay, y.Int()) }, nil
	case ak.IsTimestamp() && bk == types.Date:
		return func(x, y row.Value) int { return cmpInt(x.Int(), y.Int()*msPerDay) }, nil
	case ak == bk && (ak == types.Boolean || ak.IsTemporal() || ak.IsInterval()),
		ak.IsTimestamp() && bk.IsTimestamp():
		return func(x, y row.Value) int { return cmpInt(x.Int(), y.Int()) }, nil
	case ak.IsNested() && types.SameIgnoringNullDeep(a.t, b.t):
		// Equal exactly when their encodings are (package row): the
		// binder allows only = and <> here, so the order is never used.
		return func(x, y row.Value) int { return strings.Compare(x.Str(), y.Str()) }, nil
	}
	return nil, fmt.Errorf("eval: cannot compare %s with %s", a.t, b.t)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat orders as Java's Double.compare for NaN (greater than all, equal
// to itself), so that comparisons stay total.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	}
	return -1
}

// cmpDec compares unscaled a at scale sa with b at scale sb exactly.
func cmpDec(a int64, sa int, b int64, sb int) int {
	if sa < sb {
		return -cmpDec(b, sb, a, sa)
	}
	// sa > sb: bring b up to sa. If that overflows, |b| is the larger.
	r, ok := mul64(b, pow10Or0(sa-sb))
	if !ok || sa-sb > MaxDecimalDigits {
		if b == 0 {
			return cmpInt(a, 0)
		}
		if b > 0 {
			return -1
		}
		return 1
	}
	return cmpInt(a, r)
}

func pow10Or0(n int) int64 {
	if n > MaxDecimalDigits {
		return 0
	}
	return pow10[n]
}

func comparison(op string, a, b node) (Func, error) {
	if a.t.Kind == types.Null || b.t.Kind == types.Null {
		return nullFunc, nil
	}
	cmp, err := comparer(&a, &b)
	if err != nil {
		return nil, err
	}
	var test func(int) bool
	switch op {
	case "=":
		test = func(c int) bool { return c == 0 }
	case "<>":
		test = func(c int) bool { return c != 0 }
	case "<":
		test = func(c int) bool { return c < 0 }
	case "<=":
		test = func(c int) bool { return c <= 0 }
	case ">":
		test = func(c int) bool { return c > 0 }
	default:
		test = func(c int) bool { return c >= 0 }
	}
	return bin(a, b, func(x, y row.Value) (row.Value, error) { return row.BoolValue(test(cmp(x, y))), nil }), nil
}

// nullSafe compiles x IS NOT DISTINCT FROM y (eq) or x IS DISTINCT FROM y:
// two NULLs are not distinct, a NULL and a value are, two values are when
// = says they differ. It never yields NULL.
func nullSafe(eq bool, a, b node) (Func, error) {
	an, bn := a.t.Kind == types.Null, b.t.Kind == types.Null
	switch {
	case an && bn:
		v := row.BoolValue(eq)
		return func([]row.Value) (row.Value, error) { return v, nil }, nil
	case an || bn:
		x := a.f
		if an {
			x = b.f
		}
		return func(vals []row.Value) (row.Value, error) {
			v, err := x(vals)
			if err != nil {
				return row.NullValue, err
			}
			return row.BoolValue(v.IsNull() == eq), nil
		}, nil
	}
	cmp, err := comparer(&a, &b)
	if err != nil {
		return nil, err
	}
	af, bf := a.f, b.f
	return func(vals []row.Value) (row.Value, error) {
		x, err := af(vals)
		if err != nil {
			return row.NullValue, err
		}
		y, err := bf(vals)
		if err != nil {
			return row.NullValue, err
		}
		if x.IsNull() || y.IsNull() {
			return row.BoolValue((x.IsNull() && y.IsNull()) == eq), nil
		}
		return row.BoolValue((cmp(x, y) == 0) == eq), nil
	}, nil
}

// logic compiles AND (and=true) or OR with SQL's three-valued logic: FALSE
// AND NULL is FALSE, TRUE OR NULL is TRUE, otherwise NULL wins over the
// other value. The right side is not evaluated when the left decides.
func logic(and bool, a, b node) Func {
	af, bf := a.f, b.f
	return func(vals []row.Value) (row.Value, error) {
		x, err := af(vals)
		if err != nil {
			return row.NullValue, err
		}
		if !x.IsNull() && x.Bool() != and {
			return x, nil // FALSE AND ..., TRUE OR ...
		}
		y, err := bf(vals)
		if err != nil {
			return row.NullValue, err
		}
		switch {
		case !y.IsNull() && y.Bool() != and:
			return y, nil
		case x.IsNull() || y.IsNull():
			return row.NullValue, nil
		}
		return y, nil
	}
}

func isTest(fn string, a node) Func {
	af := a.f
	var test func(row.Value) bool
	switch fn {
	case "IS_NULL":
		test = row.Value.IsNull
	case "IS_NOT_NULL":
		test = func(v row.Value) bool { return !v.IsNull() }
	case "IS_TRUE":
		test = func(v row.Value) bool { return !v.IsNull() && v.Bool() }
	case "IS_NOT_TRUE":
		test = func(v row.Value) bool { return v.IsNull() || !v.Bool() }
	case "IS_FALSE":
		test = func(v row.Value) bool { return !v.IsNull() && !v.Bool() }
	default: // IS_NOT_FALSE
		test = func(v row.Value) bool { return v.IsNull() || v.Bool() }
	}
	return func(vals []row.Value) (row.Value, error) {
		x, err := af(vals)
		if err != nil {
			return row.NullValue, err
		}
		return row.BoolValue(test(x)), nil
	}
}

// in compiles x IN (list): TRUE if x equals an item, else NULL if x or an
// item is NULL, else FALSE.
func in(x node, list []node) (Func, error) {
	if x.t.Kind == types.Null {
		return nullFunc, nil
	}
	type item struct {
		f     Func
		cmp   func(a, b row.Value) int
		null  bool
		konst bool
		v     row.Value
	}
	items := make([]item, len(list))
	for i, it := range list {
		if it.t.Kind == types.Null {
			items[i] = item{null: true}
			continue
		}
		xx := x
		xx.konst = false // only the item side may be pre-scaled
		cmp, err := comparer(&xx, &it)
		if err != nil {
			return nil, err
		}
		items[i] = item{f: it.f, cmp: cmp, konst: it.konst, v: it.v}
	}
	xf := x.f
	return func(vals []row.Value) (row.Value, error) {
		v, err := xf(vals)
		if err != nil || v.IsNull() {
			return row.NullValue, err
		}
		sawNull := false
		for i := range items {
			it := &items[i]
			if it.null {
				sawNull = true
				continue
			}
			y := it.v
			if !it.konst {
				if y, err = it.f(vals); err != nil {
					return row.NullValue, err
				}
			}
			if y.IsNull() {
				sawNull = true
				continue
			}
			if it.cmp(v, y) == 0 {
				return row.BoolValue(true), nil
			}
		}
		if sawNull {
			return row.NullValue, nil
		}
		return row.BoolValue(false), nil
	}, nil
}

// caseWhen compiles CASE (cond1, res1, ..., [else]) and IF (cond, a, b),
// converting every result to t. A NULL condition counts as false.
func caseWhen(args []node, t types.T) (Func, error) {
	var conds, results []Func
	var elseF Func = nullFunc
	for i := 0; i+1 < len(args); i += 2 {
		r, err := coerce(args[i+1], t)
		if err != nil {
			return nil, err
		}
		conds = append(conds, args[i].f)
		results = append(results, r)
	}
	if len(args)%2 == 1 {
		r, err := coerce(args[len(args)-1], t)
		if err != nil {
			return nil, err
		}
		elseF = r
	}
	return func(vals []row.Value) (row.Value, error) {
		for i, cf := range conds {
			c, err := cf(vals)
			if err != nil {
				return row.NullValue, err
			}
			if c.Bool() {
				return results[i](vals)
			}
		}
		return elseF(vals)
	}, nil
}

func coalesce(args []node, t types.T) (Func, error) {
	fs := make([]Func, 0, len(args))
	for _, a := range args {
		if a.t.Kind == types.Null {
			continue
		}
		f, err := coerce(a, t)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return func(vals []row.Value) (row.Value, error) {
		for _, f := range fs {
			v, err := f(vals)
			if err != nil || !v.IsNull() {
				return v, err
			}
		}
		return row.NullValue, nil
	}, nil
}

func nullIf(a, b node, t types.T) (Func, error) {
	af, err := coerce(a, t)
	if err != nil {
		return nil, err
	}
	if b.t.Kind == types.Null || a.t.Kind == types.Null {
		return af, nil
	}
	cmp, err := comparer(&a, &b)
	if err != nil {
		return nil, err
	}
	raw, bf := a.f, b.f
	return func(vals []row.Value) (row.Value, error) {
		x, err := raw(vals)
		if err != nil || x.IsNull() {
			return row.NullValue, err
		}
		y, err := bf(vals)
		if err != nil {
			return row.NullValue, err
		}
		if !y.IsNull() && cmp(x, y) == 0 {
			return row.NullValue, nil
		}
		return af(vals)
	}, nil
}

// cast compiles CAST and TRY_CAST: TRY_CAST gives NULL where CAST fails.
func cast(a node, to types.T, try bool) (Func, error) {
	cv, err := converter(a.t, to, true)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if cv == nil {
		return a.f, nil
	}
	if try {
		return un(a, func(x row.Value) (row.Value, error) {
			v, err := cv(x)
			if err != nil {
				return row.NullValue, nil
			}
			return v, nil
		}), nil
	}
	return un(a, cv), nil
}
