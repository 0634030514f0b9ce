package planner

import (
	"path/filepath"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
)

// Job is one checked job file: its session (catalog, settings, plans) and
// its diagnostics.
type Job struct {
	Source  *diag.Source
	Session *Session
	Diags   *diag.List
}

// CheckJob parses, binds and plans one job file. It never panics on user
// input.
func CheckJob(src *diag.Source) *Job { return CheckJobWith(src, nil) }

// CheckJobWith is CheckJob with settings given before the file's own SET
// statements (streamsql run --set).
func CheckJobWith(src *diag.Source, settings map[string]string) *Job {
	f := parser.Parse(src)
	l := &f.Diags
	s := NewSession()
	for k, v := range settings {
		s.Settings[k] = v
	}
	for _, st := range f.Stmts {
		s.Apply(st, l)
	}
	CheckFiles(s.Plans, filepath.Dir(src.Name), l)
	l.Sort()
	return &Job{Source: src, Session: s, Diags: l}
}

// CheckSource parses, binds and plans one job file and returns every
// diagnostic, sorted by position.
func CheckSource(src *diag.Source) *diag.List { return CheckJob(src).Diags }
