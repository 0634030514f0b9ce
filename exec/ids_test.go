package exec

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/physical"
)

// TestCountersCarryOperatorIDs: every source, operator and sink a job
// builds carries the ID of the physical node it was built from (each
// partition of a keyed operator the same), so that what the runtime keeps
// per operator can be matched to the plan.
func TestCountersCarryOperatorIDs(t *testing.T) {
	j := frontend.CheckJob(diag.NewSource("job.sql", `
CREATE TABLE o (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '0');
SELECT k, COUNT(*) FROM o WHERE v > 1 GROUP BY k;`))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	plans := mustLower(t, j.Session.Plans)
	nodes := map[string]string{} // ID -> name
	for _, p := range plans {
		physical.Walk(p.Root, func(n physical.Node) { nodes[n.Base().ID] = n.Base().Name })
	}
	job, err := Build(context.Background(), plans, Options{Parallelism: 2,
		QuerySink: func(string, []connector.Column) connector.Sink { return &funcSink{} }})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	var all []*Counters
	all = append(append(append(all, job.Sources...), job.Operators...), job.Sinks...)
	seen := map[string]bool{}
	for _, c := range all {
		if c.Name == "merge" {
			continue
		}
		name, ok := nodes[c.ID]
		if !ok || name != c.Name {
			t.Errorf("counters %q have ID %q, which names %q in the plan", c.Name, c.ID, name)
		}
		seen[c.ID] = true
	}
	if len(seen) != len(nodes) {
		t.Errorf("the job's counters carry %d of the plan's %d IDs: %v of %v", len(seen), len(nodes), seen, nodes)
	}
}
