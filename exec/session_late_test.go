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

// Allowed lateness and final-only for SESSION windows (#17), against a
// brute-force model of the documented semantics (docs/runtime.md, "Late
// data"; Flink's MergingWindowSet: a row's window [t, t + gap) merges
// with every session it touches, and a session's state is cleared at its
// cleanup time, end - 1 + lateness):
//
//   - a row is late when it touches no session kept (as Flink decides on
//     the merged window) and its own window's horizon, t + gap - 1 +
//     lateness, is <= the watermark when it comes: counted, dropped; one
//     that joins a session whose end - 1 is <= the watermark, or, joining
//     none, whose own window's is, is a late update: counted, and taken;
//   - a key's sessions are recomputed from scratch from its live rows
//     (the rows of sessions not yet past their horizon): sorted by time,
//     a row starts a new session when its time is after the session's
//     end (last time + gap) — the connected windows, however they came;
//   - a session whose bounds a row leaves as they were keeps what it
//     emitted; one a row extends or merges with others is retracted (-D
//     of each emitted one) and the merged session is new;
//   - at the end of a batch each fired session (end - 1 <= watermark)
//     that a row changed is emitted: +I when new, else -U old, +U new
//     when its result changed (but final-only);
//   - a watermark that reaches a session's end - 1 emits it (+I, with
//     lateness and not final-only), and one that reaches its horizon
//     emits it if it never was (+I), and drops its rows.

// smSession is one session of the model.
type smSession struct {
	start, end int64
	rows       []refRow
	last       string // the row last emitted ("": none)
	onTime     bool   // the firing at end - 1 is still to come
}

func (s *smSession) row(key string) string {
	n, sum, mn, mx := 0, 0, s.rows[0].v, s.rows[0].v
	for _, x := range s.rows {
		n++
		sum += x.v
		mn, mx = min(mn, x.v), max(mx, x.v)
	}
	return fmt.Sprintf("[%s, %s, %s, %d, %d, %d, %d]", ts(s.start), ts(s.end), key, n, sum, mn, mx)
}

// sessionModel is the model of
// SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v)
// FROM TABLE(SESSION(TABLE b PARTITION BY k, DESCRIPTOR(ts), gap)) GROUP BY ....
type sessionModel struct {
	gap, lateness int64
	finalOnly     bool
	wm            int64
	keys          map[string][]*smSession
	late, updates int
	rescued       int
}

func newSessionModel(gap int64, mode lateMode) *sessionModel {
	return &sessionModel{gap: gap, lateness: mode.lateness, finalOnly: mode.finalOnly, wm: MinWatermark, keys: map[string][]*smSession{}}
}

func (m *sessionModel) updating() bool { return m.lateness > 0 && !m.finalOnly }

// sessionsOf is the brute force: rows sorted by time, joined while each
// one's window [t, t + gap) touches the session so far.
func (m *sessionModel) sessionsOf(rows []refRow) []*smSession {
	rows = slices.Clone(rows)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].t < rows[j].t })
	var out []*smSession
	for _, x := range rows {
		if n := len(out); n > 0 && x.t <= out[n-1].end {
			s := out[n-1]
			s.end = max(s.end, x.t+m.gap)
			s.rows = append(s.rows, x)
			continue
		}
		out = append(out, &smSession{start: x.t, end: x.t + m.gap, rows: []refRow{x}})
	}
	return out
}

// fire emits s's result if it was never emitted or (lines) changed.
func fireSession(s *smSession, key string, always bool) []string {
	cur := s.row(key)
	switch {
	case s.last == "":
		s.last = cur
		return []string{"+I" + cur}
	case s.last != cur || always:
		out := []string{"-U" + s.last, "+U" + cur}
		s.last = cur
		return out
	}
	return nil
}

// batch takes one batch of rows and returns what the operator emits for it.
func (m *sessionModel) batch(rows []refRow) []string {
	var out []string
	type dirty struct {
		key   string
		start int64
	}
	var touched []dirty
	for _, x := range rows {
		end := x.t + m.gap
		old := m.keys[x.id]
		touches := false
		for _, s := range old {
			touches = touches || x.t <= s.end && end >= s.start
		}
		if end-1+m.lateness <= m.wm {
			if !touches {
				m.late++
				continue
			}
			m.rescued++ // its own window has passed, but it joins a session
		}
		var all []refRow
		for _, s := range old {
			all = append(all, s.rows...)
		}
		all = append(all, x)
		next := m.sessionsOf(all)
		for _, s := range next {
			var olds []*smSession
			for _, o := range old {
				if o.start >= s.start && o.end <= s.end {
					olds = append(olds, o)
				}
			}
			mine := x.t >= s.start && x.t < s.end
			if mine {
				fired := len(olds) == 0 && end-1 <= m.wm
				for _, o := range olds {
					fired = fired || o.end-1 <= m.wm
				}
				if fired {
					m.updates++
				}
			}
			if len(olds) == 1 && olds[0].start == s.start && olds[0].end == s.end {
				s.last, s.onTime = olds[0].last, olds[0].onTime
			} else {
				if !mine {
					panic("the model: a session the row is not in changed")
				}
				for _, o := range olds {
					if o.last != "" {
						out = append(out, "-D"+o.last)
					}
				}
				s.onTime = m.updating() && s.end-1 > m.wm
			}
			if mine && m.updating() && s.end-1 <= m.wm {
				touched = append(touched, dirty{x.id, s.start})
			}
		}
		m.keys[x.id] = next
	}
	seen := map[dirty]bool{}
	for _, d := range touched {
		if seen[d] {
			continue
		}
		seen[d] = true
		for _, s := range m.keys[d.key] {
			if s.start == d.start && s.end-1 <= m.wm {
				out = append(out, fireSession(s, d.key, false)...)
			}
		}
	}
	return out
}

// watermark advances the model's watermark to w and returns what that
// emits.
func (m *sessionModel) watermark(w int64) []string {
	if w <= m.wm {
		return nil
	}
	m.wm = w
	var out []string
	for key, ss := range m.keys {
		var rest []*smSession
		for _, s := range ss {
			switch {
			case s.end-1+m.lateness <= w:
				out = append(out, fireSession(s, key, false)...)
				continue
			case s.onTime && s.end-1 <= w:
				s.onTime = false
				out = append(out, fireSession(s, key, false)...)
			}
			rest = append(rest, s)
		}
		m.keys[key] = rest
		if len(rest) == 0 {
			delete(m.keys, key)
		}
	}
	return out
}

// sessionModes are the modes that apply to sessions: early and late
// firing are refused for them, as Flink refuses them.
var sessionModes = []lateMode{
	{0, false, -1, -1}, {2000, false, -1, -1}, {700, false, -1, -1}, {2000, true, -1, -1}, {0, true, -1, -1},
}

func sessionSQL(gap int64, extra string) string {
	return fmt.Sprintf("SELECT window_start, window_end, k, COUNT(*), SUM(v), MIN(v), MAX(v)%s FROM TABLE(SESSION(TABLE b PARTITION BY k, DESCRIPTOR(ts), INTERVAL '%s' SECOND)) GROUP BY window_start, window_end, k;\n", extra, secs(gap))
}

func TestSessionLatenessMatchesReference(t *testing.T) { sessionLatenessDifferential(t, "") }

// TestSessionLatenessSpillMatchesReference: the same with a one-byte
// budget, every key's sessions spilled to Badger, two fired rows a push.
func TestSessionLatenessSpillMatchesReference(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 2
	sessionLatenessDifferential(t, "1b")
}

// sessionLatenessDifferential runs scripts one event at a time and checks
// what each event made the query emit against the model.
func sessionLatenessDifferential(t *testing.T, budget string) {
	rescued := 0
	defer func() {
		if rescued == 0 && !t.Failed() {
			t.Error("no row joined a session after its own window had passed its horizon")
		}
	}()
	for _, mode := range sessionModes {
		var totalLate, totalUpdates, totalDeletes int
		for seed := int64(1); seed <= 15; seed++ {
			r := rand.New(rand.NewSource(seed))
			gap := []int64{300, 500, 1000}[r.Intn(3)]
			m := newSessionModel(gap, mode)
			var b strings.Builder
			b.WriteString("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n")
			if budget != "" {
				fmt.Fprintf(&b, "SET 'state.memory-budget' = '%s';\n", budget)
			}
			b.WriteString(mode.sets())
			b.WriteString(sessionSQL(gap, "") + "=== events\n")
			var events []string
			var want [][]string
			add := func(line string, out []string) {
				events = append(events, line)
				want = append(want, out)
				for _, l := range out {
					if strings.HasPrefix(l, "-D") {
						totalDeletes++
					}
				}
				b.WriteString(line + "\n")
			}
			maxT := int64(0)
			for _, x := range lateRows(r, 50+r.Intn(40)) {
				add(fmt.Sprintf("b +I %s, %d, %s", x.id, x.v, ts(x.t)), m.batch([]refRow{x}))
				maxT = max(maxT, x.t)
				if w := maxT - 1000; r.Intn(3) == 0 && w > m.wm {
					add("b wm "+ts(w), m.watermark(w))
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
			if len(m.keys) != 0 {
				fail("the model kept sessions after the end")
			}
			totalLate += m.late
			totalUpdates += m.updates
			rescued += m.rescued
		}
		// The generator must reach every case it is meant to: late rows,
		// late updates with lateness, and merges of emitted sessions.
		if totalLate == 0 || mode.lateness > 0 && totalUpdates == 0 || mode.lateness > 0 && !mode.finalOnly && totalDeletes == 0 {
			t.Fatalf("%v: the scripts made %d late rows, %d late updates and %d retracted sessions", mode, totalLate, totalUpdates, totalDeletes)
		}
	}
}

// TestSessionLatenessParallel runs whole jobs (sources read seven rows a
// batch, a watermark after each) at 1 and 4 partitions, spilled and not:
// the changes of each (session, key) must be the model's, in the model's
// order; the late counts its own; and, with WINDOW_FINALITY() and
// WINDOW_VERSION() selected, each (session, key) ends with one FINAL row
// whose aggregates are the model's last, versions count 1, 2, ..., and no
// row follows a FINAL one.
func TestSessionLatenessParallel(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	const epoch2026 = 1_767_225_600_000
	for _, mode := range sessionModes {
		for _, p := range []int{1, 4} {
			for seed := int64(1); seed <= 4; seed++ {
				budget := []string{"", "1b"}[seed%2]
				r := rand.New(rand.NewSource(seed*37 + int64(p)))
				gap := []int64{300, 500, 1000}[r.Intn(3)]
				rows := lateRows(r, 150)
				path := fmt.Sprintf("sess-late-%d-%d.json", seed, p)
				var data row.Batch
				for _, x := range rows {
					data = append(data, row.Insert(row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
				}
				setData(path, data)
				m := newSessionModel(gap, mode)
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
				head := fmt.Sprintf("CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n", path)
				if budget != "" {
					head += fmt.Sprintf("SET 'state.memory-budget' = '%s';\n", budget)
				}
				head += mode.sets()
				name := fmt.Sprintf("%v, P=%d, seed %d, budget %q", mode, p, seed, budget)
				got, late, updates := runLines(t, head+sessionSQL(gap, ""), p)
				if g, w := byGroup(got), byGroup(want); !maps2Equal(g, w) {
					t.Fatalf("%s: the changes per session and key differ\nengine:\n%s\nreference:\n%s", name, joinLines(got), joinLines(want))
				}
				if late != int64(m.late) || updates != int64(m.updates) {
					t.Fatalf("%s: late rows %d and late updates %d, the reference %d and %d", name, late, updates, m.late, m.updates)
				}
				// The final table: what the model's changelog leaves.
				final := materialize(t, joinLines(want))
				got, _, _ = runLines(t, head+sessionSQL(gap, ", WINDOW_FINALITY(), WINDOW_VERSION()"), p)
				var finals []string
				for id, lines := range byGroup(got) {
					version := int64(0)
					for i, l := range lines {
						vals := strings.Split(strings.Trim(l[2:], "[]"), ", ")
						fin, ver := vals[len(vals)-2], vals[len(vals)-1]
						if fin == "FINAL" {
							if i != len(lines)-1 {
								t.Fatalf("%s: %s: a row follows the FINAL one\n%s", name, id, joinLines(lines))
							}
							if l[:2] != "+I" && l[:2] != "+U" {
								t.Fatalf("%s: %s: FINAL on a %s row\n%s", name, id, l[:2], joinLines(lines))
							}
							finals = append(finals, "["+strings.Join(vals[:len(vals)-2], ", ")+"]")
						}
						if l[:2] == "+I" || l[:2] == "+U" {
							version++
							if ver != fmt.Sprint(version) {
								t.Fatalf("%s: %s: row %d has version %s, want %d\n%s", name, id, i, ver, version, joinLines(lines))
							}
						}
					}
				}
				sort.Strings(finals)
				if !slices.Equal(finals, final) {
					t.Fatalf("%s: the FINAL rows\n%s\nthe reference's final table\n%s", name, joinLines(finals), joinLines(final))
				}
			}
		}
	}
}
