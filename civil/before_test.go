package civil

// The two parsers this package replaced, as they were (eval/timefmt.go and
// format/text.go before the merge), kept for the differential tests in
// parse_test.go: they say exactly what changed.

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/streamsql/streamsql/row"
)

// --- eval (CAST, TO_TIMESTAMP) ---

// evScanner reads digits from a string.
type evScanner struct {
	s string
	i int
}

// num reads between lo and hi digits.
func (sc *evScanner) num(lo, hi int) (int64, bool) {
	start := sc.i
	var v int64
	for sc.i < len(sc.s) && sc.i-start < hi && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		v = v*10 + int64(sc.s[sc.i]-'0')
		sc.i++
	}
	return v, sc.i-start >= lo
}

func (sc *evScanner) lit(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

func (sc *evScanner) done() bool { return sc.i == len(sc.s) }

// date reads yyyy-M[M]-d[d].
func (sc *evScanner) date() (int64, bool) {
	y, ok := sc.num(4, 4)
	if !ok || !sc.lit('-') {
		return 0, false
	}
	m, ok := sc.num(1, 2)
	if !ok || !sc.lit('-') || m < 1 || m > 12 {
		return 0, false
	}
	d, ok := sc.num(1, 2)
	if !ok || d < 1 || d > DaysIn(y, m) {
		return 0, false
	}
	return DaysFromCivil(y, m, d), true
}

// timeOfDay reads H[H]:m[m][:s[s][.fraction]] into milliseconds; digits
// beyond milliseconds are truncated.
func (sc *evScanner) timeOfDay() (int64, bool) {
	h, ok := sc.num(1, 2)
	if !ok || !sc.lit(':') || h > 23 {
		return 0, false
	}
	mi, ok := sc.num(1, 2)
	if !ok || mi > 59 {
		return 0, false
	}
	var s, ms int64
	if sc.lit(':') {
		if s, ok = sc.num(1, 2); !ok || s > 59 {
			return 0, false
		}
		if sc.lit('.') {
			start := sc.i
			for sc.i < len(sc.s) && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
				if sc.i-start < 3 {
					ms = ms*10 + int64(sc.s[sc.i]-'0')
				}
				sc.i++
			}
			n := sc.i - start
			if n == 0 || n > 9 {
				return 0, false
			}
			for ; n < 3; n++ {
				ms *= 10
			}
		}
	}
	return h*MsPerHour + mi*MsPerMinute + s*MsPerSecond + ms, true
}

// zone reads Z, +HH, +HH:mm or +HHmm (or -) and returns its offset from UTC
// in milliseconds.
func (sc *evScanner) zone() (int64, bool) {
	if sc.lit('Z') || sc.lit('z') {
		return 0, true
	}
	if sc.i >= len(sc.s) || (sc.s[sc.i] != '+' && sc.s[sc.i] != '-') {
		return 0, false
	}
	neg := sc.s[sc.i] == '-'
	sc.i++
	h, ok := sc.num(2, 2)
	if !ok || h > 18 {
		return 0, false
	}
	var m int64
	sc.lit(':')
	if !sc.done() {
		if m, ok = sc.num(2, 2); !ok || m > 59 {
			return 0, false
		}
	}
	off := h*MsPerHour + m*MsPerMinute
	if neg {
		off = -off
	}
	return off, true
}

func evalTimestampBefore(s string) (int64, bool) {
	sc := evScanner{s: s}
	days, ok := sc.date()
	if !ok {
		return 0, false
	}
	ms := days * MsPerDay
	if sc.done() {
		return ms, true
	}
	if !sc.lit(' ') && !sc.lit('T') {
		return 0, false
	}
	t, ok := sc.timeOfDay()
	if !ok {
		return 0, false
	}
	ms += t
	if !sc.done() {
		off, ok := sc.zone()
		if !ok || !sc.done() {
			return 0, false
		}
		ms -= off
	}
	return ms, true
}

func evalDateBefore(s string) (int64, bool) {
	sc := evScanner{s: s}
	d, ok := sc.date()
	return d, ok && sc.done()
}

func evalTimeBefore(s string) (int64, bool) {
	sc := evScanner{s: s}
	t, ok := sc.timeOfDay()
	return t, ok && sc.done()
}

// --- format (json, csv) ---

// fmDigitsAt reads exactly n digits of s at i.
func fmDigitsAt(s string, i, n int) (int64, bool) {
	if i+n > len(s) {
		return 0, false
	}
	var v int64
	for k := i; k < i+n; k++ {
		if s[k] < '0' || s[k] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[k]-'0')
	}
	return v, true
}

// fmDatePart reads yyyy-MM-dd at the start of s and returns the days
// since the epoch and the length read.
func fmDatePart(s string) (days int64, n int, err error) {
	// The year: four digits; more is beyond 9999.
	yl := 0
	for yl < len(s) && s[yl] >= '0' && s[yl] <= '9' {
		yl++
	}
	if yl > 4 {
		return 0, 0, fmt.Errorf("%q is beyond year 9999", clip(s))
	}
	y, ok1 := fmDigitsAt(s, 0, 4)
	m, ok2 := fmDigitsAt(s, 5, 2)
	d, ok3 := fmDigitsAt(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' {
		return 0, 0, errors.New("not a date")
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
	return DaysFromCivil(y, m, d), 10, nil
}

// fmTimePart reads HH:mm[:ss[.fffffffff]] at the start of s and returns
// milliseconds of the day (fractions beyond milliseconds are truncated) and
// the length read.
func fmTimePart(s string) (ms int64, n int, err error) {
	h, ok1 := fmDigitsAt(s, 0, 2)
	mi, ok2 := fmDigitsAt(s, 3, 2)
	if !ok1 || !ok2 || s[2] != ':' {
		return 0, 0, errors.New("not a time")
	}
	n = 5
	var sec, frac int64
	if n < len(s) && s[n] == ':' {
		v, ok := fmDigitsAt(s, n+1, 2)
		if !ok {
			return 0, 0, errors.New("not a time")
		}
		sec = v
		n += 3
		if n < len(s) && s[n] == '.' {
			n++
			start := n
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				if n-start < 3 {
					frac = frac*10 + int64(s[n]-'0')
				}
				n++
			}
			if n == start || n-start > 9 {
				return 0, 0, errors.New("a fraction of a second has 1 to 9 digits")
			}
			for k := n - start; k < 3; k++ {
				frac *= 10
			}
		}
	}
	if h > 23 || mi > 59 || sec > 59 {
		return 0, 0, fmt.Errorf("%q is not a valid time of day", clip(s))
	}
	return h*MsPerHour + mi*MsPerMinute + sec*MsPerSecond + frac, n, nil
}

// formatDateBefore reads 'yyyy-MM-dd' and returns days since 1970-01-01.
func formatDateBefore(s string) (int64, error) {
	d, n, err := fmDatePart(s)
	if err == nil && n != len(s) {
		err = errors.New("not a date")
	}
	if err != nil {
		if err.Error() == "not a date" {
			return 0, errors.New("expected a date 'yyyy-MM-dd'")
		}
		return 0, err
	}
	return d, nil
}

// formatTimeBefore reads 'HH:mm[:ss[.fff]]' and returns milliseconds of the day.
func formatTimeBefore(s string) (int64, error) {
	ms, n, err := fmTimePart(s)
	if err == nil && n != len(s) {
		err = errors.New("not a time")
	}
	if err != nil {
		return 0, fmt.Errorf("expected a time 'HH:mm:ss[.fff]': %w", err)
	}
	return ms, nil
}

// formatTimestampBefore reads 'yyyy-MM-dd HH:mm[:ss[.f...]]' or ISO-8601
// 'yyyy-MM-ddTHH:mm[:ss[.f...]][Z|±hh[:mm]]' and returns milliseconds since
// the epoch, UTC. An offset is applied (the result is the UTC instant);
// without one the text is read as UTC. Fractions beyond milliseconds are
// truncated. Years outside 1..9999 are an error.
func formatTimestampBefore(s string) (int64, error) {
	days, n, err := fmDatePart(s)
	if err != nil {
		if err.Error() == "not a date" {
			return 0, fmt.Errorf("expected a timestamp %s", TimestampHint)
		}
		return 0, err
	}
	if n >= len(s) || (s[n] != ' ' && s[n] != 'T' && s[n] != 't') {
		return 0, fmt.Errorf("expected a timestamp %s (the time of day is missing)", TimestampHint)
	}
	n++
	tod, m, err := fmTimePart(s[n:])
	if err != nil {
		if err.Error() == "not a time" {
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
			oh, ok := fmDigitsAt(s, n+1, 2)
			if !ok {
				return 0, fmt.Errorf("expected a time zone offset ±hh:mm in %q", clip(s))
			}
			n += 3
			var om int64
			if n < len(s) && s[n] == ':' {
				n++
			}
			if n < len(s) {
				v, ok := fmDigitsAt(s, n, 2)
				if !ok {
					return 0, fmt.Errorf("expected a time zone offset ±hh:mm in %q", clip(s))
				}
				om = v
				n += 2
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

// --- eval's writers (CAST to STRING) ---

func evAppendPad(b []byte, v int64, width int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var tmp [20]byte
	d := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(d); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, d...)
}

func evalAppendDateBefore(b []byte, days int64) []byte {
	y, m, d := FromDays(days)
	b = evAppendPad(b, y, 4)
	b = append(b, '-')
	b = evAppendPad(b, m, 2)
	b = append(b, '-')
	return evAppendPad(b, d, 2)
}

func evalAppendTimeBefore(b []byte, ms int64, precision int) []byte {
	b = evAppendPad(b, ms/MsPerHour, 2)
	b = append(b, ':')
	b = evAppendPad(b, ms/MsPerMinute%60, 2)
	b = append(b, ':')
	b = evAppendPad(b, ms/MsPerSecond%60, 2)
	if precision > 0 {
		b = append(b, '.')
		frac := ms % 1000
		digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for i := 0; i < precision; i++ {
			if i < 3 {
				b = append(b, digits[i])
			} else {
				b = append(b, '0')
			}
		}
	}
	return b
}

func evalAppendTimestampBefore(b []byte, ms int64, precision int) []byte {
	days := floorDiv(ms, MsPerDay)
	b = evalAppendDateBefore(b, days)
	b = append(b, ' ')
	return evalAppendTimeBefore(b, ms-days*MsPerDay, precision)
}

// --- format's writers (json, csv, print) ---

// formatAppendDateBefore appends days since the epoch as 'yyyy-MM-dd'.
func formatAppendDateBefore(b []byte, days int64) []byte {
	y, m, d := FromDays(days)
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	switch {
	case y < 10:
		b = append(b, "000"...)
	case y < 100:
		b = append(b, "00"...)
	case y < 1000:
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, y, 10)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	return append2(b, d)
}

// formatAppendTimeBefore appends milliseconds of the day as 'HH:mm:ss' with precision
// fraction digits (at most milliseconds are known; further digits are 0).
func formatAppendTimeBefore(b []byte, ms int64, precision int) []byte {
	ms %= MsPerDay
	if ms < 0 {
		ms += MsPerDay
	}
	b = append2(b, ms/MsPerHour)
	b = append(b, ':')
	b = append2(b, ms/MsPerMinute%60)
	b = append(b, ':')
	b = append2(b, ms/MsPerSecond%60)
	if precision > 0 {
		frac := ms % MsPerSecond
		b = append(b, '.')
		digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for k := 0; k < precision; k++ {
			if k < 3 {
				b = append(b, digits[k])
			} else {
				b = append(b, '0')
			}
		}
	}
	return b
}

// formatAppendTimestampBefore appends milliseconds since the epoch as
// 'yyyy-MM-dd HH:mm:ss[.fff]' with precision fraction digits; sep is the
// separator between date and time (' ' or 'T').
func formatAppendTimestampBefore(b []byte, ms int64, precision int, sep byte) []byte {
	days := ms / MsPerDay
	if ms%MsPerDay < 0 {
		days--
	}
	b = formatAppendDateBefore(b, days)
	b = append(b, sep)
	return formatAppendTimeBefore(b, ms-days*MsPerDay, precision)
}
