package planner

import (
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
)

// splitFiles splits the input of a contracts directive into job files: each
// starts after a line "-- file: NAME" and runs to the next such line.
// Text before the first marker is a mistake in the test.
func splitFiles(t *testing.T, input string) []*diag.Source {
	t.Helper()
	var (
		srcs []*diag.Source
		name string
		body strings.Builder
	)
	flush := func() {
		if name != "" {
			srcs = append(srcs, diag.NewSource(name, body.String()))
		}
		body.Reset()
	}
	for line := range strings.SplitAfterSeq(input, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "-- file:"); ok {
			flush()
			name = strings.TrimSpace(rest)
			if name == "" {
				t.Fatalf("a '-- file:' line without a name")
			}
			continue
		}
		if name == "" {
			if strings.TrimSpace(line) != "" {
				t.Fatalf("contracts: text before the first '-- file: NAME' line: %q", line)
			}
			continue
		}
		body.WriteString(line)
	}
	flush()
	if len(srcs) == 0 {
		t.Fatalf("contracts: no '-- file: NAME' line")
	}
	return srcs
}

// contractsOutput checks each file of the input on its own, then the
// contracts between them, and prints the errors of each file alone (its
// warnings are the business of other golden files), then every diagnostic
// of the contracts; or "ok".
func contractsOutput(t *testing.T, input string) string {
	var jobs []*Job
	all := &diag.List{}
	for _, src := range splitFiles(t, input) {
		j := checkJob(src)
		for _, d := range j.Diags.Items {
			if d.Source == nil {
				d.Source = src
			}
			if d.Severity == diag.Error {
				all.Append(d)
			}
		}
		jobs = append(jobs, j)
	}
	all.Append(CheckContracts(jobs).Items...)
	if len(all.Items) == 0 {
		return "ok\n"
	}
	var b strings.Builder
	_ = diag.WriteText(&b, all)
	return b.String()
}

const (
	cdcWriter = `CREATE TABLE orders (
  order_id STRING,
  amount DECIMAL(10, 2)
) WITH ('connector' = 'datagen');
CREATE TABLE orders_cdc (
  order_id STRING,
  amount DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders-cdc',
  'properties.bootstrap.servers' = 'k1:9092, k2:9092',
  'format' = 'debezium-json'
);
INSERT INTO orders_cdc SELECT order_id, amount FROM orders;
`
	plainReader = `CREATE TABLE cdc_in (
  order_id STRING,
  amount DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders-cdc',
  'properties.bootstrap.servers' = 'k2:9092,k1:9092',
  'format' = 'json'
);
SELECT order_id, amount FROM cdc_in;
`
)

func TestContractsRefuseChangelogReadAsRows(t *testing.T) {
	w := checkJob(diag.NewSource("writer.sql", cdcWriter))
	r := checkJob(diag.NewSource("reader.sql", plainReader))
	for _, j := range []*Job{w, r} {
		if j.Diags.HasErrors() {
			t.Fatalf("%s alone: want no errors, got:\n%v", j.Source.Name, j.Diags.Err())
		}
		if l := CheckContracts([]*Job{j}); len(l.Items) > 0 {
			t.Errorf("%s alone: want no contract diagnostics, got:\n%v", j.Source.Name, l.Err())
		}
	}
	for _, order := range [][]*Job{{w, r}, {r, w}} {
		l := CheckContracts(order)
		if len(l.Items) != 1 {
			t.Fatalf("want 1 diagnostic, got:\n%v", l.Err())
		}
		d := l.Items[0]
		if d.Code != diag.ChangelogNotInterpreted || d.Severity != diag.Error {
			t.Errorf("got %s %s, want error %s", d.Severity, d.Code, diag.ChangelogNotInterpreted)
		}
		if d.Source != r.Source {
			t.Errorf("the diagnostic must be in the reader's file, got %v", d.Source)
		}
		if line, _ := r.Source.Position(d.Span.Start); line != 8 {
			t.Errorf("want the reader's 'format' option (line 8), got line %d", line)
		}
		if !strings.Contains(d.Msg, "writer.sql:14") || !strings.Contains(d.Msg, "retractions as rows") {
			t.Errorf("the message must name the writer's file and line and say why: %q", d.Msg)
		}
		if len(d.Hints) == 0 || !strings.Contains(d.Hints[0], "'format' = 'debezium-json'") {
			t.Errorf("want a hint to read it with debezium-json, got %q", d.Hints)
		}
	}
}

func TestContractsSameJob(t *testing.T) {
	// One job writes a changelog topic and reads it back as plain rows.
	text := cdcWriter + plainReader
	j := checkJob(diag.NewSource("loop.sql", text))
	if j.Diags.HasErrors() {
		t.Fatalf("the job alone has errors:\n%v", j.Diags.Err())
	}
	l := CheckContracts([]*Job{j})
	if len(l.Items) != 1 || l.Items[0].Code != diag.ChangelogNotInterpreted {
		t.Fatalf("want one %s, got:\n%v", diag.ChangelogNotInterpreted, l.Err())
	}
	d := l.Items[0]
	if len(d.Notes) != 1 || !d.Notes[0].Span.IsValid() {
		t.Errorf("in the same job the note points at the INSERT: %+v", d.Notes)
	}
}

func TestContractResourceMeets(t *testing.T) {
	topic := func(servers string, topics ...string) contractResource {
		return contractResource{servers: strings.Split(servers, ","), topics: topics}
	}
	for _, c := range []struct {
		w, r contractResource
		want bool
	}{
		{topic("a:1,b:2", "t"), topic("b:2,a:1", "t"), true},
		{topic("a:1", "t"), topic("a:1,c:3", "t"), true}, // a shared broker is the same cluster
		{topic("a:1", "t"), topic("c:3", "t"), false},
		{topic("a:1", "t"), topic("a:1", "u"), false},
		{topic("a:1", "t"), topic("a:1", "u", "t"), true},
		{contractResource{file: "/d/x.json"}, contractResource{file: "/d/x.json"}, true},
		{contractResource{file: "/d/x.json"}, topic("a:1", "/d/x.json"), false},
	} {
		if got := c.w.meets(c.r); got != c.want {
			t.Errorf("%+v meets %+v = %v, want %v", c.w, c.r, got, c.want)
		}
	}
}

// TestChangelogDocExample runs the example of "Contracts across jobs" in
// docs/changelog.md: the ```text blocks that start with "-- file: NAME" are
// the jobs (the comment line included, as a user would save them), and the
// block that starts with "$ streamsql check" is what check prints (its last
// line, the summary, goes to stderr). Each job alone must pass.
func TestChangelogDocExample(t *testing.T) {
	data, err := os.ReadFile("../docs/changelog.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Contracts across jobs\n")
	if !ok {
		t.Fatal("docs/changelog.md has no section '## Contracts across jobs'")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var (
		jobs []*Job
		want string
	)
	parts := strings.Split(section, "```text\n")
	for _, p := range parts[1:] {
		block, _, _ := strings.Cut(p, "```")
		first, _, _ := strings.Cut(block, "\n")
		switch {
		case strings.HasPrefix(first, "-- file: "):
			j := checkJob(diag.NewSource(strings.TrimPrefix(first, "-- file: "), block))
			if j.Diags.HasErrors() {
				t.Errorf("%s alone must pass:\n%v", j.Source.Name, j.Diags.Err())
			}
			if l := CheckContracts([]*Job{j}); len(l.Items) > 0 {
				t.Errorf("%s alone must pass:\n%v", j.Source.Name, l.Err())
			}
			jobs = append(jobs, j)
		case strings.HasPrefix(first, "$ streamsql check"):
			_, want, _ = strings.Cut(block, "\n")
		}
	}
	if len(jobs) != 2 || want == "" {
		t.Fatalf("want two job files and the output of check, found %d jobs and output %q", len(jobs), want)
	}
	l := CheckContracts(jobs)
	var b strings.Builder
	_ = diag.WriteText(&b, l)
	b.WriteString("\ncheck: 2 files, 1 error, 0 warnings\n")
	if b.String() != want {
		t.Errorf("docs/changelog.md shows:\n%s\nbut check prints:\n%s", want, b.String())
	}
}
