package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deadLetterJob is the windowed scenario's input through an OVER
// aggregate, its late rows to out/late.jsonl; %s is the checkpoint
// interval.
const deadLetterJob = `SET 'execution.checkpointing.interval' = '%s';
CREATE TABLE c (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'c.json', 'format' = 'json', 'scan.late-rows.path' = 'out/late.jsonl');
CREATE TABLE ov (k INT, v INT, ts TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'out/ov.json', 'format' = 'json');
INSERT INTO ov SELECT k, v, ts, COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM c;
`

// TestDeadLettersStartOverAfterKill: a run killed (SIGKILL) before its
// first checkpoint has written late rows; the next run with the same
// --state-dir starts over and cuts the dead-letter file back to its length
// at the first start (DEAD-LETTERS-START.json, which survives the
// emptying of the directory), so each late row is in it once.
func TestDeadLettersStartOverAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job three times")
	}
	dir := t.TempDir()
	windowedInputs(t, dir, 60000)
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(deadLetterJob, "1h")), 0o644); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(dir, "out", "late.jsonl")
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	want := fileLinesSorted(t, dead)
	if err := os.Remove(dead); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "state")
	cmd, _, stderr := startRun(t, "--state-dir", st, job)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Kill it once it has written late rows.
	for killed := false; !killed; {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before it wrote a late row:\n%s", err, stderr.String())
		case <-time.After(time.Millisecond):
		}
		if info, err := os.Stat(dead); err == nil && info.Size() > 0 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			if err := <-exited; err == nil {
				t.Fatalf("the run ended on its own before the kill came:\n%s", stderr.String())
			}
			killed = true
		}
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the run was not killed: %v\n%s", cmd.ProcessState, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(st, "DEAD-LETTERS-START.json")); err != nil {
		t.Fatalf("the killed run left no DEAD-LETTERS-START.json: %v", err)
	}
	r := invoke("run", "--state-dir", st, job)
	if r.code != 0 || !strings.Contains(r.stderr, "starting from the beginning") {
		t.Fatalf("the run after the kill: want it to start over and finish, got:\n%s", r)
	}
	if got := fileLinesSorted(t, dead); !slices.Equal(got, want) {
		missing, extra := diffMultiset(want, got)
		t.Fatalf("the dead-letter file after starting over: %d lines, want %d; missing %d, extra %d (e.g. %q)",
			len(got), len(want), len(missing), len(extra), first(extra))
	}
}

// TestDeadLettersCutBackRefused: a dead-letter file shorter than its
// length at the checkpoint a run resumes from stops the run with an error
// naming the file and how to start over (docs/runtime.md's message).
func TestDeadLettersCutBackRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a job")
	}
	dir := t.TempDir()
	windowedInputs(t, dir, 200000)
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(deadLetterJob, "20ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "state")
	late := filepath.Join(dir, "out", "late.jsonl")
	// The run must complete a checkpoint after it wrote a late row (one
	// whose dead-letter length is more than 0 bytes). It is stopped with
	// Ctrl-C once the file holds a row, and Ctrl-C takes a last checkpoint:
	// a run left to end by itself need not have completed one in time
	// (under load its 20 ms checkpoints could all race the end of input).
	// The first late row comes after 1,500 of the 200,000 rows.
	cmd, _, stderr := startRun(t, "--state-dir", st, job)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var before int // the newest checkpoint when the late row was there
	var stopped error
	select {
	case <-afterBytes(late):
		before = latestComplete(st)
		_ = cmd.Process.Signal(os.Interrupt)
		stopped = <-exited
	case err := <-exited:
		t.Fatalf("the run ended (%v) before it wrote a late row:\n%s", err, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 && code != 0 {
		t.Fatalf("the run stopped with Ctrl-C: want exit 130 (or 0 had it ended first), got %d (%v):\n%s", code, stopped, stderr.String())
	}
	if latestComplete(st) <= before {
		t.Fatalf("the run completed no checkpoint after it wrote a late row (the newest is %d, as before):\n%s", before, stderr.String())
	}
	dead, err := filepath.Abs(filepath.Join(dir, "out", "late.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(dead, 0); err != nil {
		t.Fatal(err)
	}
	r := invoke("run", "--state-dir", st, job)
	msg := fmt.Sprintf("dead-letter file %s holds 0 bytes, fewer than the ", dead)
	if r.code != 1 || !strings.Contains(r.stderr, msg) || !strings.Contains(r.stderr, "it was changed outside the job") ||
		!strings.Contains(r.stderr, "rm -r "+st) || strings.Contains(r.stderr, "panic") {
		t.Fatalf("a dead-letter file cut back below the checkpoint's length: want the run refused with %q…, got:\n%s", msg, r)
	}
}
