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

// TestStringFunctionsAgainstPostgreSQL compares TRIM's forms, LTRIM and
// RTRIM with characters, POSITION, OVERLAY (where Flink's and PostgreSQL's
// agree: a position within the string and a positive length), TRANSLATE,
// CHR (1 to 255: Latin-1 is Unicode's first block), FROM_BASE64, REGEXP,
// ENCODE/DECODE round trips and TRUNCATE of exact numbers with
// PostgreSQL's.
func TestStringFunctionsAgainstPostgreSQL(t *testing.T) {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	strs := []string{"", "a", "  padded  ", "xxhixx", "abcddcba", "心情开开心心", "hello world", "x-y_z", "ÄbC dEf"}
	sets := []string{"", " ", "x", "abc", "开心", "dx", "l o"}
	var cases []pgPair
	for _, s := range strs {
		for _, c := range sets {
			cases = append(cases,
				pgPair{fmt.Sprintf("TRIM(BOTH %s FROM %s)", q(c), q(s)), fmt.Sprintf("trim(BOTH %s FROM %s)", q(c), q(s))},
				pgPair{fmt.Sprintf("TRIM(LEADING %s FROM %s)", q(c), q(s)), fmt.Sprintf("trim(LEADING %s FROM %s)", q(c), q(s))},
				pgPair{fmt.Sprintf("TRIM(TRAILING %s FROM %s)", q(c), q(s)), fmt.Sprintf("trim(TRAILING %s FROM %s)", q(c), q(s))},
				pgPair{fmt.Sprintf("TRIM(%s FROM %s)", q(c), q(s)), fmt.Sprintf("trim(%s FROM %s)", q(c), q(s))},
				pgPair{fmt.Sprintf("LTRIM(%s, %s)", q(s), q(c)), fmt.Sprintf("ltrim(%s, %s)", q(s), q(c))},
				pgPair{fmt.Sprintf("RTRIM(%s, %s)", q(s), q(c)), fmt.Sprintf("rtrim(%s, %s)", q(s), q(c))},
				pgPair{fmt.Sprintf("POSITION(%s IN %s)", q(c), q(s)), fmt.Sprintf("position(%s IN %s)", q(c), q(s))},
				pgPair{fmt.Sprintf("TRANSLATE(%s, %s, 'XY')", q(s), q(c)), fmt.Sprintf("translate(%s, %s, 'XY')", q(s), q(c))},
			)
		}
		cases = append(cases,
			pgPair{fmt.Sprintf("TRIM(LEADING FROM %s)", q(s)), fmt.Sprintf("trim(LEADING FROM %s)", q(s))},
			pgPair{fmt.Sprintf("TRIM(TRAILING FROM %s)", q(s)), fmt.Sprintf("trim(TRAILING FROM %s)", q(s))},
			pgPair{fmt.Sprintf("TRIM(BOTH FROM %s)", q(s)), fmt.Sprintf("trim(BOTH FROM %s)", q(s))},
			pgPair{fmt.Sprintf("FROM_BASE64(TO_BASE64(%s))", q(s)), q(s)},
			pgPair{fmt.Sprintf("DECODE(ENCODE(%s, 'UTF-16'), 'UTF-16')", q(s)), q(s)},
			pgPair{fmt.Sprintf("DECODE(ENCODE(%s, 'utf-16le'), 'UTF-16LE')", q(s)), q(s)},
			pgPair{fmt.Sprintf("DECODE(ENCODE(%s, 'UTF-8'), 'UTF-8')", q(s)), q(s)},
			pgPair{fmt.Sprintf("TO_BASE64(DECODE(ENCODE(%s, 'UTF-8'), 'ISO-8859-1'))", q(s)),
				fmt.Sprintf("encode(convert_to(convert_from(convert_to(%s, 'UTF8'), 'LATIN1'), 'UTF8'), 'base64')", q(s))},
		)
		n := len([]rune(s))
		for pos := 1; pos <= n; pos++ {
			for _, l := range []int{1, 2, 5, 40} {
				cases = append(cases, pgPair{fmt.Sprintf("OVERLAY(%s PLACING 'XYZ' FROM %d FOR %d)", q(s), pos, l), fmt.Sprintf("overlay(%s PLACING 'XYZ' FROM %d FOR %d)", q(s), pos, l)})
			}
			cases = append(cases, pgPair{fmt.Sprintf("OVERLAY(%s PLACING 'é!' FROM %d)", q(s), pos), fmt.Sprintf("overlay(%s PLACING 'é!' FROM %d)", q(s), pos)})
		}
		for _, re := range []string{"l+", "^h", "d$", "[0-9]", "o w", "a|x", "(ab)+c"} {
			cases = append(cases, pgPair{fmt.Sprintf("REGEXP(%s, %s)", q(s), q(re)), fmt.Sprintf("%s ~ %s", q(s), q(re))})
		}
	}
	for n := 1; n <= 255; n += 7 {
		cases = append(cases, pgPair{fmt.Sprintf("CHR(%d)", n), fmt.Sprintf("chr(%d)", n)}, pgPair{fmt.Sprintf("CHR(%d)", n+512), fmt.Sprintf("chr(%d)", n)})
	}
	for _, b := range []string{"aGVsbG8gd29ybGQ=", "", "Zg==", "Zm8=", "Zm9v", "5b+D5oOF", "w4Riw6c="} {
		cases = append(cases, pgPair{fmt.Sprintf("FROM_BASE64('%s')", b), fmt.Sprintf("convert_from(decode('%s', 'base64'), 'UTF8')", b)})
	}
	for _, x := range []string{"42.324", "-42.324", "0.999", "-0.5", "12345.678", "0"} {
		for _, d := range []int{-3, -2, -1, 0, 1, 2, 5} {
			cases = append(cases, pgPair{fmt.Sprintf("CAST(TRUNCATE(CAST(%s AS DECIMAL(10, 3)), %d) AS STRING)", x, d), fmt.Sprintf("trunc(CAST(%s AS NUMERIC(10, 3)), %d)", x, d) + fmt.Sprintf("::numeric(20, %d)", max(min(d, 3), 0))})
		}
	}
	for _, x := range []int{0, 7, -7, 1234567, -1234567} {
		for _, d := range []int{-5, -2, 0, 2} {
			cases = append(cases, pgPair{fmt.Sprintf("TRUNCATE(%d, %d)", x, d), fmt.Sprintf("trunc(%d::numeric, %d)::bigint", x, d)})
		}
	}
	compareWithPostgreSQL(t, cases)
}

// TestMoreFunctionsDocumented checks Flink's examples (its docs and its
// ScalarFunctionsTest), the behaviour of the Java methods Flink calls, and
// NULL handling.
func TestMoreFunctionsDocumented(t *testing.T) {
	runCases(t, []evalCase{
		// TRIM (Flink's ScalarFunctionsTest).
		{"TRIM(BOTH 'abc' FROM 'abcddcba')", "dd"},
		{"TRIM(BOTH '开心' FROM '心情开开心心')", "情"},
		{"TRIM(LEADING FROM '  example  ')", "example  "},
		{"TRIM(TRAILING 'e' FROM 'example')", "exampl"},
		{"TRIM(BOTH 'xyz' FROM 'example')", "example"},
		{"LTRIM('abcddcba', 'abd')", "cddcba"},
		{"RTRIM('心情开开心心', '开心')", "心情"},
		{"LTRIM('abcddcba', ns)", "NULL"},
		{"TRIM(BOTH ns FROM s)", "NULL"},
		{"TRIM(LEADING 'H' FROM s)", "ello World"},
		// POSITION, OVERLAY.
		{"POSITION('test' IN 'xxxtest')", "4"},
		{"POSITION('testx' IN 'xxxtest')", "0"},
		{"position('aa' in 'aaads')", "1"},
		{"POSITION(ns IN s)", "NULL"},
		{"OVERLAY('xxxxxtest' PLACING 'xxxx' FROM 6)", "xxxxxxxxx"},
		{"OVERLAY('xxxxxtest' PLACING 'xxxx' FROM 6 FOR 2)", "xxxxxxxxxst"},
		{"OVERLAY('123456789' PLACING 'abc' FROM 100 FOR 2)", "123456789"},
		{"OVERLAY('123456789' PLACING 'It' FROM -1 FOR 2)", "123456789"},
		{"OVERLAY('123456789' PLACING 'abc' FROM 2 FOR 100)", "1abc"},
		{"OVERLAY('123456789' PLACING 'abc' FROM 2 FOR -1)", "1abc"},
		{"OVERLAY('123456789' PLACING 'abc' FROM 100 FOR -1)", "123456789"},
		{"OVERLAY('This is a test String.' PLACING 'IS' FROM 6 FOR 100)", "This IS"},
		{"OVERLAY(ns PLACING 'It' FROM 1 FOR 2)", "NULL"},
		{"OVERLAY(s PLACING 'It' FROM ni)", "NULL"},
		// REGEXP: a match anywhere; an empty regex is FALSE.
		{"REGEXP('foobar', 'o+b')", "TRUE"},
		{"REGEXP('foobar', '^o')", "FALSE"},
		{"REGEXP('foobar', '')", "FALSE"},
		{"REGEXP(s, ns)", "NULL"},
		{"REGEXP('x', s)", "FALSE"},
		// CHR: modulo 256; Flink's chr(97), chr(353).
		{"CHR(97)", "a"},
		{"CHR(353)", "a"},
		{"CHR(-1)", ""},
		{"CHR(233)", "é"},
		{"CHAR_LENGTH(CHR(256))", "1"},
		{"ASCII(CHR(256))", "0"},
		{"CHR(ni)", "NULL"},
		// ENCODE, DECODE: Java's charsets.
		{"HEX(DECODE(ENCODE('aé€', 'UTF-16'), 'ISO-8859-1'))", "C3BEC3BF006100C3A920C2AC"},
		// Without a byte order mark, UTF-16 is big-endian: the first of
		// these is \u6100 (0x61 0x00), as Java's.
		{"ASCII(DECODE(ENCODE('aé€', 'UTF-16LE'), 'UTF-16'))", "24832"},
		{"DECODE(ENCODE('aé€', 'UTF-16LE'), 'UTF-16LE')", "aé€"},
		{"DECODE(ENCODE('aé€', 'US-ASCII'), 'US-ASCII')", "a??"},
		{"DECODE(ENCODE('aé€', 'ISO-8859-1'), 'iso-8859-1')", "aé?"},
		{"DECODE(ENCODE('aé', 'ISO-8859-1'), 'US-ASCII')", "a\uFFFD"},
		{"DECODE(ENCODE('aé', 'ISO-8859-1'), 'UTF-8')", "a\uFFFD"},
		{"DECODE(ENCODE(ns, 'UTF-8'), 'UTF-8')", "NULL"},
		{"DECODE(ENCODE('x', 'UTF-8'), s)", "error: unsupported charset 'Hello World'"},
		// FROM_BASE64: Flink's example; padding optional, as Java's.
		{"FROM_BASE64('aGVsbG8gd29ybGQ=')", "hello world"},
		{"FROM_BASE64('aGVsbG8gd29ybGQ')", "hello world"},
		{"FROM_BASE64(ns)", "NULL"},
		{"FROM_BASE64(s)", "error: is not base64"},
		// PARSE_URL: Flink's examples and java.net.URL's parts.
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST')", "facebook.com"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k1')", "v1"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k3')", "NULL"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY')", "k1=v1&k2=v2"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'PATH')", "/path1/p.php"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'FILE')", "/path1/p.php?k1=v1&k2=v2"},
		{"PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'REF')", "Ref1"},
		{"PARSE_URL('HTTP://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'PROTOCOL')", "http"},
		{"PARSE_URL('https://user:pw@www.example.com:8080/a?b', 'AUTHORITY')", "user:pw@www.example.com:8080"},
		{"PARSE_URL('https://user:pw@www.example.com:8080/a?b', 'USERINFO')", "user:pw"},
		{"PARSE_URL('https://user:pw@www.example.com:8080/a?b', 'HOST')", "www.example.com"},
		{"PARSE_URL('https://www.example.com', 'PATH')", ""},
		{"PARSE_URL('https://www.example.com', 'QUERY')", "NULL"},
		{"PARSE_URL('https://www.example.com', 'USERINFO')", "NULL"},
		{"PARSE_URL('https://[::1]:80/x', 'HOST')", "[::1]"},
		{"PARSE_URL('www.example.com/a', 'HOST')", "NULL"},
		{"PARSE_URL('gopher://example.com/a', 'HOST')", "NULL"},
		{"PARSE_URL('http://example.com:8o/a', 'HOST')", "NULL"},
		{"PARSE_URL(ns, 'HOST')", "NULL"},
		{"PARSE_URL('mailto:someone@example.com', 'PATH')", "someone@example.com"},
		{"PARSE_URL('jar:file:/a.jar!/x/y.class', 'PATH')", "file:/a.jar!/x/y.class"},
		{"PARSE_URL('jar:file:/a.jar', 'PATH')", "NULL"},
		{"PARSE_URL('http://a.b/c', s)", "NULL"},
		// ELT.
		{"ELT(1, 'scala-1', 'java-2')", "scala-1"},
		{"ELT(2, 'a', ns)", "NULL"},
		{"ELT(3, 'a', 'b')", "NULL"},
		{"ELT(0, 'a', 'b')", "NULL"},
		{"ELT(ni, 'a', 'b')", "NULL"},
		// TRANSLATE.
		{"TRANSLATE('www.apache.org', 'wapcheorg', ' APCHEcom')", "   .APACHE.com"},
		{"TRANSLATE('abc', 'ab', 'x')", "xc"},
		{"TRANSLATE(ns, 'a', 'b')", "NULL"},
		{"TRANSLATE('abc', ns, 'b')", "abc"},
		{"TRANSLATE('abc', 'b', ns)", "ac"},
		// IS_ALPHA, IS_DIGIT, IS_DECIMAL: FALSE for NULL and ''.
		{"IS_ALPHA('abcÄ')", "TRUE"},
		{"IS_ALPHA('ab1')", "FALSE"},
		{"IS_ALPHA('')", "FALSE"},
		{"IS_ALPHA(ns)", "FALSE"},
		{"IS_DIGIT('0123')", "TRUE"},
		{"IS_DIGIT('١٢٣')", "TRUE"},
		{"IS_DIGIT('-1')", "FALSE"},
		{"IS_DIGIT(ns)", "FALSE"},
		{"IS_DECIMAL('123')", "TRUE"},
		{"IS_DECIMAL('-1.5e3')", "TRUE"},
		{"IS_DECIMAL(' 1.5 ')", "TRUE"},
		{"IS_DECIMAL('1.5d')", "TRUE"},
		{"IS_DECIMAL('NaN')", "TRUE"},
		{"IS_DECIMAL('0x1p3')", "TRUE"},
		{"IS_DECIMAL('١٢٣')", "TRUE"},
		{"IS_DECIMAL('1,5')", "FALSE"},
		{"IS_DECIMAL('abc')", "FALSE"},
		{"IS_DECIMAL(ns)", "FALSE"},
		// TRUNCATE: Flink's 42.324 examples; DOUBLE as Java's BigDecimal.
		{"TRUNCATE(42.324, 2)", "42.32"},
		{"TRUNCATE(42.324)", "42"},
		{"TRUNCATE(CAST(42.324 AS DOUBLE), 2)", "42.32"},
		{"TRUNCATE(CAST(-42.329 AS DOUBLE), 2)", "-42.32"},
		{"TRUNCATE(CAST(42.324 AS DOUBLE))", "42.0"},
		{"TRUNCATE(CAST(1234.5 AS DOUBLE), -2)", "1200.0"},
		{"TRUNCATE(CAST(0.1 AS DOUBLE), 5)", "0.1"},
		{"TRUNCATE(d, ni)", "NULL"},
		{"TRUNCATE(i, -1)", "0"},
		{"TRUNCATE(big, -3)", "9223372036854775000"},
		{"TRUNCATE(amount, 1)", "12.3"},
		{"TRUNCATE(amount, ni)", "NULL"},
		// CURRENT_ROW_TIMESTAMP: the clock (the test's).
		{"CURRENT_ROW_TIMESTAMP()", "2026-01-01 00:00:00.000"},
	})
	runRefusals(t, []refusal{
		{"ENCODE(s, 'EBCDIC')", "SQL305", "unsupported charset 'EBCDIC'"},
		{"DECODE(s, 'UTF-8')", "SQL305", "expected bytes"},
		{"FROM_BASE64('not base64!')", "SQL305", "is not base64 text"},
		{"PARSE_URL(s, 'host')", "SQL305", "unknown part 'host'"},
		{"REGEXP(s, '(?<=a)b')", "SQL305", "lookbehind"},
		{"TRIM(s, 'x')", "SQL100", ""}, // not Flink's syntax either
		{"TRIM(BOTH 1 FROM s)", "SQL305", "TRIM needs strings"},
		{"TRUNCATE(s)", "SQL305", "expected a number"},
		{"ELT(s, 'a')", "SQL305", "the index must be an integer"},
		{"OVERLAY(s PLACING 'x' FROM 'y')", "SQL305", "expected OVERLAY"},
	})
}

// TestCurrentRowTimestampPerRow: CURRENT_ROW_TIMESTAMP() reads the clock
// on every row, never folded into a constant.
func TestCurrentRowTimestampPerRow(t *testing.T) {
	now := int64(1000)
	f, err := CompileWith(bind(t, "CURRENT_ROW_TIMESTAMP()"), Options{Now: func() int64 { now++; return now }})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f(testRow())
	b, _ := f(testRow())
	if a.Int() == b.Int() {
		t.Errorf("two rows got the same CURRENT_ROW_TIMESTAMP() %d: it was folded", a.Int())
	}
}

func TestUnsupportedFlinkBuiltinRefused(t *testing.T) {
	runRefusals(t, []refusal{
		{"COLLECT(s)", "SQL315", "COLLECT is a built-in function of Flink's that streamsql does not support yet"},
		{"NO_SUCH_FUNCTION(s)", "SQL304", "unknown function NO_SUCH_FUNCTION"},
	})
}

func TestSplitAgainstPostgreSQL(t *testing.T) {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var cases []pgPair
	for _, s := range []string{"", "a", "a,b", "a,,b", ",a,", ",", "a::b::", "心,情", "abc"} {
		for _, sep := range []string{",", "::", "b", "x"} {
			cases = append(cases, pgPair{fmt.Sprintf("CARDINALITY(SPLIT(%s, %s))", q(s), q(sep)), fmt.Sprintf("cardinality(string_to_array(%s, %s))", q(s), q(sep))})
			for i := 1; i <= 3; i++ {
				cases = append(cases, pgPair{fmt.Sprintf("SPLIT(%s, %s)[%d]", q(s), q(sep), i), fmt.Sprintf("(string_to_array(%s, %s))[%d]", q(s), q(sep), i)})
			}
		}
	}
	compareWithPostgreSQL(t, cases)
	runCases(t, []evalCase{
		// Flink's documented behaviour.
		{"SPLIT('a,b,c', ',')", "[a, b, c]"},
		{"SPLIT('abc', '')", "[a, b, c]"},
		{"SPLIT('abc', 'x')", "[abc]"},
		{"SPLIT(',a,,b,', ',')", "[, a, , b, ]"},
		{"CARDINALITY(SPLIT('', ','))", "0"},
		{"SPLIT(ns, ',')", "NULL"},
		{"SPLIT(s, ns)", "NULL"},
	})
}
