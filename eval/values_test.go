package eval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func TestDecimalFromString(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  int64
		err   string // substring; "" for success
	}{
		{"12.34", 2, 1234, ""},
		{"12.3", 2, 1230, ""},
		{"12", 2, 1200, ""},
		{"-12.34", 2, -1234, ""},
		{"+0.5", 1, 5, ""},
		{".5", 2, 50, ""},
		{"5.", 0, 5, ""},
		{"1.005", 2, 101, ""},
		{"-1.005", 2, -101, ""},
		{"1.0049999999999999999999", 2, 100, ""},
		{"0.000", 2, 0, ""},
		{"00012.5", 0, 13, ""},
		{"1.5E3", 0, 1500, ""},
		{"1.5e-1", 2, 15, ""},
		{"12345e-2", 2, 12345, ""},
		{"999999999999999999", 0, 999999999999999999, ""},
		{"9999999999999999.99", 2, 999999999999999999, ""},
		{"0.99999999999999999999999", 2, 100, ""},
		{"1000000000000000000", 0, 0, "DECIMAL overflow"},
		{"10000000000000000", 2, 0, "DECIMAL overflow"},
		{"99999999999999999999999999", 0, 0, "DECIMAL overflow"},
		{"", 2, 0, "invalid DECIMAL"},
		{"abc", 2, 0, "invalid DECIMAL"},
		{"1.2.3", 2, 0, "invalid DECIMAL"},
		{"1e", 2, 0, "invalid DECIMAL"},
		{"-", 2, 0, "invalid DECIMAL"},
		{"12 ", 2, 0, "invalid DECIMAL"},
	} {
		got, err := DecimalFromString(tc.in, tc.scale)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("DecimalFromString(%q, %d) = %d, %v; want %d", tc.in, tc.scale, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("DecimalFromString(%q, %d) = %d, %v; want an error containing %q", tc.in, tc.scale, got, err, tc.err)
		}
	}
}

func TestDecimalArithmeticEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func() (int64, bool)
		want int64
		ok   bool
	}{
		{"12.34*2 at scale 2", func() (int64, bool) { return decMul(1234, 2, 2, 0, 2) }, 2468, true},
		{"1.005*1 rounded to scale 2", func() (int64, bool) { return decMul(1005, 3, 1, 0, 2) }, 101, true},
		{"-1.005*1 rounded to scale 2", func() (int64, bool) { return decMul(-1005, 3, 1, 0, 2) }, -101, true},
		{"product needing 128 bits, rescaled", func() (int64, bool) {
			return decMul(999_999_999_999, 6, 999_999_999_999, 6, 6)
		}, 999_999_999_998_000_000, true},
		{"product beyond 18 digits", func() (int64, bool) { return decMul(1e17, 0, 100, 0, 0) }, 0, false},
		{"extreme scales use math/big", func() (int64, bool) { return decMul(5, 20, 1, 20, 0) }, 0, true},
		{"1/3 at scale 6", func() (int64, bool) { return decDiv(1, 0, 3, 0, 6) }, 333333, true},
		{"2/3 at scale 6", func() (int64, bool) { return decDiv(2, 0, 3, 0, 6) }, 666667, true},
		{"-2/3 at scale 6", func() (int64, bool) { return decDiv(-2, 0, 3, 0, 6) }, -666667, true},
		{"12.34/-2 at scale 13", func() (int64, bool) { return decDiv(1234, 2, -2, 0, 13) }, -61_700_000_000_000, true},
		{"division with negative shift", func() (int64, bool) { return decDiv(100, 0, 3, 4, 0) }, 333333, true},
		{"quotient too large", func() (int64, bool) { return decDiv(1e17, 0, 1, 2, 2) }, 0, false},
		{"rescale up", func() (int64, bool) { return rescale(12, 0, 3) }, 12000, true},
		{"rescale down half up", func() (int64, bool) { return rescale(125, 2, 1) }, 13, true},
		{"rescale down negative", func() (int64, bool) { return rescale(-125, 2, 1) }, -13, true},
		{"rescale overflow", func() (int64, bool) { return rescale(1e10, 0, 10) }, 0, false},
		{"rescale down by 19", func() (int64, bool) { return rescale(6e18, 19, 0) }, 1, true},
	} {
		got, ok := tc.got()
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		a      int64
		sa     int
		b      int64
		sb     int
		want   int
		reason string
	}{
		{100001, 2, 1000, 0, 1, "1000.01 > 1000"},
		{100000, 2, 1000, 0, 0, "1000.00 = 1000"},
		{-1, 2, 0, 0, -1, "-0.01 < 0"},
		{1, 0, 999_999_999_999_999_999, 18, 1, "1 > 0.999..."},
		{math.MaxInt64, 0, 5, 18, 1, "a huge integer > 5e-18"},
		{-5, 0, math.MaxInt64, 18, -1, "-5 < 9.2"},
		{5, 0, math.MaxInt64, 1, -1, "5 < 9.2e17 (rescaling 5 overflows nothing)"},
		{math.MaxInt64, 1, 1e18, 0, -1, "9.2e17 < 1e18"},
	} {
		if got := cmpDec(tc.a, tc.sa, tc.b, tc.sb); got != tc.want {
			t.Errorf("cmpDec: %s: got %d", tc.reason, got)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2026-01-01 00:00:00", 1767225600000, true},
		{"2026-01-01 00:00:00.000", 1767225600000, true},
		{"2026-01-01 00:00:00.5", 1767225600500, true},
		{"2026-01-01 00:00:00.123456789", 1767225600123, true},
		{"2026-01-01T00:00:00", 1767225600000, true},
		{"2026-01-01T00:00:00Z", 1767225600000, true},
		{"2026-01-01T02:00:00+02:00", 1767225600000, true},
		{"2025-12-31T19:00:00-0500", 1767225600000, true},
		{"2026-01-01 00:00", 1767225600000, true},
		{"2026-01-01", 1767225600000, true},
		{"2026-1-1 0:0:0", 1767225600000, true},
		{"1970-01-01 00:00:00", 0, true},
		{"1969-12-31 23:59:59.999", -1, true},
		{"2024-02-29 12:00:00", 1709208000000, true},
		{"2025-02-29 12:00:00", 0, false},
		{"2026-13-01 00:00:00", 0, false},
		{"2026-01-01 24:00:00", 0, false},
		{"2026-01-01 00:60:00", 0, false},
		{"2026-01-01 00:00:00.", 0, false},
		{"2026-01-01X00:00:00", 0, false},
		{"2026-01-01 00:00:00 UTC", 0, false},
		{"1767225600", 0, false},
		{"", 0, false},
	} {
		got, err := ParseTimestamp(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidCast) {
			t.Errorf("ParseTimestamp(%q) error %v is not ErrInvalidCast", tc.in, err)
		}
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v    row.Value
		t    types.T
		want string
	}{
		{row.NullValue, types.New(types.Int), "NULL"},
		{row.BoolValue(true), types.New(types.Boolean), "TRUE"},
		{row.BoolValue(false), types.New(types.Boolean), "FALSE"},
		{row.IntValue(-42), types.New(types.BigInt), "-42"},
		{row.IntValue(1234), types.DecimalOf(10, 2), "12.34"},
		{row.IntValue(-5), types.DecimalOf(10, 2), "-0.05"},
		{row.IntValue(0), types.DecimalOf(10, 3), "0.000"},
		{row.IntValue(7), types.DecimalOf(10, 0), "7"},
		{row.FloatValue(100), types.New(types.Double), "100.0"},
		{row.FloatValue(0.001), types.New(types.Double), "0.001"},
		{row.FloatValue(0.0001), types.New(types.Double), "1.0E-4"},
		{row.FloatValue(1.5e10), types.New(types.Double), "1.5E10"},
		{row.FloatValue(math.Inf(-1)), types.New(types.Double), "-Infinity"},
		{row.FloatValue(math.NaN()), types.New(types.Double), "NaN"},
		{row.FloatValue(float64(float32(0.1))), types.New(types.Float), "0.1"},
		{row.StrValue("x'y"), types.StringType(), "x'y"},
		{row.IntValue(20454), types.New(types.Date), "2026-01-01"},
		{row.IntValue(-1), types.New(types.Date), "1969-12-31"},
		{row.IntValue(45296789), types.TimeOf(0), "12:34:56"},
		{row.IntValue(45296789), types.TimeOf(3), "12:34:56.789"},
		{row.IntValue(1767270896789), types.TimestampOf(3), "2026-01-01 12:34:56.789"},
		{row.IntValue(1767270896789), types.TimestampOf(0), "2026-01-01 12:34:56"},
		{row.IntValue(1767270896789), types.TimestampOf(1), "2026-01-01 12:34:56.7"},
		{row.IntValue(1767270896789), types.TimestampOf(6), "2026-01-01 12:34:56.789000"},
		{row.IntValue(1767270896789), types.TimestampLTZOf(3), "2026-01-01 12:34:56.789"},
		{row.IntValue(-1), types.TimestampOf(3), "1969-12-31 23:59:59.999"},
		{row.IntValue(93784005), types.New(types.Interval), "+1 02:03:04.005"},
		{row.IntValue(-5000), types.New(types.Interval), "-0 00:00:05.000"},
		{row.IntValue(14), types.New(types.IntervalYM), "+1-02"},
	} {
		got := FormatValue(tc.v, tc.t)
		if got != tc.want {
			t.Errorf("FormatValue(%v, %s) = %q, want %q", tc.v, tc.t, got, tc.want)
		}
		if tc.v.IsNull() || tc.t.IsApproximate() || (tc.t.Kind == types.Time || tc.t.IsTimestamp()) && tc.t.Precision < 3 {
			continue // lossy: NULL is text here, floats print shortest, precision drops digits
		}
		// ParseValue is the inverse.
		back, err := ParseValue(got, tc.t)
		if err != nil || !back.Equal(tc.v) {
			t.Errorf("ParseValue(%q, %s) = %v, %v; want %v", got, tc.t, back, err, tc.v)
		}
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		t    types.T
		want row.Value
		err  error
	}{
		{"42", types.New(types.Int), row.IntValue(42), nil},
		{" 42 ", types.New(types.Int), row.IntValue(42), nil},
		{"128", types.New(types.TinyInt), row.NullValue, ErrOverflow},
		{"-32768", types.New(types.SmallInt), row.IntValue(-32768), nil},
		{"99999999999999999999", types.New(types.BigInt), row.NullValue, ErrOverflow},
		{"4x", types.New(types.Int), row.NullValue, ErrInvalidCast},
		{"12.345", types.DecimalOf(5, 2), row.IntValue(1235), nil},
		{"1234.5", types.DecimalOf(5, 2), row.NullValue, ErrOverflow},
		{"2.5", types.New(types.Double), row.FloatValue(2.5), nil},
		{"NaN", types.New(types.Double), row.FloatValue(math.NaN()), nil},
		{"nope", types.New(types.Double), row.NullValue, ErrInvalidCast},
		{"True", types.New(types.Boolean), row.BoolValue(true), nil},
		{"0", types.New(types.Boolean), row.BoolValue(false), nil},
		{" padded ", types.StringType(), row.StrValue(" padded "), nil},
		{"2026-01-01T10:00:00Z", types.TimestampLTZOf(3), row.IntValue(1767261600000), nil},
		{"2026-01-01 10:00:00.999", types.TimestampOf(0), row.IntValue(1767261600000), nil},
		{"2026-01-01 10:00:00", types.New(types.Date), row.IntValue(20454), nil},
		{"10:00", types.TimeOf(0), row.IntValue(10 * msPerHour), nil},
		{"25:00", types.TimeOf(0), row.NullValue, ErrInvalidCast},
		{"+0 00:00:01.500", types.New(types.Interval), row.IntValue(1500), nil},
		{"-1-06", types.New(types.IntervalYM), row.IntValue(-18), nil},
	} {
		got, err := ParseValue(tc.in, tc.t)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.in) {
				t.Errorf("ParseValue(%q, %s) error = %v, want %v naming the text", tc.in, tc.t, err, tc.err)
			}
			continue
		}
		if err != nil || !(got.Equal(tc.want) || got.Kind() == row.Float && math.IsNaN(got.Float()) && math.IsNaN(tc.want.Float())) {
			t.Errorf("ParseValue(%q, %s) = %v, %v; want %v", tc.in, tc.t, got, err, tc.want)
		}
	}
}

// TestPatterns: Java's DateTimeFormatter (dtf) and SimpleDateFormat (sdf)
// patterns in the en_US locale, the expectations written from Java's
// documentation. 1767270896789 is Thursday 2026-01-01 12:34:56.789 UTC.
func TestPatterns(t *testing.T) {
	const at = 1767270896789
	dec31 := civil.DaysFromCivil(2026, 12, 31) * msPerDay
	mar15 := civil.DaysFromCivil(2026, 3, 15)*msPerDay + 8*msPerHour
	for _, tc := range []struct {
		d                  dialect
		ms                 int64
		pattern, formatted string
	}{
		{dtf, at, "yyyy-MM-dd HH:mm:ss", "2026-01-01 12:34:56"},
		{dtf, at, "yyyy-MM-dd HH:mm:ss.SSS", "2026-01-01 12:34:56.789"},
		{dtf, at, "yy/M/d H:m:s.S", "26/1/1 12:34:56.7"},
		{dtf, at, "yyyyMMdd'T'HHmmss", "20260101T123456"},
		{dtf, at, "dd MMMM yyyy", "01 January 2026"},
		{dtf, at, "'quote''s' yyyy", "quote's 2026"},
		{dtf, at, "HH'h'", "12h"},
		{dtf, at, "EEE, d MMM yyyy hh:mm a", "Thu, 1 Jan 2026 12:34 PM"},
		{dtf, at, "EEEE EEEEE MMMMM", "Thursday T J"},
		{dtf, at, "YYYY-'W'ww-e", "2026-W01-5"},
		{dtf, dec31, "YYYY ww yyyy", "2027 01 2026"},
		{dtf, mar15, "YYYYww W D", "202612 3 74"},
		{dtf, at, "D DDD", "1 001"},
		{dtf, at, "Q QQQ QQQQ", "1 Q1 1st quarter"},
		{dtf, at, "k K h", "12 0 12"},
		{dtf, at, "A", "45296789"},
		{dtf, at, "[yyyy]", "2026"},
		{dtf, at, "G GGGG uuuu", "AD Anno Domini 2026"},
		{sdf, at, "yyyy-MM-dd HH:mm:ss.S", "2026-01-01 12:34:56.789"},
		{sdf, at, "SSSS u F W", "0789 4 1 1"},
		{sdf, at, "z Z X", "UTC +0000 Z"},
		{sdf, at, "EEEEE MMMMM yy", "Thursday January 26"},
	} {
		p, err := compilePattern(tc.pattern, tc.d, false)
		if err != nil {
			t.Fatalf("compilePattern(%q, %s): %v", tc.pattern, tc.d, err)
		}
		if got := p.format(tc.ms); got != tc.formatted {
			t.Errorf("%s format %q = %q, want %q", tc.d, tc.pattern, got, tc.formatted)
		}
	}
	for _, bad := range []struct {
		d dialect
		p string
	}{{dtf, "yyyy-MM-dd HH:mm Z"}, {dtf, "ddd"}, {dtf, "F"}, {dtf, "'unterminated"}, {dtf, "#"}, {dtf, "bb"}, {dtf, "aa"},
		{sdf, "e"}, {sdf, "Q"}, {sdf, "n"}} {
		if _, err := compilePattern(bad.p, bad.d, false); err == nil {
			t.Errorf("compilePattern(%q, %s) succeeded, want an error", bad.p, bad.d)
		}
	}
	for _, bad := range []string{"YYYY", "ww", "Q", "[yyyy]"} {
		if _, err := compilePattern(bad, dtf, true); err == nil {
			t.Errorf("compilePattern(%q) for parsing succeeded, want an error", bad)
		}
	}
	parse := func(d dialect, pat, s string) (int64, bool) {
		p, err := compilePattern(pat, d, true)
		if err != nil {
			t.Fatalf("compilePattern(%q): %v", pat, err)
		}
		return p.parse(s)
	}
	if _, ok := parse(dtf, "dd/MM/yyyy", "31/02/2026"); ok {
		t.Error("parse 31/02/2026 succeeded, want failure: no such day")
	}
	if _, ok := parse(dtf, "dd/MM/yyyy", "01/02/2026 extra"); ok {
		t.Error("parse with trailing text succeeded, want failure")
	}
	for _, c := range []struct {
		d       dialect
		pat, in string
		want    int64
	}{
		{dtf, "EEE, d MMM yyyy hh:mm a", "Thu, 1 Jan 2026 12:34 PM", at - 56789},
		{dtf, "hh:mm a", "12:05 AM", 5 * msPerMinute},
		{dtf, "D yyyy", "74 2026", mar15 - 8*msPerHour},
		{sdf, "yyyyMMddHHmmssSSS", "20260101123456789", at},
		{dtf, "yyyyMMddHHmmssSSS", "20260101123456789", at},
	} {
		if got, ok := parse(c.d, c.pat, c.in); !ok || got != c.want {
			t.Errorf("%s parse %q with %q = %d, %v; want %d", c.d, c.in, c.pat, got, ok, c.want)
		}
	}
}
