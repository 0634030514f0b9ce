package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The latency benchmark (`go run ./bench latency`, make bench-latency):
// how long an event takes from entering Kafka to its result leaving,
// measured at a fixed rate of processing time.
//
// bench starts the development broker (`streamsql dev kafka`, a process
// of its own) and `streamsql run` on a job that reads two unbounded topics,
// lat_orders and lat_shipments (4 partitions each, JSON), joins them
//
//	FROM lat_orders o LEFT JOIN lat_shipments s ON o.order_id = s.order_id
//	 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '1' SECOND
//
// and writes every result to lat_out (4 partitions, JSON). It then produces
// RATE records a second (half orders, half shipments, on a schedule of the
// wall clock, not as fast as it can) for warm-up + measured + tail seconds.
// Event time is the wall clock: an order's order_time (and a shipment's
// ship_time) is the time it is produced, and every record carries the
// nanosecond it was produced (sent). A shipment follows its order by 100 ms
// of processing time; every tenth order gets none (a shipment of an order
// that does not exist takes its place, so the rate stays exact), and
// leaves as a padded row when the watermark passes its order_time + bound;
// so does an order whose shipment the producer, falling behind on a loaded
// machine, sent more than the bound after it (counted as stalled).
//
// A consumer in bench reads lat_out as it is written; a result's arrival
// there stands for the sink record's append time (the development broker
// hands a fetch waiting on a partition its records when they are
// appended). Per result row of an order produced in the measured window:
//
//   - matched: arrival − the shipment's sent time (the later of the two
//     inputs: an inner match leaves as soon as its second row is joined;
//     neither the watermark delay nor the bound is waited for);
//   - padded: arrival − (order_time + bound + watermark delay), the first
//     moment the row could leave: the engine's own delay in following the
//     watermark.
//
// Both include the input producer's and the sink's batching and the broker
// on the same two cores. The sink's part is apart: the record timestamp
// the sink's producer sets when the engine hands it the row (milliseconds)
// gives engine = timestamp − sent, the rest being the sink's linger and
// the broker. Both inputs have a column pt AS PROCTIME(), which the job's
// source computes as it decodes a record, and the job writes the
// shipment's (s_read): sent→source = s_read − sent (bench's producer, the
// broker, the job's fetch) and source→sink = timestamp − s_read (the job
// alone, from its source to its sink's producer), both in milliseconds. Every order of the window must have exactly one result of the
// right kind; a missing, extra or wrong one stops the run with an error.
//
// Settings (environment): BENCH_LAT_RATES (10000,100000,500000 records a
// second), BENCH_LAT_SECONDS (30, measured), BENCH_LAT_WARMUP (5),
// BENCH_LAT_VARIANTS (default: `default`; `|`-separated, each a
// comma-separated list of src.OPTION=VALUE and sink.OPTION=VALUE added to
// the sources' and the sink's WITH, or `default` for none), BENCH_PARALLELISM,
// BENCH_BIN (a streamsql binary to use instead of building one), BENCH_OUT
// (bench/results/latency.json), BENCH_LAT_DUMP (a directory: every result
// of the window, sent and arrival time, to a file per run, to see when in
// the run the tail happened, e.g. against GODEBUG=gctrace=1 of the job).

const (
	latBoundMS = 1000 // the join's bound
	latDelayMS = 100  // the watermark delay of both inputs
	latShipLag = 100 * time.Millisecond
	latTailS   = 3 // seconds produced after the window, so that its last orders are padded
	// latGap is a pause of bench's producer that counts as a gap, and
	// latGapShadow how long after a gap's start a shipment is left out of
	// JobSteady (the job works through the burst that follows a gap).
	latGap       = 40 * time.Millisecond
	latGapShadow = 500 * time.Millisecond
)

// LatRun is one latency run: a rate and a variant.
type LatRun struct {
	Variant     string  `json:"variant"`
	Rate        int64   `json:"rate"`
	Parallelism int     `json:"parallelism"`
	AchievedR   float64 `json:"achieved_rate"` // records produced a second during the window
	Orders      int64   `json:"window_orders"`
	Matched     LatDist `json:"matched"`
	Padded      LatDist `json:"padded"`
	// Engine is matched rows' sink record timestamp − sent (ms resolution).
	Engine LatDist `json:"engine_to_sink"`
	// Fetch is matched rows' shipment's PROCTIME() − sent: bench's
	// producer, the broker and the job's source up to the row's computed
	// columns; Job is the sink record timestamp − that PROCTIME(): the job
	// from its source to its sink (both ms resolution).
	Fetch LatDist `json:"sent_to_source"`
	Job   LatDist `json:"source_to_sink"`
	// JobCPUUsPerEvent: the job's CPU (warm-up and tail included) per
	// record produced; BrokerCPU and BenchCPU likewise (the broker, and
	// bench's producer and consumer), all on the same cores.
	JobCPUUsPerEvent    float64 `json:"job_cpu_us_per_event"`
	BrokerCPUUsPerEvent float64 `json:"broker_cpu_us_per_event"`
	BenchCPUUsPerEvent  float64 `json:"bench_cpu_us_per_event"`
	PeakRSSMB           float64 `json:"job_peak_rss_mb"`
	LoadStart           string  `json:"loadavg_start"`
	LoadEnd             string  `json:"loadavg_end"`
	Late                int64   `json:"late_rows"`
	// Stalled: orders of the window whose shipment the producer sent more
	// than the bound after them (it fell behind), which leave padded.
	Stalled int64 `json:"stalled_shipments"`
	// ProducerGaps: the moments in the window when bench's producer,
	// which stamps each record on a schedule of the wall clock, stamped
	// none for more than latGap (its goroutine did not run: the machine's
	// cores were busy); ProducerGapMax the longest. After each, the records
	// it owed reach the job at once.
	ProducerGaps   int     `json:"producer_gaps"`
	ProducerGapMax float64 `json:"producer_gap_max_ms"`
	// JobSteady is Job without the shipments sent within latGapShadow
	// after the start of a producer gap: the job alone, fed at the rate.
	JobSteady LatDist `json:"source_to_sink_steady"`
}

// LatDist is a latency distribution in milliseconds.
type LatDist struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func dist(us []float64) LatDist {
	if len(us) == 0 {
		return LatDist{}
	}
	slices.Sort(us)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(us)))) - 1
		return us[max(0, min(i, len(us)-1))] / 1000
	}
	return LatDist{N: len(us), P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: us[len(us)-1] / 1000}
}

func envList(key, def, sep string) []string {
	var out []string
	for _, s := range strings.Split(envStr(key, def), sep) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func runLatency(c config, bin string) {
	var rates []int64
	for _, s := range envList("BENCH_LAT_RATES", "10000,100000,500000", ",") {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		if err != nil || n < 20 {
			fatalf("BENCH_LAT_RATES: %q: want records a second (at least 20)", s)
		}
		rates = append(rates, n)
	}
	seconds := int(envInt("BENCH_LAT_SECONDS", 30))
	warmup := int(envInt("BENCH_LAT_WARMUP", 5))
	variants := envList("BENCH_LAT_VARIANTS", "default", "|")
	out := envStr("BENCH_OUT", filepath.Join(c.dir, "latency.json"))

	br, err := startBroker(bin, "lat_orders", "lat_shipments", "lat_out")
	if err != nil {
		fatalf("latency: %v", err)
	}
	defer br.stop()
	fmt.Fprintf(os.Stderr, "bench: latency: streamsql dev kafka on %s\n", br.addr)
	var runs []LatRun
	// Rates outside, variants inside: the variants of one rate run one
	// after the other, at nearly the same load of the machine.
	for _, rate := range rates {
		for _, v := range variants {
			for _, t := range []string{"lat_orders", "lat_shipments", "lat_out"} {
				if err := br.resetTopic(t); err != nil {
					fatalf("latency: %v", err)
				}
			}
			r, err := latencyOnce(c, bin, br, v, rate, warmup, seconds)
			if err != nil {
				fatalf("latency: %s at %d/s: %v", v, rate, err)
			}
			fmt.Fprintf(os.Stderr, "bench: latency %s %d/s: achieved %.0f/s, matched p50 %.1f p99 %.1f max %.1f ms, "+
				"padded p50 %.1f p99 %.1f max %.1f ms, engine→sink p50 %.0f p99 %.0f ms (sent→source p50 %.0f p99 %.0f, "+
				"source→sink p50 %.0f p99 %.0f; fed steadily p99 %.0f of %d; %d producer gaps, the longest %.0f ms), "+
				"job %.2f µs/event, %d stalled, %d late, load %s → %s\n",
				v, rate, r.AchievedR, r.Matched.P50, r.Matched.P99, r.Matched.Max, r.Padded.P50, r.Padded.P99, r.Padded.Max,
				r.Engine.P50, r.Engine.P99, r.Fetch.P50, r.Fetch.P99, r.Job.P50, r.Job.P99,
				r.JobSteady.P99, r.JobSteady.N, r.ProducerGaps, r.ProducerGapMax, r.JobCPUUsPerEvent, r.Stalled, r.Late, r.LoadStart, r.LoadEnd)
			runs = append(runs, r)
		}
	}
	m := machine()
	fmt.Printf("streamsql %s, %s: %s cores (%s), %s memory; parallelism %d; %d s measured after %d s warm-up; "+
		"latencies in ms\n\n", gitCommit(), time.Now().UTC().Format(time.RFC3339), m["nproc"], m["cpu"], m["memory"],
		c.parallelism, seconds, warmup)
	fmt.Println("| variant | rate/s | achieved/s | matched p50 | p99 | max | padded p50 | p99 | max | engine→sink p50 | p99 | sent→source p50 | p99 | source→sink p50 | p99 | fed steadily p99 | producer gaps (longest ms) | job CPU µs/event | broker µs/event | stalled | load avg start → end |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range runs {
		fmt.Printf("| %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %d (%.0f) | %.2f | %.2f | %d | %s → %s |\n",
			r.Variant, group(float64(r.Rate)), group(r.AchievedR), r.Matched.P50, r.Matched.P99, r.Matched.Max,
			r.Padded.P50, r.Padded.P99, r.Padded.Max, r.Engine.P50, r.Engine.P99, r.Fetch.P50, r.Fetch.P99, r.Job.P50, r.Job.P99,
			r.JobSteady.P99, r.ProducerGaps, r.ProducerGapMax, r.JobCPUUsPerEvent,
			r.BrokerCPUUsPerEvent, r.Stalled, r.LoadStart, r.LoadEnd)
	}
	data, _ := json.MarshalIndent(map[string]any{"date": time.Now().UTC().Format(time.RFC3339), "commit": gitCommit(),
		"machine": m, "seconds": seconds, "warmup": warmup, "runs": runs}, "", "  ")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		fatalf("%v", err)
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		fatalf("%v", err)
	}
	fmt.Fprintf(os.Stderr, "bench: wrote %s\n", out)
}

// latencyJob is the job's SQL with a variant's options.
func latencyJob(addr, variant string) (string, error) {
	var src, sink strings.Builder
	if variant != "default" {
		for _, kv := range strings.Split(variant, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			var b *strings.Builder
			switch {
			case !ok:
			case strings.HasPrefix(k, "src."):
				b, k = &src, k[len("src."):]
			case strings.HasPrefix(k, "sink."):
				b, k = &sink, k[len("sink."):]
			}
			if b == nil {
				return "", fmt.Errorf("variant %q: want src.OPTION=VALUE or sink.OPTION=VALUE, comma-separated", variant)
			}
			fmt.Fprintf(b, ", '%s' = '%s'", k, v)
		}
	}
	table := func(name, timeCol string) string {
		return fmt.Sprintf(`CREATE TABLE %[1]s (
  order_id STRING, %[2]s TIMESTAMP(3), sent BIGINT, pt AS PROCTIME(),
  WATERMARK FOR %[2]s AS %[2]s - INTERVAL '%[3]d' MILLISECOND
) WITH ('connector' = 'kafka', 'topic' = '%[1]s', 'properties.bootstrap.servers' = '%[4]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset'%[5]s);
`, name, timeCol, latDelayMS, addr, src.String())
	}
	return table("lat_orders", "order_time") + table("lat_shipments", "ship_time") + fmt.Sprintf(`CREATE TABLE lat_out (
  order_id STRING, o_sent BIGINT, s_sent BIGINT, s_read TIMESTAMP_LTZ(3)
) WITH ('connector' = 'kafka', 'topic' = 'lat_out', 'properties.bootstrap.servers' = '%s', 'format' = 'json'%s);
INSERT INTO lat_out
SELECT o.order_id, o.sent, s.sent, s.pt
FROM lat_orders o LEFT JOIN lat_shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '%d' SECOND;
`, addr, sink.String(), latBoundMS/1000), nil
}

// latencyOnce runs the job at one rate and measures it.
func latencyOnce(c config, bin string, br *devBroker, variant string, rate int64, warmup, seconds int) (LatRun, error) {
	r := LatRun{Variant: variant, Rate: rate, Parallelism: c.parallelism}
	sql, err := latencyJob(br.addr, variant)
	if err != nil {
		return r, err
	}
	job := filepath.Join(c.dir, "latency.sql")
	if err := os.WriteFile(job, []byte(sql), 0o644); err != nil {
		return r, err
	}
	logPath := filepath.Join(c.dir, "latency.log")
	cmd := osexec.Command(bin, "run", "--set", "parallelism="+strconv.Itoa(c.parallelism), filepath.Base(job))
	cmd.Dir = c.dir
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return r, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopJob := func() error {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			return err
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			return <-exited
		}
	}
	defer func() { _ = os.WriteFile(logPath, []byte(stderr.String()), 0o644) }()

	// The consumer: every result of lat_out, as it arrives.
	cons, err := br.client(kgo.ConsumeTopics("lat_out"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(time.Second))
	if err != nil {
		_ = stopJob()
		return r, err
	}
	defer cons.Close()
	type result struct {
		recv, ts   int64 // arrival (ns), record timestamp (ms)
		oSent      int64
		sSent      int64 // 0: padded
		sRead      int64 // the shipment's PROCTIME() (ms; 0: padded)
		orderIndex int64
	}
	var (
		mu      sync.Mutex
		results []result
		bad     []string
	)
	cctx, ccancel := context.WithCancel(context.Background())
	var consumed sync.WaitGroup
	consumed.Add(1)
	go func() {
		defer consumed.Done()
		for {
			fs := cons.PollFetches(cctx)
			now := time.Now().UnixNano()
			if cctx.Err() != nil {
				return
			}
			var batch []result
			fs.EachRecord(func(rec *kgo.Record) {
				id, o, s, rd, ok := parseLatRow(rec.Value)
				if !ok {
					mu.Lock()
					bad = append(bad, string(rec.Value))
					mu.Unlock()
					return
				}
				batch = append(batch, result{recv: now, ts: rec.Timestamp.UnixMilli(), oSent: o, sSent: s, sRead: rd, orderIndex: id})
			})
			mu.Lock()
			results = append(results, batch...)
			mu.Unlock()
		}
	}()

	// The producer: records on a schedule of the wall clock.
	prod, err := br.client(kgo.ProducerLinger(0), kgo.MaxBufferedRecords(1_000_000))
	if err != nil {
		ccancel()
		_ = stopJob()
		return r, err
	}
	defer prod.Close()
	var failed atomic.Pointer[error]
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			failed.CompareAndSwap(nil, &err)
		}
	}
	ctx := context.Background()
	buf := make([]byte, 0, 128)
	// orderMS and shipMS are the event times (ms) of order i and of its
	// shipment (-1: none produced), to know which result each order must
	// have: a producer that stalls (a loaded machine) can put a shipment
	// beyond the bound, and its order is then rightly padded.
	var orderMS, shipMS []int64
	// produce sends one record stamped with now: the caller decides with the
	// same time whether the record is in the measured window, so a result's
	// sent time and the window's count agree at its edges.
	produce := func(topic string, id int64, now time.Time) {
		if id >= 0 && topic == "lat_orders" {
			orderMS = append(orderMS, now.UnixMilli())
			shipMS = append(shipMS, -1)
		} else if id >= 0 {
			shipMS[id] = now.UnixMilli()
		}
		key := strconv.AppendInt(nil, id, 10)
		buf = append(buf[:0], `{"order_id": "`...)
		buf = append(buf, key...)
		if topic == "lat_orders" {
			buf = append(buf, `", "order_time": "`...)
		} else {
			buf = append(buf, `", "ship_time": "`...)
		}
		buf = now.UTC().AppendFormat(buf, "2006-01-02 15:04:05.000")
		buf = append(buf, `", "sent": `...)
		buf = strconv.AppendInt(buf, now.UnixNano(), 10)
		buf = append(buf, '}')
		prod.Produce(ctx, &kgo.Record{Topic: topic, Key: key, Value: slices.Clone(buf)}, promise)
	}

	// Wait until the job runs: a probe order and its shipment (order -2,
	// which no other record has) until its result arrives.
	deadline := time.Now().Add(60 * time.Second)
	for probed := false; !probed; {
		produce("lat_orders", -2, time.Now())
		produce("lat_shipments", -2, time.Now())
		for range 20 {
			time.Sleep(50 * time.Millisecond)
			mu.Lock()
			for _, x := range results {
				probed = probed || x.orderIndex == -2
			}
			mu.Unlock()
			if probed {
				break
			}
		}
		select {
		case err := <-exited:
			ccancel()
			return r, fmt.Errorf("streamsql run ended before its first result: %w: %s", err, stderr.String())
		default:
		}
		if !probed && time.Now().After(deadline) {
			ccancel()
			_ = stopJob()
			return r, fmt.Errorf("streamsql run wrote no result within 60 s: %s", stderr.String())
		}
	}
	r.LoadStart = loadavg()
	brokerCPU0 := br.cpu()
	self0 := selfCPU()

	lag := int64(float64(rate/2) * latShipLag.Seconds()) // orders between an order and its shipment
	total := int64(warmup+seconds+latTailS) * rate
	start := time.Now()
	winStart := start.Add(time.Duration(warmup) * time.Second).UnixNano()
	winEnd := start.Add(time.Duration(warmup+seconds) * time.Second).UnixNano()
	var sent, winSent int64
	var winOrders int64 // orders sent in the window
	var lastStamp int64 // the producer's last stamp (ns)
	var gapStarts []int64
	var gapMax int64
	for sent < total {
		due := min(total, int64(time.Since(start).Seconds()*float64(rate)))
		if due <= sent {
			time.Sleep(200 * time.Microsecond)
			continue
		}
		for ; sent < due; sent++ {
			now := time.Now()
			ns := now.UnixNano()
			in := ns >= winStart && ns < winEnd
			if lastStamp != 0 && ns-lastStamp > int64(latGap) {
				gapStarts = append(gapStarts, lastStamp)
				if in {
					r.ProducerGaps++
					gapMax = max(gapMax, ns-lastStamp)
				}
			}
			lastStamp = ns
			if sent%2 == 0 {
				if in {
					winOrders++
				}
				produce("lat_orders", sent/2, now)
			} else {
				id := sent/2 - lag
				if id < 0 {
					continue
				}
				if id%10 == 0 {
					id = -id - 1 // no such order
				}
				produce("lat_shipments", id, now)
			}
			if in {
				winSent++
			}
		}
	}
	if err := prod.Flush(ctx); err != nil {
		ccancel()
		_ = stopJob()
		return r, err
	}
	if e := failed.Load(); e != nil {
		ccancel()
		_ = stopJob()
		return r, fmt.Errorf("producing: %w", *e)
	}
	r.AchievedR = float64(winSent) / float64(seconds)
	r.Orders = winOrders

	// Wait for a result of every order of the window.
	inWindow := func(x result) bool { return x.oSent >= winStart && x.oSent < winEnd }
	// A job that fell behind is still catching up: wait as long as
	// results keep coming (at most 10 minutes), and give up after 60 s
	// without one.
	quietSince, giveUp := time.Now(), time.Now().Add(10*time.Minute)
	n, scanned := int64(0), 0
	for {
		mu.Lock()
		for _, x := range results[scanned:] {
			if inWindow(x) {
				n++
			}
		}
		if len(results) > scanned {
			quietSince = time.Now()
		}
		scanned = len(results)
		mu.Unlock()
		if n >= winOrders {
			break
		}
		if now := time.Now(); now.Sub(quietSince) > time.Minute || now.After(giveUp) {
			ccancel()
			consumed.Wait()
			_ = stopJob()
			return r, fmt.Errorf("%d of the window's %d orders have no result %s after the last record was produced",
				winOrders-n, winOrders, time.Since(start).Round(time.Second)-time.Duration(warmup+seconds+latTailS)*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.BrokerCPUUsPerEvent = (br.cpu() - brokerCPU0).Seconds() * 1e6 / float64(total)
	r.BenchCPUUsPerEvent = (selfCPU() - self0).Seconds() * 1e6 / float64(total)
	r.LoadEnd = loadavg()
	ccancel()
	consumed.Wait()
	if err := stopJob(); err != nil && !strings.Contains(err.Error(), "exit status 130") && !isSignal(err) {
		// A job stopped with Ctrl-C exits after its final flush; any other
		// end is reported.
		fmt.Fprintf(os.Stderr, "bench: latency: streamsql run: %v\n", err)
	}
	if ps := cmd.ProcessState; ps != nil {
		r.JobCPUUsPerEvent = (ps.UserTime() + ps.SystemTime()).Seconds() * 1e6 / float64(total)
		r.PeakRSSMB = maxRSSMB(ps)
	}
	for _, m := range opRE.FindAllStringSubmatch(stderr.String(), -1) {
		late, _ := strconv.ParseInt(m[1], 10, 64)
		r.Late += late
	}
	if len(bad) > 0 {
		return r, fmt.Errorf("%d result records could not be read, the first: %s", len(bad), bad[0])
	}

	// Check every result of the window and measure it.
	seen := make(map[int64]bool, winOrders)
	var matched, padded, engine, fetch, inJob, steady []float64
	r.ProducerGapMax = float64(gapMax) / 1e6
	// afterGap reports whether ns is within latGapShadow after the start of
	// a producer gap (gapStarts is in time order).
	afterGap := func(ns int64) bool {
		i, _ := slices.BinarySearch(gapStarts, ns+1)
		return i > 0 && ns-gapStarts[i-1] < int64(latGapShadow)
	}
	var dump *bytes.Buffer // BENCH_LAT_DUMP: every result of the window, one a line
	if dir := os.Getenv("BENCH_LAT_DUMP"); dir != "" {
		dump = &bytes.Buffer{}
		fmt.Fprintln(dump, "# sent_ns arrival_ns record_ms shipment_sent_ns (0: padded) shipment_read_ms (its PROCTIME(), 0: padded); sent is the later input's")
		name := fmt.Sprintf("latency-%s-%d.txt", strings.NewReplacer("/", "_", " ", "", ",", "+").Replace(variant), rate)
		defer func() {
			if err := os.WriteFile(filepath.Join(dir, name), dump.Bytes(), 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "bench: BENCH_LAT_DUMP: %v\n", err)
			}
		}()
	}
	for _, x := range results {
		if !inWindow(x) {
			continue
		}
		if seen[x.orderIndex] {
			return r, fmt.Errorf("order %d has two results", x.orderIndex)
		}
		seen[x.orderIndex] = true
		if x.orderIndex < 0 || x.orderIndex >= int64(len(orderMS)) {
			return r, fmt.Errorf("a result of order %d, which was not produced", x.orderIndex)
		}
		d := shipMS[x.orderIndex] - orderMS[x.orderIndex]
		wantPadded := shipMS[x.orderIndex] < 0 || d < 0 || d > latBoundMS
		if wantPadded != (x.sSent == 0) {
			return r, fmt.Errorf("order %d (shipment %d ms after it): padded %v, want %v", x.orderIndex, d, x.sSent == 0, wantPadded)
		}
		if wantPadded && x.orderIndex%10 != 0 {
			r.Stalled++
		}
		if dump != nil {
			fmt.Fprintf(dump, "%d %d %d %d %d\n", max(x.sSent, x.oSent), x.recv, x.ts, x.sSent, x.sRead)
		}
		if x.sSent != 0 {
			matched = append(matched, float64(x.recv-max(x.sSent, x.oSent))/1e3)
			engine = append(engine, float64(x.ts*1e6-max(x.sSent, x.oSent))/1e3)
			if x.sSent >= x.oSent {
				fetch = append(fetch, float64(x.sRead*1e6-x.sSent)/1e3)
				inJob = append(inJob, float64(x.ts-x.sRead)*1e3)
				if !afterGap(x.sSent) {
					steady = append(steady, float64(x.ts-x.sRead)*1e3)
				}
			}
		} else {
			due := (x.oSent/1e6 + latBoundMS + latDelayMS) * 1e6
			padded = append(padded, float64(x.recv-due)/1e3)
		}
	}
	if int64(len(seen)) != winOrders {
		return r, fmt.Errorf("%d results of the window's %d orders", len(seen), winOrders)
	}
	r.Matched, r.Padded, r.Engine = dist(matched), dist(padded), dist(engine)
	r.Fetch, r.Job, r.JobSteady = dist(fetch), dist(inJob), dist(steady)
	return r, nil
}

// parseLatRow reads order_id, o_sent, s_sent (0 when null) and s_read (ms,
// 0 when null) of a result.
func parseLatRow(v []byte) (id, oSent, sSent, sRead int64, ok bool) {
	field := func(name string) (string, bool) {
		i := bytes.Index(v, []byte(`"`+name+`"`))
		if i < 0 {
			return "", false
		}
		rest := bytes.TrimLeft(v[i+len(name)+2:], " :")
		j := bytes.IndexAny(rest, ",}")
		if j < 0 {
			return "", false
		}
		return strings.Trim(strings.TrimSpace(string(rest[:j])), `"`), true
	}
	ids, ok1 := field("order_id")
	os, ok2 := field("o_sent")
	ss, ok3 := field("s_sent")
	rd, ok4 := field("s_read")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, 0, 0, 0, false
	}
	var err error
	if id, err = strconv.ParseInt(ids, 10, 64); err != nil {
		return 0, 0, 0, 0, false
	}
	if oSent, err = strconv.ParseInt(os, 10, 64); err != nil {
		return 0, 0, 0, 0, false
	}
	if ss != "null" {
		if sSent, err = strconv.ParseInt(ss, 10, 64); err != nil {
			return 0, 0, 0, 0, false
		}
	}
	if rd != "null" {
		t, err := time.Parse("2006-01-02 15:04:05.999", rd)
		if err != nil {
			return 0, 0, 0, 0, false
		}
		sRead = t.UnixMilli()
	}
	return id, oSent, sSent, sRead, true
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func isSignal(err error) bool {
	var ee *osexec.ExitError
	return errors.As(err, &ee) && !ee.Exited()
}
