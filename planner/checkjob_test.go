package planner

import (
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/settings"
)

// checkJob is frontend.CheckJob, which the planner's own tests cannot
// import (frontend imports planner).
func checkJob(src *diag.Source) *Job {
	f := parser.Parse(src)
	return PlanFile(src, f.Stmts, &f.Diags, settings.Values{})
}

// checkSource is frontend.CheckSource.
func checkSource(src *diag.Source) *diag.List { return checkJob(src).Diags }
