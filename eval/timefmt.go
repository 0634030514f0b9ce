package eval

import (
	"strconv"
)

const (
	msPerSecond = 1000
	msPerMinute = 60 * msPerSecond
	msPerHour   = 60 * msPerMinute
	msPerDay    = 24 * msPerHour
)

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// fields is a timestamp broken down, in UTC.
type fields struct {
	y, mo, d, h, mi, s, ms int64
}

func split(ms int64) fields {
	days := floorDiv(ms, msPerDay)
	rem := ms - days*msPerDay
	y, mo, d := civilFromDays(days)
	return fields{y: y, mo: mo, d: d, h: rem / msPerHour, mi: rem / msPerMinute % 60, s: rem / msPerSecond % 60, ms: rem % 1000}
}

func (f fields) millis() int64 {
	return daysFromCivil(f.y, f.mo, f.d)*msPerDay + f.h*msPerHour + f.mi*msPerMinute + f.s*msPerSecond + f.ms
}

// addMonths adds months to a timestamp, keeping the time of day and clamping
// the day to the end of a shorter month (2026-01-31 + 1 month is
// 2026-02-28), as Flink does.
func addMonths(ms, months int64) int64 {
	f := split(ms)
	t := f.y*12 + f.mo - 1 + months
	f.y, f.mo = floorDiv(t, 12), floorMod(t, 12)+1
	f.d = min(f.d, daysIn(f.y, f.mo))
	return f.millis()
}

func appendPad(b []byte, v int64, width int) []byte {
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

func appendDate(b []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	b = appendPad(b, y, 4)
	b = append(b, '-')
	b = appendPad(b, m, 2)
	b = append(b, '-')
	return appendPad(b, d, 2)
}

// appendTimeOfDay renders milliseconds of the day as HH:mm:ss with
// precision fractional digits (beyond 3 they are zeros).
func appendTimeOfDay(b []byte, ms int64, precision int) []byte {
	b = appendPad(b, ms/msPerHour, 2)
	b = append(b, ':')
	b = appendPad(b, ms/msPerMinute%60, 2)
	b = append(b, ':')
	b = appendPad(b, ms/msPerSecond%60, 2)
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

func appendTimestamp(b []byte, ms int64, precision int) []byte {
	days := floorDiv(ms, msPerDay)
	b = appendDate(b, days)
	b = append(b, ' ')
	return appendTimeOfDay(b, ms-days*msPerDay, precision)
}

// scanner reads digits from a string.
type scanner struct {
	s string
	i int
}

// num reads between lo and hi digits.
func (sc *scanner) num(lo, hi int) (int64, bool) {
	start := sc.i
	var v int64
	for sc.i < len(sc.s) && sc.i-start < hi && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		v = v*10 + int64(sc.s[sc.i]-'0')
		sc.i++
	}
	return v, sc.i-start >= lo
}

func (sc *scanner) lit(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

func (sc *scanner) done() bool { return sc.i == len(sc.s) }

// date reads yyyy-M[M]-d[d].
func (sc *scanner) date() (int64, bool) {
	y, ok := sc.num(4, 4)
	if !ok || !sc.lit('-') {
		return 0, false
	}
	m, ok := sc.num(1, 2)
	if !ok || !sc.lit('-') || m < 1 || m > 12 {
		return 0, false
	}
	d, ok := sc.num(1, 2)
	if !ok || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// timeOfDay reads H[H]:m[m][:s[s][.fraction]] into milliseconds; digits
// beyond milliseconds are truncated.
func (sc *scanner) timeOfDay() (int64, bool) {
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
	return h*msPerHour + mi*msPerMinute + s*msPerSecond + ms, true
}

// zone reads Z, +HH, +HH:mm or +HHmm (or -) and returns its offset from UTC
// in milliseconds.
func (sc *scanner) zone() (int64, bool) {
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
	off := h*msPerHour + m*msPerMinute
	if neg {
		off = -off
	}
	return off, true
}

// ParseTimestamp parses 'yyyy-MM-dd HH:mm:ss[.SSS]', its ISO-8601 form
// 'yyyy-MM-ddTHH:mm:ss[.SSS]', either with a zone ('Z', '+02:00'), or a
// date alone, into milliseconds since 1970-01-01 UTC. The seconds may be
// left out ('yyyy-MM-dd HH:mm'); fractional digits beyond milliseconds are
// truncated. A zone offset is applied (the result is UTC); without one the
// text is read as UTC, which is also streamsql's local time zone for now.
func ParseTimestamp(s string) (int64, error) {
	ms, ok := parseTimestamp(s)
	if !ok {
		return 0, errorf(ErrInvalidCast, "invalid TIMESTAMP '%s': expected 'yyyy-MM-dd HH:mm:ss[.SSS]' or ISO-8601", s)
	}
	return ms, nil
}

func parseTimestamp(s string) (int64, bool) {
	sc := scanner{s: s}
	days, ok := sc.date()
	if !ok {
		return 0, false
	}
	ms := days * msPerDay
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

func parseDate(s string) (int64, bool) {
	sc := scanner{s: s}
	d, ok := sc.date()
	return d, ok && sc.done()
}

func parseTime(s string) (int64, bool) {
	sc := scanner{s: s}
	t, ok := sc.timeOfDay()
	return t, ok && sc.done()
}
