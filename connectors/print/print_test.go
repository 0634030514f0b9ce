package print

import (
	"bytes"
	"context"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

const table = `CREATE TABLE out (id BIGINT, name STRING, ts TIMESTAMP(3), price DECIMAL(10, 2), ok BOOLEAN)
WITH ('connector' = 'print'%s)`

func sink(t *testing.T, extra string) (connector.Sink, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errw bytes.Buffer
	oldOut, oldErr := Stdout, Stderr
	Stdout, Stderr = &out, &errw
	t.Cleanup(func() { Stdout, Stderr = oldOut, oldErr })
	f, ok := connector.LookupSink("print")
	if !ok {
		t.Fatal("print not registered")
	}
	ddl := table[:len(table)-3] + extra + ")"
	s, err := f(conntest.SinkSpec(t, ddl, ""))
	if err != nil {
		t.Fatal(err)
	}
	return s, &out, &errw
}

func rows() row.Batch {
	vals := []row.Value{row.IntValue(1), row.StrValue("abc"), row.IntValue(1767225600000), row.IntValue(1230), row.BoolValue(true)}
	return row.Batch{
		row.Insert(vals...),
		{Kind: changelogmode.UpdateBefore, Vals: vals},
		{Kind: changelogmode.UpdateAfter, Vals: []row.Value{row.IntValue(2), row.NullValue, row.NullValue, row.IntValue(-5), row.BoolValue(false)}},
		{Kind: changelogmode.Delete, Vals: vals},
	}
}

func TestPrint(t *testing.T) {
	s, out, errw := sink(t, "")
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, rows()); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := `+I[1, abc, 2026-01-01 00:00:00.000, 12.30, true]
-U[1, abc, 2026-01-01 00:00:00.000, 12.30, true]
+U[2, null, null, -0.05, false]
-D[1, abc, 2026-01-01 00:00:00.000, 12.30, true]
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if errw.Len() != 0 {
		t.Errorf("stderr: %q", errw)
	}
}

func TestPrintIdentifierToStderr(t *testing.T) {
	s, out, errw := sink(t, ", 'print-identifier' = 'orders', 'standard-error' = 'true'")
	if err := s.Write(context.Background(), rows()[:1]); err != nil {
		t.Fatal(err)
	}
	if want := "orders> +I[1, abc, 2026-01-01 00:00:00.000, 12.30, true]\n"; errw.String() != want {
		t.Errorf("got %q, want %q", errw, want)
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out)
	}
}
