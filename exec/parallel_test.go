package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"io"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// sliceSource serves rows registered under a path, in batches, then ends.
type sliceSource struct {
	rows  row.Batch
	at    int
	batch int
	// hook, when set (sliceHooks), runs before each batch is handed out.
	hook func()
}

func (s *sliceSource) Open(context.Context) error { return nil }
func (s *sliceSource) Read(context.Context) (int, row.Batch, error) {
	if s.at >= len(s.rows) {
		return 0, nil, io.EOF
	}
	if s.hook != nil {
		s.hook()
	}
	end := min(s.at+s.batch, len(s.rows))
	b := s.rows[s.at:end]
	s.at = end
	return 0, b, nil
}
func (s *sliceSource) Splits() int  { return 1 }
func (s *sliceSource) Close() error { return nil }

var (
	sliceMu   sync.Mutex
	sliceData = map[string]row.Batch{}
	// sliceHooks run before each batch of the path's source (setHook).
	sliceHooks = map[string]func(){}
)

// setHook makes the source of path call hook before each batch (nil:
// none).
func setHook(path string, hook func()) {
	sliceMu.Lock()
	defer sliceMu.Unlock()
	if hook == nil {
		delete(sliceHooks, path)
		return
	}
	sliceHooks[path] = hook
}

func init() {
	connector.RegisterSource("filesystem", func(sp connector.Spec) (connector.Source, error) {
		sliceMu.Lock()
		defer sliceMu.Unlock()
		path := sp.Options.Get("path")
		rows, ok := sliceData[path]
		if !ok {
			// A script's table (runScript pushes its rows): a filesystem
			// table with 'format' = 'debezium-json' is a changelog source.
			sourceSchemas[sp.Table] = sp.Schema
			return scriptSource{}, nil
		}
		return &sliceSource{rows: append(row.Batch(nil), rows...), batch: 7, hook: sliceHooks[path]}, nil
	})
}

// runJob runs sql (one query) through Job.Run at the given parallelism and
// returns the materialised result.
func runJob(t *testing.T, sql string, parallelism int) []string {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("job has errors: %v", j.Diags.Err())
	}
	var mu sync.Mutex
	var lines []string
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{
		Settings:    j.Session.Settings,
		Parallelism: parallelism,
		QuerySink: func(_ string, cols []connector.Column) connector.Sink {
			return &funcSink{write: func(rows row.Batch) {
				mu.Lock()
				defer mu.Unlock()
				for _, r := range rows {
					lines = append(lines, changeLine(r, cols))
				}
			}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return materialize(t, strings.Join(lines, "\n"))
}

type funcSink struct{ write func(row.Batch) }

func (s *funcSink) Open(context.Context) error                    { return nil }
func (s *funcSink) Write(_ context.Context, rows row.Batch) error { s.write(rows); return nil }
func (s *funcSink) Flush(context.Context) error                   { return nil }
func (s *funcSink) Close() error                                  { return nil }

func setData(path string, rows row.Batch) {
	sliceMu.Lock()
	defer sliceMu.Unlock()
	sliceData[path] = rows
}

// TestParallelMatchesSerial runs the same jobs with 1 and 4 partitions: the
// final tables must be equal (the order of changes across keys may differ).
func TestParallelMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	mk := func(n int) row.Batch {
		var b row.Batch
		var ts int64 = 1_767_225_600_000
		for i := 0; i < n; i++ {
			ts += int64(r.Intn(500))
			b = append(b, row.Insert(row.StrValue(fmt.Sprintf("k%d", r.Intn(20))), row.IntValue(int64(r.Intn(100))), row.IntValue(ts-int64(r.Intn(300)))))
		}
		return b
	}
	setData("l.json", mk(2000))
	setData("r.json", mk(2000))
	ddl := `CREATE TABLE l (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 'l.json', 'format' = 'json');
CREATE TABLE r (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 'r.json', 'format' = 'json');
`
	for _, q := range []string{
		"SELECT l.id, l.v, r.v FROM l LEFT JOIN r ON l.id = r.id AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '1' SECOND;",
		"SELECT l.id, l.v, r.v FROM l FULL JOIN r ON l.id = r.id AND l.v < r.v - 90;",
		"SELECT id, COUNT(*), SUM(v), MAX(v) FROM l GROUP BY id;",
		"SELECT window_start, id, COUNT(*) FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, id;",
		"SELECT id, c FROM (SELECT l.id, COUNT(*) AS c FROM l JOIN r ON l.id = r.id AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts GROUP BY l.id) x;",
	} {
		serial := runJob(t, ddl+q, 1)
		par := runJob(t, ddl+q, 4)
		if len(serial) == 0 {
			t.Fatalf("%s: no output", q)
		}
		if strings.Join(serial, "\n") != strings.Join(par, "\n") {
			sort.Strings(serial)
			t.Errorf("%s: 4 partitions give a different result than 1 (%d vs %d rows)", q, len(par), len(serial))
		}
	}
}

// panicSource panics on its first read, as a connector bug would.
type panicSource struct{ sliceSource }

func (*panicSource) Read(context.Context) (int, row.Batch, error) { panic("connector bug") }

func init() {
	connector.RegisterSource("nexmark", func(connector.Spec) (connector.Source, error) { return &panicSource{}, nil })
}

// TestPanicStopsTheJobNotTheProcess: a panic in a source (or an operator)
// ends Run with an error.
func TestPanicStopsTheJobNotTheProcess(t *testing.T) {
	j := frontend.CheckJob(diag.NewSource("job.sql", `CREATE TABLE b (auction BIGINT, price BIGINT) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid');
SELECT auction, price FROM b;`))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{
		QuerySink: func(string, []connector.Column) connector.Sink { return &funcSink{write: func(row.Batch) {}} },
	})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "internal error: connector bug") {
		t.Fatalf("want the panic as an error, got %v", err)
	}
}
