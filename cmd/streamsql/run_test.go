package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// startRun starts `streamsql run ARGS` as a child process (the test binary
// is the command, see TestMain), with stdout and stderr gathered.
func startRun(t *testing.T, args ...string) (*osexec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := osexec.Command(os.Args[0], append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &stdout, &stderr
}

// syncBuffer is a bytes.Buffer safe for a child's output and a test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it holds; it fails the test after a generous
// deadline (a slow machine must not fail a correct program).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sequenceLines checks that data is whole json lines {"id":1}, {"id":2}, …
// and returns how many.
func sequenceLines(t *testing.T, data []byte) int {
	t.Helper()
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("the file ends in part of a line: …%q", data[max(len(data)-60, 0):])
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		var r struct{ ID int64 }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d is not a row: %q", n+1, line)
		}
		if r.ID != int64(n+1) {
			t.Fatalf("line %d holds id %d: rows were lost or repeated", n+1, r.ID)
		}
		n++
	}
	return n
}

// TestRunKilledLeavesWholeLines: a job killed with SIGKILL while it writes
// a file sink leaves a file of whole, parseable lines, in order.
func TestRunKilledLeavesWholeLines(t *testing.T) {
	dir := t.TempDir()
	job := writeJobIn(t, dir, "gen.sql", `CREATE TABLE g (id BIGINT, pad STRING) WITH (
  'connector' = 'datagen', 'rows-per-second' = '20000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000',
  'fields.pad.length' = '37');
CREATE TABLE o (id BIGINT, pad STRING) WITH ('connector' = 'filesystem', 'path' = 'out/o.json', 'format' = 'json');
INSERT INTO o SELECT id, pad FROM g;
`)
	out := filepath.Join(dir, "out", "o.json")
	cmd, _, stderr := startRun(t, job)
	waitFor(t, "rows in out/o.json", func() bool {
		st, err := os.Stat(out)
		return err == nil && st.Size() > 300<<10
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The documented exception (connectors/filesystem/doc.go): Linux may
	// cut one write call at a page boundary when SIGKILL lands inside it.
	// Then the file ends at a multiple of the page size, and everything
	// before its last newline is whole lines; any other cut is a bug.
	if len(data) > 0 && data[len(data)-1] != '\n' {
		if page := os.Getpagesize(); len(data)%page != 0 {
			t.Fatalf("the file ends in part of a line at %d bytes, not at a page boundary (%d): …%q", len(data), page, data[max(len(data)-60, 0):])
		}
		t.Logf("SIGKILL cut the last write at a page boundary (%d bytes): checking the whole lines before it", len(data))
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	if n := sequenceLines(t, data); n == 0 {
		t.Fatalf("no rows were written\n%s", stderr)
	}
}

// TestRunFailedLeavesWholeLines: a job that stops on a bad row after many
// good ones leaves a file of whole lines, in order.
func TestRunFailedLeavesWholeLines(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&in, "{\"id\":%d,\"pad\":\"%s\"}\n", i, strings.Repeat("p", i%40))
	}
	in.WriteString("{\"id\":\"lots\"}\n")
	if err := os.WriteFile(filepath.Join(dir, "in.json"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	job := writeJobIn(t, dir, "fail.sql", `CREATE TABLE i (id BIGINT, pad STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE o (id BIGINT, pad STRING) WITH ('connector' = 'filesystem', 'path' = 'out/o.json', 'format' = 'json');
INSERT INTO o SELECT id, pad FROM i;
`)
	r := invoke("run", job)
	if r.code != 1 || !strings.Contains(r.stderr, "in.json:100001") {
		t.Fatalf("want exit 1 naming in.json:100001:\n%s", r)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "o.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Nothing keyed runs in partitions here: every row before the bad one
	// reached the sink before the job stopped.
	if n := sequenceLines(t, data); n != 100000 {
		t.Fatalf("the file holds %d rows, want the 100000 before the bad one", n)
	}
}

// TestRunSeveralSelects (#19.7): several SELECTs in one run, at
// parallelism 4, print at once; every line says which query it belongs to,
// each query's lines form its own table, whose rows are the query's answer
// (computed here from the input), and the summary counts each query's
// changes.
func TestRunSeveralSelects(t *testing.T) {
	dir := t.TempDir()
	var data strings.Builder
	counts := map[string]int{}
	var small []string
	for i := 0; i < 5000; i++ {
		k := fmt.Sprintf("k%d", i%13)
		counts[k]++
		if i%100 == 0 {
			small = append(small, fmt.Sprintf("%s|%d", k, i))
		}
		fmt.Fprintf(&data, "{\"k\":%q,\"v\":%d}\n", k, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var perKey []string
	for k, n := range counts {
		perKey = append(perKey, fmt.Sprintf("%s|%d", k, n))
	}
	job := writeJobIn(t, dir, "q.sql", `CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE b (k STRING) WITH ('connector' = 'blackhole');
SELECT k, v FROM t WHERE MOD(v, 100) = 0;
INSERT INTO b SELECT k FROM t;
SELECT k, COUNT(*) FROM t GROUP BY k;
SELECT COUNT(*) FROM t;
`)
	res := invoke("run", "--set", "parallelism=4", job)
	if res.code != 0 {
		t.Fatalf("%s", res)
	}
	// Each query's lines, without the prefix.
	lines := map[string][]string{}
	for i, l := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
		name, rest, ok := strings.Cut(l, "> ")
		if !ok || !regexp.MustCompile(`^query [123]$`).MatchString(name) {
			t.Fatalf("stdout line %d does not say its query: %q", i+1, l)
		}
		lines[name] = append(lines[name], rest)
	}
	cell := regexp.MustCompile(`\s*\|\s*`)
	for _, q := range []struct {
		name, sql, summary string
		want               []string
	}{
		{"query 1", "SELECT k, v FROM t WHERE MOD(v, 100) = 0", "query 1 (line 3)", small},
		{"query 2", "SELECT k, COUNT(*) FROM t GROUP BY k", "query 2 (line 5)", perKey},
		{"query 3", "SELECT COUNT(*) FROM t", "query 3 (line 6)", []string{"5000"}},
	} {
		ls := lines[q.name]
		if len(ls) < 6 || ls[0] != q.sql || !strings.HasPrefix(ls[1], "+----") || !strings.HasPrefix(ls[2], "| op ") ||
			!strings.HasPrefix(ls[3], "+----") || !strings.HasPrefix(ls[len(ls)-2], "+----") ||
			!strings.HasPrefix(ls[len(ls)-1], "Query finished.") {
			t.Fatalf("%s is not one table:\n%s", q.name, strings.Join(ls, "\n"))
		}
		var changes []string
		for _, l := range ls[4 : len(ls)-2] {
			cells := cell.Split(strings.Trim(l, "| "), -1)
			if len(cells) < 2 {
				t.Fatalf("%s: not a row: %q", q.name, l)
			}
			changes = append(changes, cells[0]+"["+strings.Join(cells[1:], "|")+"]")
		}
		got := materializeChanges(t, changes)
		sort.Strings(q.want)
		if strings.Join(got, "\n") != strings.Join(q.want, "\n") {
			t.Errorf("%s: got %v, want %v", q.name, got, q.want)
		}
		want := fmt.Sprintf("  %-35s %8d changes printed\n", q.summary, len(changes))
		if !strings.Contains(res.stderr, want) {
			t.Errorf("the summary lacks %q:\n%s", want, res.stderr)
		}
	}
}

// materializeChanges applies changes like "+I[a|1]" to a multiset and
// returns its rows, sorted.
func materializeChanges(t *testing.T, changes []string) []string {
	t.Helper()
	bag := map[string]int{}
	for _, c := range changes {
		body := strings.TrimSuffix(c[3:], "]")
		switch c[:2] {
		case "+I", "+U":
			bag[body]++
		case "-U", "-D":
			if bag[body] == 0 {
				t.Fatalf("%s retracts a row that is not there", c)
			}
			bag[body]--
		}
	}
	var out []string
	for r, n := range bag {
		for range n {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// TestRunRefusesASinkOnItsInput: a sink on the job's own input file used
// to empty it before it was read (`run` exited 0 with 0 rows and a 0-byte
// input). It is refused before anything is opened (SQL410), and the input
// is left as it was. The sink reaches the file through a symbolic link, so
// only resolving paths as the runtime opens them finds it.
func TestRunRefusesASinkOnItsInput(t *testing.T) {
	dir := t.TempDir()
	data := `{"id":"a","n":1}` + "\n" + `{"id":"b","n":2}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "data.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("data.json", filepath.Join(dir, "same.json")); err != nil {
		t.Fatal(err)
	}
	job := `CREATE TABLE src (id STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'data.json', 'format' = 'json');
CREATE TABLE out1 (id STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'same.json', 'format' = 'json');
INSERT INTO out1 SELECT id, n + 1 FROM src;
`
	path := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	r := invoke("run", path)
	if r.code != 1 || !strings.Contains(r.stderr, "[SQL410]") || !strings.Contains(r.stderr, "job.sql:2:") {
		t.Errorf("want exit 1 with SQL410 at job.sql:2, got:\n%s", r)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "data.json")); err != nil || string(b) != data {
		t.Errorf("the input was touched: %q, %v", b, err)
	}
}

// TestRunFileURIPaths: 'path' may be a file: URI, as in Flink
// (file:///abs/path); check accepted it and run looked for a file named
// "file:" in the job's directory.
func TestRunFileURIPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.json"), []byte(`{"id":"a","n":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job := fmt.Sprintf(`CREATE TABLE src (id STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'file://%s/in.json', 'format' = 'json');
CREATE TABLE out1 (id STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'file://localhost%s/out.json', 'format' = 'json');
INSERT INTO out1 SELECT id, n + 1 FROM src;
`, dir, dir)
	r := invoke("run", writeJob(t, "job.sql", job))
	if r.code != 0 {
		t.Fatalf("run failed:\n%s", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if want := `{"id":"a","n":2}` + "\n"; err != nil || string(b) != want {
		t.Errorf("out.json = %q (%v), want %q", b, err, want)
	}
}
