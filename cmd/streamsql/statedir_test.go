package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// joinJob joins two small files with a regular join: its operator keeps
// both inputs in state, which --state-dir keeps on disk after the run.
const joinJob = `CREATE TABLE l (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'l.json', 'format' = 'json');
CREATE TABLE r (k STRING, w INT) WITH ('connector' = 'filesystem', 'path' = 'r.json', 'format' = 'json');
CREATE TABLE o (k STRING, v INT, w INT) WITH ('connector' = 'filesystem', 'path' = 'o.json', 'format' = 'json');
INSERT INTO o SELECT l.k, v, w FROM l JOIN r ON l.k = r.k;
`

func writeFilesIn(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func lineCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestStateDirRerun: a second run with the same --state-dir used to open
// the first run's join state while reading the sources from the start
// again (o.json had 2 rows, then 6, then 10). Now a run resumes from the
// directory's latest complete checkpoint, or, having none (this job ends
// before its first), starts from the beginning with the live state emptied:
// o.json has the clean run's 2 rows after every run. Another job's
// directory is refused, saying whose it is and how to start over.
func TestStateDirRerun(t *testing.T) {
	dir := t.TempDir()
	writeFilesIn(t, dir, map[string]string{
		"l.json":  `{"k":"a","v":1}` + "\n" + `{"k":"b","v":2}` + "\n",
		"r.json":  `{"k":"a","w":10}` + "\n" + `{"k":"b","w":20}` + "\n",
		"job.sql": joinJob,
	})
	job, st, out := filepath.Join(dir, "job.sql"), filepath.Join(dir, "state"), filepath.Join(dir, "o.json")
	if r := invoke("run", "--state-dir", st, job); r.code != 0 {
		t.Fatalf("first run:\n%s", r)
	}
	if n := lineCount(t, out); n != 2 {
		t.Fatalf("first run wrote %d rows, want 2", n)
	}
	r := invoke("run", "--state-dir", st, job)
	if r.code != 0 || !strings.Contains(r.stderr, "no complete checkpoint of this job: starting from the beginning") {
		t.Errorf("second run: want a run from the beginning, got:\n%s", r)
	}
	if n := lineCount(t, out); n != 2 {
		t.Errorf("after the second run o.json has %d rows, want the clean run's 2", n)
	}
	// Another job (other columns) on the same directory: refused.
	writeFilesIn(t, dir, map[string]string{"other.sql": strings.ReplaceAll(joinJob, "v INT", "v BIGINT")})
	r = invoke("run", "--state-dir", st, filepath.Join(dir, "other.sql"))
	if r.code != 1 || !strings.Contains(r.stderr, "the job "+job) || !strings.Contains(r.stderr, "column types differ") ||
		!strings.Contains(r.stderr, "rm -r "+st) {
		t.Errorf("another job: want exit 1 naming %s and a different layout, got:\n%s", job, r)
	}
	if err := os.RemoveAll(st); err != nil {
		t.Fatal(err)
	}
	if r := invoke("run", "--state-dir", st, job); r.code != 0 || lineCount(t, out) != 2 {
		t.Errorf("after removing the directory: want a clean run with 2 rows, got:\n%s", r)
	}
}

// TestStateDirAfterAFailure: a run that failed (a bad row, after the join
// had state) leaves its state; the next run starts over and fails the same
// way. A directory that is not empty and holds no state is refused.
func TestStateDirAfterAFailure(t *testing.T) {
	dir := t.TempDir()
	writeFilesIn(t, dir, map[string]string{
		"l.json":  `{"k":"a","v":1}` + "\n" + `{"k":"b","v":"x"}` + "\n",
		"r.json":  `{"k":"a","w":10}` + "\n",
		"job.sql": joinJob,
	})
	job, st := filepath.Join(dir, "job.sql"), filepath.Join(dir, "state")
	for i := range 2 {
		if r := invoke("run", "--state-dir", st, job); r.code != 1 || !strings.Contains(r.stderr, "l.json:2") {
			t.Fatalf("run %d: want a failure at l.json:2, got:\n%s", i+1, r)
		}
	}

	other := filepath.Join(dir, "other")
	writeFilesIn(t, dir, map[string]string{"notes.txt": "x"})
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFilesIn(t, other, map[string]string{"notes.txt": "mine"})
	if r := invoke("run", "--state-dir", other, job); r.code != 1 || !strings.Contains(r.stderr, "is not empty (notes.txt)") {
		t.Errorf("a directory with other files: want it refused, got:\n%s", r)
	}
}

// TestStateDirReleased: a claim that is released (the job could not be
// built, nothing ran) leaves the directory empty, to be taken again.
func TestStateDirReleased(t *testing.T) {
	st := filepath.Join(t.TempDir(), "state")
	m := stateMarker{Layout: stateLayoutVersion, Job: "job.sql"}
	release, err := claimStateDir(st, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(st, stateMarkerName)); err != nil {
		t.Fatalf("no marker after the claim: %v", err)
	}
	if _, err := claimStateDir(st, m); err == nil {
		t.Fatalf("a claimed directory was claimed again")
	}
	release()
	if entries, err := os.ReadDir(st); err != nil || len(entries) != 0 {
		t.Fatalf("after release the directory holds %v (%v), want nothing", entries, err)
	}
	if _, err := claimStateDir(st, m); err != nil {
		t.Fatalf("a released directory cannot be claimed: %v", err)
	}
}

// TestStateDirAfterKill: a run killed with SIGKILL (no chance to clean up)
// leaves its marker. This job's print sink cannot cut its output back, so
// it takes no checkpoints (and says so); the next run starts over, and
// another job is refused the directory.
func TestStateDirAfterKill(t *testing.T) {
	dir := t.TempDir()
	// Unbounded: datagen without 'number-of-rows'; a GROUP BY keeps state.
	job := `CREATE TABLE g (k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000',
  'fields.k.min' = '1', 'fields.k.max' = '5');
CREATE TABLE p (k INT, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'p');
INSERT INTO p SELECT k, COUNT(*) FROM g GROUP BY k;
`
	writeFilesIn(t, dir, map[string]string{"job.sql": job, "other.sql": strings.ReplaceAll(job, "n BIGINT", "m BIGINT")})
	st := filepath.Join(dir, "state")
	start := func() (*exec.Cmd, *bufio.Scanner, *bufio.Scanner) {
		cmd := exec.Command(os.Args[0], "run", "--state-dir", st, filepath.Join(dir, "job.sql"))
		cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd, bufio.NewScanner(stdout), bufio.NewScanner(stderr)
	}
	cmd, out, errs := start()
	// Wait until the job runs: its first row is printed.
	if !out.Scan() || !strings.HasPrefix(out.Text(), "p> ") {
		t.Fatalf("the job printed no row: %q, %v", out.Text(), out.Err())
	}
	if l := scanFor(errs, "no checkpoints are taken"); !strings.Contains(l, "sink p cannot cut its output back") {
		t.Errorf("want a warning that no checkpoints are taken, got %q", l)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	r := invoke("run", "--state-dir", st, filepath.Join(dir, "other.sql"))
	if r.code != 1 || !strings.Contains(r.stderr, "the job "+filepath.Join(dir, "job.sql")) {
		t.Errorf("another job after kill -9: want the state directory refused, got:\n%s", r)
	}
	cmd, _, errs = start()
	if l := scanFor(errs, "starting from the beginning"); l == "" {
		t.Errorf("the same job after kill -9: want it started over")
	}
	_ = cmd.Process.Kill()
}

// scanFor returns the first of the next few lines that holds what, or "".
func scanFor(sc *bufio.Scanner, what string) string {
	for range 20 {
		if !sc.Scan() {
			return ""
		}
		if strings.Contains(sc.Text(), what) {
			return sc.Text()
		}
	}
	return ""
}

// TestStateDirOldLayout: a directory of this job written in state layout 1
// (operator state in op1, op2, ...) is refused with what it is and how to
// start over, not resumed under names it does not have.
func TestStateDirOldLayout(t *testing.T) {
	dir := t.TempDir()
	writeFilesIn(t, dir, map[string]string{
		"l.json":  `{"k":"a","v":1}` + "\n",
		"r.json":  `{"k":"a","w":10}` + "\n",
		"job.sql": joinJob,
	})
	job, st := filepath.Join(dir, "job.sql"), filepath.Join(dir, "state")
	if err := os.MkdirAll(filepath.Join(st, "op1"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := `{"layout": 1, "job": "` + absPath(job) + `", "plan": "x", "started": "2026-01-02T03:04:05Z"}`
	writeFilesIn(t, st, map[string]string{stateMarkerName: marker})
	r := invoke("run", "--state-dir", st, job)
	if r.code != 1 || !strings.Contains(r.stderr, "in state layout 1: this streamsql reads and writes layout 2") ||
		!strings.Contains(r.stderr, "rm -r") {
		t.Fatalf("a layout 1 directory: want it refused, saying the layout and how to start over, got:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(st, "op1")); err != nil {
		t.Errorf("the refused directory was changed: %v", err)
	}
}
