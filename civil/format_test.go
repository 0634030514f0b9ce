package civil

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/streamsql/streamsql/row"
)

// TestAppendAgainstBefore checks the writers against eval's and format's
// that they replaced, over years far outside 1..9999 too, and against Go's
// time package and ParseTimestamp inside it.
func TestAppendAgainstBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	span := int64(20_000) * 365 * MsPerDay // years about -18000 to 22000
	for i := range 200_000 {
		ms := r.Int64N(2*span) - span
		if i%4 == 0 {
			ms = row.MinMillis + r.Int64N(row.MaxMillis-row.MinMillis+1)
		}
		p := r.IntN(10)
		got := string(AppendTimestamp(nil, ms, p, ' '))
		if f := string(formatAppendTimestampBefore(nil, ms, p, ' ')); got != f {
			t.Fatalf("AppendTimestamp(%d, %d) = %q; format's said %q", ms, p, got, f)
		}
		if e := string(evalAppendTimestampBefore(nil, ms, p)); got != e {
			t.Fatalf("AppendTimestamp(%d, %d) = %q; eval's said %q", ms, p, got, e)
		}
		days := floorDiv(ms, MsPerDay)
		if d, e := string(AppendDate(nil, days)), string(evalAppendDateBefore(nil, days)); d != e {
			t.Fatalf("AppendDate(%d) = %q; eval's said %q", days, d, e)
		}
		tod := ms - days*MsPerDay
		if a, e := string(AppendTime(nil, tod, p)), string(evalAppendTimeBefore(nil, tod, p)); a != e {
			t.Fatalf("AppendTime(%d, %d) = %q; eval's said %q", tod, p, a, e)
		}
		if ms < row.MinMillis || ms > row.MaxMillis {
			continue
		}
		if want := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000"); string(AppendTimestamp(nil, ms, 3, 'T')) != want {
			t.Fatalf("AppendTimestamp(%d) = %q; time says %q", ms, AppendTimestamp(nil, ms, 3, 'T'), want)
		}
		if back, err := ParseTimestamp(got, Strict); err != nil || p >= 3 && back != ms {
			t.Fatalf("ParseTimestamp(AppendTimestamp(%d, %d) = %q) = %d, %v", ms, p, got, back, err)
		}
	}
}

func TestAppendEdges(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{string(AppendTimestamp(nil, row.MinMillis, 0, 'T')), "0001-01-01T00:00:00"},
		{string(AppendTimestamp(nil, row.MaxMillis, 3, ' ')), "9999-12-31 23:59:59.999"},
		{string(AppendTimestamp(nil, -1, 6, ' ')), "1969-12-31 23:59:59.999000"},
		{string(AppendDate(nil, DaysFromCivil(0, 1, 1))), "0000-01-01"},
		{string(AppendDate(nil, DaysFromCivil(-5, 3, 1))), "-0005-03-01"},
		{string(AppendDate(nil, DaysFromCivil(12345, 6, 7))), "12345-06-07"},
		{string(AppendTime(nil, -1, 1)), "23:59:59.9"}, // modulo a day
		{string(AppendTime(nil, MsPerDay+1500, 2)), "00:00:01.50"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
