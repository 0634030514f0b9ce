package eval

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

type builtin func(c *compiler, e *expr.Call, args []node) (Func, error)

// functions are the scalar functions of expr/funcs.go that run here.
var functions map[string]builtin

func init() {
	functions = map[string]builtin{
		"TO_TIMESTAMP_LTZ":  toTimestampLTZ,
		"TO_TIMESTAMP":      toTimestamp,
		"TO_DATE":           toDate,
		"||":                concat,
		"CONCAT":            concat,
		"CONCAT_WS":         concatWS,
		"UPPER":             strFunc(strings.ToUpper),
		"LOWER":             strFunc(strings.ToLower),
		"TRIM":              trimChars(true, true),
		"LTRIM":             trimChars(true, false),
		"RTRIM":             trimChars(false, true),
		"CHAR_LENGTH":       charLength,
		"CHARACTER_LENGTH":  charLength,
		"SUBSTRING":         substring,
		"REPLACE":           replace,
		"REGEXP_EXTRACT":    regexpExtract,
		"REGEXP_REPLACE":    regexpReplace,
		"SPLIT_INDEX":       splitIndex,
		"MD5":               md5Func,
		"ABS":               absFunc,
		"FLOOR":             floorCeil(false),
		"CEIL":              floorCeil(true),
		"ROUND":             roundFunc,
		"POWER":             mathFunc(math.Pow),
		"SQRT":              mathFunc1(math.Sqrt),
		"LN":                mathFunc1(math.Log),
		"LOG10":             mathFunc1(math.Log10),
		"EXP":               mathFunc1(math.Exp),
		"DATE_FORMAT":       dateFormat,
		"UNIX_TIMESTAMP":    unixTimestamp,
		"FROM_UNIXTIME":     fromUnixtime,
		"PROCTIME":          now,
		"NOW":               now,
		"CURRENT_TIMESTAMP": now,
		"EXTRACT":           extract,
		"TIMESTAMPDIFF":     timestampDiff,
		"TIMESTAMPADD":      timestampAdd,
		"YEAR":              timeField("YEAR"),
		"QUARTER":           timeField("QUARTER"),
		"MONTH":             timeField("MONTH"),
		"WEEK":              timeField("WEEK"),
		"DAYOFYEAR":         timeField("DAYOFYEAR"),
		"DAYOFMONTH":        timeField("DAYOFMONTH"),
		"DAYOFWEEK":         timeField("DAYOFWEEK"),
		"HOUR":              timeField("HOUR"),
		"MINUTE":            timeField("MINUTE"),
		"SECOND":            timeField("SECOND"),
		"HASH_CODE":         hashCode,
	}
}

// constInt returns a constant integer argument.
func constInt(n node) (int64, bool) {
	if !n.konst || n.v.IsNull() || n.v.Kind() != row.Int {
		return 0, false
	}
	return n.v.Int(), true
}

func toTimestampLTZ(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("eval: TO_TIMESTAMP_LTZ takes 2 arguments")
	}
	p, ok := constInt(args[1])
	if !ok || p != 0 && p != 3 {
		return nil, fmt.Errorf("eval: TO_TIMESTAMP_LTZ precision must be the constant 0 (seconds) or 3 (milliseconds)")
	}
	where := describe(e)
	ovf := func() (row.Value, error) { return row.NullValue, overflow(e.T, where) }
	t := args[0].t
	switch {
	case t.Kind.IsIntegral():
		if p == 3 {
			return args[0].f, nil
		}
		return un(args[0], func(x row.Value) (row.Value, error) {
			r, ok := mul64(x.Int(), 1000)
			if !ok {
				return ovf()
			}
			return row.IntValue(r), nil
		}), nil
	case t.Kind == types.Decimal:
		s := int64(t.Scale) - (3 - p) // ms = unscaled / 10^s, truncated
		return un(args[0], func(x row.Value) (row.Value, error) {
			v := x.Int()
			if s <= 0 {
				r, ok := mul64(v, pow10Or0(int(-s)))
				if !ok || -s > MaxDecimalDigits {
					return ovf()
				}
				return row.IntValue(r), nil
			}
			if s > MaxDecimalDigits {
				return row.IntValue(0), nil
			}
			return row.IntValue(v / pow10[s]), nil
		}), nil
	case t.Kind.IsApproximate():
		mul := 1.0
		if p == 0 {
			mul = 1000
		}
		return un(args[0], func(x row.Value) (row.Value, error) {
			f := math.Trunc(x.Float() * mul)
			if math.IsNaN(f) || f >= 9.2e18 || f <= -9.2e18 {
				return ovf()
			}
			return row.IntValue(int64(f)), nil
		}), nil
	case t.Kind == types.Null:
		return nullFunc, nil
	}
	return nil, fmt.Errorf("eval: TO_TIMESTAMP_LTZ needs a number, got %s", t)
}

// patternSpec is how a function reads its format: the Java dialect, and
// whether it parses (or formats).
type patternSpec struct {
	d     dialect
	parse bool
}

// patternArg compiles a constant format argument once, or returns a
// function that compiles (and caches) run-time formats.
func patternArg(args []node, i int, def string, ps patternSpec) (func(row.Value) (pattern, error), func(vals []row.Value) (row.Value, bool, error), error) {
	if i >= len(args) {
		p, err := compilePattern(def, ps.d, ps.parse)
		if err != nil {
			return nil, nil, err
		}
		return func(row.Value) (pattern, error) { return p, nil }, nil, nil
	}
	a := args[i]
	if a.konst {
		if a.v.IsNull() {
			return nil, nil, nil
		}
		p, err := compilePattern(a.v.Str(), ps.d, ps.parse)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: %w", err)
		}
		return func(row.Value) (pattern, error) { return p, nil }, nil, nil
	}
	type cached struct {
		text string
		p    pattern
	}
	var last atomic.Pointer[cached]
	get := func(v row.Value) (pattern, error) {
		if c := last.Load(); c != nil && c.text == v.Str() {
			return c.p, nil
		}
		p, err := compilePattern(v.Str(), ps.d, ps.parse)
		if err != nil {
			return pattern{}, err
		}
		last.Store(&cached{text: v.Str(), p: p})
		return p, nil
	}
	af := a.f
	fetch := func(vals []row.Value) (row.Value, bool, error) {
		v, err := af(vals)
		return v, !v.IsNull(), err
	}
	return get, fetch, nil
}

// withPattern evaluates args[0] and the optional format at args[i], and
// calls f on both; a NULL argument or a NULL format gives NULL.
func withPattern(args []node, i int, def string, ps patternSpec, f func(x row.Value, p pattern) (row.Value, error)) (Func, error) {
	get, fetch, err := patternArg(args, i, def, ps)
	if err != nil {
		return nil, err
	}
	if get == nil {
		return nullFunc, nil
	}
	var xf Func = nullFunc
	if len(args) > 0 {
		xf = args[0].f
	}
	return func(vals []row.Value) (row.Value, error) {
		x, err := xf(vals)
		if err != nil || x.IsNull() {
			return row.NullValue, err
		}
		pv := row.NullValue
		if fetch != nil {
			var ok bool
			if pv, ok, err = fetch(vals); err != nil || !ok {
				return row.NullValue, err
			}
		}
		p, err := get(pv)
		if err != nil {
			return row.NullValue, err
		}
		return f(x, p)
	}, nil
}

// toTimestamp parses a string; unparsable text gives NULL, as in Flink.
func toTimestamp(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) == 1 {
		return un(args[0], func(x row.Value) (row.Value, error) {
			ms, ok := parseTimestamp(strings.TrimSpace(x.Str()))
			if !ok {
				return row.NullValue, nil
			}
			return row.IntValue(ms), nil
		}), nil
	}
	return withPattern(args, 1, "", patternSpec{dtf, true}, func(x row.Value, p pattern) (row.Value, error) {
		ms, ok := p.parse(x.Str())
		if !ok {
			// Flink falls back to 'yyyy-MM-dd HH:mm:ss[.f]' and a date.
			if ms, ok = parseTimestamp(strings.TrimSpace(x.Str())); !ok {
				return row.NullValue, nil
			}
		}
		return row.IntValue(ms), nil
	})
}

func toDate(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) == 1 {
		return un(args[0], func(x row.Value) (row.Value, error) {
			d, ok := parseDate(strings.TrimSpace(x.Str()))
			if !ok {
				return row.NullValue, nil
			}
			return row.IntValue(d), nil
		}), nil
	}
	return withPattern(args, 1, "", patternSpec{sdf, true}, func(x row.Value, p pattern) (row.Value, error) {
		ms, ok := p.parse(x.Str())
		if !ok {
			return row.NullValue, nil
		}
		return row.IntValue(floorDiv(ms, msPerDay)), nil
	})
}

// concat is || and CONCAT: NULL if any argument is NULL.
func concat(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) == 2 {
		return bin(args[0], args[1], func(x, y row.Value) (row.Value, error) {
			return row.StrValue(x.Str() + y.Str()), nil
		}), nil
	}
	return strict(args, func(xs []row.Value) (row.Value, error) {
		var b strings.Builder
		for _, x := range xs {
			b.WriteString(x.Str())
		}
		return row.StrValue(b.String()), nil
	}), nil
}

// concatWS joins the non-NULL arguments with the separator; a NULL
// separator gives NULL.
func concatWS(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("eval: CONCAT_WS needs a separator")
	}
	sep, rest := args[0].f, funcsOf(args[1:])
	return func(vals []row.Value) (row.Value, error) {
		s, err := sep(vals)
		if err != nil || s.IsNull() {
			return row.NullValue, err
		}
		var b strings.Builder
		first := true
		for _, f := range rest {
			x, err := f(vals)
			if err != nil {
				return row.NullValue, err
			}
			if x.IsNull() {
				continue
			}
			if !first {
				b.WriteString(s.Str())
			}
			first = false
			b.WriteString(x.Str())
		}
		return row.StrValue(b.String()), nil
	}, nil
}

func strFunc(f func(string) string) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("eval: %s takes 1 argument", e.Fn)
		}
		return un(args[0], func(x row.Value) (row.Value, error) { return row.StrValue(f(x.Str())), nil }), nil
	}
}

func charLength(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("eval: CHAR_LENGTH takes 1 argument")
	}
	return un(args[0], func(x row.Value) (row.Value, error) {
		return row.IntValue(int64(utf8.RuneCountInString(x.Str()))), nil
	}), nil
}

// substring is SUBSTRING(s, pos [, len]) on characters, as Flink: pos is
// 1-based, 0 counts as 1, a negative pos counts from the end; a negative
// length gives NULL.
func substring(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		s := xs[0].Str()
		pos := xs[1].Int()
		length := int64(math.MaxInt64)
		if len(xs) > 2 {
			length = xs[2].Int()
			if length < 0 {
				return row.NullValue, nil
			}
		}
		n := int64(utf8.RuneCountInString(s))
		var start int64
		switch {
		case pos > 0:
			start = pos - 1
			if start >= n {
				return row.StrValue(""), nil
			}
		case pos < 0:
			start = max(n+pos, 0)
		}
		end := n
		if n-start >= length {
			end = start + length
		}
		return row.StrValue(runeSlice(s, start, end)), nil
	}), nil
}

func runeSlice(s string, start, end int64) string {
	i, k := 0, int64(0)
	from := -1
	for i <= len(s) {
		if k == start {
			from = i
		}
		if k == end {
			return s[from:i]
		}
		if i == len(s) {
			break
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		k++
	}
	if from < 0 {
		return ""
	}
	return s[from:]
}

func replace(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	return strict(args, func(xs []row.Value) (row.Value, error) {
		return row.StrValue(strings.ReplaceAll(xs[0].Str(), xs[1].Str(), xs[2].Str())), nil
	}), nil
}

func md5Func(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("eval: MD5 takes 1 argument")
	}
	return un(args[0], func(x row.Value) (row.Value, error) {
		sum := md5.Sum([]byte(x.Str()))
		return row.StrValue(hex.EncodeToString(sum[:])), nil
	}), nil
}

// numeric1 converts a one-argument numeric function's result to the call's
// type when the argument's differs (it does not, as bound today).
func numericResult(f Func, from, to types.T) (Func, error) {
	if types.SameIgnoringNull(from, to) {
		return f, nil
	}
	cv, err := converter(from, to, false)
	if err != nil || cv == nil {
		return f, err
	}
	return un(node{f: f, t: from}, cv), nil
}

func absFunc(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("eval: ABS takes 1 argument")
	}
	a := args[0]
	where := describe(e)
	var f Func
	switch {
	case a.t.Kind.IsApproximate():
		f = un(a, func(x row.Value) (row.Value, error) { return row.FloatValue(math.Abs(x.Float())), nil })
	case a.t.Kind.IsExactNumeric():
		f = un(a, func(x row.Value) (row.Value, error) {
			v := x.Int()
			if v == math.MinInt64 {
				return row.NullValue, overflow(a.t, where)
			}
			if v < 0 {
				v = -v
			}
			return row.IntValue(v), nil
		})
	default:
		return nullFunc, nil
	}
	return numericResult(f, a.t, e.T)
}

func floorCeil(ceil bool) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) == 2 {
			return floorCeilTo(ceil, e, args)
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("eval: %s takes 1 argument", e.Fn)
		}
		a := args[0]
		var f Func
		switch {
		case a.t.Kind.IsApproximate():
			g := math.Floor
			if ceil {
				g = math.Ceil
			}
			f = un(a, func(x row.Value) (row.Value, error) { return row.FloatValue(g(x.Float())), nil })
		case a.t.Kind == types.Decimal:
			s := a.t.Scale
			where := describe(e)
			f = un(a, func(x row.Value) (row.Value, error) {
				r, ok := floorScale(x.Int(), s, 0, ceil)
				if !ok || !decFits(r, MaxDecimalDigits) {
					return row.NullValue, overflow(a.t, where)
				}
				return row.IntValue(r), nil
			})
		case a.t.Kind.IsIntegral():
			f = a.f
		default:
			return nullFunc, nil
		}
		return numericResult(f, a.t, e.T)
	}
}

// roundFunc is ROUND(n [, d]), half up; the result keeps n's type (and
// scale).
func roundFunc(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("eval: ROUND takes 1 or 2 arguments")
	}
	a := args[0]
	digits := constNode(row.IntValue(0), types.New(types.Int))
	if len(args) == 2 {
		digits = args[1]
	}
	where := describe(e)
	var f Func
	switch {
	case a.t.Kind.IsApproximate():
		f = bin(a, digits, func(x, d row.Value) (row.Value, error) {
			return row.FloatValue(roundFloat(x.Float(), int(max(min(d.Int(), 400), -400)))), nil
		})
	case a.t.Kind.IsExactNumeric():
		s := scaleOf(a.t)
		f = bin(a, digits, func(x, dv row.Value) (row.Value, error) {
			d := int(max(min(dv.Int(), 100), -100))
			if d >= s {
				return x, nil
			}
			q, ok := rescale(x.Int(), s, d)
			if ok {
				q, ok = rescale(q, d, s)
			}
			if !ok {
				return row.NullValue, overflow(a.t, where)
			}
			return row.IntValue(q), nil
		})
	default:
		return nullFunc, nil
	}
	return numericResult(f, a.t, e.T)
}

func mathFunc1(g func(float64) float64) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("eval: %s takes 1 argument", e.Fn)
		}
		fa := toFloat(args[0].t)
		return un(args[0], func(x row.Value) (row.Value, error) { return row.FloatValue(g(fa(x))), nil }), nil
	}
}

func mathFunc(g func(x, y float64) float64) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) != 2 {
			return nil, fmt.Errorf("eval: %s takes 2 arguments", e.Fn)
		}
		fa, fb := toFloat(args[0].t), toFloat(args[1].t)
		return bin(args[0], args[1], func(x, y row.Value) (row.Value, error) { return row.FloatValue(g(fa(x), fb(y))), nil }), nil
	}
}

// temporalMillis returns a reader of a DATE, TIME or TIMESTAMP as
// milliseconds since the epoch (a TIME on 1970-01-01), or of a string
// parsed as a timestamp (ok false when it does not parse).
func temporalMillis(t types.T) (func(row.Value) (int64, bool), error) {
	switch {
	case t.Kind == types.Date:
		return func(v row.Value) (int64, bool) { return v.Int() * msPerDay, true }, nil
	case t.Kind == types.Time || t.Kind.IsTimestamp():
		return func(v row.Value) (int64, bool) { return v.Int(), true }, nil
	case t.Kind.IsString():
		return func(v row.Value) (int64, bool) { return parseTimestamp(strings.TrimSpace(v.Str())) }, nil
	}
	return nil, fmt.Errorf("eval: expected a date, time or timestamp, got %s", t)
}

func dateFormat(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("eval: DATE_FORMAT takes 2 arguments")
	}
	if args[0].t.Kind == types.Null {
		return nullFunc, nil
	}
	ms, err := temporalMillis(args[0].t)
	if err != nil {
		return nil, err
	}
	// Flink formats a TIMESTAMP with a DateTimeFormatter, and a string
	// (read as 'yyyy-MM-dd HH:mm:ss') with a SimpleDateFormat.
	ps := patternSpec{dtf, false}
	if args[0].t.Kind.IsString() {
		ps.d = sdf
	}
	return withPattern(args, 1, DefaultFormat, ps, func(x row.Value, p pattern) (row.Value, error) {
		m, ok := ms(x)
		if !ok {
			return row.NullValue, nil
		}
		return row.StrValue(p.format(m)), nil
	})
}

// unixTimestamp is UNIX_TIMESTAMP(): the clock in seconds, or
// UNIX_TIMESTAMP(s [, format]): s parsed, in seconds (NULL when it does not
// parse).
func unixTimestamp(c *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) == 0 {
		clock := c.opts.Now
		return func([]row.Value) (row.Value, error) { return row.IntValue(floorDiv(clock(), 1000)), nil }, nil
	}
	return withPattern(args, 1, DefaultFormat, patternSpec{sdf, true}, func(x row.Value, p pattern) (row.Value, error) {
		ms, ok := p.parse(x.Str())
		if !ok {
			return row.NullValue, nil
		}
		return row.IntValue(floorDiv(ms, 1000)), nil
	})
}

func fromUnixtime(_ *compiler, e *expr.Call, args []node) (Func, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("eval: FROM_UNIXTIME takes 1 or 2 arguments")
	}
	t := args[0].t
	if !t.Kind.IsNumeric() {
		if t.Kind == types.Null {
			return nullFunc, nil
		}
		return nil, fmt.Errorf("eval: FROM_UNIXTIME needs a number of seconds, got %s", t)
	}
	secs := toFloat(t)
	where := describe(e)
	return withPattern(args, 1, DefaultFormat, patternSpec{sdf, false}, func(x row.Value, p pattern) (row.Value, error) {
		var ms int64
		if t.Kind.IsIntegral() {
			r, ok := mul64(x.Int(), 1000)
			if !ok {
				return row.NullValue, overflow(types.New(types.BigInt), where)
			}
			ms = r
		} else {
			f := math.Trunc(secs(x)) * 1000
			if math.IsNaN(f) || f >= 9.2e18 || f <= -9.2e18 {
				return row.NullValue, overflow(types.New(types.BigInt), where)
			}
			ms = int64(f)
		}
		return row.StrValue(p.format(ms)), nil
	})
}

func now(c *compiler, _ *expr.Call, _ []node) (Func, error) {
	clock := c.opts.Now
	return func([]row.Value) (row.Value, error) { return row.IntValue(clock()), nil }, nil
}

// unitOf reads the constant unit argument of EXTRACT and TIMESTAMPDIFF.
func unitOf(e *expr.Call, args []node) (string, error) {
	if len(args) == 0 || !args[0].konst || args[0].v.Kind() != row.Str {
		return "", fmt.Errorf("eval: %s needs a constant time unit first", e.Fn)
	}
	return strings.ToUpper(args[0].v.Str()), nil
}

// field computes one EXTRACT unit from milliseconds since the epoch.
func field(unit string) (func(ms int64) int64, bool) {
	switch unit {
	case "YEAR":
		return func(ms int64) int64 { return split(ms).y }, true
	case "QUARTER":
		return func(ms int64) int64 { return (split(ms).mo + 2) / 3 }, true
	case "MONTH":
		return func(ms int64) int64 { return split(ms).mo }, true
	case "WEEK":
		return func(ms int64) int64 { return isoWeek(floorDiv(ms, msPerDay)) }, true
	case "DAY", "DAYOFMONTH":
		return func(ms int64) int64 { return split(ms).d }, true
	case "DOY", "DAYOFYEAR":
		return func(ms int64) int64 {
			f := split(ms)
			return floorDiv(ms, msPerDay) - civil.DaysFromCivil(f.y, 1, 1) + 1
		}, true
	case "DOW", "DAYOFWEEK": // 1 = Sunday .. 7 = Saturday
		return func(ms int64) int64 { return floorMod(floorDiv(ms, msPerDay)+4, 7) + 1 }, true
	case "ISODOW": // 1 = Monday .. 7 = Sunday
		return func(ms int64) int64 { return floorMod(floorDiv(ms, msPerDay)+3, 7) + 1 }, true
	case "HOUR":
		return func(ms int64) int64 { return split(ms).h }, true
	case "MINUTE":
		return func(ms int64) int64 { return split(ms).mi }, true
	case "SECOND":
		return func(ms int64) int64 { return split(ms).s }, true
	case "MILLISECOND":
		return func(ms int64) int64 { f := split(ms); return f.s*1000 + f.ms }, true
	case "MICROSECOND":
		return func(ms int64) int64 { f := split(ms); return (f.s*1000 + f.ms) * 1000 }, true
	case "EPOCH":
		return func(ms int64) int64 { return floorDiv(ms, 1000) }, true
	case "DECADE":
		return func(ms int64) int64 { return floorDiv(split(ms).y, 10) }, true
	case "CENTURY":
		return func(ms int64) int64 { return floorDiv(split(ms).y+99, 100) }, true
	case "MILLENNIUM":
		return func(ms int64) int64 { return floorDiv(split(ms).y+999, 1000) }, true
	}
	return nil, false
}

// isoWeek is the ISO-8601 week number of a day.
func isoWeek(days int64) int64 {
	dow := floorMod(days+3, 7) // 0 = Monday
	thursday := days - dow + 3
	y, _, _ := civil.FromDays(thursday)
	return (thursday-civil.DaysFromCivil(y, 1, 1))/7 + 1
}

func extract(_ *compiler, e *expr.Call, args []node) (Func, error) {
	unit, err := unitOf(e, args)
	if err != nil {
		return nil, err
	}
	if len(args) != 2 {
		return nil, fmt.Errorf("eval: EXTRACT takes a unit and a value")
	}
	f, ok := field(unit)
	if !ok {
		return nil, fmt.Errorf("eval: EXTRACT does not support the unit %s", unit)
	}
	return temporalField(args[1], f)
}

func temporalField(a node, f func(int64) int64) (Func, error) {
	if a.t.Kind == types.Null {
		return nullFunc, nil
	}
	ms, err := temporalMillis(a.t)
	if err != nil {
		return nil, err
	}
	return un(a, func(x row.Value) (row.Value, error) {
		m, ok := ms(x)
		if !ok {
			return row.NullValue, nil
		}
		return row.IntValue(f(m)), nil
	}), nil
}

func timeField(unit string) builtin {
	return func(_ *compiler, e *expr.Call, args []node) (Func, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("eval: %s takes 1 argument", e.Fn)
		}
		f, _ := field(unit)
		return temporalField(args[0], f)
	}
}

// timestampDiff is TIMESTAMPDIFF(unit, a, b): b - a in whole units,
// truncated toward zero; months, quarters and years count calendar months
// as Calcite does.
func timestampDiff(_ *compiler, e *expr.Call, args []node) (Func, error) {
	unit, err := unitOf(e, args)
	if err != nil {
		return nil, err
	}
	if len(args) != 3 {
		return nil, fmt.Errorf("eval: TIMESTAMPDIFF takes a unit and two values")
	}
	per, months, err := timeUnit("TIMESTAMPDIFF", unit)
	if err != nil {
		return nil, err
	}
	if args[1].t.Kind == types.Null || args[2].t.Kind == types.Null {
		return nullFunc, nil
	}
	ma, err := temporalMillis(args[1].t)
	if err != nil {
		return nil, err
	}
	mb, err := temporalMillis(args[2].t)
	if err != nil {
		return nil, err
	}
	lo, hi := intRange(e.T.Kind)
	where := describe(e)
	return bin(args[1], args[2], func(x, y row.Value) (row.Value, error) {
		a, ok1 := ma(x)
		b, ok2 := mb(y)
		if !ok1 || !ok2 {
			return row.NullValue, nil
		}
		var r int64
		if months == 0 {
			d, ok := sub64(b, a)
			if !ok {
				return row.NullValue, overflow(e.T, where)
			}
			r = d / per
		} else {
			r = monthsBetween(a, b) / months
		}
		if r < lo || r > hi {
			return row.NullValue, overflow(e.T, where)
		}
		return row.IntValue(r), nil
	}), nil
}

// timestampAdd is TIMESTAMPADD(unit, n, timepoint): the timepoint moved by
// n units. Months, quarters and years move the calendar month and clamp the
// day to the end of a shorter month (TIMESTAMPADD(MONTH, 1, DATE
// '2026-01-31') is 2026-02-28), as Flink does; a TIME wraps around
// midnight. The binder chose the result type (expr.Binder.timestampAdd).
func timestampAdd(_ *compiler, e *expr.Call, args []node) (Func, error) {
	unit, err := unitOf(e, args)
	if err != nil {
		return nil, err
	}
	if len(args) != 3 {
		return nil, fmt.Errorf("eval: TIMESTAMPADD takes a unit, a number and a time")
	}
	per, months, err := timeUnit("TIMESTAMPADD", unit)
	if err != nil {
		return nil, err
	}
	in, out := args[2].t.Kind, e.T.Kind
	if args[1].t.Kind == types.Null || in == types.Null {
		return nullFunc, nil
	}
	if in == types.Time && (months != 0 || per >= msPerDay) {
		return nil, fmt.Errorf("eval: TIMESTAMPADD of a TIME does not support the unit %s", unit)
	}
	where := describe(e)
	ovf := func() (row.Value, error) { return row.NullValue, overflow(e.T, where) }
	return bin(args[1], args[2], func(x, y row.Value) (row.Value, error) {
		n, base := x.Int(), y.Int()
		if in == types.Date {
			base *= msPerDay
		}
		var r int64
		if months != 0 {
			m, ok := mul64(n, months)
			if !ok || m > 1e6 || m < -1e6 {
				return ovf()
			}
			r = addMonths(base, m)
		} else {
			d, ok := mul64(n, per)
			if !ok {
				return ovf()
			}
			if in == types.Time {
				d %= msPerDay
			}
			if r, ok = add64(base, d); !ok {
				return ovf()
			}
		}
		if out == types.Date {
			return row.IntValue(floorDiv(r, msPerDay)), nil
		}
		if out == types.Time {
			return row.IntValue(floorMod(r, msPerDay)), nil
		}
		return row.IntValue(r), nil
	}), nil
}

// monthsBetween is TIMESTAMPDIFF's count of months from a to b, Flink's
// (DateTimeUtils.subtractMonths(b, a)): on days, the most months m that
// a's day can move forward without passing b's (the day clamped to the end
// of a shorter month, so 2026-01-31 to 2026-02-28 is one month), negated
// when b is before a; then one fewer when a moved by m lands on b's day but
// a's time of day is later than b's. The last rule applies to negative
// counts too, so Flink's negative months round away from zero when the days
// coincide (2026-02-15 12:00 to 2026-01-15 00:00 is -2): kept, as Flink.
func monthsBetween(a, b int64) int64 {
	da, db := floorDiv(a, msPerDay), floorDiv(b, msPerDay)
	m := dayMonths(da, db)
	if addMonths(da*msPerDay, m) == db*msPerDay && floorMod(b, msPerDay) < floorMod(a, msPerDay) {
		m--
	}
	return m
}

// dayMonths is the month count from day a to day b of monthsBetween.
func dayMonths(a, b int64) int64 {
	if b < a {
		return -dayMonths(b, a)
	}
	ya, ma, _ := civil.FromDays(a)
	yb, mb, _ := civil.FromDays(b)
	m := (yb-ya)*12 + mb - ma
	if addMonths(a*msPerDay, m) > b*msPerDay {
		m--
	}
	return m
}

// hashCode is HASH_CODE(x): Java's hashCode of the value (String.hashCode,
// Long.hashCode, Double.hashCode, Boolean.hashCode ...).
func hashCode(_ *compiler, _ *expr.Call, args []node) (Func, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("eval: HASH_CODE takes 1 argument")
	}
	t := args[0].t
	long := func(v int64) int64 { return int64(int32(v ^ int64(uint64(v)>>32))) }
	var h func(row.Value) int64
	switch {
	case t.Kind == types.Boolean:
		h = func(v row.Value) int64 {
			if v.Bool() {
				return 1231
			}
			return 1237
		}
	case t.Kind == types.TinyInt || t.Kind == types.SmallInt || t.Kind == types.Int:
		h = func(v row.Value) int64 { return int64(int32(v.Int())) }
	case t.Kind == types.Float:
		h = func(v row.Value) int64 { return int64(int32(math.Float32bits(float32(v.Float())))) }
	case t.Kind == types.Double:
		h = func(v row.Value) int64 { return long(int64(math.Float64bits(v.Float()))) }
	case t.Kind.IsString() || t.Kind.IsBinary():
		h = func(v row.Value) int64 {
			var x int32
			for _, r := range v.Str() {
				if r >= 0x10000 {
					r1, r2 := utf16.EncodeRune(r)
					x = 31*x + r1
					x = 31*x + r2
					continue
				}
				x = 31*x + r
			}
			return int64(x)
		}
	case t.Kind == types.Null:
		return nullFunc, nil
	default:
		h = func(v row.Value) int64 { return long(v.Int()) }
	}
	return un(args[0], func(x row.Value) (row.Value, error) { return row.IntValue(h(x)), nil }), nil
}

// timeUnit is the length of a TIMESTAMPADD/TIMESTAMPDIFF unit: per
// milliseconds for a fixed one (MILLISECOND to WEEK), or months for a
// calendar one (MONTH, QUARTER, YEAR).
func timeUnit(fn, unit string) (per, months int64, err error) {
	switch unit {
	case "MILLISECOND":
		per = 1
	case "SECOND":
		per = msPerSecond
	case "MINUTE":
		per = msPerMinute
	case "HOUR":
		per = msPerHour
	case "DAY":
		per = msPerDay
	case "WEEK":
		per = 7 * msPerDay
	case "MONTH":
		months = 1
	case "QUARTER":
		months = 3
	case "YEAR":
		months = 12
	default:
		return 0, 0, fmt.Errorf("eval: %s does not support the unit %s", fn, unit)
	}
	return per, months, nil
}
