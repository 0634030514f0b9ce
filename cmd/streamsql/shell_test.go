package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/types"
)

// invokeShell runs `streamsql shell args...` in-process with stdin as its
// (non-terminal) standard input.
func invokeShell(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	old := shellStdin
	shellStdin = strings.NewReader(stdin)
	defer func() { shellStdin = old }()
	return invoke(append([]string{"shell"}, args...)...)
}

const numsTable = `CREATE TABLE nums (
  n BIGINT
) WITH ('connector' = 'datagen', 'number-of-rows' = '4',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '4');
`

// Piped statements run in order and the shell exits: a SELECT over a
// bounded source prints its rows tableau-style and ends; an INSERT job is
// waited for.
func TestShellPiped(t *testing.T) {
	r := invokeShell(t, numsTable+`
SHOW TABLES;
SELECT n, n * n AS square FROM nums WHERE n > 1;
CREATE TABLE out (n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO out SELECT n FROM nums WHERE n <= 2;
`)
	if r.code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	want := `[INFO] Table nums created.
+------------+
| table name |
+------------+
| nums       |
+------------+
1 row in set
+----+----------------------+----------------------+
| op |                    n |               square |
+----+----------------------+----------------------+
| +I |                    2 |                    4 |
| +I |                    3 |                    9 |
| +I |                    4 |                   16 |
+----+----------------------+----------------------+
Query finished. Received a total of 3 changes.
[INFO] Table out created.
[INFO] Submitted job 1. SHOW JOBS lists it; STOP JOB '1' stops it.
`
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", r.stdout, want)
	}
	// The job's rows follow, after the shell waited for it.
	if !strings.Contains(r.stdout, "out> +I[1]\nout> +I[2]\n") {
		t.Errorf("the INSERT job's print sink did not print its rows:\n%s", r)
	}
}

// A piped shell stops at the first statement with an error, prints it with
// its line and caret, and exits 1. A CREATE TABLE with an error creates
// nothing.
func TestShellPipedStopsAtError(t *testing.T) {
	r := invokeShell(t, numsTable+`CREATE TABLE bad (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '1');
SELECT n FROM nums;
`)
	if r.code != 1 {
		t.Fatalf("want exit 1:\n%s", r)
	}
	if !strings.Contains(r.stderr, "<stdin>:5:60: error:") || !strings.Contains(r.stderr, "    5 | CREATE TABLE bad") {
		t.Errorf("want the diagnostic at <stdin>:5:60 with its line:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "Query") {
		t.Errorf("the SELECT after the error ran:\n%s", r.stdout)
	}

	sh := newShell(&strings.Builder{}, &strings.Builder{})
	defer sh.close()
	sh.execText("<test>", "CREATE TABLE bad (x BIGINT) WITH ('connector' = 'nope');")
	if _, ok := sh.sess.Catalog.Table("bad"); ok {
		t.Errorf("a CREATE TABLE with errors left its table in the catalog")
	}
}

// A note points at a statement typed earlier, in the session's text.
func TestShellNotesPointAtEarlierInput(t *testing.T) {
	var out, errs strings.Builder
	sh := newShell(&out, &errs)
	defer sh.close()
	sh.execText("<shell>", numsTable)
	sh.execText("<shell>", "CREATE TABLE nums (m INT) WITH ('connector' = 'blackhole');")
	want := "<shell>:1:14: note: first defined here\n    1 | CREATE TABLE nums (\n      |              ^^^^\n"
	if !strings.Contains(errs.String(), "<shell>:5:14: error: table nums is already defined") || !strings.Contains(errs.String(), want) {
		t.Errorf("diagnostics:\n%s\nwant the error at line 5 and the note at line 1:\n%s", errs.String(), want)
	}
}

func TestShellSetDescribeExplainJobs(t *testing.T) {
	r := invokeShell(t, numsTable+`CREATE TABLE keyed (
  id BIGINT, name STRING, ts TIMESTAMP(3), total AS id * 2,
  PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
SET;
SET 'table.exec.state.ttl' = '1h';
SET;
DESCRIBE keyed;
EXPLAIN SELECT n FROM nums;
SHOW JOBS;
RESET;
SET;
HELP
`)
	if r.code != 0 {
		t.Fatalf("want exit 0:\n%s", r)
	}
	for _, want := range []string{
		"[INFO] No settings: every key has its default.",
		"[INFO] Set 'table.exec.state.ttl' = '1h'.",
		"| table.exec.state.ttl | 1h    |",
		"| id    | BIGINT                 | FALSE | PRI(id) |           |                          |",
		"| total | BIGINT                 | TRUE  |         | AS id * 2 |                          |",
		"| ts    | TIMESTAMP(3) *ROWTIME* | TRUE  |         |           | ts - INTERVAL '1' SECOND |",
		"primary key: (id) NOT ENFORCED",
		"watermark: ts AS ts - INTERVAL '1' SECOND",
		"  'number-of-rows' = '1'",
		"Scan nums (datagen)",
		"[INFO] No jobs. INSERT INTO submits one.",
		"[INFO] Every setting is back to its default.",
		"STOP JOB 'id';",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "[INFO] No settings"); n != 2 {
		t.Errorf("SET after RESET: want no settings again, got %d 'No settings' lines", n)
	}
}

func TestShellUsage(t *testing.T) {
	if r := invokeShell(t, "", "-f", "/no/such/file.sql"); r.code != 2 {
		t.Errorf("a missing -f file: want exit 2:\n%s", r)
	}
	init := writeJob(t, "init.sql", numsTable)
	r := invokeShell(t, "SELECT n FROM nums WHERE n = 4;\n", "-f", init)
	if r.code != 0 || !strings.Contains(r.stdout, "| +I |                    4 |") {
		t.Errorf("-f then piped statements:\n%s", r)
	}
}

func TestShellComplete(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"SELECT 1;", true},
		{"SELECT 1", false},
		{"SELECT ';'", false},
		{"SELECT ';' ;  ", true},
		{"SELECT 1; -- done", true},
		{"SELECT 1 -- not yet;", false},
		{"SELECT /* ; */ 1", false},
		{"SELECT `a;b` FROM t", false},
		{"SELECT 'it''s;'", false},
		{"SELECT 'open;", false},
		{"BEGIN STATEMENT SET;", false},
		{"BEGIN STATEMENT SET;\nINSERT INTO a SELECT * FROM b;", false},
		{"BEGIN STATEMENT SET;\nINSERT INTO a SELECT * FROM b;\nEND;", true},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b; END;", true},
	} {
		if got := complete(tc.text); got != tc.want {
			t.Errorf("complete(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	for _, l := range []string{"quit", "EXIT;", " help ", "?"} {
		if _, ok := shellWord(l); !ok {
			t.Errorf("shellWord(%q): not recognised", l)
		}
	}
	if _, ok := shellWord("quit now"); ok {
		t.Errorf("shellWord(quit now) recognised")
	}
}

func TestShellCompleter(t *testing.T) {
	s := planner.NewSession()
	f := parser.ParseString("t.sql", `CREATE TABLE orders (order_id BIGINT, amount INT) WITH ('connector' = 'blackhole');
CREATE TABLE other (oid BIGINT) WITH ('connector' = 'blackhole');`)
	for _, st := range f.Stmts {
		s.Apply(st, &f.Diags)
	}
	c := &completer{sess: s}
	do := func(line string) []string {
		cands, n := c.Do([]rune(line), len([]rune(line)))
		var out []string
		for _, r := range cands {
			out = append(out, line[len(line)-n:]+string(r))
		}
		return out
	}
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"SELECT * FROM or", []string{"orders "}},
		{"SELECT * FROM o", []string{"orders ", "other "}},
		{"DESCRIBE ", []string{"orders ", "other "}},
		{"SELECT amo", []string{"amount"}},
		{"SEL", []string{"SELECT "}},
		{"sel", []string{"select "}},
		{"SELECT orders.ord", []string{"orders.order_id"}},
		{"SELECT o.", []string{"o.amount", "o.oid", "o.order_id"}},
		{"SET 'sql-cl", []string{"sql-client.execution.result-mode'"}},
		{"SELECT TO_TIMESTAMP_L", []string{"TO_TIMESTAMP_LTZ("}},
		{"SELECT ", []string{"amount", "oid", "order_id", "orders ", "other "}}, // names, no keywords
		{"", []string{"orders ", "other "}},
	} {
		got := do(tc.line)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("completing %q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestShellSetKeysAreKnown(t *testing.T) {
	for _, k := range setKeys {
		if !settings.Known(k) {
			t.Errorf("SET completes %q, which the planner does not know", k)
		}
	}
}

// The table mode applies changes to a multiset: an update keeps its row's
// place, a delete removes one of two equal rows.
func TestShellTableMode(t *testing.T) {
	var out strings.Builder
	v := newView(&out, modeTable, false)
	sink := v.sink([]connector.Column{{Name: "k", Type: types.StringType()}, {Name: "n", Type: types.New(types.BigInt)}})
	r := func(k changelogmode.Kind, key string, n int64) row.Row {
		return row.Row{Kind: k, Vals: []row.Value{row.StrValue(key), row.IntValue(n)}}
	}
	batch := row.Batch{
		r(changelogmode.Insert, "a", 1),
		r(changelogmode.Insert, "b", 1),
		r(changelogmode.Insert, "b", 1),
		r(changelogmode.UpdateBefore, "a", 1),
		r(changelogmode.UpdateAfter, "a", 2),
		r(changelogmode.Delete, "b", 1),
	}
	if err := sink.Write(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	v.start(nil)
	if err := v.finish(false); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := `| a                              |                    2 |
| b                              |                    1 |
+--------------------------------+----------------------+
Query finished. 2 rows in the result, from 6 changes.
`
	if !strings.HasSuffix(got, want) {
		t.Errorf("table:\n%s\nwant it to end with:\n%s", got, want)
	}
}

// TestShellRefusesASinkOnItsInput: the shell checks a job's files as a job
// file's check does (SQL410), with paths from the shell's directory, and
// the refused INSERT leaves no job and an untouched input.
func TestShellRefusesASinkOnItsInput(t *testing.T) {
	var out, errs strings.Builder
	sh := newShell(&out, &errs)
	defer sh.close()
	sh.baseDir = t.TempDir()
	in := filepath.Join(sh.baseDir, "in.json")
	if err := os.WriteFile(in, []byte(`{"n":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := sh.execText("<test>", `CREATE TABLE src (n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE dst (n BIGINT) WITH ('connector' = 'filesystem', 'path' = '`+in+`', 'format' = 'json');
INSERT INTO dst SELECT n FROM src;
`)
	if ok || !strings.Contains(errs.String(), "[SQL410]") {
		t.Errorf("want the INSERT refused with SQL410:\nstdout:\n%s\nstderr:\n%s", out.String(), errs.String())
	}
	if strings.Contains(out.String(), "Submitted job") {
		t.Errorf("the refused INSERT was submitted:\n%s", out.String())
	}
	if b, _ := os.ReadFile(in); string(b) != `{"n":1}`+"\n" {
		t.Errorf("the input was touched: %q", b)
	}
}
