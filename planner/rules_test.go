package planner

import (
	"fmt"
	"path/filepath"
	"strings"

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
