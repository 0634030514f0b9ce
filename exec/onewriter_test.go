package exec

import (
	"bytes"
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"math/rand"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// A sink is written by one goroutine: whatever runs in partitions upstream
// (joins, aggregates, each in P stages), what reaches a sink, or an
// operator with several inputs, has been merged into one stage first. The
// test sink below is deliberately unsafe for concurrent use (a plain
// append), records the goroutine of every call, and fails the test when a
// second one shows up; `go test -race` also catches the append.

// goid is the current goroutine's id, read from its stack header
// ("goroutine 42 [running]:").
func goid() int {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	f := bytes.Fields(buf[:n])
	if len(f) < 2 {
		return -1
	}
	id, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return -1
	}
	return id
}

// oneWriterSink records rows and the goroutines that called it.
type oneWriterSink struct {
	cols  []connector.Column
	lines []string // unguarded on purpose
	gmu   sync.Mutex
	gs    map[int]bool
}

func (s *oneWriterSink) called() {
	s.gmu.Lock()
	defer s.gmu.Unlock()
	if s.gs == nil {
		s.gs = map[int]bool{}
	}
	s.gs[goid()] = true
}

func (s *oneWriterSink) Open(context.Context) error { return nil }
func (s *oneWriterSink) Write(_ context.Context, rows row.Batch) error {
	s.called()
	for _, r := range rows {
		parts := make([]string, len(r.Vals))
		for i, v := range r.Vals {
			parts[i] = eval.FormatValue(v, s.cols[i].Type)
		}
		s.lines = append(s.lines, fmt.Sprintf("%s[%s]", r.Kind, strings.Join(parts, ", ")))
	}
	return nil
}
func (s *oneWriterSink) Flush(context.Context) error { s.called(); return nil }
func (s *oneWriterSink) Close() error                { return nil }

func (s *oneWriterSink) writers() int {
	s.gmu.Lock()
	defer s.gmu.Unlock()
	return len(s.gs)
}

var (
	oneWriterMu    sync.Mutex
	oneWriterSinks = map[string]*oneWriterSink{}
)

func init() {
	connector.RegisterSink("blackhole", func(sp connector.Spec) (connector.Sink, error) {
		s := &oneWriterSink{cols: sp.Schema}
		oneWriterMu.Lock()
		defer oneWriterMu.Unlock()
		oneWriterSinks[sp.Table] = s
		return s, nil
	})
}

// runOneWriter runs a job at parallelism 4; it returns, per sink (INSERT
// INTO table name, or "query N" for a SELECT), the materialised result, and
// fails when any sink was called from more than one goroutine.
func runOneWriter(t *testing.T, sql string) map[string][]string {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("job has errors: %v", j.Diags.Err())
	}
	queries := map[string]*oneWriterSink{}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{
		Settings:    j.Session.Settings,
		Parallelism: 4,
		QuerySink: func(name string, cols []connector.Column) connector.Sink {
			s := &oneWriterSink{cols: cols}
			queries[name] = s
			return s
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	oneWriterMu.Lock()
	for name, s := range oneWriterSinks {
		queries[name] = s
	}
	clear(oneWriterSinks)
	oneWriterMu.Unlock()
	out := map[string][]string{}
	for name, s := range queries {
		if n := s.writers(); n != 1 {
			t.Errorf("sink %s was written by %d goroutines", name, n)
		}
		out[name] = materialize(t, strings.Join(s.lines, "\n"))
	}
	return out
}

// TestOneWriterPerSink: UNION ALL of two partitioned self-joins (the
// reproduction of #11.7), a union of a partitioned and an unpartitioned
// branch, a cross join of a partitioned aggregate with a global one, and a
// partitioned aggregate feeding a projection feeding a sink, into INSERT
// sinks and SELECT query sinks. Every result is compared with a brute-force
// reference computed here from the input.
func TestOneWriterPerSink(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	type in struct {
		k string
		v int
	}
	var input []in
	var data row.Batch
	for i := 0; i < 3000; i++ {
		x := in{k: fmt.Sprintf("k%d", r.Intn(300)), v: r.Intn(1000)}
		input = append(input, x)
		data = append(data, row.Insert(row.StrValue(x.k), row.IntValue(int64(x.v))))
	}
	setData("onewriter.json", data)

	// The references.
	var join, joinLess []string
	for _, a := range input {
		for _, b := range input {
			if a.k != b.k {
				continue
			}
			join = append(join, fmt.Sprintf("[%s, %d]", a.k, b.v))
			if a.v < b.v {
				joinLess = append(joinLess, fmt.Sprintf("[%s, %d]", a.k, a.v))
			}
		}
	}
	counts := map[string]int{}
	sums := map[string]int{}
	var scan []string
	for _, x := range input {
		counts[x.k]++
		sums[x.k] += x.v
		scan = append(scan, fmt.Sprintf("[%s, %d]", x.k, x.v))
	}
	var perKey, crossed, doubled []string
	for k, c := range counts {
		perKey = append(perKey, fmt.Sprintf("[%s, %d]", k, c))
		crossed = append(crossed, fmt.Sprintf("[%s, %d, %d]", k, c, len(input)))
		doubled = append(doubled, fmt.Sprintf("[%s, %d]", k, 2*sums[k]))
	}
	sorted := func(parts ...[]string) []string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		sort.Strings(all)
		return all
	}

	ddl := `CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'onewriter.json', 'format' = 'json');
CREATE TABLE u (k STRING, v INT) WITH ('connector' = 'blackhole');
CREATE TABLE s (k STRING, v BIGINT) WITH ('connector' = 'blackhole');
`
	for _, c := range []struct {
		name, sql, sink string
		want            []string
	}{
		{"union of two self-joins into a sink",
			`INSERT INTO u SELECT a.k, b.v FROM t a JOIN t b ON a.k = b.k
UNION ALL SELECT a.k, a.v FROM t a JOIN t b ON a.k = b.k AND a.v < b.v;`,
			"u", sorted(join, joinLess)},
		{"union of two self-joins as a SELECT",
			`SELECT a.k, b.v FROM t a JOIN t b ON a.k = b.k
UNION ALL SELECT a.k, a.v FROM t a JOIN t b ON a.k = b.k AND a.v < b.v;`,
			"query 1", sorted(join, joinLess)},
		{"union of a partitioned and an unpartitioned branch",
			`INSERT INTO s SELECT k, COUNT(*) FROM t GROUP BY k UNION ALL SELECT k, CAST(v AS BIGINT) FROM t;`,
			"s", sorted(perKey, scan)},
		{"cross join of a partitioned and a global aggregate",
			`SELECT x.k, x.c, y.n FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) x CROSS JOIN (SELECT COUNT(*) AS n FROM t) y;`,
			"query 1", sorted(crossed)},
		{"a partitioned aggregate through a projection into a sink",
			`INSERT INTO s SELECT k, 2 * s FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) x;`,
			"s", sorted(doubled)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runOneWriter(t, ddl+c.sql)[c.sink]
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("%d rows, want %d; first differences:\n%s", len(got), len(c.want), firstDiff(got, c.want))
			}
		})
	}
}

// firstDiff shows a few rows that one sorted list has and the other lacks.
func firstDiff(got, want []string) string {
	var b strings.Builder
	i, j, n := 0, 0, 0
	for (i < len(got) || j < len(want)) && n < 5 {
		switch {
		case j >= len(want) || i < len(got) && got[i] < want[j]:
			fmt.Fprintf(&b, "  extra   %s\n", got[i])
			i++
			n++
		case i >= len(got) || want[j] < got[i]:
			fmt.Fprintf(&b, "  missing %s\n", want[j])
			j++
			n++
		default:
			i++
			j++
		}
	}
	return b.String()
}
