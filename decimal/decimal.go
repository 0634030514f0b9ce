package decimal

import (
	"errors"
	"fmt"
)

// MaxDigits is the most digits every DECIMAL value can have at run time:
// its unscaled value is an int64, and every 18-digit number fits one.
// Arithmetic (eval) keeps results to it.
const MaxDigits = 18

// The errors of Parse wrap one of these.
var (
	// ErrSyntax means the text is not a decimal number.
	ErrSyntax = errors.New("not a decimal number")
	// ErrRange means the number does not fit the precision.
	ErrRange = errors.New("out of range")
)

// parseError is an error of Parse: its message, and ErrSyntax or ErrRange
// for errors.Is.
type parseError struct {
	msg  string
	kind error
}

func (e *parseError) Error() string { return e.msg }
func (e *parseError) Unwrap() error { return e.kind }

func syntaxError(s string) error {
	return &parseError{msg: fmt.Sprintf("%q is not a decimal number", s), kind: ErrSyntax}
}

// pow10 holds 10^0 .. 10^18.
var pow10 = func() [MaxDigits + 1]uint64 {
	var p [MaxDigits + 1]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Parse reads s exactly and returns its unscaled value at scale: "12.3" at
// scale 2 is 1230. Extra fraction digits are rounded half up. A precision
// up to MaxDigits bounds the digits (0 or less means MaxDigits); a wider
// DECIMAL is kept if it fits an int64. scale is 0..38.
func Parse(s string, precision, scale int) (int64, error) {
	if scale < 0 || scale > 38 {
		return 0, &parseError{msg: fmt.Sprintf("scale %d is not 0 to 38", scale), kind: ErrSyntax}
	}
	if precision <= 0 {
		precision = MaxDigits
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	// Collect the significant digits, without leading zeros, and the
	// exponent of the last one kept. 40 are more than any value that fits
	// (18 digits, rounded on the 19th); later fraction digits cannot change
	// a half-up rounding that the first dropped digit decides, and later
	// integer digits only scale the value.
	var digits [40]byte
	nd := 0    // significant digits kept in digits
	extra := 0 // integer digits beyond the buffer
	exp := 0
	sawDigit, sawDot := false, false
scan:
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
			switch {
			case nd < len(digits):
				digits[nd] = c
				nd++
			case sawDot:
				exp++ // a fraction digit past the buffer: dropped
			default:
				extra++
			}
		case c == '.' && !sawDot:
			sawDot = true
		default:
			break scan
		}
	}
	if !sawDigit {
		return 0, syntaxError(s)
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
			if e < 100000 { // beyond, the value is 0 or too large anyway
				e = e*10 + int(s[i]-'0')
			}
		}
		if i == start {
			return 0, syntaxError(s)
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) {
		return 0, syntaxError(s)
	}
	exp += extra
	// value = digits × 10^exp; unscaled = digits × 10^(exp+scale).
	shift := exp + scale
	keep := nd // digits that stay left of the point at scale
	if shift < 0 {
		keep = nd + shift
	}
	// The largest magnitude: p nines, or for a DECIMAL wider than 18 digits
	// whatever an int64 holds.
	var limit uint64
	switch {
	case precision <= MaxDigits:
		limit = pow10[precision] - 1
	case neg:
		limit = 1 << 63
	default:
		limit = 1<<63 - 1
	}
	var u uint64
	over := false
	for j := 0; j < keep && j < nd && !over; j++ {
		d := uint64(digits[j] - '0')
		over = u > (limit-d)/10
		u = u*10 + d
	}
	for k := 0; k < shift && nd > 0 && !over; k++ {
		over = u > limit/10
		u *= 10
	}
	if !over && shift < 0 && keep >= 0 && keep < nd && digits[keep] >= '5' {
		over = u == limit
		u++ // half up
	}
	if over {
		if precision <= MaxDigits {
			return 0, &parseError{kind: ErrRange, msg: fmt.Sprintf("%s does not fit DECIMAL(%d, %d): at most %d digits before the point",
				s, precision, scale, precision-scale)}
		}
		return 0, &parseError{kind: ErrRange, msg: fmt.Sprintf("%s does not fit DECIMAL(%d, %d): streamsql keeps decimals in 64 bits",
			s, precision, scale)}
	}
	if neg {
		return int64(-u), nil //nolint:gosec // u <= 2^63: -u wraps to the int64 it stands for
	}
	return int64(u), nil
}
