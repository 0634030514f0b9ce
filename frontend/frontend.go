package frontend

import (
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
)

// CheckJob parses, binds and plans one job file. It never panics on user
// input.
func CheckJob(src *diag.Source) *planner.Job { return CheckJobWith(src, settings.Values{}) }

// CheckJobWith is CheckJob with settings given before the file's own SET
// statements (streamsql run --set), checked by the caller
// (planner.CheckSetting).
func CheckJobWith(src *diag.Source, base settings.Values) *planner.Job {
	f := parser.Parse(src)
	return planner.PlanFile(src, f.Stmts, &f.Diags, base)
}

// CheckSource parses, binds and plans one job file and returns every
// diagnostic, sorted by position.
func CheckSource(src *diag.Source) *diag.List { return CheckJob(src).Diags }
