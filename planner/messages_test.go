package planner

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamsql/streamsql/diag"
)

// Internal names that a message must never show: the planner's own
// columns ($grouping0, $set, w0$o0; Flink's EXPR$n is a user-visible name
// and allowed), Go and TiDB type names (PatternRegexpExpr, *ast.Select),
// and TiDB's names for operators (nulleq for <=>, bitand for &).
var (
	internalDollar = regexp.MustCompile(`[A-Za-z0-9_]*\$[A-Za-z0-9_]+`)
	goTypeName     = regexp.MustCompile(`\b[A-Z][a-z]+(?:[A-Z][a-z]+)+(?:Expr|Stmt|Node|Clause|Spec|Def|Option)\b|\*?\b(?:ast|tast|logical|physical|expr|opcode|test_driver)\.[A-Z]`)
	tidbOpName     = regexp.MustCompile(`\b(?:leftshift|rightshift|bitand|bitor|bitxor|bitneg|intdiv|nulleq|isnull|istrue|isfalse|logicand|logicor|logicxor)\b`)
	quotedText     = regexp.MustCompile(`'(?:[^']|'')*'|` + "`[^`]*`")
	flinkExprName  = regexp.MustCompile(`^EXPR\$\d+$`)
)

// internalNames returns what in msg looks like an internal name: outside
// quoted SQL text (a JSON path '$.a' or a quoted identifier is the user's).
func internalNames(msg string) []string {
	msg = quotedText.ReplaceAllString(msg, "''")
	var out []string
	for _, m := range internalDollar.FindAllString(msg, -1) {
		if !flinkExprName.MatchString(m) {
			out = append(out, m)
		}
	}
	out = append(out, goTypeName.FindAllString(msg, -1)...)
	return append(out, tidbOpName.FindAllString(msg, -1)...)
}

// refusalCorpus holds jobs refused for reasons the golden files do not
// cover, chosen where an internal name used to leak: a GROUPING SETS query
// into a sink of other types (the message named $grouping0), MySQL
// operators TiDB parses and we refuse (they were named nulleq, bitand),
// an OVER aggregate's column into a wrong sink (w0$o0).
var refusalCorpus = []string{
	`CREATE TABLE sales (shop STRING, item STRING, amount INT) WITH ('connector' = 'datagen');
CREATE TABLE out1 (shop STRING, total BIGINT, lvl BOOLEAN) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT shop, SUM(amount), GROUPING(shop) FROM sales GROUP BY ROLLUP (shop, item);
INSERT INTO out1 SELECT shop, SUM(amount), GROUPING_ID(shop, item) FROM sales GROUP BY CUBE (shop, item);
INSERT INTO out1 SELECT shop, COUNT(*), shop FROM sales GROUP BY GROUPING SETS ((shop), ());`,
	`CREATE TABLE t (a STRING, b INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE o (a STRING, s BOOLEAN) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT a, SUM(b) OVER (PARTITION BY a ORDER BY ts) FROM t;
INSERT INTO o SELECT a, LAG(b) OVER (PARTITION BY a ORDER BY ts) FROM t;`,
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT a FROM t WHERE b <=> 1;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT b & 1 FROM t;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT b | 1 FROM t;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT b << 1 FROM t;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT ~b FROM t;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT a FROM t WHERE a REGEXP 'x';",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT MATCH (a) AGAINST ('x') FROM t;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT a FROM t WHERE b > ALL (SELECT b FROM t);",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT DEFAULT(a) FROM t;",
	"CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'datagen');\nSELECT a FROM t GROUP BY a WITH ROLLUP;",
}

// TestMessagesHaveNoInternalNames checks every diagnostic (message, notes
// and hints) of the golden files' jobs and of refusalCorpus for internal
// names: a user should read only their own SQL's names and Flink's.
func TestMessagesHaveNoInternalNames(t *testing.T) {
	checked := 0
	check := func(t *testing.T, where, text string) {
		src := diag.NewSource("job.sql", text)
		j := checkJob(src)
		for _, d := range j.Diags.Items {
			texts := append([]string{d.Msg}, d.Hints...)
			for _, n := range d.Notes {
				texts = append(texts, n.Msg)
			}
			for _, s := range texts {
				checked++
				if bad := internalNames(s); len(bad) > 0 {
					t.Errorf("%s: a message shows internal names %q:\n  %s [%s]\nin the job:\n%s", where, bad, s, d.Code, text)
				}
			}
		}
	}
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "fuzz") {
			return
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "contracts" {
				for _, f := range splitFiles(t, d.Input) {
					check(t, d.Pos+" "+f.Name, f.Text)
				}
			} else {
				check(t, d.Pos, d.Input)
			}
			return d.Expected
		})
	})
	for i, text := range refusalCorpus {
		check(t, fmt.Sprintf("refusalCorpus[%d]", i), text)
	}
	if checked < 100 {
		t.Fatalf("only %d messages checked: the corpus did not run", checked)
	}
}

// TestInternalNamesFinds checks the detector itself on names that leaked
// before and on text that is the user's.
func TestInternalNamesFinds(t *testing.T) {
	for msg, want := range map[string]int{
		"column 3 of the query ($grouping0, BIGINT NOT NULL) cannot be written": 1,
		"hint: CAST it: CAST(w0$o0 AS BOOLEAN)":                                 1,
		"unsupported expression PatternRegexpExpr":                              1,
		"operator nulleq is not supported":                                      1,
		"unexpected *ast.Select":                                                1,
		"column 2 of the query (EXPR$1, BIGINT) cannot be written":              0,
		"JSON_VALUE(s, '$.a.b') returns STRING":                                 0,
		"unknown column `a$b`":                                                  0,
	} {
		if got := len(internalNames(msg)); got != want {
			t.Errorf("internalNames(%q) found %d names, want %d", msg, got, want)
		}
	}
}
