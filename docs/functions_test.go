package docs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/expr"
)

const funcBegin, funcEnd = "<!-- function table: begin -->\n", "<!-- function table: end -->\n"

// TestFunctionTable: docs/sql.md lists every built-in function, each with
// its Flink status, exactly as expr.FunctionDocs gives them, and those
// rows agree with the function registry (expr.FunctionDocsProblems): a
// function added to the registry without its row, or a row marked
// supported for a function that is not there, fails here.
// STREAMSQL_REWRITE_DOCS=1 rewrites the table.
func TestFunctionTable(t *testing.T) {
	for _, p := range expr.FunctionDocsProblems() {
		t.Error(p)
	}
	var b strings.Builder
	b.WriteString("| Function | Group | Flink |\n|---|---|---|\n")
	for _, d := range expr.FunctionDocs() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.Name, d.Group, strings.ReplaceAll(d.Flink, "|", "\\|"))
	}
	got := b.String()
	const path = "sql.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, funcBegin), strings.Index(text, funcEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q … %q", path, funcBegin, funcEnd)
	}
	if os.Getenv("STREAMSQL_REWRITE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(text[:i+len(funcBegin)]+got+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if body := text[i+len(funcBegin) : j]; body != got {
		t.Errorf("%s: the function table differs from expr.FunctionDocs (expr/flinkdocs.go); STREAMSQL_REWRITE_DOCS=1 rewrites it.\n--- want:\n%s--- have:\n%s", path, got, body)
	}
}
