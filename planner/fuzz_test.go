package planner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
)

// FuzzFrontEnd feeds random and mutated job files through the whole front
// end (lexer, dialect layer, TiDB, conversion, catalog, binder). It must
// never panic, and every diagnostic must point inside the input.
func FuzzFrontEnd(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/*.sql")
	examples, _ := filepath.Glob("../examples/*.sql")
	seeds = append(seeds, examples...)
	more, _ := filepath.Glob("testdata/*")
	for _, p := range append(seeds, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// Whole files are too large a seed for the mutator (it stalls);
		// statements alone cover the same grammar.
		for _, stmt := range strings.Split(string(b), ";") {
			f.Add(stmt + ";")
		}
	}
	// Comments where the lexers of Flink and TiDB disagree (our layer
	// decides: -- to the end of the line, /* */, never #).
	for _, s := range []string{
		"SELECT n --n\nFROM t;",
		"SELECT n--n\n, m FROM t;",
		"SELECT a /*! , b */ FROM t;",
		"SELECT a /*T! , b */ FROM t;",
		"SELECT a # c\nFROM t;",
		"SELECT a, '--x', '/* y */' FROM t WHERE s = '#' -- c\n;",
		"CREATE TABLE t (a INT --a\n, ts AS TO_TIMESTAMP_LTZ(a --a\n, 3), WATERMARK FOR ts AS ts --ts\n - INTERVAL '1' SECOND) WITH ('connector' = 'print' --x\n);",
		"SET parallelism = 4 --four\n;",
		"SELECT /*+ STATE_TTL('o' = '1d') */ a --a\nFROM t /* x */ AS o;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<14 {
			return
		}
		src := diag.NewSource("fuzz.sql", text)
		l := checkSource(src)
		for _, d := range l.Items {
			if d.Span.IsValid() && (int(d.Span.Start) > len(text) || d.Span.End < d.Span.Start) {
				t.Fatalf("diagnostic %q has span %v outside the input of %d bytes", d.Msg, d.Span, len(text))
			}
		}
		// Every statement that parsed prints back to text that parses.
		for _, st := range parser.Parse(src).Stmts {
			out := ast.Format(st)
			again := parser.ParseString("again.sql", out+";")
			if again.Diags.HasErrors() {
				t.Fatalf("statement %q formats as %q, which does not parse: %v", text, out, again.Diags.Err())
			}
		}
	})
}
