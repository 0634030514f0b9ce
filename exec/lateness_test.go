package exec

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// Allowed lateness and final-only (#17), against a brute-force model of
// the documented semantics (docs/runtime.md, "Late data"; Flink's
// WindowOperator with allowedLateness and the AfterEndOfWindow trigger):
//
//   - a window's horizon is window_end - 1 + lateness; a (row, window)
//     pair is late when the horizon <= the operator's watermark when the
//     row arrives: counted, not aggregated;
//   - else, when window_end - 1 <= the watermark (the window fired), the
//     row is a late update: aggregated, and (but final-only) the group's
//     result is emitted at the end of the batch: +I when it was never
//     emitted, else -U old, +U new when it changed;
//   - a watermark that reaches window_end - 1 emits each group of the
//     window (+I) but final-only, whose groups are emitted once, when the
//     watermark reaches the horizon (without lateness the two are one).

// lmGroup is one (window, key) group of the model.
type lmGroup struct {
	start, end int64
	key        string
	n, sum     int
	mn, mx     int
	last       string // the last emitted row ("" none)
	onTime     bool   // the firing at window_end - 1 is still to come
}

func (g *lmGroup) id() string { return fmt.Sprintf("%s, %s, %s", ts(g.start), ts(g.end), g.key) }

func (g *lmGroup) row() string {
	return fmt.Sprintf("[%s, %d, %d, %d, %d]", g.id(), g.n, g.sum, g.mn, g.mx)
}

// lateModel is the model of one window aggregate:
// SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v).
//
// Early and late firing (Flink's WindowEmitStrategy: the AfterEndOfWindow
// trigger with early and late firings, each ProcessingTimeTriggers.every
// for a delay, ElementTriggers.every for 0) add, per group:
//
//   - a row for a window that has not fired, with early firing, fires the
//     group: at the end of the batch for delay 0, else at a
//     processing-time timer clock + delay set by the first such row after
//     the last firing (one timer per group pending at a time);
//   - a row within the lateness, with late firing, does the same with
//     the late delay instead of the per-batch update;
//   - a firing emits +I when the group was never emitted, else -U old,
//     +U new when its result changed since, else nothing; so do the
//     watermark's firing at window_end - 1 and the horizon (which emits
//     what a pending timer had not yet).
type lateModel struct {
	win             lateWin
	lateness        int64
	finalOnly       bool
	early, lateFire int64 // delays in ms; -1: off
	wm, clock       int64
	groups          map[string]*lmGroup
	timers          map[string]int64 // group id: when its timer fires
	late, updates   int
}

func newLateModel(win lateWin, mode lateMode) *lateModel {
	return &lateModel{win: win, lateness: mode.lateness, finalOnly: mode.finalOnly,
		early: mode.early, lateFire: mode.lateFire, wm: MinWatermark, groups: map[string]*lmGroup{}, timers: map[string]int64{}}
}

// fire emits g's result if it was never emitted or changed since.
func (m *lateModel) fire(g *lmGroup) []string {
	cur := g.row()
	switch {
	case g.last == "":
		g.last = cur
		return []string{"+I" + cur}
	case g.last != cur:
		out := []string{"-U" + g.last, "+U" + cur}
		g.last = cur
		return out
	}
	return nil
}

// advanceClock moves processing time to t and returns what the timers due
// emit.
func (m *lateModel) advanceClock(t int64) []string {
	m.clock = t
	var out []string
	for id, at := range m.timers {
		if at > t {
			continue
		}
		delete(m.timers, id)
		if g := m.groups[id]; g != nil {
			out = append(out, m.fire(g)...)
		}
	}
	return out
}

// batch takes one batch of rows and returns what the operator emits for it.
func (m *lateModel) batch(rows []refRow) []string {
	var touched []*lmGroup
	seen := map[*lmGroup]bool{}
	for _, x := range rows {
		for _, w := range m.win.of(x.t) {
			end := w[1]
			if end-1+m.lateness <= m.wm {
				m.late++
				continue
			}
			fired := end-1 <= m.wm
			if fired {
				m.updates++
			}
			g := &lmGroup{start: w[0], end: end, key: x.id}
			if old := m.groups[g.id()]; old != nil {
				g = old
			} else {
				g.mn, g.mx = x.v, x.v
				g.onTime = m.lateness > 0 && !m.finalOnly && !fired
				m.groups[g.id()] = g
			}
			g.n++
			g.sum += x.v
			g.mn, g.mx = min(g.mn, x.v), max(g.mx, x.v)
			delay := m.early // -1: no firing
			if fired {
				delay = m.lateFire
				if delay < 0 && !m.finalOnly {
					delay = 0
				}
			}
			if _, pending := m.timers[g.id()]; delay > 0 && !pending {
				m.timers[g.id()] = m.clock + delay
			}
			if delay == 0 && !seen[g] {
				seen[g] = true
				touched = append(touched, g)
			}
		}
	}
	var out []string
	for _, g := range touched {
		out = append(out, m.fire(g)...)
	}
	return out
}

// watermark advances the model's watermark to w and returns what that
// emits.
func (m *lateModel) watermark(w int64) []string {
	if w <= m.wm {
		return nil
	}
	m.wm = w
	var out []string
	for id, g := range m.groups {
		if g.onTime && g.end-1 <= w {
			g.onTime = false
			out = append(out, m.fire(g)...)
		}
		if g.end-1+m.lateness <= w {
			out = append(out, m.fire(g)...)
			delete(m.groups, id)
		}
	}
	return out
}

// lateMode is one setting of allowed lateness, final-only and early and
// late firing.
type lateMode struct {
	lateness  int64 // ms
	finalOnly bool
	// early and lateFire are the firing delays in ms (-1: off; 0: with
	// each batch).
	early, lateFire int64
}

func (c lateMode) String() string {
	s := fmt.Sprintf("lateness %dms", c.lateness)
	if c.finalOnly {
		s += ", final-only"
	}
	if c.early >= 0 {
		s += fmt.Sprintf(", early fire %dms", c.early)
	}
	if c.lateFire >= 0 {
		s += fmt.Sprintf(", late fire %dms", c.lateFire)
	}
	return s
}

func (c lateMode) sets() string {
	var b strings.Builder
	if c.lateness > 0 {
		fmt.Fprintf(&b, "SET 'table.exec.emit.allow-lateness' = '%d ms';\n", c.lateness)
	}
	if c.finalOnly {
		b.WriteString("SET 'table.exec.emit.final-only' = 'true';\n")
	}
	if c.early >= 0 {
		fmt.Fprintf(&b, "SET 'table.exec.emit.early-fire.enabled' = 'true';\nSET 'table.exec.emit.early-fire.delay' = '%d ms';\n", c.early)
	}
	if c.lateFire >= 0 {
		fmt.Fprintf(&b, "SET 'table.exec.emit.late-fire.enabled' = 'true';\nSET 'table.exec.emit.late-fire.delay' = '%d ms';\n", c.lateFire)
	}
	return b.String()
}

// timed reports whether the mode fires on processing time.
func (c lateMode) timed() bool { return c.early > 0 || c.lateFire > 0 }

var lateModes = []lateMode{
	{0, false, -1, -1}, {2000, false, -1, -1}, {2000, true, -1, -1}, {0, true, -1, -1}, {700, false, -1, -1},
	// Early and late firing.
	{0, false, 1000, -1}, {0, false, 0, -1}, {2000, false, 700, 500}, {2000, false, -1, 0},
	{700, false, 0, 300}, {2000, false, 400, -1},
}

// lateWin is the window of a differential run: TUMBLE (slide = size),
// HOP, or CUMULATE (cumulate: windows [start, start + k*slide) of each
// size-aligned start).
type lateWin struct {
	size, slide int64
	cumulate    bool
	tvf         string
}

// of lists the [start, end) windows containing t.
func (w lateWin) of(t int64) [][2]int64 {
	if !w.cumulate {
		return windowsOf(t, w.size, w.slide)
	}
	start := floorDiv(t, w.size) * w.size
	var ws [][2]int64
	for end := start + w.slide; end <= start+w.size; end += w.slide {
		if end > t {
			ws = append(ws, [2]int64{start, end})
		}
	}
	return ws
}

// lateWindow picks a TUMBLE, HOP or CUMULATE window for a seed.
func lateWindow(r *rand.Rand) lateWin {
	switch r.Intn(3) {
	case 0:
		size := []int64{500, 1000, 2000}[r.Intn(3)]
		return lateWin{size: size, slide: size, tvf: fmt.Sprintf("TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '%s' SECOND)", secs(size))}
	case 1:
		slide := []int64{500, 1000}[r.Intn(2)]
		size := slide * int64(1+r.Intn(3))
		return lateWin{size: size, slide: slide, tvf: fmt.Sprintf("HOP(TABLE b, DESCRIPTOR(ts), INTERVAL '%s' SECOND, INTERVAL '%s' SECOND)", secs(slide), secs(size))}
	}
	step := []int64{500, 1000}[r.Intn(2)]
	size := step * int64(2+r.Intn(3))
	return lateWin{size: size, slide: step, cumulate: true, tvf: fmt.Sprintf("CUMULATE(TABLE b, DESCRIPTOR(ts), INTERVAL '%s' SECOND, INTERVAL '%s' SECOND)", secs(step), secs(size))}
}

// lateRows makes a stream with disorder and, about one row in four,
// a row far behind: within the lateness of its windows or beyond it.
func lateRows(r *rand.Rand, n int) []refRow {
	rows := genStream(r, n, 3, 1500)
	maxT := int64(0)
	for i := range rows {
		rows[i].t += base
		rows[i].v = i + 1 // unique: no two events print alike
		if maxT > base && r.Intn(4) == 0 {
			rows[i].t = max(maxT-1500-int64(r.Intn(4000)), 0)
		}
		maxT = max(maxT, rows[i].t)
	}
	return rows
}

func TestWindowLatenessMatchesReference(t *testing.T) { windowLatenessDifferential(t, "") }

// TestWindowLatenessSpillMatchesReference runs the same with a one-byte
// budget: every group (and its timer) spills to Badger and fires, is
// updated and expires from there, two fired rows at a time.
func TestWindowLatenessSpillMatchesReference(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 2
	windowLatenessDifferential(t, "1b")
}

// windowLatenessDifferential runs scripts, one event at a time, and checks
// what each event made the query emit against the model.
func windowLatenessDifferential(t *testing.T, budget string) {
	kinds := map[string]bool{}
	defer func() {
		if len(kinds) != 3 {
			t.Errorf("the scripts windowed with %v, want TUMBLE, HOP and CUMULATE", kinds)
		}
	}()
	for _, mode := range lateModes {
		var totalLate, totalUpdates, totalTimed int
		for seed := int64(1); seed <= 12; seed++ {
			r := rand.New(rand.NewSource(seed))
			win := lateWindow(r)
			tvf := win.tvf
			kinds[tvf[:strings.Index(tvf, "(")]] = true
			m := newLateModel(win, mode)
			var b strings.Builder
			b.WriteString("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
			if budget != "" {
				fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
			}
			b.WriteString(mode.sets())
			fmt.Fprintf(&b, "SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM TABLE(%s) GROUP BY window_start, window_end, k;\n=== events\n", tvf)
			var events []string
			var want [][]string
			add := func(line string, out []string) {
				events = append(events, line)
				want = append(want, out)
				b.WriteString(line + "\n")
			}
			maxT := int64(0)
			clock := int64(0)
			for _, x := range lateRows(r, 50+r.Intn(40)) {
				add(fmt.Sprintf("b +I %s, %d, %s", x.id, x.v, ts(x.t)), m.batch([]refRow{x}))
				maxT = max(maxT, x.t)
				if w := maxT - 1000; r.Intn(3) == 0 && w > m.wm {
					add("b wm "+ts(w), m.watermark(w))
				}
				// Processing time moves on now and then, firing the timers
				// due (runScript fires them at each clock event).
				if mode.timed() && r.Intn(3) == 0 {
					clock += r.Int63n(1200)
					out := m.advanceClock(clock)
					totalTimed += len(out)
					add(fmt.Sprintf("clock %d", clock), out)
				}
			}
			add("b end", m.watermark(MaxWatermark))
			script := b.String()
			out, err := runScript(script)
			if err != nil {
				t.Fatalf("%v seed %d: %v\n%s", mode, seed, err, script)
			}
			if budget != "" && !strings.Contains(out, "(state spilled to disk)") {
				t.Fatalf("%v seed %d: a %s budget did not spill", mode, seed, budget)
			}
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("%v seed %d: %s\nengine:\n%s\nscript:\n%s", mode, seed, fmt.Sprintf(format, args...), out, script)
			}
			bs, late := outBlocks(t, strings.Replace(out, "(state spilled to disk)\n", "", 1))
			got := perEvent(t, events, bs)
			for i := range events {
				g, w := slices.Clone(got[i]), slices.Clone(want[i])
				sort.Strings(g)
				sort.Strings(w)
				if joinLines(g) != joinLines(w) {
					fail("at %q the engine emitted\n%s\nand the reference\n%s", events[i], joinLines(g), joinLines(w))
				}
			}
			if late["WindowAggregate"] != m.late || late["updates WindowAggregate"] != m.updates {
				fail("late rows %d and late updates %d, the reference %d and %d",
					late["WindowAggregate"], late["updates WindowAggregate"], m.late, m.updates)
			}
			if len(m.groups) != 0 {
				fail("the model kept groups after the end")
			}
			totalLate += m.late
			totalUpdates += m.updates
		}
		// The generator must reach every case it is meant to.
		if totalLate == 0 || mode.lateness > 0 && totalUpdates == 0 || mode.timed() && totalTimed == 0 {
			t.Fatalf("%v: the scripts made %d late rows, %d late updates and %d rows at timers", mode, totalLate, totalUpdates, totalTimed)
		}
	}
}

// TestWindowLatenessParallel runs whole jobs (Job.Run, sources read seven
// rows a batch, a watermark after each) at 1 and 4 partitions, spilled and
// not: the changes of each (window, key) must be the model's, in the
// model's order, and the late counts its own.
func TestWindowLatenessParallel(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	const epoch2026 = 1_767_225_600_000 // 2026-01-01 00:00:00 UTC in ms
	for _, mode := range lateModes {
		if mode.timed() {
			// When a processing-time timer fires among the batches of a
			// running job is not the model's to say: TestWindowFinality
			// Property runs these modes on a fake clock, and
			// windowLatenessDifferential event by event.
			continue
		}
		for _, p := range []int{1, 4} {
			for seed := int64(1); seed <= 4; seed++ {
				budget := []string{"", "1b"}[seed%2]
				r := rand.New(rand.NewSource(seed * 31))
				win := lateWindow(r)
				tvf := win.tvf
				rows := lateRows(r, 150)
				path := fmt.Sprintf("late-%d.json", seed)
				var data row.Batch
				for _, x := range rows {
					data = append(data, row.Insert(row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
				}
				setData(path, data)
				// The model of the source: a batch of seven rows, then the
				// watermark max(ts) - 1 s if it rose; the end.
				m := newLateModel(win, mode)
				var want []string
				wm := int64(MinWatermark)
				for i := 0; i < len(rows); i += 7 {
					batch := rows[i:min(i+7, len(rows))]
					want = append(want, m.batch(batch)...)
					for _, x := range batch {
						wm = max(wm, x.t-1000)
					}
					want = append(want, m.watermark(wm)...)
				}
				want = append(want, m.watermark(MaxWatermark)...)
				sql := fmt.Sprintf("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n", path)
				if budget != "" {
					sql += fmt.Sprintf("SET 'state.memory-budget' = '%s';\n", budget)
				}
				sql += mode.sets() + fmt.Sprintf("SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v) FROM TABLE(%s) GROUP BY window_start, window_end, k;", tvf)
				got, late, updates := runLines(t, sql, p)
				name := fmt.Sprintf("%v, P=%d, seed %d, budget %q", mode, p, seed, budget)
				if g, w := byGroup(got), byGroup(want); !maps2Equal(g, w) {
					t.Fatalf("%s: the changes per window and key differ\nengine:\n%s\nreference:\n%s", name, joinLines(got), joinLines(want))
				}
				if late != int64(m.late) || updates != int64(m.updates) {
					t.Fatalf("%s: late rows %d and late updates %d, the reference %d and %d", name, late, updates, m.late, m.updates)
				}
			}
		}
	}
}

// byGroup splits a changelog by window and key (the first three values),
// keeping each one's order.
func byGroup(lines []string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		parts := strings.SplitN(l[3:], ", ", 4)
		id := strings.Join(parts[:3], ", ")
		out[id] = append(out[id], l)
	}
	return out
}

func maps2Equal(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// runLines runs sql (one query) through Job.Run at the given parallelism
// and returns its changelog lines as they came, and the late rows and
// late updates its operators counted.
func runLines(t *testing.T, sql string, parallelism int, with ...func(*Options)) (lines []string, late, updates int64) {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("job has errors: %v", j.Diags.Err())
	}
	var mu sync.Mutex
	opts := Options{
		Settings:    j.Session.Settings,
		Parallelism: parallelism,
		QuerySink: func(_ string, cols []connector.Column) connector.Sink {
			return &funcSink{write: func(rows row.Batch) {
				mu.Lock()
				defer mu.Unlock()
				for _, r := range rows {
					lines = append(lines, changeLine(r, cols))
				}
			}}
		},
	}
	for _, f := range with {
		f(&opts)
	}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, o := range job.Operators {
		late += o.Late.Load()
		updates += o.LateUpdates.Load()
	}
	return lines, late, updates
}

// TestLateDataDocs runs the scripts of docs/runtime.md's "Late data"
// section (```text blocks with "=== events" and "----") and checks that
// each shows what the engine emits.
func TestLateDataDocs(t *testing.T) {
	b, err := os.ReadFile("../docs/runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Late data\n")
	if start < 0 {
		t.Fatal("docs/runtime.md has no section Late data")
	}
	end := strings.Index(text[start+1:], "\n## ")
	section := text[start : start+1+end]
	n := 0
	for _, blk := range strings.Split(section, "```text\n")[1:] {
		blk, _, _ = strings.Cut(blk, "```")
		script, want, ok := strings.Cut(blk, "----\n")
		if !ok || !strings.Contains(script, "=== events\n") {
			continue
		}
		n++
		got, err := runScript(script)
		if err != nil {
			t.Fatalf("script %d: %v\n%s", n, err, script)
		}
		if got != want {
			t.Errorf("script %d of docs/runtime.md's Late data: the engine emits\n%s\nthe docs say\n%s", n, got, want)
		}
	}
	if n < 3 {
		t.Fatalf("found %d scripts in Late data, want every mode's", n)
	}
}

// TestWindowFinalityProperty: with WINDOW_FINALITY() and WINDOW_VERSION()
// selected, under random late rows, in every mode, at P=1 and P=4, spilled
// and not: each (window, key) has versions 1, 2, ... in order, each -U is
// the row emitted just before it, exactly one row is FINAL and it is the
// last; a row before it is PRELIMINARY (the firing at window_end) or
// UPDATED (late rows changed the window); without lateness, or final-only,
// the one row is FINAL, version 1. The aggregates of the FINAL rows are
// the model's final table.
func TestWindowFinalityProperty(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	const epoch2026 = 1_767_225_600_000
	rowsSeen := 0
	for _, mode := range lateModes {
		earlyRows := 0
		for _, p := range []int{1, 4} {
			for seed := int64(1); seed <= 3; seed++ {
				budget := []string{"", "1b"}[seed%2]
				r := rand.New(rand.NewSource(seed*57 + int64(p)))
				win := lateWindow(r)
				tvf := win.tvf
				rows := lateRows(r, 120)
				path := fmt.Sprintf("fin-%d-%d.json", seed, p)
				var data row.Batch
				for _, x := range rows {
					data = append(data, row.Insert(row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
				}
				setData(path, data)
				m := newLateModel(win, mode)
				var final []string
				wm := int64(MinWatermark)
				collect := func(out []string) {
					for _, l := range out {
						if strings.HasPrefix(l, "-U") {
							continue
						}
						final = append(final, l)
					}
				}
				for i := 0; i < len(rows); i += 7 {
					batch := rows[i:min(i+7, len(rows))]
					collect(m.batch(batch))
					for _, x := range batch {
						wm = max(wm, x.t-1000)
					}
					collect(m.watermark(wm))
				}
				collect(m.watermark(MaxWatermark))
				// The model's last row per window and key, without "+I"/"+U".
				want := map[string]string{}
				for _, l := range final {
					parts := strings.SplitN(l[3:], ", ", 4)
					want[strings.Join(parts[:3], ", ")] = l[2:]
				}
				sql := fmt.Sprintf("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n", path)
				if budget != "" {
					sql += fmt.Sprintf("SET 'state.memory-budget' = '%s';\n", budget)
				}
				sql += mode.sets() + fmt.Sprintf("SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v), WINDOW_FINALITY(), WINDOW_VERSION() FROM TABLE(%s) GROUP BY window_start, window_end, k;", tvf)
				// Processing time moves 700 ms before each batch the
				// source reads: timers fire among the batches.
				clk := &fakeClock{}
				setHook(path, func() { clk.Advance(700) })
				got, _, _ := runLines(t, sql, p, clk.options)
				setHook(path, nil)
				name := fmt.Sprintf("%v, P=%d, seed %d, budget %q", mode, p, seed, budget)
				for id, lines := range byGroup(got) {
					var prev string // the last row emitted, without its kind
					var prevCount string
					version := int64(0)
					for i, l := range lines {
						kind, body := l[:2], l[2:]
						vals := strings.Split(strings.Trim(body, "[]"), ", ")
						fin, ver := vals[len(vals)-2], vals[len(vals)-1]
						if kind == "-U" {
							if body != prev {
								t.Fatalf("%s: %s: -U %s does not retract the row before it, %s\n%s", name, id, body, prev, joinLines(lines))
							}
							continue
						}
						version++
						if ver != fmt.Sprint(version) {
							t.Fatalf("%s: %s: row %d has version %s, want %d\n%s", name, id, i, ver, version, joinLines(lines))
						}
						if (fin == "FINAL") != (i == len(lines)-1) {
							t.Fatalf("%s: %s: a FINAL row must be the last and the last row FINAL\n%s", name, id, joinLines(lines))
						}
						if fin != "FINAL" && fin != "PRELIMINARY" && fin != "UPDATED" {
							t.Fatalf("%s: %s: finality %q", name, id, fin)
						}
						if (mode.lateness == 0 && mode.early < 0 || mode.finalOnly) && len(lines) != 1 {
							t.Fatalf("%s: %s: without lateness and early firing, or final-only, a window and key has one row\n%s", name, id, joinLines(lines))
						}
						if mode.lateness == 0 && fin == "UPDATED" {
							t.Fatalf("%s: %s: UPDATED without lateness\n%s", name, id, joinLines(lines))
						}
						if mode.lateness == 0 && fin == "PRELIMINARY" {
							earlyRows++ // only an early firing emits it
						}
						// Rows only add to a window: COUNT(*) never falls.
						if n := vals[3]; prevCount != "" && atoi(t, n) < atoi(t, prevCount) {
							t.Fatalf("%s: %s: COUNT(*) fell from %s to %s\n%s", name, id, prevCount, n, joinLines(lines))
						}
						prevCount = vals[3]
						if (kind == "+I") != (version == 1) {
							t.Fatalf("%s: %s: +I must be the first row, +U the others\n%s", name, id, joinLines(lines))
						}
						prev = body
						rowsSeen++
					}
					// The FINAL row's aggregates are the model's final ones.
					aggs := strings.Split(strings.Trim(prev, "[]"), ", ")
					if w := want[id]; "["+strings.Join(aggs[:len(aggs)-2], ", ")+"]" != w {
						t.Fatalf("%s: %s: FINAL %s, the reference %s", name, id, prev, w)
					}
					delete(want, id)
				}
				if len(want) != 0 {
					t.Fatalf("%s: windows and keys without rows: %v", name, want)
				}
			}
		}
		// The fake clock must have fired early results in these runs.
		if mode.lateness == 0 && mode.early >= 0 && earlyRows == 0 {
			t.Fatalf("%v: no early firing in any run", mode)
		}
	}
	if rowsSeen == 0 {
		t.Fatal("no rows")
	}
}

// fakeClock is processing time for tests that run whole jobs: it moves
// only when advanced, and Wake's channels close when it passes their
// time (Options.Clock and Options.Wake).
type fakeClock struct {
	mu      sync.Mutex
	now     int64
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at int64
	ch chan struct{}
}

func (c *fakeClock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Wake(at int64) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if at <= c.now {
		close(ch)
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at, ch})
	return ch
}

// Advance moves the clock d ms on and wakes the waiters it passed.
func (c *fakeClock) Advance(d int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	keep := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at <= c.now {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	c.waiters = keep
}

func (c *fakeClock) options(o *Options) { o.Clock, o.Wake = c.Now, c.Wake }

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// TestWindowLatenessDownstream: a window Top-N after a final-only window
// aggregate with lateness. The aggregate emits each window at its horizon,
// window_end - 1 + lateness; its output watermark is held back by the
// lateness, so the Top-N takes those rows as on time (before, it counted
// every one late and emitted nothing). At P=1 and P=4, hot and spilled,
// the Top-N's rows are the model's: per window, the key with the largest
// MAX(v) among the groups the model emits (v is unique: no ties).
func TestWindowLatenessDownstream(t *testing.T) {
	const epoch2026 = 1_767_225_600_000
	mode := lateMode{lateness: 2000, finalOnly: true, early: -1, lateFire: -1}
	for _, p := range []int{1, 4} {
		for seed := int64(1); seed <= 4; seed++ {
			budget := []string{"", "1b"}[seed%2]
			r := rand.New(rand.NewSource(seed*91 + int64(p)))
			win := lateWindow(r)
			tvf := win.tvf
			rows := lateRows(r, 150)
			path := fmt.Sprintf("down-%d-%d.json", seed, p)
			var data row.Batch
			for _, x := range rows {
				data = append(data, row.Insert(row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
			}
			setData(path, data)
			m := newLateModel(win, mode)
			var emitted []string
			wm := int64(MinWatermark)
			for i := 0; i < len(rows); i += 7 {
				batch := rows[i:min(i+7, len(rows))]
				emitted = append(emitted, m.batch(batch)...)
				for _, x := range batch {
					wm = max(wm, x.t-1000)
				}
				emitted = append(emitted, m.watermark(wm)...)
			}
			emitted = append(emitted, m.watermark(MaxWatermark)...)
			// The model's top row per window: [start, end, key, max].
			top := map[string][]string{}
			for _, l := range emitted {
				vals := strings.Split(strings.Trim(l[2:], "[]"), ", ")
				win := vals[0] + ", " + vals[1]
				if cur, ok := top[win]; !ok || atoi(t, vals[6]) > atoi(t, cur[3]) {
					top[win] = []string{vals[0], vals[1], vals[2], vals[6]}
				}
			}
			var want []string
			for _, v := range top {
				want = append(want, "+I["+strings.Join(v, ", ")+"]")
			}
			sql := fmt.Sprintf("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n", path)
			if budget != "" {
				sql += fmt.Sprintf("SET 'state.memory-budget' = '%s';\n", budget)
			}
			sql += mode.sets() + fmt.Sprintf(`SELECT window_start, window_end, k, mx FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY mx DESC) AS rn FROM (
    SELECT window_start, window_end, k, MAX(v) AS mx FROM TABLE(%s) GROUP BY window_start, window_end, k))
WHERE rn <= 1;`, tvf)
			got, late, _ := runLines(t, sql, p)
			name := fmt.Sprintf("P=%d, seed %d, budget %q", p, seed, budget)
			sort.Strings(got)
			sort.Strings(want)
			if len(want) == 0 {
				t.Fatalf("%s: the model emits nothing", name)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: the Top-N after the aggregate emits\n%s\nthe reference\n%s", name, joinLines(got), joinLines(want))
			}
			if late != int64(m.late) {
				t.Fatalf("%s: %d late rows, the reference %d (none may be late at the Top-N)", name, late, m.late)
			}
		}
	}
}
