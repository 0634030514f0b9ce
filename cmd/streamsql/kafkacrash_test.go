package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Kafka and checkpoints (#13): the broker is a kfake cluster in the test
// process, so it outlives every run of the job, which runs as a child
// process with --state-dir.

// kafkaCrashTables are the inputs of the Kafka scenarios: two topics of
// two partitions, bounded at their end at the first run's start, read
// through 'properties.group.id' = 'crash' (committed after each
// checkpoint).
const kafkaCrashTables = `SET 'execution.checkpointing.interval' = '%[2]s';
SET 'parallelism' = '2';
CREATE TABLE a (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'a', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
    'properties.group.id' = 'crash', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE b (id INT, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'b', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
    'properties.group.id' = 'crash', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
`

// kafkaToFileJob joins the topics into a json file.
const kafkaToFileJob = kafkaCrashTables + `CREATE TABLE o (id INT, v INT, w INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out/o.json', 'format' = 'json');
INSERT INTO o SELECT a.id, v, w, a.ts FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`

// crashBroker starts a kfake cluster with the topics (name → partitions).
func crashBroker(t *testing.T, topics map[string]int32) (string, *kgo.Client) {
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
	addr := c.ListenAddrs()[0]
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return addr, cl
}

// kafkaCrashInputs writes what crashInputs writes to files into topics a
// and b, row i into partition i%2: each partition's event times ascend.
func kafkaCrashInputs(t *testing.T, cl *kgo.Client, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, side := range []struct {
		topic, col string
		mul        int
	}{{"a", "v", 1}, {"b", "w", 7}} {
		recs := make([]*kgo.Record, 0, n)
		for i := range n {
			ms := int64(i) * 3
			v := fmt.Sprintf(`{"id": %d, "%s": %d, "ts": "%s"}`, (i*side.mul)%997, side.col, i,
				time.UnixMilli(1767225600000+ms).UTC().Format("2006-01-02 15:04:05.000"))
			recs = append(recs, &kgo.Record{Topic: side.topic, Partition: int32(i % 2), Value: []byte(v)})
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// groupOffsets sums the offsets committed by group for topic.
func groupOffsets(t *testing.T, cl *kgo.Client, group, topic string) int64 {
	t.Helper()
	rs, err := kadm.NewClient(cl).FetchOffsets(context.Background(), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	rs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic && o.At > 0 {
			sum += o.At
		}
	})
	return sum
}

// TestKafkaSourceStopResume: a job reading Kafka checkpoints (it no longer
// runs without); SIGTERM takes a last checkpoint whose offsets are
// committed to the group; the next run resumes from it (seeking every
// partition) and writes the clean run's rows.
func TestKafkaSourceStopResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job three times")
	}
	addr, cl := crashBroker(t, map[string]int32{"a": 2, "b": 2})
	const rows = 150000
	kafkaCrashInputs(t, cl, rows)
	dir := t.TempDir()
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(kafkaToFileJob, addr, "100ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "o.json")
	begun := time.Now()
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	t.Logf("clean run: %s", time.Since(begun))
	want := fileLinesSorted(t, out)
	if len(want) < rows/2 {
		t.Fatalf("the clean run wrote %d rows", len(want))
	}
	if n := groupOffsets(t, cl, "crash", "a"); n != 0 {
		t.Fatalf("a run without checkpoints committed offsets (%d)", n)
	}

	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "state")
	cmd := exec.Command(os.Args[0], "run", "--state-dir", st, job)
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-afterOutput(st, out):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = <-exited
	case err := <-exited:
		t.Skipf("the job ended (%v) before its first checkpoint: nothing to stop\n%s", err, stderr.String())
	}
	if cmd.ProcessState.ExitCode() != 143 || !strings.Contains(stderr.String(), "the next run with --state-dir") ||
		strings.Contains(stderr.String(), "no checkpoints are taken") {
		t.Fatalf("SIGTERM: want exit 143 and a last checkpoint, got exit %d:\n%s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	if n := groupOffsets(t, cl, "crash", "a") + groupOffsets(t, cl, "crash", "b"); n <= 0 || n >= 2*rows {
		t.Errorf("after the stop, group crash has committed %d offsets of topics a and b, want some of %d\n%s", n, 2*rows, stderr.String())
	}
	r := invoke("run", "--state-dir", st, job)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming from checkpoint") {
		t.Fatalf("the job again: want it resumed, got:\n%s", r)
	}
	if got := fileLinesSorted(t, out); !slices.Equal(got, want) {
		missing, extra := diffMultiset(want, got)
		t.Fatalf("stopped and resumed: %d rows, the clean run %d; missing %d (e.g. %q), extra %d (e.g. %q)",
			len(got), len(want), len(missing), first(missing), len(extra), first(extra))
	}
}

// afterOutput fires once the file out has rows and a checkpoint completed
// in st after they were there.
func afterOutput(st, out string) <-chan time.Time {
	ch := make(chan time.Time, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if fi, err := os.Stat(out); err == nil && fi.Size() > 0 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		ch <- <-afterCheckpoint(st, latestComplete(st), 0)
	}()
	return ch
}
