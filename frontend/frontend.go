package frontend

import (
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
)

// CheckJob parses, binds and plans one job file. It never panics on user
// input.
func CheckJob(src *diag.Source) *planner.Job { return CheckJobWith(src, nil) }

// CheckJobWith is CheckJob with settings given before the file's own SET
// statements (streamsql run --set).
func CheckJobWith(src *diag.Source, settings map[string]string) *planner.Job {
	f := parser.Parse(src)
	return planner.PlanFile(src, f.Stmts, &f.Diags, settings)
}

// CheckSource parses, binds and plans one job file and returns every
// diagnostic, sorted by position.
func CheckSource(src *diag.Source) *diag.List { return CheckJob(src).Diags }
