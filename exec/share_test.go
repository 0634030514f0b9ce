package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// runQueries runs the SELECTs of sql as one job at parallelism p and
// returns each query's materialised result, the job's source counters and
// its operators' late counts by name.
func runQueries(t *testing.T, sql string, p int) (map[string][]string, []*Counters, map[string]int64) {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("job has errors: %v", j.Diags.Err())
	}
	sinks := map[string]*oneWriterSink{}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{
		Settings:    j.Session.Settings,
		Parallelism: p,
		Warn:        func(string) {},
		QuerySink: func(name string, cols []connector.Column) connector.Sink {
			s := &oneWriterSink{cols: cols}
			sinks[name] = s
			return s
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for name, s := range sinks {
		out[name] = materialize(t, strings.Join(s.lines, "\n"))
	}
	late := map[string]int64{}
	for _, o := range job.Operators {
		late[o.Name] += o.Late.Load()
	}
	return out, job.Sources, late
}

// TestSharedSourceWatermarksAndLateRows (#11.9): two queries over one
// table with a watermark and late rows, run as one job, read it once; each
// gets the answer, and the late rows, it gets when it runs alone. The
// source's late rows are those of every operator input that dropped them.
func TestSharedSourceWatermarksAndLateRows(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var data row.Batch
	ts := int64(1_767_225_600_000)
	for i := 0; i < 3000; i++ {
		ts += int64(r.Intn(300))
		t := ts - int64(r.Intn(1500))
		if r.Intn(20) == 0 {
			t -= 8000 // later than the 1 s delay: its windows have fired
		}
		data = append(data, row.Insert(row.StrValue(fmt.Sprintf("k%d", r.Intn(5))), row.IntValue(int64(r.Intn(100))), row.IntValue(t)))
	}
	setData("shared.json", data)
	ddl := `CREATE TABLE s (id STRING, v INT, ts TIMESTAMP(3), w AS v * 10, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'shared.json', 'format' = 'json');
`
	q1 := "SELECT window_start, id, COUNT(*) FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, id;\n"
	q2 := "SELECT window_start, SUM(w), MAX(v) FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) GROUP BY window_start, window_end;\n"
	for _, p := range []int{1, 4} {
		alone1, _, late1 := runQueries(t, ddl+q1, p)
		alone2, _, late2 := runQueries(t, ddl+q2, p)
		both, sources, late := runQueries(t, ddl+q1+q2, p)
		if len(sources) != 1 {
			t.Fatalf("p=%d: %d sources for one table", p, len(sources))
		}
		if n := sources[0].In.Load(); n != int64(len(data)) {
			t.Errorf("p=%d: the source read %d rows, want %d", p, n, len(data))
		}
		if len(alone1["query 1"]) == 0 || len(alone2["query 1"]) == 0 {
			t.Fatalf("p=%d: a query alone has no result", p)
		}
		if strings.Join(both["query 1"], "\n") != strings.Join(alone1["query 1"], "\n") {
			t.Errorf("p=%d: the tumbling windows differ when the source is shared", p)
		}
		if strings.Join(both["query 2"], "\n") != strings.Join(alone2["query 1"], "\n") {
			t.Errorf("p=%d: the hopping windows differ when the source is shared", p)
		}
		var alone int64
		for _, n := range late1 {
			alone += n
		}
		for _, n := range late2 {
			alone += n
		}
		var shared int64
		for _, n := range late {
			shared += n
		}
		if alone == 0 {
			t.Fatalf("p=%d: no late rows: the test needs some", p)
		}
		if shared != alone {
			t.Errorf("p=%d: the operators counted %d late rows together, %d alone", p, shared, alone)
		}
		if n := sources[0].Late.Load(); n != shared {
			t.Errorf("p=%d: the source counts %d late rows, its consumers' operators %d", p, n, shared)
		}
	}
}
