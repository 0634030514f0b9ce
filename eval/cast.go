package eval

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// FormatValue renders v, a value of type t, as SQL text: the form CAST(v AS
// STRING) produces and ParseValue reads back.
//
//	NULL                          NULL
//	BOOLEAN                       TRUE, FALSE
//	DECIMAL(p, s)                 12.34 (exactly s fractional digits)
//	FLOAT, DOUBLE                 as Java prints them: 1.5, 100.0, 1.0E10
//	DATE                          2026-01-01
//	TIME(p)                       12:30:00[.fff] (p fractional digits)
//	TIMESTAMP(p), TIMESTAMP_LTZ(p) 2026-01-01 12:30:00[.fff] (p digits, UTC)
//	INTERVAL DAY TO SECOND        +1 02:03:04.005
//	INTERVAL YEAR TO MONTH        +1-02
//	strings and bytes             as they are
//	ARRAY                         [1, 2, NULL] (elements as above)
//	MAP                           {a=1, b=2}
//	ROW                           (1, abc)
func FormatValue(v row.Value, t types.T) string {
	if v.IsNull() {
		return "NULL"
	}
	if t.IsNested() {
		return formatNested(v, t)
	}
	switch v.Kind() {
	case row.Str:
		return v.Str()
	case row.Float:
		return formatFloat(v.Float(), t.Kind == types.Float)
	case row.Null, row.Int:
	}
	var buf [48]byte
	b := buf[:0]
	n := v.Int()
	switch t.Kind {
	case types.Boolean:
		if n != 0 {
			return "TRUE"
		}
		return "FALSE"
	case types.Decimal:
		return formatDecimal(n, t.Scale)
	case types.Date:
		b = civil.AppendDate(b, n)
	case types.Time:
		b = civil.AppendTime(b, n, t.Precision)
	case types.Timestamp, types.TimestampLTZ:
		b = civil.AppendTimestamp(b, n, t.Precision, ' ')
	case types.Interval:
		if n < 0 {
			b = append(b, '-')
			n = -n
		} else {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, n/msPerDay, 10)
		b = append(b, ' ')
		b = civil.AppendTime(b, n%msPerDay, 3)
	case types.IntervalYM:
		if n < 0 {
			b = append(b, '-')
			n = -n
		} else {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, n/12, 10)
		b = append(b, '-')
		b = appendPad(b, n%12, 2)
	case types.Float, types.Double:
		return formatFloat(float64(n), t.Kind == types.Float)
	case types.Invalid, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Char, types.Varchar,
		types.Binary, types.Varbinary, types.Null, types.Array, types.Map, types.Row:
		b = strconv.AppendInt(b, n, 10)
	}
	return string(b)
}

// formatNested renders an ARRAY, MAP or ROW as Flink's CAST(x AS STRING)
// does. Bytes that are no nested value (damaged state) render as what
// could be read and "…corrupt".
func formatNested(v row.Value, t types.T) string {
	var b strings.Builder
	r, n, err := row.NewListReader(v.Str())
	if err != nil {
		return "…corrupt"
	}
	elems := nestedElems(t)
	open, closer := "[", "]"
	switch t.Kind {
	case types.Map:
		open, closer = "{", "}"
	case types.Row:
		open, closer = "(", ")"
	default: // ARRAY
	}
	b.WriteString(open)
	next := func(et types.T) bool {
		e, err := r.Next()
		if err != nil {
			b.WriteString("…corrupt")
			return false
		}
		b.WriteString(FormatValue(e, et))
		return true
	}
	for k := 0; k < n; k++ {
		if k > 0 {
			b.WriteString(", ")
		}
		switch t.Kind {
		case types.Map:
			if !next(elems[0]) {
				return b.String()
			}
			b.WriteByte('=')
			if !next(elems[1]) {
				return b.String()
			}
		case types.Row:
			et := types.T{}
			if k < len(elems) {
				et = elems[k]
			}
			if !next(et) {
				return b.String()
			}
		default:
			if !next(elems[0]) {
				return b.String()
			}
		}
	}
	b.WriteString(closer)
	return b.String()
}

// nestedElems are the element types of a nested type: ARRAY's element,
// MAP's key and value, ROW's fields.
func nestedElems(t types.T) []types.T {
	switch t.Kind {
	case types.Array:
		return []types.T{t.Elem()}
	case types.Map:
		return []types.T{t.Key(), t.Value()}
	case types.Row:
		fs := t.Fields()
		ts := make([]types.T, len(fs))
		for i, f := range fs {
			ts[i] = f.Type
		}
		return ts
	default:
		return nil
	}
}

// nestedConv converts an ARRAY, MAP or ROW to another of the same shape,
// element by element (a MAP's entries are sorted again, and of keys that
// became equal the last is kept).
func nestedConv(from, to types.T, explicit bool) (conv, error) {
	if from.Kind != to.Kind || from.NumFields() != to.NumFields() {
		return nil, errorf(ErrInvalidCast, "cannot CAST %s to %s", from, to)
	}
	fe, te := nestedElems(from), nestedElems(to)
	convs := make([]conv, len(fe))
	identity := true
	for i := range fe {
		c, err := converter(fe[i], te[i], explicit)
		if err != nil {
			return nil, err
		}
		convs[i] = c
		identity = identity && c == nil
	}
	if identity {
		return nil, nil
	}
	apply := func(c conv, v row.Value) (row.Value, error) {
		if c == nil || v.IsNull() {
			return v, nil
		}
		return c(v)
	}
	return func(v row.Value) (row.Value, error) {
		if to.Kind == types.Map {
			keys, vals, err := row.DecodeMap(nil, nil, v.Str())
			if err != nil {
				return row.NullValue, err
			}
			for i := range keys {
				if keys[i], err = apply(convs[0], keys[i]); err != nil {
					return row.NullValue, err
				}
				if vals[i], err = apply(convs[1], vals[i]); err != nil {
					return row.NullValue, err
				}
			}
			return row.MapValue(keys, vals), nil
		}
		vals, err := row.DecodeList(nil, v.Str())
		if err != nil {
			return row.NullValue, err
		}
		for i := range vals {
			c := convs[0]
			if to.Kind == types.Row && i < len(convs) {
				c = convs[i]
			}
			if vals[i], err = apply(c, vals[i]); err != nil {
				return row.NullValue, err
			}
		}
		return row.ListValue(vals), nil
	}, nil
}

// formatFloat prints f as Java's Double.toString (Float.toString when
// single): plain notation with at least one fractional digit for 10^-3 <=
// |f| < 10^7, scientific (1.0E10) otherwise.
func formatFloat(f float64, single bool) string {
	bitSize := 64
	if single {
		bitSize = 32
	}
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bitSize)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bitSize)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(exp, "+-0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// ParseValue parses SQL text into a value of type t: the inverse of
// FormatValue, used for CSV fields and for CAST from strings. Surrounding
// spaces are ignored except for string types, which take s as it is.
// BOOLEAN accepts TRUE/FALSE, T/F, YES/NO, Y/N and 1/0 in any case;
// timestamps accept what ParseTimestamp does. Errors wrap ErrInvalidCast
// (malformed text) or ErrOverflow (out of the type's range), and name the
// text and the type.
func ParseValue(s string, t types.T) (row.Value, error) {
	switch t.Kind {
	case types.Char, types.Varchar, types.Binary, types.Varbinary:
		return row.StrValue(s), nil
	case types.Null:
		return row.NullValue, nil
	case types.Invalid, types.Array, types.Map, types.Row:
		return row.NullValue, errorf(ErrInvalidCast, "cannot parse '%s' as %s", s, t)
	default: // parsed from the trimmed text below
	}
	txt := strings.TrimSpace(s)
	bad := func() (row.Value, error) {
		return row.NullValue, errorf(ErrInvalidCast, "cannot CAST '%s' to %s", s, t)
	}
	switch t.Kind {
	case types.Boolean:
		switch strings.ToUpper(txt) {
		case "TRUE", "T", "YES", "Y", "1":
			return row.BoolValue(true), nil
		case "FALSE", "F", "NO", "N", "0":
			return row.BoolValue(false), nil
		}
		return bad()
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		n, err := strconv.ParseInt(txt, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) { // a *strconv.NumError wrapping ErrRange
				return row.NullValue, errorf(ErrOverflow, "cannot CAST '%s' to %s: out of range", s, t)
			}
			return bad()
		}
		if lo, hi := intRange(t.Kind); n < lo || n > hi {
			return row.NullValue, errorf(ErrOverflow, "cannot CAST '%s' to %s: out of range", s, t)
		}
		return row.IntValue(n), nil
	case types.Decimal:
		v, ok, malformed := decimalFromString(txt, t.Scale)
		if malformed {
			return bad()
		}
		if !ok || !decFits(v, t.Precision) {
			return row.NullValue, errorf(ErrOverflow, "DECIMAL overflow: cannot CAST '%s' to %s", s, t)
		}
		return row.IntValue(v), nil
	case types.Float, types.Double:
		bits := 64
		if t.Kind == types.Float {
			bits = 32
		}
		f, err := strconv.ParseFloat(txt, bits)
		if err != nil {
			return bad()
		}
		return row.FloatValue(f), nil
	case types.Date:
		if d, ok := parseDate(txt); ok {
			return row.IntValue(d), nil
		}
		if ms, ok := parseTimestamp(txt); ok {
			return row.IntValue(floorDiv(ms, msPerDay)), nil
		}
		return bad()
	case types.Time:
		ms, ok := parseTime(txt)
		if !ok {
			return bad()
		}
		return row.IntValue(truncPrecision(ms, t.Precision)), nil
	case types.Timestamp, types.TimestampLTZ:
		ms, ok := parseTimestamp(txt)
		if !ok {
			return bad()
		}
		return row.IntValue(truncPrecision(ms, t.Precision)), nil
	case types.Interval:
		ms, ok := parseInterval(txt)
		if !ok {
			return bad()
		}
		return row.IntValue(ms), nil
	case types.IntervalYM:
		sc := scanner{s: txt}
		neg := sc.lit('-')
		if !neg {
			sc.lit('+')
		}
		y, ok := sc.num(1, 9)
		if !ok || !sc.lit('-') {
			return bad()
		}
		m, ok := sc.num(1, 2)
		if !ok || !sc.done() || m > 11 {
			return bad()
		}
		n := y*12 + m
		if neg {
			n = -n
		}
		return row.IntValue(n), nil
	case types.Char, types.Varchar, types.Binary, types.Varbinary, types.Null, types.Invalid, types.Array, types.Map, types.Row:
	}
	return bad()
}

// parseInterval reads [+|-][d ]HH:mm:ss[.fff].
func parseInterval(s string) (int64, bool) {
	sc := scanner{s: s}
	neg := sc.lit('-')
	if !neg {
		sc.lit('+')
	}
	var days int64
	if j := strings.IndexByte(s[sc.i:], ' '); j >= 0 {
		d, ok := sc.num(1, 9)
		if !ok || !sc.lit(' ') {
			return 0, false
		}
		days = d
	}
	sub := scanner{s: s[sc.i:]}
	h, ok := sub.num(1, 2)
	if !ok || !sub.lit(':') || h > 23 {
		return 0, false
	}
	rest, ok := parseTime("00:" + s[sc.i+sub.i:])
	if !ok {
		return 0, false
	}
	ms := days*msPerDay + h*msPerHour + rest
	if neg {
		ms = -ms
	}
	return ms, true
}

// truncPrecision drops time digits below precision p (0..2), flooring.
func truncPrecision(ms int64, p int) int64 {
	if p >= 3 || p < 0 {
		return ms
	}
	u := pow10[3-p]
	return floorDiv(ms, u) * u
}

func intRange(k types.Kind) (int64, int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	case types.Invalid, types.Boolean, types.BigInt, types.Float, types.Double, types.Decimal, types.Char, types.Varchar,
		types.Binary, types.Varbinary, types.Date, types.Time, types.Timestamp, types.TimestampLTZ, types.Interval,
		types.IntervalYM, types.Null, types.Array, types.Map, types.Row:
	}
	return math.MinInt64, math.MaxInt64
}

// conv converts a non-NULL value; nil means the identity.
type conv func(row.Value) (row.Value, error)

// converter returns the conversion of values of type from to type to. An
// explicit conversion (CAST) also fits strings to their length (CHAR pads,
// VARCHAR(n) truncates); an implicit one (widening for CASE, COALESCE,
// comparisons) leaves strings alone. A nil conv is the identity.
func converter(from, to types.T, explicit bool) (conv, error) {
	f, k := from.Kind, to.Kind
	switch {
	case f == types.Null:
		return func(row.Value) (row.Value, error) { return row.NullValue, nil }, nil
	case k.IsString():
		fit := fitLength(to, explicit)
		if f.IsString() || f.IsBinary() {
			return fit, nil
		}
		return func(v row.Value) (row.Value, error) {
			s := row.StrValue(FormatValue(v, from))
			if fit != nil {
				return fit(s)
			}
			return s, nil
		}, nil
	case f.IsNested() || k.IsNested():
		return nestedConv(from, to, explicit)
	case f.IsString():
		if k.IsBinary() {
			return nil, nil
		}
		return func(v row.Value) (row.Value, error) { return ParseValue(v.Str(), to) }, nil
	case f == k:
		switch k {
		case types.Decimal:
			if from.Scale == to.Scale && from.Precision <= to.Precision {
				return nil, nil
			}
			return func(v row.Value) (row.Value, error) {
				r, ok := rescale(v.Int(), from.Scale, to.Scale)
				if !ok || !decFits(r, to.Precision) {
					return row.NullValue, errorf(ErrOverflow, "DECIMAL overflow: cannot CAST %s to %s", formatDecimal(v.Int(), from.Scale), to)
				}
				return row.IntValue(r), nil
			}, nil
		case types.Time, types.Timestamp, types.TimestampLTZ:
			return precisionConv(from, to), nil
		default: // FLOAT and every other kind: the same representation, the identity
			return nil, nil
		}
	case f.IsNumeric() && k.IsNumeric():
		return numericConv(from, to), nil
	case f.IsNumeric() && k == types.Boolean:
		return func(v row.Value) (row.Value, error) {
			if v.Kind() == row.Float {
				return row.BoolValue(v.Float() != 0), nil
			}
			return row.BoolValue(v.Int() != 0), nil
		}, nil
	case f == types.Boolean && k.IsNumeric():
		return numericConv(types.New(types.Int), to), nil
	case f.IsTimestamp() && k.IsTimestamp():
		return precisionConv(from, to), nil
	case f.IsTimestamp() && k == types.Date:
		return func(v row.Value) (row.Value, error) { return row.IntValue(floorDiv(v.Int(), msPerDay)), nil }, nil
	case f.IsTimestamp() && k == types.Time:
		return func(v row.Value) (row.Value, error) {
			return row.IntValue(truncPrecision(floorMod(v.Int(), msPerDay), to.Precision)), nil
		}, nil
	case f == types.Date && k.IsTimestamp():
		return func(v row.Value) (row.Value, error) { return row.IntValue(v.Int() * msPerDay), nil }, nil
	case f == types.Time && k.IsTimestamp():
		return precisionConv(from, to), nil
	case f.IsBinary() && k.IsBinary():
		return nil, nil
	}
	return nil, errorf(ErrInvalidCast, "cannot CAST %s to %s", from, to)
}

func precisionConv(from, to types.T) conv {
	if to.Precision >= 3 || to.Precision >= from.Precision {
		return nil
	}
	return func(v row.Value) (row.Value, error) { return row.IntValue(truncPrecision(v.Int(), to.Precision)), nil }
}

// fitLength truncates VARCHAR(n) and pads or truncates CHAR(n); nil when
// nothing is to be done.
func fitLength(to types.T, explicit bool) conv {
	if !explicit || to.Length <= 0 || to.Length >= types.MaxLength {
		return nil
	}
	n := to.Length
	pad := to.Kind == types.Char
	return func(v row.Value) (row.Value, error) {
		s := v.Str()
		c := utf8.RuneCountInString(s)
		switch {
		case c > n:
			i, k := 0, 0
			for k < n {
				_, w := utf8.DecodeRuneInString(s[i:])
				i += w
				k++
			}
			return row.StrValue(s[:i]), nil
		case c < n && pad:
			return row.StrValue(s + strings.Repeat(" ", n-c)), nil
		}
		return v, nil
	}
}

// numericConv converts between numeric kinds (and from BOOLEAN seen as INT).
// Decimals and doubles become integers by truncation toward zero, as in
// Flink; doubles become decimals rounding half up.
func numericConv(from, to types.T) conv {
	f, k := from.Kind, to.Kind
	lo, hi := intRange(k)
	outOfRange := func(v row.Value) (row.Value, error) {
		return row.NullValue, errorf(ErrOverflow, "cannot CAST %s to %s: out of range", FormatValue(v, from), to)
	}
	switch {
	case k.IsIntegral():
		switch {
		case f.IsIntegral() || f == types.Boolean:
			if numRank(f) <= numRank(k) {
				return nil
			}
			return func(v row.Value) (row.Value, error) {
				if n := v.Int(); n < lo || n > hi {
					return outOfRange(v)
				}
				return v, nil
			}
		case f == types.Decimal:
			p := pow10[min(from.Scale, MaxDecimalDigits)]
			return func(v row.Value) (row.Value, error) {
				n := v.Int() / p
				if n < lo || n > hi {
					return outOfRange(v)
				}
				return row.IntValue(n), nil
			}
		default:
			return func(v row.Value) (row.Value, error) {
				x := math.Trunc(v.Float())
				if math.IsNaN(x) || x < float64(lo) || x >= -float64(math.MinInt64) || x > float64(hi) {
					return outOfRange(v)
				}
				return row.IntValue(int64(x)), nil
			}
		}
	case k == types.Decimal:
		overflow := func(v row.Value) (row.Value, error) {
			return row.NullValue, errorf(ErrOverflow, "DECIMAL overflow: cannot CAST %s to %s", FormatValue(v, from), to)
		}
		switch {
		case f.IsIntegral() || f == types.Boolean:
			return func(v row.Value) (row.Value, error) {
				r, ok := rescale(v.Int(), 0, to.Scale)
				if !ok || !decFits(r, to.Precision) {
					return overflow(v)
				}
				return row.IntValue(r), nil
			}
		default:
			return func(v row.Value) (row.Value, error) {
				r, ok := floatToDec(v.Float(), to.Scale)
				if !ok || !decFits(r, to.Precision) {
					return overflow(v)
				}
				return row.IntValue(r), nil
			}
		}
	default: // FLOAT, DOUBLE
		single := k == types.Float
		round := func(x float64) row.Value {
			if single {
				x = float64(float32(x))
			}
			return row.FloatValue(x)
		}
		switch {
		case f.IsIntegral() || f == types.Boolean:
			return func(v row.Value) (row.Value, error) { return round(float64(v.Int())), nil }
		case f == types.Decimal:
			return func(v row.Value) (row.Value, error) { return round(decToFloat(v.Int(), from.Scale)), nil }
		default:
			if !single {
				return nil
			}
			return func(v row.Value) (row.Value, error) { return round(v.Float()), nil }
		}
	}
}

func numRank(k types.Kind) int {
	switch k {
	case types.Boolean:
		return 0
	case types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int:
		return 3
	case types.BigInt:
		return 4
	case types.Decimal:
		return 5
	case types.Float:
		return 6
	case types.Double:
		return 7
	case types.Invalid, types.Char, types.Varchar, types.Binary, types.Varbinary, types.Date, types.Time,
		types.Timestamp, types.TimestampLTZ, types.Interval, types.IntervalYM, types.Null, types.Array, types.Map, types.Row:
	}
	return 8
}
