package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// Restoring operators from a checkpoint (#13): a job runs over a test
// source (sliceSource, seven rows a batch), takes checkpoints after chosen
// batches and is stopped at a later one (its context cancelled, as a
// crash: what it wrote after the last checkpoint is cut back, as the
// filesystem sink does); a second job resumes from the last checkpoint, at
// the same or another parallelism, and runs to the end. The changelog the
// two leave must be an uninterrupted run's (the same lines in the same
// order at one partition; per key, in order, at several) and the
// brute-force model's, late counts included.

// Position and Seek make the test source resumable: its position is the
// number of rows handed out.
func (s *sliceSource) Position() ([]byte, error) { return json.Marshal(s.at) }

func (s *sliceSource) Seek(pos []byte) error {
	var at int
	if err := json.Unmarshal(pos, &at); err != nil {
		return err
	}
	if at < 0 || at > len(s.rows) {
		return fmt.Errorf("position %d is not in the %d rows", at, len(s.rows))
	}
	s.at = at
	return nil
}

// resumeLog is what a query's sink wrote, across the runs of a job.
type resumeLog struct {
	mu    sync.Mutex
	lines []string
}

// resumeSink writes a query's changes to a resumeLog and takes part in
// checkpoints: its state is the log's length, and a resumed run cuts the
// log back to it.
type resumeSink struct {
	log  *resumeLog
	cols []connector.Column
}

func (s *resumeSink) Open(context.Context) error { return nil }
func (s *resumeSink) Write(_ context.Context, rows row.Batch) error {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	for _, r := range rows {
		s.log.lines = append(s.log.lines, changeLine(r, s.cols))
	}
	return nil
}
func (s *resumeSink) Flush(context.Context) error { return nil }
func (s *resumeSink) Close() error                { return nil }

func (s *resumeSink) Checkpoint(context.Context) ([]byte, error) {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return json.Marshal(len(s.log.lines))
}

func (s *resumeSink) Resume(_ context.Context, st []byte) error {
	var n int
	if err := json.Unmarshal(st, &n); err != nil {
		return err
	}
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	if n > len(s.log.lines) {
		return fmt.Errorf("the log has %d lines, fewer than the %d at the checkpoint", len(s.log.lines), n)
	}
	s.log.lines = s.log.lines[:n]
	return nil
}

// resumePlan is when the first run takes its checkpoints and stops.
type resumePlan struct {
	p1, p2 int   // the parallelism of the first run and of the resumed one
	ckpts  []int // the batches of the source after which checkpoints are taken
	stop   int   // the batch at which the first run is stopped (> every ckpt)
}

func (rp resumePlan) String() string {
	return fmt.Sprintf("P=%d→%d, checkpoints after batches %v, stopped at batch %d", rp.p1, rp.p2, rp.ckpts, rp.stop)
}

// randomPlan draws a plan for a source of batches batches: one or two
// checkpoints (the second an incremental one), and the stop after them.
func randomPlan(r *rand.Rand, batches, p1, p2 int) resumePlan {
	rp := resumePlan{p1: p1, p2: p2}
	c := 1 + r.Intn(batches-2)
	rp.ckpts = append(rp.ckpts, c)
	if r.Intn(2) == 0 && c+1 < batches-1 {
		c += 1 + r.Intn(batches-2-c)
		rp.ckpts = append(rp.ckpts, c)
	}
	rp.stop = c + 1 + r.Intn(batches-c)
	return rp
}

// runResumed runs sql (one query over the table whose rows are at path) as
// rp says, and returns the changes the two runs leave and the late counts
// of the resumed job (which go on from the checkpoint's).
func runResumed(t *testing.T, sql, path string, rp resumePlan) (lines []string, late, updates int64) {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("job has errors: %v", j.Diags.Err())
	}
	dir := t.TempDir()
	log := &resumeLog{}
	build := func(p int, restore *checkpoint.Checkpoint) *Job {
		d, err := checkpoint.Open(dir, checkpoint.Options{})
		if err != nil {
			t.Fatal(err)
		}
		job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{
			Settings: j.Session.Settings, Parallelism: p, StateDir: filepath.Join(dir, "live"),
			Checkpoint: &Checkpointing{Dir: d, Interval: time.Hour, Job: "job.sql", Restore: restore},
			QuerySink: func(_ string, cols []connector.Column) connector.Sink {
				return &resumeSink{log: log, cols: cols}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if off := job.CheckpointsOff(); off != "" {
			t.Fatalf("the job takes no checkpoints: %s", off)
		}
		return job
	}

	// The first run: the hook runs on the source's goroutine before it
	// hands out each batch.
	var job *Job
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	taken := make(chan error, len(rp.ckpts))
	var hookErr error
	batch, done := 0, 0
	setHook(path, func() {
		batch++
		if slices.Contains(rp.ckpts, batch) {
			go func() { taken <- job.takeCheckpoint(ctx, false) }()
			// Wait until the request is queued (after the checkpoint
			// before, if it is still being taken): the barrier then goes
			// right after this batch.
			reqs := job.sources[0].cp.reqs
			for len(reqs) == 0 && hookErr == nil {
				select {
				case err := <-taken:
					done++
					if err != nil || done == len(rp.ckpts) {
						hookErr = fmt.Errorf("the checkpoint after batch %d ended before its barrier was asked for: %w", batch, err)
					}
				case <-time.After(time.Millisecond):
				}
			}
		}
		if batch == rp.stop && hookErr == nil {
			for ; done < len(rp.ckpts); done++ {
				if err := <-taken; err != nil {
					hookErr = err
				}
			}
			cancel()
		}
	})
	job = build(rp.p1, nil)
	err := job.Run(ctx)
	setHook(path, nil)
	if hookErr != nil {
		t.Fatalf("%v: %v", rp, hookErr)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v: the first run was to be stopped at batch %d of %d; it returned %v", rp, rp.stop, batch, err)
	}
	d, err := checkpoint.Open(dir, checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := d.Latest()
	if err != nil || c == nil {
		t.Fatalf("%v: no checkpoint to resume from (%v)", rp, err)
	}

	job = build(rp.p2, c)
	if err := job.Run(context.Background()); err != nil {
		t.Fatalf("%v: the resumed run: %v", rp, err)
	}
	for _, o := range job.Operators {
		late += o.Late.Load()
		updates += o.LateUpdates.Load()
	}
	return log.lines, late, updates
}

// batchesOf is the number of batches the test source hands out for n rows.
func batchesOf(n int) int { return (n + 6) / 7 }

// resumeCheck runs sql resumed as rp says (runResumed) and an
// uninterrupted run at the first run's parallelism, and compares their
// changes: equal when both runs of the resumed one had one partition, else
// equal per group (group names a change's group). Per group, the changes
// must also be want's, the model's, and the late counts the model's. It
// returns the resumed run's changes.
func resumeCheck(t *testing.T, name, sql, path string, rp resumePlan, want []string, late, updates int, group func(string) string) []string {
	t.Helper()
	clean, _, _ := runLines(t, sql, rp.p1)
	got, gotLate, gotUpdates := runResumed(t, sql, path, rp)
	if rp.p1 == 1 && rp.p2 == 1 {
		if !slices.Equal(got, clean) {
			t.Fatalf("%s, %v: the resumed changelog differs from an uninterrupted run's\nresumed:\n%s\nuninterrupted:\n%s",
				name, rp, joinLines(got), joinLines(clean))
		}
	} else if g, c := groupLines(got, group), groupLines(clean, group); !maps2Equal(g, c) {
		t.Fatalf("%s, %v: the resumed changes per group differ from an uninterrupted run's\nresumed:\n%s\nuninterrupted:\n%s",
			name, rp, joinLines(got), joinLines(clean))
	}
	if g, w := groupLines(got, group), groupLines(want, group); !maps2Equal(g, w) {
		t.Fatalf("%s, %v: the changes per group differ from the model's\nresumed:\n%s\nmodel:\n%s", name, rp, joinLines(got), joinLines(want))
	}
	// The late counts go on from the checkpoint's: the whole input's.
	if gotLate != int64(late) || gotUpdates != int64(updates) {
		t.Fatalf("%s, %v: late rows %d and late updates %d, the model's %d and %d", name, rp, gotLate, gotUpdates, late, updates)
	}
	return got
}

func groupLines(lines []string, group func(string) string) map[string][]string {
	out := map[string][]string{}
	for _, l := range lines {
		out[group(l)] = append(out[group(l)], l)
	}
	return out
}

// resumeParallelisms are the (first run, resumed run) parallelisms tried.
var resumeParallelisms = [][2]int{{1, 1}, {1, 3}, {4, 2}}

// resumeCases calls fn for each of n variants of a test at each pair of
// resumeParallelisms, with a seed of its own and a memory budget: every
// other case spills all its state.
func resumeCases(n int, fn func(variant int, seed int64, ps [2]int, budget string)) {
	for v := range n {
		for i, ps := range resumeParallelisms {
			seed := int64(v*len(resumeParallelisms) + i + 1)
			fn(v, seed, ps, []string{"", "1b"}[seed%2])
		}
	}
}

// modelWant is what a model emits for rows in batches of seven, each
// followed by the watermark of the largest time so far less delay, and
// the end.
func modelWant(rows []refRow, delay int64, batch func([]refRow) []string, watermark func(int64) []string) []string {
	var want []string
	wm := int64(MinWatermark)
	for i := 0; i < len(rows); i += 7 {
		b := rows[i:min(i+7, len(rows))]
		want = append(want, batch(b)...)
		for _, x := range b {
			wm = max(wm, x.t-delay)
		}
		want = append(want, watermark(wm)...)
	}
	return append(want, watermark(MaxWatermark)...)
}

// setRows registers rows as the test source's data at path (k, v, ts).
func setRows(path string, rows []refRow) {
	const epoch2026 = 1_767_225_600_000
	var data row.Batch
	for _, x := range rows {
		data = append(data, row.Insert(row.StrValue(x.id), row.IntValue(int64(x.v)), row.IntValue(epoch2026+x.t)))
	}
	setData(path, data)
}

const resumeTable = "CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');\n"

// TestSessionResume: SESSION windows, with and without allowed lateness
// and final-only, hot and spilled, resumed from a checkpoint at the same
// or another parallelism, against an uninterrupted run and the model.
func TestSessionResume(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	resumeCases(len(sessionModes), func(mi int, seed int64, ps [2]int, budget string) {
		mode := sessionModes[mi]
		r := rand.New(rand.NewSource(seed))
		gap := []int64{300, 500, 1000}[r.Intn(3)]
		rows := lateRows(r, 150)
		path := fmt.Sprintf("sess-resume-%d.json", seed)
		setRows(path, rows)
		m := newSessionModel(gap, mode)
		want := modelWant(rows, 1000, m.batch, m.watermark)
		sql := fmt.Sprintf(resumeTable, path) + budgetSet(budget) + mode.sets() + sessionSQL(gap, "")
		rp := randomPlan(r, batchesOf(len(rows)), ps[0], ps[1])
		resumeCheck(t, fmt.Sprintf("%v, seed %d, budget %q", mode, seed, budget), sql, path, rp, want, m.late, m.updates, sessionGroup)
	})
}

func sessionGroup(l string) string { return strings.Join(strings.SplitN(l[3:], ", ", 4)[:3], ", ") }

func budgetSet(budget string) string {
	if budget == "" {
		return ""
	}
	return fmt.Sprintf("SET 'state.memory-budget' = '%s';\n", budget)
}

// changeLine prints a change as the tests compare it: "+I[a, b]".
func changeLine(r row.Row, cols []connector.Column) string {
	parts := make([]string, len(r.Vals))
	for i, v := range r.Vals {
		parts[i] = eval.FormatValue(v, cols[i].Type)
	}
	return fmt.Sprintf("%s[%s]", r.Kind, strings.Join(parts, ", "))
}

// TestWindowRankResume: window Top-N (with the row number and without:
// a deduplication-like set), with and without allowed lateness, resumed
// from a checkpoint, against an uninterrupted run, the model and the
// brute-force final table.
func TestWindowRankResume(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	resumeCases(len(wrModes), func(mi int, seed int64, ps [2]int, budget string) {
		mode := wrModes[mi]
		r := rand.New(rand.NewSource(seed * 7))
		size := []int64{1000, 2000}[r.Intn(2)]
		m := &wrModel{size: size, lateness: mode.lateness, finalOnly: mode.finalOnly, n: 1 + r.Intn(3),
			rankCol: seed%3 != 0, wm: MinWatermark, parts: map[string]*wrPart{}}
		rows := lateRows(r, 150)
		path := fmt.Sprintf("wr-resume-%d.json", seed)
		setRows(path, rows)
		want := modelWant(rows, 1000, m.batch, m.watermark)
		sql := fmt.Sprintf(resumeTable, path) + budgetSet(budget) + mode.sets() + wrQuery(size, m.n, m.rankCol)
		rp := randomPlan(r, batchesOf(len(rows)), ps[0], ps[1])
		name := fmt.Sprintf("%v, top %d, rn %v, seed %d, budget %q", mode, m.n, m.rankCol, seed, budget)
		got := resumeCheck(t, name, sql, path, rp, want, m.late, m.updates, windowKeyGroup)
		if fin, ref := materialize(t, joinLines(got)), m.finalTable(); !slices.Equal(fin, ref) {
			t.Fatalf("%s, %v: the final table\n%s\nthe brute-force top rows\n%s", name, rp, joinLines(fin), joinLines(ref))
		}
	})
}

// windowKeyGroup is a change's window and key: its first two values.
func windowKeyGroup(l string) string { return strings.Join(strings.SplitN(l[3:], ", ", 3)[:2], ", ") }

// overFrame is an OVER window of the tests: its SQL and how the model
// finds a row's frame among its partition's rows (sorted by time, then
// arrival; i is the row's place).
type overFrame struct {
	sql   string
	frame func(rows []refRow, i int) []refRow
}

var overFrames = []overFrame{
	{"ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", func(rows []refRow, i int) []refRow { return rows[max(0, i-2) : i+1] }},
	{"RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW", func(rows []refRow, i int) []refRow {
		var f []refRow
		for _, x := range rows {
			if x.t >= rows[i].t-1000 && x.t <= rows[i].t {
				f = append(f, x)
			}
		}
		return f
	}},
	{"RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", func(rows []refRow, i int) []refRow {
		var f []refRow
		for _, x := range rows {
			if x.t <= rows[i].t {
				f = append(f, x)
			}
		}
		return f
	}},
	{"ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", func(rows []refRow, i int) []refRow { return rows[:i+1] }},
}

// overModel is the brute force for an OVER aggregate on event time: a row
// at or below the watermark when it comes is late (counted, dropped); the
// others leave when the watermark passes their time, each with COUNT,
// SUM, MIN and MAX of v over its frame among its partition's rows that
// were not late (the changes of each partition in time, then arrival,
// order). LAG(v) over the default frame (RANGE UNBOUNDED PRECEDING) is the
// v of the row before the last of the row's peers.
type overModel struct {
	frame   overFrame
	lag     bool
	wm      int64
	pending map[string][]refRow
	seen    map[string][]refRow // by partition, sorted
	late    int
}

func (m *overModel) batch(rows []refRow) []string {
	for _, x := range rows {
		if x.t <= m.wm {
			m.late++
			continue
		}
		m.pending[x.id] = append(m.pending[x.id], x)
	}
	return nil
}

func (m *overModel) watermark(w int64) []string {
	if w <= m.wm {
		return nil
	}
	m.wm = w
	var out []string
	for k, rows := range m.pending {
		var due, rest []refRow
		for _, x := range rows {
			if x.t <= w {
				due = append(due, x)
			} else {
				rest = append(rest, x)
			}
		}
		m.pending[k] = rest
		slices.SortStableFunc(due, func(a, b refRow) int { return cmpInt64(a.t, b.t) })
		m.seen[k] = append(m.seen[k], due...)
		all := m.seen[k]
		for i := len(all) - len(due); i < len(all); i++ {
			out = append(out, "+I"+m.result(all, i))
		}
	}
	return out
}

// result is row i of a partition's sorted rows, with its aggregates, as
// the query prints it. The rows after i of the same time are known (no
// row of that time can come any more), as RANGE frames need.
func (m *overModel) result(all []refRow, i int) string {
	x := all[i]
	if m.lag {
		last := i
		for last+1 < len(all) && all[last+1].t == x.t {
			last++
		}
		lag := "NULL"
		if last > 0 {
			lag = fmt.Sprint(all[last-1].v)
		}
		return fmt.Sprintf("[%s, %d, %s, %s]", x.id, x.v, ts(x.t), lag)
	}
	f := m.frame.frame(all, i)
	sum, lo, hi := 0, f[0].v, f[0].v
	for _, y := range f {
		sum += y.v
		lo, hi = min(lo, y.v), max(hi, y.v)
	}
	return fmt.Sprintf("[%s, %d, %s, %d, %d, %d, %d]", x.id, x.v, ts(x.t), len(f), sum, lo, hi)
}

func (m *overModel) query() string {
	if m.lag {
		return "SELECT k, v, ts, LAG(v) OVER (PARTITION BY k ORDER BY ts) FROM b;\n"
	}
	w := "OVER (PARTITION BY k ORDER BY ts " + m.frame.sql + ")"
	return fmt.Sprintf("SELECT k, v, ts, COUNT(*) %s, SUM(v) %s, MIN(v) %s, MAX(v) %s FROM b;\n", w, w, w, w)
}

// TestOverResume: OVER aggregates (ROWS, RANGE, unbounded; LAG), resumed
// from a checkpoint, against an uninterrupted run and the brute force.
func TestOverResume(t *testing.T) {
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 3
	resumeCases(len(overFrames)+1, func(fi int, seed int64, ps [2]int, budget string) {
		r := rand.New(rand.NewSource(seed * 11))
		m := &overModel{frame: overFrames[fi%len(overFrames)], lag: fi == len(overFrames), wm: MinWatermark,
			pending: map[string][]refRow{}, seen: map[string][]refRow{}}
		rows := lateRows(r, 150)
		for i := range rows {
			if r.Intn(6) == 0 && i > 0 {
				rows[i].t = rows[i-1].t // peers
			}
		}
		path := fmt.Sprintf("over-resume-%d.json", seed)
		setRows(path, rows)
		want := modelWant(rows, 1000, m.batch, m.watermark)
		sql := fmt.Sprintf(resumeTable, path) + budgetSet(budget) + m.query()
		rp := randomPlan(r, batchesOf(len(rows)), ps[0], ps[1])
		name := fmt.Sprintf("%q (lag %v), seed %d, budget %q", m.frame.sql, m.lag, seed, budget)
		resumeCheck(t, name, sql, path, rp, want, m.late, 0, keyGroup)
		if m.late == 0 {
			t.Fatalf("%s: the rows had none late", name)
		}
	})
}

// keyGroup is a change's first value.
func keyGroup(l string) string { return strings.SplitN(l[3:], ", ", 2)[0] }
