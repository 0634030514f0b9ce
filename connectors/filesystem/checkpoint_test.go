package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

var (
	_ connector.Positioner       = (*Source)(nil)
	_ connector.SinkCheckpointer = (*Sink)(nil)
)

// readFrom reads a source to its end, recording the position after every
// Read: rows[i] are the rows of Read i, pos[i] the position after it.
func readFrom(t *testing.T, src *Source) (batches []row.Batch, pos [][]byte, bad []string) {
	t.Helper()
	for range 100000 {
		_, b, err := src.Read(context.Background())
		var br *connector.BadRowError
		switch {
		case errors.Is(err, io.EOF):
			return batches, pos, bad
		case errors.As(err, &br):
			bad = append(bad, br.Where)
		case err != nil:
			t.Fatal(err)
		}
		p, err := src.Position()
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, b)
		pos = append(pos, p)
	}
	t.Fatal("no io.EOF")
	return nil, nil, nil
}

func rowsText(bs []row.Batch) []string {
	var out []string
	for _, b := range bs {
		for _, r := range b {
			out = append(out, fmt.Sprint(r.Vals))
		}
	}
	return out
}

// A source resumed from the position after any Read returns exactly the
// rows after it, with their line numbers: through a byte order mark, CRLF
// lines, empty lines (skipped in json, bad records in csv), a line longer than the read buffer, a csv record over
// several lines and a bad line.
func TestSourceSeekResumesExactly(t *testing.T) {
	for _, tc := range []struct{ format, extra string }{{"json", ""}, {"csv", ", 'csv.ignore-parse-errors' = 'false'"}} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			var sb strings.Builder
			sb.WriteString("\xef\xbb\xbf")
			for i := range 3500 {
				name := fmt.Sprint("n", i)
				switch {
				case i == 1200:
					name = strings.Repeat("x", 100<<10)
				case i == 2047 && tc.format == "csv":
					name = "two\nlines"
				}
				switch i {
				case 900:
					sb.WriteString("\n\n")
				case 1500:
					sb.WriteString("not a row\n")
				}
				if tc.format == "json" {
					fmt.Fprintf(&sb, `{"id": %d, "name": %q, "ts": "2026-01-01 00:00:00"}`, i, name)
				} else {
					fmt.Fprintf(&sb, "%d,\"%s\",2026-01-01 00:00:00", i, name)
				}
				if i%3 == 0 {
					sb.WriteString("\r\n")
				} else if i < 3499 {
					sb.WriteString("\n")
				}
			}
			write(t, dir, "in/events.json", sb.String())
			spec := conntest.SourceSpec(t, ddl(tc.format, tc.extra), dir)
			batches, pos, bad := readFrom(t, openSource(t, spec))
			all := rowsText(batches)
			wantBad := 1 // "not a row"
			if tc.format == "csv" {
				wantBad = 3 // and the two empty lines, each a record of one empty field (as Flink reads csv)
			}
			if len(all) != 3500 || len(bad) != wantBad {
				t.Fatalf("%d rows, bad %v", len(all), bad)
			}
			for i, p := range pos {
				src := openSource(t, spec)
				if err := src.Seek(p); err != nil {
					t.Fatal(err)
				}
				rest, _, _ := readFrom(t, src)
				got := append(rowsText(batches[:i+1]), rowsText(rest)...)
				if strings.Join(got, "\n") != strings.Join(all, "\n") {
					t.Fatalf("resumed after Read %d (%s): %d rows, want %d", i, p, len(got), len(all))
				}
			}
		})
	}
}

func TestSourceSeekRefusesAChangedFile(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "in/events.json", `{"id": 1}`+"\n"+`{"id": 2}`+"\n")
	spec := conntest.SourceSpec(t, ddl("json", ""), dir)
	_, pos, _ := readFrom(t, openSource(t, spec))
	p := pos[len(pos)-1]
	for _, tc := range []struct{ text, want string }{
		{`{"id": 1}` + "\n", "shorter than when the checkpoint was taken"},
		{`{"id": 1}` + "\n" + `{"id": 22}` + "\n", "does not end a line at byte 20"},
	} {
		write(t, dir, "in/events.json", tc.text)
		src := openSource(t, spec)
		err := src.Seek(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Seek in %q: %v", tc.text, err)
		}
	}
	src := openSource(t, spec)
	for _, bad := range []string{"", "{}", `{"v":2,"offset":1}`, `{"v":1,"offset":-1}`, "\x00"} {
		if err := src.Seek([]byte(bad)); err == nil {
			t.Errorf("Seek(%q) accepted", bad)
		}
	}
}

// The sink, resumed from a checkpoint after more rows reached the file,
// cuts them off: writing the rest again gives the clean run's file.
func TestSinkResumeTruncates(t *testing.T) {
	const table = `CREATE TABLE o (id BIGINT, name STRING) WITH ('connector'='filesystem','path'='out/o.json','format'='json')`
	ctx := context.Background()
	rows := func(from, to int) row.Batch {
		var b row.Batch
		for i := from; i < to; i++ {
			b = append(b, row.Row{Kind: changelogmode.Insert, Vals: []row.Value{row.IntValue(int64(i)), row.StrValue(fmt.Sprint("name", i))}})
		}
		return b
	}
	clean := t.TempDir()
	s, _ := NewSink(conntest.SinkSpec(t, table, clean))
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3000; i += 100 {
		if err := s.Write(ctx, rows(i, i+100)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(s.Path())

	for _, cut := range []int{0, 100, 1700, 3000} {
		dir := t.TempDir()
		s, _ := NewSink(conntest.SinkSpec(t, table, dir))
		if err := s.Open(ctx); err != nil {
			t.Fatal(err)
		}
		var state []byte
		for i := 0; i < 3000; i += 100 {
			if i == cut {
				var err error
				if state, err = s.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Write(ctx, rows(i, i+100)); err != nil {
				t.Fatal(err)
			}
		}
		if cut == 3000 {
			state, _ = s.Checkpoint(ctx)
		}
		_ = s.Flush(ctx) // rows after the checkpoint reached the file; then the process dies
		s2, _ := NewSink(conntest.SinkSpec(t, table, dir))
		if err := s2.Resume(ctx, state); err != nil {
			t.Fatal(err)
		}
		for i := cut; i < 3000; i += 100 {
			if err := s2.Write(ctx, rows(i, i+100)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(s2.Path())
		if string(got) != string(want) {
			t.Fatalf("checkpoint before row %d: the resumed file has %d bytes, the clean run's %d", cut, len(got), len(want))
		}
		s.Close()
	}

	// A file shorter than at the checkpoint is refused.
	dir := t.TempDir()
	s, _ = NewSink(conntest.SinkSpec(t, table, dir))
	_ = s.Open(ctx)
	_ = s.Write(ctx, rows(0, 10))
	state, _ := s.Checkpoint(ctx)
	s.Close()
	_ = os.Truncate(s.Path(), 5)
	s2, _ := NewSink(conntest.SinkSpec(t, table, dir))
	if err := s2.Resume(ctx, state); err == nil || !strings.Contains(err.Error(), "fewer than the") {
		t.Errorf("resume on a shortened file: %v", err)
	}
	if err := s2.Resume(ctx, []byte(`{"v":9}`)); err == nil {
		t.Error("an unknown state was accepted")
	}
}
