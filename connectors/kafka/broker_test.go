package kafka

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	_ "github.com/streamsql/streamsql/connectors/blackhole"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/internal/plantest"
)

// A broker that goes away while a job runs: the job fails with the table,
// the topic and the reason within its documented bound, and never reports
// success with rows missing.

// killableCluster is cluster that also returns the cluster, to close it.
func killableCluster(t *testing.T, topics map[string]int32) (*kfake.Cluster, string) {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	for name, n := range topics {
		opts = append(opts, kfake.SeedTopics(n, name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()[0]
}

// running is a job started by startJob.
type running struct {
	*exec.Job
	done chan struct{} // closed when Run returned
	err  error         // what Run returned, once done is closed
}

// startJob plans sql as `streamsql run` does and runs it in the
// background. The context is only a safety net against a hung job: the
// bounds under test are far shorter.
func startJob(t *testing.T, sql string) *running {
	t.Helper()
	plans, settings := plan(t, sql)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := &running{Job: job, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = job.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// waitFor waits until cond holds or the job ends, and reports whether cond
// held.
func (r *running) waitFor(cond func() bool) bool {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-r.done:
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// failure waits for the job's end and returns its error; a job that ends
// without one fails the test, as does one the safety net had to stop.
func (r *running) failure(t *testing.T) error {
	t.Helper()
	<-r.done
	if r.err == nil {
		t.Fatal("the job reported success")
	}
	if strings.Contains(r.err.Error(), context.DeadlineExceeded.Error()) {
		t.Fatalf("the job hung until the test's safety net stopped it: %v", r.err)
	}
	t.Logf("the job failed: %v", r.err)
	return r.err
}

// TestSourceBrokerGone: an unbounded read whose broker stops after the job
// read every record fails within 'scan.broker-timeout', naming the table,
// the topic and why, instead of retrying forever.
func TestSourceBrokerGone(t *testing.T) {
	c, addr := killableCluster(t, map[string]int32{"orders": 2})
	var recs []rec
	for i := range 20 {
		recs = append(recs, rec{partition: int32(i % 2), value: js(i, "01")})
	}
	produce(t, addr, "orders", recs...)
	job := startJob(t, fmt.Sprintf(`
CREATE TABLE orders (id BIGINT, name STRING, ts TIMESTAMP(3))
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.broker-timeout' = '300 ms');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id FROM orders;
`, addr))
	if !job.waitFor(func() bool { return job.Sources[0].In.Load() == 20 }) {
		t.Fatalf("the job ended (%v) after reading %d rows", job.err, job.Sources[0].In.Load())
	}
	c.Close()
	err := job.failure(t)
	for _, want := range []string{"table orders", "orders", "300ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Why: the last attempt's error, which depends on when the client
	// noticed: a refused connection, or one the broker closed (EOF).
	if !strings.Contains(err.Error(), "connect") && !strings.Contains(err.Error(), "EOF") {
		t.Errorf("error %q does not say why (a refused connection or EOF)", err)
	}
}

// TestSourceBrokerGoneBounded: a bounded read whose broker stops answering
// fetches half way fails, naming the table and the topic, rather than
// reporting success with half the rows.
func TestSourceBrokerGoneBounded(t *testing.T) {
	c, addr := killableCluster(t, map[string]int32{"orders": 1})
	// One batch per produce call, and a fetch returns at most one: the
	// first fetch returns the first batch only.
	for i := range 4 {
		produce(t, addr, "orders", rec{value: js(i, "01")})
	}
	var fetches atomic.Int32
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if fetches.Add(1) == 1 {
			return nil, nil, false // answered normally
		}
		return nil, fmt.Errorf("the broker went away"), true // the connection is closed
	})
	c.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if fetches.Load() < 2 {
			return nil, nil, false
		}
		return nil, fmt.Errorf("the broker went away"), true
	})
	job := startJob(t, fmt.Sprintf(`
CREATE TABLE orders (id BIGINT, name STRING, ts TIMESTAMP(3))
WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'scan.broker-timeout' = '300 ms',
  'properties.max.partition.fetch.bytes' = '1', 'properties.fetch.max.bytes' = '1');
CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id FROM orders;
`, addr))
	err := job.failure(t)
	if n := job.Sources[0].In.Load(); n >= 4 {
		t.Errorf("the source read %d rows: the broker did not go away before the end", n)
	}
	for _, want := range []string{"table orders", "topic orders", "300ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestSinkBrokerGone: a sink whose broker stops while the job writes fails
// within 'properties.delivery.timeout.ms', naming the table, the topic and
// why.
func TestSinkBrokerGone(t *testing.T) {
	c, addr := killableCluster(t, map[string]int32{"out": 2})
	job := startJob(t, fmt.Sprintf(`
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE out (id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
  'properties.delivery.timeout.ms' = '1000');
INSERT INTO out SELECT id FROM gen;
`, addr))
	written := func() bool {
		n := int64(0)
		for _, e := range endOffsets(t, addr, "out") {
			n += e
		}
		return n >= 100
	}
	if !job.waitFor(written) {
		t.Fatalf("the job ended (%v) before 100 records reached the topic", job.err)
	}
	c.Close()
	err := job.failure(t)
	for _, want := range []string{"table out", "topic out"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if job.Sinks[0].Out.Load() < 100 {
		t.Errorf("sink counter %d", job.Sinks[0].Out.Load())
	}
}

// TestSinkBrokerRefuses: a bounded job whose broker takes the first
// produce request and refuses every later one with an error the producer
// retries fails within 'properties.delivery.timeout.ms', naming the table
// and the topic, and does not report success although most rows are
// missing from the topic.
func TestSinkBrokerRefuses(t *testing.T) {
	c, addr := killableCluster(t, map[string]int32{"out": 1})
	var mu sync.Mutex
	seen := map[kmsg.Request]bool{}
	c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.NotEnoughReplicas, Count: -1,
		When: func(req kmsg.Request) bool {
			mu.Lock()
			defer mu.Unlock()
			seen[req] = true
			return len(seen) > 1 // the first request is answered
		}})
	job := startJob(t, fmt.Sprintf(`
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5000', 'rows-per-second' = '1000000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000');
CREATE TABLE out (id BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
  'properties.delivery.timeout.ms' = '1000', 'properties.linger.ms' = '0', 'properties.batch.size' = '1000');
INSERT INTO out SELECT id FROM gen;
`, addr))
	err := job.failure(t)
	if !strings.Contains(err.Error(), "table out: producing to topic out") ||
		!strings.Contains(err.Error(), "timed out") && !strings.Contains(err.Error(), "not acknowledged within 1s") {
		t.Errorf("error %q does not name the table, the topic and the timeout", err)
	}
	n := int64(0)
	for _, e := range endOffsets(t, addr, "out") {
		n += e
	}
	if n == 0 || n >= 5000 {
		t.Errorf("the topic has %d of 5000 records; the test wants the first request written and the rest refused", n)
	}
	// The summary counts as written what the broker acknowledged, not what
	// was handed to the producer.
	if w := job.Sinks[0].Out.Load(); w != n {
		t.Errorf("the sink counts %d rows written; the broker acknowledged %d", w, n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Errorf("%d produce requests: the fault never applied", len(seen))
	}
}
