package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// buildBinary builds streamsql into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "streamsql")
	cmd := osexec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startDev runs `streamsql dev kafka` as a process and returns the address
// it printed on its first line, and a function that stops it with SIGINT;
// it must then exit 0. It is stopped at the end of the test at the latest.
func startDev(t *testing.T, bin string, args ...string) (string, func()) {
	t.Helper()
	addr, stop, _ := startDevLog(t, bin, args...)
	return addr, stop
}

// startDevLog is startDev, and also returns a function that returns every
// line the broker printed so far.
func startDevLog(t *testing.T, bin string, args ...string) (string, func(), func() []string) {
	t.Helper()
	cmd := osexec.Command(bin, append([]string{"dev", "kafka", "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGINT)
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("streamsql dev kafka: %v\n%s", err, stderr.String())
				}
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				t.Error("streamsql dev kafka did not stop on SIGINT")
			}
		})
	}
	t.Cleanup(stop)
	var first string
	var rest []string
	timeout := time.After(10 * time.Second)
	for len(rest) < 2 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("streamsql dev kafka ended: %s", stderr.String())
			}
			if first == "" {
				first = l
			} else {
				rest = append(rest, l)
			}
		case <-timeout:
			t.Fatalf("streamsql dev kafka printed no address: %s", stderr.String())
		}
	}
	addr, ok := strings.CutPrefix(first, "streamsql dev kafka: listening on ")
	if !ok {
		t.Fatalf("first line %q", first)
	}
	if !strings.Contains(rest[0], "keeps nothing, for development only") {
		t.Errorf("the broker does not say it is for development: %q", rest[0])
	}
	var mu sync.Mutex
	printed := append([]string{first}, rest...)
	go func() {
		for l := range lines { // keep the pipe drained
			mu.Lock()
			printed = append(printed, l)
			mu.Unlock()
		}
	}()
	return addr, stop, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(printed)
	}
}

// TestDevKafka: the development broker listens where it says and has the
// topics asked for.
func TestDevKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	addr, _ := startDev(t, bin, "--topics", "a:3,b")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tds, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tds["a"].Partitions) != 3 || len(tds["b"].Partitions) != 1 {
		t.Errorf("topics %v", tds.Names())
	}
	if r := invoke("dev", "kafka", "--topics", "a:0"); r.code != 2 || !strings.Contains(r.stderr, "at least one partition") {
		t.Errorf("--topics a:0: %s", r)
	}
	if r := invoke("dev", "zookeeper"); r.code != 2 {
		t.Errorf("dev zookeeper: %s", r)
	}
}

// TestKcatInterop: kcat (librdkafka, a client nobody here wrote) produces the
// input of a real `streamsql run` against `streamsql dev kafka`, and
// consumes its output.
func TestKcatInterop(t *testing.T) {
	kcat, err := osexec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat is not on PATH: install the Debian package kcat (.ci/run does) to run the Kafka interop test")
	}
	bin := buildBinary(t)
	addr, _ := startDev(t, bin, "--topics", "orders:2,big:2,totals:2")
	var in strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&in, "o%d:{\"id\": %d, \"customer\": \"c%d\", \"amount\": %d, \"ts\": \"2026-01-01 00:00:%02d\"}\n", i, i, i%3, i*10, i)
	}
	kc := func(stdin string, args ...string) string {
		t.Helper()
		cmd := osexec.Command(kcat, append([]string{"-b", addr}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kcat %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	kc(in.String(), "-t", "orders", "-P", "-K:")

	job := filepath.Join(t.TempDir(), "job.sql")
	sql := fmt.Sprintf(`CREATE TABLE orders (
  id BIGINT, customer STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');

CREATE TABLE big (id BIGINT, amount BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'big', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'key.format' = 'json', 'key.fields' = 'id');

CREATE TABLE totals (customer STRING, total BIGINT, n BIGINT, PRIMARY KEY (customer) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json');

INSERT INTO big SELECT id, amount FROM orders WHERE amount >= 150;
INSERT INTO totals SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer;
`, addr)
	if err := os.WriteFile(job, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	run := osexec.Command(bin, "run", job)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("streamsql run: %v\n%s", err, out)
	}

	got := strings.Split(strings.TrimSpace(kc("", "-t", "big", "-C", "-e", "-q", "-f", `%k %s\n`)), "\n")
	slices.Sort(got)
	var want []string
	for i := 15; i <= 20; i++ {
		want = append(want, fmt.Sprintf(`{"id":%d} {"id":%d,"amount":%d}`, i, i, i*10))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("topic big:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The upsert topic, compacted by key, holds one total per customer.
	last := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(kc("", "-t", "totals", "-C", "-e", "-q", "-f", `%k %s\n`)), "\n") {
		k, v, _ := strings.Cut(l, " ")
		last[k] = v
	}
	sums, counts := map[int]int{}, map[int]int{}
	for i := 1; i <= 20; i++ {
		sums[i%3] += i * 10
		counts[i%3]++
	}
	for c := range 3 {
		k := fmt.Sprintf(`{"customer":"c%d"}`, c)
		if v := fmt.Sprintf(`{"customer":"c%d","total":%d,"n":%d}`, c, sums[c], counts[c]); last[k] != v {
			t.Errorf("totals %s = %s, want %s", k, last[k], v)
		}
	}
	if len(last) != 3 {
		t.Errorf("totals: %v", last)
	}
}

// TestRunRefusesLeftJoinIntoJSON: `streamsql run` of a regular LEFT JOIN
// into a plain json topic stops at the planner's SQL400, exits 1 and runs
// nothing: neither that topic nor the topic of a valid INSERT in the same
// job gets a record, although the inputs hold rows to join.
func TestRunRefusesLeftJoinIntoJSON(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "orders", "shipments", "enriched", "copy"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx,
		&kgo.Record{Topic: "orders", Value: []byte(`{"order_id": 1, "amount": 10}`)},
		&kgo.Record{Topic: "orders", Value: []byte(`{"order_id": 2, "amount": 20}`)},
		&kgo.Record{Topic: "shipments", Value: []byte(`{"ship_id": "s1", "order_id": 1}`)},
	).FirstErr(); err != nil {
		t.Fatal(err)
	}
	job := writeJob(t, "refused.sql", fmt.Sprintf(`CREATE TABLE orders (order_id BIGINT, amount BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE shipments (ship_id STRING, order_id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'shipments', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE enriched (order_id BIGINT, amount BIGINT, ship_id STRING)
WITH ('connector' = 'kafka', 'topic' = 'enriched', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
CREATE TABLE copy (order_id BIGINT, amount BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'copy', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO copy SELECT order_id, amount FROM orders;
INSERT INTO enriched
SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`, addr))
	r := invoke("run", job)
	if r.code != 1 || !strings.Contains(r.stderr, ":12:1: error: sink enriched (kafka, json) is append-only") ||
		!strings.Contains(r.stderr, "[SQL400]") || !strings.Contains(r.stderr, "nothing was run") {
		t.Errorf("streamsql run: %s", r)
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "enriched", "copy", "orders")
	if err != nil {
		t.Fatal(err)
	}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			t.Errorf("%s/%d: %v", o.Topic, o.Partition, o.Err)
		}
		if o.Topic != "orders" && o.Offset != 0 {
			t.Errorf("%s/%d has %d records: the refused job wrote", o.Topic, o.Partition, o.Offset)
		}
	})
	if n := len(ends["orders"]); n != 2 {
		t.Errorf("orders: %d partitions listed; the check above saw nothing", n)
	}
}

// TestRunBrokerGone: a real `streamsql run` process reads an unbounded
// topic of `streamsql dev kafka` and copies it to another; once every row
// reached the output, the broker is stopped. The job exits 1 within
// 'scan.broker-timeout', saying which table and topic and why, instead of
// waiting forever.
func TestRunBrokerGone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	addr, stopBroker := startDev(t, bin, "--topics", "orders:2,copy:1")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for i := range 50 {
		recs = append(recs, &kgo.Record{Topic: "orders", Value: []byte(fmt.Sprintf(`{"id": %d}`, i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	job := writeJob(t, "gone.sql", fmt.Sprintf(`CREATE TABLE orders (id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.broker-timeout' = '500 ms');
CREATE TABLE copy (id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'copy', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO copy SELECT id FROM orders;
`, addr))
	run := osexec.Command(bin, "run", job)
	var stderr strings.Builder
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var runErr error
	go func() {
		runErr = run.Wait()
		close(exited)
	}()
	defer func() {
		_ = run.Process.Kill() // if it still runs
		<-exited
	}()
	// Wait until the copy holds every row: the job is running.
	adm := kadm.NewClient(cl)
	for copied := int64(0); copied < 50; {
		select {
		case <-exited:
			t.Fatalf("streamsql run ended before it copied the rows: %v\n%s", runErr, stderr.String())
		case <-ctx.Done():
			_ = run.Process.Kill()
			<-exited // stderr is complete
			t.Fatalf("the job copied %d of 50 rows\n%s", copied, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		ends, err := adm.ListEndOffsets(ctx, "copy")
		if err != nil {
			continue
		}
		copied = 0
		ends.Each(func(o kadm.ListedOffset) { copied += o.Offset })
	}
	stopBroker()
	select {
	case <-exited:
		var ee *osexec.ExitError
		if !errors.As(runErr, &ee) || ee.ExitCode() != 1 {
			t.Errorf("streamsql run: %v, want exit status 1\n%s", runErr, stderr.String())
		}
	case <-ctx.Done():
		_ = run.Process.Kill()
		<-exited
		t.Fatalf("streamsql run still runs after the broker stopped\n%s", stderr.String())
	}
	for _, want := range []string{"streamsql run: the job failed: source orders: kafka: table orders: reading topic orders",
		"no answer from the brokers " + addr + " for 500ms ('scan.broker-timeout')"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
}
