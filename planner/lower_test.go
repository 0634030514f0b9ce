package planner

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/physical"
)

const idJob = `
CREATE TABLE o (id BIGINT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'o.json', 'format' = 'json');
CREATE TABLE s (id BIGINT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 's.json', 'format' = 'json');
CREATE TABLE out1 (id BIGINT, v INT) WITH ('connector' = 'blackhole');
SELECT o.id, s.w FROM o JOIN s ON o.id = s.id AND o.ts BETWEEN s.ts AND s.ts + INTERVAL '1' MINUTE;
SELECT id, v FROM o UNION ALL SELECT id, v FROM o;
INSERT INTO out1 SELECT id, v FROM o WHERE v > 1;
SELECT a.id FROM o a JOIN o b ON a.id = b.id;
`

func lowerJob(t *testing.T, sql string) []*physical.Plan {
	t.Helper()
	j := checkJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	ps, err := Lower(j.Session.Plans)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func ids(ps []*physical.Plan) []physical.Node {
	var out []physical.Node
	for _, p := range ps {
		physical.Walk(p.Root, func(n physical.Node) { out = append(out, n) })
	}
	return out
}

// TestOperatorIDs: the same job planned twice gets the same operator IDs;
// within a job, IDs are unique but for the Sources of one table (read once
// per job), which the runtime shares by ID.
func TestOperatorIDs(t *testing.T) {
	a, b := ids(lowerJob(t, idJob)), ids(lowerJob(t, idJob))
	if len(a) != len(b) {
		t.Fatalf("%d nodes, then %d", len(a), len(b))
	}
	byID := map[string]physical.Node{}
	sources := map[string]string{}
	for i, n := range a {
		id := n.Base().ID
		if id == "" || id != b[i].Base().ID {
			t.Errorf("node %d (%s): ID %q, then %q", i, n.Base().Name, id, b[i].Base().ID)
		}
		if src, ok := n.(*physical.Source); ok {
			if prev, seen := sources[src.TableName]; seen && prev != id {
				t.Errorf("table %s is read by two sources, %s and %s", src.TableName, prev, id)
			}
			sources[src.TableName] = id
			continue
		}
		if prev, ok := byID[id]; ok && prev != n {
			t.Errorf("ID %s is given to %s and to %s", id, prev.Base().Name, n.Base().Name)
		}
		byID[id] = n
	}
	if len(sources) != 2 {
		t.Errorf("want one source per table (o, s), got %v", sources)
	}
	// The union's two inputs do the same: they get distinct IDs.
	var union *physical.Union
	for _, n := range a {
		if u, ok := n.(*physical.Union); ok {
			union = u
		}
	}
	if union == nil || union.Ins[0].Base().ID == union.Ins[1].Base().ID {
		t.Fatalf("the union's inputs share an ID: %v", union)
	}
}

// TestRedeclaredTableIsAnotherSource: a table dropped and declared again
// under its name is read by a source of its own, however alike the two
// declarations look.
func TestRedeclaredTableIsAnotherSource(t *testing.T) {
	ps := lowerJob(t, `
CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = 'one.json', 'format' = 'json');
SELECT a FROM t;
DROP TABLE t;
CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = 'two.json', 'format' = 'json');
SELECT a FROM t;
`)
	var got []string
	for _, n := range ids(ps) {
		if s, ok := n.(*physical.Source); ok {
			got = append(got, s.ID)
		}
	}
	if len(got) != 2 || got[0] == got[1] {
		t.Errorf("two declarations of t, source IDs %v", got)
	}
}

// TestExplainJobLowersTheJob: streamsql explain shows what run builds: a
// source decodes what the whole job reads of its table, and EXPLAIN
// statements are lowered alone.
func TestExplainJobLowersTheJob(t *testing.T) {
	j := checkJob(diag.NewSource("job.sql", `
CREATE TABLE t (a INT, b INT, c INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT a FROM t;
SELECT b FROM t;
EXPLAIN SELECT c FROM t;
`))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	texts := ExplainJob(j.Session.Plans)
	want := []string{"decode=[a, b]", "decode=[a, b]", "decode=[c]"}
	if len(texts) != len(want) {
		t.Fatalf("%d texts for %d plans", len(texts), len(want))
	}
	for i, w := range want {
		if !strings.Contains(texts[i], w) {
			t.Errorf("plan %d: want %s in\n%s", i+1, w, texts[i])
		}
	}
}
