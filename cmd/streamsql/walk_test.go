package main

// The walk: whatever `check` accepts must run. Every function of the
// expression registry and every declared connector and format, in each
// direction it declares, is run in a tiny job through the command line:
// `check` must pass and `run` must finish with the expected rows. A
// function, connector or format added without runtime support makes these
// tests fail, because each must have a case here (its absence is an
// error), and its case must run.
//
// Expected values are Flink's (its documentation and its Java semantics),
// written by hand, in the print connector's rendering.

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/expr"
)

// walkSource is the input of the function cases: two rows.
//
//	s            n   b (epoch ms)    d      f    ts
//	Hello World  -7  1767225600123   12.35  2.5  2026-03-15 08:05:09.123 (a Sunday)
//	Bye          3   0               0.50   0.5  2026-03-15 08:06:00.000
const walkSource = `{"s":"Hello World","n":-7,"b":1767225600123,"d":12.35,"f":2.5,"ts":"2026-03-15 08:05:09.123"}
{"s":"Bye","n":3,"b":0,"d":0.5,"f":0.5,"ts":"2026-03-15 08:06:00.000"}
`

const walkTable = `CREATE TABLE src (s STRING, n INT, b BIGINT, d DECIMAL(10, 2), f DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
`

// fnCase is one call of a function over the first row (n < 0), with the
// type of its result and the value expected.
type fnCase struct {
	expr, typ, want string
}

// scalarCases has at least one case per scalar function of the registry.
var scalarCases = map[string][]fnCase{
	"TO_TIMESTAMP_LTZ": {{"TO_TIMESTAMP_LTZ(b, 3)", "TIMESTAMP_LTZ(3)", "2026-01-01 00:00:00.123"},
		{"TO_TIMESTAMP_LTZ(1767225600, 0)", "TIMESTAMP_LTZ(3)", "2026-01-01 00:00:00.000"}},
	"TO_TIMESTAMP": {{"TO_TIMESTAMP('2026-03-15 08:05:09')", "TIMESTAMP(3)", "2026-03-15 08:05:09.000"},
		{"TO_TIMESTAMP('15/03/2026 08', 'dd/MM/yyyy HH')", "TIMESTAMP(3)", "2026-03-15 08:00:00.000"}},
	"TO_DATE":  {{"TO_DATE('2026-03-15')", "DATE", "2026-03-15"}, {"TO_DATE('20260315', 'yyyyMMdd')", "DATE", "2026-03-15"}},
	"COALESCE": {{"COALESCE(CAST(NULL AS STRING), s)", "STRING", "Hello World"}},
	"IFNULL":   {{"IFNULL(CAST(NULL AS INT), n)", "INT", "-7"}},
	"NULLIF":   {{"NULLIF(n, -7)", "INT", "null"}, {"NULLIF(n, 3)", "INT", "-7"}},
	"IF":       {{"IF(n < 0, 'neg', 'pos')", "STRING", "neg"}},
	"CONCAT":   {{"CONCAT(s, '!', 'x')", "STRING", "Hello World!x"}},
	// CONCAT_WS skips NULL arguments (Flink's documented behaviour).
	"CONCAT_WS":        {{"CONCAT_WS('-', 'a', CAST(NULL AS STRING), s)", "STRING", "a-Hello World"}},
	"UPPER":            {{"UPPER(s)", "STRING", "HELLO WORLD"}},
	"LOWER":            {{"LOWER(s)", "STRING", "hello world"}},
	"TRIM":             {{"TRIM('  a b  ')", "STRING", "a b"}},
	"LTRIM":            {{"LTRIM('  a ')", "STRING", "a "}},
	"RTRIM":            {{"RTRIM(' a  ')", "STRING", " a"}},
	"CHAR_LENGTH":      {{"CHAR_LENGTH(s)", "INT", "11"}},
	"CHARACTER_LENGTH": {{"CHARACTER_LENGTH('héllo')", "INT", "5"}},
	"SUBSTRING":        {{"SUBSTRING(s, 7)", "STRING", "World"}, {"SUBSTRING(s, 1, 5)", "STRING", "Hello"}},
	"REPLACE":          {{"REPLACE(s, 'World', 'There')", "STRING", "Hello There"}},
	// The example of Flink's documentation.
	"REGEXP_EXTRACT": {{"REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2)", "STRING", "bar"}},
	"MD5":            {{"MD5('a')", "STRING", "0cc175b9c0f1b6a831c399e269772661"}},
	"ABS":            {{"ABS(n)", "INT", "7"}},
	"FLOOR":          {{"FLOOR(f)", "DOUBLE", "2"}, {"FLOOR(d)", "DECIMAL(10, 0)", "12"}},
	"CEIL":           {{"CEIL(f)", "DOUBLE", "3"}},
	// HALF_UP, as Java's BigDecimal does in Flink.
	"ROUND": {{"ROUND(f, 0)", "DOUBLE", "3"}, {"ROUND(d, 1)", "DECIMAL(10, 1)", "12.4"}},
	// Java's %: the sign of the dividend.
	"MOD":   {{"MOD(n, 3)", "INT", "-1"}},
	"POWER": {{"POWER(2, 10)", "DOUBLE", "1024"}},
	"SQRT":  {{"SQRT(16)", "DOUBLE", "4"}},
	"LN":    {{"LN(1)", "DOUBLE", "0"}},
	"LOG10": {{"LOG10(1000)", "DOUBLE", "3"}},
	"EXP":   {{"EXP(0)", "DOUBLE", "1"}},
	// Java DateTimeFormatter patterns, in the en_US locale: weeks start on
	// Sunday and week 1 holds January 1st (2026-03-15, a Sunday, is in week
	// 12 of week-year 2026; ISO would say 11).
	"DATE_FORMAT": {{"DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm')", "STRING", "2026-03-15 08:05"},
		{"DATE_FORMAT(ts, 'YYYYww')", "STRING", "202612"},
		{"DATE_FORMAT(ts, 'EEE, d MMM yyyy hh:mm a')", "STRING", "Sun, 15 Mar 2026 08:05 AM"},
		{"DATE_FORMAT(ts, 'D')", "STRING", "74"}},
	"UNIX_TIMESTAMP": {{"UNIX_TIMESTAMP('2026-01-01 00:00:00')", "BIGINT", "1767225600"},
		{"UNIX_TIMESTAMP('20260101', 'yyyyMMdd')", "BIGINT", "1767225600"},
		{"UNIX_TIMESTAMP() > 1767225600", "BOOLEAN", "true"}},
	"FROM_UNIXTIME": {{"FROM_UNIXTIME(1767225600)", "STRING", "2026-01-01 00:00:00"},
		{"FROM_UNIXTIME(0, 'yyyy')", "STRING", "1970"}},
	"PROCTIME":          {{"EXTRACT(YEAR FROM PROCTIME()) >= 2026", "BOOLEAN", "true"}},
	"CURRENT_TIMESTAMP": {{"EXTRACT(YEAR FROM CURRENT_TIMESTAMP) >= 2026", "BOOLEAN", "true"}},
	"NOW":               {{"EXTRACT(YEAR FROM NOW()) >= 2026", "BOOLEAN", "true"}},
	// NULL before the first watermark: the first rows of a file are read
	// before its first watermark.
	"CURRENT_WATERMARK": {{"CURRENT_WATERMARK(ts)", "TIMESTAMP(3)", "null"}},
	"EXTRACT": {{"EXTRACT(HOUR FROM ts)", "BIGINT", "8"}, {"EXTRACT(DOW FROM ts)", "BIGINT", "1"},
		{"EXTRACT(YEAR FROM ts)", "BIGINT", "2026"}},
	"TIMESTAMPDIFF": {{"TIMESTAMPDIFF(SECOND, TIMESTAMP '2026-03-15 08:00:00', ts)", "INT", "309"}},
	"HOUR":          {{"HOUR(ts)", "BIGINT", "8"}},
	"MINUTE":        {{"MINUTE(ts)", "BIGINT", "5"}},
	"SECOND":        {{"SECOND(ts)", "BIGINT", "9"}},
	// Java's String.hashCode.
	"HASH_CODE": {{"HASH_CODE('a')", "INT", "97"}},
}

// aggCases has at least one case per aggregate, over both rows in file
// order; want is the final value.
var aggCases = map[string][]fnCase{
	"COUNT":       {{"COUNT(*)", "BIGINT", "2"}, {"COUNT(DISTINCT s)", "BIGINT", "2"}},
	"SUM":         {{"SUM(n)", "BIGINT", "-4"}, {"SUM(d)", "DECIMAL(38, 2)", "12.85"}},
	"AVG":         {{"AVG(f)", "DOUBLE", "1.5"}},
	"MIN":         {{"MIN(s)", "STRING", "Bye"}},
	"MAX":         {{"MAX(n)", "INT", "3"}},
	"FIRST_VALUE": {{"FIRST_VALUE(s)", "STRING", "Hello World"}},
	"LAST_VALUE":  {{"LAST_VALUE(s)", "STRING", "Bye"}},
	"LISTAGG":     {{"LISTAGG(s)", "STRING", "Hello World,Bye"}, {"LISTAGG(s, ';')", "STRING", "Hello World;Bye"}},
}

// TestWalkFunctions runs every function of the registry.
func TestWalkFunctions(t *testing.T) {
	for _, name := range expr.FunctionNames() {
		agg := expr.IsAggregate(name)
		cases := scalarCases[name]
		if agg {
			cases = aggCases[name]
		}
		if len(cases) == 0 {
			t.Errorf("function %s has no case in the walk (scalarCases or aggCases): add one, and make it run", name)
			continue
		}
		for _, c := range cases {
			query := "SELECT " + c.expr + " FROM src WHERE n < 0"
			if agg {
				query = "SELECT " + c.expr + " FROM src"
			}
			got := walkRun(t, map[string]string{"in.json": walkSource},
				walkTable+"CREATE TABLE out (v "+c.typ+") WITH ('connector' = 'print', 'print-identifier' = 'w');\n"+
					"INSERT INTO out "+query+";\n")
			if want := []string{"[" + c.want + "]"}; !equalLines(got, want) {
				t.Errorf("%s: got %v, want %v", c.expr, got, want)
			}
		}
	}
	for name := range scalarCases {
		if !contains(expr.FunctionNames(), name) || expr.IsAggregate(name) {
			t.Errorf("scalarCases has %s, which is not a scalar function of the registry", name)
		}
	}
	for name := range aggCases {
		if !expr.IsAggregate(name) {
			t.Errorf("aggCases has %s, which is not an aggregate of the registry", name)
		}
	}
}

// walkRun writes files and job.sql into a new directory, checks the job
// (it must pass) and runs it (it must exit 0), and returns the final rows
// of the print sink with identifier w: the changelog applied, sorted.
func walkRun(t *testing.T, files map[string]string, job string) []string {
	t.Helper()
	dir := t.TempDir()
	files["job.sql"] = job
	writeFilesIn(t, dir, files)
	path := filepath.Join(dir, "job.sql")
	if r := invoke("check", path); r.code != 0 {
		t.Errorf("check refused the job:\n%s\n%s", job, r)
		return nil
	}
	r := invoke("run", path)
	if r.code != 0 {
		t.Errorf("check accepted the job but run failed:\n%s\n%s", job, r)
		return nil
	}
	return applyChangelog(t, r.stdout, "w> ")
}

// applyChangelog reads print lines "w> +I[...]" and returns the rows left
// after applying them (+I/+U add, -U/-D remove), sorted.
func applyChangelog(t *testing.T, out, prefix string) []string {
	t.Helper()
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok || len(rest) < 3 {
			continue
		}
		kind, vals := rest[:2], rest[2:]
		switch kind {
		case "+I", "+U":
			rows = append(rows, vals)
		case "-U", "-D":
			i := indexOf(rows, vals)
			if i < 0 {
				t.Errorf("%s retracts %s, which is not there", kind, vals)
				continue
			}
			rows = append(rows[:i], rows[i+1:]...)
		default:
			t.Errorf("unexpected line %q", line)
		}
	}
	sort.Strings(rows)
	return rows
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func contains(xs []string, s string) bool { return indexOf(xs, s) >= 0 }

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCurrentWatermarkRun: CURRENT_WATERMARK(ts) in a projection is NULL
// before the operator's first watermark, then the watermark that last
// passed it: never more than the largest earlier ts minus the delay, never
// going back, and set for the rows of later batches (a file is read 1024
// lines at a time, with a watermark after each batch).
func TestCurrentWatermarkRun(t *testing.T) {
	const n = 3000
	var in strings.Builder
	ts := make([]int64, n)
	for i := range n {
		ts[i] = int64(i) * 1000
		if i%10 == 9 {
			ts[i] -= 30_000 // out of order
		}
		fmt.Fprintf(&in, "{\"i\":%d,\"ts\":\"%s\"}\n", i, time.UnixMilli(1767225600000+ts[i]).UTC().Format("2006-01-02 15:04:05.000"))
	}
	job := `CREATE TABLE src (i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out (i INT, w TIMESTAMP(3)) WITH ('connector' = 'print', 'print-identifier' = 'w');
INSERT INTO out SELECT i, CURRENT_WATERMARK(ts) FROM src;
`
	dir := t.TempDir()
	writeFilesIn(t, dir, map[string]string{"in.json": in.String(), "job.sql": job})
	r := invoke("run", filepath.Join(dir, "job.sql"))
	if r.code != 0 {
		t.Fatalf("run:\n%s", r)
	}
	var lines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "w> +I[") {
			lines = append(lines, l)
		}
	}
	if len(lines) != n {
		t.Fatalf("got %d rows, want %d", len(lines), n)
	}
	maxSeen, last, set := int64(math.MinInt64), int64(math.MinInt64), 0
	for k, l := range lines {
		i0, w, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(l, "w> +I["), "]"), ", ")
		i, _ := strconv.Atoi(i0)
		if i != k {
			t.Fatalf("row %d is i=%d: rows out of order", k, i)
		}
		if k == 0 && w != "null" {
			t.Errorf("the first row sees watermark %s, want NULL", w)
		}
		if w != "null" {
			tm, err := time.Parse("2006-01-02 15:04:05.000", w)
			if err != nil {
				t.Fatalf("row %d: %q: %v", k, l, err)
			}
			wm := tm.UnixMilli() - 1767225600000
			if wm > maxSeen-2000 {
				t.Errorf("row %d sees watermark %d, beyond the largest earlier ts %d minus 2s", k, wm, maxSeen)
			}
			if wm < last {
				t.Errorf("row %d: the watermark went back from %d to %d", k, last, wm)
			}
			last = wm
			set++
		}
		maxSeen = max(maxSeen, ts[k])
	}
	if set < n/2 {
		t.Errorf("only %d of %d rows saw a watermark", set, n)
	}
}
