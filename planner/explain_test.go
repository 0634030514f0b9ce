package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/diag"
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
