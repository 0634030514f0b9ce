// Command bench runs the streamsql benchmarks end to end: it builds the
// streamsql binary, generates the input files it needs, runs each query
// through `streamsql run` a few times, and reports per query the events,
// wall time, events per second, CPU per event (user + system of the child
// process), peak RSS and peak state rows, as a Markdown table on stdout and
// a JSON file.
//
//	go run ./bench            (or: make bench)
//	go run ./bench latency    (or: make bench-latency): end-to-end latency through Kafka (latency.go)
//
// Settings come from the environment (defaults in parentheses):
//
//	BENCH_EVENTS       Nexmark events of the whole stream for q0, q3 and q8 (10000000)
//	BENCH_JOIN_EVENTS  Nexmark events for q9 and q20, whose state holds nearly every auction and bid (2000000)
//	BENCH_WINDOW_EVENTS Nexmark events for tumble-1h-spill, one 1-hour window of ~3.8M groups (4200000)
//	BENCH_SERVED_EVENTS rows of served-1m and served-1m-http, read at 1 M a second (15000000)
//	BENCH_RATE         Nexmark 'first-event.rate', events per second of event time (10000000, as the Nexmark suite)
//	BENCH_KEYS         orders (and shipments) of the orders ⋈ shipments joins (1000000)
//	BENCH_RUNS         runs of each query; the table shows the median (3)
//	BENCH_PARALLELISM  --set parallelism=N (2)
//	BENCH_QUERIES      comma-separated query names to run (all); orders-1s-kafka starts `streamsql dev kafka` (see kafka.go)
//	                   (orders-4h-ckpt and q20-ckpt run with checkpoints every second, see checkpoint.go)
//	BENCH_OUT          the JSON file (bench/results/latest.json)
//	BENCH_DIR          where the binary, jobs, data and logs go (bench/results)
//	BENCH_BIN          a streamsql binary to run instead of building one (to compare builds)
//	BENCH_SCALE        1: also run the scaling table (make bench-scale; see scale.go)
//	BENCH_SCALE_KEYS   its key counts (1000000,4000000,10000000)
//	BENCH_SCALE_BUDGET its 'state.memory-budget' (the job's default, 1gb)
//
// Run it from the repository root.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

type config struct {
	events     int64
	joinEvents int64
	// windowEvents: Nexmark events of tumble-1h-spill.
	windowEvents int64
	// servedEvents: rows of served-1m and served-1m-http.
	servedEvents int64
	rate         int64
	keys         int64
	runs         int
	parallelism  int
	only         map[string]bool
	out, dir     string
	// kafkaAddr is the development broker of the Kafka query being run.
	kafkaAddr string
	// scale: run the scaling table's queries too (BENCH_SCALE=1).
	scale bool
}

// selected reports whether q runs: named in BENCH_QUERIES, or all queries
// when it is not set; the scaling queries run only with BENCH_SCALE=1 or
// when named.
func (c config) selected(q query) bool {
	if c.only[q.name] {
		return true
	}
	if q.scale {
		return c.scale
	}
	return c.only == nil
}

func envInt(key string, def int64) int64 {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	if err != nil || n <= 0 {
		fatalf("%s=%q: want a positive whole number", key, v)
	}
	return n
}

func envStr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// atExit runs before bench exits on an error (it stops the development
// broker).
var atExit []func()

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	for _, f := range atExit {
		f()
	}
	os.Exit(1)
}

// Run is one execution of a query.
type Run struct {
	WallS      float64 `json:"wall_s"`
	CPUS       float64 `json:"cpu_s"`
	MaxRSSMB   float64 `json:"max_rss_mb"`
	RowsIn     int64   `json:"rows_in"`
	RowsOut    int64   `json:"rows_out"`
	PeakState  int64   `json:"peak_state_rows"`
	LateRows   int64   `json:"late_rows"`
	Spilled    int64   `json:"spilled_keys"`
	ExitStatus int     `json:"exit_status"`
	// BrokerCPUS is the development broker's CPU time during the run
	// (Kafka queries).
	BrokerCPUS float64 `json:"broker_cpu_s,omitempty"`
	// Scrapes is how many times bench scraped /metrics during the run
	// (queries run with --http).
	Scrapes int `json:"scrapes,omitempty"`
	// Checkpointed queries: the last checkpoint id the progress lines
	// showed, and the largest checkpoint among them with its duration.
	Checkpoints int64   `json:"checkpoints,omitempty"`
	CkptPeakMB  float64 `json:"checkpoint_peak_mb,omitempty"`
	CkptPeakMS  float64 `json:"checkpoint_peak_ms,omitempty"`
	// Of the incremental checkpoints among them (the state in earlier
	// checkpoints' parts, only the changes written): how many, the most
	// one wrote, and the median duration; CkptFullN whole ones seen.
	CkptIncN  int64   `json:"checkpoint_incremental_seen,omitempty"`
	CkptIncMB float64 `json:"checkpoint_incremental_peak_written_mb,omitempty"`
	CkptIncMS float64 `json:"checkpoint_incremental_median_ms,omitempty"`
	CkptFullN int64   `json:"checkpoint_whole_seen,omitempty"`
	// PeakAnonMB and PeakFileMB are the peaks of anonymous and
	// file-backed resident memory, sampled every 100 ms (Linux).
	PeakAnonMB float64 `json:"peak_anon_mb,omitempty"`
	PeakFileMB float64 `json:"peak_file_mb,omitempty"`
}

// Result is a query's median over its runs.
type Result struct {
	Query         string  `json:"query"`
	Note          string  `json:"note"`
	Events        int64   `json:"events"`
	RowsIn        int64   `json:"rows_in"`
	RowsOut       int64   `json:"rows_out"`
	WallS         float64 `json:"wall_s"`
	EventsPerS    float64 `json:"events_per_s"`
	RowsPerS      float64 `json:"rows_per_s"`
	CPUUsPerEvent float64 `json:"cpu_us_per_event"`
	// EventsPerCPUS is events per second of CPU time: the per-core figure.
	EventsPerCPUS float64 `json:"events_per_cpu_s"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	PeakState     int64   `json:"peak_state_rows"`
	PeakAnonMB    float64 `json:"peak_anon_mb,omitempty"`
	PeakFileMB    float64 `json:"peak_file_mb,omitempty"`
	Spilled       int64   `json:"spilled_keys,omitempty"`
	// Kafka queries: the development broker's CPU per event during the
	// runs, and how long producing the inputs took (not in the numbers
	// above).
	BrokerCPUUsPerEvent float64 `json:"broker_cpu_us_per_event,omitempty"`
	ProduceS            float64 `json:"produce_s,omitempty"`
	// Checkpointed queries (medians): see Run; RestoreMS is the time a run
	// stopped with RestoreRows rows in state took to restore them.
	Checkpoints int64   `json:"checkpoints,omitempty"`
	CkptPeakMB  float64 `json:"checkpoint_peak_mb,omitempty"`
	CkptPeakMS  float64 `json:"checkpoint_peak_ms,omitempty"`
	CkptIncN    int64   `json:"checkpoint_incremental_seen,omitempty"`
	CkptIncMB   float64 `json:"checkpoint_incremental_peak_written_mb,omitempty"`
	CkptIncMS   float64 `json:"checkpoint_incremental_median_ms,omitempty"`
	CkptFullN   int64   `json:"checkpoint_whole_seen,omitempty"`
	RestoreMS   float64 `json:"restore_ms,omitempty"`
	// RestoreCPUMS is the CPU the resumed process spent restoring.
	RestoreCPUMS float64 `json:"restore_cpu_ms,omitempty"`
	RestoreRows  int64   `json:"restore_state_rows,omitempty"`
	Runs         []Run   `json:"runs"`
}

// Report is the JSON file.
type Report struct {
	Date        string              `json:"date"`
	Commit      string              `json:"commit"`
	Machine     map[string]string   `json:"machine"`
	Settings    map[string]int64    `json:"settings"`
	Results     []Result            `json:"results"`
	NotRunnable []map[string]string `json:"not_available,omitempty"`
}

func main() {
	c := config{
		events:       envInt("BENCH_EVENTS", 10_000_000),
		joinEvents:   envInt("BENCH_JOIN_EVENTS", 2_000_000),
		windowEvents: envInt("BENCH_WINDOW_EVENTS", 4_200_000),
		servedEvents: envInt("BENCH_SERVED_EVENTS", 15_000_000),
		rate:         envInt("BENCH_RATE", 10_000_000),
		keys:         envInt("BENCH_KEYS", 1_000_000),
		runs:         int(envInt("BENCH_RUNS", 3)),
		parallelism:  int(envInt("BENCH_PARALLELISM", 2)),
		out:          envStr("BENCH_OUT", filepath.Join("bench", "results", "latest.json")),
		dir:          envStr("BENCH_DIR", filepath.Join("bench", "results")),
	}
	if v := os.Getenv("BENCH_QUERIES"); v != "" {
		c.only = map[string]bool{}
		for _, q := range strings.Split(v, ",") {
			c.only[strings.TrimSpace(q)] = true
		}
	}
	if os.Getenv("BENCH_SCALE") == "1" {
		c.scale = true
	}
	queries = append(queries, scaleQueries()...)
	if _, err := os.Stat("go.mod"); err != nil {
		fatalf("run from the repository root (no go.mod here)")
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		fatalf("%v", err)
	}
	bin, err := filepath.Abs(filepath.Join(c.dir, "streamsql"))
	if err != nil {
		fatalf("%v", err)
	}
	if b := os.Getenv("BENCH_BIN"); b != "" {
		if bin, err = filepath.Abs(b); err != nil {
			fatalf("%v", err)
		}
	} else {
		fmt.Fprintf(os.Stderr, "bench: building %s\n", bin)
		build := osexec.Command("go", "build", "-o", bin, "./cmd/streamsql")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fatalf("go build: %v", err)
		}
	}
	if len(os.Args) > 1 {
		if os.Args[1] != "latency" {
			fatalf("unknown argument %q: `go run ./bench` runs the throughput queries, `go run ./bench latency` the latency benchmark", os.Args[1])
		}
		runLatency(c, bin)
		return
	}

	var results []Result
	for _, q := range queries {
		if !c.selected(q) {
			continue
		}
		if strings.HasPrefix(q.name, "orders") {
			fmt.Fprintf(os.Stderr, "bench: generating %d orders and shipments in %s\n", c.keys, filepath.Join(c.dir, "data"))
			if err := genData(filepath.Join(c.dir, "data"), c.keys); err != nil {
				fatalf("generating data: %v", err)
			}
		}
		if q.prepare != nil {
			if err := q.prepare(c); err != nil {
				fatalf("%s: %v", q.name, err)
			}
		}
		res := Result{Query: q.name, Note: q.note, Events: q.events(c)}
		var br *devBroker
		if q.kafka != nil {
			br, res.ProduceS = startKafka(c, bin, q)
			c.kafkaAddr = br.addr
		}
		job := filepath.Join(c.dir, q.name+".sql")
		if err := os.WriteFile(job, []byte(q.sql(c)), 0o644); err != nil {
			fatalf("%v", err)
		}
		for i := range c.runs {
			var brokerCPU time.Duration
			if br != nil {
				if err := br.resetTopic(q.kafka.output); err != nil {
					fatalf("%s: %v", q.name, err)
				}
				brokerCPU = br.cpu()
			}
			r, err := runOnce(c, bin, job, q, filepath.Join(c.dir, q.name+".log"))
			if err != nil {
				fatalf("%s: %v (see %s)", q.name, err, filepath.Join(c.dir, q.name+".log"))
			}
			if br != nil {
				r.BrokerCPUS = (br.cpu() - brokerCPU).Seconds()
			}
			fmt.Fprintf(os.Stderr, "bench: %-10s run %d/%d: %.2fs wall, %.2fs CPU, %.0f MB, %d rows in, peak state %d\n",
				q.name, i+1, c.runs, r.WallS, r.CPUS, r.MaxRSSMB, r.RowsIn, r.PeakState)
			if br != nil {
				fmt.Fprintf(os.Stderr, "bench: %-10s run %d/%d: the broker used %.2fs CPU\n", q.name, i+1, c.runs, r.BrokerCPUS)
			}
			res.Runs = append(res.Runs, r)
		}
		if q.restore {
			log := filepath.Join(c.dir, q.name+"-restore.log")
			ms, cpu, rows, err := measureRestore(c, bin, job, q, log)
			if err != nil {
				fatalf("%s: restore: %v (see %s)", q.name, err, log)
			}
			fmt.Fprintf(os.Stderr, "bench: %-10s restore: a checkpoint taken after %d rows were read restored in %.0f ms (%.0f ms of CPU)\n",
				q.name, rows, ms, cpu)
			res.RestoreMS, res.RestoreCPUMS, res.RestoreRows = ms, cpu, rows
		}
		if br != nil {
			br.stop()
			atExit = nil
			if ps := br.cmd.ProcessState; ps != nil {
				fmt.Fprintf(os.Stderr, "bench: %s: the broker used %.2fs CPU in all (producing the inputs included)\n",
					q.name, (ps.UserTime() + ps.SystemTime()).Seconds())
			}
		}
		res.summarise()
		results = append(results, res)
	}

	rep := Report{
		Date:    time.Now().UTC().Format(time.RFC3339),
		Commit:  gitCommit(),
		Machine: machine(),
		Settings: map[string]int64{"events": c.events, "join_events": c.joinEvents, "window_events": c.windowEvents,
			"first_event_rate": c.rate, "keys": c.keys, "served_events": c.servedEvents,
			"runs": int64(c.runs), "parallelism": int64(c.parallelism)},
		Results: results,
	}
	printTable(os.Stdout, rep)
	printCkptTable(os.Stdout, rep)
	if err := os.MkdirAll(filepath.Dir(c.out), 0o755); err != nil {
		fatalf("%v", err)
	}
	data, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(c.out, append(data, '\n'), 0o644); err != nil {
		fatalf("%v", err)
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s\n", c.out)
}

var (
	sourceRE = regexp.MustCompile(`(?m)^\s+source\s+\S+\s+(\d+) rows`)
	opRE     = regexp.MustCompile(`(?m)^\s+\S.*\bin\s+\d+\s+out\s+\d+\s+late (\d+)\s+state rows \d+ \(peak (\d+)\)`)
	sinkRE   = regexp.MustCompile(`(?m)^\s+sink\s+\S+\s+(\d+) rows written`)
	spillRE  = regexp.MustCompile(`spilled (\d+) keys to disk`)
)

// runOnce runs the job once, keeping its stderr (progress and summary) in
// logPath. A query with http runs with --http and is scraped every second
// (scrape).
func runOnce(c config, bin, job string, q query, logPath string) (Run, error) {
	budget := q.budget
	args := []string{"run", "--set", "parallelism=" + strconv.Itoa(c.parallelism)}
	if budget != "" {
		args = append(args, "--set", "state.memory-budget="+budget)
	}
	if q.http {
		args = append(args, "--http", "127.0.0.1:0")
	}
	if q.checkpoint != "" {
		stateDir, err := os.MkdirTemp(c.dir, q.name+"-state-")
		if err != nil {
			return Run{}, err
		}
		defer os.RemoveAll(stateDir)
		if stateDir, err = filepath.Abs(stateDir); err != nil { // the job runs in the job file's directory
			return Run{}, err
		}
		args = append(args, "--state-dir", stateDir, "--set", "execution.checkpointing.interval="+q.checkpoint)
	}
	cmd := osexec.Command(bin, append(args, filepath.Base(job))...)
	cmd.Dir = filepath.Dir(job)
	stderr := &lockedBuffer{}
	cmd.Stdout = io.Discard
	cmd.Stderr = stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Run{}, err
	}
	scrapes := make(chan int, 1)
	done := make(chan struct{})
	rss := make(chan [2]float64, 1)
	go func() {
		anon, file := sampleRSS(cmd.Process.Pid, done)
		rss <- [2]float64{anon, file}
	}()
	if q.http {
		go func() { scrapes <- scrape(stderr, done) }()
	} else {
		scrapes <- 0
	}
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	scraped := <-scrapes
	peaks := <-rss
	_ = os.WriteFile(logPath, []byte(stderr.String()), 0o644)
	if err != nil {
		return Run{}, fmt.Errorf("streamsql run: %w", err)
	}
	ps := cmd.ProcessState
	r := Run{
		WallS:      wall.Seconds(),
		CPUS:       (ps.UserTime() + ps.SystemTime()).Seconds(),
		MaxRSSMB:   maxRSSMB(ps),
		Scrapes:    scraped,
		PeakAnonMB: peaks[0],
		PeakFileMB: peaks[1],
	}
	if q.http && scraped == 0 {
		return r, errors.New("--http: /metrics was never scraped (no address on stderr, or every scrape failed)")
	}
	out := stderr.String()
	for _, m := range sourceRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		r.RowsIn += n
	}
	for _, m := range opRE.FindAllStringSubmatch(out, -1) {
		late, _ := strconv.ParseInt(m[1], 10, 64)
		peak, _ := strconv.ParseInt(m[2], 10, 64)
		r.LateRows += late
		r.PeakState += peak
	}
	for _, m := range sinkRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		r.RowsOut += n
	}
	for _, m := range spillRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		r.Spilled += n
	}
	if q.checkpoint != "" {
		ckptStats(out, &r)
		if r.Checkpoints == 0 {
			return r, errors.New("no checkpoint completed while it ran")
		}
	}
	if budget != "" && r.Spilled == 0 && !q.scale {
		// A spill benchmark that did not spill would measure the memory path.
		return r, fmt.Errorf("a %s budget spilled nothing", budget)
	}
	return r, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func (r *Result) summarise() {
	pick := func(f func(Run) float64) float64 {
		var xs []float64
		for _, run := range r.Runs {
			xs = append(xs, f(run))
		}
		return median(xs)
	}
	r.WallS = pick(func(x Run) float64 { return x.WallS })
	cpu := pick(func(x Run) float64 { return x.CPUS })
	r.PeakRSSMB = pick(func(x Run) float64 { return x.MaxRSSMB })
	r.PeakState = int64(pick(func(x Run) float64 { return float64(x.PeakState) }))
	r.PeakAnonMB = pick(func(x Run) float64 { return x.PeakAnonMB })
	r.PeakFileMB = pick(func(x Run) float64 { return x.PeakFileMB })
	r.Spilled = int64(pick(func(x Run) float64 { return float64(x.Spilled) }))
	r.RowsIn = int64(pick(func(x Run) float64 { return float64(x.RowsIn) }))
	r.RowsOut = int64(pick(func(x Run) float64 { return float64(x.RowsOut) }))
	if r.WallS > 0 {
		r.EventsPerS = float64(r.Events) / r.WallS
		r.RowsPerS = float64(r.RowsIn) / r.WallS
	}
	if r.Events > 0 {
		r.CPUUsPerEvent = cpu * 1e6 / float64(r.Events)
	}
	if cpu > 0 {
		r.EventsPerCPUS = float64(r.Events) / cpu
	}
	r.Checkpoints = int64(pick(func(x Run) float64 { return float64(x.Checkpoints) }))
	r.CkptPeakMB = pick(func(x Run) float64 { return x.CkptPeakMB })
	r.CkptPeakMS = pick(func(x Run) float64 { return x.CkptPeakMS })
	r.CkptIncN = int64(pick(func(x Run) float64 { return float64(x.CkptIncN) }))
	r.CkptIncMB = pick(func(x Run) float64 { return x.CkptIncMB })
	r.CkptIncMS = pick(func(x Run) float64 { return x.CkptIncMS })
	r.CkptFullN = int64(pick(func(x Run) float64 { return float64(x.CkptFullN) }))
	if broker := pick(func(x Run) float64 { return x.BrokerCPUS }); broker > 0 && r.Events > 0 {
		r.BrokerCPUUsPerEvent = broker * 1e6 / float64(r.Events)
	}
}

// startKafka starts the development broker for a Kafka query and produces
// its inputs; it returns the broker and the seconds producing took.
func startKafka(c config, bin string, q query) (*devBroker, float64) {
	topics := []string{q.kafka.output}
	for t := range q.kafka.inputs {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	br, err := startBroker(bin, topics...)
	if err != nil {
		fatalf("%s: %v", q.name, err)
	}
	fmt.Fprintf(os.Stderr, "bench: %s: streamsql dev kafka on %s\n", q.name, br.addr)
	start := time.Now()
	for _, t := range topics {
		file, ok := q.kafka.inputs[t]
		if !ok {
			continue
		}
		n, err := br.produceLines(t, filepath.Join(c.dir, "data", file), "order_id")
		if err != nil {
			fatalf("%s: %v", q.name, err)
		}
		fmt.Fprintf(os.Stderr, "bench: %s: produced %d records to %s\n", q.name, n, t)
	}
	took := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "bench: %s: producing the inputs took %.2fs (not counted)\n", q.name, took)
	return br, took
}

func printTable(w io.Writer, rep Report) {
	m := rep.Machine
	fmt.Fprintf(w, "streamsql %s, %s: %s cores (%s), %s memory; parallelism %d, median of %d runs\n\n",
		rep.Commit, rep.Date, m["nproc"], m["cpu"], m["memory"], rep.Settings["parallelism"], rep.Settings["runs"])
	fmt.Fprintln(w, "| query | events | rows read | wall s | events/s | rows read/s | CPU µs/event | events/CPU-s | peak RSS MB | peak state rows |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rep.Results {
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s | %s | %.2f | %s | %.0f | %s |\n", r.Query, group(float64(r.Events)),
			group(float64(r.RowsIn)), r.WallS, group(r.EventsPerS), group(r.RowsPerS), r.CPUUsPerEvent,
			group(r.EventsPerCPUS), r.PeakRSSMB, group(float64(r.PeakState)))
	}
	for _, n := range rep.NotRunnable {
		fmt.Fprintf(w, "| %s | — | — | — | — | — | — | — | — | — |\n", n["query"])
	}
	fmt.Fprintln(w)
	for _, r := range rep.Results {
		if r.BrokerCPUUsPerEvent > 0 {
			fmt.Fprintf(w, "- %s: the development broker (`streamsql dev kafka`, on the same cores) used %.2f CPU µs/event "+
				"more during the job (median), %.2f with the job; producing the inputs took %.1f s, not counted.\n",
				r.Query, r.BrokerCPUUsPerEvent, r.CPUUsPerEvent+r.BrokerCPUUsPerEvent, r.ProduceS)
		}
	}
	for _, n := range rep.NotRunnable {
		fmt.Fprintf(w, "- %s: %s\n", n["query"], n["reason"])
	}
	printMemory(w, rep)
	printScale(w, rep)
	for _, r := range rep.Results {
		base, ok := strings.CutSuffix(r.Query, "-http")
		if !ok {
			continue
		}
		for _, b := range rep.Results {
			if b.Query == base && b.CPUUsPerEvent > 0 {
				var scrapes []float64
				for _, run := range r.Runs {
					scrapes = append(scrapes, float64(run.Scrapes))
				}
				fmt.Fprintf(w, "- %s: serving --http and scraped every second (median %.0f scrapes a run) costs %.4f CPU µs/event "+
					"over %s's %.4f: %+.2f%% (medians; load average at the end %s).\n", r.Query, median(scrapes),
					r.CPUUsPerEvent, base, b.CPUUsPerEvent, 100*(r.CPUUsPerEvent-b.CPUUsPerEvent)/b.CPUUsPerEvent, rep.Machine["loadavg_at_end"])
			}
		}
	}
}

// group formats a number with thousands separators.
func group(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

func gitCommit() string {
	out, err := osexec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func machine() map[string]string {
	m := map[string]string{
		"nproc": strconv.Itoa(runtime.NumCPU()), "goos": runtime.GOOS, "goarch": runtime.GOARCH,
		"go": runtime.Version(), "cpu": "unknown", "memory": "unknown",
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m["cpu"] = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				m["memory"] = fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m["loadavg_at_end"] = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

// lockedBuffer is a child's stderr, read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var webUI = regexp.MustCompile(`web UI at (http://\S+/),`)

// scrape waits for run's stderr to say where it serves, then GETs
// /metrics every second, as Prometheus would, until done; it returns the
// scrapes that succeeded. Its own CPU is bench's, not the job's.
func scrape(stderr *lockedBuffer, done <-chan struct{}) int {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	url := ""
	for url == "" {
		select {
		case <-done:
			return 0
		case <-t.C:
		}
		if m := webUI.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1] + "metrics"
		}
	}
	t.Reset(time.Second)
	n := 0
	for {
		resp, err := http.Get(url)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				n++
			}
		}
		select {
		case <-done:
			return n
		case <-t.C:
		}
	}
}
