package exec

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// TestTemporalJoinMatchesReference checks the event-time temporal join
// against a brute-force model: each probe row joins the version of its key
// with the greatest time <= the probe's time (of equal times, the one that
// arrived last), unless that version is a deletion; INNER drops a probe
// without one, LEFT pads it. The streams have bounded disorder and
// watermarks one below what the disorder allows, so no row is late and
// every version a probe needs has arrived when the watermark reaches it.
func TestTemporalJoinMatchesReference(t *testing.T) { temporalDifferential(t, "") }

// TestTemporalJoinSpillMatchesReference runs the same scripts with a
// one-byte state budget: every probe and version spills to Badger and
// comes back.
func TestTemporalJoinSpillMatchesReference(t *testing.T) { temporalDifferential(t, "1b") }

func temporalDifferential(t *testing.T, budget string) {
	for _, kind := range []string{"JOIN", "LEFT JOIN"} {
		for seed := int64(1); seed <= 60; seed++ {
			r := rand.New(rand.NewSource(seed))
			const delay = 700
			probes := genStream(r, 20+r.Intn(40), 4, delay)
			versions := genStream(r, 10+r.Intn(30), 4, delay)
			deleted := make([]bool, len(versions))
			for i := range versions {
				deleted[i] = r.Intn(6) == 0
			}

			var b strings.Builder
			b.WriteString("CREATE TABLE o (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
			b.WriteString("CREATE TABLE r (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'datagen');\n")
			if budget != "" {
				fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
			}
			fmt.Fprintf(&b, "SELECT o.k, o.v, o.ts, r.v FROM o %s r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.k;\n=== events\n", kind)
			// Interleave the two streams at random; after a row, sometimes
			// advance that table's watermark.
			arrival := make([]int, len(versions)) // arrival rank of each version
			i, j, rank := 0, 0, 0
			maxO, maxR := int64(-1), int64(-1)
			for i < len(probes) || j < len(versions) {
				if j == len(versions) || i < len(probes) && r.Intn(2) == 0 {
					p := probes[i]
					i++
					maxO = max(maxO, p.t+base)
					fmt.Fprintf(&b, "o +I %s, %d, %s\n", p.id, p.v, ts(p.t+base))
					if r.Intn(3) == 0 {
						fmt.Fprintf(&b, "o wm %s\n", ts(maxO-delay-1))
					}
					continue
				}
				v := versions[j]
				arrival[j] = rank
				rank++
				op := "+U"
				if deleted[j] {
					op = "-D"
				}
				fmt.Fprintf(&b, "r %s %s, %d, %s\n", op, v.id, v.v, ts(v.t+base))
				j++
				maxR = max(maxR, v.t+base)
				if r.Intn(3) == 0 {
					fmt.Fprintf(&b, "r wm %s\n", ts(maxR-delay-1))
				}
			}
			b.WriteString("o end\nr end\n")
			script := b.String()
			out, err := runScript(script)
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%s", kind, seed, err, script)
			}
			if budget != "" && !strings.Contains(out, "(state spilled to disk)") {
				t.Fatalf("%s seed %d: a %s budget did not spill", kind, seed, budget)
			}
			if strings.Contains(out, "late rows at") {
				t.Fatalf("%s seed %d: the generator made late rows\n%s", kind, seed, out)
			}
			got := materialize(t, out)

			var want []string
			for _, p := range probes {
				best := -1
				for x, v := range versions {
					if v.id != p.id || v.t > p.t {
						continue
					}
					if best < 0 || v.t > versions[best].t || v.t == versions[best].t && arrival[x] > arrival[best] {
						best = x
					}
				}
				switch {
				case best >= 0 && !deleted[best]:
					want = append(want, fmt.Sprintf("[%s, %d, %s, %d]", p.id, p.v, ts(p.t+base), versions[best].v))
				case kind == "LEFT JOIN":
					want = append(want, fmt.Sprintf("[%s, %d, %s, NULL]", p.id, p.v, ts(p.t+base)))
				}
			}
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s\nscript:\n%s",
					kind, seed, strings.Join(got, "\n"), strings.Join(want, "\n"), script)
			}
		}
	}
}
