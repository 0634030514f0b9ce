package format

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/decimal"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Text forms of values, shared by csv, json (for values written as JSON
// strings) and the print connector. See the package comment for the forms.

const (
	msPerSecond = 1000
	msPerMinute = 60 * msPerSecond
	msPerHour   = 60 * msPerMinute
	msPerDay    = 24 * msPerHour

	// MinMillis is the first timestamp streamsql reads,
	// 0001-01-01 00:00:00.000 UTC: the first event time.
	MinMillis = row.MinMillis
	// MaxMillis is the last timestamp streamsql reads,
	// 9999-12-31 23:59:59.999 UTC.
	MaxMillis = row.MaxMillis
)

// timestampHint is what a TIMESTAMP field's text must look like.
const timestampHint = civil.TimestampHint

// ParseText reads the text form of a value of type t. The empty string is
// not NULL here: callers decide what NULL looks like in their format. The
// error says what was expected; it does not name the column (callers wrap
// it in a *FieldError).
func ParseText(t types.T, s string) (row.Value, error) {
	switch t.Kind {
	case types.Char, types.Varchar:
		if err := checkUTF8(s); err != nil {
			return row.NullValue, err
		}
		return row.StrValue(s), nil
	case types.Binary, types.Varbinary:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return row.NullValue, errors.New("expected base64 text for a byte string")
		}
		return row.StrValue(string(b)), nil
	case types.Boolean:
		switch {
		case strings.EqualFold(s, "true"):
			return row.BoolValue(true), nil
		case strings.EqualFold(s, "false"):
			return row.BoolValue(false), nil
		}
		return row.NullValue, errors.New("expected true or false")
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Interval, types.IntervalYM:
		return parseInteger(t, strings.TrimSpace(s))
	case types.Float, types.Double:
		return parseFloat(t, strings.TrimSpace(s))
	case types.Decimal:
		u, err := decimal.Parse(strings.TrimSpace(s), t.Precision, t.Scale)
		if err != nil {
			return row.NullValue, err
		}
		return row.IntValue(u), nil
	case types.Date:
		d, err := civil.ParseDate(s, civil.Strict)
		if err != nil {
			return row.NullValue, err
		}
		return row.IntValue(d), nil
	case types.Time:
		ms, err := civil.ParseTime(s, civil.Strict)
		if err != nil {
			return row.NullValue, err
		}
		return row.IntValue(truncPrecision(ms, t.Precision)), nil
	case types.Timestamp, types.TimestampLTZ:
		ms, err := civil.ParseTimestamp(s, civil.Strict)
		if err != nil {
			if isEpochNumber(s) {
				return row.NullValue, epochError(t)
			}
			return row.NullValue, err
		}
		return row.IntValue(truncPrecision(ms, t.Precision)), nil
	default:
		return row.NullValue, fmt.Errorf("type %s cannot be read from text", t)
	}
}

// truncPrecision drops the digits of a time below precision p (0 to 2
// fraction digits; from 3 on milliseconds are all there is), flooring, as a
// CAST to TIME(p) or TIMESTAMP(p) does: a TIMESTAMP(0) column never holds a
// fraction of a second that a writer would then leave out.
func truncPrecision(ms int64, p int) int64 {
	var unit int64
	switch p {
	case 0:
		unit = 1000
	case 1:
		unit = 100
	case 2:
		unit = 10
	default:
		return ms
	}
	r := ms % unit
	if r < 0 {
		r += unit
	}
	return ms - r
}

// checkUTF8 refuses text that is not UTF-8: a character string holds
// characters, and a byte that is none could be neither compared nor written
// back as it came (a writer would have to replace it).
func checkUTF8(s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return fmt.Errorf("not UTF-8 text (byte %d, 0x%02x, is not part of a UTF-8 character); declare the column BYTES for binary data", i, s[i])
}

// isEpochNumber reports whether s looks like a bare integer (an epoch).
func isEpochNumber(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// epochError is the error for a number where a timestamp belongs: the unit
// of an epoch must be written down (DESIGN.md). fieldError fills in the
// column's name.
func epochError(t types.T) error { return &epochErr{t: t, name: "field"} }

type epochErr struct {
	t    types.T
	name string
}

func (e *epochErr) Error() string {
	return fmt.Sprintf("a %s field must be a string %s, not a number: an epoch number's unit (seconds or "+
		"milliseconds) must be explicit: declare the field BIGINT (%s BIGINT) and convert it in a computed column, "+
		"e.g. %s_time AS TO_TIMESTAMP_LTZ(%s, 3) for milliseconds or TO_TIMESTAMP_LTZ(%s, 0) for seconds",
		e.t.WithNullable(true), timestampHint, e.name, e.name, e.name, e.name)
}

func parseInteger(t types.T, s string) (row.Value, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return row.NullValue, fmt.Errorf("%s is out of range for %s", s, t.Kind)
		}
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil && s != "" {
			return row.NullValue, fmt.Errorf("%s is not an integer; %s holds whole numbers only (declare DECIMAL(p, s) or DOUBLE for fractions)", s, t.Kind)
		}
		return row.NullValue, fmt.Errorf("expected an integer for %s", t.Kind)
	}
	lo, hi := intRange(t.Kind)
	if n < lo || n > hi {
		return row.NullValue, fmt.Errorf("%s is out of range for %s (%d to %d)", s, t.Kind, lo, hi)
	}
	return row.IntValue(n), nil
}

func intRange(k types.Kind) (lo, hi int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	default:
		return math.MinInt64, math.MaxInt64
	}
}

func parseFloat(t types.T, s string) (row.Value, error) {
	bits := 64
	if t.Kind == types.Float {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return row.NullValue, fmt.Errorf("%s is out of range for %s", s, t.Kind)
		}
		return row.NullValue, fmt.Errorf("expected a number for %s", t.Kind)
	}
	return row.FloatValue(f), nil
}

// AppendText appends the text form of v, a value of type t (NULL appends
// nothing: callers choose how to show NULL). It is the inverse of
// ParseText.
func AppendText(b []byte, t types.T, v row.Value) []byte {
	if v.IsNull() {
		return b
	}
	switch t.Kind {
	case types.Char, types.Varchar:
		return append(b, v.Str()...)
	case types.Binary, types.Varbinary:
		return base64.StdEncoding.AppendEncode(b, []byte(v.Str()))
	case types.Boolean:
		return strconv.AppendBool(b, v.Bool())
	case types.Float:
		return appendFloat(b, v.Float(), 32)
	case types.Double:
		return appendFloat(b, v.Float(), 64)
	case types.Decimal:
		return decimal.Append(b, v.Int(), t.Scale)
	case types.Date:
		return civil.AppendDate(b, v.Int())
	case types.Time:
		return civil.AppendTime(b, v.Int(), t.Precision)
	case types.Timestamp, types.TimestampLTZ:
		return civil.AppendTimestamp(b, v.Int(), t.Precision, ' ')
	case types.Array, types.Map, types.Row:
		return appendNestedText(b, t, v)
	default:
		switch v.Kind() {
		case row.Float:
			return appendFloat(b, v.Float(), 64)
		case row.Str:
			return append(b, v.Str()...)
		case row.Int, row.Null:
		}
		return strconv.AppendInt(b, v.Int(), 10)
	}
}

// appendNestedText writes a nested value as Flink's CAST(x AS STRING)
// does: ARRAY [1, 2], MAP {k1=v1, k2=v2}, ROW (1, abc); a NULL element is
// NULL. Bytes that are not a nested value (damaged state) end the text
// with "…corrupt".
func appendNestedText(b []byte, t types.T, v row.Value) []byte {
	r, n, err := row.NewListReader(v.Str())
	if err != nil {
		return append(b, "…corrupt"...)
	}
	var fs []types.Field
	open, closer := byte('['), byte(']')
	switch t.Kind {
	case types.Map:
		open, closer = '{', '}'
	case types.Row:
		open, closer = '(', ')'
		fs = t.Fields()
	default: // ARRAY
	}
	elem := func(et types.T) bool {
		e, err := r.Next()
		if err != nil {
			b = append(b, "…corrupt"...)
			return false
		}
		if e.IsNull() {
			b = append(b, "NULL"...)
		} else {
			b = AppendText(b, et, e)
		}
		return true
	}
	b = append(b, open)
	for k := 0; k < n; k++ {
		if k > 0 {
			b = append(b, ", "...)
		}
		var ok bool
		switch t.Kind {
		case types.Array:
			ok = elem(t.Elem())
		case types.Map:
			ok = elem(t.Key())
			if ok {
				b = append(b, '=')
				ok = elem(t.Value())
			}
		default:
			et := types.T{}
			if k < len(fs) {
				et = fs[k].Type
			}
			ok = elem(et)
		}
		if !ok {
			return b
		}
	}
	return append(b, closer)
}

// appendFloat writes the shortest text that reads back to f; NaN and
// infinities as NaN, Infinity and -Infinity (Java's spelling, which
// strconv.ParseFloat also reads).
func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// clip shortens a value for an error message.
func clip(s string) string {
	const limit = 64
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
