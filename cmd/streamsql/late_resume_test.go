package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Window aggregates with allowed lateness (#17) across checkpoints: their
// groups stay in state after the window fired (with a pending timer before
// it does), and a job stopped (SIGTERM, a last checkpoint) or killed
// (SIGKILL, the last complete checkpoint) and resumed must give the clean
// run's result. The input's disorder (every tenth row 20 s behind) is
// beyond the watermark's delay and within the lateness, so every row is
// aggregated however the resumed run batches its input: the result does
// not depend on the interleaving (nor, with early and late firing, on
// when processing-time timers fire).

const lateResumeJob = `SET 'execution.checkpointing.interval' = '50ms';
SET 'parallelism' = '2';
SET 'state.memory-budget' = '%s';
SET 'table.exec.emit.allow-lateness' = '1 min';
%s
CREATE TABLE a (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE o (ws TIMESTAMP(3), we TIMESTAMP(3), k INT, n BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/o.json', 'format' = '%s');
INSERT INTO o SELECT window_start, window_end, k, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k;
`

func lateResumeInputs(t *testing.T, dir string, n int) {
	t.Helper()
	var sb strings.Builder
	for i := range n {
		ms := int64(i) * 5
		if i%10 == 9 {
			ms -= 20_000 // within the minute of lateness
		}
		fmt.Fprintf(&sb, `{"k": %d, "v": %d, "ts": "%s"}`+"\n", (i*7)%31, i,
			time.UnixMilli(1767225600000+max(ms, 0)).UTC().Format("2006-01-02 15:04:05.000"))
	}
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// changelogTable applies a debezium-json file's changes and returns the
// rows left, sorted; a json file's lines are its rows.
func changelogTable(t *testing.T, path string, debezium bool) []string {
	t.Helper()
	lines := fileLinesSorted(t, path)
	if !debezium {
		return lines
	}
	bag := map[string]int{}
	for _, l := range lines {
		var m struct {
			Before, After json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if b := string(m.Before); b != "" && b != "null" {
			if bag[b]--; bag[b] < 0 {
				t.Fatalf("%s retracts a row not there", l)
			}
		}
		if a := string(m.After); a != "" && a != "null" {
			bag[a]++
		}
	}
	var out []string
	for r, n := range bag {
		for range n {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

func TestWindowLatenessResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job several times")
	}
	for _, c := range []struct {
		name, set, format, budget string
	}{
		{"lateness, spilled", "", "debezium-json", "64kb"},
		{"final-only", "SET 'table.exec.emit.final-only' = 'true';", "json", "1gb"},
		// Early and late firing on the system clock: preliminary rows and
		// delayed updates come and go with processing time (and timers
		// are not checkpointed), but the table the changelog leaves is
		// the clean run's.
		{"early and late firing, spilled", "SET 'table.exec.emit.early-fire.enabled' = 'true';\n" +
			"SET 'table.exec.emit.early-fire.delay' = '20 ms';\nSET 'table.exec.emit.late-fire.enabled' = 'true';\n" +
			"SET 'table.exec.emit.late-fire.delay' = '10 ms';", "debezium-json", "64kb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			lateResumeInputs(t, dir, 240000)
			job := filepath.Join(dir, "job.sql")
			if err := os.WriteFile(job, []byte(fmt.Sprintf(lateResumeJob, c.budget, c.set, c.format)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out", "o.json")
			deb := c.format == "debezium-json"
			begun := time.Now()
			r := invoke("run", job)
			if r.code != 0 {
				t.Fatalf("clean run:\n%s", r)
			}
			if !strings.Contains(r.stderr, "late updates") {
				t.Fatalf("the clean run took no late rows into fired windows:\n%s", r.stderr)
			}
			span := max(time.Since(begun)*8/10, 300*time.Millisecond)
			want := changelogTable(t, out, deb)
			// 240000 rows 5 ms apart: 120 windows of 10 s, 31 keys each.
			if len(want) != 120*31 {
				t.Fatalf("the clean run's table has %d rows, want %d", len(want), 120*31)
			}
			if err := os.Remove(out); err != nil {
				t.Fatal(err)
			}

			// Stopped after a checkpoint (SIGTERM takes a last one), then
			// resumed.
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
			stopped := false
			select {
			case <-afterCheckpoint(st, 0, 0):
				_ = cmd.Process.Signal(syscall.SIGTERM)
				if err := <-exited; err == nil {
					t.Error("the stopped job exited 0")
				}
				stopped = true
			case err := <-exited:
				t.Logf("the job ended (%v) before its first checkpoint", err)
			}
			if stopped {
				r = invoke("run", "--state-dir", st, job)
				if r.code != 0 || !strings.Contains(r.stderr, "resuming from checkpoint") {
					t.Fatalf("after SIGTERM: want the job resumed, got:\n%s\n(the stopped run said:\n%s)", r, stderr.String())
				}
			}
			if got := changelogTable(t, out, deb); !slices.Equal(got, want) {
				missing, extra := diffMultiset(want, got)
				t.Fatalf("stopped and resumed: %d rows, the clean run %d; missing %d (e.g. %q), extra %d (e.g. %q)",
					len(got), len(want), len(missing), first(missing), len(extra), first(extra))
			}
			if err := os.RemoveAll(st); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(out); err != nil {
				t.Fatal(err)
			}

			// Killed twice at random moments, then run to the end.
			seed := uint64(time.Now().UnixNano())
			t.Logf("kill timing seed %d", seed)
			killed, resumed, _ := crashRuns(t, rand.New(rand.NewPCG(seed, 13)), job, st, 2, span)
			if got := changelogTable(t, out, deb); !slices.Equal(got, want) {
				missing, extra := diffMultiset(want, got)
				t.Fatalf("after %d kills (%d resumed): %d rows, the clean run %d; missing %d (e.g. %q), extra %d (e.g. %q)",
					killed, resumed, len(got), len(want), len(missing), first(missing), len(extra), first(extra))
			}
			if !stopped && resumed == 0 {
				t.Skip("the job ended before any checkpoint: nothing was resumed")
			}
		})
	}
}
