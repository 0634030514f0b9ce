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

// Allowed lateness for an INNER window join (#17), against a brute-force
// model. Both inputs are one table's rows (side L or R) windowed by
// TUMBLE, so that they share the source's watermark and order whatever
// the parallelism: a row's window [start, end) is late when end - 1 +
// lateness <= the watermark when it comes (counted, never joined); one
// that comes after end - 1 (a late update) is joined at once with the
// other side's rows of its window and key that came before it; the
// watermark reaching end - 1 joins every pair of the window's rows that
// came before it. Every pair of two rows that are not late is emitted
// exactly once.

// wjRow is one row of the model: a side, a key, a value, a time.
type wjRow struct {
	side string
	refRow
}

type wjModel struct {
	size, lateness int64
	wm             int64
	rows           map[int64][]wjRow // by window end
	late, updates  int
}

func newWJModel(size, lateness int64) *wjModel {
	return &wjModel{size: size, lateness: lateness, wm: MinWatermark, rows: map[int64][]wjRow{}}
}

func (m *wjModel) end(t int64) int64 { return floorDiv(t, m.size)*m.size + m.size }

func wjPair(l, r wjRow, end, size int64) string {
	return fmt.Sprintf("+I[%s, %s, %d, %d]", ts(end-size), l.id, l.v, r.v)
}

func (m *wjModel) row(x wjRow) []string {
	end := m.end(x.t)
	if end-1+m.lateness <= m.wm {
		m.late++
		return nil
	}
	var out []string
	if end-1 <= m.wm {
		m.updates++
		for _, o := range m.rows[end] {
			if o.id != x.id || o.side == x.side {
				continue
			}
			if x.side == "L" {
				out = append(out, wjPair(x, o, end, m.size))
			} else {
				out = append(out, wjPair(o, x, end, m.size))
			}
		}
	}
	m.rows[end] = append(m.rows[end], x)
	return out
}

func (m *wjModel) watermark(w int64) []string {
	if w <= m.wm {
		return nil
	}
	prev := m.wm
	m.wm = w
	var out []string
	for end, rows := range m.rows {
		// Fired by this watermark: its rows all came before it (a
		// window's rows after its firing are late updates, joined as they
		// came).
		if end-1 <= w && end-1 > prev {
			for _, l := range rows {
				for _, r := range rows {
					if l.side == "L" && r.side == "R" && l.id == r.id {
						out = append(out, wjPair(l, r, end, m.size))
					}
				}
			}
		}
		if end-1+m.lateness <= w {
			delete(m.rows, end)
		}
	}
	return out
}

func wjRows(r *rand.Rand, n int) []wjRow {
	var out []wjRow
	for _, x := range lateRows(r, n) {
		out = append(out, wjRow{side: []string{"L", "R"}[r.Intn(2)], refRow: x})
	}
	return out
}

const wjQuery = `SELECT l.window_start, l.k, l.v, r.v
FROM (SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '%[1]s' SECOND)) WHERE side = 'L') l
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '%[1]s' SECOND)) WHERE side = 'R') r
ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end;
`

// TestWindowJoinLatenessMatchesReference runs scripts event by event
// (P=1), hot and spilled, and checks what each event emits.
func TestWindowJoinLatenessMatchesReference(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	for _, budget := range []string{"", "1b"} {
		for _, lateness := range []int64{0, 700, 2500} {
			var totalLate, totalUpdates, totalOut int
			for seed := int64(1); seed <= 8; seed++ {
				r := rand.New(rand.NewSource(seed*7 + lateness))
				size := []int64{500, 1000, 2000}[r.Intn(3)]
				m := newWJModel(size, lateness)
				var b strings.Builder
				b.WriteString("CREATE TABLE b (side STRING, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
				if budget != "" {
					fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
				}
				if lateness > 0 {
					fmt.Fprintf(&b, "SET 'table.exec.emit.allow-lateness' = '%d ms';\n", lateness)
				}
				fmt.Fprintf(&b, wjQuery, secs(size))
				b.WriteString("=== events\n")
				var events []string
				var want [][]string
				add := func(line string, out []string) {
					events = append(events, line)
					want = append(want, out)
					totalOut += len(out)
					b.WriteString(line + "\n")
				}
				maxT := int64(0)
				for _, x := range wjRows(r, 60+r.Intn(40)) {
					add(fmt.Sprintf("b +I %s, %s, %d, %s", x.side, x.id, x.v, ts(x.t)), m.row(x))
					maxT = max(maxT, x.t)
					if w := maxT - 1000; r.Intn(3) == 0 && w > m.wm {
						add("b wm "+ts(w), m.watermark(w))
					}
				}
				add("b end", m.watermark(MaxWatermark))
				script := b.String()
				out, err := runScript(script)
				if err != nil {
					t.Fatalf("lateness %d seed %d: %v\n%s", lateness, seed, err, script)
				}
				if budget != "" && !strings.Contains(out, "(state spilled to disk)") {
					t.Fatalf("lateness %d seed %d: a %s budget did not spill", lateness, seed, budget)
				}
				bs, late := outBlocks(t, strings.Replace(out, "(state spilled to disk)\n", "", 1))
				got := perEvent(t, events, bs)
				for i := range events {
					g, w := slices.Clone(got[i]), slices.Clone(want[i])
					sort.Strings(g)
					sort.Strings(w)
					if joinLines(g) != joinLines(w) {
						t.Fatalf("lateness %d seed %d budget %q: at %q the engine emitted\n%s\nand the reference\n%s\nengine:\n%s\nscript:\n%s",
							lateness, seed, budget, events[i], joinLines(g), joinLines(w), out, script)
					}
				}
				if late["WindowJoin INNER(b, b)"] != m.late || late["updates WindowJoin INNER(b, b)"] != m.updates {
					t.Fatalf("lateness %d seed %d: late rows %d and late updates %d, the reference %d and %d\n%s",
						lateness, seed, late["WindowJoin INNER(b, b)"], late["updates WindowJoin INNER(b, b)"], m.late, m.updates, out)
				}
				totalLate += m.late
				totalUpdates += m.updates
			}
			if totalLate == 0 || totalOut == 0 || lateness > 0 && totalUpdates == 0 {
				t.Fatalf("lateness %d: the scripts made %d late rows, %d late updates, %d rows out", lateness, totalLate, totalUpdates, totalOut)
			}
		}
	}
}

// TestWindowJoinLatenessParallel runs whole jobs at P=1 and P=4, hot and
// spilled: the pairs (a multiset) and the late counts are the model's.
func TestWindowJoinLatenessParallel(t *testing.T) {
	const epoch2026 = 1_767_225_600_000
	for _, p := range []int{1, 4} {
		for seed := int64(1); seed <= 4; seed++ {
			budget := []string{"", "1b"}[seed%2]
			r := rand.New(rand.NewSource(seed*131 + int64(p)))
			size := []int64{500, 1000, 2000}[r.Intn(3)]
			const lateness = 2500
			rows := wjRows(r, 200)
			path := fmt.Sprintf("wjl-%d-%d.json", seed, p)
			var data row.Batch
			for _, x := range rows {
				data = append(data, row.Insert(row.StrValue(x.side), row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
			}
			setData(path, data)
			m := newWJModel(size, lateness)
			var want []string
			wm := int64(MinWatermark)
			for i := 0; i < len(rows); i += 7 {
				batch := rows[i:min(i+7, len(rows))]
				for _, x := range batch {
					want = append(want, m.row(x)...)
				}
				for _, x := range batch {
					wm = max(wm, x.t-1000)
				}
				want = append(want, m.watermark(wm)...)
			}
			want = append(want, m.watermark(MaxWatermark)...)
			sql := fmt.Sprintf("CREATE TABLE b (side STRING, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n", path)
			if budget != "" {
				sql += fmt.Sprintf("SET 'state.memory-budget' = '%s';\n", budget)
			}
			sql += fmt.Sprintf("SET 'table.exec.emit.allow-lateness' = '%d ms';\n", lateness) + fmt.Sprintf(wjQuery, secs(size))
			got, late, updates := runLines(t, sql, p)
			name := fmt.Sprintf("P=%d, seed %d, budget %q", p, seed, budget)
			sort.Strings(got)
			sort.Strings(want)
			if len(want) == 0 || m.updates == 0 {
				t.Fatalf("%s: the model emits %d pairs and %d late updates", name, len(want), m.updates)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: the join emits %d pairs, the reference %d\nengine:\n%s\nreference:\n%s", name, len(got), len(want), joinLines(got), joinLines(want))
			}
			if late != int64(m.late) || updates != int64(m.updates) {
				t.Fatalf("%s: late rows %d and late updates %d, the reference %d and %d", name, late, updates, m.late, m.updates)
			}
		}
	}
}
