package civil

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/row"
)

// res is a parse result: a value, or an error containing err.
type res struct {
	v   int64
	err string
}

func ok(v int64) res      { return res{v: v} }
func bad(msg string) res  { return res{err: msg} }
func (r res) isErr() bool { return r.err != "" }

func ms(y, mo, d, h, mi, s, milli int64) int64 {
	return DaysFromCivil(y, mo, d)*MsPerDay + h*MsPerHour + mi*MsPerMinute + s*MsPerSecond + milli
}

func got(v int64, err error) res {
	if err != nil {
		return res{err: err.Error()}
	}
	return ok(v)
}

func (r res) matches(g res) bool {
	if r.isErr() {
		return g.isErr() && strings.Contains(g.err, r.err)
	}
	return !g.isErr() && g.v == r.v
}

// before runs the parsers this package replaced: format's (Strict's
// predecessor, with its messages) and eval's (Lenient's, ok or not).
func before(kind, s string) (format, eval res) {
	var v int64
	var okE bool
	switch kind {
	case "timestamp":
		format = got(formatTimestampBefore(s))
		v, okE = evalTimestampBefore(s)
	case "date":
		format = got(formatDateBefore(s))
		v, okE = evalDateBefore(s)
	case "time":
		format = got(formatTimeBefore(s))
		v, okE = evalTimeBefore(s)
	}
	eval = ok(v)
	if !okE {
		eval = bad("!")
	}
	return format, eval
}

func parse(kind, s string, mode Mode) res {
	switch kind {
	case "timestamp":
		return got(ParseTimestamp(s, mode))
	case "date":
		return got(ParseDate(s, mode))
	}
	return got(ParseTime(s, mode))
}

// TestParse covers every shape either old parser accepted, and says where
// the merged one differs: formatWas and evalWas hold what format's and
// eval's parsers said where that is not what Strict and Lenient say now.
func TestParse(t *testing.T) {
	const anyErr = "" + "e" // any error: every message contains an "e"
	jan1 := ms(2024, 1, 1, 0, 0, 0, 0)
	tests := []struct {
		kind, in           string
		strict, lenient    res
		formatWas, evalWas *res
		why                string
	}{
		// Flink's literal and JSON forms.
		{kind: "timestamp", in: "2024-01-01 00:00:00.123", strict: ok(jan1 + 123), lenient: ok(jan1 + 123)},
		{kind: "timestamp", in: "2024-01-01T00:00:00Z", strict: ok(jan1), lenient: ok(jan1)},
		{kind: "timestamp", in: "2024-01-01T00:00:00z", strict: ok(jan1), lenient: ok(jan1)},
		{kind: "timestamp", in: "2024-01-01T00:00:00.5+02:00", strict: ok(jan1 + 500 - 2*MsPerHour), lenient: ok(jan1 + 500 - 2*MsPerHour)},
		{kind: "timestamp", in: "2024-01-01 00:00:00+0230", strict: ok(jan1 - 150*MsPerMinute), lenient: ok(jan1 - 150*MsPerMinute)},
		{kind: "timestamp", in: "2024-01-01 00:00:00-02", strict: ok(jan1 + 2*MsPerHour), lenient: ok(jan1 + 2*MsPerHour)},
		{kind: "timestamp", in: "2024-01-01 00:00:00+02:", strict: ok(jan1 - 2*MsPerHour), lenient: ok(jan1 - 2*MsPerHour)},
		{kind: "timestamp", in: "2024-01-01 00:00-18:00", strict: ok(jan1 + 18*MsPerHour), lenient: ok(jan1 + 18*MsPerHour)},
		{kind: "timestamp", in: "2024-01-01 00:00+19:00", strict: bad("time zone offset out of range"), lenient: bad("out of range")},
		{kind: "timestamp", in: "2024-01-01 00:00+2", strict: bad("expected a time zone offset"), lenient: bad("offset")},
		{kind: "timestamp", in: "2024-01-01 10:00", strict: ok(jan1 + 10*MsPerHour), lenient: ok(jan1 + 10*MsPerHour)},
		{kind: "timestamp", in: "2024-01-01 00:00:00.123456789", strict: ok(jan1 + 123), lenient: ok(jan1 + 123)},
		{kind: "timestamp", in: "2024-01-01 00:00:00.1234567890", strict: bad("1 to 9 digits"), lenient: bad("1 to 9 digits")},
		{kind: "timestamp", in: "2024-01-01 00:00:00.", strict: bad("1 to 9 digits"), lenient: bad("1 to 9 digits")},
		{kind: "timestamp", in: "1969-12-31 23:59:59.999", strict: ok(-1), lenient: ok(-1)},
		{kind: "timestamp", in: "2024-02-29 12:00:00", strict: ok(ms(2024, 2, 29, 12, 0, 0, 0)), lenient: ok(ms(2024, 2, 29, 12, 0, 0, 0))},
		{kind: "timestamp", in: "9999-12-31 23:59:59.999", strict: ok(row.MaxMillis), lenient: ok(row.MaxMillis)},
		{kind: "timestamp", in: "0001-01-01 00:00:00", strict: ok(row.MinMillis), lenient: ok(row.MinMillis)},
		// Lenient: one-digit fields and a date alone, as Flink's CAST.
		{kind: "timestamp", in: "2024-1-5 3:04:05", strict: bad("expected a timestamp"), lenient: ok(ms(2024, 1, 5, 3, 4, 5, 0))},
		{kind: "timestamp", in: "2024-01-01 1:2", strict: bad("expected a timestamp"), lenient: ok(jan1 + MsPerHour + 2*MsPerMinute)},
		{kind: "timestamp", in: "2024-01-01", strict: bad("the time of day is missing"), lenient: ok(jan1)},
		// Changed: eval took no lowercase 't' (format did; RFC 3339 allows it).
		{kind: "timestamp", in: "2024-01-01t00:00:00", strict: ok(jan1), lenient: ok(jan1),
			evalWas: &res{err: "!"}, why: "CAST takes a lowercase t as the formats do"},
		// Changed: eval had no range; years 0 and 10000 came out of CAST.
		{kind: "timestamp", in: "0000-01-01 00:00:00", strict: bad("before year 1"), lenient: bad("before year 1"),
			evalWas: &res{v: ms(0, 1, 1, 0, 0, 0, 0)}, why: "a time before year 1 is an error in CAST too"},
		{kind: "timestamp", in: "0001-01-01 00:00:00+00:01", strict: bad("before year 1"), lenient: bad("before year 1"),
			evalWas: &res{v: row.MinMillis - MsPerMinute}, why: "an offset cannot take CAST below year 1"},
		{kind: "timestamp", in: "9999-12-31 23:59:59.999-00:01", strict: bad("beyond year 9999"), lenient: bad("beyond year 9999"),
			evalWas: &res{v: row.MaxMillis + MsPerMinute}, why: "nor beyond 9999"},
		{kind: "timestamp", in: "10000-01-01 00:00:00", strict: bad("beyond year 9999"), lenient: bad("beyond year 9999")},
		{kind: "timestamp", in: "2023-02-29 00:00:00", strict: bad("no day 29 in that month"), lenient: bad("no day 29")},
		{kind: "timestamp", in: "2024-13-01 00:00:00", strict: bad("has month 13"), lenient: bad("month 13")},
		{kind: "timestamp", in: "2024-00-01 00:00:00", strict: bad("has month 0"), lenient: bad("month 0")},
		{kind: "timestamp", in: "2024-01-01 24:00:00", strict: bad("not a valid time of day"), lenient: bad("time of day")},
		{kind: "timestamp", in: "2024-01-01 00:60", strict: bad("not a valid time of day"), lenient: bad("time of day")},
		{kind: "timestamp", in: "2024-01-01X00:00:00", strict: bad("the time of day is missing"), lenient: bad("missing")},
		{kind: "timestamp", in: "2024-01-01 00:00:00 UTC", strict: bad("got trailing text"), lenient: bad("trailing")},
		{kind: "timestamp", in: "1767225600", strict: bad("beyond year 9999"), lenient: bad("beyond year 9999")},
		{kind: "timestamp", in: "", strict: bad("expected a timestamp"), lenient: bad("expected a timestamp")},
		{kind: "timestamp", in: " 2024-01-01 00:00", strict: bad("expected a timestamp"), lenient: bad(anyErr)},
		{kind: "date", in: "2024-02-29", strict: ok(DaysFromCivil(2024, 2, 29)), lenient: ok(DaysFromCivil(2024, 2, 29))},
		{kind: "date", in: "2024-2-9", strict: bad("expected a date 'yyyy-MM-dd'"), lenient: ok(DaysFromCivil(2024, 2, 9))},
		{kind: "date", in: "9999-12-31", strict: ok(DaysFromCivil(9999, 12, 31)), lenient: ok(DaysFromCivil(9999, 12, 31))},
		{kind: "date", in: "0000-12-31", strict: bad("before year 1"), lenient: bad("before year 1"),
			evalWas: &res{v: DaysFromCivil(0, 12, 31)}, why: "a date before year 1 is an error in CAST too"},
		{kind: "date", in: "2024-01-01 10:00", strict: bad("expected a date"), lenient: bad("expected a date")},
		{kind: "date", in: "2024-04-31", strict: bad("no day 31"), lenient: bad("no day 31")},
		{kind: "time", in: "10:00", strict: ok(10 * MsPerHour), lenient: ok(10 * MsPerHour)},
		{kind: "time", in: "23:59:59.999999999", strict: ok(MsPerDay - 1), lenient: ok(MsPerDay - 1)},
		{kind: "time", in: "1:2:3", strict: bad("not a time"), lenient: ok(MsPerHour + 2*MsPerMinute + 3*MsPerSecond)},
		{kind: "time", in: "24:00", strict: bad("not a valid time of day"), lenient: bad("time of day")},
		{kind: "time", in: "10:00:00.", strict: bad("1 to 9 digits"), lenient: bad("1 to 9 digits")},
		{kind: "time", in: "10:00:00Z", strict: bad("expected a time 'HH:mm:ss[.fff]'"), lenient: bad("expected a time")},
	}
	for _, tt := range tests {
		if g := parse(tt.kind, tt.in, Strict); !tt.strict.matches(g) {
			t.Errorf("%s %q Strict = %+v, want %+v", tt.kind, tt.in, g, tt.strict)
		}
		if g := parse(tt.kind, tt.in, Lenient); !tt.lenient.matches(g) {
			t.Errorf("%s %q Lenient = %+v, want %+v", tt.kind, tt.in, g, tt.lenient)
		}
		fw, ew := before(tt.kind, tt.in)
		wantF, wantE := tt.strict, tt.lenient
		if tt.formatWas != nil {
			wantF = *tt.formatWas
		}
		if tt.evalWas != nil {
			wantE = *tt.evalWas
		}
		if wantE.isErr() {
			wantE = bad("!") // eval's parser said only no
		}
		if !wantF.matches(fw) {
			t.Errorf("%s %q: format's parser said %+v; the table says %+v", tt.kind, tt.in, fw, wantF)
		}
		if !wantE.matches(ew) {
			t.Errorf("%s %q: eval's parser said %+v; the table says %+v", tt.kind, tt.in, ew, wantE)
		}
	}
}

// TestParseDifferential runs random text built from the pieces of both
// grammars through the old parsers and the new one. Strict must say
// exactly what format's parser said, messages included. Lenient must say
// what eval's said, except for the two changes TestParse lists: a
// lowercase 't' is taken, and a result outside years 1..9999 is an error.
func TestParseDifferential(t *testing.T) {
	pick := func(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }
	r := rand.New(rand.NewPCG(7, 11))
	seen := map[string]int{}
	for range 300_000 {
		var b strings.Builder
		kind := pick(r, "timestamp", "timestamp", "date", "time")
		if kind != "time" {
			b.WriteString(pick(r, "0000", "0001", "1969", "2024", "2023", "9999", "10000", "999", "20x4"))
			b.WriteString(pick(r, "-", "-", "-", "/"))
			b.WriteString(pick(r, "1", "01", "02", "12", "13", "0", "00", "012"))
			b.WriteString(pick(r, "-", "-", "-", ""))
			b.WriteString(pick(r, "1", "01", "29", "30", "31", "32", "0", "001"))
			if kind == "date" && r.IntN(4) > 0 {
				goto done
			}
			b.WriteString(pick(r, " ", "T", "t", "X", "", "  "))
		}
		b.WriteString(pick(r, "0", "00", "23", "24", "7", "123", ""))
		b.WriteString(pick(r, ":", ":", ":", ""))
		b.WriteString(pick(r, "0", "00", "59", "60", "5", ""))
		if r.IntN(3) > 0 {
			b.WriteString(pick(r, ":", ":", "."))
			b.WriteString(pick(r, "0", "00", "59", "60", "9", ""))
			b.WriteString(pick(r, "", "", ".", ".1", ".123", ".123456789", ".1234567890", ".12a"))
		}
		if kind == "timestamp" || r.IntN(8) == 0 {
			b.WriteString(pick(r, "", "", "Z", "z", "+02", "+02:30", "+0230", "-18:00", "+19", "+02:", "+2", " UTC", "+02:3", "-00:01", "Zx"))
		}
	done:
		s := b.String()
		fw, ew := before(kind, s)
		if g := parse(kind, s, Strict); g != fw {
			t.Fatalf("%s %q: Strict says %+v, format's parser said %+v", kind, s, g, fw)
		}
		g := parse(kind, s, Lenient)
		outOfRange := func(v int64) bool {
			if kind == "date" {
				return v < DaysFromCivil(1, 1, 1)
			}
			return v < row.MinMillis || v > row.MaxMillis
		}
		switch {
		case g.isErr() == ew.isErr() && (g.isErr() || g.v == ew.v):
			seen["same"]++
		case g.isErr() && !ew.isErr() && outOfRange(ew.v):
			seen["out of range"]++
		case !g.isErr() && ew.isErr() && kind == "timestamp" && strings.Contains(s, "t"):
			if v, ok := evalTimestampBefore(strings.Replace(s, "t", "T", 1)); !ok || v != g.v {
				t.Fatalf("%s %q: Lenient says %d; eval's parser with 'T' said %d, %v", kind, s, g.v, v, ok)
			}
			seen["lowercase t"]++
		default:
			t.Fatalf("%s %q: Lenient says %+v, eval's parser said %+v", kind, s, g, ew)
		}
		if !fw.isErr() {
			seen["accepted"]++
		}
	}
	t.Logf("cases: %v", seen)
	// The generator must reach every case, or the test proves less than it says.
	for _, c := range []string{"same", "out of range", "lowercase t", "accepted"} {
		if seen[c] < 100 {
			t.Errorf("only %d inputs in case %q: %v", seen[c], c, seen)
		}
	}
}

// TestParseAgainstTime formats random instants with Go's time package, in
// both layouts and random zones, and reads them back.
func TestParseAgainstTime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 100_000 {
		utc := time.UnixMilli(row.MinMillis + 20*MsPerHour + r.Int64N(row.MaxMillis-row.MinMillis-40*MsPerHour)).UTC()
		zone := time.FixedZone("", (r.IntN(37)-18)*3600+r.IntN(2)*1800)
		for _, layout := range []string{"2006-01-02 15:04:05.000", "2006-01-02T15:04:05.000000Z07:00", "2006-01-02T15:04:05.000-0700", "2006-01-02 15:04"} {
			tm := utc
			if strings.Contains(layout, "07") {
				tm = utc.In(zone)
			}
			s := tm.Format(layout)
			want := tm.Truncate(time.Millisecond).UnixMilli()
			if layout == "2006-01-02 15:04" {
				want = tm.Truncate(time.Minute).UnixMilli()
			}
			for _, mode := range []Mode{Strict, Lenient} {
				if got, err := ParseTimestamp(s, mode); err != nil || got != want {
					t.Fatalf("ParseTimestamp(%q, %d) = %d, %v; time says %d", s, mode, got, err, want)
				}
			}
		}
		if got, err := ParseDate(utc.Format("2006-01-02"), Strict); err != nil || got != floorDiv(utc.UnixMilli(), MsPerDay) {
			t.Fatalf("ParseDate(%q) = %d, %v", utc.Format("2006-01-02"), got, err)
		}
	}
}

// BenchmarkParseTimestamp compares ParseTimestamp with the parsers it
// replaced (go test -bench ParseTimestamp ./civil).
func BenchmarkParseTimestamp(b *testing.B) {
	const s = "2024-03-15T12:34:56.789+02:00"
	b.Run("Strict", func(b *testing.B) {
		for range b.N {
			if _, err := ParseTimestamp(s, Strict); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Lenient", func(b *testing.B) {
		for range b.N {
			if _, err := ParseTimestamp(s, Lenient); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("formatBefore", func(b *testing.B) {
		for range b.N {
			if _, err := formatTimestampBefore(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("evalBefore", func(b *testing.B) {
		for range b.N {
			if _, ok := evalTimestampBefore(s); !ok {
				b.Fatal(s)
			}
		}
	})
}
