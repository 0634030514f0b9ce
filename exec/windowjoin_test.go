package exec

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/logical"
)

// TestWindowJoinMatchesRegularJoin is a differential test: with no late
// rows, a window join's output (insert-only, each window joined once) must
// equal the final table of the same join run as a regular join (its
// changelog applied), for every join kind, with and without a residual
// condition, with TUMBLE and HOP windows, and with a one-byte memory budget
// that sends every window's rows through Badger. The regular join is the
// same query with one window equality written so that the window-join rule
// does not see it (window_end + INTERVAL '0' SECOND).
func TestWindowJoinMatchesRegularJoin(t *testing.T) {
	for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
		for seed := int64(1); seed <= 25; seed++ {
			r := rand.New(rand.NewSource(seed))
			window := "TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '2' SECOND)"
			if r.Intn(3) == 0 {
				window = "HOP(TABLE %s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)"
			}
			residual := ""
			if r.Intn(2) == 0 {
				residual = " AND lw.v < rw.v + 40"
			}
			budget := ""
			if seed%5 == 0 {
				budget = "SET 'state.memory-budget' = '1b';\n"
			}
			const delay = 700
			left := genStream(r, 20+r.Intn(30), 4, delay)
			right := genStream(r, 20+r.Intn(30), 4, delay)
			events := intervalScript("JOIN", 0, 0, delay, left, right, r)
			events = events[strings.Index(events, "=== events"):]
			ddl := budget +
				"CREATE TABLE l (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n" +
				"CREATE TABLE r (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n" +
				"CREATE VIEW lw AS SELECT * FROM TABLE(" + fmt.Sprintf(window, "l") + ");\n" +
				"CREATE VIEW rw AS SELECT * FROM TABLE(" + fmt.Sprintf(window, "r") + ");\n"
			query := func(end string) string {
				return "SELECT lw.id, lw.v, rw.id, rw.v, lw.window_start, rw.window_end FROM lw " + kind + " rw ON lw.id = rw.id" +
					" AND lw.window_start = rw.window_start AND lw.window_end = " + end + residual + ";\n"
			}
			wj := ddl + query("rw.window_end")
			regular := ddl + query("rw.window_end + INTERVAL '0' SECOND")
			if !hasWindowJoin(t, wj) || hasWindowJoin(t, regular) {
				t.Fatalf("%s seed %d: the window-join rule did not fire as expected", kind, seed)
			}
			gotOut, err := runScript(wj + events)
			if err != nil {
				t.Fatalf("%s seed %d: %v", kind, seed, err)
			}
			wantOut, err := runScript(regular + events)
			if err != nil {
				t.Fatalf("%s seed %d (regular): %v", kind, seed, err)
			}
			if strings.Contains(gotOut, "-D[") || strings.Contains(gotOut, "late rows") {
				t.Fatalf("%s seed %d: a window join emits inserts only and no row here is late:\n%s", kind, seed, gotOut)
			}
			got, want := materialize(t, gotOut), materialize(t, wantOut)
			if joinLines(got) != joinLines(want) {
				t.Fatalf("%s seed %d: window join and regular join differ\nwindow join:\n%s\nregular join:\n%s\nscript:\n%s",
					kind, seed, joinLines(got), joinLines(want), wj+events)
			}
		}
	}
}

func hasWindowJoin(t *testing.T, sql string) bool {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("the job has errors: %v", j.Diags.Err())
	}
	found := false
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		if _, ok := n.(*logical.WindowJoin); ok {
			found = true
		}
		for _, c := range logical.Children(n) {
			walk(c)
		}
	}
	for _, p := range j.Session.Plans {
		walk(p.Root)
	}
	return found
}
