package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
)

// Dead-letter files across a stop and a resume (#13): a job whose late
// rows go to a dead-letter file is stopped at a random batch after one or
// two checkpoints (its context cancelled: what it wrote after the last
// checkpoint stays in the file, as after kill -9) and resumed; the file
// must then hold each late row once: the brute-force model's late rows,
// and an uninterrupted run's lines.

// deadTable is the test source b, its late rows going to a dead-letter
// file: %s the source's path, %s the file's.
const deadTable = "CREATE TABLE b (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) " +
	"WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json', 'scan.late-rows.path' = '%s');\n"

// deadQueries are two operators writing late rows of b to its file: an
// OVER aggregate (a row at or below the watermark is late) and a TUMBLE
// window aggregate (a row whose window has fired is late), each in
// partitions at a parallelism above one.
const deadQueries = `SELECT k, v, ts, COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM b;
SELECT window_start, k, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;
`

// deadModel is the late rows of rows as the source hands them out (seven
// a batch, each batch followed by the watermark of the largest time so
// far less 1 s): "over v" for the OVER aggregate, "window v" for the
// window aggregate, sorted.
func deadModel(rows []refRow) []string {
	var out []string
	wm := int64(MinWatermark)
	for i := 0; i < len(rows); i += 7 {
		b := rows[i:min(i+7, len(rows))]
		for _, x := range b {
			if x.t <= wm {
				out = append(out, fmt.Sprintf("over %d", x.v))
			}
			if x.t-x.t%1000+999 <= wm {
				out = append(out, fmt.Sprintf("window %d", x.v))
			}
		}
		for _, x := range b {
			wm = max(wm, x.t-1000)
		}
	}
	slices.Sort(out)
	return out
}

// deadLines reads a dead-letter file as deadModel's lines, sorted, and
// its lines as they are (sorted); a file that does not exist has none.
func deadLines(t *testing.T, path string) (model, lines []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasSuffix(l, "\n") {
			t.Fatalf("%s: a line cut short: %q", path, l)
		}
		var rec struct {
			Operator string            `json:"operator"`
			Row      map[string]string `json:"row"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("%s: %v: %q", path, err, l)
		}
		kind := "window"
		if strings.HasPrefix(rec.Operator, "Over") {
			kind = "over"
		}
		model = append(model, kind+" "+rec.Row["v"])
		lines = append(lines, l)
	}
	slices.Sort(model)
	slices.Sort(lines)
	return model, lines
}

// deadHarness runs the job of deadTable and deadQueries with checkpoints
// in dir.
type deadHarness struct {
	t         *testing.T
	sql       string
	src, dead string // the source's path (setRows), the dead-letter file
	dir       string
	// logs are the queries' outputs, kept across runs (resumeSink).
	logs map[string]*resumeLog
}

func newDeadHarness(t *testing.T, src string, rows []refRow) *deadHarness {
	dir := t.TempDir()
	setRows(src, rows)
	dead := filepath.Join(dir, "late.jsonl")
	return &deadHarness{t: t, sql: fmt.Sprintf(deadTable, src, dead) + deadQueries, src: src, dead: dead, dir: dir,
		logs: map[string]*resumeLog{}}
}

// build builds the job at parallelism p, resuming from restore (nil: from
// the start); cp false: without checkpoints.
func (h *deadHarness) build(p int, cp bool, restore *checkpoint.Checkpoint) (*Job, error) {
	t := h.t
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", h.sql))
	if j.Diags.HasErrors() {
		t.Fatalf("job has errors: %v", j.Diags.Err())
	}
	opts := Options{Settings: j.Session.Settings, Parallelism: p,
		QuerySink: func(name string, cols []connector.Column) connector.Sink {
			if h.logs[name] == nil {
				h.logs[name] = &resumeLog{}
			}
			return &resumeSink{log: h.logs[name], cols: cols}
		}}
	if cp {
		d, err := checkpoint.Open(h.dir, checkpoint.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.StateDir = h.dir
		opts.Checkpoint = &Checkpointing{Dir: d, Interval: time.Hour, Job: "job.sql", Restore: restore}
	}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), opts)
	if err == nil && cp && job.CheckpointsOff() != "" {
		t.Fatalf("the job takes no checkpoints: %s", job.CheckpointsOff())
	}
	return job, err
}

// stopAfter runs the job at parallelism p from the start, takes a
// checkpoint after each batch in ckpts and stops at batch stop (after
// them).
func (h *deadHarness) stopAfter(p int, ckpts []int, stop int) {
	t := h.t
	t.Helper()
	var job *Job
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	taken := make(chan error, len(ckpts))
	var hookErr error
	batch, done := 0, 0
	setHook(h.src, func() {
		batch++
		if slices.Contains(ckpts, batch) {
			go func() { taken <- job.takeCheckpoint(ctx, false) }()
			reqs := job.sources[0].cp.reqs
			for len(reqs) == 0 && hookErr == nil {
				select {
				case err := <-taken:
					done++
					if err != nil || done == len(ckpts) {
						hookErr = fmt.Errorf("the checkpoint after batch %d ended before its barrier was asked for: %w", batch, err)
					}
				case <-time.After(time.Millisecond):
				}
			}
		}
		if batch == stop && hookErr == nil {
			for ; done < len(ckpts); done++ {
				if err := <-taken; err != nil {
					hookErr = err
				}
			}
			cancel()
		}
	})
	defer setHook(h.src, nil)
	job, err := h.build(p, true, nil) // its source takes the hook
	if err != nil {
		t.Fatal(err)
	}
	err = job.Run(ctx)
	if hookErr != nil {
		t.Fatal(hookErr)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the first run was to be stopped at batch %d of %d; it returned %v", stop, batch, err)
	}
}

// latest is the last complete checkpoint in the harness's directory (nil:
// none).
func (h *deadHarness) latest() *checkpoint.Checkpoint {
	h.t.Helper()
	d, err := checkpoint.Open(h.dir, checkpoint.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	c, _, err := d.Latest()
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// resume runs the job to its end at parallelism p from the latest
// checkpoint (or from the start when there is none).
func (h *deadHarness) resume(p int) error {
	job, err := h.build(p, true, h.latest())
	if err != nil {
		return err
	}
	return job.Run(context.Background())
}

// recorded is the dead-letter file's length in checkpoint c.
func (h *deadHarness) recorded(c *checkpoint.Checkpoint) int64 {
	h.t.Helper()
	data, err := c.ReadPart(deadLettersPart)
	if err != nil {
		h.t.Fatal(err)
	}
	st, err := decodeDeadLetterLengths(data, deadLettersPart)
	if err != nil {
		h.t.Fatal(err)
	}
	n, ok := st.Files[h.dead]
	if !ok {
		h.t.Fatalf("checkpoint %d records no length of %s: %v", c.ID, h.dead, st.Files)
	}
	return n
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// TestDeadLettersResume: stopped at a random batch after one or two
// checkpoints and resumed, at the same or another parallelism, the job's
// dead-letter file holds each late row once: the model's, and an
// uninterrupted run's lines.
func TestDeadLettersResume(t *testing.T) {
	cut := 0
	resumeCases(4, func(v int, seed int64, ps [2]int, _ string) {
		r := rand.New(rand.NewSource(seed))
		rows := lateRows(r, 200)
		want := deadModel(rows)
		if len(want) == 0 {
			t.Fatalf("seed %d: the input has no late rows", seed)
		}
		src := fmt.Sprintf("dead-resume-%d.json", seed)

		clean := newDeadHarness(t, src, rows)
		job, err := clean.build(ps[0], false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := job.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		cleanModel, cleanLines := deadLines(t, clean.dead)
		if !slices.Equal(cleanModel, want) {
			t.Fatalf("seed %d: an uninterrupted run's late rows differ from the model's\nrun:   %v\nmodel: %v", seed, cleanModel, want)
		}

		h := newDeadHarness(t, src, rows)
		rp := randomPlan(r, batchesOf(len(rows)), ps[0], ps[1])
		h.stopAfter(rp.p1, rp.ckpts, rp.stop)
		c := h.latest()
		if c == nil {
			t.Fatalf("%v: no checkpoint", rp)
		}
		at, stopped := h.recorded(c), fileSize(t, h.dead)
		if at > stopped {
			t.Fatalf("%v: checkpoint %d recorded %d bytes, the file has %d", rp, c.ID, at, stopped)
		}
		if at < stopped {
			cut++
		}
		if err := h.resume(rp.p2); err != nil {
			t.Fatalf("seed %d, %v: the resumed run: %v", seed, rp, err)
		}
		gotModel, gotLines := deadLines(t, h.dead)
		if !slices.Equal(gotModel, want) {
			missing, extra := diffSorted(want, gotModel)
			t.Fatalf("seed %d, %v: the dead-letter file after the resume is not the model's: missing %v, extra %v", seed, rp, missing, extra)
		}
		if !slices.Equal(gotLines, cleanLines) {
			t.Fatalf("seed %d, %v: the dead-letter file after the resume is not an uninterrupted run's", seed, rp)
		}
	})
	if cut == 0 {
		t.Fatal("no stopped run had written late rows after its last checkpoint: nothing was cut back")
	}
	t.Logf("%d of %d stopped runs had late rows after their checkpoint, cut back on resume", cut, 4*len(resumeParallelisms))
}

// diffSorted is what want has that got has not, and the reverse (sorted
// multisets).
func diffSorted(want, got []string) (missing, extra []string) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i] < got[j]:
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i++
			j++
		}
	}
	return missing, extra
}

// TestDeadLettersStartOver: a run that completed no checkpoint is started
// over from the beginning; the dead-letter file is cut back to its length
// at the first start (DeadLettersStartName), which keeps what an earlier
// job had written to it.
func TestDeadLettersStartOver(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewSource(seed))
		rows := lateRows(r, 200)
		want := deadModel(rows)
		h := newDeadHarness(t, fmt.Sprintf("dead-over-%d.json", seed), rows)
		earlier := `{"an earlier job's":"line"}` + "\n"
		if err := os.WriteFile(h.dead, []byte(earlier), 0o644); err != nil {
			t.Fatal(err)
		}
		p := 1 + int(seed)%3
		// Two runs stopped before any checkpoint: each starts over.
		for range 2 {
			h.stopAfter(p, nil, batchesOf(len(rows))/2+r.Intn(batchesOf(len(rows))/2))
			if h.latest() != nil {
				t.Fatal("a checkpoint was taken")
			}
			if fileSize(t, h.dead) <= int64(len(earlier)) {
				t.Fatalf("seed %d: the stopped run wrote no late rows", seed)
			}
		}
		start, err := os.ReadFile(filepath.Join(h.dir, DeadLettersStartName))
		if err != nil {
			t.Fatal(err)
		}
		st, err := decodeDeadLetterLengths(start, DeadLettersStartName)
		if err != nil {
			t.Fatal(err)
		}
		if st.Files[h.dead] != int64(len(earlier)) {
			t.Fatalf("%s records %v, want %s at %d bytes", DeadLettersStartName, st.Files, h.dead, len(earlier))
		}
		if err := h.resume(p); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(h.dead)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(earlier)) {
			t.Fatalf("seed %d: the earlier job's line is gone", seed)
		}
		if err := os.WriteFile(h.dead, b[len(earlier):], 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := deadLines(t, h.dead); !slices.Equal(got, want) {
			missing, extra := diffSorted(want, got)
			t.Fatalf("seed %d: after starting over the file is not the model's: missing %v, extra %v", seed, missing, extra)
		}
	}
}

// TestDeadLettersCuts: the length at a barrier counts every line written
// before each writer passed it and none after, whatever order the writers
// pass it in; a writer that has finished holds no cut back.
func TestDeadLettersCuts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dead.jsonl")
	var d deadLetters
	f := d.file(path)
	a, b, c := &lateWriter{}, &lateWriter{}, &lateWriter{}
	for _, w := range []*lateWriter{a, b, c} {
		f.add(w)
	}
	write := func(w *lateWriter, s string) {
		t.Helper()
		if err := f.write(w, []byte(s+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	cutAt := func(id int64) (int64, bool) {
		t.Helper()
		n, ok, _, err := f.cutAt(id)
		if err != nil {
			t.Fatal(err)
		}
		return n, ok
	}
	content := func() string {
		t.Helper()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	write(a, "a1")
	f.pass(a, 1)
	write(a, "a2") // after barrier 1: held
	write(b, "b1")
	f.pass(b, 1)
	f.pass(b, 2) // b passes barrier 2 before c passed 1
	write(b, "b3")
	if _, ok := cutAt(1); ok {
		t.Fatal("barrier 1 was cut before c passed it")
	}
	write(c, "c1")
	if got := content(); got != "a1\nb1\nc1\n" {
		t.Fatalf("before c passed barrier 1 the file holds %q", got)
	}
	f.pass(c, 1)
	if n, ok := cutAt(1); !ok || n != int64(len("a1\nb1\nc1\n")) {
		t.Fatalf("barrier 1 cut at %d (%v), want %d", n, ok, len("a1\nb1\nc1\n"))
	}
	if got := content(); got != "a1\nb1\nc1\na2\n" {
		t.Fatalf("after barrier 1's cut the file holds %q (b3 is after barrier 2, which a and c have not passed)", got)
	}
	write(c, "c2")
	f.finished(c) // c ends without barrier 2
	if _, ok := cutAt(2); ok {
		t.Fatal("barrier 2 was cut before a passed it")
	}
	f.pass(a, 2)
	want := "a1\nb1\nc1\na2\nc2\n"
	if n, ok := cutAt(2); !ok || n != int64(len(want)) {
		t.Fatalf("barrier 2 cut at %d (%v), want %d", n, ok, len(want))
	}
	if got := content(); got != want+"b3\n" {
		t.Fatalf("after barrier 2's cut the file holds %q", got)
	}
	// Once every writer has finished, a barrier none of them passed cuts
	// at the file's end.
	f.finished(a)
	f.finished(b)
	if n, ok := cutAt(3); !ok || n != int64(len(want+"b3\n")) {
		t.Fatalf("barrier 3 (every writer finished) cut at %d (%v), want the whole file", n, ok)
	}
	if err := f.close(); err != nil {
		t.Fatal(err)
	}
}

// TestDeadLettersCutBack: a dead-letter file shorter than its length at
// the checkpoint, or missing, was changed outside the job: the resumed
// run stops with an error naming the file, and does not write it.
func TestDeadLettersCutBack(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	rows := lateRows(r, 200)
	for _, missing := range []bool{false, true} {
		h := newDeadHarness(t, fmt.Sprintf("dead-cutback-%v.json", missing), rows)
		n := batchesOf(len(rows))
		h.stopAfter(2, []int{n - 3}, n-1)
		c := h.latest()
		at := h.recorded(c)
		if at == 0 {
			t.Fatalf("checkpoint %d recorded no late rows: the test needs some", c.ID)
		}
		want := "holds"
		if missing {
			want = "is missing"
			if err := os.Remove(h.dead); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Truncate(h.dead, at-1); err != nil {
			t.Fatal(err)
		}
		err := h.resume(2)
		if err == nil || !strings.Contains(err.Error(), h.dead) || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "rm -r "+h.dir) {
			t.Fatalf("a dead-letter file cut back below checkpoint %d's %d bytes (missing %v): want an error naming it and how to start over, got %v",
				c.ID, at, missing, err)
		}
		if size := fileSize(t, h.dead); missing && size != 0 || !missing && size != at-1 {
			t.Fatalf("the refused run changed the file: %d bytes", size)
		}
	}
	// The same for the lengths at the first start.
	h := newDeadHarness(t, "dead-cutback-start.json", rows)
	if err := os.WriteFile(h.dead, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.stopAfter(1, nil, 3)
	if err := os.WriteFile(h.dead, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := h.resume(1)
	if err == nil || !strings.Contains(err.Error(), h.dead) || !strings.Contains(err.Error(), DeadLettersStartName) {
		t.Fatalf("a dead-letter file cut back below its length at the first start: want an error naming it and %s, got %v", DeadLettersStartName, err)
	}
}

// TestDeadLettersNoPart: a checkpoint without a dead-letters part (an
// older streamsql's, or one taken before the table had a dead-letter path)
// resumes as before, with a warning: the file is appended to, not cut.
func TestDeadLettersNoPart(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	rows := lateRows(r, 200)
	h := newDeadHarness(t, "dead-nopart.json", rows)
	withPath := h.sql
	h.sql = strings.Replace(h.sql, fmt.Sprintf(", 'scan.late-rows.path' = '%s'", h.dead), "", 1)
	if h.sql == withPath {
		t.Fatal("the job still has its dead-letter path")
	}
	n := batchesOf(len(rows))
	h.stopAfter(1, []int{n / 2}, n-1)
	c := h.latest()
	if c == nil || c.HasPart(deadLettersPart) {
		t.Fatalf("want a checkpoint without a %s part, got %v", deadLettersPart, c)
	}
	earlier := "an earlier line\n"
	if err := os.WriteFile(h.dead, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	h.sql = withPath
	var warned []string
	job, err := h.build(1, true, c)
	if err != nil {
		t.Fatal(err)
	}
	job.warnTo = func(msg string) { warned = append(warned, msg) }
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "records no dead-letter file lengths") || !strings.Contains(warned[0], h.dead) {
		t.Fatalf("want one warning naming the file, got %q", warned)
	}
	b, err := os.ReadFile(h.dead)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(earlier)) || len(b) == len(earlier) {
		t.Fatalf("the file was not appended to: %d bytes", len(b))
	}
}
