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

// TestExplainAgreesOnCheckpoints: every operator of these jobs is
// checkpointed (Job.CheckpointsOff names none), and EXPLAIN describes a
// snapshot (physical.Snapshots) for exactly the operators whose instances
// have a state store for the checkpoint to hold.
func TestExplainAgreesOnCheckpoints(t *testing.T) {
	const ddl = `CREATE TABLE o (id BIGINT, u STRING, v INT, ts TIMESTAMP(3), a ARRAY<INT>, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'agree-o.json', 'format' = 'json');
CREATE TABLE p (id BIGINT, u STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'agree-p.json', 'format' = 'json');
CREATE VIEW pt AS SELECT id, u, v, PROCTIME() AS pt FROM o;
`
	setData("agree-o.json", nil)
	setData("agree-p.json", nil)
	queries := map[string]string{
		"session": `SELECT u, window_start, COUNT(*) FROM TABLE(SESSION(TABLE o PARTITION BY u, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY u, window_start, window_end`,
		"session, lateness": `SET 'table.exec.emit.allow-lateness' = '1 min';
SELECT u, window_start, COUNT(*) FROM TABLE(SESSION(TABLE o PARTITION BY u, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY u, window_start, window_end`,
		"tumble": `SELECT u, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY u, window_start, window_end`,
		"window top-n": `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 2`,
		"window dedup": `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, u ORDER BY ts) AS rn
  FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn = 1`,
		"top-n":         `SELECT * FROM (SELECT u, v, ROW_NUMBER() OVER (PARTITION BY u ORDER BY v DESC) AS rn FROM o) WHERE rn <= 2`,
		"dedup":         `SELECT * FROM (SELECT u, v, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ts) AS rn FROM o) WHERE rn = 1`,
		"over":          `SELECT u, SUM(v) OVER (PARTITION BY u ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM o`,
		"over, lag":     `SELECT u, LAG(v) OVER (PARTITION BY u ORDER BY ts) FROM o`,
		"over, range":   `SELECT u, COUNT(*) OVER (PARTITION BY u ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM o`,
		"over proctime": `SELECT u, SUM(v) OVER (PARTITION BY u ORDER BY pt ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM pt`,
		"temporal sort": `SELECT u, v, ts FROM o ORDER BY ts, v`,
		"group":         `SELECT u, COUNT(*) FROM o GROUP BY u`,
		"interval":      `SELECT o.id, p.id FROM o JOIN p ON o.u = p.u AND p.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts`,
		"join":          `SELECT o.id, p.id FROM o LEFT JOIN p ON o.u = p.u`,
		"unnest":        `SELECT id, x FROM o CROSS JOIN UNNEST(a) AS t (x)`,
		"stateless":     `SELECT id, UPPER(u) FROM o WHERE v > 0`,
	}
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			j := frontend.CheckJob(diag.NewSource("job.sql", ddl+q+";\n"))
			if j.Diags.HasErrors() {
				t.Fatalf("job has errors: %v", j.Diags.Err())
			}
			plans := plantest.Lower(t, j.Session.Plans)
			explained := map[string]bool{} // IDs of the nodes EXPLAIN gives a snapshot
			var walk func(n physical.Node)
			walk = func(n physical.Node) {
				if physical.Snapshots(n) != "" {
					explained[n.Base().ID] = true
				}
				for _, in := range n.Inputs() {
					walk(in)
				}
			}
			for _, p := range plans {
				walk(p.Root)
			}
			for _, p := range []int{1, 2} {
				job, err := Build(context.Background(), plans, Options{Settings: j.Session.Settings, Parallelism: p,
					QuerySink: func(_ string, cols []connector.Column) connector.Sink {
						return &resumeSink{log: &resumeLog{}, cols: cols}
					}})
				if err != nil {
					t.Fatal(err)
				}
				if off := job.CheckpointsOff(); off != "" {
					t.Errorf("P=%d: the job takes no checkpoints: %s", p, off)
				}
				stores := map[string]bool{}
				for _, d := range job.drivers {
					if cp, ok := d.op.(checkpointable); ok && cp.stateStore() != nil {
						stores[d.id] = true
						if !explained[d.id] {
							t.Errorf("P=%d: %s (%s) has a state store that EXPLAIN describes no snapshot of", p, d.name, d.id)
						}
					}
				}
				for id := range explained {
					if !stores[id] {
						t.Errorf("P=%d: EXPLAIN describes a snapshot of %s, whose operator has no state store", p, id)
					}
				}
				if len(explained) == 0 && !strings.HasPrefix(name, "stateless") && name != "unnest" {
					t.Errorf("%s: no operator with state", name)
				}
				job.Close()
			}
		})
	}
}
