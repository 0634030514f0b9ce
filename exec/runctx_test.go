package exec

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

type runKey struct{}

// ctxSink records whether the contexts it is given are the run's (they
// carry runKey) and live.
type ctxSink struct {
	openRun, writeRun, flushRun bool
	rows                        int
}

func fromRun(ctx context.Context) bool { return ctx.Value(runKey{}) == "run" && ctx.Err() == nil }

func (s *ctxSink) Open(ctx context.Context) error { s.openRun = fromRun(ctx); return nil }
func (s *ctxSink) Write(ctx context.Context, rows row.Batch) error {
	s.writeRun = fromRun(ctx)
	s.rows += len(rows)
	return nil
}
func (s *ctxSink) Flush(ctx context.Context) error { s.flushRun = fromRun(ctx); return nil }
func (s *ctxSink) Close() error                    { return nil }

// TestRunContextReachesSinks: Build captures no context. A job built under
// a context that is already done runs under Run's, and its sinks (and
// operators, through their driver) are opened, written and flushed with a
// context that carries Run's values and is live.
func TestRunContextReachesSinks(t *testing.T) {
	setData("ctx.csv", row.Batch{row.Insert(row.IntValue(1)), row.Insert(row.IntValue(2)), row.Insert(row.IntValue(3))})
	j := frontend.CheckJob(diag.NewSource("job.sql", `CREATE TABLE n (x BIGINT) WITH ('connector' = 'filesystem', 'path' = 'ctx.csv', 'format' = 'csv');
SELECT x FROM n WHERE x > 1;`))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	built, cancel := context.WithCancel(context.Background())
	sink := &ctxSink{}
	job, err := Build(built, plantest.Lower(t, j.Session.Plans), Options{
		QuerySink: func(string, []connector.Column) connector.Sink { return sink },
	})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // Build's context ends before the job runs
	if err := job.Run(context.WithValue(context.Background(), runKey{}, "run")); err != nil {
		t.Fatal(err)
	}
	if !sink.openRun || !sink.writeRun || !sink.flushRun || sink.rows != 2 {
		t.Errorf("sink: opened with the run's context %v, written %v, flushed %v; %d rows (want 2)",
			sink.openRun, sink.writeRun, sink.flushRun, sink.rows)
	}
}
