package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/checkpoint"
)

// rewoundClicks is the case the engine was built around: impressions join
// clicks, and one partition of clicks was rewound three days. t0 is the
// newest event time; every record is produced before the job starts.
type rewoundClicks struct {
	addr string
	t0   time.Time
	// bytes are the bytes of the records' values, by topic-partition.
	bytes map[string]int
}

const rewind = 72 * time.Hour

// startRewoundClicks starts a development broker with topics impressions
// (one partition) and clicks (two), and produces ten impressions and ten
// clicks per partition, one a second up to t0; partition 1 of clicks holds
// the same ten seconds three days earlier.
func startRewoundClicks(t *testing.T) rewoundClicks {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "impressions"), kfake.SeedTopics(2, "clicks"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr := c.ListenAddrs()[0]
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	t0 := time.Date(2026, 11, 20, 12, 0, 9, 0, time.UTC)
	rec := func(topic string, part int32, ad int, ts time.Time) *kgo.Record {
		return &kgo.Record{Topic: topic, Partition: part,
			Value: fmt.Appendf(nil, `{"ad_id": %d, "ts": "%s"}`, ad, ts.Format("2006-01-02 15:04:05.000"))}
	}
	var recs []*kgo.Record
	bytes := map[string]int{}
	for i := range 10 {
		ts := t0.Add(time.Duration(i-9) * time.Second)
		recs = append(recs, rec("impressions", 0, i, ts), rec("clicks", 0, i, ts), rec("clicks", 1, i, ts.Add(-rewind)))
	}
	for _, r := range recs {
		bytes[fmt.Sprintf("%s-%d", r.Topic, r.Partition)] += len(r.Value)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return rewoundClicks{addr: addr, t0: t0, bytes: bytes}
}

// job is the attribution job over the broker: an interval join of the two
// topics, unbounded, into a file in a temporary directory (a sink that
// checkpoints). extra goes into both tables' WITH.
func (r rewoundClicks) job(t *testing.T, extra string) string {
	table := func(name string) string {
		return fmt.Sprintf(`CREATE TABLE %[1]s (ad_id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'kafka', 'topic' = '%[1]s', 'properties.bootstrap.servers' = '%[2]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset'%[3]s);
`, name, r.addr, extra)
	}
	out := filepath.Join(t.TempDir(), "attributed.json")
	return writeJob(t, "attribution.sql", table("impressions")+table("clicks")+`CREATE TABLE attributed (ad_id BIGINT, shown TIMESTAMP(3), clicked TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = '`+out+`', 'format' = 'json');
INSERT INTO attributed
SELECT i.ad_id, i.ts, c.ts FROM impressions i JOIN clicks c
  ON i.ad_id = c.ad_id AND c.ts BETWEEN i.ts AND i.ts + INTERVAL '1' HOUR;
`)
}

var serving = regexp.MustCompile(`(?i)web UI at (http://[0-9.:\[\]]+/)`)

// serveURL waits for a run's stderr to say where it serves and returns it.
func serveURL(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	var url string
	waitFor(t, "the address of the web UI on stderr", func() bool {
		m := serving.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	return url
}

// scrape fetches and parses url's /metrics.
func scrape(t *testing.T, url string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	body := get(t, url+"metrics")
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v\n%s", err, body)
	}
	return fams, string(body)
}

// sample returns the value of the sample of family name whose labels
// include want, and whether there is one.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// TestMetricsRewoundClicks: `streamsql run --http` of the attribution job
// over the development broker, one partition of clicks rewound three
// days. Scraped /metrics shows, computed here from the records produced:
// clicks' event-time gap is three days and five seconds (max event time
// t0, watermark the rewound partition's t0 - 3 d - 5 s), impressions' is
// the five seconds of its watermark delay; the join's two input
// watermarks are three days apart; and every row was read. promtool, when
// installed (.ci/run installs it), accepts the scrape. Bytes read per
// partition are those of the records produced, and every partition's
// consumer lag is 0 once its records are read. The join's state, under
// --state-dir, has bytes in memory and on disk, and the job checkpoints. STREAMSQL_DUMP_SCRAPE=1
// logs the scrape (docs/metrics.md's example scrapes come from this test
// and TestMetricsCheckpoints).
func TestMetricsRewoundClicks(t *testing.T) {
	r := startRewoundClicks(t)
	job := r.job(t, ",\n  'scan.watermark.gap-alert' = '1 h'")
	_, _, stderr := startRun(t, "--http", "127.0.0.1:0", "--set", "parallelism=1", "--state-dir", t.TempDir(),
		"--set", "execution.checkpointing.interval=200ms", job)
	url := serveURL(t, stderr)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("serving at %s, not on the loopback address asked for", url)
	}
	t0 := float64(r.t0.UnixMilli()) / 1000
	delay, days := 5.0, rewind.Seconds()
	src := func(table string) map[string]string { return map[string]string{"table": table} }
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"streamsql_source_rows_read_total", src("impressions"), 10},
		{"streamsql_source_rows_read_total", src("clicks"), 20},
		{"streamsql_source_watermark_seconds", src("clicks"), t0 - days - delay},
		{"streamsql_source_watermark_seconds", src("impressions"), t0 - delay},
		{"streamsql_source_max_event_time_seconds", src("clicks"), t0},
		{"streamsql_source_event_time_gap_seconds", src("clicks"), days + delay},
		{"streamsql_source_event_time_gap_seconds", src("impressions"), delay},
		{"streamsql_source_split_watermark_seconds", map[string]string{"table": "clicks", "split": "clicks-0"}, t0 - delay},
		{"streamsql_source_split_watermark_seconds", map[string]string{"table": "clicks", "split": "clicks-1"}, t0 - days - delay},
		{"streamsql_operator_input_watermark_seconds", map[string]string{"input_name": "i"}, t0 - delay},
		{"streamsql_operator_input_watermark_seconds", map[string]string{"input_name": "c"}, t0 - days - delay},
		{"streamsql_operator_watermark_seconds", map[string]string{"name": "IntervalJoin INNER(i, c)"}, t0 - days - delay},
		{"streamsql_operator_input_drift_seconds", map[string]string{"name": "IntervalJoin INNER(i, c)"}, days},
		{"streamsql_source_bad_rows_total", src("clicks"), 0},
		{"streamsql_source_gap_alert", src("clicks"), 1},
		{"streamsql_source_gap_alerts_total", src("clicks"), 1},
		{"streamsql_source_gap_alert", src("impressions"), 0},
		{"streamsql_source_gap_alerts_total", src("impressions"), 0},
		{"streamsql_job_info", map[string]string{"job_name": "attribution.sql", "state": "RUNNING"}, 1},
		{"streamsql_source_bytes_read_total", src("impressions"), float64(r.bytes["impressions-0"])},
		{"streamsql_source_bytes_read_total", src("clicks"), float64(r.bytes["clicks-0"] + r.bytes["clicks-1"])},
	}
	for _, split := range []string{"impressions-0", "clicks-0", "clicks-1"} {
		table, _, _ := strings.Cut(split, "-")
		l := map[string]string{"table": table, "split": split}
		want = append(want, struct {
			name   string
			labels map[string]string
			value  float64
		}{"streamsql_source_split_bytes_read_total", l, float64(r.bytes[split])}, struct {
			name   string
			labels map[string]string
			value  float64
		}{"streamsql_source_split_lag_records", l, 0})
	}
	// The values settle as the rows and watermarks travel from the sources
	// to the join: scrape until they all hold, and report those that never
	// do.
	var fams map[string]*dto.MetricFamily
	var body string
	var wrong []string
	for end := time.Now().Add(60 * time.Second); ; {
		fams, body = scrape(t, url)
		wrong = wrong[:0]
		for _, w := range want {
			got, ok := sample(fams, w.name, w.labels)
			if !ok || math.Abs(got-w.value) > 1e-6 {
				wrong = append(wrong, fmt.Sprintf("%s%v = %v (present %v), want %v", w.name, w.labels, got, ok, w.value))
			}
		}
		if lag, ok := sample(fams, "streamsql_source_watermark_lag_seconds", src("clicks")); !ok || lag < days {
			wrong = append(wrong, fmt.Sprintf("clicks' watermark lag is %v (present %v), want at least three days", lag, ok))
		}
		if n, _ := sample(fams, "streamsql_checkpoints_completed_total", nil); n < 1 {
			wrong = append(wrong, "no checkpoint completed")
		}
		if len(wrong) == 0 || time.Now().After(end) {
			break
		}
		time.Sleep(10 * time.Millisecond) // between scrapes; the loop waits on the values above
	}
	const warning = "warning: source clicks: event-time gap alert: its max event time 2026-11-20 12:00:09.000 is 3d ahead of its watermark 2026-11-17 12:00:04.000"
	waitFor(t, "the warning of clicks' gap alert on stderr", func() bool { return strings.Contains(stderr.String(), warning) })
	if strings.Contains(stderr.String(), "source impressions: event-time gap alert") {
		t.Errorf("stderr warns of a gap alert on impressions:\n%s", stderr.String())
	}
	if len(wrong) > 0 {
		t.Errorf("after 60 s:\n%s\nscrape:\n%s", strings.Join(wrong, "\n"), body)
	}
	promtoolCheck(t, body)
	checkStateBytes(t, url)
	if os.Getenv("STREAMSQL_DUMP_SCRAPE") != "" {
		t.Log(body)
	}

	// The API gives the join's input watermarks as Flink names them.
	var detail struct {
		Vertices []struct{ ID, Name string }
	}
	getJSON(t, url+"api/jobs/1", &detail)
	join := ""
	for _, v := range detail.Vertices {
		if v.Name == "IntervalJoin INNER(i, c)" {
			join = v.ID
		}
	}
	if join == "" {
		t.Fatalf("GET /api/jobs/1 lists no vertex IntervalJoin INNER(i, c): %+v", detail.Vertices)
	}
	var wms []struct{ ID, Value string }
	getJSON(t, url+"api/jobs/1/vertices/"+join+"/watermarks", &wms)
	ms := func(d time.Duration) string { return strconv.FormatInt(r.t0.Add(d).UnixMilli(), 10) }
	wantWM := []struct{ ID, Value string }{
		{"0.currentInputWatermark", ms(-rewind - 5*time.Second)},
		{"0.currentInput1Watermark", ms(-5 * time.Second)},
		{"0.currentInput2Watermark", ms(-rewind - 5*time.Second)},
	}
	if !slices.Equal(wms, wantWM) {
		t.Errorf("GET /api/jobs/1/vertices/%s/watermarks = %v, want %v", join, wms, wantWM)
	}
}

// checkStateBytes: the rewound-clicks join, which holds rows, has state
// bytes in memory and on disk (its --state-dir store).
func checkStateBytes(t *testing.T, url string) {
	t.Helper()
	join := map[string]string{"name": "IntervalJoin INNER(i, c)"}
	fams, body := scrape(t, url)
	rows, _ := sample(fams, "streamsql_operator_state_rows", join)
	mem, _ := sample(fams, "streamsql_operator_state_memory_bytes", join)
	disk, _ := sample(fams, "streamsql_operator_state_disk_bytes", join)
	if rows <= 0 || mem <= 0 || disk <= 0 {
		t.Errorf("the join holds %v rows in %v bytes of memory and %v on disk; want all three above 0\n%s", rows, mem, disk, body)
	}
}

// TestMetricsCheckpoints: a job that checkpoints (datagen into a file,
// --state-dir, a checkpoint every 200 ms) exports its checkpoints, and the
// last one's size is that of the newest checkpoint on disk; none failed,
// and the age and duration are within a minute.
func TestMetricsCheckpoints(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	job := writeJob(t, "gen.sql", `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '`+out+`', 'format' = 'json');
INSERT INTO sink SELECT id FROM gen;
`)
	stateDir := t.TempDir()
	_, _, stderr := startRun(t, "--http", "127.0.0.1:0", "--state-dir", stateDir,
		"--set", "execution.checkpointing.interval=200ms", job)
	url := serveURL(t, stderr)
	var body string
	// Checkpoints go on being taken: scrape, then read the newest on disk,
	// until no checkpoint completed in between.
	waitFor(t, "checkpoint metrics that match the newest checkpoint on disk", func() bool {
		var fams map[string]*dto.MetricFamily
		fams, body = scrape(t, url)
		done, _ := sample(fams, "streamsql_checkpoints_completed_total", nil)
		size, ok := sample(fams, "streamsql_checkpoint_last_size_bytes", nil)
		if done < 2 || !ok {
			return false
		}
		d, err := checkpoint.Open(stateDir, checkpoint.Options{})
		if err != nil {
			return false
		}
		c, _, err := d.Latest()
		return err == nil && c != nil && float64(c.Size()) == size
	})
	fams, _ := scrape(t, url)
	if os.Getenv("STREAMSQL_DUMP_SCRAPE") != "" {
		t.Log(body)
	}
	failed, okFailed := sample(fams, "streamsql_checkpoints_failed_total", nil)
	age, okAge := sample(fams, "streamsql_checkpoint_age_seconds", nil)
	dur, okDur := sample(fams, "streamsql_checkpoint_last_duration_seconds", nil)
	if !okFailed || failed != 0 || !okAge || age < 0 || age > 60 || !okDur || dur < 0 || dur > 60 {
		t.Errorf("checkpoints: failed %v (%v), age %v s (%v), last duration %v s (%v); want 0 failed, an age and a duration within a minute\n%s\nstderr:\n%s",
			failed, okFailed, age, okAge, dur, okDur, body, stderr.String())
	}
}

// TestShellServesItsJobs: `streamsql shell --http` shows a background
// INSERT in /metrics under its SHOW JOBS id, the API lists it, and its
// page draws its graph.
func TestShellServesItsJobs(t *testing.T) {
	cmd := exec.Command(os.Args[0], "shell", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(`CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id FROM gen;
`)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	url := serveURL(t, &stdout)
	waitFor(t, "the background job's rows in /metrics", func() bool {
		fams, _ := scrape(t, url)
		n, _ := sample(fams, "streamsql_sink_rows_written_total", map[string]string{"job_id": "1", "table": "sink"})
		return n > 0
	})
	var jobs struct{ Jobs []struct{ ID, Status string } }
	getJSON(t, url+"api/jobs", &jobs)
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].ID != "1" || jobs.Jobs[0].Status != "RUNNING" {
		t.Errorf("GET /api/jobs = %+v, want job 1 RUNNING\nstdout:\n%s\nstderr:\n%s", jobs, stdout.String(), stderr.String())
	}
	// Its page draws its graph: the datagen source, the sink.
	page := string(get(t, url+"jobs/1"))
	if strings.Count(page, `<g class="node"`) < 2 || !strings.Contains(page, "Source: gen") || !strings.Contains(page, "Sink: sink") {
		t.Errorf("the background job's page has no graph of its source and sink:\n%s", page)
	}
}

// get fetches url and returns its body, failing the test unless it is 200 OK.
func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	return body
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	body := get(t, url)
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, body)
	}
}

// promtoolCheck runs `promtool check metrics` on a scrape. .ci/run
// installs promtool (Debian's prometheus package); without it the check
// is skipped outside CI and fails in CI.
func promtoolCheck(t *testing.T, body string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if ciRun() {
			t.Fatal("promtool is missing in CI: .ci/run installs it (Debian's prometheus package)")
		}
		t.Log("promtool is not installed: the scrape was not checked by it")
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func ciRun() bool { return os.Getenv("CI") != "" }

// checkGraph: the job graph on page has a box for each vertex of job 1
// that the API lists, an edge from each of the join's inputs to it, and in
// the join's box its changelog mode and keys as EXPLAIN prints them.
func checkGraph(t *testing.T, url, page string) {
	t.Helper()
	var detail struct {
		Vertices []struct{ ID, Name string }
	}
	getJSON(t, url+"api/jobs/1", &detail)
	if len(detail.Vertices) < 4 {
		t.Fatalf("GET /api/jobs/1 lists %d vertices: %+v", len(detail.Vertices), detail.Vertices)
	}
	join := ""
	for _, v := range detail.Vertices {
		if !strings.Contains(page, `<g class="node" data-id="`+v.ID+`"`) {
			t.Errorf("the graph has no box for %s (%s)", v.ID, v.Name)
		}
		if v.Name == "IntervalJoin INNER(i, c)" {
			join = v.ID
		}
	}
	i := strings.Index(page, `<g class="node" data-id="`+join+`"`)
	if join == "" || i < 0 {
		t.Fatalf("no box for the join %q", join)
	}
	box := page[i : i+strings.Index(page[i:], "</g>")]
	for _, want := range []string{"mode=[+I]", "keys=(i.ad_id = c.ad_id)", "state: left rows: until watermark", "rows in "} {
		if !strings.Contains(box, want) {
			t.Errorf("the join's box lacks %q:\n%s", want, box)
		}
	}
	if n := strings.Count(page, `data-to="`+join+`"`); n != 2 {
		t.Errorf("%d edges go into the join, want 2", n)
	}
}

// TestRunPortInUse: a run whose --http address is taken exits 1 saying
// so, and one whose port is not a number is a usage error.
func TestRunPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	job := writeJob(t, "busy.sql", `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id FROM gen;
`)
	r := invoke("run", "--http", ln.Addr().String(), job)
	if r.code != 1 || !strings.Contains(r.stderr, "cannot serve metrics and the web UI at "+ln.Addr().String()) {
		t.Errorf("streamsql run --http <a port in use>: %s", r)
	}
	if r := invoke("run", "--http", "127.0.0.1:port", job); r.code != 2 || !strings.Contains(r.stderr, `port "port"`) {
		t.Errorf("streamsql run --http 127.0.0.1:port: %s", r)
	}
}

// TestWebUIInChromium: the web UI of the rewound-clicks job in a real
// headless Chromium (Debian's chromium; .ci/run installs it, and the test
// skips only outside CI when it is missing). The page loads offline, the
// event-time chart has one watermark and one max-event-time series per
// input, clicks' row is marked red by its gap alert and impressions' is
// not, the operators table shows the join, and the chart grows between two
// loads. The job graph has a box for every vertex the API lists, edges
// from each input of the join to it, and the join's changelog mode and
// keys as EXPLAIN prints them; the state and late-row charts have a series
// per stateful operator and per input, and grow. This is issue #15's
// "done when" end to end: a Kafka job run with --http, its page showing
// the rewound input's gap, its /metrics scraped (and checked by promtool).
// STREAMSQL_UI_SCREENSHOT=path also saves a screenshot there (how
// docs/metrics-ui.png was made).
func TestWebUIInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if ciRun() {
			t.Fatal("chromium is missing in CI: .ci/run installs it")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	r := startRewoundClicks(t)
	job := r.job(t, ",\n  'scan.watermark.gap-alert' = '1 h'")
	_, _, stderr := startRun(t, "--http", "127.0.0.1:0", "--set", "parallelism=1", job)
	url := serveURL(t, stderr)
	var scraped string
	waitFor(t, "clicks' gap alert in /metrics", func() bool {
		fams, body := scrape(t, url)
		scraped = body
		v, _ := sample(fams, "streamsql_source_gap_alert", map[string]string{"table": "clicks"})
		w, _ := sample(fams, "streamsql_operator_watermark_seconds", map[string]string{"name": "IntervalJoin INNER(i, c)"})
		return v == 1 && w > 0
	})
	promtoolCheck(t, scraped)
	// Each Chromium gets a minute: one that hangs on a loaded machine
	// fails the test instead of stalling it until go test's timeout.
	headless := func(args ...string) *exec.Cmd {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		cmd := exec.CommandContext(ctx, chromium, append([]string{"--headless", "--no-sandbox", "--disable-gpu",
			"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}, args...)...)
		cmd.WaitDelay = 5 * time.Second // its children may hold the pipes
		return cmd
	}
	dump := func() string {
		t.Helper()
		out, err := headless("--dump-dom", url+"jobs/1?refresh=0").Output()
		if err != nil {
			t.Fatalf("chromium --dump-dom: %v", err)
		}
		return string(out)
	}
	points := regexp.MustCompile(`<path class="series" data-input="(\w+)" data-kind="([a-z-]+)" data-points="(\d+)"`)
	first := dump()
	series := map[string]int{}
	for _, m := range points.FindAllStringSubmatch(first, -1) {
		n, _ := strconv.Atoi(m[3])
		series[m[1]+" "+m[2]] = n
	}
	for _, want := range []string{"impressions watermark", "impressions max-event-time", "clicks watermark", "clicks max-event-time"} {
		if series[want] == 0 {
			t.Errorf("the chart has no points for %s: %v", want, series)
		}
	}
	if len(series) != 4 {
		t.Errorf("the chart has %d series, want 4 (two inputs): %v", len(series), series)
	}
	if !strings.Contains(first, `<tr class="alert" data-table="clicks">`) || strings.Contains(first, `<tr class="alert" data-table="impressions">`) {
		t.Errorf("clicks' row is not the one marked red:\n%s", first)
	}
	if !strings.Contains(first, "IntervalJoin INNER(i, c)") || !strings.Contains(first, "3d") {
		t.Errorf("the page lacks the join or the 3-day gap:\n%s", first)
	}
	checkGraph(t, url, first)
	histories := regexp.MustCompile(`<path class="series" data-name="([^"]+)" data-points="(\d+)"`)
	chartPoints := func(page, chart string) map[string]int {
		i := strings.Index(page, `<svg id="`+chart+`"`)
		if i < 0 {
			t.Fatalf("the page has no chart %s", chart)
		}
		j := strings.Index(page[i:], "</svg>")
		out := map[string]int{}
		for _, m := range histories.FindAllStringSubmatch(page[i:i+j], -1) {
			out[m[1]], _ = strconv.Atoi(m[2])
		}
		return out
	}
	state0, late0 := chartPoints(first, "state-rows"), chartPoints(first, "late-rows")
	join := ""
	for name := range state0 {
		if strings.HasPrefix(name, "IntervalJoin INNER(i, c) [") {
			join = name
		}
	}
	if join == "" || state0[join] == 0 {
		t.Errorf("the state chart has no series for the join: %v", state0)
	}
	if len(late0) != 2 || late0["clicks"] == 0 || late0["impressions"] == 0 {
		t.Errorf("the late-rows chart has series %v, want one per input", late0)
	}
	// The history is sampled every second: the charts grow.
	waitFor(t, "the charts to grow", func() bool {
		page := dump()
		grown := false
		for _, m := range points.FindAllStringSubmatch(page, -1) {
			n, _ := strconv.Atoi(m[3])
			if m[1] == "clicks" && m[2] == "watermark" && n > series["clicks watermark"] {
				grown = true
			}
		}
		return grown && chartPoints(page, "state-rows")[join] > state0[join] && chartPoints(page, "late-rows")["clicks"] > late0["clicks"]
	})
	if path := os.Getenv("STREAMSQL_UI_SCREENSHOT"); path != "" {
		if out, err := headless("--window-size=1400,2600", "--screenshot="+path, url+"jobs/1?refresh=0").CombinedOutput(); err != nil {
			t.Fatalf("chromium --screenshot: %v\n%s", err, out)
		}
	}
}

// TestPrometheusScrapesRewoundClicks: a real Prometheus (Debian's
// prometheus package, which .ci/run installs for promtool) scrapes the
// rewound-clicks job run with --http, loads the alert rules of
// docs/metrics.md, and then answers a query for clicks' event-time gap with
// three days and five seconds and fires StreamsqlGapAlert for clicks, and
// for clicks only.
func TestPrometheusScrapesRewoundClicks(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if ciRun() {
			t.Fatal("prometheus is missing in CI: .ci/run installs it (Debian's prometheus package)")
		}
		t.Skip("prometheus is not installed (apt-get install prometheus)")
	}
	r := startRewoundClicks(t)
	job := r.job(t, ",\n  'scan.watermark.gap-alert' = '1 h'")
	_, _, stderr := startRun(t, "--http", "127.0.0.1:0", "--set", "parallelism=1", job)
	target := strings.TrimSuffix(strings.TrimPrefix(serveURL(t, stderr), "http://"), "/")

	dir := t.TempDir()
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rules, ok := strings.Cut(string(doc), "```yaml rules\n")
	rules, _, ok2 := strings.Cut(rules, "```")
	if !ok || !ok2 {
		t.Fatal("docs/metrics.md has no ```yaml rules block")
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	prom := ln.Addr().String()
	ln.Close() // Prometheus takes the port (a race with another process taking it first only fails the test)
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [%q]
scrape_configs:
  - job_name: streamsql
    static_configs: [{targets: [%q]}]
`, filepath.Join(dir, "rules.yml"), target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+prom)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	api := "http://" + prom + "/api/v1/"
	type result struct {
		Metric map[string]string
		Value  []any
	}
	var gap string
	waitFor(t, "Prometheus to have scraped clicks' event-time gap", func() bool {
		resp, err := http.Get(api + "query?query=" + url.QueryEscape(`streamsql_source_event_time_gap_seconds{table="clicks"}`))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var q struct{ Data struct{ Result []result } }
		if json.NewDecoder(resp.Body).Decode(&q) != nil || len(q.Data.Result) != 1 || len(q.Data.Result[0].Value) != 2 {
			return false
		}
		gap, _ = q.Data.Result[0].Value[1].(string)
		return true
	})
	if want := strconv.FormatFloat((rewind + 5*time.Second).Seconds(), 'f', -1, 64); gap != want {
		t.Errorf("Prometheus says clicks' gap is %s s, want %s", gap, want)
	}
	var firing []string
	waitFor(t, "StreamsqlGapAlert to fire in Prometheus", func() bool {
		resp, err := http.Get(api + "alerts")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var a struct {
			Data struct {
				Alerts []struct {
					Labels map[string]string
					State  string
				}
			}
		}
		if json.NewDecoder(resp.Body).Decode(&a) != nil {
			return false
		}
		firing = firing[:0]
		for _, x := range a.Data.Alerts {
			if x.Labels["alertname"] == "StreamsqlGapAlert" && x.State == "firing" {
				firing = append(firing, x.Labels["table"])
			}
		}
		return len(firing) > 0
	})
	if !slices.Equal(firing, []string{"clicks"}) {
		t.Errorf("StreamsqlGapAlert fires for %v, want clicks only\nprometheus:\n%s", firing, out.String())
	}
}
