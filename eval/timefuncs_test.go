package eval

import (
	"errors"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// TestDateParts covers YEAR ... DAYOFWEEK and TIMESTAMPADD with the examples
// of Flink's documentation (1994-09-27 is a Tuesday) and the calendar's
// edges.
func TestDateParts(t *testing.T) {
	runCases(t, []evalCase{
		{"YEAR(DATE '1994-09-27')", "1994"},
		{"QUARTER(DATE '1994-09-27')", "3"},
		{"MONTH(DATE '1994-09-27')", "9"},
		{"WEEK(DATE '1994-09-27')", "39"},
		{"DAYOFYEAR(DATE '1994-09-27')", "270"},
		{"DAYOFMONTH(DATE '1994-09-27')", "27"},
		{"DAYOFWEEK(DATE '1994-09-27')", "3"},
		{"HOUR(TIMESTAMP '1994-09-27 13:14:15')", "13"},
		{"MINUTE(TIMESTAMP '1994-09-27 13:14:15')", "14"},
		{"SECOND(TIMESTAMP '1994-09-27 13:14:15')", "15"},
		{"YEAR(ts)", "2026"},
		{"DAYOFWEEK(ltz)", "5"}, // 2026-01-01 is a Thursday
		{"DAYOFYEAR(DATE '2024-12-31')", "366"},
		{"WEEK(DATE '2021-01-03')", "53"}, // ISO: still week 53 of 2020
		{"WEEK(DATE '2024-12-30')", "1"},  // ISO: week 1 of 2025
		{"YEAR(CAST(NULL AS DATE))", "NULL"},
		{"DAYOFWEEK(CAST(NULL AS TIMESTAMP(3)))", "NULL"},

		{"TIMESTAMPADD(WEEK, 1, DATE '2003-01-02')", "2003-01-09"},
		{"TIMESTAMPADD(DAY, -1, DATE '2024-03-01')", "2024-02-29"},
		{"TIMESTAMPADD(MONTH, 1, DATE '2026-01-31')", "2026-02-28"},
		{"TIMESTAMPADD(MONTH, 1, DATE '2024-01-31')", "2024-02-29"},
		{"TIMESTAMPADD(YEAR, 1, DATE '2024-02-29')", "2025-02-28"},
		{"TIMESTAMPADD(QUARTER, -1, DATE '2026-05-31')", "2026-02-28"},
		{"TIMESTAMPADD(HOUR, 25, DATE '2026-01-01')", "2026-01-02 01:00:00.000"},
		{"TIMESTAMPADD(SECOND, 90, ts)", "2026-01-01 12:36:26.789"},
		{"TIMESTAMPADD(MINUTE, i, ltz)", "2026-01-01 12:41:56.789"},
		{"TIMESTAMPADD(MONTH, 13, ts)", "2027-02-01 12:34:56.789"},
		{"TIMESTAMPADD(HOUR, 12, tm)", "00:30:00"},
		{"TIMESTAMPADD(MINUTE, -31, TIME '00:00:00')", "23:29:00"},
		{"TIMESTAMPADD(DAY, ni, ts)", "NULL"},
		{"TIMESTAMPADD(DAY, 1, CAST(NULL AS DATE))", "NULL"},
		{"TIMESTAMPADD(SECOND, big, ts)", "error: overflow"},
		{"TIMESTAMPADD(YEAR, big, ts)", "error: overflow"},
	})
}

// tryBind binds src against the test columns like bind, returning the
// binder's errors instead of failing.
func tryBind(src string) (expr.Expr, error) {
	f := parser.ParseString("t.sql", "SELECT "+src+" FROM t;")
	if err := f.Diags.Err(); err != nil {
		return nil, err
	}
	sel := f.Stmts[0].(*ast.QueryStmt).Query.(*ast.Select)
	scope := &expr.Scope{Tables: []expr.ScopeTable{{Alias: "t", Table: "t"}}}
	for _, c := range testCols {
		scope.Cols = append(scope.Cols, expr.ScopeColumn{Qualifier: "t", Name: c.name, T: c.t})
	}
	l := &diag.List{}
	e := (&expr.Binder{Scope: scope, L: l}).Bind(sel.Fields[0].Expr)
	return e, l.Err()
}

// TestTimestampAddRefused: wrong units and arguments are refused when the
// query is bound, at the argument.
func TestTimestampAddRefused(t *testing.T) {
	for _, src := range []string{
		"TIMESTAMPADD(DAY, s, ts)",
		"TIMESTAMPADD(DAY, 1, s)",
		"TIMESTAMPADD(DAY, 1.5, ts)",
		"TIMESTAMPADD(DAY, 1, tm)",
		"TIMESTAMPADD(DOW, 1, ts)",
		"TIMESTAMPADD(1, 1, ts)",
		"YEAR(s)",
	} {
		if e, err := tryBind(src); err == nil {
			t.Errorf("%s bound to %s, want an error", src, e)
		}
	}
}

// TestDatePartsAgainstTime compares the functions with Go's time package
// over random timestamps of years 1..9999, and over every day around leap
// days and month ends.
func TestDatePartsAgainstTime(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	var stamps []int64
	for range 3000 {
		stamps = append(stamps, rng.Int63n(row.MaxMillis-row.MinMillis)+row.MinMillis)
	}
	for _, y := range []int{1, 1900, 1970, 2000, 2023, 2024, 2100, 9998} {
		for _, md := range [][2]int{{1, 1}, {1, 31}, {2, 28}, {2, 29}, {3, 1}, {4, 30}, {12, 31}} {
			d := time.Date(y, time.Month(md[0]), md[1], 23, 59, 59, 999e6, time.UTC)
			stamps = append(stamps, d.UnixMilli(), d.Add(-24*time.Hour+1).UnixMilli())
		}
	}
	ts := types.TimestampOf(3)
	col := &expr.Column{Index: 0, T: ts}
	compile := func(fn string, args ...expr.Expr) Func {
		t.Helper()
		c := &expr.Call{Fn: fn, Args: args, T: types.New(types.BigInt)}
		if fn == "TIMESTAMPADD" {
			c.T = ts
		}
		f, err := Compile(c)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return f
	}
	unit := func(u string) expr.Expr { return &expr.Const{V: u, T: types.StringType().NotNull()} }
	nCol := &expr.Column{Index: 1, T: types.New(types.BigInt)}
	parts := map[string]func(time.Time) int64{
		"YEAR":       func(g time.Time) int64 { return int64(g.Year()) },
		"QUARTER":    func(g time.Time) int64 { return int64(g.Month()+2) / 3 },
		"MONTH":      func(g time.Time) int64 { return int64(g.Month()) },
		"WEEK":       func(g time.Time) int64 { _, w := g.ISOWeek(); return int64(w) },
		"DAYOFYEAR":  func(g time.Time) int64 { return int64(g.YearDay()) },
		"DAYOFMONTH": func(g time.Time) int64 { return int64(g.Day()) },
		"DAYOFWEEK":  func(g time.Time) int64 { return int64(g.Weekday()) + 1 },
		"HOUR":       func(g time.Time) int64 { return int64(g.Hour()) },
		"MINUTE":     func(g time.Time) int64 { return int64(g.Minute()) },
		"SECOND":     func(g time.Time) int64 { return int64(g.Second()) },
	}
	funcs := map[string]Func{}
	for name := range parts {
		funcs[name] = compile(name, col)
	}
	// TIMESTAMPADD by units that Go's AddDate and Add compute; Go's AddDate
	// normalises 2026-01-31 + 1 month to March 3rd, Flink clamps to
	// February 28th, so months are checked against a clamped AddDate.
	addMonths := func(g time.Time, m int) time.Time {
		first := time.Date(g.Year(), g.Month(), 1, g.Hour(), g.Minute(), g.Second(), g.Nanosecond(), time.UTC).AddDate(0, m, 0)
		last := first.AddDate(0, 1, -1).Day()
		return first.AddDate(0, 0, min(g.Day(), last)-1)
	}
	adds := map[string]func(time.Time, int) time.Time{
		"SECOND":  func(g time.Time, n int) time.Time { return g.Add(time.Duration(n) * time.Second) },
		"HOUR":    func(g time.Time, n int) time.Time { return g.Add(time.Duration(n) * time.Hour) },
		"DAY":     func(g time.Time, n int) time.Time { return g.AddDate(0, 0, n) },
		"WEEK":    func(g time.Time, n int) time.Time { return g.AddDate(0, 0, 7*n) },
		"MONTH":   addMonths,
		"QUARTER": func(g time.Time, n int) time.Time { return addMonths(g, 3*n) },
		"YEAR":    func(g time.Time, n int) time.Time { return addMonths(g, 12*n) },
	}
	addFuncs := map[string]Func{}
	for u := range adds {
		addFuncs[u] = compile("TIMESTAMPADD", unit(u), nCol, col)
	}
	for _, ms := range stamps {
		g := time.UnixMilli(ms).UTC()
		n := rng.Intn(100) - 50
		if rng.Intn(4) == 0 {
			n = rng.Intn(5000) - 2500
		}
		vals := []row.Value{row.IntValue(ms), row.IntValue(int64(n))}
		for name, want := range parts {
			v, err := funcs[name](vals)
			if err != nil || v.Int() != want(g) {
				t.Fatalf("%s(%s) = %v, %v; want %d", name, g.Format(time.RFC3339Nano), v, err, want(g))
			}
		}
		for u, add := range adds {
			want := add(g, n)
			if want.Year() < 1 || want.Year() > 9999 {
				continue
			}
			v, err := addFuncs[u](vals)
			if err != nil || v.Int() != want.UnixMilli() {
				t.Fatalf("TIMESTAMPADD(%s, %d, %s) = %v, %v; want %s", u, n, g.Format(time.RFC3339Nano), time.UnixMilli(v.Int()).UTC(), err, want)
			}
		}
	}
}

// flinkMonths is a model of TIMESTAMPDIFF(MONTH, a, b) written from Flink's
// DateTimeUtils.subtractMonths(long, long) with Go's time package for the
// calendar: its search loop, not monthsBetween's closed form.
func flinkMonths(a, b time.Time) int64 {
	day := func(g time.Time) time.Time { return time.Date(g.Year(), g.Month(), g.Day(), 0, 0, 0, 0, time.UTC) }
	addM := func(d time.Time, m int) time.Time {
		first := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, m, 0)
		return first.AddDate(0, 0, min(d.Day(), first.AddDate(0, 1, -1).Day())-1)
	}
	var sub func(d0, d1 time.Time) int
	sub = func(d0, d1 time.Time) int {
		if d0.Before(d1) {
			return -sub(d1, d0)
		}
		m := int(d0.Sub(d1).Hours()/24) / 31
		for {
			if !addM(d1, m).Before(d0) || addM(d1, m+1).After(d0) {
				return m
			}
			m++
		}
	}
	d0, d1 := day(b), day(a)
	x := sub(d0, d1)
	if addM(d1, x).Equal(d0) && b.Sub(d0) < a.Sub(d1) {
		x--
	}
	return int64(x)
}

// TestTimestampDiffAgainstModel compares TIMESTAMPDIFF with the model of
// Flink's month count and with Go's durations for the other units, over
// random pairs (many near month ends and on the same day of the month).
func TestTimestampDiffAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	ts := types.TimestampOf(3)
	a, b := &expr.Column{Index: 0, T: ts}, &expr.Column{Index: 1, T: ts}
	units := map[string]int64{"MONTH": 0, "QUARTER": 0, "YEAR": 0, "SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": 86400000, "WEEK": 7 * 86400000}
	funcs := map[string]Func{}
	for u := range units {
		c := &expr.Call{Fn: "TIMESTAMPDIFF", Args: []expr.Expr{&expr.Const{V: u, T: types.StringType().NotNull()}, a, b}, T: types.New(types.Int)}
		f, err := Compile(c)
		if err != nil {
			t.Fatal(err)
		}
		funcs[u] = f
	}
	randTime := func() time.Time {
		g := time.Date(1900+rng.Intn(300), time.Month(1+rng.Intn(12)), 1, 0, 0, 0, 0, time.UTC)
		last := g.AddDate(0, 1, -1).Day()
		d := 1 + rng.Intn(last)
		if rng.Intn(3) == 0 {
			d = last - rng.Intn(3)
		}
		return g.AddDate(0, 0, d-1).Add(time.Duration(rng.Int63n(int64(24*time.Hour))) / time.Millisecond * time.Millisecond)
	}
	for range 20000 {
		ga := randTime()
		gb := randTime()
		switch rng.Intn(3) {
		case 0: // within a few months
			gb = ga.AddDate(0, rng.Intn(7)-3, rng.Intn(5)-2).Add(time.Duration(rng.Intn(48)-24) * time.Hour)
		case 1: // the same day of another month, another time of day
			gb = time.Date(ga.Year(), ga.Month()+time.Month(rng.Intn(25)-12), ga.Day(), rng.Intn(24), 0, 0, 0, time.UTC)
		}
		if gb.Year() > 9999 || gb.Year() < 1 {
			continue
		}
		vals := []row.Value{row.IntValue(ga.UnixMilli()), row.IntValue(gb.UnixMilli())}
		for u, per := range units {
			var want int64
			switch u {
			case "MONTH":
				want = flinkMonths(ga, gb)
			case "QUARTER":
				want = flinkMonths(ga, gb) / 3
			case "YEAR":
				want = flinkMonths(ga, gb) / 12
			default:
				want = (gb.UnixMilli() - ga.UnixMilli()) / per // Duration saturates at 292 years
			}
			v, err := funcs[u](vals)
			if want < math.MinInt32 || want > math.MaxInt32 {
				// The result is an INT, as in Flink; streamsql does not wrap.
				if !errors.Is(err, ErrOverflow) {
					t.Fatalf("TIMESTAMPDIFF(%s, %s, %s) = %v, %v; want an INT overflow", u, ga, gb, v, err)
				}
				continue
			}
			if err != nil || v.Int() != want {
				t.Fatalf("TIMESTAMPDIFF(%s, %s, %s) = %v, %v; want %d", u, ga.Format(time.RFC3339Nano), gb.Format(time.RFC3339Nano), v, err, want)
			}
		}
	}
}
