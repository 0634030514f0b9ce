package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// copyExample copies examples/ into a temporary directory, so a run writes
// its outputs there and not into the repository.
func copyExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir("../../examples", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../../examples", p)
		if rel == "out" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunBundledExample runs the README's first command: the payments
// example. O1-S1 and O2-S2 settle within four hours; O3-S3 (4.5 h) does
// not, nor does S4 for O1 at 15:00; O3 goes to the exceptions file, once.
func TestRunBundledExample(t *testing.T) {
	dir := copyExample(t)
	r := invoke("run", filepath.Join(dir, "payments.sql"))
	if r.code != 0 {
		t.Fatalf("run failed:\n%s", r)
	}
	want := []string{
		"settled> +I[O1, acct-1, 120.00, S1, 2026-01-01 10:30:00.000]",
		"settled> +I[O2, acct-2, 75.50, S2, 2026-01-01 13:45:00.000]",
	}
	// Keyed operators run in partitions: rows of different keys may come in
	// either order.
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	sort.Strings(lines)
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("settled rows:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "unsettled_orders.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantEx := `{"order_id":"O3","account_id":"acct-1","amount":1999.99,"order_time":"2026-01-01 10:30:00.000"}`
	if got := strings.TrimSpace(string(b)); got != wantEx {
		t.Errorf("exceptions file:\n%s\nwant:\n%s", got, wantEx)
	}
	for _, s := range []string{"sink settled", "2 rows written", "sink unsettled_orders", "IntervalJoin LEFT"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("summary lacks %q:\n%s", s, r.stderr)
		}
	}
}

func TestRunRefusesBadJobAndBadSettings(t *testing.T) {
	bad := writeJob(t, "bad.sql", badJob)
	if r := invoke("run", bad); r.code != 1 || !strings.Contains(r.stderr, "nothing was run") {
		t.Errorf("a job with errors: want exit 1, got:\n%s", r)
	}
	dir := copyExample(t)
	if r := invoke("run", "--set", "table.exec.state.ttl=forever", filepath.Join(dir, "payments.sql")); r.code != 2 {
		t.Errorf("an invalid --set: want exit 2, got:\n%s", r)
	}
}

func TestRunFailsOnABadRowWithItsLine(t *testing.T) {
	dir := copyExample(t)
	p := filepath.Join(dir, "data", "payment_orders.json")
	b, _ := os.ReadFile(p)
	lines := strings.Split(string(b), "\n")
	lines[1] = `{"order_id": "O2", "account_id": "acct-2", "amount": 75.50, "order_time": 1767262500000}`
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke("run", filepath.Join(dir, "payments.sql"))
	if r.code != 1 || !strings.Contains(r.stderr, "payment_orders.json:2") || !strings.Contains(r.stderr, "TO_TIMESTAMP_LTZ") {
		t.Errorf("want exit 1 naming payment_orders.json:2 and TO_TIMESTAMP_LTZ, got:\n%s", r)
	}
}

// TestRunUnionAllAtParallelism4 is the reproduction of #11.7: a UNION ALL
// of two self-joins over 3,000 rows at parallelism 4 into a json file and a
// print sink, run ten times. Every line of both must be whole and parse,
// and the rows must be those of a brute-force join computed here.
func TestRunUnionAllAtParallelism4(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(11))
	type in struct {
		k string
		v int
	}
	var input []in
	var data strings.Builder
	for i := 0; i < 3000; i++ {
		x := in{k: fmt.Sprintf("zz%d", r.Intn(400)), v: r.Intn(1000)}
		input = append(input, x)
		fmt.Fprintf(&data, "{\"k\":%q,\"v\":%d}\n", x.k, x.v)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range input {
		for _, b := range input {
			if a.k == b.k {
				want = append(want, fmt.Sprintf("%s,%d", a.k, b.v))
				if a.v < b.v {
					want = append(want, fmt.Sprintf("%s,%d", a.k, a.v))
				}
			}
		}
	}
	sort.Strings(want)
	job := writeJobIn(t, dir, "union.sql", `CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE f (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');
CREATE TABLE p (k STRING, v INT) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO f SELECT a.k, b.v FROM t a JOIN t b ON a.k = b.k UNION ALL SELECT a.k, a.v FROM t a JOIN t b ON a.k = b.k AND a.v < b.v;
INSERT INTO p SELECT a.k, b.v FROM t a JOIN t b ON a.k = b.k UNION ALL SELECT a.k, a.v FROM t a JOIN t b ON a.k = b.k AND a.v < b.v;
`)
	printed := regexp.MustCompile(`^out> \+I\[(zz\d+), (\d+)\]$`)
	for run := 1; run <= 10; run++ {
		res := invoke("run", "--set", "parallelism=4", job)
		if res.code != 0 {
			t.Fatalf("run %d: %s", run, res)
		}
		b, err := os.ReadFile(filepath.Join(dir, "out.json"))
		if err != nil {
			t.Fatal(err)
		}
		var file []string
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			var row struct {
				K *string
				V *int
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil || row.K == nil || row.V == nil {
				t.Fatalf("run %d: out.json:%d is not a row: %q", run, i+1, line)
			}
			file = append(file, fmt.Sprintf("%s,%d", *row.K, *row.V))
		}
		var console []string
		for i, line := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
			m := printed.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("run %d: stdout line %d is not a printed row: %q", run, i+1, line)
			}
			console = append(console, m[1]+","+m[2])
		}
		for _, got := range []struct {
			name string
			rows []string
		}{{"out.json", file}, {"print", console}} {
			sort.Strings(got.rows)
			if strings.Join(got.rows, "\n") != strings.Join(want, "\n") {
				t.Fatalf("run %d: %s has %d rows, want %d (the brute-force join)", run, got.name, len(got.rows), len(want))
			}
		}
		if n := fmt.Sprintf("%d rows written", len(want)); strings.Count(res.stderr, n) != 2 {
			t.Fatalf("run %d: the summary should say %q for both sinks:\n%s", run, n, res.stderr)
		}
	}
}

// writeJobIn writes a job file into dir.
func writeJobIn(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
