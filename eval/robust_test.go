package eval

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// TestExtremeValues evaluates many expressions over rows of extreme values:
// nothing may panic (the safety net would report an internal error).
func TestExtremeValues(t *testing.T) {
	exprs := []string{
		"i + 1", "i * i", "-i", "i / (i - 7)", "big * big", "big / -1", "-big", "ABS(big)", "ABS(i)",
		"amount * amount", "amount / amount", "amount / 7", "amount + p", "amount % p", "-amount", "ABS(amount)",
		"FLOOR(amount)", "CEIL(amount)", "ROUND(amount, 1)", "ROUND(amount, -20)", "ROUND(i, -30)",
		"CAST(amount AS INT)", "CAST(d AS BIGINT)", "CAST(d AS DECIMAL(10, 2))", "CAST(d AS INT)", "CAST(d AS STRING)",
		"CAST(big AS DECIMAL(18, 2))", "CAST(s AS INT)", "CAST(s AS TIMESTAMP(3))", "CAST(s AS DECIMAL(10, 2))",
		"ts + INTERVAL '1' DAY", "ts - INTERVAL '1' MONTH", "DATE_FORMAT(ts, 'yyyy-MM-dd')", "CAST(ts AS STRING)",
		"EXTRACT(YEAR FROM ts)", "TIMESTAMPDIFF(SECOND, ts, ltz + INTERVAL '1' SECOND)", "TIMESTAMPDIFF(MONTH, ts, ts)",
		"TO_TIMESTAMP_LTZ(big, 0)", "TO_TIMESTAMP_LTZ(d, 0)", "TO_TIMESTAMP_LTZ(amount, 0)", "FROM_UNIXTIME(big)",
		"SUBSTRING(s, i, i)", "SUBSTRING(s, big)", "s LIKE s", "REGEXP_EXTRACT(s, s)", "REGEXP_EXTRACT(s, 'a', i)",
		"d = d", "d > amount", "amount > big", "amount IN (1, 2.5, d)", "HASH_CODE(s)", "HASH_CODE(d)",
		"POWER(d, d)", "SQRT(amount)", "LN(i)", "CAST(dt AS TIMESTAMP(3))", "dt + INTERVAL '1' YEAR",
		"DATE_FORMAT(s, s)", "TO_TIMESTAMP(s, s)", "UNIX_TIMESTAMP(s, s)", "CAST(tm AS STRING)",
	}
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 999_999_999_999_999_999}
	floats := []float64{0, -0.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e-300, math.MaxInt64}
	strs := []string{"", "%", "_", "(", "\\", "héllo", "2026-01-01", "yyyy", "'", "9999999999999999999999", "\xff"}
	for _, src := range exprs {
		e := bind(t, src)
		f, err := Compile(e)
		if err != nil {
			continue // refused at compile time: fine
		}
		for k := 0; k < 24; k++ {
			vals := testRow()
			for i, c := range testCols {
				switch {
				case c.t.Kind.IsApproximate():
					vals[i] = row.FloatValue(floats[(k+i)%len(floats)])
				case c.t.Kind.IsString():
					vals[i] = row.StrValue(strs[(k+i)%len(strs)])
				case c.t.Kind == types.Boolean:
					vals[i] = row.BoolValue(k%2 == 0)
				default:
					vals[i] = row.IntValue(ints[(k+i)%len(ints)])
				}
				if (k+i)%7 == 0 {
					vals[i] = row.NullValue
				}
			}
			if _, err := f(vals); err != nil && strings.Contains(err.Error(), "internal error") {
				t.Errorf("%s over %v: %v", src, vals, err)
			}
		}
	}
}

// likeRegexp is the obviously correct reference for LIKE.
func likeRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			} else {
				b.WriteString(regexp.QuoteMeta("\\"))
			}
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func FuzzLike(f *testing.F) {
	for _, s := range [][2]string{{"Hello World", "H%o W_rld"}, {"abab", "a%ab"}, {"ab", "a%ab"}, {"", "%"},
		{"100%", "100\\%"}, {"héllo", "h_l%"}, {"aaa", "%a%a%a%"}, {"aa", "%a%a%a%"}, {"xyz", "_%_"}, {"x", "_%_"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, s, p string) {
		if !utf8Valid(s) || !utf8Valid(p) {
			return
		}
		lp := compileLike(p)
		want := likeRegexp(p).MatchString(s)
		if got := lp.match(s); got != want {
			t.Errorf("%q LIKE %q = %v, want %v", s, p, got, want)
		}
		if got := lp.matcher()(s); got != want {
			t.Errorf("%q LIKE %q (fast path) = %v, want %v", s, p, got, want)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }

func FuzzDecimalFromString(f *testing.F) {
	for _, s := range []string{"12.34", "-0.005", "1e3", "999999999999999999", "0.1234567890123456789012", "x"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, scale int) {
		scale = ((scale % 19) + 19) % 19
		v, err := DecimalFromString(s, scale)
		if err != nil {
			return
		}
		txt := formatDecimal(v, scale)
		back, err := DecimalFromString(txt, scale)
		if err != nil || back != v {
			t.Errorf("%q -> %d -> %q -> %d, %v", s, v, txt, back, err)
		}
	})
}
