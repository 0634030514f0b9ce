package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/physical"
)

// TestExplainAgreesOnCheckpoints: EXPLAIN says an operator is not
// checkpointed (physical.NotCheckpointed) exactly when the job built from
// the plan says it cannot checkpoint it (Job.CheckpointsOff).
func TestExplainAgreesOnCheckpoints(t *testing.T) {
	const ddl = `CREATE TABLE o (id BIGINT, u STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE p (id BIGINT, u STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
`
	queries := map[string]string{
		"session": `SELECT u, window_start, COUNT(*) FROM TABLE(SESSION(TABLE o PARTITION BY u, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY u, window_start, window_end`,
		"tumble":  `SELECT u, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY u, window_start, window_end`,
		"window top-n": `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 2`,
		"top-n":     `SELECT * FROM (SELECT u, v, ROW_NUMBER() OVER (PARTITION BY u ORDER BY v DESC) AS rn FROM o) WHERE rn <= 2`,
		"dedup":     `SELECT * FROM (SELECT u, v, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ts) AS rn FROM o) WHERE rn = 1`,
		"over":      `SELECT u, SUM(v) OVER (PARTITION BY u ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM o`,
		"group":     `SELECT u, COUNT(*) FROM o GROUP BY u`,
		"interval":  `SELECT o.id, p.id FROM o JOIN p ON o.u = p.u AND p.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts`,
		"join":      `SELECT o.id, p.id FROM o LEFT JOIN p ON o.u = p.u`,
		"stateless": `SELECT id, UPPER(u) FROM o WHERE v > 0`,
	}
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			j := frontend.CheckJob(diag.NewSource("job.sql", ddl+q+";\n"))
			if j.Diags.HasErrors() {
				t.Fatalf("job has errors: %v", j.Diags.Err())
			}
			plans := plantest.Lower(t, j.Session.Plans)
			var explained []string
			var walk func(n physical.Node)
			walk = func(n physical.Node) {
				if why := physical.NotCheckpointed(n); why != "" {
					explained = append(explained, why)
				}
				for _, in := range n.Inputs() {
					walk(in)
				}
			}
			for _, p := range plans {
				walk(p.Root)
			}
			job, err := Build(context.Background(), plans, Options{Settings: j.Session.Settings, Parallelism: 1,
				QuerySink: func(_ string, cols []connector.Column) connector.Sink { return &oneWriterSink{cols: cols} }})
			if err != nil {
				t.Fatal(err)
			}
			off := job.CheckpointsOff()
			if got := strings.Contains(off, "cannot be checkpointed"); got != (len(explained) > 0) {
				t.Errorf("EXPLAIN says %q, the job says %q", explained, off)
			}
			if name == "session" || name == "window top-n" || name == "over" {
				if len(explained) == 0 {
					t.Errorf("%s: expected an operator that is not checkpointed", name)
				}
			}
		})
	}
}
