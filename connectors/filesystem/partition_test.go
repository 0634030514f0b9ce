package filesystem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

var (
	_ connector.SinkCheckpointer = (*PartSink)(nil)
)

const partDDL = `CREATE TABLE t (id BIGINT, name STRING, dt STRING, hr INT) PARTITIONED BY (dt, hr)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');`

// partRows are n rows over a few partitions, with NULL and a value that
// needs escaping ('a/b=c') among the partition values.
func partRows(r *rand.Rand, from, n int) row.Batch {
	dts := []row.Value{row.StrValue("2026-01-01"), row.StrValue("2026-01-02"), row.StrValue("a/b=c"), row.NullValue, row.StrValue("")}
	var b row.Batch
	for i := from; i < from+n; i++ {
		hr := row.IntValue(int64(r.Intn(3)))
		if r.Intn(10) == 0 {
			hr = row.NullValue
		}
		b = append(b, row.Insert(row.IntValue(int64(i)), row.StrValue(fmt.Sprintf("n%d", i)), dts[r.Intn(len(dts))], hr))
	}
	return b
}

// text is the rows as the source gives them back: an empty partition
// value reads back as NULL (Flink's default partition holds both).
func text(b row.Batch) []string {
	var out []string
	for _, r := range b {
		v := slices.Clone(r.Vals)
		if !v[2].IsNull() && v[2].Str() == "" {
			v[2] = row.NullValue
		}
		out = append(out, fmt.Sprint(v))
	}
	sort.Strings(out)
	return out
}

func readDir(t *testing.T, dir string) row.Batch {
	t.Helper()
	src, err := NewSource(conntest.SourceSpec(t, partDDL, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out row.Batch
	for {
		_, b, err := src.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
}

// TestPartitionedRoundTrip: the sink writes key=value/ directories (Flink's
// layout: the partition columns are not in the files; NULL and ” are
// __DEFAULT_PARTITION__; '/' and '=' escaped), and the source reading the
// directory gives back every row.
func TestPartitionedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := NewPartSink(conntest.SinkSpec(t, partDDL, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	rows := partRows(rand.New(rand.NewSource(1)), 0, 300)
	if err := s.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"dt=2026-01-01/hr=0/part-0", "dt=a%2Fb%3Dc/hr=1/part-0", "dt=__DEFAULT_PARTITION__/hr=2/part-0"} {
		if _, err := os.Stat(filepath.Join(dir, "out", p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "dt=2026-01-01", "hr=0", "part-0"))
	if err != nil || len(b) == 0 || bytes.Contains(b, []byte(`"dt"`)) || bytes.Contains(b, []byte(`"hr"`)) {
		t.Fatalf("part file (without the partition columns): %q, %v", b, err)
	}
	if want := `{"id":`; string(b[:len(want)]) != want {
		t.Errorf("part file starts %q", b)
	}
	got, want := text(readDir(t, dir)), text(rows)
	if !slices.Equal(got, want) {
		t.Fatalf("read back %d rows, wrote %d:\n%v\n%v", len(got), len(want), got, want)
	}
}

// TestPartitionedResume: rows written after a checkpoint (into existing
// partitions and new ones) are cut away by Resume, so the resumed job's
// rewrite leaves each row once; a fresh Open removes an old run's files.
func TestPartitionedResume(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		dir := t.TempDir()
		r := rand.New(rand.NewSource(seed))
		ctx := context.Background()
		s, _ := NewPartSink(conntest.SinkSpec(t, partDDL, dir))
		if err := s.Open(ctx); err != nil {
			t.Fatal(err)
		}
		n1, n2 := 1+r.Intn(50), 1+r.Intn(50)
		first := partRows(r, 0, n1)
		after := partRows(r, n1, n2)
		if err := s.Write(ctx, first); err != nil {
			t.Fatal(err)
		}
		state, err := s.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(ctx, after); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// The crash: the sink is dropped with what it wrote on disk.
		s2, _ := NewPartSink(conntest.SinkSpec(t, partDDL, dir))
		if err := s2.Resume(ctx, state); err != nil {
			t.Fatal(err)
		}
		if got, want := text(readDir(t, dir)), text(first); !slices.Equal(got, want) {
			t.Fatalf("seed %d: after Resume the directory holds %d rows, the checkpoint %d", seed, len(got), len(want))
		}
		if err := s2.Write(ctx, after); err != nil {
			t.Fatal(err)
		}
		if err := s2.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := text(readDir(t, dir)), text(append(slices.Clone(first), after...)); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %d rows after the resumed run, want %d", seed, len(got), len(want))
		}
		s3, _ := NewPartSink(conntest.SinkSpec(t, partDDL, dir))
		if err := s3.Open(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s3.Close(); err != nil {
			t.Fatal(err)
		}
		if got := readDir(t, dir); len(got) != 0 {
			t.Fatalf("seed %d: a new run's Open left %d rows of the old one", seed, len(got))
		}
	}
}

// TestDirectorySourceResumes: a source reading a directory resumes from
// the position after any Read with exactly the rows after it.
func TestDirectorySourceResumes(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, _ := NewPartSink(conntest.SinkSpec(t, partDDL, dir))
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	rows := partRows(rand.New(rand.NewSource(3)), 0, 3000)
	if err := s.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	open := func() *Source {
		src, err := NewSource(conntest.SourceSpec(t, partDDL, dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Open(ctx); err != nil {
			t.Fatal(err)
		}
		return src
	}
	batches, pos, _ := readFrom(t, open())
	if len(batches) < 3 {
		t.Fatalf("only %d batches", len(batches))
	}
	all := rowsText(batches)
	for i := range pos {
		src := open()
		if err := src.Seek(pos[i]); err != nil {
			t.Fatal(err)
		}
		rest, _, _ := readFrom(t, src)
		if got, want := append(rowsText(batches[:i+1]), rowsText(rest)...), all; !slices.Equal(got, want) {
			t.Fatalf("resumed after Read %d (%s): %d rows in all, want %d", i, pos[i], len(got), len(want))
		}
		src.Close()
	}
}
