package decimal

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// grammar is the text Parse accepts, written independently of it.
var grammar = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// reference parses s with math/big: the exact value, rounded half away
// from zero at scale, checked against precision digits (up to 18) or the
// int64 range (wider). kind is "ok", "syntax" or "range".
func reference(s string, precision, scale int) (int64, string) {
	if !grammar.MatchString(s) {
		return 0, "syntax"
	}
	mant, expPart, _ := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if expPart != "" {
		e, ok := new(big.Int).SetString(expPart, 10)
		if !ok || !e.IsInt64() || e.Int64() > 20000 || e.Int64() < -20000 {
			panic("reference: exponent out of the generator's range: " + s)
		}
		exp = int(e.Int64())
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimLeft(mant, "+-")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := new(big.Int)
	digits.SetString("0"+intPart+frac, 10)
	exp += scale - len(frac)
	v := new(big.Rat).SetInt(digits)
	ten := big.NewInt(10)
	if exp >= 0 {
		v.Mul(v, new(big.Rat).SetInt(new(big.Int).Exp(ten, big.NewInt(int64(exp)), nil)))
	} else {
		v.Quo(v, new(big.Rat).SetInt(new(big.Int).Exp(ten, big.NewInt(int64(-exp)), nil)))
	}
	// half up: floor(v + 1/2) of the magnitude
	v.Add(v, big.NewRat(1, 2))
	q := new(big.Int).Quo(v.Num(), v.Denom())
	if neg {
		q.Neg(q)
	}
	p := precision
	if p <= 0 {
		p = MaxDigits
	}
	if p <= MaxDigits {
		if new(big.Int).Abs(q).Cmp(new(big.Int).Exp(ten, big.NewInt(int64(p)), nil)) >= 0 {
			return 0, "range"
		}
	} else if !q.IsInt64() {
		return 0, "range"
	}
	return q.Int64(), "ok"
}

func kindOf(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrSyntax):
		return "syntax"
	case errors.Is(err, ErrRange):
		return "range"
	}
	return "other: " + err.Error()
}

func TestParse(t *testing.T) {
	tests := []struct {
		in               string
		precision, scale int
		want             int64
		err              string // a substring of the message; "" for none
	}{
		{"12.3", 10, 2, 1230, ""},
		{"-0.5", 10, 0, -1, ""}, // half up, away from zero
		{"0.4999", 10, 0, 0, ""},
		{".5", 10, 1, 5, ""},
		{"5.", 10, 1, 50, ""},
		{"+1.5E3", 10, 0, 1500, ""},
		{"2e-3", 10, 3, 2, ""},
		{"00000012.3400", 10, 2, 1234, ""},
		{"999999999999999999", 38, 0, 999999999999999999, ""},
		{"-999999999999999999", 18, 0, -999999999999999999, ""},
		{"1000000000000000000", 18, 0, 0, "at most 18 digits before the point"},
		{"1000000000000000000", 38, 0, 1000000000000000000, ""}, // wider than 18: what 64 bits hold
		{"9223372036854775807", 38, 0, 9223372036854775807, ""},
		{"-9223372036854775808", 19, 0, -9223372036854775808, ""},
		{"9223372036854775808", 19, 0, 0, "does not fit DECIMAL(19, 0): streamsql keeps decimals in 64 bits"},
		{"922337203685477.58075", 38, 4, 0, "in 64 bits"}, // rounding up past the int64
		{"922337203685477.58074", 38, 4, 9223372036854775807, ""},
		{"99.995", 4, 2, 0, "does not fit DECIMAL(4, 2): at most 2 digits before the point"},
		{"99.994", 4, 2, 9999, ""},
		{"123.456", 4, 2, 0, "at most 2 digits before the point"},
		{"1e-100000", 10, 2, 0, ""},
		{"0e100000", 10, 2, 0, ""},
		{"1e100000", 10, 2, 0, "does not fit"},
		{"0." + strings.Repeat("0", 60) + "5", 10, 2, 0, ""},
		{"0.00" + strings.Repeat("9", 60), 10, 2, 1, ""},
		{strings.Repeat("1", 60), 38, 0, 0, "does not fit"},
		{"", 10, 2, 0, `"" is not a decimal number`},
		{".", 10, 2, 0, "not a decimal number"},
		{"-", 10, 2, 0, "not a decimal number"},
		{"1.2.3", 10, 2, 0, "not a decimal number"},
		{"1e", 10, 2, 0, "not a decimal number"},
		{"1e+", 10, 2, 0, "not a decimal number"},
		{"e5", 10, 2, 0, "not a decimal number"},
		{" 1", 10, 2, 0, "not a decimal number"},
		{"1,5", 10, 2, 0, "not a decimal number"},
		{"NaN", 10, 2, 0, "not a decimal number"},
		{"0x10", 10, 2, 0, "not a decimal number"},
		{"1", 10, 39, 0, "scale 39"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in, tt.precision, tt.scale)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Parse(%q, %d, %d) = %d, %v; want %d", tt.in, tt.precision, tt.scale, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Parse(%q, %d, %d) = %d, %v; want an error containing %q", tt.in, tt.precision, tt.scale, got, err, tt.err)
		}
	}
}

func randomDecimal(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString([]string{"", "", "-", "+"}[r.IntN(4)])
	digits := func(n int) {
		for range n {
			if r.IntN(4) == 0 {
				b.WriteByte('0')
			} else {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
	}
	digits([]int{0, 1, 2, 5, 17, 18, 19, 20, 45}[r.IntN(9)])
	if r.IntN(3) > 0 {
		b.WriteByte('.')
		digits([]int{0, 1, 2, 3, 5, 18, 19, 25, 50}[r.IntN(9)])
	}
	if r.IntN(3) == 0 {
		b.WriteString([]string{"e", "E", "e-", "e+", "E-"}[r.IntN(5)])
		digits([]int{0, 1, 1, 2, 3}[r.IntN(5)])
	}
	if r.IntN(50) == 0 {
		b.WriteString([]string{".", "x", " ", "e1", "1"}[r.IntN(5)])
	}
	return b.String()
}

// TestParseReference compares Parse with a math/big reference on random
// text, and with the two parsers it replaced: format's must agree exactly,
// message included, but for the message of a DECIMAL(p <= 18) value beyond
// 64 bits, which now names the digits allowed; eval's must agree on the
// value and on malformed versus out of range, but where it was wrong.
func TestParseReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	seen := map[string]int{}
	for range 100_000 {
		s := randomDecimal(r)
		precision := []int{1, 2, 5, 10, 18, 19, 38}[r.IntN(7)]
		scale := r.IntN(min(precision, 18) + 1)
		got, err := Parse(s, precision, scale)
		want, kind := reference(s, precision, scale)
		if kindOf(err) != kind || got != want {
			t.Fatalf("Parse(%q, %d, %d) = %d, %v; big.Rat says %d (%s)", s, precision, scale, got, err, want, kind)
		}
		seen[kind]++

		// format's parser
		fv, ferr := formatBefore(s, precision, scale)
		switch {
		case (err == nil) == (ferr == nil) && fv == got && (err == nil || err.Error() == ferr.Error()):
		case err != nil && errors.Is(err, ErrRange) && ferr != nil && precision <= MaxDigits && strings.Contains(ferr.Error(), "in 64 bits"):
			// format said "keeps decimals in 64 bits" when a value did not fit
			// a uint64, whatever the precision; Parse names the precision.
			seen["too big either way, message changed"]++
		default:
			t.Fatalf("Parse(%q, %d, %d) = %d, %v; format's parser said %d, %v", s, precision, scale, got, err, fv, ferr)
		}

		// eval's parser, which checked 18 digits and left the precision to its callers
		g18, err18 := Parse(s, MaxDigits, scale)
		ev, ok, malformed := evalBefore(s, scale)
		switch {
		case malformed:
			if !errors.Is(err18, ErrSyntax) {
				t.Fatalf("Parse(%q, 18, %d) = %d, %v; eval's parser said malformed", s, scale, g18, err18)
			}
		case !ok && errors.Is(err18, ErrSyntax) && !grammar.MatchString(s):
			// eval stopped at the 20th integer digit and called it an
			// overflow before seeing the text was malformed.
			seen["malformed, eval said overflow"]++
		case !ok && err18 == nil && strings.ContainsAny(s, "eE"):
			// eval called 20 or more integer digits an overflow before
			// reading a negative exponent that brings them back in range
			// (the reference above agrees with Parse): a fix.
			seen["eval's false overflow"]++
		case !ok:
			if !errors.Is(err18, ErrRange) {
				t.Fatalf("Parse(%q, 18, %d) = %d, %v; eval's parser said overflow", s, scale, g18, err18)
			}
		case err18 != nil || g18 != ev:
			t.Fatalf("Parse(%q, 18, %d) = %d, %v; eval's parser said %d", s, scale, g18, err18, ev)
		}
	}
	t.Logf("cases: %v", seen)
	for _, c := range []string{"ok", "syntax", "range", "too big either way, message changed", "eval's false overflow"} {
		if seen[c] < 100 {
			t.Errorf("only %d inputs in case %q: %v", seen[c], c, seen)
		}
	}
}

// TestParseChanged lists where Parse differs from the parsers it replaced.
func TestParseChanged(t *testing.T) {
	// format said "in 64 bits" for a DECIMAL(2, 0) value beyond 64 bits.
	if _, err := formatBefore("1e30", 2, 0); err == nil || !strings.Contains(err.Error(), "in 64 bits") {
		t.Errorf("format's parser: %v", err)
	}
	if _, err := Parse("1e30", 2, 0); err == nil || !strings.Contains(err.Error(), "at most 2 digits before the point") {
		t.Errorf("Parse: %v", err)
	}
	// eval called an exponent of five digits or more malformed; it is a
	// number, 0 or too large.
	for _, s := range []string{"1e-12345", "0e12345"} {
		if _, _, malformed := evalBefore(s, 2); !malformed {
			t.Errorf("eval's parser took %q", s)
		}
		if v, err := Parse(s, 18, 2); err != nil || v != 0 {
			t.Errorf("Parse(%q) = %d, %v; want 0", s, v, err)
		}
	}
	if _, err := Parse("1e12345", 18, 2); !errors.Is(err, ErrRange) {
		t.Errorf("Parse(1e12345): %v, want out of range", err)
	}
	// eval called 20 integer digits an overflow before the exponent
	// brought them back: CAST('23757906850799000944.0e-8' AS DECIMAL(18, 4)).
	if _, ok, _ := evalBefore("23757906850799000944.0e-8", 4); ok {
		t.Error("eval's parser took 20 integer digits with a negative exponent")
	}
	if v, err := Parse("23757906850799000944.0e-8", 18, 4); err != nil || v != 2375790685079900 {
		t.Errorf("Parse = %d, %v; want 2375790685079900 (237579068507.9900)", v, err)
	}
}

// BenchmarkParse compares Parse with the parsers it replaced on a typical
// value (go test -bench Parse ./decimal).
func BenchmarkParse(b *testing.B) {
	const s = "-12345.6789"
	b.Run("Parse", func(b *testing.B) {
		for range b.N {
			if _, err := Parse(s, 10, 2); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("formatBefore", func(b *testing.B) {
		for range b.N {
			if _, err := formatBefore(s, 10, 2); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("evalBefore", func(b *testing.B) {
		for range b.N {
			if _, ok, _ := evalBefore(s, 2); !ok {
				b.Fatal(s)
			}
		}
	})
}

// TestAppend checks Append against eval's and format's writers it
// replaced, and that Parse reads back what it writes.
func TestAppend(t *testing.T) {
	for _, c := range []struct {
		u     int64
		scale int
		want  string
	}{
		{1230, 2, "12.30"}, {5, 2, "0.05"}, {-5, 2, "-0.05"}, {0, 3, "0.000"}, {-12, 0, "-12"},
		{math.MinInt64, 4, "-922337203685477.5808"}, {math.MaxInt64, 19, "0.9223372036854775807"},
	} {
		if got := string(Append(nil, c.u, c.scale)); got != c.want {
			t.Errorf("Append(%d, %d) = %s, want %s", c.u, c.scale, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 9))
	for range 100_000 {
		u := int64(r.Uint64())
		if r.IntN(2) == 0 {
			u >>= r.IntN(63)
		}
		scale := r.IntN(25)
		got := string(Append(nil, u, scale))
		if e := string(evalAppendBefore(nil, u, scale)); e != got {
			t.Fatalf("Append(%d, %d) = %s; eval's said %s", u, scale, got, e)
		}
		if f := string(formatAppendBefore(nil, u, scale)); f != got {
			t.Fatalf("Append(%d, %d) = %s; format's said %s", u, scale, got, f)
		}
		if back, err := Parse(got, 38, scale); scale <= 38 && (err != nil || back != u) {
			t.Fatalf("Parse(Append(%d, %d) = %s) = %d, %v", u, scale, got, back, err)
		}
	}
}
