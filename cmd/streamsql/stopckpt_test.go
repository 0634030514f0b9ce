package main

import (
	"bytes"
	"fmt"
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
)

// inFlight returns the id of a checkpoint being written in st (a chk-N
// directory without a MANIFEST, newer than the latest complete one, which
// is at least 1), or 0.
func inFlight(st string) int {
	done := latestComplete(st)
	if done == 0 {
		return 0
	}
	dirs, _ := filepath.Glob(filepath.Join(st, "checkpoints", "chk-*"))
	for _, d := range dirs {
		id, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "chk-"))
		if err != nil || id <= done {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "MANIFEST")); os.IsNotExist(err) {
			return id
		}
	}
	return 0
}

var summarySourceRE = regexp.MustCompile(`(?m)^  source (\w+)\s+(\d+) rows`)

// sourceRows is what a run's summary says each source read.
func sourceRows(stderr string) map[string]int {
	rows := map[string]int{}
	for _, m := range summarySourceRE.FindAllStringSubmatch(stderr, -1) {
		n, _ := strconv.Atoi(m[2])
		rows[m[1]] += n
	}
	return rows
}

// TestStopDuringCheckpoint: Ctrl-C (SIGINT) while a periodic checkpoint is
// being written finishes that one, takes the last one after it (no
// periodic one starts in between), and exits; the next run resumes from
// the last one and reads none of what the stopped run read (each source's
// rows over both runs are its file's), and the output is the clean run's.
func TestStopDuringCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job several times")
	}
	const n = 300000
	dir := t.TempDir()
	crashInputs(t, dir, n)
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(crashJob, "100ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "o.json")
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	want := fileLinesSorted(t, out)

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
	flying := 0
	deadline := time.Now().Add(time.Minute)
	for flying == 0 {
		select {
		case err := <-exited:
			t.Skipf("the job ended (%v) before a checkpoint was caught being written", err)
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("no checkpoint was caught being written in a minute")
		}
		flying = inFlight(st)
	}
	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	if err := <-exited; err == nil {
		t.Error("the stopped job exited 0")
	}
	took := time.Since(sent)
	t.Logf("SIGINT while checkpoint %d was being written: exited after %s", flying, took.Round(time.Millisecond))
	m := regexp.MustCompile(`checkpoint (\d+) taken: the next run`).FindStringSubmatch(stderr.String())
	if cmd.ProcessState.ExitCode() != 130 || m == nil {
		t.Fatalf("SIGINT: want exit 130 and a last checkpoint, got exit %d:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	if last, _ := strconv.Atoi(m[1]); last <= flying {
		t.Fatalf("the last checkpoint is %d, not one after the one being written (%d):\n%s", last, flying, stderr.String())
	}
	first := sourceRows(stderr.String())

	r := invoke("run", "--state-dir", st, job)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming from checkpoint "+m[1]) {
		t.Fatalf("the job again: want it resumed from checkpoint %s, got:\n%s", m[1], r)
	}
	second := sourceRows(r.stderr)
	for _, src := range []string{"a", "b"} {
		if first[src]+second[src] != n {
			t.Errorf("source %s read %d rows before the stop and %d after, of %d: the stop's last checkpoint is not where the run stopped reading",
				src, first[src], second[src], n)
		}
	}
	if got := fileLinesSorted(t, out); !slices.Equal(got, want) {
		t.Fatalf("stopped and resumed: %d rows, the clean run %d", len(got), len(want))
	}
}
