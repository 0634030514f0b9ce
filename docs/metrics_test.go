package docs_test

// docs/metrics.md is checked against the metrics package:
//
//	```prometheus          an example scrape: it parses as Prometheus's text
//	                       format, its streamsql_ metrics are the engine's,
//	                       with the engine's HELP, TYPE and labels, and
//	                       promtool check metrics accepts it; every metric
//	                       the engine exports is in one of them
//
// and its table documents every metric, with its type and labels.

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/streamsql/streamsql/metrics"
)

// metricsDoc is docs/metrics.md.
const metricsDoc = "metrics.md"

// TestMetricsDocumented: every metric the engine exports has a row in the
// table of docs/metrics.md with its type and its labels beyond job_id and
// job_name; and every streamsql_ metric the table names exists.
func TestMetricsDocumented(t *testing.T) {
	data, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `streamsql_") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[strings.Trim(cells[0], "`")] = cells
	}
	known := map[string]bool{}
	for _, f := range metrics.Families() {
		known[f.Name] = true
		cells, ok := rows[f.Name]
		if !ok {
			t.Errorf("%s: %s is exported but has no row in the table", metricsDoc, f.Name)
			continue
		}
		if len(cells) < 4 {
			t.Errorf("%s: the row of %s has %d cells, want 4 (metric, type, labels, meaning)", metricsDoc, f.Name, len(cells))
			continue
		}
		if cells[1] != f.Type {
			t.Errorf("%s: %s is a %s, the table says %q", metricsDoc, f.Name, f.Type, cells[1])
		}
		if want := strings.Join(f.Labels[2:], ", "); cells[2] != want {
			t.Errorf("%s: %s has labels job_id, job_name and %q; the table says %q", metricsDoc, f.Name, want, cells[2])
		}
		if cells[3] == "" {
			t.Errorf("%s: %s has no meaning in the table", metricsDoc, f.Name)
		}
	}
	for name := range rows {
		if !known[name] {
			t.Errorf("%s: the table documents %s, which the engine does not export", metricsDoc, name)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no metric table found", metricsDoc)
	}
}

// TestMetricsExampleScrape: the ```prometheus blocks of docs/metrics.md
// are scrapes the engine could have served, and together show every
// metric.
func TestMetricsExampleScrape(t *testing.T) {
	var blocks int
	shown := map[string]bool{}
	for _, f := range fences(t, metricsDoc) {
		if f.lang() != "prometheus" {
			continue
		}
		blocks++
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(f.text))
		if err != nil {
			t.Errorf("%s: the scrape does not parse: %v", f.where(), err)
			continue
		}
		for _, want := range metrics.Families() {
			got := fams[want.Name]
			if got == nil {
				continue
			}
			shown[want.Name] = true
			if got.GetHelp() != want.Help {
				t.Errorf("%s: %s's HELP is %q in the docs, %q in the engine", f.where(), want.Name, got.GetHelp(), want.Help)
			}
			if typ := strings.ToLower(got.GetType().String()); typ != want.Type {
				t.Errorf("%s: %s is a %s in the docs, a %s in the engine", f.where(), want.Name, typ, want.Type)
			}
			for _, m := range got.GetMetric() {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, l.GetName())
				}
				if w := slices.Sorted(slices.Values(want.Labels)); !slices.Equal(labels, w) {
					t.Errorf("%s: a sample of %s has labels %v, the engine gives %v", f.where(), want.Name, labels, w)
				}
			}
		}
		for name := range fams {
			if strings.HasPrefix(name, "streamsql_") && !slices.ContainsFunc(metrics.Families(), func(f metrics.Family) bool { return f.Name == name }) {
				t.Errorf("%s: the example scrape has %s, which the engine does not export", f.where(), name)
			}
		}
		promtool(t, f.where(), f.text, "check", "metrics")
	}
	if blocks == 0 {
		t.Fatalf("%s has no ```prometheus example scrape", metricsDoc)
	}
	for _, want := range metrics.Families() {
		if !shown[want.Name] {
			t.Errorf("%s: no example scrape shows %s", metricsDoc, want.Name)
		}
	}
}

// promtool runs promtool with args on input. .ci/run installs it (Debian's
// prometheus package): in CI a missing promtool fails the test, elsewhere
// the check is skipped with a note.
func promtool(t *testing.T, where, input string, args ...string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool is missing in CI: .ci/run installs it (Debian's prometheus package)")
		}
		t.Logf("%s: promtool is not installed; promtool %s skipped", where, strings.Join(args, " "))
		return
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = strings.NewReader(input)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: promtool %s: %v\n%s", where, strings.Join(args, " "), err, out)
	}
}

// TestMetricsAlertRules: the ```yaml rules block of docs/metrics.md loads
// in promtool check rules, and promtool test rules shows its gap rule
// firing on a rewound input (a gap of three days) and not on one whose
// gap is its 5-second watermark delay, and its checkpoint-age rule firing
// on a job whose checkpoints stopped (an age growing a minute a minute)
// once it passes ten minutes, and not on one that checkpoints.
func TestMetricsAlertRules(t *testing.T) {
	var rules *fence
	for _, f := range fences(t, metricsDoc) {
		if f.lang() == "yaml" && len(f.info) == 2 && f.info[1] == "rules" {
			rules = f
		}
	}
	if rules == nil {
		t.Fatalf("%s has no ```yaml rules block", metricsDoc)
	}
	dir := t.TempDir()
	path := dir + "/streamsql.rules.yml"
	if err := os.WriteFile(path, []byte(rules.text), 0o644); err != nil {
		t.Fatal(err)
	}
	promtool(t, rules.where(), "", "check", "rules", path)
	test := `rule_files: [streamsql.rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'streamsql_source_event_time_gap_seconds{job_id="1",job_name="attribution",table="clicks"}'
        values: '259205x20'
      - series: 'streamsql_source_event_time_gap_seconds{job_id="1",job_name="attribution",table="impressions"}'
        values: '5x20'
      - series: 'streamsql_checkpoint_age_seconds{job_id="2",job_name="stuck"}'
        values: '0+60x20'
      - series: 'streamsql_checkpoint_age_seconds{job_id="3",job_name="healthy"}'
        values: '10x20'
    alert_rule_test:
      - eval_time: 3m
        alertname: StreamsqlEventTimeGap
      - eval_time: 10m
        alertname: StreamsqlEventTimeGap
        exp_alerts:
          - exp_labels:
              severity: critical
              job_id: "1"
              job_name: attribution
              table: clicks
            exp_annotations:
              summary: "attribution: table clicks holds event time back by 3d 0h 0m 5s"
              description: "One split (partition) of the table is far behind the others (rewound or lagging): see streamsql_source_split_watermark_seconds. State downstream grows with the gap."
      - eval_time: 10m
        alertname: StreamsqlCheckpointAge
      - eval_time: 11m
        alertname: StreamsqlCheckpointAge
        exp_alerts:
          - exp_labels:
              severity: warning
              job_id: "2"
              job_name: stuck
            exp_annotations:
              summary: "stuck: no checkpoint completed for 11m 0s"
              description: "A restart would read again everything since the last checkpoint: see streamsql_checkpoints_failed_total and the job's log."
`
	testPath := dir + "/streamsql.test.yml"
	if err := os.WriteFile(testPath, []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	promtool(t, rules.where(), "", "test", "rules", testPath)
}
