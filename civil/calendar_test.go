package civil

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestCalendarAgainstTime checks both conversions against Go's time
// package: every 7th day from about year -220 to year 10180 (every day of
// years 1..9999 is in TestCalendarWalk), every day around the 400-year era
// boundaries near 0, and random days over a million years either side.
func TestCalendarAgainstTime(t *testing.T) {
	check := func(day int64) {
		t.Helper()
		want := time.Unix(day*86400, 0).UTC()
		y, m, d := FromDays(day)
		if y != int64(want.Year()) || m != int64(want.Month()) || d != int64(want.Day()) {
			t.Fatalf("FromDays(%d) = %d-%d-%d, time says %s", day, y, m, d, want.Format("2006-01-02"))
		}
		if back := DaysFromCivil(y, m, d); back != day {
			t.Fatalf("DaysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, back, day)
		}
	}
	for day := int64(-800_000); day <= 3_000_000; day += 7 {
		check(day)
	}
	for _, era := range []int64{-2, -1, 0, 1, 2} {
		start := DaysFromCivil(era*400, 3, 1)
		for day := start - 800; day <= start+800; day++ {
			check(day)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		check(r.Int64N(2*365_250_000) - 365_250_000)
	}
}

// TestCalendarWalk walks the calendar one day at a time from 0001-01-01
// to 9999-12-31, counting days the slow way, and checks DaysIn and IsLeap
// against time (does the month have that day?).
func TestCalendarWalk(t *testing.T) {
	day := DaysFromCivil(1, 1, 1)
	if want := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400; day != want {
		t.Fatalf("0001-01-01 is day %d, time says %d", day, want)
	}
	for y := int64(1); y <= 9999; y++ {
		if IsLeap(y) != (time.Date(int(y), 2, 29, 0, 0, 0, 0, time.UTC).Month() == 2) {
			t.Fatalf("IsLeap(%d) = %v", y, IsLeap(y))
		}
		for m := int64(1); m <= 12; m++ {
			n := DaysIn(y, m)
			if last := time.Date(int(y), time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day(); int64(last) != n {
				t.Fatalf("DaysIn(%d, %d) = %d, time says %d", y, m, n, last)
			}
			for d := int64(1); d <= n; d++ {
				if got := DaysFromCivil(y, m, d); got != day {
					t.Fatalf("DaysFromCivil(%d, %d, %d) = %d, counting gives %d", y, m, d, got, day)
				}
				if gy, gm, gd := FromDays(day); gy != y || gm != m || gd != d {
					t.Fatalf("FromDays(%d) = %d-%d-%d, want %d-%d-%d", day, gy, gm, gd, y, m, d)
				}
				day++
			}
		}
	}
	if last := DaysFromCivil(9999, 12, 31); last*MsPerDay+MsPerDay-1 != 253402300799999 {
		t.Errorf("9999-12-31 23:59:59.999 is not row.MaxMillis")
	}
}

func TestFloorDiv(t *testing.T) {
	for a := int64(-50); a <= 50; a++ {
		for _, b := range []int64{1, 3, 7, 400} {
			q := floorDiv(a, b)
			if q*b > a || (q+1)*b <= a {
				t.Fatalf("floorDiv(%d, %d) = %d", a, b, q)
			}
		}
	}
}
