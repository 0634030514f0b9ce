package exec

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// The randomized tests compare the engine with an obviously correct
// reference on random streams: random keys (few, so they repeat), times in
// disorder within the watermark delay, random watermarks, and for regular
// joins retractions of earlier rows. The engine's changelog, applied to an
// empty table, must equal the reference result.

type refRow struct {
	id string
	t  int64 // ms
	v  int
}

func ts(ms int64) string {
	return fmt.Sprintf("2026-01-01 %02d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}

// materialize applies a changelog (lines like "+I[a, b]") to a multiset.
func materialize(t *testing.T, out string) []string {
	t.Helper()
	bag := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 3 || line[0] != '+' && line[0] != '-' || line[2] != '[' {
			continue
		}
		kind, body := line[:2], line[2:]
		switch kind {
		case "+I", "+U":
			bag[body]++
		case "-D", "-U":
			if bag[body] == 0 {
				t.Fatalf("retraction of a row that is not there: %s\nin:\n%s", line, out)
			}
			bag[body]--
		}
	}
	var rows []string
	for r, n := range bag {
		for i := 0; i < n; i++ {
			rows = append(rows, r)
		}
	}
	sort.Strings(rows)
	return rows
}

// genStream makes n rows with keys from a small set, times increasing with
// disorder up to maxDisorder ms.
func genStream(r *rand.Rand, n int, keys int, maxDisorder int64) []refRow {
	var rows []refRow
	var t int64 = 1000
	for i := 0; i < n; i++ {
		t += int64(r.Intn(400))
		rows = append(rows, refRow{id: fmt.Sprintf("k%d", r.Intn(keys)), t: max(t-int64(r.Int63n(maxDisorder+1)), 0), v: r.Intn(100)})
	}
	return rows
}

func TestIntervalJoinMatchesReference(t *testing.T) {
	for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
		for seed := int64(1); seed <= 40; seed++ {
			r := rand.New(rand.NewSource(seed))
			lower := -int64(r.Intn(3000))
			upper := int64(r.Intn(3000)) - 500
			const delay = 700
			left := genStream(r, 30+r.Intn(30), 4, delay)
			right := genStream(r, 30+r.Intn(30), 4, delay)
			script := intervalScript(kind, lower, upper, delay, left, right, r)
			out, err := runScript(script)
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%s", kind, seed, err, script)
			}
			got := materialize(t, out)
			want := intervalReference(kind, lower, upper, left, right)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s\nscript:\n%s",
					kind, seed, strings.Join(got, "\n"), strings.Join(want, "\n"), script)
			}
		}
	}
}

// intervalScript interleaves the two streams at random, with each side's
// watermark at its max time minus the delay (so no row is late).
func intervalScript(kind string, lower, upper, delay int64, left, right []refRow, r *rand.Rand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE l (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND) WITH ('connector' = 'datagen');\n", 0)
	fmt.Fprintf(&b, "CREATE TABLE r (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
	fmt.Fprintf(&b, "SELECT l.id, l.v, r.id, r.v FROM l %s r ON l.id = r.id AND l.ts >= r.ts + INTERVAL '%d' SECOND(3) AND l.ts <= r.ts + INTERVAL '%d' SECOND(3);\n",
		kind, 0, 0)
	// Intervals in milliseconds need fractional seconds.
	s := b.String()
	s = strings.Replace(s, "r.ts + INTERVAL '0' SECOND(3) AND", fmt.Sprintf("r.ts + INTERVAL '%s' SECOND AND", secs(lower)), 1)
	s = strings.Replace(s, "l.ts <= r.ts + INTERVAL '0' SECOND(3)", fmt.Sprintf("l.ts <= r.ts + INTERVAL '%s' SECOND", secs(upper)), 1)
	b.Reset()
	b.WriteString(s)
	b.WriteString("=== events\n")
	i, j := 0, 0
	var lmax, rmax int64 = -1, -1
	for i < len(left) || j < len(right) {
		takeLeft := j >= len(right) || i < len(left) && r.Intn(2) == 0
		if takeLeft {
			x := left[i]
			i++
			fmt.Fprintf(&b, "l +I %s, %d, %s\n", x.id, x.v, ts(x.t))
			lmax = max(lmax, x.t)
			if r.Intn(3) == 0 && lmax-delay > 0 {
				fmt.Fprintf(&b, "l wm %s\n", ts(lmax-delay))
			}
		} else {
			x := right[j]
			j++
			fmt.Fprintf(&b, "r +I %s, %d, %s\n", x.id, x.v, ts(x.t))
			rmax = max(rmax, x.t)
			if r.Intn(3) == 0 && rmax-delay > 0 {
				fmt.Fprintf(&b, "r wm %s\n", ts(rmax-delay))
			}
		}
	}
	b.WriteString("l end\nr end\n")
	return b.String()
}

func secs(ms int64) string {
	sign := ""
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d.%03d", sign, ms/1000, ms%1000)
}

func intervalReference(kind string, lower, upper int64, left, right []refRow) []string {
	var out []string
	lm := make([]bool, len(left))
	rm := make([]bool, len(right))
	for i, l := range left {
		for j, r := range right {
			if l.id == r.id && l.t-r.t >= lower && l.t-r.t <= upper {
				out = append(out, fmt.Sprintf("[%s, %d, %s, %d]", l.id, l.v, r.id, r.v))
				lm[i], rm[j] = true, true
			}
		}
	}
	if kind == "LEFT JOIN" || kind == "FULL JOIN" {
		for i, l := range left {
			if !lm[i] {
				out = append(out, fmt.Sprintf("[%s, %d, NULL, NULL]", l.id, l.v))
			}
		}
	}
	if kind == "RIGHT JOIN" || kind == "FULL JOIN" {
		for j, r := range right {
			if !rm[j] {
				out = append(out, fmt.Sprintf("[NULL, NULL, %s, %d]", r.id, r.v))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRegularJoinMatchesReference: random changelogs on both sides (inserts,
// deletes, updates as -U/+U, keys that are sometimes NULL), the four join
// kinds with a residual condition; the final table must be the join of the
// rows that survive, outer rows padded when they meet nothing (a NULL key
// meets nothing). Also with every key spilled, and at 4 partitions.
func TestRegularJoinMatchesReference(t *testing.T) {
	type change struct {
		side int
		kind string
		x    refRow
	}
	// With a one-byte state budget every key spills to Badger and comes back.
	for _, budget := range []string{"", "1b", "parallel"} {
		for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
			for seed := int64(1); seed <= 40; seed++ {
				if budget != "" && seed > 10 {
					break
				}
				r := rand.New(rand.NewSource(seed))
				var b strings.Builder
				b.WriteString("CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'datagen');\n")
				b.WriteString("CREATE TABLE r (id STRING, v INT) WITH ('connector' = 'datagen');\n")
				if budget == "1b" {
					fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
				}
				query := fmt.Sprintf("SELECT l.id, l.v, r.id, r.v FROM l %s r ON l.id = r.id AND l.v <= r.v + 50;\n", kind)
				b.WriteString(query + "=== events\n")
				newRow := func() refRow {
					x := refRow{id: fmt.Sprintf("k%d", r.Intn(3)), v: r.Intn(100)}
					if r.Intn(5) == 0 {
						x.id = "NULL"
					}
					return x
				}
				var live [2][]refRow
				var changes []change
				for n := 0; n < 80; n++ {
					side := r.Intn(2)
					if len(live[side]) > 0 && r.Intn(3) == 0 {
						k := r.Intn(len(live[side]))
						x := live[side][k]
						if r.Intn(2) == 0 {
							live[side] = append(live[side][:k], live[side][k+1:]...)
							changes = append(changes, change{side, "-D", x})
							continue
						}
						y := newRow()
						live[side][k] = y
						changes = append(changes, change{side, "-U", x}, change{side, "+U", y})
						continue
					}
					x := newRow()
					live[side] = append(live[side], x)
					changes = append(changes, change{side, "+I", x})
				}
				var out string
				var got []string
				if budget == "parallel" {
					var data [2]row.Batch
					for _, c := range changes {
						id := row.StrValue(c.x.id)
						if c.x.id == "NULL" {
							id = row.NullValue
						}
						k, _ := changelogmode.ParseKind(c.kind)
						data[c.side] = append(data[c.side], row.Row{Kind: k, Vals: []row.Value{id, row.IntValue(int64(c.x.v))}})
					}
					lp, rp := fmt.Sprintf("joinref-l-%d.json", seed), fmt.Sprintf("joinref-r-%d.json", seed)
					setData(lp, data[0])
					setData(rp, data[1])
					ddl := fmt.Sprintf(`CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');
CREATE TABLE r (id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');
`, lp, rp)
					got = runJob(t, ddl+query, 4)
				} else {
					for _, c := range changes {
						fmt.Fprintf(&b, "%s %s %s, %d\n", []string{"l", "r"}[c.side], c.kind, c.x.id, c.x.v)
					}
					b.WriteString("l end\nr end\n")
					var err error
					if out, err = runScript(b.String()); err != nil {
						t.Fatalf("%s seed %d: %v", kind, seed, err)
					}
					got = materialize(t, out)
				}
				var want []string
				lm := make([]bool, len(live[0]))
				rm := make([]bool, len(live[1]))
				for i, l := range live[0] {
					for j, rr := range live[1] {
						if l.id != "NULL" && l.id == rr.id && l.v <= rr.v+50 {
							want = append(want, fmt.Sprintf("[%s, %d, %s, %d]", l.id, l.v, rr.id, rr.v))
							lm[i], rm[j] = true, true
						}
					}
				}
				if kind == "LEFT JOIN" || kind == "FULL JOIN" {
					for i, l := range live[0] {
						if !lm[i] {
							want = append(want, fmt.Sprintf("[%s, %d, NULL, NULL]", l.id, l.v))
						}
					}
				}
				if kind == "RIGHT JOIN" || kind == "FULL JOIN" {
					for j, rr := range live[1] {
						if !rm[j] {
							want = append(want, fmt.Sprintf("[NULL, NULL, %s, %d]", rr.id, rr.v))
						}
					}
				}
				sort.Strings(want)
				if budget == "1b" && !strings.Contains(out, "(state spilled to disk)") {
					t.Fatalf("%s seed %d: a one-byte budget did not spill", kind, seed)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s seed %d (%s): engine and reference differ\nengine:\n%s\nreference:\n%s\nscript:\n%s",
						kind, seed, budget, strings.Join(got, "\n"), strings.Join(want, "\n"), b.String())
				}
			}
		}
	}
}
