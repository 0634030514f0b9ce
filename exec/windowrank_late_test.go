package exec

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/row"
)

// Allowed lateness for a window Top-N over a window TVF (#17), against a
// brute-force model: per window and key, every row that was not late is
// kept, and the top N are found by sorting them all (v descending; v is
// unique, so no ties). The documented semantics:
//
//   - a row is late when window_end - 1 + lateness <= the watermark when
//     it comes (counted, never ranked); one that comes after window_end - 1
//     is a late update (counted, ranked);
//   - the watermark reaching window_end - 1 emits the top N (+I); with
//     lateness (not final-only) they stay until the horizon, and at the end
//     of each batch a partition that late rows changed emits the difference
//     from what it emitted: by number (-U, +U; +I where a number fills)
//     when rn is selected, else as sets (-D the rows pushed out, +I those
//     that entered);
//   - final-only emits each window's top N once, at its horizon.
//
// Independently of the model's changelog, the final table must be the top
// N of every window's rows that were not late.

type wrPart struct {
	ws, end int64
	key     string
	rows    []refRow
	shown   []string // the rows emitted, in rank order
	fired   bool
}

type wrModel struct {
	size, lateness int64
	n              int
	rankCol        bool
	finalOnly      bool
	wm             int64
	parts          map[string]*wrPart
	taken          []refRow
	late, updates  int
}

func (m *wrModel) updating() bool { return m.lateness > 0 && !m.finalOnly }

// top is the brute force: p's rows sorted by v descending, the first n,
// as the query prints them.
func (m *wrModel) top(ws int64, key string, rows []refRow) []string {
	rows = slices.Clone(rows)
	sort.Slice(rows, func(i, j int) bool { return rows[i].v > rows[j].v })
	var out []string
	for i, x := range rows {
		if i == m.n {
			break
		}
		if m.rankCol {
			out = append(out, fmt.Sprintf("[%s, %s, %d, %d]", ts(ws), key, x.v, i+1))
		} else {
			out = append(out, fmt.Sprintf("[%s, %s, %d]", ts(ws), key, x.v))
		}
	}
	return out
}

// diff is what turns old into now (see the model's comment).
func (m *wrModel) diff(old, now []string) []string {
	var out []string
	if m.rankCol {
		for i := 0; i < max(len(old), len(now)); i++ {
			switch {
			case i >= len(old):
				out = append(out, "+I"+now[i])
			case i >= len(now):
				out = append(out, "-D"+old[i])
			case old[i] != now[i]:
				out = append(out, "-U"+old[i], "+U"+now[i])
			}
		}
		return out
	}
	for _, o := range old {
		if !slices.Contains(now, o) {
			out = append(out, "-D"+o)
		}
	}
	for _, x := range now {
		if !slices.Contains(old, x) {
			out = append(out, "+I"+x)
		}
	}
	return out
}

func (m *wrModel) batch(rows []refRow) []string {
	var touched []*wrPart
	for _, x := range rows {
		ws := floorDiv(x.t, m.size) * m.size
		end := ws + m.size
		if end-1+m.lateness <= m.wm {
			m.late++
			continue
		}
		m.taken = append(m.taken, x)
		id := fmt.Sprintf("%d/%s", ws, x.id)
		p := m.parts[id]
		if p == nil {
			p = &wrPart{ws: ws, end: end, key: x.id}
			m.parts[id] = p
		}
		p.rows = append(p.rows, x)
		if end-1 <= m.wm {
			m.updates++
			if m.updating() && !slices.Contains(touched, p) {
				touched = append(touched, p)
			}
		}
	}
	var out []string
	for _, p := range touched {
		now := m.top(p.ws, p.key, p.rows)
		out = append(out, m.diff(p.shown, now)...)
		p.shown, p.fired = now, true
	}
	return out
}

func (m *wrModel) watermark(w int64) []string {
	if w <= m.wm {
		return nil
	}
	m.wm = w
	var out []string
	for id, p := range m.parts {
		horizon := p.end - 1 + m.lateness
		if !p.fired && (m.updating() && p.end-1 <= w || horizon <= w) {
			now := m.top(p.ws, p.key, p.rows)
			out = append(out, m.diff(nil, now)...)
			p.shown, p.fired = now, true
		}
		if horizon <= w {
			delete(m.parts, id)
		}
	}
	return out
}

// finalTable is the top N of each window's rows that were not late.
func (m *wrModel) finalTable() []string {
	by := map[string][]refRow{}
	for _, x := range m.taken {
		id := fmt.Sprintf("%d/%s", floorDiv(x.t, m.size)*m.size, x.id)
		by[id] = append(by[id], x)
	}
	var out []string
	for _, rows := range by {
		out = append(out, m.top(floorDiv(rows[0].t, m.size)*m.size, rows[0].id, rows)...)
	}
	sort.Strings(out)
	return out
}

func wrQuery(size int64, n int, rankCol bool) string {
	sel := "window_start, k, v, rn"
	if !rankCol {
		sel = "window_start, k, v"
	}
	return fmt.Sprintf(`SELECT %s FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '%s' SECOND)))
WHERE rn <= %d;
`, sel, secs(size), n)
}

var wrModes = []lateMode{{0, false, -1, -1}, {700, false, -1, -1}, {2000, false, -1, -1}, {2000, true, -1, -1}}

// TestWindowRankLatenessMatchesReference runs scripts event by event
// (P=1), hot and spilled: each event's output is the model's, and the
// final table the brute-force top N.
func TestWindowRankLatenessMatchesReference(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	for _, budget := range []string{"", "1b"} {
		if budget != "" {
			fireBatch = 2
		}
		for _, mode := range wrModes {
			var totalLate, totalUpdates, totalChanges int
			for seed := int64(1); seed <= 16; seed++ {
				r := rand.New(rand.NewSource(seed*19 + mode.lateness))
				size := []int64{1000, 2000}[r.Intn(2)]
				m := &wrModel{size: size, lateness: mode.lateness, finalOnly: mode.finalOnly, n: 1 + r.Intn(3),
					rankCol: seed%2 == 0, wm: MinWatermark, parts: map[string]*wrPart{}}
				var b strings.Builder
				b.WriteString("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
				if budget != "" {
					fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
				}
				b.WriteString(mode.sets() + wrQuery(size, m.n, m.rankCol) + "=== events\n")
				var events []string
				var want [][]string
				var all []string
				add := func(line string, out []string) {
					events = append(events, line)
					want = append(want, out)
					all = append(all, out...)
					for _, l := range out {
						if l[0] == '-' {
							totalChanges++
						}
					}
					b.WriteString(line + "\n")
				}
				maxT := int64(0)
				for _, x := range lateRows(r, 60+r.Intn(40)) {
					add(fmt.Sprintf("b +I %s, %d, %s", x.id, x.v, ts(x.t)), m.batch([]refRow{x}))
					maxT = max(maxT, x.t)
					if w := maxT - 1000; r.Intn(3) == 0 && w > m.wm {
						add("b wm "+ts(w), m.watermark(w))
					}
				}
				add("b end", m.watermark(MaxWatermark))
				script := b.String()
				name := fmt.Sprintf("%v, top %d, rn %v, seed %d, budget %q", mode, m.n, m.rankCol, seed, budget)
				out, err := runScript(script)
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, script)
				}
				if budget != "" && !strings.Contains(out, "(state spilled to disk)") {
					t.Fatalf("%s: the budget did not spill", name)
				}
				bs, late := outBlocks(t, strings.Replace(out, "(state spilled to disk)\n", "", 1))
				got := perEvent(t, events, bs)
				for i := range events {
					g, w := slices.Clone(got[i]), slices.Clone(want[i])
					sort.Strings(g)
					sort.Strings(w)
					if joinLines(g) != joinLines(w) {
						t.Fatalf("%s: at %q the engine emitted\n%s\nand the reference\n%s\nengine:\n%s\nscript:\n%s",
							name, events[i], joinLines(g), joinLines(w), out, script)
					}
				}
				op := "WindowRank(window_start, window_end, k)"
				if late[op] != m.late || late["updates "+op] != m.updates {
					t.Fatalf("%s: late rows %d and late updates %d, the reference %d and %d\n%s", name, late[op], late["updates "+op], m.late, m.updates, out)
				}
				if fin, ref := materialize(t, joinLines(all)), m.finalTable(); !slices.Equal(fin, ref) {
					t.Fatalf("%s: the final table\n%s\nthe brute-force top rows\n%s", name, joinLines(fin), joinLines(ref))
				}
				if len(m.parts) != 0 {
					t.Fatalf("%s: the model kept windows after the end", name)
				}
				totalLate += m.late
				totalUpdates += m.updates
			}
			if totalLate == 0 || mode.lateness > 0 && totalUpdates == 0 || mode.lateness > 0 && !mode.finalOnly && totalChanges == 0 {
				t.Fatalf("%v: the scripts made %d late rows, %d late updates, %d retractions", mode, totalLate, totalUpdates, totalChanges)
			}
		}
	}
}

// TestWindowRankLatenessParallel runs whole jobs at P=1 and P=4, hot and
// spilled: the changes of each window and key are the model's, in its
// order; the final table is the brute-force top N; the late counts the
// model's.
func TestWindowRankLatenessParallel(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	const epoch2026 = 1_767_225_600_000
	for _, mode := range wrModes {
		for _, p := range []int{1, 4} {
			for seed := int64(1); seed <= 4; seed++ {
				budget := []string{"", "1b"}[seed%2]
				r := rand.New(rand.NewSource(seed*43 + int64(p)))
				size := []int64{1000, 2000}[r.Intn(2)]
				m := &wrModel{size: size, lateness: mode.lateness, finalOnly: mode.finalOnly, n: 1 + r.Intn(3),
					rankCol: seed <= 2, wm: MinWatermark, parts: map[string]*wrPart{}}
				rows := lateRows(r, 150)
				path := fmt.Sprintf("wrl-%d-%d.json", seed, p)
				var data row.Batch
				for _, x := range rows {
					data = append(data, row.Insert(row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
				}
				setData(path, data)
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
				sql += mode.sets() + wrQuery(size, m.n, m.rankCol)
				got, late, updates := runLines(t, sql, p)
				name := fmt.Sprintf("%v, top %d, rn %v, P=%d, seed %d, budget %q", mode, m.n, m.rankCol, p, seed, budget)
				byPart := func(lines []string) map[string][]string {
					out := map[string][]string{}
					for _, l := range lines {
						parts := strings.SplitN(l[3:], ", ", 3)
						id := parts[0] + ", " + parts[1]
						out[id] = append(out[id], l)
					}
					return out
				}
				if g, w := byPart(got), byPart(want); !maps2Equal(g, w) {
					t.Fatalf("%s: the changes per window and key differ\nengine:\n%s\nreference:\n%s", name, joinLines(got), joinLines(want))
				}
				if fin, ref := materialize(t, joinLines(got)), m.finalTable(); !slices.Equal(fin, ref) {
					t.Fatalf("%s: the final table\n%s\nthe brute-force top rows\n%s", name, joinLines(fin), joinLines(ref))
				}
				if late != int64(m.late) || updates != int64(m.updates) {
					t.Fatalf("%s: late rows %d and late updates %d, the reference %d and %d", name, late, updates, m.late, m.updates)
				}
			}
		}
	}
}
