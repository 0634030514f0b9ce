package planner

import (
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
)

// CheckSource parses and binds one job file and returns every diagnostic,
// sorted by position. It never panics on user input.
func CheckSource(src *diag.Source) *diag.List {
	f := parser.Parse(src)
	l := &f.Diags
	s := NewSession()
	for _, st := range f.Stmts {
		s.Apply(st, l)
	}
	l.Sort()
	return l
}
