package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
)

// The fault-injection test (#13): a job runs as a child process with
// --state-dir and is killed with SIGKILL at random moments (while it reads,
// joins, writes, or writes a checkpoint), then started again with the same
// directory, until it finishes; its output must be the clean run's, line
// for line as a multiset: nothing lost, nothing twice.
//
// `make test` runs a few kills; STREAMSQL_CRASH_KILLS=N (make crash) runs N.

// crashJob joins two files with an interval join into a json file. The
// watermark delay is longer than the files' disorder (none), so no row is
// late however the two inputs interleave, and the join's output does not
// depend on the interleaving, which differs between a clean run and one
// resumed from a checkpoint.
const crashJob = `SET 'execution.checkpointing.interval' = '%s';
SET 'parallelism' = '2';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE o (id INT, v INT, w INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out/o.json', 'format' = 'json');
INSERT INTO o SELECT a.id, v, w, a.ts FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`

func crashInputs(t *testing.T, dir string, n int) {
	t.Helper()
	for _, side := range []struct {
		name, col string
		mul       int
	}{{"a.json", "v", 1}, {"b.json", "w", 7}} {
		var sb strings.Builder
		for i := range n {
			ms := int64(i) * 3
			fmt.Fprintf(&sb, `{"id": %d, "%s": %d, "ts": "%s"}`+"\n", (i*side.mul)%997, side.col, i,
				time.UnixMilli(1767225600000+ms).UTC().Format("2006-01-02 15:04:05.000"))
		}
		if err := os.WriteFile(filepath.Join(dir, side.name), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fileLinesSorted(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(lines)
	return lines
}

func TestCrashResumeExactlyOnce(t *testing.T) {
	kills := 4
	rows := 100000
	if s := os.Getenv("STREAMSQL_CRASH_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		kills, rows = n, 150000
	}
	if testing.Short() {
		t.Skip("runs the job many times")
	}
	dir := t.TempDir()
	crashInputs(t, dir, rows)
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(crashJob, "100ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "o.json")

	// The clean run, without --state-dir; the kills come within 80% of
	// its time (a resumed run has less to do and may finish first).
	begun := time.Now()
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	span := max(time.Since(begun)*8/10, 300*time.Millisecond)
	want := fileLinesSorted(t, out)
	if len(want) < rows/2 {
		t.Fatalf("the clean run wrote only %d rows", len(want))
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}

	st := filepath.Join(dir, "state")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	seed := rng.Uint64()
	t.Logf("kill timing seed %d", seed)
	rng = rand.New(rand.NewPCG(seed, 13))
	// Episodes: runs killed at random until one finishes; its output is
	// compared with the clean run's; then the state is removed and the
	// next episode begins, until the kills add up (a resumed run near the
	// end may finish before its kill comes).
	var killed, resumed, runs, episodes int
	for killed < kills || resumed == 0 {
		episodes++
		if episodes > 4*kills+3 {
			t.Fatalf("%d episodes, %d kills, %d resumed: the job ends before the kills come", episodes, killed, resumed)
		}
		kk := kills - killed
		if resumed == 0 {
			kk = max(kk, 1) // until a run resumes from a checkpoint
		}
		k, r, n := crashRuns(t, rng, job, st, kk, span)
		killed, resumed, runs = killed+k, resumed+r, runs+n
		got := fileLinesSorted(t, out)
		if !slices.Equal(got, want) {
			missing, extra := diffMultiset(want, got)
			t.Fatalf("episode %d, after %d kills: the output differs from the clean run: %d rows, want %d; missing %d (e.g. %q), extra %d (e.g. %q)",
				episodes, k, len(got), len(want), len(missing), first(missing), len(extra), first(extra))
		}
		if err := os.RemoveAll(st); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d episodes, %d runs, %d killed, %d resumed from a checkpoint: every episode wrote the clean run's rows", episodes, runs, killed, resumed)
}

// crashRuns runs the job with --state-dir st until it finishes, killing
// the first kills runs at random moments.
func crashRuns(t *testing.T, rng *rand.Rand, job, st string, kills int, span time.Duration) (killed, resumed, runs int) {
	for {
		runs++
		if runs > 4*kills+20 {
			t.Fatalf("the job did not finish after %d runs (%d killed)", runs, killed)
		}
		cmd := exec.Command(os.Args[0], "run", "--state-dir", st, job)
		cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		if killed < kills {
			// A random moment: one run in three anywhere (restoring,
			// reading, before any checkpoint); the others once a new
			// checkpoint has completed, within 300 ms after it (joining,
			// writing, writing the next checkpoint).
			var at <-chan time.Time
			if rng.IntN(3) == 0 {
				at = time.After(50*time.Millisecond + time.Duration(rng.Int64N(int64(span))))
			} else {
				at = afterCheckpoint(st, latestComplete(st), time.Duration(rng.Int64N(int64(300*time.Millisecond))))
			}
			select {
			case err = <-exited:
			case <-at:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err = <-exited
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					killed++
					if strings.Contains(stderr.String(), "resuming from checkpoint") {
						resumed++
					}
					continue
				}
			}
		} else {
			err = <-exited
		}
		if err != nil {
			t.Fatalf("run %d failed: %v\n%s", runs, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "resuming from checkpoint") {
			resumed++
		}
		break
	}
	return killed, resumed, runs
}

func diffMultiset(want, got []string) (missing, extra []string) {
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

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// latestComplete is the id of the newest complete checkpoint in the state
// directory st (0: none).
func latestComplete(st string) int { return int(checkpoint.LatestComplete(st)) }

// afterCheckpoint fires extra after a checkpoint newer than id completes
// in st (polling the directory: the condition is on disk, in another
// process).
func afterCheckpoint(st string, id int, extra time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for latestComplete(st) <= id && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(extra)
		ch <- time.Now()
	}()
	return ch
}

// afterBytes fires once the file at path holds bytes (polling: it is
// written by another process), or after a minute.
func afterBytes(path string) <-chan time.Time {
	ch := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		ch <- time.Now()
	}()
	return ch
}

// TestStopResumeAndChangedPlan: SIGTERM takes a last checkpoint; the job
// with a column of another type is refused that directory, saying what
// changed;
// the job itself resumes from it and writes the clean run's rows.
func TestStopResumeAndChangedPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job several times")
	}
	dir := t.TempDir()
	crashInputs(t, dir, 300000)
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(crashJob, "100ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "o.json")
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	want := fileLinesSorted(t, out)
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}

	st := filepath.Join(dir, "state")
	cmd := exec.Command(os.Args[0], "run", "--state-dir", st, job)
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Stopped once its sink's file has rows (its sources have then read a
	// fraction of their input, whatever the machine's speed), not after a
	// periodic checkpoint, which could come after the input was read.
	select {
	case <-afterBytes(out):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err == nil {
			t.Error("the stopped job exited 0")
		}
	case err := <-exited:
		t.Fatalf("the job ended (%v) before it wrote a row: nothing to stop\n%s", err, stderr.String())
	}
	if cmd.ProcessState.ExitCode() != 143 || !strings.Contains(stderr.String(), "the next run with --state-dir") {
		t.Fatalf("SIGTERM: want exit 143 and a last checkpoint, got exit %d:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	}

	// The same file with a column of another type: the source's and the
	// join's state would not be this job's types.
	orig, _ := os.ReadFile(job)
	if err := os.WriteFile(job, []byte(strings.ReplaceAll(string(orig), "v INT", "v BIGINT")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke("run", "--state-dir", st, job)
	if r.code != 1 || !strings.Contains(r.stderr, "the job no longer matches checkpoint") || !strings.Contains(r.stderr, "(IntervalJoin: IntervalJoin INNER(a, b)) holds other types") ||
		!strings.Contains(r.stderr, "rm -r "+st) {
		t.Fatalf("a changed column type on the directory: want it refused with what changed, got:\n%s", r)
	}
	if err := os.WriteFile(job, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	r = invoke("run", "--state-dir", st, job)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming from checkpoint") {
		t.Fatalf("the job again: want it resumed, got:\n%s", r)
	}
	if got := fileLinesSorted(t, out); !slices.Equal(got, want) {
		t.Fatalf("stopped and resumed: %d rows, the clean run %d", len(got), len(want))
	}
}

// transcriptMarker precedes the crash-and-resume transcript in
// docs/runtime.md that TestFaultToleranceTranscript checks.
const transcriptMarker = "<!-- checked by TestFaultToleranceTranscript (cmd/streamsql/crash_test.go) -->"

// TestFaultToleranceTranscript runs what docs/runtime.md's "Fault
// tolerance" transcript shows — a job stopped with Ctrl-C, which takes a
// last checkpoint, then run again, which resumes from it — and compares the
// run's messages with the transcript's, numbers aside (times, ids and row
// counts vary from run to run). STREAMSQL_REWRITE_DOCS=1 writes this run's
// transcript into the doc.
func TestFaultToleranceTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job twice")
	}
	dir := t.TempDir()
	crashInputs(t, dir, 300000)
	if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(fmt.Sprintf(crashJob, "500ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first run is stopped once its sink has written rows, not at a
	// time: its sources have then read some 10,000 of their 300,000 rows
	// (the sink writes blocks of 64 KiB), and Ctrl-C's checkpoint barrier
	// stops them, so the resumed run has nearly all of the input left
	// whatever the machine's speed. (Stopped after its first 500 ms
	// checkpoint, a run could read all of its input first on a quiet
	// machine, or stop a few rows before its end on a loaded one.)
	first := transcriptRun(t, dir, true)
	if strings.Contains(first, "watermark +inf") {
		t.Fatalf("the stopped run had read all of its input (the stop came once its sink had written rows): nothing left to resume\n%s", first)
	}
	got := "$ streamsql run --state-dir state job.sql\n^C\n" + first +
		"$ streamsql run --state-dir state job.sql\n" + transcriptRun(t, dir, false)
	checkTranscript(t, got)
}

// transcriptRun runs the job of TestFaultToleranceTranscript in dir,
// stopping it with SIGINT once its sink has written rows when stop is set,
// and returns the lines of its stderr that the transcript shows.
func transcriptRun(t *testing.T, dir string, stop bool) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "run", "--state-dir", "state", "job.sql")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if stop {
		select {
		case <-afterBytes(filepath.Join(dir, "out", "o.json")):
			_ = cmd.Process.Signal(os.Interrupt)
			if err := <-exited; err == nil {
				t.Fatalf("the stopped run exited 0:\n%s", stderr.String())
			}
		case err := <-exited:
			t.Fatalf("the job ended (%v) before it wrote a row:\n%s", err, stderr.String())
		}
	} else if err := <-exited; err != nil {
		t.Fatalf("the resumed run: %v\n%s", err, stderr.String())
	}
	var keep []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "streamsql run: ") && strings.Contains(l, " rows in, "): // progress: timing
		case strings.Contains(l, "a source ended while it was taken"): // a checkpoint racing the end of input: timing
		case strings.HasPrefix(l, "streamsql run: ") || strings.HasPrefix(l, "  "):
			if !strings.HasPrefix(strings.TrimSpace(l), "|") && !strings.HasPrefix(strings.TrimSpace(l), "hint:") && !strings.HasPrefix(strings.TrimSpace(l), "9 |") {
				keep = append(keep, l)
			}
		}
	}
	return strings.Join(keep, "\n") + "\n"
}

// checkTranscript compares got with the transcript in docs/runtime.md,
// numbers aside, or rewrites it under STREAMSQL_REWRITE_DOCS=1.
func checkTranscript(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "runtime.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, transcriptMarker)
	if i < 0 {
		t.Fatalf("%s has no %q", path, transcriptMarker)
	}
	start := strings.Index(text[i:], "```console\n")
	end := strings.Index(text[i+start+len("```console\n"):], "```\n")
	if start < 0 || end < 0 {
		t.Fatalf("%s: no ```console block after the marker", path)
	}
	bodyAt := i + start + len("```console\n")
	body := text[bodyAt : bodyAt+end]
	if os.Getenv("STREAMSQL_REWRITE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(text[:bodyAt]+got+text[bodyAt+end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	// A resumed run that ends before its first checkpoint has no "last
	// checkpoint" line: those are left out.
	if n, w := numbersAside(dropLines(got, "  last checkpoint ")), numbersAside(dropLines(body, "  last checkpoint ")); n != w {
		t.Errorf("the transcript in %s differs from a run (numbers aside); STREAMSQL_REWRITE_DOCS=1 rewrites it.\n--- run:\n%s--- doc:\n%s", path, got, body)
	}
}

// numbersAside replaces every number, with its unit if it has one (885ms,
// 1.07s, 562.7 KB, 2026-01-01 00:06:57.005), with '#', and squeezes spaces.
func numbersAside(s string) string {
	s = numberRE.ReplaceAllString(s, "#")
	return strings.Join(strings.Fields(s), " ")
}

var numberRE = regexp.MustCompile(`[0-9][0-9.:-]*( ?(ms|µs|s|m|h|KB|MB|GB|B)\b)?`)

// dropLines removes the lines that start with prefix.
func dropLines(s, prefix string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, prefix) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
