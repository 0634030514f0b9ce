package eval

import (
	"strconv"

	"github.com/streamsql/streamsql/civil"
)

const (
	msPerSecond = civil.MsPerSecond
	msPerMinute = civil.MsPerMinute
	msPerHour   = civil.MsPerHour
	msPerDay    = civil.MsPerDay
)

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// fields is a timestamp broken down, in UTC.
type fields struct {
	y, mo, d, h, mi, s, ms int64
}

func split(ms int64) fields {
	days := floorDiv(ms, msPerDay)
	rem := ms - days*msPerDay
	y, mo, d := civil.FromDays(days)
	return fields{y: y, mo: mo, d: d, h: rem / msPerHour, mi: rem / msPerMinute % 60, s: rem / msPerSecond % 60, ms: rem % 1000}
}

func (f fields) millis() int64 {
	return civil.DaysFromCivil(f.y, f.mo, f.d)*msPerDay + f.h*msPerHour + f.mi*msPerMinute + f.s*msPerSecond + f.ms
}

// addMonths adds months to a timestamp, keeping the time of day and clamping
// the day to the end of a shorter month (2026-01-31 + 1 month is
// 2026-02-28), as Flink does.
func addMonths(ms, months int64) int64 {
	f := split(ms)
	t := f.y*12 + f.mo - 1 + months
	f.y, f.mo = floorDiv(t, 12), floorMod(t, 12)+1
	f.d = min(f.d, civil.DaysIn(f.y, f.mo))
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

// ParseTimestamp parses a timestamp as CAST does (civil.Lenient):
// 'yyyy-MM-dd HH:mm:ss[.SSS]', its ISO-8601 form 'yyyy-MM-ddTHH:mm:ss[.SSS]',
// either with a zone ('Z', '+02:00'), or a date alone, into milliseconds
// since 1970-01-01 UTC. Month, day, hour, minute and second may have one
// digit, and the seconds may be left out ('yyyy-MM-dd HH:mm'); fractional
// digits beyond milliseconds are truncated. A zone offset is applied (the
// result is UTC); without one the text is read as UTC, which is also
// streamsql's local time zone for now. Years outside 1..9999 are an error.
func ParseTimestamp(s string) (int64, error) {
	ms, ok := parseTimestamp(s)
	if !ok {
		return 0, errorf(ErrInvalidCast, "invalid TIMESTAMP '%s': expected 'yyyy-MM-dd HH:mm:ss[.SSS]' or ISO-8601", s)
	}
	return ms, nil
}

func parseTimestamp(s string) (int64, bool) {
	ms, err := civil.ParseTimestamp(s, civil.Lenient)
	return ms, err == nil
}

func parseDate(s string) (int64, bool) {
	d, err := civil.ParseDate(s, civil.Lenient)
	return d, err == nil
}

func parseTime(s string) (int64, bool) {
	t, err := civil.ParseTime(s, civil.Lenient)
	return t, err == nil
}
