package exec

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// TestTemporalSortMatchesReference: ORDER BY a time attribute and then more
// keys (Flink's temporal sort), on random streams with disorder, many rows
// of one time, ties on every key, NULL keys and late rows. The reference
// drops the rows at or below the watermark when they come and sorts the
// rest by time, then v descending, then k ascending (NULL first, as Flink
// orders NULLs ascending), then arrival; the engine's output, in the order
// it is emitted, must be exactly that.
func TestTemporalSortMatchesReference(t *testing.T) {
	type in struct {
		id, v int
		k     string // "" is NULL
		t     int64
	}
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		var b strings.Builder
		b.WriteString("CREATE TABLE c (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
		b.WriteString("SELECT id, k, v, ts FROM c ORDER BY ts, v DESC, k;\n=== events\n")
		var kept []in
		var maxT, wm int64 = 10_000, -1
		late := 0
		for id := range 40 + r.Intn(40) {
			// Times on a coarse grid so that many rows share one; up
			// to 3 s of disorder.
			maxT += int64(r.Intn(2)) * 500
			x := in{id: id, v: r.Intn(3), k: []string{"", "a", "b", "c"}[r.Intn(4)], t: max(0, maxT-int64(r.Intn(7))*500)}
			k := x.k
			if k == "" {
				k = "NULL"
			}
			fmt.Fprintf(&b, "c +I %d, %s, %d, %s\n", x.id, k, x.v, ts(x.t))
			if x.t <= wm {
				late++
			} else {
				kept = append(kept, x)
			}
			if r.Intn(4) == 0 {
				// Sometimes ahead of rows still to come: those are late.
				wm = max(wm, maxT-int64(r.Intn(5))*500)
				fmt.Fprintf(&b, "c wm %s\n", ts(wm))
			}
		}
		b.WriteString("c end\n")
		sort.SliceStable(kept, func(i, j int) bool {
			a, c := kept[i], kept[j]
			switch {
			case a.t != c.t:
				return a.t < c.t
			case a.v != c.v:
				return a.v > c.v
			default:
				return a.k < c.k // "" (NULL) first; equal keys keep arrival order
			}
		})
		var want []string
		for _, x := range kept {
			k := x.k
			if k == "" {
				k = "NULL"
			}
			want = append(want, fmt.Sprintf("+I[%d, %s, %d, %s]", x.id, k, x.v, ts(x.t)))
		}
		out, err := runScript(b.String())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, b.String())
		}
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "+I[") {
				got = append(got, line)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s\nscript:\n%s", seed,
				strings.Join(got, "\n"), strings.Join(want, "\n"), b.String())
		}
		if late > 0 && !strings.Contains(out, fmt.Sprintf("late rows at TemporalSort(ts, v DESC, k): %d", late)) {
			t.Fatalf("seed %d: %d late rows, but the output says\n%s", seed, late, out)
		}
	}
}
