package main

// Checkpointed variants (#13): a query run again with --state-dir and
// 'execution.checkpointing.interval' = '1s', to show what checkpoints cost
// (CPU per event against the unchecked run), how long they take and how
// large they are; and, for orders-4h-ckpt, the time to restore its state:
// a run stopped (SIGINT, a last checkpoint) once it holds about a million
// rows in state, then resumed.

import (
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ckptRuns are the checkpointed copies of queries, appended to queries.
var ckptRuns = []struct {
	base     string
	interval string
	restore  bool
	note     string
}{
	{"orders-4h", "1s", true, "nearly every order and shipment waits in state (1.6M rows at the end): each checkpoint " +
		"writes the state that changed since the barrier's view; the restore step stops a run once ~1M rows are in state " +
		"and resumes it."},
	{"q20", "1s", false, "the regular join's rows are checkpointed every second."},
}

func init() {
	for _, cr := range ckptRuns {
		i := slices.IndexFunc(queries, func(q query) bool { return q.name == cr.base })
		q := queries[i]
		q.name, q.checkpoint, q.restore = cr.base+"-ckpt", cr.interval, cr.restore
		q.note = fmt.Sprintf("%s with --state-dir and 'execution.checkpointing.interval' = '%s': %s", cr.base, cr.interval, cr.note)
		queries = append(queries, q)
	}
}

// progressCkptRE is the checkpoint of a progress line: id, size, duration.
var progressCkptRE = regexp.MustCompile(`; checkpoint (\d+) \([^,]+ ago, ([0-9.]+) (B|KB|MB|GB), (\d+) ms\)`)

// restoredRE is the line of a resumed run saying how long the restore took.
var restoredRE = regexp.MustCompile(`checkpoint (\d+) restored in (\d+) ms`)

var rowsInRE = regexp.MustCompile(`: (\d+) rows in, `)

func parseBytes(num, unit string) float64 {
	f, _ := strconv.ParseFloat(num, 64)
	switch unit {
	case "KB":
		f *= 1 << 10
	case "MB":
		f *= 1 << 20
	case "GB":
		f *= 1 << 30
	}
	return f
}

// ckptStats reads the checkpoints a run's progress lines show: how many
// completed (the last id), and the largest with its duration.
func ckptStats(out string, r *Run) {
	for _, m := range progressCkptRE.FindAllStringSubmatch(out, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		size := parseBytes(m[2], m[3])
		ms, _ := strconv.ParseFloat(m[4], 64)
		r.Checkpoints = max(r.Checkpoints, id)
		if size >= r.CkptPeakMB*(1<<20) {
			r.CkptPeakMB, r.CkptPeakMS = size/(1<<20), ms
		}
	}
}

// measureRestore runs the checkpointed job, stops it with SIGINT (a last
// checkpoint) once half its events are read and a checkpoint completed,
// and runs it again from that checkpoint: it returns the resumed run's
// "restored in" time, the state rows the stopped run held, and the size of
// the checkpoint.
func measureRestore(c config, bin, job string, q query, logPath string) (restoreMS float64, rows int64, err error) {
	stateDir, err := os.MkdirTemp(c.dir, q.name+"-restore-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(stateDir)
	args := []string{"run", "--set", "parallelism=" + strconv.Itoa(c.parallelism), "--state-dir", stateDir,
		"--set", "execution.checkpointing.interval=" + q.checkpoint, filepath.Base(job)}
	cmd := osexec.Command(bin, args...)
	cmd.Dir = filepath.Dir(job)
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	half := q.events(c) / 2
	stopped := false
	for !stopped {
		select {
		case err := <-exited:
			_ = os.WriteFile(logPath, []byte(stderr.String()), 0o644)
			return 0, 0, fmt.Errorf("the job ended (%w) before it read half its input with a checkpoint taken", err)
		case <-time.After(200 * time.Millisecond):
		}
		out := stderr.String()
		m := rowsInRE.FindAllStringSubmatch(out, -1)
		if len(m) == 0 || !progressCkptRE.MatchString(out) {
			continue
		}
		if n, _ := strconv.ParseInt(m[len(m)-1][1], 10, 64); n >= half {
			_ = cmd.Process.Signal(os.Interrupt)
			stopped = true
		}
	}
	if err := <-exited; err == nil {
		return 0, 0, errors.New("the stopped run exited 0: it was not stopped")
	}
	first := stderr.String()
	if !strings.Contains(first, "the next run with --state-dir") {
		_ = os.WriteFile(logPath, []byte(first), 0o644)
		return 0, 0, fmt.Errorf("the stopped run took no last checkpoint")
	}
	for _, m := range stateRowsRE.FindAllStringSubmatch(first, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		rows += n
	}
	cmd = osexec.Command(bin, args...)
	cmd.Dir = filepath.Dir(job)
	stderr2 := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr2
	err = cmd.Run()
	_ = os.WriteFile(logPath, []byte(first+"\n--- resumed:\n"+stderr2.String()), 0o644)
	if err != nil {
		return 0, rows, fmt.Errorf("the resumed run: %w", err)
	}
	m := restoredRE.FindStringSubmatch(stderr2.String())
	if m == nil {
		return 0, rows, fmt.Errorf("the resumed run did not say it restored a checkpoint")
	}
	ms, _ := strconv.ParseFloat(m[2], 64)
	return ms, rows, nil
}

var stateRowsRE = regexp.MustCompile(`(?m)^\s+\S.*\bstate rows (\d+) \(peak`)

// printCkptTable prints the checkpointed queries beside their unchecked
// runs.
func printCkptTable(w io.Writer, rep Report) {
	some := false
	for _, r := range rep.Results {
		some = some || r.Checkpoints > 0
	}
	if !some {
		return
	}
	fmt.Fprintln(w, "Checkpointed runs ('execution.checkpointing.interval' = '1s', --state-dir on the same disk), against the run without:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| query | checkpoints | largest checkpoint MB | its duration ms | CPU µs/event | unchecked CPU µs/event | CPU vs unchecked | restore ms (state rows) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rep.Results {
		if r.Checkpoints == 0 {
			continue
		}
		base := strings.TrimSuffix(r.Query, "-ckpt")
		bcpu, diff := "—", "—"
		for _, b := range rep.Results {
			if b.Query == base && b.CPUUsPerEvent > 0 {
				bcpu = fmt.Sprintf("%.2f", b.CPUUsPerEvent)
				diff = fmt.Sprintf("%+.1f%%", 100*(r.CPUUsPerEvent-b.CPUUsPerEvent)/b.CPUUsPerEvent)
			}
		}
		restore := "—"
		if r.RestoreMS > 0 {
			restore = fmt.Sprintf("%.0f (%s)", r.RestoreMS, group(float64(r.RestoreRows)))
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.0f | %.2f | %s | %s | %s |\n", r.Query, r.Checkpoints, r.CkptPeakMB, r.CkptPeakMS,
			r.CPUUsPerEvent, bcpu, diff, restore)
	}
	fmt.Fprintln(w)
}
