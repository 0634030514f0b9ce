package planner

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
)

// rulesOutput plans a job file with a tracing session and prints, for each
// plan, the tree after each rewrite pass that changed it (the rules, then
// the upsert materializer and the changelog normalizer), with the rules
// that fired in it; then the diagnostics.
func rulesOutput(text string) string {
	src := diag.NewSource("job.sql", text)
	f := parser.Parse(src)
	s := NewSession()
	s.Trace = true
	for _, st := range f.Stmts {
		s.Apply(st, &f.Diags)
	}
	CheckFiles(s.Plans, filepath.Dir(src.Name), &f.Diags)
	f.Diags.Sort()
	var b strings.Builder
	for _, p := range s.Plans {
		line, _ := src.Position(p.Stmt.Span().Start)
		fmt.Fprintf(&b, "line %d:\n", line)
		for _, st := range p.Steps {
			fmt.Fprintf(&b, "%s:\n", st.Rule)
			for _, fr := range st.Fired {
				fmt.Fprintf(&b, "  %s: %s\n", fr.Rule, fr.Reason)
			}
			b.WriteString(st.Tree)
		}
	}
	_ = diag.WriteText(&b, &f.Diags)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

// TestRewritesLeaveTheirInput: every rewrite pass returns a new plan and
// leaves the one it was given as it was, so that each step of a trace still
// draws as it did when it was taken, after every later pass ran. It plans
// the input of every golden in testdata.
func TestRewritesLeaveTheirInput(t *testing.T) {
	plans := 0
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "fuzz") {
			return
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "contracts" {
				return d.Expected
			}
			f := parser.Parse(diag.NewSource("job.sql", d.Input))
			s := NewSession()
			s.Trace = true
			for _, st := range f.Stmts {
				s.Apply(st, &f.Diags)
			}
			for _, p := range s.Plans {
				plans++
				for i, st := range p.Steps {
					if now := treeText(st.root); now != st.Tree {
						t.Errorf("%s: step %d (%s) drew\n%s\nand after the later passes draws\n%s", d.Pos, i, st.Rule, st.Tree, now)
					}
				}
			}
			return d.Expected
		})
	})
	if plans < 100 {
		t.Errorf("only %d plans checked", plans)
	}
}
