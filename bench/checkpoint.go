package main

// Checkpointed variants (#13): a query run again with --state-dir and
// 'execution.checkpointing.interval' = '1s', to show what checkpoints cost
// (CPU per event against the unchecked run), how long they take and how
// large they are; and, for orders-4h-ckpt, the time to restore its state:
// a run killed once it checkpointed about a million rows of state, then
// resumed.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
)

// ckptRuns are the checkpointed copies of queries, appended to queries.
var ckptRuns = []struct {
	base     string
	interval string
	restore  bool
	note     string
}{
	{"orders-4h", "1s", true, "nearly every order and shipment waits in state (1.6M rows at the end): each checkpoint " +
		"writes the keys changed since the one before (incremental); the restore step stops a run once ~1M rows are in state " +
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

// progressCkptRE is the checkpoint of a progress line: id, size, what an
// incremental one wrote, duration.
var progressCkptRE = regexp.MustCompile(`; checkpoint (\d+) \([^,]+ ago, ([0-9.]+) (B|KB|MB|GB)(?:, ([0-9.]+) (B|KB|MB|GB) written)?, (\d+) ms\)`)

// restoredRE is the line of a resumed run saying how long the restore took.
var restoredRE = regexp.MustCompile(`checkpoint (\d+) restored in (\d+) ms(?: \((\d+) ms of CPU\))?`)

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
	seen := map[string]bool{}
	var incMS []float64
	for _, m := range progressCkptRE.FindAllStringSubmatch(out, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		size := parseBytes(m[2], m[3])
		ms, _ := strconv.ParseFloat(m[6], 64)
		r.Checkpoints = max(r.Checkpoints, id)
		if size >= r.CkptPeakMB*(1<<20) {
			r.CkptPeakMB, r.CkptPeakMS = size/(1<<20), ms
		}
		if seen[m[1]] {
			continue // a checkpoint shows in every progress line until the next
		}
		seen[m[1]] = true
		if m[4] == "" {
			r.CkptFullN++
			continue
		}
		r.CkptIncN++
		r.CkptIncMB = max(r.CkptIncMB, parseBytes(m[4], m[5])/(1<<20))
		incMS = append(incMS, ms)
	}
	if len(incMS) > 0 {
		slices.Sort(incMS)
		r.CkptIncMS = incMS[len(incMS)/2]
	}
}

// measureRestore runs the checkpointed job, kills it (SIGKILL) once a
// checkpoint completed after half its events were read, and runs it again
// from its latest checkpoint: it returns the resumed run's "restored in"
// time, and the rows the killed run had read when that checkpoint's
// barrier passed (at most 1 s before it: nearly all of them wait in
// orders-4h's state) — the events less what the resumed run reads.
// (SIGINT is no good here: its last checkpoint waits for the one being
// taken, and a bounded input may have ended by then.)
func measureRestore(c config, bin, job string, q query, logPath string) (restoreMS, restoreCPUMS float64, rows int64, err error) {
	stateDir, err := os.MkdirTemp(c.dir, q.name+"-restore-")
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.RemoveAll(stateDir)
	if stateDir, err = filepath.Abs(stateDir); err != nil { // the job runs in the job file's directory
		return 0, 0, 0, err
	}
	args := []string{"run", "--set", "parallelism=" + strconv.Itoa(c.parallelism), "--state-dir", stateDir,
		"--set", "execution.checkpointing.interval=" + q.checkpoint, filepath.Base(job)}
	// The first run serves /metrics (rowsRead); the resumed one, measured, does not.
	cmd := osexec.Command(bin, slices.Insert(slices.Clone(args), 1, "--http", "127.0.0.1:0")...)
	cmd.Dir = filepath.Dir(job)
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The run is killed at the first checkpoint that completes after it
	// read three quarters of its input (its rows from /metrics, polled
	// every 20 ms; the progress lines come every 2 s, too seldom on a fast
	// machine), the moment that checkpoint's manifest is on disk: late
	// enough that nearly a million keys wait in state, early enough that
	// the input has not ended (an ended input's watermark empties the
	// state).
	threshold := q.events(c) * 3 / 4
	base := int64(-1) // the latest completed checkpoint when the threshold was passed
	for killed := false; !killed; {
		select {
		case err := <-exited:
			_ = os.WriteFile(logPath, []byte(stderr.String()), 0o644)
			if err == nil {
				return 0, 0, 0, fmt.Errorf("the job ended before a checkpoint completed after it read 3/4 of its input")
			}
			return 0, 0, 0, fmt.Errorf("the job failed (%w) before a checkpoint completed after it read 3/4 of its input", err)
		case <-time.After(20 * time.Millisecond):
		}
		if base < 0 {
			if n, ok := rowsRead(stderr); ok && n >= threshold {
				base = checkpoint.LatestComplete(stateDir)
			}
			continue
		}
		if checkpoint.LatestComplete(stateDir) > base {
			_ = cmd.Process.Kill()
			killed = true
		}
	}
	if err := <-exited; err == nil {
		return 0, 0, 0, fmt.Errorf("the job ended before it was killed")
	}
	first := stderr.String()
	cmd = osexec.Command(bin, args...)
	cmd.Dir = filepath.Dir(job)
	stderr2 := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr2
	err = cmd.Run()
	_ = os.WriteFile(logPath, []byte(first+"\n--- killed; resumed:\n"+stderr2.String()), 0o644)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("the resumed run: %w", err)
	}
	m := restoredRE.FindStringSubmatch(stderr2.String())
	if m == nil {
		return 0, 0, 0, fmt.Errorf("the resumed run did not say it restored a checkpoint")
	}
	ms, _ := strconv.ParseFloat(m[2], 64)
	cpu, _ := strconv.ParseFloat(m[3], 64)
	var again int64
	for _, m := range sourceRE.FindAllStringSubmatch(stderr2.String(), -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		again += n
	}
	return ms, cpu, q.events(c) - again, nil
}

// sourceRowsRE is a source's rows read in /metrics.
var sourceRowsRE = regexp.MustCompile(`(?m)^streamsql_source_rows_read_total\{[^}]*\} (\S+)`)

// rowsRead is the rows the job's sources read so far, from its /metrics
// (the address from its stderr); false while that is not known.
func rowsRead(stderr *lockedBuffer) (int64, bool) {
	m := webUI.FindStringSubmatch(stderr.String())
	if m == nil {
		return 0, false
	}
	resp, err := http.Get(m[1] + "metrics")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, false
	}
	var n int64
	found := false
	for _, m := range sourceRowsRE.FindAllSubmatch(body, -1) {
		v, _ := strconv.ParseFloat(string(m[1]), 64) // the text format may write 1.5e+06
		n += int64(v)
		found = true
	}
	return n, found
}

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
	fmt.Fprintln(w, "| query | checkpoints | largest checkpoint MB | its duration ms | seen whole / incremental | incremental: most written MB, median ms | CPU µs/event | unchecked CPU µs/event | CPU vs unchecked | restore ms, CPU ms (rows read before the checkpoint) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
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
			restore = fmt.Sprintf("%.0f, %.0f (%s)", r.RestoreMS, r.RestoreCPUMS, group(float64(r.RestoreRows)))
		}
		inc := "—"
		if r.CkptIncN > 0 {
			inc = fmt.Sprintf("%.1f, %.0f", r.CkptIncMB, r.CkptIncMS)
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.0f | %d / %d | %s | %.2f | %s | %s | %s |\n", r.Query, r.Checkpoints, r.CkptPeakMB, r.CkptPeakMS,
			r.CkptFullN, r.CkptIncN, inc, r.CPUUsPerEvent, bcpu, diff, restore)
	}
	fmt.Fprintln(w)
}
