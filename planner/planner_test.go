package planner

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/parser"
)

// TestGolden runs the golden files in testdata. Directives:
//
//	check   parse and bind a job file; print each bound statement's output
//	        columns, then the diagnostics
//	explain parse, bind and plan a job file; print each plan as EXPLAIN
//	        shows it, then the diagnostics
//	rules   parse, bind and plan a job file; print each plan after each
//	        rewrite pass that changed it, with the rules that fired in it
//	        (rules_test.go), then the diagnostics
//	contracts  several job files, each starting at a line "-- file: NAME";
//	        print each file's own diagnostics, then CheckContracts' (see
//	        contract_test.go)
//
// `go test ./planner -rewrite` regenerates the expectations.
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "fuzz") {
			return
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "check":
				return checkOutput(d.Input)
			case "contracts":
				return contractsOutput(t, d.Input)
			case "explain":
				return explainOutput(d.Input)
			case "physical":
				return physicalOutput(d.Input)
			case "rules":
				return rulesOutput(d.Input)
			default:
				t.Fatalf("unknown command %q", d.Cmd)
				return ""
			}
		})
	})
}

func checkOutput(text string) string {
	src := diag.NewSource("job.sql", text)
	j := checkJob(src)
	l := j.Diags
	var b strings.Builder
	for _, p := range j.Session.Plans {
		line, _ := src.Position(p.Stmt.Span().Start)
		fmt.Fprintf(&b, "line %d: %s\n", line, describeColumns(p.Root.Columns()))
	}
	_ = diag.WriteText(&b, l)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

func describeColumns(cols []logical.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type.String()
		if c.Time != 0 {
			parts[i] += " *" + c.Time.String() + "*"
		}
	}
	return strings.Join(parts, ", ")
}

// TestAcceptanceCorpus checks the corpus of the front-end issue: the file as
// a whole, and each statement alone after the DDL it needs, is accepted.
func TestAcceptanceCorpus(t *testing.T) {
	b, err := os.ReadFile("../testdata/acceptance.sql")
	if err != nil {
		t.Fatal(err)
	}
	whole := checkSource(diag.NewSource("acceptance.sql", string(b)))
	if whole.HasErrors() {
		t.Fatalf("the corpus is not accepted as written:\n%v", whole.Err())
	}
	f := parser.ParseString("acceptance.sql", string(b))
	var ddl []string
	n := 0
	for _, st := range f.Stmts {
		text := string(b[st.Span().Start:st.Span().End])
		job := strings.Join(append(append([]string{}, ddl...), text), ";\n") + ";"
		switch st.(type) {
		case *ast.CreateTable, *ast.CreateView, *ast.Set:
			ddl = append(ddl, text)
		}
		l := checkSource(diag.NewSource("stmt.sql", job))
		if l.HasErrors() {
			t.Errorf("statement alone is refused:\n%s\n%v", text, l.Err())
		}
		n++
	}
	if n != 14 {
		t.Errorf("the corpus has 14 statements, found %d", n)
	}
}
