package civil

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/row"
)

// Mode says which of Flink's two readings of date and time text to apply
// (see the package comment).
type Mode uint8

const (
	// Strict is Flink's formats' reading (json, csv): two-digit fields, and
	// a timestamp needs its time of day.
	Strict Mode = iota
	// Lenient is Flink's CAST's and TO_TIMESTAMP's: one- or two-digit
	// fields, and a date alone is a timestamp at midnight.
	Lenient
)

// TimestampHint is what a timestamp's text must look like, for messages.
const TimestampHint = "'yyyy-MM-dd HH:mm:ss[.fff]' or ISO-8601 'yyyy-MM-ddTHH:mm:ss[.fff][Z|+hh:mm]'"

// The shapes that are not a date or a time at all; the exported functions
// turn them into a message that says what was expected.
var (
	errNotDate = errors.New("not a date")
	errNotTime = errors.New("not a time")
)

func (m Mode) minDigits() int {
	if m == Lenient {
		return 1
	}
	return 2
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits reads lo to hi digits of s at i (as many as there are, up to hi)
// and returns their value and the index after them.
func digits(s string, i, lo, hi int) (v int64, next int, ok bool) {
	start := i
	for i < len(s) && i-start < hi && isDigit(s[i]) {
		v = v*10 + int64(s[i]-'0')
		i++
	}
	return v, i, i-start >= lo
}

// clip cuts s for quoting in a message.
func clip(s string) string {
	const limit = 64
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}

// datePart reads yyyy-MM-dd (Lenient: yyyy-M-d) at the start of s and
// returns the days since the epoch and the length read.
func datePart(s string, mode Mode) (days int64, n int, err error) {
	yl := 0
	for yl < len(s) && isDigit(s[yl]) {
		yl++
	}
	if yl > 4 {
		return 0, 0, fmt.Errorf("%q is beyond year 9999", clip(s))
	}
	lo := mode.minDigits()
	y, i, ok := digits(s, 0, 4, 4)
	if !ok || i >= len(s) || s[i] != '-' {
		return 0, 0, errNotDate
	}
	m, i, ok := digits(s, i+1, lo, 2)
	if !ok || i >= len(s) || s[i] != '-' {
		return 0, 0, errNotDate
	}
	d, i, ok := digits(s, i+1, lo, 2)
	if !ok {
		return 0, 0, errNotDate
	}
	if y < 1 {
		return 0, 0, fmt.Errorf("%q is before year 1", clip(s))
	}
	if m < 1 || m > 12 {
		return 0, 0, fmt.Errorf("%q has month %d", clip(s), m)
	}
	if d < 1 || d > DaysIn(y, m) {
		return 0, 0, fmt.Errorf("%q has no day %d in that month", clip(s), d)
	}
	return DaysFromCivil(y, m, d), i, nil
}

// timePart reads HH:mm[:ss[.fffffffff]] (Lenient: H:m[:s[.f…]]) at the
// start of s and returns milliseconds of the day (fractions beyond
// milliseconds are truncated) and the length read.
func timePart(s string, mode Mode) (ms int64, n int, err error) {
	lo := mode.minDigits()
	h, i, ok := digits(s, 0, lo, 2)
	if !ok || i >= len(s) || s[i] != ':' {
		return 0, 0, errNotTime
	}
	mi, i, ok := digits(s, i+1, lo, 2)
	if !ok {
		return 0, 0, errNotTime
	}
	var sec, frac int64
	if i < len(s) && s[i] == ':' {
		if sec, i, ok = digits(s, i+1, lo, 2); !ok {
			return 0, 0, errNotTime
		}
		if i < len(s) && s[i] == '.' {
			i++
			start := i
			for i < len(s) && isDigit(s[i]) {
				if i-start < 3 {
					frac = frac*10 + int64(s[i]-'0')
				}
				i++
			}
			if i == start || i-start > 9 {
				return 0, 0, errors.New("a fraction of a second has 1 to 9 digits")
			}
			for k := i - start; k < 3; k++ {
				frac *= 10
			}
		}
	}
	if h > 23 || mi > 59 || sec > 59 {
		return 0, 0, fmt.Errorf("%q is not a valid time of day", clip(s))
	}
	return h*MsPerHour + mi*MsPerMinute + sec*MsPerSecond + frac, i, nil
}

// ParseDate reads 'yyyy-MM-dd' (Lenient: also 'yyyy-M-d') and returns days
// since 1970-01-01.
func ParseDate(s string, mode Mode) (int64, error) {
	d, n, err := datePart(s, mode)
	if err == nil && n != len(s) {
		err = errNotDate
	}
	if errors.Is(err, errNotDate) {
		return 0, errors.New("expected a date 'yyyy-MM-dd'")
	}
	return d, err
}

// ParseTime reads 'HH:mm[:ss[.fff]]' (Lenient: also 'H:m[:s[.fff]]') and
// returns milliseconds of the day.
func ParseTime(s string, mode Mode) (int64, error) {
	ms, n, err := timePart(s, mode)
	if err == nil && n != len(s) {
		err = errNotTime
	}
	if err != nil {
		return 0, fmt.Errorf("expected a time 'HH:mm:ss[.fff]': %w", err)
	}
	return ms, nil
}

// ParseTimestamp reads 'yyyy-MM-dd HH:mm[:ss[.f…]]' or ISO-8601
// 'yyyy-MM-ddTHH:mm[:ss[.f…]][Z|±hh[:mm]]' (Lenient: also one-digit
// fields, and a date alone) and returns milliseconds since the epoch, UTC.
// An offset is applied (the result is the UTC instant); without one the
// text is read as UTC. Fractions beyond milliseconds are truncated. A
// result outside years 1..9999 is an error.
func ParseTimestamp(s string, mode Mode) (int64, error) {
	days, n, err := datePart(s, mode)
	if err != nil {
		if errors.Is(err, errNotDate) {
			return 0, fmt.Errorf("expected a timestamp %s", TimestampHint)
		}
		return 0, err
	}
	if n == len(s) && mode == Lenient {
		return days * MsPerDay, nil // years 1..9999 already
	}
	if n >= len(s) || (s[n] != ' ' && s[n] != 'T' && s[n] != 't') {
		return 0, fmt.Errorf("expected a timestamp %s (the time of day is missing)", TimestampHint)
	}
	n++
	tod, m, err := timePart(s[n:], mode)
	if err != nil {
		if errors.Is(err, errNotTime) {
			return 0, fmt.Errorf("expected a timestamp %s", TimestampHint)
		}
		return 0, err
	}
	n += m
	ms := days*MsPerDay + tod
	if n < len(s) {
		switch c := s[n]; c {
		case 'Z', 'z':
			n++
		case '+', '-':
			oh, next, ok := digits(s, n+1, 2, 2)
			if !ok {
				return 0, fmt.Errorf("expected a time zone offset ±hh:mm in %q", clip(s))
			}
			n = next
			if n < len(s) && s[n] == ':' {
				n++
			}
			var om int64
			if n < len(s) {
				if om, n, ok = digits(s, n, 2, 2); !ok {
					return 0, fmt.Errorf("expected a time zone offset ±hh:mm in %q", clip(s))
				}
			}
			if oh > 18 || om > 59 {
				return 0, fmt.Errorf("time zone offset out of range in %q", clip(s))
			}
			off := oh*MsPerHour + om*MsPerMinute
			if c == '+' {
				ms -= off
			} else {
				ms += off
			}
		}
	}
	if n != len(s) {
		return 0, fmt.Errorf("expected a timestamp %s, got trailing text in %q", TimestampHint, clip(s))
	}
	if ms < row.MinMillis {
		return 0, fmt.Errorf("%q is before year 1", clip(s))
	}
	if ms > row.MaxMillis {
		return 0, fmt.Errorf("%q is beyond year 9999", clip(s))
	}
	return ms, nil
}
