package exec

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// More randomized differential tests, in the style of reference_test.go:
// group aggregates over changelogs, window aggregates with and without late
// rows, interval joins with late rows, regular joins with state TTL, and
// replay determinism. Each builds a script for runScript, runs the engine,
// and checks what it emitted against a brute-force model of the documented
// semantics.

// base puts every generated time one hour after 2026-01-01 00:00, so that
// windows starting before the first row still print as 2026-01-01.
const base = 3_600_000

// block is what one event of a script made the query emit.
type block struct {
	event string
	lines []string
}

// outBlocks splits runScript's output into the emitting events and their
// lines, and reads the late counts at the end ("late rows at OP: N").
func outBlocks(t *testing.T, out string) ([]block, map[string]int) {
	t.Helper()
	var bs []block
	late := map[string]int{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case line == "<no output>" || line == "":
		case strings.HasPrefix(line, "late rows at "), strings.HasPrefix(line, "late rows from "), strings.HasPrefix(line, "late updates at "):
			// late["Op"] for an operator, late["from t"] for a source,
			// late["updates Op"] for an operator's late updates.
			i := strings.LastIndex(line, ": ")
			n, err := strconv.Atoi(line[i+2:])
			if err != nil {
				t.Fatalf("cannot read %q", line)
			}
			if name, ok := strings.CutPrefix(line[:i], "late rows at "); ok {
				late[name] = n
			} else if name, ok := strings.CutPrefix(line[:i], "late updates at "); ok {
				late["updates "+name] = n
			} else {
				late[line[len("late rows "):i]] = n
			}
		case strings.HasPrefix(line, "  "):
			if len(bs) == 0 {
				t.Fatalf("output line before any event: %q", line)
			}
			bs[len(bs)-1].lines = append(bs[len(bs)-1].lines, strings.TrimSpace(line))
		default:
			bs = append(bs, block{event: line})
		}
	}
	return bs, late
}

// perEvent aligns the output blocks with the script's events (lines, in
// order): out[i] is what event i made the query emit. Events whose line
// repeats must not both emit, which the generators ensure.
func perEvent(t *testing.T, events []string, bs []block) [][]string {
	t.Helper()
	out := make([][]string, len(events))
	i := 0
	for _, b := range bs {
		for i < len(events) && events[i] != b.event {
			i++
		}
		if i == len(events) {
			t.Fatalf("output for an event not in the script: %q", b.event)
		}
		out[i] = b.lines
		i++
	}
	return out
}

func joinLines(s []string) string { return strings.Join(s, "\n") }

// ---------------------------------------------------------------------------
// (a) Group aggregate over a changelog with retractions.

type aggRow struct {
	k string
	v int
}

func groupAggDifferential(t *testing.T, withAvg bool) { groupAggDifferentialBudget(t, withAvg, "") }

// TestGroupAggregateSpillMatchesReference runs the group aggregates with a
// one-byte state budget: every group spills to Badger and comes back.
func TestGroupAggregateSpillMatchesReference(t *testing.T) {
	groupAggDifferentialBudget(t, true, "1b")
}

func groupAggDifferentialBudget(t *testing.T, withAvg bool, budget string) {
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		var b strings.Builder
		b.WriteString("CREATE TABLE c (k STRING, v INT) WITH ('connector' = 'datagen');\n")
		if budget != "" {
			fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
		}
		sel := "SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v), COUNT(DISTINCT v)"
		if withAvg {
			sel += ", AVG(v)"
		}
		b.WriteString(sel + " FROM c GROUP BY k;\n=== events\n")
		var live []aggRow
		for n := 0; n < 100; n++ {
			switch x := r.Intn(6); {
			case x < 2 && len(live) > 0:
				// Retract an earlier row.
				i := r.Intn(len(live))
				fmt.Fprintf(&b, "c -D %s, %d\n", live[i].k, live[i].v)
				live = append(live[:i], live[i+1:]...)
			case x == 2 && len(live) > 0:
				// Update an earlier row: -U old, +U new (same key).
				i := r.Intn(len(live))
				nv := r.Intn(41) - 20
				fmt.Fprintf(&b, "c -U %s, %d\nc +U %s, %d\n", live[i].k, live[i].v, live[i].k, nv)
				live[i].v = nv
			default:
				x := aggRow{k: fmt.Sprintf("k%d", r.Intn(4)), v: r.Intn(41) - 20}
				live = append(live, x)
				fmt.Fprintf(&b, "c +I %s, %d\n", x.k, x.v)
			}
		}
		b.WriteString("c end\n")
		out, err := runScript(b.String())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, b.String())
		}
		if budget != "" && !strings.Contains(out, "(state spilled to disk)") {
			t.Fatalf("seed %d: a %s budget did not spill", seed, budget)
		}
		got := materialize(t, out)
		byKey := map[string][]int{}
		for _, x := range live {
			byKey[x.k] = append(byKey[x.k], x.v)
		}
		var want []string
		for k, vs := range byKey {
			sum, mn, mx := 0, vs[0], vs[0]
			distinct := map[int]bool{}
			for _, v := range vs {
				sum += v
				mn, mx = min(mn, v), max(mx, v)
				distinct[v] = true
			}
			line := fmt.Sprintf("[%s, %d, %d, %d, %d, %d", k, len(vs), sum, mn, mx, len(distinct))
			if withAvg {
				// AVG of an INT is an INT, truncated toward zero (Flink's
				// integer division of SUM by COUNT).
				line += fmt.Sprintf(", %d", sum/len(vs))
			}
			want = append(want, line+"]")
		}
		sort.Strings(want)
		if joinLines(got) != joinLines(want) {
			t.Fatalf("seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s\nscript:\n%s",
				seed, joinLines(got), joinLines(want), b.String())
		}
	}
}

func TestGroupAggregateMatchesReference(t *testing.T) { groupAggDifferential(t, false) }

func TestGroupAggregateAvgIntMatchesReference(t *testing.T) {
	groupAggDifferential(t, true)
}

// ---------------------------------------------------------------------------
// (b) Window aggregates, with disorder within the watermark bound, and with
// late rows.

// windowsOf lists the [start, end) windows containing t, as the engine's
// windowOp does for TUMBLE (slide = size) and HOP.
func windowsOf(t, size, slide int64) [][2]int64 {
	var ws [][2]int64
	last := floorDiv(t, slide) * slide
	for s := last; s > t-size; s -= slide {
		ws = append(ws, [2]int64{s, s + size})
	}
	return ws
}

func TestWindowAggregateMatchesReference(t *testing.T) { windowAggDifferential(t, "") }

// TestWindowAggregateSpillMatchesReference runs the same scripts with a
// one-byte state budget: every window's group spills to Badger, comes back
// for each row and fires from there.
// Fired windows go downstream two rows at a time (fireBatch), from inside
// the expiry.
func TestWindowAggregateSpillMatchesReference(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 2
	windowAggDifferential(t, "1b")
}

func windowAggDifferential(t *testing.T, budget string) {
	sizes := []int64{500, 1000, 1500, 2000, 3000, 4000}
	for _, withLate := range []bool{false, true} {
		totalLate := 0
		for _, fn := range []string{"TUMBLE", "HOP"} {
			for seed := int64(1); seed <= 40; seed++ {
				r := rand.New(rand.NewSource(seed))
				var size, slide int64
				var tvf string
				if fn == "TUMBLE" {
					size = sizes[r.Intn(len(sizes))]
					slide = size
					tvf = fmt.Sprintf("TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '%s' SECOND)", secs(size))
				} else {
					slide = []int64{500, 1000}[r.Intn(2)]
					size = slide * int64(1+r.Intn(4))
					tvf = fmt.Sprintf("HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '%s' SECOND, INTERVAL '%s' SECOND)", secs(slide), secs(size))
				}
				const delay = 1500
				var b strings.Builder
				b.WriteString("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
				if budget != "" {
					fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
				}
				fmt.Fprintf(&b, "SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM TABLE(%s) GROUP BY window_start, window_end, k;\n=== events\n", tvf)

				// The script, and the model: the operator's watermark when
				// each row arrives decides which of its windows take it.
				type agg struct{ n, sum, mn, mx int }
				groups := map[string]*agg{}
				var events []string
				var wmAfter []int64 // the operator's watermark after each event
				wm := int64(MinWatermark)
				lateWant := 0
				add := func(line string) {
					events = append(events, line)
					wmAfter = append(wmAfter, wm)
					b.WriteString(line + "\n")
				}
				var maxT int64 = -1
				lastWM := MinWatermark
				for _, x := range genStream(r, 40+r.Intn(40), 3, delay) {
					x.t += base
					if withLate && wm != MinWatermark && r.Intn(5) == 0 {
						// A row at or below the watermark: its windows that
						// already fired drop it, the others take it.
						x.t = max(wm-int64(r.Intn(2500)), 0)
					} else {
						maxT = max(maxT, x.t)
					}
					for _, w := range windowsOf(x.t, size, slide) {
						if w[1]-1 <= wm {
							lateWant++
							continue
						}
						key := fmt.Sprintf("[%s, %s, %s", ts(w[0]), ts(w[1]), x.id)
						g := groups[key]
						if g == nil {
							g = &agg{mn: x.v, mx: x.v}
							groups[key] = g
						}
						g.n++
						g.sum += x.v
						g.mn, g.mx = min(g.mn, x.v), max(g.mx, x.v)
					}
					add(fmt.Sprintf("b +I %s, %d, %s", x.id, x.v, ts(x.t)))
					// Watermarks one below the bound, so that without
					// injected rows no row is ever late.
					if r.Intn(3) == 0 && maxT-delay-1 > lastWM {
						lastWM = maxT - delay - 1
						wm = lastWM
						add("b wm " + ts(lastWM))
					}
				}
				wm = MaxWatermark
				add("b end")
				script := b.String()
				out, err := runScript(script)
				if err != nil {
					t.Fatalf("%s seed %d: %v\n%s", fn, seed, err, script)
				}
				if budget != "" && !strings.Contains(out, "(state spilled to disk)") {
					t.Fatalf("%s seed %d: a %s budget did not spill", fn, seed, budget)
				}
				out = strings.Replace(out, "(state spilled to disk)\n", "", 1)
				var want []string
				for k, g := range groups {
					want = append(want, fmt.Sprintf("%s, %d, %d, %d, %d]", k, g.n, g.sum, g.mn, g.mx))
				}
				sort.Strings(want)
				got := materialize(t, out)
				fail := func(format string, args ...any) {
					t.Helper()
					t.Fatalf("%s seed %d (late rows: %v): %s\nengine:\n%s\nscript:\n%s", fn, seed, withLate,
						fmt.Sprintf(format, args...), out, script)
				}
				if joinLines(got) != joinLines(want) {
					fail("engine and reference differ\nengine (final):\n%s\nreference:\n%s", joinLines(got), joinLines(want))
				}
				bs, late := outBlocks(t, out)
				if late["WindowAggregate"] != lateWant {
					fail("late rows at WindowAggregate: engine %d, reference %d", late["WindowAggregate"], lateWant)
				}
				if !withLate && lateWant != 0 {
					fail("the generator made late rows")
				}
				totalLate += lateWant
				// Each window is emitted once, as an insert, by the first
				// watermark that reaches its last millisecond.
				prev := int64(MinWatermark)
				emitted := map[string]bool{}
				for i, lines := range perEvent(t, events, bs) {
					for _, l := range lines {
						if !strings.HasPrefix(l, "+I[") {
							fail("a window aggregate emits inserts only, got %s", l)
						}
						parts := strings.Split(l[3:len(l)-1], ", ")
						id := strings.Join(parts[:3], ", ")
						if emitted[id] {
							fail("window %s emitted twice", id)
						}
						emitted[id] = true
						end := parseTS(t, parts[1])
						if end-1 > wmAfter[i] || end-1 <= prev {
							fail("window %s emitted at %q (watermark %s, before it %s)", id, events[i], fmtWM(wmAfter[i]), fmtWM(prev))
						}
					}
					prev = wmAfter[i]
				}
			}
		}
		if withLate && totalLate == 0 {
			t.Fatal("no test made a late row")
		}
	}
}

// parseTS reads a timestamp as ts prints it, back to ms after 2026-01-01.
func parseTS(t *testing.T, s string) int64 {
	t.Helper()
	var h, m, sec, ms int64
	if _, err := fmt.Sscanf(s, "2026-01-01 %d:%d:%d.%d", &h, &m, &sec, &ms); err != nil {
		t.Fatalf("cannot read time %q: %v", s, err)
	}
	return ((h*60+m)*60+sec)*1000 + ms
}

func fmtWM(w int64) string {
	switch w {
	case MinWatermark:
		return "none"
	case MaxWatermark:
		return "end"
	}
	return ts(w)
}

// ---------------------------------------------------------------------------
// (c) Interval join with late rows.
//
// The documented semantics (interval.go, Flink's TimeIntervalJoin): a pair
// matches when lower <= tl - tr <= upper. A row is late when its time is at
// or below the operator's watermark (the minimum of both inputs'); a late
// row still probes what is in state and is counted. A row's bound is
// tl - lower for a left row, tr + upper for a right row; it is kept when it
// arrives below its bound and stays until the watermark passes it, so two
// rows meet exactly when the one that arrived first was kept and the
// watermark had not passed its bound when the second arrived. An outer row
// that met no partner is padded exactly once: when it leaves state, or at
// once when it is not kept.

type ijRow struct {
	side  int // 0 left, 1 right
	id    string
	v     int // unique: identifies the row in the output
	t     int64
	wmAt  int64 // the operator's watermark when it arrived
	event int   // index of its event
}

func TestIntervalJoinLateRows(t *testing.T) {
	totalLate := 0
	atBound := 0 // pairs met only because a row stays while the watermark is at its bound
	for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
		for seed := int64(1); seed <= 40; seed++ {
			r := rand.New(rand.NewSource(seed))
			lower := -int64(r.Intn(3000))
			upper := int64(r.Intn(3000)) - 500
			if upper < lower {
				upper = lower
			}
			const delay = 700
			var b strings.Builder
			b.WriteString("CREATE TABLE l (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
			b.WriteString("CREATE TABLE r (id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
			fmt.Fprintf(&b, "SELECT l.id, l.v, r.id, r.v FROM l %s r ON l.id = r.id AND l.ts >= r.ts + INTERVAL '%s' SECOND AND l.ts <= r.ts + INTERVAL '%s' SECOND;\n=== events\n",
				kind, secs(lower), secs(upper))
			streams := [2][]refRow{genStream(r, 30+r.Intn(30), 4, delay), genStream(r, 30+r.Intn(30), 4, delay)}
			var rows []*ijRow
			var events []string
			var wmAfter []int64
			in := [2]int64{MinWatermark, MinWatermark}
			var maxT [2]int64
			op := int64(MinWatermark)
			add := func(line string) {
				events = append(events, line)
				wmAfter = append(wmAfter, op)
				b.WriteString(line + "\n")
			}
			next := [2]int{}
			v := 0
			expiry := func(x *ijRow) int64 { // a row's bound
				if x.side == 0 {
					return satAdd(x.t, -lower)
				}
				return satAdd(x.t, upper)
			}
			for next[0] < len(streams[0]) || next[1] < len(streams[1]) {
				s := r.Intn(2)
				if next[s] == len(streams[s]) {
					s = 1 - s
				}
				x := streams[s][next[s]]
				next[s]++
				x.t += base
				if op != MinWatermark && r.Intn(5) == 0 {
					x.t = max(op-int64(r.Intn(4000)), 0) // late
				} else {
					maxT[s] = max(maxT[s], x.t)
				}
				v++
				row := &ijRow{side: s, id: x.id, v: v, t: x.t, wmAt: op, event: len(events)}
				rows = append(rows, row)
				add(fmt.Sprintf("%s +I %s, %d, %s", []string{"l", "r"}[s], x.id, v, ts(x.t)))
				if r.Intn(3) == 0 && maxT[s]-delay > in[s] {
					in[s] = maxT[s] - delay
					op = max(op, min(in[0], in[1]))
					add(fmt.Sprintf("%s wm %s", []string{"l", "r"}[s], ts(in[s])))
				}
				if r.Intn(10) == 0 {
					// A meeting at a bound: both watermarks move to a kept
					// row's bound, and a late partner arrives exactly at it
					// (or one ms either side).
					var kept []*ijRow
					for _, y := range rows {
						if b := expiry(y); b > y.wmAt && b >= in[0] && b >= in[1] && b < base+1_000_000 {
							kept = append(kept, y)
						}
					}
					if len(kept) > 0 {
						y := kept[r.Intn(len(kept))]
						bound := expiry(y)
						for s2 := range 2 {
							if in[s2] < bound {
								in[s2] = bound
								op = max(op, min(in[0], in[1]))
								add(fmt.Sprintf("%s wm %s", []string{"l", "r"}[s2], ts(bound)))
							}
						}
						v++
						z := &ijRow{side: 1 - y.side, id: y.id, v: v, t: bound + int64(r.Intn(3)-1), wmAt: op, event: len(events)}
						if y.side == 0 {
							// A right row at the left row's bound tl - lower
							// is at tl - tr = lower: the pair's edge.
							z.t = y.t - lower + int64(r.Intn(3)-1)
						} else {
							z.t = y.t + upper + int64(r.Intn(3)-1)
						}
						rows = append(rows, z)
						add(fmt.Sprintf("%s +I %s, %d, %s", []string{"l", "r"}[z.side], z.id, v, ts(z.t)))
					}
				}
			}
			b.WriteString("l end\nr end\n")
			events = append(events, "l end", "r end")
			op = max(op, in[1]) // l ended: r alone holds the watermark
			wmAfter = append(wmAfter, op, MaxWatermark)
			script := b.String()
			out, err := runScript(script)
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%s", kind, seed, err, script)
			}
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("%s seed %d (lower %d, upper %d): %s\nengine:\n%s\nscript:\n%s", kind, seed, lower, upper,
					fmt.Sprintf(format, args...), out, script)
			}
			byV := map[int]*ijRow{}
			lateWant := 0
			for _, x := range rows {
				byV[x.v] = x
				if x.t <= x.wmAt {
					lateWant++
				}
			}
			totalLate += lateWant
			bs, late := outBlocks(t, out)
			name := "IntervalJoin " + map[string]string{"JOIN": "INNER", "LEFT JOIN": "LEFT", "RIGHT JOIN": "RIGHT", "FULL JOIN": "FULL"}[kind] + "(l, r)"
			if n := late[name]; n != lateWant {
				fail("late rows: engine %d, want %d (%v)", n, lateWant, late)
			}
			if n := late["from l"] + late["from r"]; n != lateWant {
				fail("late rows counted against the sources: %d, want %d (%v)", n, lateWant, late)
			}
			// What the engine emitted: pairs, and padded rows with where.
			type pairKey struct{ l, r int }
			pairs := map[pairKey]bool{}
			padded := map[int]int{}   // v -> times padded
			paddedAt := map[int]int{} // v -> event index
			partners := map[int]int{}
			for i, lines := range perEvent(t, events, bs) {
				for _, l := range lines {
					if !strings.HasPrefix(l, "+I[") {
						fail("an interval join emits inserts only, got %s", l)
					}
					p := strings.Split(l[3:len(l)-1], ", ")
					switch {
					case p[0] == "NULL":
						rv, _ := strconv.Atoi(p[3])
						padded[rv]++
						paddedAt[rv] = i
					case p[2] == "NULL":
						lv, _ := strconv.Atoi(p[1])
						padded[lv]++
						paddedAt[lv] = i
					default:
						lv, _ := strconv.Atoi(p[1])
						rv, _ := strconv.Atoi(p[3])
						L, R := byV[lv], byV[rv]
						// 1. No spurious pair: same key, within the bounds,
						// and each pair once.
						if L == nil || R == nil || L.side != 0 || R.side != 1 || L.id != R.id ||
							L.t-R.t < lower || L.t-R.t > upper {
							fail("spurious pair %s", l)
						}
						if pairs[pairKey{lv, rv}] {
							fail("pair %s emitted twice", l)
						}
						pairs[pairKey{lv, rv}] = true
						partners[lv]++
						partners[rv]++
						// It is emitted when the second of the two arrives.
						if i != max(L.event, R.event) {
							fail("pair %s emitted at %q, not when its second row arrived", l, events[i])
						}
					}
				}
			}
			for _, L := range rows {
				if L.side != 0 {
					continue
				}
				for _, R := range rows {
					if R.side != 1 || L.id != R.id || L.t-R.t < lower || L.t-R.t > upper {
						continue
					}
					// 2. Two on-time rows always meet.
					onTime := L.t > L.wmAt && R.t > R.wmAt
					if onTime && !pairs[pairKey{L.v, R.v}] {
						fail("on-time rows l v=%d and r v=%d do not meet", L.v, R.v)
					}
					// 4. Exactly: they meet when the first to arrive had not
					// expired when the second arrived.
					first, second := L, R
					if R.event < L.event {
						first, second = R, L
					}
					meet := expiry(first) > first.wmAt && expiry(first) >= second.wmAt
					if meet != pairs[pairKey{L.v, R.v}] {
						fail("l v=%d, r v=%d: engine met %v, model %v (first's bound %s, watermark at the first %s, at the second %s)",
							L.v, R.v, pairs[pairKey{L.v, R.v}], meet, fmtWM(expiry(first)), fmtWM(first.wmAt), fmtWM(second.wmAt))
					}
					if expiry(first) == second.wmAt && meet {
						atBound++
					}
				}
			}
			// 3. Outer rows are padded exactly when they met no partner,
			// once: at once when they arrived past their expiry, otherwise
			// by the first watermark that reaches it.
			outer := [2]bool{kind == "LEFT JOIN" || kind == "FULL JOIN", kind == "RIGHT JOIN" || kind == "FULL JOIN"}
			for _, x := range rows {
				want := 0
				if outer[x.side] && partners[x.v] == 0 {
					want = 1
				}
				if padded[x.v] != want {
					fail("row v=%d (%s) padded %d times, want %d", x.v, []string{"left", "right"}[x.side], padded[x.v], want)
				}
				if want == 0 {
					continue
				}
				at := x.event
				if expiry(x) > x.wmAt {
					at = -1
					for i := x.event; i < len(events); i++ {
						if wmAfter[i] > expiry(x) {
							at = i
							break
						}
					}
				}
				if paddedAt[x.v] != at {
					fail("row v=%d padded at %q, want at %q", x.v, events[paddedAt[x.v]], events[at])
				}
			}
		}
	}
	if totalLate == 0 || atBound == 0 {
		t.Fatalf("the generator made %d late rows and %d meetings at a bound: want some of each", totalLate, atBound)
	}
}

// ---------------------------------------------------------------------------
// (d) Regular join with state TTL.
//
// The model (join.go, Flink's StreamingJoinOperator with idle-state TTL,
// which is OnCreateAndWrite): a row not written for the TTL is gone; it is
// written when inserted and, on an outer side only, each time its match
// count changes (a row of the other side arrives or leaves and matches it).
// Being read by a probe does not count. Rows are unique here (v identifies
// each). A retraction of a row whose state expired emits what it would if
// the row were held (Flink's rule), except for an outer partner without
// matches, which never met the row.

type ttlRec struct {
	id      string
	v       int
	matches int
	access  int64
}

type ttlModel struct {
	ttl   int64
	outer [2]bool
	side  [2][]*ttlRec
}

func (m *ttlModel) alive(x *ttlRec, now int64) bool { return now-x.access < m.ttl }

func (m *ttlModel) fmtPair(s int, mine, other *ttlRec) string {
	cell := func(x *ttlRec) string {
		if x == nil {
			return "NULL, NULL"
		}
		return fmt.Sprintf("%s, %d", x.id, x.v)
	}
	if s == 0 {
		return "[" + cell(mine) + ", " + cell(other) + "]"
	}
	return "[" + cell(other) + ", " + cell(mine) + "]"
}

// apply returns what the change emits, sorted.
func (m *ttlModel) apply(s int, insert bool, x *ttlRec, now int64) []string {
	var out []string
	var ms []*ttlRec
	for _, o := range m.side[1-s] {
		if o.id == x.id && m.alive(o, now) {
			ms = append(ms, o)
		}
	}
	if insert {
		if len(ms) == 0 && m.outer[s] {
			out = append(out, "+I"+m.fmtPair(s, x, nil))
		}
		for _, o := range ms {
			if m.outer[1-s] {
				if o.matches == 0 {
					out = append(out, "-D"+m.fmtPair(1-s, o, nil))
				}
				o.access = now // its match count is written
			}
			o.matches++
			out = append(out, "+I"+m.fmtPair(s, x, o))
		}
		x.matches, x.access = len(ms), now
		m.side[s] = append(m.side[s], x)
	} else {
		// Held or expired alike (Flink's rule), but for an outer partner
		// without matches, which never met x.
		for i, y := range m.side[s] {
			if y == x {
				m.side[s] = append(m.side[s][:i], m.side[s][i+1:]...)
				break
			}
		}
		met := 0
		for _, o := range ms {
			if m.outer[1-s] && o.matches == 0 {
				continue
			}
			met++
			out = append(out, "-D"+m.fmtPair(s, x, o))
			o.matches--
			if m.outer[1-s] {
				o.access = now
				if o.matches == 0 {
					out = append(out, "+I"+m.fmtPair(1-s, o, nil))
				}
			}
		}
		if met == 0 && m.outer[s] {
			out = append(out, "-D"+m.fmtPair(s, x, nil))
		}
	}
	sort.Strings(out)
	return out
}

func TestRegularJoinTTLMatchesReference(t *testing.T) {
	for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
		matchedExpired, retractedExpired := 0, 0
		for seed := int64(1); seed <= 40; seed++ {
			r := rand.New(rand.NewSource(seed))
			ttl := int64(1000 * (5 + r.Intn(10)))
			m := &ttlModel{ttl: ttl, outer: [2]bool{kind == "LEFT JOIN" || kind == "FULL JOIN", kind == "RIGHT JOIN" || kind == "FULL JOIN"}}
			var b strings.Builder
			b.WriteString("CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'datagen');\n")
			b.WriteString("CREATE TABLE r (id STRING, v INT) WITH ('connector' = 'datagen');\n")
			fmt.Fprintf(&b, "SET 'table.exec.state.ttl' = '%ds';\n", ttl/1000)
			fmt.Fprintf(&b, "SELECT l.id, l.v, r.id, r.v FROM l %s r ON l.id = r.id;\n=== events\n", kind)
			var events []string
			var want [][]string
			var now int64
			v := 0
			for n := 0; n < 100; n++ {
				if r.Intn(3) == 0 {
					now += int64(r.Intn(int(ttl / 2)))
					line := fmt.Sprintf("clock %d", now)
					events = append(events, line)
					want = append(want, nil)
					b.WriteString(line + "\n")
				}
				s := r.Intn(2)
				name := []string{"l", "r"}[s]
				var alive, expired []*ttlRec
				for _, x := range m.side[s] {
					if m.alive(x, now) {
						alive = append(alive, x)
					} else {
						expired = append(expired, x)
					}
				}
				var line string
				switch {
				case len(alive) > 0 && r.Intn(4) == 0:
					x := alive[r.Intn(len(alive))]
					line = fmt.Sprintf("%s -D %s, %d", name, x.id, x.v)
					want = append(want, m.apply(s, false, x, now))
				case len(expired) > 0 && r.Intn(5) == 0:
					// A retraction of a row whose state has expired.
					x := expired[r.Intn(len(expired))]
					retractedExpired++
					line = fmt.Sprintf("%s -D %s, %d", name, x.id, x.v)
					want = append(want, m.apply(s, false, x, now))
				default:
					v++
					x := &ttlRec{id: fmt.Sprintf("k%d", r.Intn(3)), v: v}
					for _, o := range m.side[1-s] {
						if o.id == x.id && !m.alive(o, now) {
							matchedExpired++ // a partner by key that the TTL forgot
						}
					}
					line = fmt.Sprintf("%s +I %s, %d", name, x.id, x.v)
					want = append(want, m.apply(s, true, x, now))
				}
				events = append(events, line)
				b.WriteString(line + "\n")
			}
			b.WriteString("l end\nr end\n")
			script := b.String()
			out, err := runScript(script)
			if err != nil {
				t.Fatalf("%s seed %d: %v\n%s", kind, seed, err, script)
			}
			bs, _ := outBlocks(t, out)
			got := perEvent(t, events, bs)
			for i := range events {
				g := append([]string(nil), got[i]...)
				sort.Strings(g)
				if joinLines(g) != joinLines(want[i]) {
					t.Fatalf("%s seed %d (ttl %dms): at %q the engine emitted\n%s\nthe model\n%s\nscript:\n%s", kind, seed, ttl,
						events[i], joinLines(g), joinLines(want[i]), script)
				}
			}
		}
		if matchedExpired == 0 || retractedExpired == 0 {
			t.Fatalf("%s: the TTL never made a difference (%d partners forgotten, %d expired rows retracted)",
				kind, matchedExpired, retractedExpired)
		}
	}
}

// ---------------------------------------------------------------------------
// (e) Replay determinism: the same script gives the same changelog, byte for
// byte, run after run.

func TestReplayDeterminism(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var scripts []string
	// Interval joins, with late rows.
	for _, kind := range []string{"JOIN", "FULL JOIN"} {
		left, right := genStream(r, 60, 3, 700), genStream(r, 60, 3, 700)
		scripts = append(scripts, intervalScript(kind, -1500, 500, 700, left, right, r))
	}
	// A window aggregate with MIN/MAX/COUNT(DISTINCT) over many keys.
	{
		var b strings.Builder
		b.WriteString("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
		b.WriteString("SELECT window_start, window_end, k, COUNT(*), COUNT(DISTINCT v), MIN(v), MAX(v), SUM(v) FROM TABLE(HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end, k;\n=== events\n")
		for i, x := range genStream(r, 200, 12, 1000) {
			fmt.Fprintf(&b, "b +I %s, %d, %s\n", x.id, x.v%7, ts(x.t+base))
			if i%10 == 9 {
				fmt.Fprintf(&b, "b wm %s\n", ts(x.t+base-1000))
			}
		}
		b.WriteString("b end\n")
		scripts = append(scripts, b.String())
	}
	// A group aggregate and a regular join over changelogs.
	{
		var b strings.Builder
		b.WriteString("CREATE TABLE c (k STRING, v INT) WITH ('connector' = 'datagen');\n")
		b.WriteString("SELECT k, COUNT(*), MIN(v), MAX(v), COUNT(DISTINCT v) FROM c GROUP BY k;\n=== events\n")
		var live []aggRow
		for n := 0; n < 200; n++ {
			if len(live) > 0 && r.Intn(3) == 0 {
				i := r.Intn(len(live))
				fmt.Fprintf(&b, "c -D %s, %d\n", live[i].k, live[i].v)
				live = append(live[:i], live[i+1:]...)
				continue
			}
			x := aggRow{k: fmt.Sprintf("k%d", r.Intn(10)), v: r.Intn(9)}
			live = append(live, x)
			fmt.Fprintf(&b, "c +I %s, %d\n", x.k, x.v)
		}
		b.WriteString("c end\n")
		scripts = append(scripts, b.String())
	}
	{
		var b strings.Builder
		b.WriteString("CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'datagen');\n")
		b.WriteString("CREATE TABLE r (id STRING, v INT) WITH ('connector' = 'datagen');\n")
		b.WriteString("SET 'table.exec.state.ttl' = '5s';\n")
		b.WriteString("SELECT l.id, l.v, r.id, r.v FROM l FULL JOIN r ON l.id = r.id AND l.v <= r.v + 50;\n=== events\n")
		for n := 0; n < 200; n++ {
			if n%7 == 0 {
				fmt.Fprintf(&b, "clock %d\n", n*300)
			}
			fmt.Fprintf(&b, "%s +I k%d, %d\n", []string{"l", "r"}[r.Intn(2)], r.Intn(5), r.Intn(100))
		}
		b.WriteString("l end\nr end\n")
		scripts = append(scripts, b.String())
	}
	for i, s := range scripts {
		first, err := runScript(s)
		if err != nil {
			t.Fatalf("script %d: %v\n%s", i, err, s)
		}
		for run := 0; run < 5; run++ {
			again, err := runScript(s)
			if err != nil {
				t.Fatalf("script %d: %v", i, err)
			}
			if again != first {
				t.Fatalf("script %d: run %d differs from the first\nfirst:\n%s\nagain:\n%s\nscript:\n%s", i, run+2, first, again, s)
			}
		}
	}
}

// TestRegularJoinTTLDuplicates is the TTL model with identical rows: an
// inner join keeps each distinct row with a count, and a row whose TTL has
// passed is gone, count and all (Flink's map state entry expires). A new
// identical row starts again at count 1. A change of the count (a copy in
// or out) writes the row and starts its TTL again; a probe does not.
func TestRegularJoinTTLDuplicates(t *testing.T) {
	type rec struct {
		id     string
		v      int
		count  int
		access int64
	}
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		const ttl = 5000
		var side [2][]*rec
		alive := func(x *rec, now int64) bool { return now-x.access < ttl }
		var b strings.Builder
		b.WriteString("CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'datagen');\n")
		b.WriteString("CREATE TABLE r (id STRING, v INT) WITH ('connector' = 'datagen');\n")
		b.WriteString("SET 'table.exec.state.ttl' = '5s';\n")
		b.WriteString("SELECT l.id, l.v, r.id, r.v FROM l JOIN r ON l.id = r.id;\n=== events\n")
		var events []string
		var want [][]string
		var now int64
		for n := 0; n < 80; n++ {
			if r.Intn(3) == 0 {
				now += int64(r.Intn(3000))
				line := fmt.Sprintf("clock %d", now)
				events, want = append(events, line), append(want, nil)
				b.WriteString(line + "\n")
			}
			s := r.Intn(2)
			// Few distinct rows, so that identical rows are common.
			x := &rec{id: fmt.Sprintf("k%d", r.Intn(2)), v: r.Intn(2)}
			var live *rec
			for _, y := range side[s] {
				if y.id == x.id && y.v == x.v && alive(y, now) {
					live = y
				}
			}
			insert := live == nil || r.Intn(3) > 0
			var out []string
			for _, o := range side[1-s] {
				if o.id != x.id || !alive(o, now) {
					continue
				}
				// Read, not written (an inner join): its TTL runs on.
				l, rr := x, o
				if s == 1 {
					l, rr = o, x
				}
				kind := "+I"
				if !insert {
					kind = "-D"
				}
				for i := 0; i < o.count; i++ {
					out = append(out, fmt.Sprintf("%s[%s, %d, %s, %d]", kind, l.id, l.v, rr.id, rr.v))
				}
			}
			sort.Strings(out)
			// Forget expired records, then count the change in.
			kept := side[s][:0]
			for _, y := range side[s] {
				if alive(y, now) {
					kept = append(kept, y)
				}
			}
			side[s] = kept
			kind := "+I"
			switch {
			case !insert:
				kind = "-D"
				if live.count--; live.count == 0 {
					for i, y := range side[s] {
						if y == live {
							side[s] = append(side[s][:i], side[s][i+1:]...)
							break
						}
					}
				} else {
					live.access = now // its count is written
				}
			case live != nil:
				live.count++
				live.access = now
			default:
				x.count, x.access = 1, now
				side[s] = append(side[s], x)
			}
			line := fmt.Sprintf("%s %s %s, %d", []string{"l", "r"}[s], kind, x.id, x.v)
			events, want = append(events, line), append(want, out)
			b.WriteString(line + "\n")
		}
		b.WriteString("l end\nr end\n")
		script := b.String()
		out, err := runScript(script)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, script)
		}
		// Identical lines repeat here, so compare the sequence of emitting
		// events rather than aligning them with the script's lines.
		bs, _ := outBlocks(t, out)
		var wantB []block
		for i, w := range want {
			if len(w) > 0 {
				wantB = append(wantB, block{event: events[i], lines: w})
			}
		}
		for i := 0; i < max(len(bs), len(wantB)); i++ {
			var g, w block
			if i < len(bs) {
				g = bs[i]
				g.lines = append([]string(nil), g.lines...)
				sort.Strings(g.lines)
			}
			if i < len(wantB) {
				w = wantB[i]
			}
			if g.event != w.event || joinLines(g.lines) != joinLines(w.lines) {
				t.Fatalf("seed %d: emitting event %d: engine\n%s\n  %s\nmodel\n%s\n  %s\nscript:\n%s", seed, i+1,
					g.event, strings.Join(g.lines, "\n  "), w.event, strings.Join(w.lines, "\n  "), script)
			}
		}
	}
}

// TestRegularJoinTTLRetractionOfExpiredRow: whether retracting a row whose
// TTL has passed retracts its earlier join results must not depend on
// whether an unrelated row happened to trigger a sweep first.
func TestRegularJoinTTLRetractionOfExpiredRow(t *testing.T) {
	const job = `CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'datagen');
CREATE TABLE r (id STRING, w INT) WITH ('connector' = 'datagen');
SET 'table.exec.state.ttl' = '10s';
SELECT l.id, l.v, r.w FROM l JOIN r ON l.id = r.id;
=== events
clock 0
l +I a, 1
clock 1000
r +I a, 5
clock 6000
l +I a, 2
clock 12000
`
	a, err := runScript(job + "l -D a, 1\nl end\nr end\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := runScript(job + "r +I z, 0\nl -D a, 1\nl end\nr end\n")
	if err != nil {
		t.Fatal(err)
	}
	if ma, mb := joinLines(materialize(t, a)), joinLines(materialize(t, b)); ma != mb {
		t.Fatalf("an unrelated row changed the result\nwithout it:\n%s\nwith it:\n%s", ma, mb)
	}
}

// The TTL of a join is that of its statement, as EXPLAIN shows it: a SET
// after the statement changes nothing (it expired at 10 s and not never).
func TestStateTTLIsTheStatements(t *testing.T) {
	const job = `CREATE TABLE l (id STRING, v INT) WITH ('connector' = 'datagen');
CREATE TABLE r (id STRING, w INT) WITH ('connector' = 'datagen');
SET 'table.exec.state.ttl' = '10s';
SELECT l.id, l.v, r.w FROM l JOIN r ON l.id = r.id;
%s=== events
clock 0
l +I a, 1
clock 12000
r +I a, 5
l end
r end
`
	a, err := runScript(fmt.Sprintf(job, ""))
	if err != nil {
		t.Fatal(err)
	}
	b, err := runScript(fmt.Sprintf(job, "SET 'table.exec.state.ttl' = '0';\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ma := joinLines(materialize(t, a)); ma != "" {
		t.Fatalf("l's row expired at 10 s and cannot join at 12 s, got\n%s", ma)
	}
	if ma, mb := joinLines(materialize(t, a)), joinLines(materialize(t, b)); ma != mb {
		t.Fatalf("a SET after the statement changed its TTL\nwithout it:\n%s\nwith it:\n%s", ma, mb)
	}
}
