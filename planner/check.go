package planner

import (
	"path/filepath"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/settings"
)

// Job is one checked job file: its session (catalog, settings, plans) and
// its diagnostics.
type Job struct {
	Source  *diag.Source
	Session *Session
	Diags   *diag.List
}

// PlanFile binds and plans the statements of one parsed job file, with
// settings given before the file's own SET statements (streamsql run
// --set, checked by the caller with CheckSetting), adding to l (the
// parser's diagnostics) and sorting it. It never panics on user input.
// frontend.CheckJob parses and calls it.
func PlanFile(src *diag.Source, stmts []ast.Stmt, l *diag.List, base settings.Values) *Job {
	s := NewSessionWith(base)
	for _, st := range stmts {
		s.Apply(st, l)
	}
	CheckFiles(s.Plans, filepath.Dir(src.Name), l)
	l.Sort()
	return &Job{Source: src, Session: s, Diags: l}
}
