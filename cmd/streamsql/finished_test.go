package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
)

// finishedJob: a small file copied to one sink and aggregated into
// another ends long before the interval join of the two crash inputs into
// a third does.
const finishedJob = `SET 'execution.checkpointing.interval' = '%s';
CREATE TABLE small (id INT, v INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'small.json', 'format' = 'json');
CREATE TABLE s (id INT, v INT)
  WITH ('connector' = 'filesystem', 'path' = 'out/s.json', 'format' = 'json');
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
CREATE TABLE o (id INT, v INT, w INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out/o.json', 'format' = 'json');
CREATE TABLE g (k INT, n BIGINT, sv BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/g.json', 'format' = 'debezium-json');
INSERT INTO s SELECT id, v FROM small;
INSERT INTO g SELECT id %% 5, COUNT(*), SUM(v) FROM small GROUP BY id %% 5;
INSERT INTO o SELECT a.id, v, w, a.ts FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`

// TestCheckpointsAfterASourceEnds: once the small file has been read to
// its end (and its sinks and the aggregate have finished), the job goes on
// checkpointing; a run killed after such a checkpoint resumes, at another
// parallelism, without reading the small file again, and every sink holds
// the clean run's rows.
func TestCheckpointsAfterASourceEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job several times")
	}
	dir := t.TempDir()
	crashInputs(t, dir, 40000)
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, `{"id": %d, "v": %d, "ts": "2026-01-01 00:00:00"}`+"\n", i, i*i)
	}
	writeFilesIn(t, dir, map[string]string{"small.json": sb.String(), "job.sql": fmt.Sprintf(finishedJob, "10ms")})
	job := filepath.Join(dir, "job.sql")
	if r := invoke("run", "--set", "parallelism=2", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	want := map[string][]string{}
	for _, s := range []string{"s", "g", "o"} {
		want[s] = fileLinesSorted(t, filepath.Join(dir, "out", s+".json"))
	}
	if len(want["s"]) != 50 || len(want["g"]) < 5 || len(want["o"]) < 1000 {
		t.Fatalf("the clean run wrote %d, %d and %d rows", len(want["s"]), len(want["g"]), len(want["o"]))
	}
	if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}

	st := filepath.Join(dir, "state")
	cmd := exec.Command(os.Args[0], "run", "--state-dir", st, "--set", "parallelism=2", job)
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var c *checkpoint.Checkpoint
	select {
	case c = <-afterEndedCheckpoint(st, "small"):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := <-exited; err == nil {
			t.Skip("the job ended before the kill")
		}
	case err := <-exited:
		// It checkpoints every 10 ms and runs far longer than the small
		// file takes to read.
		t.Fatalf("the job ended (%v) and took no checkpoint after the small file's end:\n%s", err, stderr.String())
	}
	if c == nil {
		t.Fatalf("no checkpoint was taken after the small file ended:\n%s", stderr.String())
	}
	r := invoke("run", "--state-dir", st, "--set", "parallelism=3", job)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming from checkpoint") {
		t.Fatalf("resumed run: want it resumed from the checkpoint, got:\n%s", r)
	}
	if !regexp.MustCompile(`source small +0 rows`).MatchString(r.stderr) {
		t.Errorf("the resumed run read the ended file again:\n%s", r.stderr)
	}
	for _, s := range []string{"s", "g", "o"} {
		got := fileLinesSorted(t, filepath.Join(dir, "out", s+".json"))
		if !slices.Equal(got, want[s]) {
			missing, extra := diffMultiset(want[s], got)
			t.Errorf("%s: %d rows, want %d; missing %d (e.g. %q), extra %d (e.g. %q)",
				s, len(got), len(want[s]), len(missing), first(missing), len(extra), first(extra))
		}
	}
}

// afterEndedCheckpoint sends the first complete checkpoint in st in which
// the source table has ended (its part says so) and the job has read some
// of its other input; nil after a minute.
func afterEndedCheckpoint(st, table string) <-chan *checkpoint.Checkpoint {
	ch := make(chan *checkpoint.Checkpoint, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if n, c := checkpointState(st); c != nil && n > 0 {
				for _, o := range c.Operators {
					if o.Kind != "Source" || o.Describe != table {
						continue
					}
					data, err := c.ReadPart(o.ID + ".src")
					var s struct {
						Ended bool `json:"ended"`
					}
					if err == nil && json.Unmarshal(data, &s) == nil && s.Ended {
						ch <- c
						return
					}
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		ch <- nil
	}()
	return ch
}
