package eval

import (
	"strings"

	"github.com/streamsql/streamsql/civil"
)

// Date-time patterns are Java's, in the two dialects Flink uses (see
// DateTimeUtils in Flink):
//
//   - java.time.format.DateTimeFormatter (dtf): DATE_FORMAT of a TIMESTAMP,
//     TO_TIMESTAMP(string, format);
//   - java.text.SimpleDateFormat (sdf): DATE_FORMAT of a string,
//     FROM_UNIXTIME, UNIX_TIMESTAMP(string, format), TO_DATE(string, format).
//
// Both are read in the en_US locale (English names; weeks start on Sunday
// and week 1 is the week of January 1st, which decides Y, w, W, e and c)
// and in UTC, streamsql's only time zone. A pattern is compiled once; a
// letter or a count the dialect does not allow is an error at compile
// time, which `check` reports for a constant pattern, so what check accepts
// formats at run time. Parsing supports the fields that name a point in
// time: y u M L d D H k K h a m s S E and literals; the others (week
// fields, quarters, zones) are refused for parsing at compile time.
//
// Letters, as formatted (n is the number of repetitions):
//
//	G era (AD)             y year of era          u dtf: year; sdf: day of week, Monday 1
//	Y week-based year      M L month (1-2 digits, 3 Jan, 4 January, 5 J)
//	w week of week-year    W week of month        D day of year    d day of month
//	F sdf: day of week in month                   E day name (1-3 Sun, 4 Sunday, 5 S)
//	e c dtf: day of week, Sunday 1 (1-2 digits, 3+ as E)
//	Q q dtf: quarter (1-2 digits, 3 Q1, 4 1st quarter)
//	a AM/PM   H 0-23   k 1-24   K 0-11   h 1-12   m minute   s second
//	S dtf: fraction of second, n digits; sdf: milliseconds as a number
//	A dtf: milli of day    n dtf: nano of second  N dtf: nano of day
//	z Z X sdf: the zone (UTC, +0000, Z); dtf: refused (a TIMESTAMP has no zone)
//
// 'text' is a literal ('' a quote); other characters stand for themselves,
// except that dtf reserves # { } and reads [ ] as an optional section (its
// contents are always printed: every field is available).

type dialect uint8

const (
	dtf dialect = iota // java.time.format.DateTimeFormatter
	sdf                // java.text.SimpleDateFormat
)

func (d dialect) String() string {
	if d == sdf {
		return "SimpleDateFormat"
	}
	return "DateTimeFormatter"
}

// A pattern is a compiled date-time format.
type pattern struct {
	d    dialect
	toks []patTok
	text string
}

type patTok struct {
	field byte // 0 for a literal
	n     int  // repetitions
	lit   string
}

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"}

var dayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// DefaultFormat is the format of DATE_FORMAT, FROM_UNIXTIME and
// UNIX_TIMESTAMP when none is given.
const DefaultFormat = "yyyy-MM-dd HH:mm:ss"

// maxCount is the most repetitions DateTimeFormatter allows of a letter
// (0: any). SimpleDateFormat allows any.
var maxCount = map[byte]int{'G': 5, 'M': 5, 'L': 5, 'd': 2, 'D': 3, 'H': 2, 'k': 2, 'K': 2, 'h': 2, 'm': 2, 's': 2,
	'a': 1, 'E': 5, 'e': 5, 'c': 5, 'Q': 5, 'q': 5, 'w': 2, 'W': 1}

// letters each dialect knows.
var dialectLetters = [...]string{
	dtf: "GyuYMLwWDdEecQqaHkKhmsSAnN",
	sdf: "GyYMLwWDdFEuaHkKhmsSzZX",
}

// parseLetters are the letters a pattern may have for parsing.
const parseLetters = "yuMLdDHkKhamsSE"

// compilePattern compiles p in dialect d; forParse also refuses letters
// that cannot be parsed.
func compilePattern(p string, d dialect, forParse bool) (pattern, error) {
	out := pattern{d: d, text: p}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			var lit strings.Builder
			for {
				if j >= len(p) {
					return pattern{}, errorf(ErrInvalidArgument, "unterminated quote in date format '%s'", p)
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(p[j])
				j++
			}
			if j == i+1 {
				out.toks = append(out.toks, patTok{lit: "'"})
			} else {
				out.toks = append(out.toks, patTok{lit: lit.String()})
			}
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			n := j - i
			switch {
			case (c == 'z' || c == 'Z' || c == 'X' || c == 'x' || c == 'O' || c == 'V' || c == 'v') && d == dtf:
				return pattern{}, errorf(ErrInvalidArgument, "date format '%s': letter '%c' is a time zone, and a TIMESTAMP has none here (streamsql's time zone is UTC): quote it as a literal ('Z') or leave it out", p, c)
			case !strings.ContainsRune(dialectLetters[d], rune(c)):
				return pattern{}, errorf(ErrInvalidArgument, "date format '%s': unknown pattern letter '%c' for Java's %s", p, c, d)
			case d == dtf && maxCount[c] > 0 && n > maxCount[c] || d == dtf && c == 'c' && n == 2:
				return pattern{}, errorf(ErrInvalidArgument, "date format '%s': too many pattern letters '%c' for Java's %s", p, c, d)
			case forParse && !strings.ContainsRune(parseLetters, rune(c)):
				return pattern{}, errorf(ErrInvalidArgument, "date format '%s': letter '%c' cannot be parsed here: streamsql parses y M d D H h k K a m s S E and literals", p, c)
			}
			out.toks = append(out.toks, patTok{field: c, n: n})
			i = j
		case d == dtf && (c == '#' || c == '{' || c == '}'):
			return pattern{}, errorf(ErrInvalidArgument, "date format '%s': '%c' is reserved in Java's DateTimeFormatter; quote it ('%c')", p, c, c)
		case d == dtf && (c == '[' || c == ']'):
			// An optional section: every field is there, so it prints.
			if forParse {
				return pattern{}, errorf(ErrInvalidArgument, "date format '%s': optional sections [ ] cannot be parsed here", p)
			}
			i++
		default:
			out.toks = append(out.toks, patTok{lit: string(c)})
			i++
		}
	}
	return out, nil
}

// weekStart is the first day (days since the epoch) of week 1 of week-based
// year y in en_US: the Sunday on or before January 1st.
func weekStart(y int64) int64 {
	jan1 := civil.DaysFromCivil(y, 1, 1)
	return jan1 - sunday0(jan1)
}

// sunday0 is the day of the week of a day, Sunday 0 .. Saturday 6.
func sunday0(days int64) int64 { return floorMod(days+4, 7) }

// weekFields returns the week-based year and the week of a day (en_US).
func weekFields(days int64, y int64) (int64, int64) {
	if next := weekStart(y + 1); days >= next {
		return y + 1, 1
	}
	return y, (days-weekStart(y))/7 + 1
}

func appendYear(b []byte, y int64, n int) []byte {
	if n == 2 {
		return appendPad(b, floorMod(y, 100), 2)
	}
	return appendPad(b, y, n)
}

func appendText(b []byte, name string, n, full int) []byte {
	switch {
	case n >= full+1 && full == 4: // 5: narrow
		return append(b, name[:1]...)
	case n >= full:
		return append(b, name...)
	}
	return append(b, name[:3]...)
}

func (p pattern) format(ms int64) string {
	f := split(ms)
	days := floorDiv(ms, msPerDay)
	dow := sunday0(days)
	var buf [64]byte
	b := buf[:0]
	for _, t := range p.toks {
		n := t.n
		switch t.field {
		case 0:
			b = append(b, t.lit...)
		case 'G':
			era := "AD"
			if f.y <= 0 {
				era = "BC"
			}
			switch {
			case p.d == dtf && n == 4:
				era = map[string]string{"AD": "Anno Domini", "BC": "Before Christ"}[era]
			case p.d == dtf && n == 5:
				era = era[:1]
			}
			b = append(b, era...)
		case 'y':
			y := f.y
			if y <= 0 {
				y = 1 - y
			}
			b = appendYear(b, y, n)
		case 'u':
			if p.d == sdf {
				b = appendPad(b, floorMod(dow-1, 7)+1, n)
			} else {
				b = appendYear(b, f.y, n)
			}
		case 'Y':
			wy, _ := weekFields(days, f.y)
			b = appendYear(b, wy, n)
		case 'M', 'L':
			switch {
			case n <= 2:
				b = appendPad(b, f.mo, n)
			case p.d == dtf:
				b = appendText(b, monthNames[f.mo-1], n, 4)
			default:
				b = appendText(b, monthNames[f.mo-1], min(n, 4), 4)
			}
		case 'w':
			_, w := weekFields(days, f.y)
			b = appendPad(b, w, n)
		case 'W':
			first := sunday0(days - f.d + 1)
			b = appendPad(b, (f.d-1+first)/7+1, n)
		case 'D':
			b = appendPad(b, days-civil.DaysFromCivil(f.y, 1, 1)+1, n)
		case 'd':
			b = appendPad(b, f.d, n)
		case 'F':
			b = appendPad(b, (f.d-1)/7+1, n)
		case 'E':
			if p.d == dtf {
				b = appendText(b, dayNames[dow], n, 4)
			} else {
				b = appendText(b, dayNames[dow], min(n, 4), 4)
			}
		case 'e', 'c':
			if n <= 2 {
				b = appendPad(b, dow+1, n)
			} else {
				b = appendText(b, dayNames[dow], n, 4)
			}
		case 'Q', 'q':
			q := (f.mo-1)/3 + 1
			switch n {
			case 1, 2:
				b = appendPad(b, q, n)
			case 3:
				b = append(b, 'Q')
				b = appendPad(b, q, 1)
			case 4:
				b = append(b, [...]string{"1st", "2nd", "3rd", "4th"}[q-1]...)
				b = append(b, " quarter"...)
			default:
				b = appendPad(b, q, 1)
			}
		case 'a':
			if f.h < 12 {
				b = append(b, "AM"...)
			} else {
				b = append(b, "PM"...)
			}
		case 'H':
			b = appendPad(b, f.h, n)
		case 'k':
			h := f.h
			if h == 0 {
				h = 24
			}
			b = appendPad(b, h, n)
		case 'K':
			b = appendPad(b, f.h%12, n)
		case 'h':
			h := f.h % 12
			if h == 0 {
				h = 12
			}
			b = appendPad(b, h, n)
		case 'm':
			b = appendPad(b, f.mi, n)
		case 's':
			b = appendPad(b, f.s, n)
		case 'S':
			if p.d == sdf {
				b = appendPad(b, f.ms, n)
				break
			}
			digits := [3]byte{byte('0' + f.ms/100), byte('0' + f.ms/10%10), byte('0' + f.ms%10)}
			for i := 0; i < n; i++ {
				if i < 3 {
					b = append(b, digits[i])
				} else {
					b = append(b, '0')
				}
			}
		case 'A':
			b = appendPad(b, ms-days*msPerDay, n)
		case 'n':
			b = appendPad(b, f.ms*1_000_000, n)
		case 'N':
			b = appendPad(b, (ms-days*msPerDay)*1_000_000, n)
		case 'z':
			if n >= 4 {
				b = append(b, "Coordinated Universal Time"...)
			} else {
				b = append(b, "UTC"...)
			}
		case 'Z':
			b = append(b, "+0000"...)
		case 'X':
			b = append(b, 'Z')
		}
	}
	return string(b)
}

// parse reads s according to p. Fields left out default to 1970-01-01
// 00:00:00.000. A single letter reads one or more digits, a repeated one
// exactly that many (a year at least that many).
func (p pattern) parse(s string) (int64, bool) {
	f := fields{y: 1970, mo: 1, d: 1}
	doy := int64(-1)
	pm, h12 := -1, false
	sc := scanner{s: s}
	for _, t := range p.toks {
		if t.field == 0 {
			if !strings.HasPrefix(s[sc.i:], t.lit) {
				return 0, false
			}
			sc.i += len(t.lit)
			continue
		}
		switch {
		case (t.field == 'M' || t.field == 'L') && t.n >= 3:
			i, ok := sc.name(monthNames[:], t.n == 3)
			if !ok {
				return 0, false
			}
			f.mo = int64(i + 1)
			continue
		case t.field == 'E':
			if _, ok := sc.name(dayNames[:], t.n <= 3); !ok {
				return 0, false
			}
			continue
		case t.field == 'a':
			i, ok := sc.name([]string{"AM", "PM"}, false)
			if !ok {
				return 0, false
			}
			pm = i
			continue
		}
		lo, hi := t.n, t.n
		if t.n == 1 {
			hi = 2
		}
		switch t.field {
		case 'y', 'u':
			if t.n != 2 {
				hi = max(t.n, 4)
			}
		case 'D':
			hi = max(t.n, 3)
		case 'S':
			if t.n == 1 && p.d == sdf {
				hi = 3
			}
		}
		v, ok := sc.num(lo, hi)
		if !ok {
			return 0, false
		}
		switch t.field {
		case 'y', 'u':
			if t.n == 2 {
				v += 2000
			}
			f.y = v
		case 'M', 'L':
			f.mo = v
		case 'd':
			f.d = v
		case 'D':
			doy = v
		case 'H':
			f.h = v
		case 'k':
			f.h = v % 24
		case 'K', 'h':
			f.h, h12 = v%12, true
		case 'm':
			f.mi = v
		case 's':
			f.s = v
		case 'S':
			if p.d == sdf {
				f.ms = v
				break
			}
			for n := t.n; n > 3; n-- {
				v /= 10
			}
			for n := t.n; n < 3; n++ {
				v *= 10
			}
			f.ms = v
		}
	}
	if pm == 1 && h12 {
		f.h += 12
	}
	if doy >= 0 {
		if doy < 1 || doy > 366 || doy == 366 && !civil.IsLeap(f.y) {
			return 0, false
		}
		f.mo, f.d = 1, 1
		ms := f.millis() + (doy-1)*msPerDay
		return ms, sc.done() && f.h <= 23 && f.mi <= 59 && f.s <= 59 && f.ms <= 999
	}
	if !sc.done() || f.mo < 1 || f.mo > 12 || f.d < 1 || f.d > civil.DaysIn(f.y, f.mo) || f.h > 23 || f.mi > 59 || f.s > 59 || f.ms > 999 {
		return 0, false
	}
	return f.millis(), true
}

// name reads one of names (ignoring case), whole or as its first three
// letters when short, and returns its index.
func (sc *scanner) name(names []string, short bool) (int, bool) {
	rest := sc.s[sc.i:]
	for i, n := range names {
		if short && len(n) > 3 {
			n = n[:3]
		}
		if len(rest) >= len(n) && strings.EqualFold(rest[:len(n)], n) {
			sc.i += len(n)
			return i, true
		}
	}
	return 0, false
}

// String returns the pattern's text, for messages.
func (p pattern) String() string { return p.text }

// TimestampParser compiles p, a java.time.format.DateTimeFormatter pattern,
// for parsing text into a TIMESTAMP (milliseconds, UTC), as Flink's
// partition time extractor reads 'partition.time-extractor.timestamp-formatter':
// a pattern without time fields gives midnight. The error says what in p is
// wrong.
func TimestampParser(p string) (func(string) (int64, bool), error) {
	pat, err := compilePattern(p, dtf, true)
	if err != nil {
		return nil, err
	}
	return pat.parse, nil
}
