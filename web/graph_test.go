package web

import (
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/metrics"
)

// TestJobGraphDrawing: every operator of the graph is drawn, one edge per
// input from the input to its consumer, a consumer to the right of its
// inputs; an operator's rates are its rows over the last 5 s of history,
// subtasks summed (computed here by hand); a source in gap alert is red
// and an operator with unbounded state orange.
func TestJobGraphDrawing(t *testing.T) {
	graph := []metrics.Node{
		{ID: "source-a", Kind: "Source", Title: "Source: a"},
		{ID: "source-b", Kind: "Source", Title: "Source: b"},
		{ID: "join-1", Kind: "IntervalJoin", Title: "IntervalJoin INNER(a, b)", Detail: "keys=(a.k = b.k)", Notes: []string{"mode=[+I]"}, Inputs: []string{"source-a", "source-b"}},
		{ID: "agg-1", Kind: "GroupAggregate", Title: "GroupAggregate(k)", Notes: []string{"mode=[+I,-U,+U] keys=(k)", "state: UNBOUNDED: one row per group key, kept forever"}, Unbounded: true, Inputs: []string{"join-1"}},
		{ID: "sink-1", Kind: "Sink", Title: "Sink: out", Inputs: []string{"agg-1"}},
	}
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	snap := func(s int, a, b, in0, in1, out0, out1 int64) metrics.Snapshot {
		return metrics.Snapshot{At: t0.Add(time.Duration(s) * time.Second),
			Sources: []metrics.Source{{ID: "source-a", Table: "a", RowsRead: a, GapAlerting: true, Watermark: exec.MinWatermark}, {ID: "source-b", Table: "b", RowsRead: b}},
			Operators: []metrics.Operator{{ID: "join-1", Subtask: 0, In: in0, Out: out0}, {ID: "join-1", Subtask: 1, In: in1, Out: out1},
				{ID: "agg-1", In: out0 + out1, Out: 1, StateRows: 7, PeakState: 7, StateMem: 2048}},
			Sinks: []metrics.Sink{{ID: "sink-1", Table: "out", In: 1, Written: 1}}}
	}
	// 10 s of history: the rates are over its last 5 s (from second 5).
	h := []metrics.Snapshot{snap(0, 0, 0, 0, 0, 0, 0), snap(5, 1000, 500, 700, 800, 10, 20), snap(10, 3000, 1500, 2700, 1800, 40, 90)}
	svg := string(jobGraph(graph, h))
	for _, n := range graph {
		if !strings.Contains(svg, `<g class="node" data-id="`+n.ID+`"`) {
			t.Errorf("no box for %s", n.ID)
		}
	}
	edges := regexp.MustCompile(`class="edge" data-from="([\w-]+)" data-to="([\w-]+)" data-port="(\d)" d="M([\d.]+) [\d.]+C[\d. ]+ ([\d.]+) [\d.]+"`).FindAllStringSubmatch(svg, -1)
	want := map[string]bool{"source-a>join-1": true, "source-b>join-1": true, "join-1>agg-1": true, "agg-1>sink-1": true}
	for _, e := range edges {
		if !want[e[1]+">"+e[2]] {
			t.Errorf("unexpected edge %s -> %s", e[1], e[2])
		}
		delete(want, e[1]+">"+e[2])
		x1, _ := strconv.ParseFloat(e[4], 64)
		x2, _ := strconv.ParseFloat(e[5], 64)
		if x1 >= x2 {
			t.Errorf("edge %s -> %s goes from x=%s to x=%s: not left to right", e[1], e[2], e[4], e[5])
		}
	}
	if len(want) > 0 {
		t.Errorf("edges not drawn: %v\n%s", want, svg)
	}
	// join-1 over seconds 5..10: in (2700+1800)-(700+800) = 3000 rows in
	// 5 s, out (40+90)-(10+20) = 100.
	for _, w := range []string{"in 600/s · out 20/s", "rows in 4500 · out 130", "state 7 rows · 2.0 KiB · disk 0 B", "in 400/s · out 400/s"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the graph lacks %q:\n%s", w, svg)
		}
	}
	box := func(id string) string {
		i := strings.Index(svg, `data-id="`+id+`"`)
		j := strings.Index(svg[i:], "</g>")
		return svg[i : i+j]
	}
	if !strings.Contains(box("source-a"), `stroke="#c00"`) || strings.Contains(box("source-b"), `stroke="#c00"`) {
		t.Errorf("source a (in gap alert) is not the red one")
	}
	if !strings.Contains(box("agg-1"), `stroke="#d80"`) || strings.Contains(box("join-1"), `stroke="#d80"`) {
		t.Errorf("the unbounded aggregate is not the orange one")
	}
}

// TestHistoryCharts: the state chart has one series per operator that has
// held state, its subtasks summed at each sample, and none for a stateless
// one; the late-rows chart one per input; each series has a point per
// sample and its last value is the last sample's.
func TestHistoryCharts(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	var h []metrics.Snapshot
	for i := range 4 {
		h = append(h, metrics.Snapshot{At: t0.Add(time.Duration(i) * time.Second),
			Sources: []metrics.Source{{Table: "a", Late: int64(i)}, {Table: "b", Late: int64(10 * i)}},
			Operators: []metrics.Operator{
				{ID: "join-1", Name: "Join", Subtask: 0, StateRows: int64(i), PeakState: 3},
				{ID: "join-1", Name: "Join", Subtask: 1, StateRows: int64(2 * i), PeakState: 6},
				{ID: "calc-1", Name: "Project"},
			}})
	}
	state := stateSeries(h, false)
	if len(state) != 1 || state[0].name != "Join [join-1]" || len(state[0].v) != 4 || state[0].v[3] != 9 || state[0].v[1] != 3 {
		t.Fatalf("state series %+v, want one for join-1 with 0, 3, 6, 9", state)
	}
	late := lateSeries(h)
	if len(late) != 2 || late[1].name != "b" || late[1].v[3] != 30 {
		t.Fatalf("late series %+v", late)
	}
	svg := string(historyChart("late-rows", "late rows", late, count))
	for _, want := range []string{`<svg id="late-rows"`, `data-name="a" data-points="4" data-last="3"`, `data-name="b" data-points="4" data-last="30"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %s:\n%s", want, svg)
		}
	}
	if got := string(historyChart("x", "x", nil, count)); !strings.Contains(got, "Nothing yet.") {
		t.Errorf("an empty chart: %s", got)
	}
}

// TestJobPageRefresh: a job's page reloads itself every 2 s unless its
// address says ?refresh=0 (for screenshots, or to read it quietly).
func TestJobPageRefresh(t *testing.T) {
	reg := &metrics.Registry{}
	reg.Add(&metrics.Job{Name: "j", Exec: &exec.Job{}})
	h := Handler(reg)
	for q, want := range map[string]bool{"": true, "?refresh=0": false, "?refresh=1": true} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/jobs/1"+q, nil))
		if w.Code != 200 {
			t.Fatalf("GET /jobs/1%s: %d %s", q, w.Code, w.Body)
		}
		if got := strings.Contains(w.Body.String(), `http-equiv="refresh"`); got != want {
			t.Errorf("GET /jobs/1%s reloads itself: %v, want %v", q, got, want)
		}
	}
}
