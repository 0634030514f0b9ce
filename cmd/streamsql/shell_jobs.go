package main

// Running statements in the shell: a SELECT in the foreground, shown as it
// changes until it ends or Ctrl-C stops it; an INSERT INTO as a background
// job, listed by SHOW JOBS and stopped by STOP JOB.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/metrics"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
)

// resultMode is the session's 'sql-client.execution.result-mode'; a shell
// that is not on a terminal always shows tableau.
func (sh *shell) resultMode() string {
	if !sh.interactive {
		return modeTableau
	}
	switch m := sh.sess.Settings.ResultMode; m {
	case settings.ResultTable, settings.ResultChangelog:
		return string(m)
	case settings.ResultTableau, "":
	}
	return modeTableau
}

// options are the options of a job of plans, as run builds them (the
// settings of the plans' statement, the parallelism they give).
func (sh *shell) options(plans []*planner.Plan) exec.Options {
	opts := jobOptions(jobSettings(plans))
	opts.BaseDir = sh.baseDir
	opts.Stdout, opts.Stderr = sh.async, sh.stderr
	return opts
}

// runQuery runs a SELECT in the foreground until its bounded sources end,
// it fails, or Ctrl-C stops it. src is the session's text, which the
// plans' spans point into (a runtime error says where).
// stmt is the SELECT's text, shown in the web UI.
func (sh *shell) runQuery(plans []*planner.Plan, stmt string, src *diag.Source) bool {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := newView(sh.stdout, sh.resultMode(), sh.interactive)
	opts := sh.options(plans)
	opts.Source = src
	opts.QuerySink = func(_ string, cols []connector.Column) connector.Sink { return v.sink(cols) }
	job, err := buildJob(ctx, plans, opts)
	if err != nil {
		fmt.Fprintf(sh.stderr, "[ERROR] The query cannot run: %v\n", err)
		return false
	}
	sh.fg.Store(&cancel)
	defer sh.fg.Store(nil)
	watched := sh.watch("", job, plans, stmt)
	v.start(job)
	err = job.Run(ctx)
	stopped := ctx.Err() != nil
	switch {
	case stopped:
		watched.SetState(metrics.Canceled)
	case err != nil:
		watched.SetState(metrics.Failed)
	default:
		watched.SetState(metrics.Finished)
	}
	werr := v.finish(stopped)
	if err != nil && (!stopped || !errors.Is(err, context.Canceled)) {
		fmt.Fprintf(sh.stderr, "[ERROR] The query failed: %v\n", err)
		return false
	}
	if werr != nil {
		fmt.Fprintf(sh.stderr, "[ERROR] The query result could not be written: %v\n", werr)
		return false
	}
	return true
}

// Job states, as SHOW JOBS prints them.
const (
	jobRunning  = "RUNNING"
	jobFinished = "FINISHED"
	jobFailed   = "FAILED"
	jobCanceled = "CANCELED"
)

// bgJob is one INSERT running in the background.
type bgJob struct {
	id     string
	stmt   string
	job    *exec.Job
	cancel context.CancelFunc
	done   chan struct{}
	start  time.Time

	mu      sync.Mutex
	state   string
	err     error
	stopped bool
}

func (j *bgJob) status() (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state, j.err
}

// stop cancels the job and waits for it to end; it reports whether it was
// running.
func (j *bgJob) stop() bool {
	j.mu.Lock()
	running := j.state == jobRunning
	if running {
		j.stopped = true
	}
	j.mu.Unlock()
	j.cancel()
	<-j.done
	return running
}

// jobList is the shell's background jobs, in submission order.
type jobList struct {
	mu   sync.Mutex
	list []*bgJob
	next int
}

func (l *jobList) add(j *bgJob) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	j.id = strconv.Itoa(l.next)
	l.list = append(l.list, j)
}

func (l *jobList) all() []*bgJob {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*bgJob(nil), l.list...)
}

func (l *jobList) find(id string) *bgJob {
	for _, j := range l.all() {
		if j.id == id {
			return j
		}
	}
	return nil
}

// stopAll stops every running job and returns how many were running.
func (l *jobList) stopAll() int {
	n := 0
	for _, j := range l.all() {
		if j.stop() {
			n++
		}
	}
	return n
}

// waitAll waits for every job to end (a non-interactive shell at the end
// of its input). Ctrl-C stops them.
func (l *jobList) waitAll(w io.Writer) {
	running := 0
	for _, j := range l.all() {
		if s, _ := j.status(); s == jobRunning {
			running++
		}
	}
	if running > 0 {
		fmt.Fprintf(w, "[INFO] Waiting for %s to finish (Ctrl-C stops %s).\n", plural(running, "running job"),
			map[bool]string{true: "it", false: "them"}[running == 1])
	}
	for _, j := range l.all() {
		<-j.done
	}
}

// show prints SHOW JOBS.
func (l *jobList) show(w io.Writer) {
	t := textTable{header: []string{"id", "statement", "state", "rows in", "rows out", "watermark"}, right: []bool{false, false, false, true, true, false},
		min: []int{2, 0, len(jobCanceled), 7, 8, len("2006-01-02 15:04:05.000")}}
	for _, j := range l.all() {
		state, _ := j.status()
		in, out, wm := jobCounters(j.job)
		t.add(j.id, shorten(j.stmt, 48), state, strconv.FormatInt(in, 10), strconv.FormatInt(out, 10), wm)
	}
	if len(t.rows) == 0 {
		fmt.Fprintln(w, "[INFO] No jobs. INSERT INTO submits one.")
		return
	}
	t.write(w)
}

// jobCounters sums a job's rows in (read by its sources) and out (written
// by its sinks) and gives the lowest watermark its sinks have seen.
func jobCounters(job *exec.Job) (in, out int64, wm string) {
	low := exec.MaxWatermark
	for _, s := range job.Sources {
		in += s.In.Load()
	}
	for _, s := range job.Sinks {
		out += s.Out.Load()
		low = min(low, s.Watermark.Load())
	}
	if len(job.Sinks) == 0 {
		low = exec.MinWatermark
	}
	return in, out, exec.FormatMillis(low)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// submit starts an INSERT (or a statement set) as a background job; src
// is as for runQuery.
func (sh *shell) submit(plans []*planner.Plan, stmt string, src *diag.Source) bool {
	ctx, cancel := context.WithCancel(context.Background())
	opts := sh.options(plans)
	opts.Source = src
	job, err := buildJob(ctx, plans, opts)
	if err != nil {
		cancel()
		fmt.Fprintf(sh.stderr, "[ERROR] The job cannot run: %v\n", err)
		return false
	}
	j := &bgJob{stmt: stmt, job: job, cancel: cancel, done: make(chan struct{}), start: time.Now(), state: jobRunning}
	sh.jobs.add(j)
	watched := sh.watch(j.id, job, plans, stmt)
	// Said before the job starts: its first rows (a print sink writes to
	// the same stdout) come after the line that names it.
	fmt.Fprintf(sh.stdout, "[INFO] Submitted job %s. SHOW JOBS lists it; STOP JOB '%s' stops it.\n", j.id, j.id)
	go func() {
		defer close(j.done)
		err := job.Run(ctx)
		j.mu.Lock()
		switch {
		case j.stopped:
			j.state = jobCanceled
		case err != nil:
			j.state, j.err = jobFailed, err
		default:
			j.state = jobFinished
		}
		state := j.state
		j.mu.Unlock()
		watched.SetState(state) // the shell's states are Flink's, as the registry's
		cancel()
		switch state {
		case jobFailed:
			sh.failed.Store(true)
			fmt.Fprintf(sh.async, "[ERROR] Job %s failed: %v\n", j.id, err)
		case jobFinished:
			if sh.interactive {
				fmt.Fprintf(sh.async, "[INFO] Job %s finished.\n", j.id)
			}
		}
	}()
	return true
}

// stopJob runs STOP JOB 'id'.
func (sh *shell) stopJob(id string) bool {
	j := sh.jobs.find(id)
	if j == nil {
		fmt.Fprintf(sh.stderr, "[ERROR] No job '%s'. SHOW JOBS lists the jobs.\n", id)
		return false
	}
	if !j.stop() {
		state, _ := j.status()
		fmt.Fprintf(sh.stdout, "[INFO] Job %s is not running: it is %s.\n", id, state)
		return true
	}
	fmt.Fprintf(sh.stdout, "[INFO] Job %s stopped.\n", id)
	return true
}
