package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
)

// rescaleJob writes three sinks from the two crash inputs: an interval
// join, a regular join (unbounded state, one partner per key) and a
// tumbling window aggregate. None of their outputs depends on how the two
// inputs interleave (the files have no disorder and the watermark delay
// covers the skew between them), so a run resumed from a checkpoint must
// write the clean run's lines, as a multiset, at any parallelism. The
// parallelism comes from --set.
const rescaleJob = `SET 'execution.checkpointing.interval' = '%s';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE ij (id INT, v INT, w INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out/ij.json', 'format' = 'json');
CREATE TABLE rj (v INT, aid INT, bid INT)
  WITH ('connector' = 'filesystem', 'path' = 'out/rj.json', 'format' = 'json');
CREATE TABLE wa (ws TIMESTAMP(3), id INT, n BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/wa.json', 'format' = 'json');
INSERT INTO ij SELECT a.id, v, w, a.ts FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
INSERT INTO rj SELECT v, a.id, b.id FROM a JOIN b ON a.v = b.w;
INSERT INTO wa SELECT window_start, id, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, id;
`

var rescaleSinks = []string{"ij", "rj", "wa"}

// TestRescaleResume: a job killed (SIGKILL) after a checkpoint at one
// parallelism resumes at another, its keyed state split again by key
// group, and writes the clean run's lines: P=4 to 1 and 2, and 1 and 2 to
// 4.
func TestRescaleResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job several times")
	}
	dir := t.TempDir()
	rows := 20000
	crashInputs(t, dir, rows)
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(rescaleJob, "10ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := invoke("run", "--set", "parallelism=3", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	want := map[string][]string{}
	for _, s := range rescaleSinks {
		want[s] = fileLinesSorted(t, filepath.Join(dir, "out", s+".json"))
		if len(want[s]) < 1000 {
			t.Fatalf("the clean run wrote only %d rows to %s", len(want[s]), s)
		}
	}
	for _, pq := range [][2]int{{4, 1}, {4, 2}, {1, 4}, {2, 4}} {
		t.Run(fmt.Sprintf("P%d-to-P%d", pq[0], pq[1]), func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
				t.Fatal(err)
			}
			st := filepath.Join(dir, fmt.Sprintf("state-%d-%d", pq[0], pq[1]))
			if !killAfterCheckpoint(t, st, job, pq[0]) {
				t.Skip("the job ended before a checkpoint with state")
			}
			// The checkpoint holds state to split: the joins' rows and the
			// open windows, in pq[0] parts per operator.
			stateBytes, c := checkpointState(st)
			if c == nil || c.Parallelism != pq[0] || c.MaxParallelism != 128 || stateBytes < 4096 {
				t.Fatalf("checkpoint %d: parallelism %d, max parallelism %d, %d bytes of state: want %d, 128 and some state",
					c.ID, c.Parallelism, c.MaxParallelism, stateBytes, pq[0])
			}
			r := invoke("run", "--state-dir", st, "--set", fmt.Sprintf("parallelism=%d", pq[1]), job)
			if r.code != 0 || !strings.Contains(r.stderr, "resuming from checkpoint") {
				t.Fatalf("resumed run at parallelism %d: want it resumed from the checkpoint, got:\n%s", pq[1], r)
			}
			for _, s := range rescaleSinks {
				got := fileLinesSorted(t, filepath.Join(dir, "out", s+".json"))
				if !slices.Equal(got, want[s]) {
					missing, extra := diffMultiset(want[s], got)
					t.Errorf("%s: %d rows, want %d; missing %d (e.g. %q), extra %d (e.g. %q)",
						s, len(got), len(want[s]), len(missing), first(missing), len(extra), first(extra))
				}
			}
		})
	}

	// The key groups cannot change: a checkpoint taken with 128 is refused
	// to a job with 64, saying what to do; and a parallelism above the
	// key groups is refused.
	st := filepath.Join(dir, "state-4-1")
	if _, c := checkpointState(st); c != nil {
		r := invoke("run", "--state-dir", st, "--set", "pipeline.max-parallelism=64", job)
		if r.code != 1 || !strings.Contains(r.stderr, "was taken with 'pipeline.max-parallelism' = 128 and the job now has 64") ||
			!strings.Contains(r.stderr, "set 'pipeline.max-parallelism' = '128' to resume") {
			t.Errorf("another max parallelism: want it refused, got:\n%s", r)
		}
	}
	r := invoke("run", "--set", "parallelism=8", "--set", "pipeline.max-parallelism=4", job)
	if r.code != 1 || !strings.Contains(r.stderr, "'parallelism' = 8 is more than 'pipeline.max-parallelism' = 4") {
		t.Errorf("parallelism above max parallelism: want it refused, got:\n%s", r)
	}
}

// killAfterCheckpoint runs job with --state-dir st at parallelism p and
// kills it with SIGKILL once a checkpoint holding some keyed state has
// completed. It reports false when the job ended first.
func killAfterCheckpoint(t *testing.T, st, job string, p int) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "run", "--state-dir", st, "--set", fmt.Sprintf("parallelism=%d", p), job)
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-afterStateCheckpoint(st, 4096):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := <-exited; err == nil {
			return false // it ended before the kill came
		}
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return ok && ws.Signaled()
	case err := <-exited:
		if err != nil {
			t.Fatalf("run at parallelism %d failed: %v\n%s", p, err, stderr.String())
		}
		return false
	}
}

// afterStateCheckpoint fires once a complete checkpoint in st holds at
// least size bytes of operator state (polling: the checkpoints are written
// by another process).
func afterStateCheckpoint(st string, size int64) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if n, _ := checkpointState(st); n >= size {
				close(ch)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ch
}

// checkpointState is the size of the operator state in the latest complete
// checkpoint in st (0 when there is none yet).
func checkpointState(st string) (int64, *checkpoint.Checkpoint) {
	if latestComplete(st) == 0 {
		return 0, nil
	}
	d, err := checkpoint.Open(st, checkpoint.Options{Retained: 1})
	if err != nil {
		return 0, nil
	}
	c, _, err := d.Latest()
	if err != nil || c == nil {
		return 0, nil
	}
	var n int64
	for _, p := range c.Parts {
		if strings.HasSuffix(p.Name, ".state") || strings.Contains(p.Name, ".delta.") {
			n += p.Size
		}
	}
	return n, c
}
