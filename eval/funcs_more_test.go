package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/parser"
)

// pgPair is an expression of ours and PostgreSQL's of the same meaning.
type pgPair struct{ ours, theirs string }

// compareWithPostgreSQL evaluates each pair's expression in streamsql (over
// the test row) and PostgreSQL's (as text) and compares the texts.
func compareWithPostgreSQL(t *testing.T, cases []pgPair) {
	t.Helper()
	pg := pgConn(t)
	var sql strings.Builder
	sql.WriteString("SELECT ")
	for i, c := range cases {
		if i > 0 {
			sql.WriteString(", ")
		}
		fmt.Fprintf(&sql, "CAST(%s AS TEXT)", c.theirs)
	}
	rows, err := pg.Query(context.Background(), sql.String())
	if err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	var want []*string
	for rows.Next() {
		vs, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if s, ok := v.(string); ok {
				want = append(want, &s)
			} else {
				want = append(want, nil)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	if len(want) != len(cases) {
		t.Fatalf("PostgreSQL gave %d values for %d cases", len(want), len(cases))
	}
	vals := testRow()
	for i, c := range cases {
		e := bind(t, c.ours)
		f, err := CompileWith(e, testOptions())
		if err != nil {
			t.Errorf("%s: %v", c.ours, err)
			continue
		}
		v, err := f(vals)
		if err != nil {
			t.Errorf("%s: %v", c.ours, err)
			continue
		}
		got := FormatValue(v, e.Type())
		w := "NULL"
		if want[i] != nil {
			w = *want[i]
		}
		if (got == "TRUE" || got == "FALSE") && strings.ToUpper(w) == got {
			continue
		}
		if got != w {
			t.Errorf("%s = %q; PostgreSQL's %s = %q", c.ours, got, c.theirs, w)
		}
	}
	t.Logf("%d cases", len(cases))
}

// TestFloorCeilToAgainstPostgreSQL compares FLOOR(t TO unit) with
// PostgreSQL's date_trunc, and CEIL(t TO unit) with date_trunc plus one
// unit unless t is on a boundary. Flink's weeks start on Sunday,
// PostgreSQL's on Monday: the reference shifts by a day.
func TestFloorCeilToAgainstPostgreSQL(t *testing.T) {
	stamps := []string{"2026-01-01 12:34:56.789", "2018-03-20 06:44:31.000", "2021-02-27 00:00:00.000", "2021-02-28 00:00:00.000",
		"2021-03-01 00:00:00.000", "2018-04-01 00:00:00.000", "2018-04-01 00:00:00.001", "2018-03-01 21:00:01.000",
		"2024-02-29 23:59:59.999", "2000-01-01 00:00:00.000", "2001-01-01 00:00:00.000", "1999-12-31 23:59:59.999",
		"1969-12-31 23:59:59.999", "1969-07-20 20:17:40.000", "1900-03-01 00:00:00.000", "1970-01-01 00:00:00.000",
		"2023-12-31 18:30:00.500", "2030-06-15 00:00:00.000"}
	units := []string{"MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR", "DECADE", "CENTURY", "MILLENNIUM"}
	trunc := func(u, x string) string {
		if u == "WEEK" {
			return fmt.Sprintf("(date_trunc('week', %s + INTERVAL '1 day') - INTERVAL '1 day')", x)
		}
		return fmt.Sprintf("date_trunc('%s', %s)", strings.ToLower(u), x)
	}
	one := func(u string) string {
		switch u {
		case "WEEK":
			return "INTERVAL '7 days'"
		case "QUARTER":
			return "INTERVAL '3 months'"
		case "MILLISECOND":
			return "INTERVAL '1 millisecond'"
		}
		return fmt.Sprintf("INTERVAL '1 %s'", strings.ToLower(u))
	}
	var cases []pgPair
	for _, s := range stamps {
		ts := fmt.Sprintf("TIMESTAMP '%s'", s)
		for _, u := range units {
			fl := trunc(u, ts)
			ce := fmt.Sprintf("CASE WHEN %s = %s THEN %s ELSE %s + %s END", fl, ts, ts, fl, one(u))
			cases = append(cases,
				pgPair{fmt.Sprintf("FLOOR(%s TO %s)", ts, u), fmt.Sprintf("to_char(%s, 'YYYY-MM-DD HH24:MI:SS.MS')", fl)},
				pgPair{fmt.Sprintf("CEIL(%s TO %s)", ts, u), fmt.Sprintf("to_char(%s, 'YYYY-MM-DD HH24:MI:SS.MS')", ce)})
			if u == "MILLISECOND" || u == "SECOND" || u == "MINUTE" || u == "HOUR" {
				continue
			}
			d := fmt.Sprintf("DATE '%s'", s[:10])
			dfl := trunc(u, d)
			dce := fmt.Sprintf("CASE WHEN %s = %s THEN %s ELSE %s + %s END", dfl, d, d, dfl, one(u))
			cases = append(cases,
				pgPair{fmt.Sprintf("FLOOR(%s TO %s)", d, u), fmt.Sprintf("to_char(%s, 'YYYY-MM-DD')", dfl)},
				pgPair{fmt.Sprintf("CEILING(%s TO %s)", d, u), fmt.Sprintf("to_char(%s, 'YYYY-MM-DD')", dce)})
		}
	}
	compareWithPostgreSQL(t, cases)
}

// TestFloorCeilToDocumented checks Flink's own examples (its
// TemporalTypesTest) and the errors.
func TestFloorCeilToDocumented(t *testing.T) {
	runCases(t, []evalCase{
		{"FLOOR(TIME '12:44:31' TO MINUTE)", "12:44:00"},
		{"FLOOR(TIME '12:44:31' TO HOUR)", "12:00:00"},
		{"CEIL(TIME '12:44:31' TO MINUTE)", "12:45:00"},
		{"CEIL(TIME '12:44:31' TO HOUR)", "13:00:00"},
		{"CEIL(TIME '23:44:31' TO HOUR)", "00:00:00"},
		{"FLOOR(DATE '2021-02-27' TO WEEK)", "2021-02-21"},
		{"FLOOR(DATE '2021-03-01' TO WEEK)", "2021-02-28"},
		{"CEIL(DATE '2021-02-27' TO WEEK)", "2021-02-28"},
		{"CEIL(DATE '2021-03-01' TO WEEK)", "2021-03-07"},
		{"FLOOR(TIMESTAMP '2018-03-20 06:44:31' TO HOUR)", "2018-03-20 06:00:00"},
		{"FLOOR(TIMESTAMP '2018-03-20 06:44:31' TO DAY)", "2018-03-20 00:00:00"},
		{"FLOOR(TIMESTAMP '2021-02-27 00:00:00' TO WEEK)", "2021-02-21 00:00:00"},
		{"FLOOR(TIMESTAMP '2018-04-01 06:44:31' TO MONTH)", "2018-04-01 00:00:00"},
		{"CEIL(TIMESTAMP '2018-03-20 06:44:31' TO HOUR)", "2018-03-20 07:00:00"},
		{"CEIL(TIMESTAMP '2018-03-20 06:00:00' TO HOUR)", "2018-03-20 06:00:00"},
		{"CEIL(TIMESTAMP '2018-03-31 00:00:01' TO DAY)", "2018-04-01 00:00:00"},
		{"CEIL(TIMESTAMP '2021-03-01 00:00:00' TO WEEK)", "2021-03-07 00:00:00"},
		{"CEIL(TIMESTAMP '2018-12-02 00:00:00' TO MONTH)", "2019-01-01 00:00:00"},
		{"CEIL(TIMESTAMP '2018-01-02 21:00:01' TO YEAR)", "2019-01-01 00:00:00"},
		// The test row: ts is 2026-01-01 12:34:56.789, a TIMESTAMP(3).
		{"FLOOR(ts TO HOUR)", "2026-01-01 12:00:00.000"},
		{"CEIL(ts TO SECOND)", "2026-01-01 12:34:57.000"},
		{"FLOOR(ltz TO DAY)", "2026-01-01 00:00:00.000"},
		{"FLOOR(dt TO MONTH)", "2026-01-01"},
		{"FLOOR(tm TO HOUR)", "12:00:00"},
		{"FLOOR(CAST(ns AS TIMESTAMP(3)) TO HOUR)", "NULL"},
		{"CEIL(NULL TO HOUR)", "NULL"},
		{"floor(ts to hour)", "2026-01-01 12:00:00.000"},
	})
}

// bindError binds src over the test row and returns the first error's text
// and code ("" when it binds).
func bindError(t *testing.T, src string) (string, string) {
	t.Helper()
	f := parser.ParseString("t.sql", "SELECT "+src+" FROM t;")
	if err := f.Diags.Err(); err != nil {
		d := f.Diags.Items[0]
		return d.Msg, string(d.Code)
	}
	sel := f.Stmts[0].(*ast.QueryStmt).Query.(*ast.Select)
	scope := &expr.Scope{Tables: []expr.ScopeTable{{Alias: "t", Table: "t"}}}
	for _, c := range testCols {
		scope.Cols = append(scope.Cols, expr.ScopeColumn{Qualifier: "t", Name: c.name, T: c.t})
	}
	l := &diag.List{}
	e := (&expr.Binder{Scope: scope, L: l}).Bind(sel.Fields[0].Expr)
	if l.Err() != nil {
		d := l.Items[0]
		return d.Msg, string(d.Code)
	}
	// What check compiles (planner.compileCheck): a constant argument the
	// runtime refuses is an error there, SQL305 for an invalid argument.
	if _, err := CompileWith(e, testOptions()); err != nil {
		if errors.Is(err, ErrInvalidArgument) {
			return err.Error(), "SQL305"
		}
		return err.Error(), "?"
	}
	return "", ""
}

// refusal is an expression that check refuses: the code and a part of the
// message.
type refusal struct{ src, code, msg string }

func runRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		msg, code := bindError(t, c.src)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %s %q, want %s with %q", c.src, code, msg, c.code, c.msg)
		}
	}
}

func TestFloorCeilToRefused(t *testing.T) {
	runRefusals(t, []refusal{
		{"FLOOR(ts TO FORTNIGHT)", "SQL305", "unknown unit FORTNIGHT"},
		{"FLOOR(d TO HOUR)", "SQL305", "needs a DATE, TIME or TIMESTAMP, but d is DOUBLE"},
		{"FLOOR(dt TO HOUR)", "SQL305", "FLOOR of a DATE takes DAY or a longer unit, not HOUR"},
		{"CEIL(tm TO DAY)", "SQL305", "CEIL of a TIME takes HOUR or a shorter unit, not DAY"},
		{"FLOOR(d, 2)", "SQL305", "FLOOR takes one number, or a time and a unit"},
		{"FLOOR(ts TO)", "SQL100", ""},
	})
	// Nested, in expressions, and the text of the bound expression.
	for src, want := range map[string]string{
		"FLOOR(CEIL(ts TO DAY) TO MONTH)":            "FLOOR(CEIL($5:ts TO DAY) TO MONTH)",
		"CAST(FLOOR(ts TO MINUTE) AS STRING) || 'x'": "(CAST(FLOOR($5:ts TO MINUTE) AS STRING) || 'x')",
		"ceiling(ltz to week)":                       "CEIL($6:ltz TO WEEK)",
	} {
		if got := bind(t, src).String(); got != want {
			t.Errorf("%s binds to %s, want %s", src, got, want)
		}
	}
}

// TestLikeEscapeAgainstPostgreSQL compares LIKE ... ESCAPE and SIMILAR TO
// ... ESCAPE with PostgreSQL's, over patterns whose escape character comes
// before a wildcard, a special or itself (where Flink and PostgreSQL
// agree; anything else is an error in Flink).
func TestLikeEscapeAgainstPostgreSQL(t *testing.T) {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	strs := []string{"", "a_b", "axb", "a%b", "a!b", "100%", "100", "_x", "x_", "a!_b", "éé_é", "a|b", "(a)", "ab*", "a\\b"}
	likes := []struct{ pat, esc string }{
		{"a!_b", "!"}, {"a!%b", "!"}, {"a!!b", "!"}, {"%!%", "!"}, {"!_%", "!"}, {"%!_", "!"}, {"a_b", "!"},
		{"100#%", "#"}, {"a#_%", "#"}, {"é!_é", "!"}, {"a\\b", "!"}, {"a\\_b", "!"}, {"%é_%", "é"}, {"a$_b", "$"},
		{"a__b", "_"}, {"a%%b", "%"},
	}
	similars := []struct{ pat, esc string }{
		{"a!_b", "!"}, {"a!%b", "!"}, {"(a!|b)%", "!"}, {"a!|b", "!"}, {"!(a!)", "!"}, {"ab!*", "!"}, {"a[!_x]b", "!"},
		{"a#%%", "#"}, {"%!!%", "!"}, {"a\\b", "!"}, {"a[b!-]*", "!"},
	}
	var cases []pgPair
	for _, s := range strs {
		for _, l := range likes {
			cases = append(cases,
				pgPair{fmt.Sprintf("%s LIKE %s ESCAPE %s", q(s), q(l.pat), q(l.esc)), fmt.Sprintf("%s LIKE %s ESCAPE %s", q(s), q(l.pat), q(l.esc))},
				pgPair{fmt.Sprintf("%s NOT LIKE %s ESCAPE %s", q(s), q(l.pat), q(l.esc)), fmt.Sprintf("%s NOT LIKE %s ESCAPE %s", q(s), q(l.pat), q(l.esc))})
		}
		for _, l := range similars {
			cases = append(cases,
				pgPair{fmt.Sprintf("%s SIMILAR TO %s ESCAPE %s", q(s), q(l.pat), q(l.esc)), fmt.Sprintf("%s SIMILAR TO %s ESCAPE %s", q(s), q(l.pat), q(l.esc))})
		}
	}
	compareWithPostgreSQL(t, cases)
}

func TestLikeEscapeDocumented(t *testing.T) {
	runCases(t, []evalCase{
		{"'a_b' LIKE 'a!_b' ESCAPE '!'", "TRUE"},
		{"'axb' LIKE 'a!_b' ESCAPE '!'", "FALSE"},
		{"s LIKE 'Hello%' ESCAPE '!'", "TRUE"},
		{"ns LIKE 'a' ESCAPE '!'", "NULL"},
		{"s LIKE ns ESCAPE '!'", "NULL"},
		{"pat LIKE 'H!%o W!_rld' ESCAPE '!'", "TRUE"},
		{"'x' LIKE pat ESCAPE '!'", "FALSE"},
		// A pattern read at run time with a bad escape: a runtime error,
		// as Flink's SqlLikeUtils throws.
		{"'x' LIKE s ESCAPE 'W'", "error: invalid escape sequence"},
		{"'ab' SIMILAR TO 'a!(b' ESCAPE '!'", "FALSE"},
		{"'a(b' SIMILAR TO 'a!(b' ESCAPE '!'", "TRUE"},
	})
	runRefusals(t, []refusal{
		{"s LIKE 'a!b' ESCAPE '!'", "SQL305", "invalid escape sequence"},
		{"s LIKE 'ab!' ESCAPE '!'", "SQL305", "ends with its escape character"},
		{"s LIKE 'ab' ESCAPE '!!'", "SQL305", "must be one character"},
		{"s LIKE 'ab' ESCAPE ''", "SQL305", "must be one character"},
		{"s SIMILAR TO 'a!b' ESCAPE '!'", "SQL305", "invalid escape sequence"},
		{"s LIKE 'ab' ESCAPE 1", "SQL100", "ESCAPE needs a string"},
	})
}
