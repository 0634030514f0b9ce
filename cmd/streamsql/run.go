package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	runtimemetrics "runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/metrics"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/web"

	// Connector runtimes register themselves.
	_ "github.com/streamsql/streamsql/connectors/blackhole"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	_ "github.com/streamsql/streamsql/connectors/faker"
	_ "github.com/streamsql/streamsql/connectors/filesystem"
	_ "github.com/streamsql/streamsql/connectors/jdbc"
	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/connectors/nexmark"
	_ "github.com/streamsql/streamsql/connectors/print"
)

var runCmd = &command{
	name:    "run",
	summary: "execute a job; bounded jobs exit 0 when done",
	help: `usage: streamsql run [--state-dir DIR] [--http ADDR] [--set key=value]... FILE.sql

Run plans the job in FILE.sql and executes it: it reads the sources, keeps
operator state (joins, aggregations), and writes every INSERT INTO to its
sink; every INSERT and SELECT of the file runs together, as one job. A SELECT
prints its changes (+I, -U, +U, -D) on stdout; with several SELECTs, each line
starts with the query's name ("query 2> "). A job whose sources are all
bounded (files, datagen with 'number-of-rows') ends with a final watermark
that fires every timer and flushes every buffered row, and exits 0.

The job is checked first, exactly as 'streamsql check' checks it: a job with
errors is not run. While it runs, a progress line on stderr shows rows in and
out and where event time stands; at the end a summary lists every source,
operator and sink with its rows, late rows and watermark. Ctrl-C (SIGINT) or
SIGTERM stops it: the sinks flush what they were given, the summary is
printed, and run says "stopped"; a second Ctrl-C stops at once, without
flushing.

Flags:
  --state-dir DIR     directory for operator state and checkpoints (state
                      beyond 'state.memory-budget', default 1gb, spills there;
                      without it, a temporary directory is used only if state
                      spills, and no checkpoints are taken). The job checkpoints
                      into DIR every 'execution.checkpointing.interval' (10s),
                      and a run on a DIR this job used resumes from its latest
                      complete checkpoint; Ctrl-C takes a last one. Another
                      job's DIR is refused (remove it to start over)
  --http ADDR         serve Prometheus metrics at /metrics and a web UI at /
                      on ADDR (HOST:PORT, or PORT alone for 127.0.0.1:PORT;
                      port 0 picks a free one); SET 'rest.address' and
                      'rest.port' do the same. It listens on every interface
                      only when asked to (0.0.0.0:PORT). docs/metrics.md
                      lists the metrics
  --set key=value     a configuration setting, as SET 'key' = 'value' at the
                      top of the file would make it; repeat for several

Exit status:
  0    the job finished (bounded sources only)
  1    the job has errors, or failed while running
  2    usage error, or FILE.sql could not be read
  130  stopped by Ctrl-C (SIGINT); 143 by SIGTERM

Relative paths in the job's tables ('path', 'scan.late-rows.path') are
taken relative to the directory of FILE.sql, so a job runs the same from
any directory.

Examples (from the repository's root):
  streamsql run examples/payments.sql
  streamsql run --set parallelism=1 examples/payments.sql
  streamsql run --state-dir state/payments examples/payments.sql
`,
	run: runRun,
}

func runRun(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	stateDir := fs.String("state-dir", "", "directory for durable operator state")
	httpAddr := fs.String("http", "", "serve metrics and the web UI at `HOST:PORT`")
	var sets setFlag
	fs.Var(&sets, "set", "configuration `key=value`; repeatable")
	file, exit, done := oneFile(c, fs, args, stdout, stderr)
	if done {
		return exit
	}
	if *stateDir == "" && given(fs, "state-dir") {
		return usageError(c, stderr, "--state-dir needs a directory")
	}
	if *httpAddr == "" && given(fs, "http") {
		return usageError(c, stderr, "--http needs an address, such as 127.0.0.1:8081")
	}
	if _, err := web.Address(*httpAddr, settings.Defaults()); err != nil {
		return usageError(c, stderr, err.Error())
	}
	base, ok := checkSetFlags(c, sets, stderr)
	if !ok {
		return exitUsage
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "streamsql %s: %v\n", c.name, err)
		return exitUsage
	}
	src := diag.NewSource(file, string(data))
	j := frontend.CheckJobWith(src, base)
	checkConnectors(j.Session.Plans, filepath.Dir(file), j.Diags)
	j.Diags.Sort()
	if err := diag.WriteText(stderr, j.Diags); err != nil {
		return exitUsage
	}
	if n := j.Diags.Errors(); n > 0 {
		fmt.Fprintf(stderr, "streamsql run: %s has %s; nothing was run\n", file, plural(n, "error"))
		return exitError
	}
	var plans []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain != nil {
			line, _ := src.Position(p.Stmt.Span().Start)
			fmt.Fprintf(stdout, "-- EXPLAIN at line %d\n%s", line, p.ExplainText())
			continue
		}
		plans = append(plans, p)
	}
	if len(plans) == 0 {
		fmt.Fprintf(stderr, "streamsql run: %s has no INSERT INTO or SELECT to run\n", file)
		return 0
	}
	release := func() {}
	var cp *exec.Checkpointing
	var note string // said once the job is built
	if *stateDir != "" {
		// A new directory is claimed, this job's is resumed, another's is
		// refused (statedir.go).
		if cp, release, note, err = prepareStateDir(*stateDir, file, plans, jobSettings(plans)); err != nil {
			fmt.Fprintf(stderr, "streamsql run: %v\n", err)
			return exitError
		}
		cp.Failed = func(id int64, err error) {
			fmt.Fprintf(stderr, "streamsql run: warning: checkpoint %d failed: %v\n", id, err)
		}
	}
	// The server listens before the job opens anything: a port in use
	// stops the run before any source is read.
	reg := &metrics.Registry{}
	addr, err := web.Address(*httpAddr, jobSettings(plans))
	if err != nil {
		release()
		fmt.Fprintf(stderr, "streamsql run: %v\n", err)
		return exitError
	}
	if addr != "" {
		srv, err := web.Start(addr, reg, web.Options{})
		if err != nil {
			release()
			fmt.Fprintf(stderr, "streamsql run: %v\n", err)
			return exitError
		}
		defer func() { _ = srv.Close() }()
		fmt.Fprintf(stderr, "streamsql run: web UI at %s, Prometheus metrics at %smetrics\n", srv.URL(), srv.URL())
	}
	out := &syncWriter{w: bufio.NewWriter(stdout)}
	defer out.flush()
	var finalCheckpoint func()
	ctx, stopped := onSignalThen(stderr, func() {
		if finalCheckpoint != nil {
			finalCheckpoint()
		}
	})
	defer stopped()
	console := &lockedWriter{w: out}
	var views []*view
	// Several SELECTs print at once: each line of each says which query
	// it belongs to, and the summary names each with its line.
	selects := selectsOf(src, plans)
	labels := map[string]string{}
	for i, q := range selects {
		labels[fmt.Sprintf("query %d", i+1)] = fmt.Sprintf("query %d (line %d)", i+1, q.line)
	}
	opts := jobOptions(jobSettings(plans))
	opts.BaseDir = filepath.Dir(file)
	opts.Stdout, opts.Stderr = console, stderr
	opts.StateDir = *stateDir
	opts.Checkpoint = cp
	opts.Source = src
	opts.Warn = func(msg string) { fmt.Fprintf(stderr, "streamsql run: warning: %s\n", msg) }
	opts.QuerySink = func(name string, cols []connector.Column) connector.Sink {
		// A SELECT shows its changelog as the shell's tableau does: a
		// table with an op column (or the mode SET chose).
		mode := string(opts.Settings.ResultMode)
		if mode == "" || mode == modeTable {
			mode = modeTableau // redrawing in place needs a terminal
		}
		var w io.Writer = console
		if len(selects) > 1 {
			// Each query's lines are one write: they never interleave
			// within a line, and the prefix says whose they are.
			w = &linePrefixer{w: console, prefix: name + "> "}
			fmt.Fprintf(w, "%s\n", selects[len(views)].text)
		}
		v := newView(w, mode, false)
		views = append(views, v)
		return v.sink(cols)
	}
	built := time.Now()
	builtCPU, _ := processCPU()
	job, err := buildJob(ctx, plans, opts)
	if err != nil {
		release() // nothing ran: the state directory is as it was
		fmt.Fprintf(stderr, "streamsql run: %v\n", err)
		return exitError
	}
	for _, l := range strings.Split(strings.TrimSuffix(note, "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(stderr, "streamsql run: %s\n", l)
		}
	}
	if cp != nil && cp.Restore != nil {
		// The time to build the job, which is mostly restoring its
		// operators' state, and the CPU it took (on a busy machine the
		// wall time says little); `make bench` reads this line.
		took := fmt.Sprintf("%d ms", time.Since(built).Milliseconds())
		if cpu, ok := processCPU(); ok {
			took += fmt.Sprintf(" (%d ms of CPU)", (cpu - builtCPU).Milliseconds())
		}
		fmt.Fprintf(stderr, "streamsql run: checkpoint %d restored in %s\n", cp.Restore.ID, took)
	}
	if cp != nil {
		if off := job.CheckpointsOff(); off != "" {
			fmt.Fprintf(stderr, "streamsql run: warning: no checkpoints are taken in %s, so a stopped run starts over: %s\n", *stateDir, off)
		} else {
			// Ctrl-C takes a last checkpoint, so that the next run resumes
			// where this one stopped.
			finalCheckpoint = func() {
				cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if c, err := job.CheckpointNow(cctx); err != nil {
					fmt.Fprintf(stderr, "streamsql run: no final checkpoint: %v\n", err)
				} else if c != nil {
					fmt.Fprintf(stderr, "streamsql run: checkpoint %d taken: the next run with --state-dir %s resumes from it\n", c.ID, *stateDir)
				}
			}
		}
	}
	start := time.Now()
	watched := &metrics.Job{Name: jobName(file, opts.Settings), Exec: job, Start: start, Graph: jobGraph(plans)}
	watched.Plans = planTexts(plans)
	for _, p := range plans {
		watched.Statements = append(watched.Statements, statementText(src, p))
	}
	reg.Add(watched)
	done2 := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		progress(job, stderr, start, done2)
	}()
	for _, v := range views {
		v.start(job)
	}
	err = job.Run(ctx)
	switch {
	case stopped() != nil:
		watched.SetState(metrics.Canceled)
	case err != nil:
		watched.SetState(metrics.Failed)
	default:
		watched.SetState(metrics.Finished)
	}
	close(done2)
	wg.Wait()
	for _, v := range views {
		if ferr := v.finish(err != nil); ferr != nil && err == nil {
			err = ferr
		}
	}
	out.flush()
	summary(job, stderr, time.Since(start), labels)
	if sig := stopped(); sig != nil {
		// A stop asked for is not a failure. An error other than the
		// stop itself is still worth saying.
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "streamsql run: while stopping: %v\n", err)
		}
		fmt.Fprintln(stderr, "streamsql run: stopped")
		return exitSignal(sig)
	}
	if err != nil {
		fmt.Fprintf(stderr, "streamsql run: the job failed: %v\n", err)
		return exitError
	}
	return 0
}

// onSignal returns a context that SIGINT (Ctrl-C) or SIGTERM cancels, and
// a function that stops listening and returns the signal that came, if one
// did. The first signal stops the job gracefully (the sinks flush, the
// summary is printed); once it has come, the signals' default actions are
// back, so a second one ends the process at once.
func onSignal(stderr io.Writer) (context.Context, func() os.Signal) {
	return onSignalThen(stderr, func() {})
}

// onSignalThen is onSignal, calling first when the first signal comes,
// before the context is cancelled (run's last checkpoint).
func onSignalThen(stderr io.Writer, first func()) (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	var mu sync.Mutex
	var got os.Signal
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigc:
			signal.Stop(sigc)
			mu.Lock()
			got = sig
			mu.Unlock()
			fmt.Fprintln(stderr, "streamsql run: stopping: flushing the sinks (Ctrl-C again stops at once, without flushing)")
			first()
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() os.Signal {
		once.Do(func() {
			signal.Stop(sigc)
			close(done)
		})
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// exitSignal is the exit status after a stop by sig, the shell's
// convention: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
func exitSignal(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// progress prints one status line every few seconds while the job runs.
func progress(job *exec.Job, w io.Writer, start time.Time, done <-chan struct{}) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			var in, out int64
			var wms []string
			for _, s := range job.Sources {
				in += s.In.Load()
				wms = append(wms, sourceProgress(s))
			}
			for _, s := range job.Sinks {
				out += s.Out.Load()
			}
			var cps string
			if c := job.LastCheckpoint(); c != nil {
				cps = fmt.Sprintf("; checkpoint %d (%s ago, %s%s, %d ms)", c.ID, time.Since(c.Completed).Round(time.Second),
					humanBytes(c.Size()), writtenNote(c), c.DurationMS)
			}
			fmt.Fprintf(w, "streamsql run: %s: %d rows in, %d out; watermarks %s%s\n",
				time.Since(start).Round(time.Second), in, out, strings.Join(wms, ", "), cps)
		}
	}
}

// sourceProgress describes where one input stands: its watermark, the
// largest event time it has seen, and whether idleness or alignment holds
// it, e.g. "clicks=2026-11-20 07:38:15.000 (max 2026-11-20 07:38:20.000,
// 12m ahead of group attribution, paused)".
func sourceProgress(s *exec.Counters) string {
	wm := s.Watermark.Load()
	text := s.Name + "=" + exec.FormatMillis(wm)
	var notes []string
	if mt := s.MaxTime.Load(); mt != exec.MinWatermark && wm != exec.MaxWatermark {
		notes = append(notes, "max "+exec.FormatMillis(mt))
	}
	if s.Group != "" {
		if d := s.Drift.Load(); d > 0 {
			notes = append(notes, exec.FormatDuration(d)+" ahead of group "+s.Group)
		} else {
			notes = append(notes, "group "+s.Group)
		}
	}
	if s.Paused.Load() {
		notes = append(notes, "paused")
	}
	if s.Idle.Load() {
		notes = append(notes, "idle")
	}
	if n := s.Late.Load(); n > 0 {
		notes = append(notes, plural(int(n), "late row"))
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, ", ") + ")"
	}
	return text
}

// jobName is 'pipeline.name', or the job file's name.
func jobName(file string, set settings.Settings) string {
	if n := set.PipelineName; n != "" {
		return n
	}
	return filepath.Base(file)
}

// statementText is the SQL of p's statement, as written.
func statementText(src *diag.Source, p *planner.Plan) string {
	sp := p.Stmt.Span()
	if sp.Start.IsValid() && sp.End.IsValid() && int(sp.End) <= len(src.Text) && sp.Start < sp.End {
		return src.Text[sp.Start:sp.End]
	}
	return ""
}

// selectQuery is a SELECT of the job file: its first line and its text on
// one line (shortened).
type selectQuery struct {
	line int
	text string
}

// selectsOf lists the SELECTs among plans, in order: the order in which
// exec.Build names them "query 1", "query 2", ….
func selectsOf(src *diag.Source, plans []*planner.Plan) []selectQuery {
	var out []selectQuery
	for _, p := range plans {
		if _, insert := p.Root.(*logical.Sink); insert {
			continue
		}
		sp := p.Stmt.Span()
		line, _ := src.Position(sp.Start)
		text := ""
		if sp.Start.IsValid() && sp.End.IsValid() && int(sp.End) <= len(src.Text) && sp.Start < sp.End {
			text = strings.Join(strings.Fields(src.Text[sp.Start:sp.End]), " ")
		}
		if len(text) > 100 {
			text = text[:97] + "..."
		}
		out = append(out, selectQuery{line: line, text: text})
	}
	return out
}

// linePrefixer writes each line after a prefix, in one Write on w per
// Write.
type linePrefixer struct {
	w      io.Writer
	prefix string
	mid    bool // the last Write ended inside a line
	buf    []byte
}

func (p *linePrefixer) Write(b []byte) (int, error) {
	p.buf = p.buf[:0]
	for rest := b; len(rest) > 0; {
		if !p.mid {
			p.buf = append(p.buf, p.prefix...)
			p.mid = true
		}
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			p.buf = append(p.buf, rest...)
			break
		}
		p.buf = append(p.buf, rest[:i+1]...)
		rest = rest[i+1:]
		p.mid = false
	}
	if _, err := p.w.Write(p.buf); err != nil {
		return 0, err
	}
	return len(b), nil
}

// writtenNote says how much of an incremental checkpoint c wrote itself
// (its size is the whole state's, parts of earlier checkpoints included);
// "" for a checkpoint that wrote everything.
func writtenNote(c *checkpoint.Checkpoint) string {
	if n := c.NewSize(); n != c.Size() {
		return fmt.Sprintf(", %s written", humanBytes(n))
	}
	return ""
}

// summary prints what every source, stateful operator and sink did.
// labels names the SELECTs' sinks ("query 1" -> "query 1 (line 4)"); their
// count is of the changes printed.
func summary(job *exec.Job, w io.Writer, took time.Duration, labels map[string]string) {
	fmt.Fprintf(w, "streamsql run: %s\n", took.Round(time.Millisecond))
	if c := job.LastCheckpoint(); c != nil {
		fmt.Fprintf(w, "  last checkpoint %d: %s%s, taken in %d ms, %s ago\n", c.ID, humanBytes(c.Size()), writtenNote(c), c.DurationMS,
			time.Since(c.Completed).Round(time.Second))
	}
	for _, s := range job.Sources {
		fmt.Fprintf(w, "  source %-28s %8d rows  watermark %s  max event time %s", s.Name, s.In.Load(),
			exec.FormatMillis(s.Watermark.Load()), exec.FormatMillis(s.MaxTime.Load()))
		if b := s.Bad.Load(); b > 0 {
			fmt.Fprintf(w, "  %s", plural(int(b), "bad row"))
		}
		if l := s.Late.Load(); l > 0 {
			fmt.Fprintf(w, "  %s", plural(int(l), "late row"))
		}
		if n := s.NoTime.Load(); n > 0 {
			fmt.Fprintf(w, "  %s without time", plural(int(n), "row"))
		}
		fmt.Fprintln(w)
	}
	// Partitions of one operator share its name: report them as one.
	type total struct{ in, out, late, lateUpdates, noTime, state, peak, spilled, parts int64 }
	var order []string
	totals := map[string]*total{}
	for _, o := range job.Operators {
		t := totals[o.Name]
		if t == nil {
			t = &total{}
			totals[o.Name] = t
			order = append(order, o.Name)
		}
		t.in += o.In.Load()
		t.out += o.Out.Load()
		t.late += o.Late.Load()
		t.lateUpdates += o.LateUpdates.Load()
		t.noTime += o.NoTime.Load()
		t.state += o.StateRows.Load()
		t.peak += o.PeakState.Load()
		t.spilled += o.Spilled.Load()
		t.parts++
	}
	for _, name := range order {
		t := totals[name]
		if t.late == 0 && t.noTime == 0 && t.peak == 0 && !stateful(name) {
			continue
		}
		label := name
		if t.parts > 1 {
			label = fmt.Sprintf("%s x%d", name, t.parts)
		}
		fmt.Fprintf(w, "  %-35s in %8d  out %8d  late %d  state rows %d (peak %d)", label, t.in, t.out, t.late, t.state, t.peak)
		if t.lateUpdates > 0 {
			fmt.Fprintf(w, "  late updates %d", t.lateUpdates)
		}
		if t.noTime > 0 {
			fmt.Fprintf(w, "  no time %d", t.noTime)
		}
		if t.spilled > 0 {
			fmt.Fprintf(w, "  spilled %d keys to disk", t.spilled)
		}
		fmt.Fprintln(w)
	}
	for _, s := range job.Sinks {
		n := s.Out.Load()
		if label, ok := labels[s.Name]; ok {
			fmt.Fprintf(w, "  %-35s %8d %s printed\n", label, n, nouns(n, "change", "changes"))
			continue
		}
		fmt.Fprintf(w, "  sink %-30s %8d %s written\n", s.Name, n, nouns(n, "row", "rows"))
	}
	fmt.Fprint(w, collectorLine(collectorCPU()))
}

// collectorCPU is the CPU time the Go collector used since the process
// started, and the CPU time the process used in all (the runtime's
// estimates, runtime/metrics), in seconds.
func collectorCPU() (gc, busy float64) {
	s := []runtimemetrics.Sample{
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"},
	}
	runtimemetrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != runtimemetrics.KindFloat64 {
			return 0, 0
		}
	}
	return s[0].Value.Float64(), s[1].Value.Float64() - s[2].Value.Float64()
}

// collectorLine is the summary's line on the Go collector, when it took
// at least a third of the CPU the process used and at least a second of
// it ("" otherwise). A job whose live heap sits near the Go memory limit
// (its state at its budget, see state.memory-budget) collects nearly back
// to back: at 4M keys under the 1gb budget the collector took 41 % of the
// CPU, and a limit raised with GOMEMLIMIT cut the job's CPU by 31 % for
// 0.8 GB more memory (docs/performance.md).
func collectorLine(gc, busy float64) string {
	if gc < 1 || busy <= 0 || gc*3 < busy {
		return ""
	}
	return fmt.Sprintf("  Go collector: %.0f %% of the CPU (%.1f s of %.1f s): the heap is near the Go memory limit; GOMEMLIMIT above it trades memory for CPU (docs/runtime.md)\n",
		100*gc/busy, gc, busy)
}

func nouns(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func stateful(name string) bool {
	for _, p := range []string{"Join", "IntervalJoin", "WindowJoin", "TemporalJoin", "GroupAggregate", "WindowAggregate"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// syncWriter serialises writes from several query sinks.
type syncWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (s *syncWriter) write(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.w.Write(b)
	return err
}

func (s *syncWriter) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.w.Flush()
}

// lockedWriter lets connectors (print) write through the same buffered,
// serialised stdout as the query sinks.
type lockedWriter struct{ w *syncWriter }

func (l *lockedWriter) Write(p []byte) (int, error) {
	if err := l.w.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// humanBytes is n in B, KB, MB or GB (powers of 1024), e.g. "1.2 MB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/unit, 0
	for f >= unit && i < 2 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", f, "KMG"[i])
}
