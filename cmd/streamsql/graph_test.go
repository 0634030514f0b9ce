package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/planner"
)

// TestJobGraph: the web UI's graph of a job is its physical plan — the
// operators and ids EXPLAIN prints, each input an edge — and every note an
// operator carries (changelog mode and keys, watermark delay, state
// retention) is a line of EXPLAIN's optimized logical plan; the aggregate
// that keeps its groups forever is marked unbounded, and only it.
func TestJobGraph(t *testing.T) {
	j := frontend.CheckJob(diag.NewSource("attribution.sql", `CREATE TABLE impressions (ad_id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'impressions', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
CREATE TABLE clicks (ad_id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
CREATE TABLE attributed (ad_id BIGINT, n BIGINT, PRIMARY KEY (ad_id) NOT ENFORCED) WITH ('connector' = 'print');
CREATE TABLE shown (ad_id BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE unshown (ad_id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO attributed
SELECT i.ad_id, COUNT(*) FROM impressions i JOIN clicks c
  ON i.ad_id = c.ad_id AND c.ts BETWEEN i.ts AND i.ts + INTERVAL '1' HOUR GROUP BY i.ad_id;
INSERT INTO shown SELECT ad_id FROM impressions WHERE ad_id > 0;
INSERT INTO unshown SELECT ad_id FROM impressions WHERE ad_id < 0;
`))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags)
	}
	plans := j.Session.Plans
	graph := jobGraph(plans)
	explain := strings.Join(planner.ExplainJob(plans), "\n")
	// The operators of EXPLAIN's physical plans, each once (impressions
	// is read once for both INSERTs; the second reads fewer of its columns,
	// so its operators lowered alone would be numbered otherwise).
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^[ │├└─]*\w+\[([a-z]+-[0-9a-f]+(?:-\d+)?)\]`).FindAllStringSubmatch(explain, -1) {
		if !slices.Contains(want, m[1]) {
			want = append(want, m[1])
		}
	}
	var got []string
	byID := map[string]int{}
	for i, n := range graph {
		got = append(got, n.ID)
		byID[n.ID] = i
	}
	if !sameSet(got, want) || len(got) != len(want) {
		t.Fatalf("graph nodes %v, EXPLAIN's operators %v", got, want)
	}
	shown := strings.Join(planTexts(plans), "\n") // the plans the UI shows under the graph
	for _, n := range graph {
		if !strings.Contains(shown, "["+n.ID+"]") {
			t.Errorf("%s is not in the plans the UI shows", n.ID)
		}
		if !strings.Contains(explain, n.Kind+"["+n.ID+"] "+n.Detail) {
			t.Errorf("%s: %q is not EXPLAIN's line for it", n.ID, n.Kind+"["+n.ID+"] "+n.Detail)
		}
		for _, in := range n.Inputs {
			if k, ok := byID[in]; !ok || k > byID[n.ID] {
				t.Errorf("%s: input %s is not listed before it", n.ID, in)
			}
		}
		for _, note := range n.Notes {
			if !strings.Contains(explain, note) {
				t.Errorf("%s: note %q is not in EXPLAIN:\n%s", n.ID, note, explain)
			}
		}
		if n.Unbounded != (n.Kind == "GroupAggregate") {
			t.Errorf("%s (%s): unbounded %v", n.ID, n.Kind, n.Unbounded)
		}
	}
	notesOf := func(kind string) []string {
		for _, n := range graph {
			if n.Kind == kind {
				return n.Notes
			}
		}
		return nil
	}
	for kind, want := range map[string][]string{
		"IntervalJoin":   {"mode=[+I]", "watermark: held back 1h behind the inputs'", "state: left rows: until watermark > i.ts + 1h", "state: right rows: until watermark > c.ts"},
		"GroupAggregate": {"mode=[+I,-U,+U] keys=(ad_id)", "state: UNBOUNDED: one row per group key, kept forever"},
		"Sink":           {"mode=[+I,-U,+U] keys=(ad_id)"},
	} {
		if got := notesOf(kind); !slices.Equal(got, want) {
			t.Errorf("%s: notes %q, want %q", kind, got, want)
		}
	}
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}
