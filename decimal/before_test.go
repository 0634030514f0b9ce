package decimal

// The two parsers Parse replaced, as they were (eval/decimal.go and
// format/text.go before the merge), kept for the differential test in
// decimal_test.go: it says exactly what changed.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// evPow10 holds 10^0 .. 10^18.
var evPow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18}

const evMaxUnscaled = 999_999_999_999_999_999

// evalBefore returns the value, ok=false for overflow and bad=true
// for malformed text.
func evalBefore(s string, scale int) (v int64, ok, bad bool) {
	if scale < 0 || scale > 38 {
		return 0, false, true
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	// Collect the significant digits and where the point is.
	var mant uint64 // digits so far, capped
	mdigits := 0    // digits in mant (after leading zeros)
	fracDigits := 0 // digits after the point, counted in mant or dropped
	dropped := false
	roundUp := false // the first dropped digit was >= 5
	sawDigit, sawPoint := false, false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if sawPoint {
				return 0, false, true
			}
			sawPoint = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		sawDigit = true
		if sawPoint {
			fracDigits++
		}
		if mdigits == 0 && c == '0' {
			continue
		}
		if mdigits >= 19 {
			// More than 19 significant digits: only fractional digits can
			// be dropped (they are rounded); integer ones overflow.
			if !sawPoint {
				return 0, false, false
			}
			if !dropped {
				roundUp = c >= '5'
				dropped = true
			}
			fracDigits--
			continue
		}
		mant = mant*10 + uint64(c-'0')
		mdigits++
	}
	if !sawDigit {
		return 0, false, true
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if exp > 1000 {
				return 0, false, true
			}
			exp = exp*10 + int(s[i]-'0')
		}
		if i == start {
			return 0, false, true
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return 0, false, true
	}
	// value = mant * 10^(exp - fracDigits) (+ rounding of dropped digits)
	shift := scale + exp - fracDigits
	var r uint64
	switch {
	case mant == 0:
		return 0, true, false
	case shift >= 0:
		if shift > 19 {
			return 0, false, false
		}
		hi, lo := bits.Mul64(mant, evPow10u(shift))
		if hi != 0 {
			return 0, false, false
		}
		r = lo
		if dropped && roundUp && shift == 0 {
			r++
		}
	default:
		d := -shift
		if d > 20 {
			r = 0
		} else {
			p := evPow10u(d)
			if d == 20 {
				// mant < 10^20 always; 10^20 does not fit a uint64.
				r = 0
				if mant >= 5*evPow10u(19) {
					r = 1
				}
				break
			}
			r = mant / p
			rem := mant % p
			if rem >= p-rem {
				r++
			}
		}
	}
	if r > evMaxUnscaled {
		return 0, false, false
	}
	if neg {
		return -int64(r), true, false
	}
	return int64(r), true, false
}

func evPow10u(n int) uint64 {
	if n <= MaxDigits {
		return uint64(evPow10[n])
	}
	return uint64(evPow10[MaxDigits]) * 10
}

// formatBefore reads a decimal number (an optional sign, digits with an
// optional fraction, an optional exponent) exactly, and returns its
// unscaled value at the given scale: "12.3" at scale 2 is 1230. Extra
// fraction digits are rounded half up (as Flink's DECIMAL casts do); a
// value with more than precision digits, or beyond 64 bits, is an error.
func formatBefore(s string, precision, scale int) (int64, error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	// Collect significant digits without leading zeros, and the exponent
	// of the last digit.
	var digits [40]byte
	nd := 0    // significant digits kept in digits
	extra := 0 // integer digits beyond the buffer: they only scale the value
	exp := 0
	sawDigit, sawDot := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if sawDot {
				exp--
			}
			if nd == 0 && c == '0' {
				continue
			}
			if nd < len(digits) {
				digits[nd] = c
				nd++
			} else if sawDot {
				exp++ // a fraction digit beyond 40 significant ones never decides the rounding
			} else {
				extra++
			}
			continue
		case c == '.' && !sawDot:
			sawDot = true
			continue
		}
		break
	}
	if !sawDigit {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		e := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if e < 100000 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if i == start {
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	exp += extra
	// value = digits * 10^exp; unscaled = digits * 10^(exp+scale).
	shift := exp + scale
	var u uint64
	overflow := false
	keep := nd
	if shift < 0 {
		keep = nd + shift
	}
	for j := 0; j < keep && j < nd; j++ {
		d := uint64(digits[j] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
			break
		}
		u = u*10 + d
	}
	if !overflow && shift > 0 && nd > 0 {
		for k := 0; k < shift; k++ {
			if u > math.MaxUint64/10 {
				overflow = true
				break
			}
			u *= 10
		}
	}
	if !overflow && shift < 0 && keep >= 0 && keep < nd && digits[keep] >= '5' {
		u++ // half up
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if overflow || u > limit {
		return 0, fmt.Errorf("%s does not fit DECIMAL(%d, %d): streamsql keeps decimals in 64 bits", s, precision, scale)
	}
	if precision < 19 && u >= fmPow10[precision] {
		return 0, fmt.Errorf("%s does not fit DECIMAL(%d, %d): at most %d digits before the point", s, precision, scale, precision-scale)
	}
	if neg {
		return int64(-u), nil //nolint:gosec // u <= 2^63 checked above
	}
	return int64(u), nil
}

var fmPow10 = func() [20]uint64 {
	var p [20]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func evalAppendBefore(b []byte, v int64, s int) []byte {
	if s <= 0 {
		return strconv.AppendInt(b, v, 10)
	}
	if v < 0 {
		b = append(b, '-')
	}
	var digits [24]byte
	d := strconv.AppendUint(digits[:0], evAbs64(v), 10)
	if len(d) <= s {
		b = append(b, '0', '.')
		for i := len(d); i < s; i++ {
			b = append(b, '0')
		}
		return append(b, d...)
	}
	b = append(b, d[:len(d)-s]...)
	b = append(b, '.')
	return append(b, d[len(d)-s:]...)
}

func evAbs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // also right for MinInt64
	}
	return uint64(v)
}

// formatAppendBefore appended the unscaled value u at scale as a plain decimal
// number: 1230 at scale 2 is "12.30".
func formatAppendBefore(b []byte, u int64, scale int) []byte {
	if u < 0 {
		b = append(b, '-')
	}
	mag := uint64(u)
	if u < 0 {
		mag = uint64(-(u + 1)) + 1
	}
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], mag, 10)
	if scale <= 0 {
		return append(b, digits...)
	}
	if len(digits) <= scale {
		b = append(b, '0', '.')
		for k := len(digits); k < scale; k++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[:len(digits)-scale]...)
	b = append(b, '.')
	return append(b, digits[len(digits)-scale:]...)
}
