package filesystem

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

// lookupRows renders a Lookup's answer sorted, for comparison.
func lookupRows(b row.Batch) []string {
	var out []string
	for _, r := range b {
		parts := make([]string, len(r.Vals))
		for i, v := range r.Vals {
			switch v.Kind() {
			case row.Int:
				parts[i] = fmt.Sprint(v.Int())
			default:
				parts[i] = v.Str()
			}
		}
		out = append(out, strings.Join(parts, ","))
	}
	slices.Sort(out)
	return out
}

// TestLookupModel looks random keys up in random csv files (duplicate keys,
// NULL keys) and compares every answer with a scan of the file's lines:
// the rows whose key column is the key. It then rewrites the file and
// checks that the old rows are answered until 'lookup.join.cache.ttl' has
// passed, and the new ones after.
func TestLookupModel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dim.csv")
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(gen int) [][2]string {
		var lines [][2]string
		var b strings.Builder
		for i := range 200 {
			k := fmt.Sprint(rng.IntN(50))
			if rng.IntN(20) == 0 {
				k = "" // NULL
			}
			v := fmt.Sprintf("g%d-%d", gen, i)
			lines = append(lines, [2]string{k, v})
			fmt.Fprintf(&b, "%s,%s\n", k, v)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return lines
	}
	model := func(lines [][2]string, keys []int64) []string {
		var out []string
		for _, k := range keys {
			for _, l := range lines {
				if l[0] == fmt.Sprint(k) {
					out = append(out, l[0]+","+l[1])
				}
			}
		}
		slices.Sort(out)
		return out
	}
	spec := conntest.SourceSpec(t, "CREATE TABLE dim (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'dim.csv', "+
		"'format' = 'csv', 'csv.null-literal' = '', 'lookup.join.cache.ttl' = '10 min')", dir)
	lines := write(0)
	l, err := NewLookup(spec, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	ctx := context.Background()
	if err := l.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ask := func(want [][2]string) {
		t.Helper()
		for range 50 {
			var keys []int64
			var vals [][]row.Value
			for k := range int64(60) {
				if rng.IntN(10) == 0 {
					keys = append(keys, k)
					vals = append(vals, []row.Value{row.IntValue(k)})
				}
			}
			got, err := l.Lookup(ctx, vals)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := lookupRows(got), model(want, keys); !slices.Equal(g, w) {
				t.Fatalf("keys %v at %s:\ngot  %v\nwant %v", keys, clock.Format(time.TimeOnly), g, w)
			}
		}
	}
	ask(lines)
	old := lines
	lines = write(1)
	clock = clock.Add(9 * time.Minute)
	ask(old) // read 9 minutes ago: not read again
	clock = clock.Add(time.Minute)
	ask(lines) // 10 minutes: read again
}

// TestLookupBadLine: a line that cannot be decoded stops the lookup with
// its place, unless the format's ignore-parse-errors sets the field NULL
// (csv, as Flink does; a NULL key matches nothing); a changelog
// format cannot be looked up.
func TestLookupBadLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dim.csv"), []byte("1,a\nx,b\n2,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ddl := "CREATE TABLE dim (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'dim.csv', 'format' = 'csv'%s)"
	l, err := NewLookup(conntest.SourceSpec(t, fmt.Sprintf(ddl, ""), dir), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "dim.csv:2") {
		t.Fatalf("want an error naming dim.csv:2, got %v", err)
	}
	l, err = NewLookup(conntest.SourceSpec(t, fmt.Sprintf(ddl, ", 'csv.ignore-parse-errors' = 'true'"), dir), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := l.Lookup(context.Background(), [][]row.Value{{row.IntValue(1)}, {row.IntValue(2)}})
	if err != nil {
		t.Fatal(err)
	}
	if g := lookupRows(got); !slices.Equal(g, []string{"1,a", "2,c"}) || l.Rows() != 2 {
		t.Errorf("got %v (%d rows indexed), want [1,a 2,c] (2)", g, l.Rows())
	}
	deb := "CREATE TABLE dim (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'dim.json', 'format' = 'debezium-json')"
	if _, err := NewLookup(conntest.SourceSpec(t, deb, dir), []int{0}); err == nil || !strings.Contains(err.Error(), "debezium-json") {
		t.Errorf("want debezium-json refused, got %v", err)
	}
}

// BenchmarkLookup looks up batches of 64 keys (about one row each) in a
// 10,000-row csv file held in memory; it reports the cost per key.
func BenchmarkLookup(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "%d,value-%d\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "dim.csv"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	spec := conntest.SourceSpec(b, "CREATE TABLE dim (k BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'dim.csv', 'format' = 'csv')", dir)
	l, err := NewLookup(spec, []int{0})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := l.Open(ctx); err != nil {
		b.Fatal(err)
	}
	keys := make([][]row.Value, 64)
	for j := range keys {
		keys[j] = make([]row.Value, 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range keys {
			keys[j][0] = row.IntValue(int64((i*64 + j) % 10000))
		}
		if _, err := l.Lookup(ctx, keys); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/key")
}
