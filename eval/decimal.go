package eval

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/decimal"
)

// MaxDecimalDigits is the number of significant digits a DECIMAL value can
// hold at run time: its unscaled value is an int64, and every value of 18
// digits fits.
const MaxDecimalDigits = decimal.MaxDigits

// pow10 holds 10^0 .. 10^18.
var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18}

// maxUnscaled is the largest unscaled DECIMAL magnitude: 18 nines.
const maxUnscaled = 999_999_999_999_999_999

// decFits reports whether unscaled value v fits precision p (capped at 18
// digits).
func decFits(v int64, p int) bool {
	if p <= 0 || p > MaxDecimalDigits {
		p = MaxDecimalDigits
	}
	lim := pow10[p]
	return v > -lim && v < lim
}

func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // also right for MinInt64
	}
	return uint64(v)
}

// rescale converts an unscaled value from scale from to scale to, rounding
// half up (away from zero at .5, as Java's RoundingMode.HALF_UP) when the
// scale shrinks. ok is false when the result does not fit 18 digits.
func rescale(v int64, from, to int) (int64, bool) {
	switch {
	case from == to:
		return v, v >= -maxUnscaled && v <= maxUnscaled
	case to > from:
		if v == 0 {
			return 0, true
		}
		d := to - from
		if d > MaxDecimalDigits {
			return 0, false
		}
		r, ok := mul64(v, pow10[d])
		return r, ok && r >= -maxUnscaled && r <= maxUnscaled
	}
	d := from - to
	if d > MaxDecimalDigits+1 {
		return 0, true
	}
	if d == MaxDecimalDigits+1 { // divide by 10^19: the quotient is 0 or ±1
		if abs64(v) >= 5_000_000_000_000_000_000 {
			if v < 0 {
				return -1, true
			}
			return 1, true
		}
		return 0, true
	}
	p := pow10[d]
	q, r := v/p, v%p
	if r < 0 {
		r = -r
	}
	if r >= p-r { // 2r >= p without overflow
		if v < 0 {
			q--
		} else {
			q++
		}
	}
	return q, q >= -maxUnscaled && q <= maxUnscaled
}

// floorScale rounds v (at scale from) down to scale to (up when ceil),
// returning the value still at scale from.
func floorScale(v int64, from, to int, ceil bool) (int64, bool) {
	if to >= from {
		return v, true
	}
	d := from - to
	if d > MaxDecimalDigits {
		switch {
		case v > 0 && ceil:
			return 0, false
		case v < 0 && !ceil:
			return 0, false
		}
		return 0, true
	}
	p := pow10[d]
	q := v / p
	r := v % p
	if r != 0 {
		if ceil && v > 0 {
			q++
		} else if !ceil && v < 0 {
			q--
		}
	}
	return mul64(q, p)
}

// mul64 multiplies with overflow detection.
func mul64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	if hi != 0 {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

func add64(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0) || b == 0
}

func sub64(a, b int64) (int64, bool) {
	c := a - b
	return c, (c < a) == (b > 0) || b == 0
}

// decMul multiplies unscaled a (scale sa) by b (scale sb) into scale s,
// rounding half up. ok is false when the result exceeds 18 digits.
func decMul(a int64, sa int, b int64, sb int, s int) (int64, bool) {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	ps := sa + sb
	switch {
	case s < ps:
		d := ps - s
		if d > MaxDecimalDigits+1 {
			return decMulBig(a, sa, b, sb, s)
		}
		var p uint64
		if d <= MaxDecimalDigits {
			p = uint64(pow10[d])
		} else {
			p = 10 * uint64(pow10[MaxDecimalDigits])
		}
		if hi >= p {
			return 0, false
		}
		q, r := bits.Div64(hi, lo, p)
		if r >= p-r {
			q++
		}
		hi, lo = 0, q
	case s > ps:
		if hi != 0 {
			return 0, false
		}
		if lo > maxUnscaled {
			return 0, false
		}
		v, ok := rescale(int64(lo), ps, s)
		if !ok {
			return 0, false
		}
		hi, lo = 0, uint64(v)
	}
	if hi != 0 || lo > maxUnscaled {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

// decDiv divides unscaled a (scale sa) by b (scale sb) into scale s,
// rounding half up. b must not be 0.
func decDiv(a int64, sa int, b int64, sb int, s int) (int64, bool) {
	k := s - sa + sb // the result is a * 10^k / b
	if k < 0 || k > MaxDecimalDigits {
		return decDivBig(a, sa, b, sb, s)
	}
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(abs64(a), uint64(pow10[k]))
	d := abs64(b)
	if hi >= d {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, d)
	if r >= d-r {
		q++
	}
	if q > maxUnscaled {
		return 0, false
	}
	if neg {
		return -int64(q), true
	}
	return int64(q), true
}

func bigPow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// bigRound divides num by den rounding half up, and reports whether the
// result fits 18 digits.
func bigRound(num, den *big.Int) (int64, bool) {
	neg := num.Sign()*den.Sign() < 0
	num = new(big.Int).Abs(num)
	den = new(big.Int).Abs(den)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() || q.Int64() > maxUnscaled {
		return 0, false
	}
	if neg {
		return -q.Int64(), true
	}
	return q.Int64(), true
}

func decMulBig(a int64, sa int, b int64, sb int, s int) (int64, bool) {
	num := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	d := sa + sb - s
	if d >= 0 {
		return bigRound(num, bigPow10(d))
	}
	return bigRound(num.Mul(num, bigPow10(-d)), big.NewInt(1))
}

func decDivBig(a int64, sa int, b int64, sb int, s int) (int64, bool) {
	num, den := big.NewInt(a), big.NewInt(b)
	k := s - sa + sb
	if k >= 0 {
		num.Mul(num, bigPow10(k))
	} else {
		den.Mul(den, bigPow10(-k))
	}
	return bigRound(num, den)
}

// DecimalFromString parses a decimal number (an optional sign, digits, an
// optional fraction and an optional exponent such as 1.5E3) into its
// unscaled value at scale, exactly: no floating point is involved. Digits
// beyond the scale are rounded half up. It fails on malformed text and on
// values of more than 18 significant digits at that scale.
func DecimalFromString(s string, scale int) (int64, error) {
	v, ok, bad := decimalFromString(s, scale)
	switch {
	case bad:
		return 0, errorf(ErrInvalidCast, "invalid DECIMAL '%s'", s)
	case !ok:
		return 0, errorf(ErrOverflow, "DECIMAL overflow: %s does not fit %d digits with scale %d", s, MaxDecimalDigits, scale)
	}
	return v, nil
}

// decimalFromString returns the value, ok=false for overflow (beyond 18
// digits; callers check their precision) and bad=true for malformed text.
func decimalFromString(s string, scale int) (v int64, ok, bad bool) {
	v, err := decimal.Parse(s, MaxDecimalDigits, scale)
	switch {
	case err == nil:
		return v, true, false
	case errors.Is(err, decimal.ErrRange):
		return 0, false, false
	}
	return 0, false, true
}

// formatDecimal renders unscaled v at scale s: 1234 at scale 2 is "12.34",
// 5 at scale 2 is "0.05", -5 is "-0.05".
func formatDecimal(v int64, s int) string {
	var buf [48]byte
	return string(decimal.Append(buf[:0], v, s))
}

// decToFloat converts unscaled v at scale s to a float64, correctly rounded
// when |v| < 2^53 and s <= 22.
func decToFloat(v int64, s int) float64 {
	if s == 0 {
		return float64(v)
	}
	if s <= 22 && abs64(v) < 1<<53 {
		return float64(v) / math.Pow10(s)
	}
	f, _ := strconv.ParseFloat(formatDecimal(v, s), 64)
	return f
}

// floatToDec converts f to unscaled at scale s, rounding half up on f's
// shortest decimal representation (as Java's BigDecimal.valueOf(double)
// does: 1.005 becomes 1.01 at scale 2).
func floatToDec(f float64, s int) (int64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 && s <= 3 {
		return rescale(int64(f), 0, s)
	}
	var buf [32]byte
	txt := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	v, ok, bad := decimalFromString(string(txt), s)
	return v, ok && !bad
}

// roundFloat rounds f to d decimal digits half up, on f's shortest decimal
// representation (Flink: BigDecimal.valueOf(f).setScale(d, HALF_UP)).
func roundFloat(f float64, d int) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return f
	}
	txt := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expS, _ := strings.Cut(txt, "e")
	exp, _ := strconv.Atoi(expS)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	// value = 0.digits * 10^(exp+1); keep exp+1+d digits.
	keep := exp + 1 + d
	if keep >= len(digits) {
		return f
	}
	var r float64
	if keep < 0 {
		r = 0
	} else {
		var q uint64
		for _, c := range digits[:keep] {
			q = q*10 + uint64(c-'0')
		}
		if digits[keep] >= '5' {
			q++
		}
		r, _ = strconv.ParseFloat(strconv.FormatUint(q, 10)+"e"+strconv.Itoa(exp+1-keep), 64)
	}
	if neg {
		return -r
	}
	return r
}
