package conntest

import (
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/parser"
)

// Table parses ddl, one CREATE TABLE statement, and returns the checked
// table. It fails the test on any diagnostic.
func Table(t testing.TB, ddl string) *catalog.Table {
	t.Helper()
	f := parser.ParseString("test.sql", ddl)
	if f.Diags.HasErrors() {
		t.Fatalf("parse: %v", f.Diags.Err())
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("want one statement, got %d", len(f.Stmts))
	}
	ct, ok := f.Stmts[0].(*ast.CreateTable)
	if !ok {
		t.Fatalf("not a CREATE TABLE: %T", f.Stmts[0])
	}
	l := f.Diags
	tab := catalog.New().CreateTable(ct, f.Source, &l)
	if l.HasErrors() || tab == nil {
		t.Fatalf("create table: %v", l.Err())
	}
	return tab
}

// SourceSpec is the spec a source factory gets for ddl, with relative paths
// resolved against baseDir.
func SourceSpec(t testing.TB, ddl, baseDir string) connector.Spec {
	t.Helper()
	tab := Table(t, ddl)
	s := tab.ConnectorSpec(tab.SourceColumns())
	s.BaseDir = baseDir
	return s
}

// SinkSpec is the spec a sink factory gets for ddl.
func SinkSpec(t testing.TB, ddl, baseDir string) connector.Spec {
	t.Helper()
	tab := Table(t, ddl)
	s := tab.ConnectorSpec(tab.SinkColumns())
	s.BaseDir = baseDir
	return s
}
