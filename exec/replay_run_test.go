package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
)

// Replay of whole jobs (Job.Run, with each source in its own goroutine), as
// `streamsql run` does it: two tables read in batches of 7 rows (the
// 'filesystem' source of parallel_test.go), an outer interval join, every
// row within the watermark bound.

type lineSink struct {
	mu    sync.Mutex
	cols  []connector.Column
	lines []string
}

func (s *lineSink) Open(context.Context) error { return nil }
func (s *lineSink) Write(_ context.Context, rows row.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rows {
		parts := make([]string, len(r.Vals))
		for i, v := range r.Vals {
			parts[i] = eval.FormatValue(v, s.cols[i].Type)
		}
		s.lines = append(s.lines, fmt.Sprintf("%s[%s]", r.Kind, strings.Join(parts, ", ")))
	}
	return nil
}
func (s *lineSink) Flush(context.Context) error { return nil }
func (s *lineSink) Close() error                { return nil }

var replayOnce sync.Once

// replayData registers the two tables' rows (paths replay-o, replay-s).
func replayData() {
	replayOnce.Do(func() {
		r := rand.New(rand.NewSource(1))
		var o, s row.Batch
		for i := 0; i < 5000; i++ {
			tm := int64(i * 7000)
			id := row.StrValue(fmt.Sprintf("O%d", i%500))
			o = append(o, row.Row{Kind: changelogmode.Insert, Vals: []row.Value{id, row.IntValue(tm)}})
			s = append(s, row.Row{Kind: changelogmode.Insert, Vals: []row.Value{id, row.IntValue(tm + int64(r.Intn(61))*1000)}})
		}
		sliceMu.Lock()
		defer sliceMu.Unlock()
		sliceData["replay-o"], sliceData["replay-s"] = o, s
	})
}

const replayJob = `
CREATE TABLE o (id STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'replay-o', 'format' = 'json');
CREATE TABLE s (id STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '61' SECOND) WITH ('connector' = 'filesystem', 'path' = 'replay-s', 'format' = 'json');
SELECT o.id, o.t, s.t FROM o LEFT JOIN s ON o.id = s.id AND o.t BETWEEN s.t - INTERVAL '30' SECOND AND s.t;
`

func runReplayJob(t *testing.T, parallelism int) ([]string, int64) {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", replayJob))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	var plans []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			plans = append(plans, p)
		}
	}
	var sink *lineSink
	job, err := Build(context.Background(), plantest.Lower(t, plans), Options{
		Settings: j.Session.Settings, Parallelism: parallelism,
		QuerySink: func(_ string, cols []connector.Column) connector.Sink {
			sink = &lineSink{cols: cols}
			return sink
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var late int64
	for _, c := range job.Operators {
		late += c.Late.Load()
	}
	return sink.lines, late
}

// The final table does not depend on how the sources' batches interleave,
// nor on the number of partitions.
func TestRunReplayFinalTable(t *testing.T) {
	replayData()
	var want string
	for _, p := range []int{1, 4} {
		for run := 0; run < 4; run++ {
			lines, late := runReplayJob(t, p)
			if late != 0 {
				t.Fatalf("parallelism %d: %d late rows, want none (every row is within the bound)", p, late)
			}
			if len(lines) != 5000 {
				t.Fatalf("parallelism %d: %d rows, want 5000 (one per order)", p, len(lines))
			}
			sort.Strings(lines)
			got := strings.Join(lines, "\n")
			if want == "" {
				want = got
			} else if got != want {
				t.Fatalf("parallelism %d, run %d: the final table differs", p, run+1)
			}
		}
	}
}

// The changelog itself, in order, is the same run after run at parallelism 1.
func TestRunReplayChangelogOrder(t *testing.T) {
	replayData()
	first, _ := runReplayJob(t, 1)
	for run := 0; run < 10; run++ {
		again, _ := runReplayJob(t, 1)
		if strings.Join(again, "\n") != strings.Join(first, "\n") {
			for i := range first {
				if i >= len(again) || first[i] != again[i] {
					t.Fatalf("run %d differs from the first at row %d: %q, first run %q", run+2, i+1, again[i], first[i])
				}
			}
		}
	}
}
