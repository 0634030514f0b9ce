package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/physical"
)

func explainOutput(text string) string {
	src := diag.NewSource("job.sql", text)
	j := checkJob(src)
	var b strings.Builder
	for _, p := range j.Session.Plans {
		line, _ := src.Position(p.Stmt.Span().Start)
		fmt.Fprintf(&b, "line %d:\n%s", line, p.Text())
	}
	_ = diag.WriteText(&b, j.Diags)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

// physicalOutput renders the physical plans of a job (its INSERTs and
// SELECTs, lowered together as exec gets them), then its diagnostics.
func physicalOutput(text string) string {
	src := diag.NewSource("job.sql", text)
	j := checkJob(src)
	var b strings.Builder
	var run []*Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			run = append(run, p)
		}
	}
	phys, err := Lower(run)
	if err != nil {
		fmt.Fprintf(&b, "lowering: %v\n", err)
	}
	for i, p := range phys {
		line, _ := src.Position(run[i].Stmt.Span().Start)
		fmt.Fprintf(&b, "line %d:\n%s", line, physical.Text(p))
	}
	_ = diag.WriteText(&b, j.Diags)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}
