package exec

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
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
	plans := plantest.Lower(t, j.Session.Plans)
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

// TestStateDirsNamedByOperatorID: under --state-dir each partition of a
// stateful operator keeps its state in <operator ID>.p<partition> (the name
// of its parts in a checkpoint), so that two runs of one plan name their
// state alike, whatever order the operators are built in.
func TestStateDirsNamedByOperatorID(t *testing.T) {
	const sql = `
CREATE TABLE o (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '0');
CREATE TABLE c (k INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '0');
SELECT k, COUNT(*) FROM o GROUP BY k;
SELECT o.k, c.name FROM o JOIN c ON o.k = c.k;`
	build := func() (dirs, want []string) {
		j := frontend.CheckJob(diag.NewSource("job.sql", sql))
		if j.Diags.HasErrors() {
			t.Fatal(j.Diags.Err())
		}
		plans := plantest.Lower(t, j.Session.Plans)
		for _, p := range plans {
			physical.Walk(p.Root, func(n physical.Node) {
				switch n.(type) {
				case *physical.GroupAggregate, *physical.RegularJoin:
					want = append(want, n.Base().ID+".p0", n.Base().ID+".p1")
				}
			})
		}
		st := t.TempDir()
		job, err := Build(context.Background(), plans, Options{Parallelism: 2, StateDir: st,
			QuerySink: func(string, []connector.Column) connector.Sink { return &funcSink{} }})
		if err != nil {
			t.Fatal(err)
		}
		job.Close()
		entries, err := os.ReadDir(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			dirs = append(dirs, e.Name())
		}
		slices.Sort(want)
		return dirs, want
	}
	first, want := build()
	if len(want) != 4 {
		t.Fatalf("the plan has %d stateful operator partitions, want 4 (an aggregate and a join, 2 each): %v", len(want), want)
	}
	if !slices.Equal(first, want) {
		t.Errorf("state directories %v, want one per operator ID and partition %v", first, want)
	}
	if second, _ := build(); !slices.Equal(second, first) {
		t.Errorf("a second run of the plan names its state %v, the first %v", second, first)
	}
}
