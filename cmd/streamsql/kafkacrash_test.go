package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
	// The stop comes once the sink's file has rows, not after a periodic
	// checkpoint: the sources have then read a fraction of their rows
	// however fast the machine (stopped after a checkpoint, a run of 1.3 s
	// could read all of its input first, and end without the last
	// checkpoint this test is about). SIGTERM's checkpoint commits the
	// offsets.
	select {
	case <-afterBytes(out):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err == nil {
			t.Fatalf("the stopped job exited 0 (it read all of its input before the stop: nothing to resume):\n%s", stderr.String())
		}
	case err := <-exited:
		t.Fatalf("the job ended (%v) before it wrote a row: nothing to stop\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "watermark +inf") {
		t.Fatalf("the stopped job had read all of its input: nothing to resume\n%s", stderr.String())
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

// kafkaSinkJob joins the topics into topic %[3]s: 'kafka' with the
// delivery guarantee %[4]s (and transactional id prefix %[5]s).
const kafkaSinkJob = kafkaCrashTables + `CREATE TABLE o (id INT, v INT, w INT, ts TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = '%[3]s', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json',
    'sink.delivery-guarantee' = '%[4]s', 'sink.transactional-id-prefix' = '%[5]s');
INSERT INTO o SELECT a.id, v, w, a.ts FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`

// upsertSinkJob joins the topics and counts per id into upsert-kafka
// topic %[3]s (at-least-once: the table is the clean run's however often
// a row after a checkpoint is written again).
const upsertSinkJob = kafkaCrashTables + `CREATE TABLE u (id INT, n BIGINT, w INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '%[3]s', 'properties.bootstrap.servers' = '%[1]s',
    'key.format' = 'json', 'value.format' = 'json');
INSERT INTO u SELECT a.id, COUNT(*), MAX(w) FROM a JOIN b
  ON a.id = b.id AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND GROUP BY a.id;
`

// createTopic makes topic with two partitions.
func createTopic(t *testing.T, cl *kgo.Client, topic string) {
	t.Helper()
	rs, err := kadm.NewClient(cl).CreateTopics(context.Background(), 2, 1, nil, topic)
	if err == nil {
		err = rs.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// topicRecord is a record read back.
type topicRecord struct{ key, value string }

// readTopic reads every record of topic visible at the isolation level,
// to the high watermark; read_committed also requires that no
// transaction is left open (the last stable offset is the high
// watermark): a transaction a crashed run left open would hold every
// reader back.
func readTopic(t *testing.T, addr string, cl *kgo.Client, topic string, committed bool) []topicRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	opts := []kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.KeepControlRecords()}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	} else {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	}
	rd, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	next := map[int32]int64{}
	var out []topicRecord
	reached := func() bool {
		done := true
		ends.Each(func(o kadm.ListedOffset) {
			if next[o.Partition] < o.Offset {
				done = false
			}
		})
		return done
	}
	for !reached() {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("topic %s: read to %v of end offsets %v: a transaction left open holds read_committed readers back", topic, next, ends)
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			for _, r := range p.Records {
				next[r.Partition] = r.Offset + 1
				if !r.Attrs.IsControl() {
					var v string
					if r.Value != nil {
						v = string(r.Value)
					}
					out = append(out, topicRecord{key: string(r.Key), value: v})
				}
			}
			// Aborted records are skipped by a read_committed fetch: the
			// partition has been read to its last stable offset.
			if committed && p.LastStableOffset > next[p.Partition] && len(p.Records) == 0 {
				next[p.Partition] = p.LastStableOffset
			}
		})
	}
	return out
}

func values(recs []topicRecord) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.value)
	}
	slices.Sort(out)
	return out
}

// table is the compacted view of an upsert topic: the last value per key,
// a tombstone deleting it.
func table(recs []topicRecord) map[string]string {
	m := map[string]string{}
	for _, r := range recs {
		if r.value == "" {
			delete(m, r.key)
		} else {
			m[r.key] = r.value
		}
	}
	return m
}

// kafkaCrashKills is the number of kills per Kafka scenario: a few in make
// test, STREAMSQL_CRASH_KILLS under make crash.
func kafkaCrashKills(t *testing.T) (kills, rows int) {
	kills, rows = 2, 150000
	if s := os.Getenv("STREAMSQL_CRASH_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		kills = n
	}
	return kills, rows
}

// kafkaCrashEpisodes kills runs of the job made by jobFor(episode), which
// writes topic topicFor(episode), until kills add up; after each episode
// check compares its output. records is about what a whole run writes to
// the topic (the clean run's records), span about how long it takes.
func kafkaCrashEpisodes(t *testing.T, dir, addr string, kills int, records int64, span time.Duration,
	jobFor func(ep int) string, topicFor func(ep int) string, check func(ep int)) {
	t.Helper()
	st := filepath.Join(dir, "state")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	seed := rng.Uint64()
	t.Logf("kill timing seed %d", seed)
	rng = rand.New(rand.NewPCG(seed, 13))
	var killed, resumed, runs, episodes, writing int
	for killed < kills || resumed == 0 {
		episodes++
		if episodes > 4*kills+3 {
			t.Fatalf("%d episodes, %d kills, %d resumed: the job ends before the kills come", episodes, killed, resumed)
		}
		job, topic := jobFor(episodes), topicFor(episodes)
		kk := kills - killed
		if resumed == 0 {
			// Until a run resumes from a checkpoint: the kills spent so far
			// may all have come before the first checkpoint completed.
			kk = max(kk, 1)
		}
		k, r, n, w := kafkaCrashRuns(t, rng, job, st, addr, topic, kk, records, span)
		killed, resumed, runs, writing = killed+k, resumed+r, runs+n, writing+w
		check(episodes)
		if err := os.RemoveAll(st); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d episodes, %d runs, %d killed (%d while writing records after a checkpoint), %d resumed from a checkpoint: "+
		"every episode's output was the clean run's", episodes, runs, killed, writing, resumed)
}

// kafkaCrashRuns runs the job with --state-dir st until it finishes,
// killing the first kills runs. One in three is killed at a random moment
// (restoring, reading, writing a checkpoint): 50 ms and a random time
// within span after it starts, or once it has written a random number of
// records to topic (up to 2/5 of records), whichever comes first. The
// others are killed while they write records after a checkpoint: once the
// topic has grown since the run began, a checkpoint has completed since,
// and the topic has grown by a random number of records (up to 1/20 of
// records) since that checkpoint. The moments are conditions on the run's
// progress, so a run with that much output left is killed however fast the
// machine is (a kill only at a time drawn from the clean run's, or a time
// after a checkpoint, could come after a faster run had ended). writing
// counts the kills of the second kind.
func kafkaCrashRuns(t *testing.T, rng *rand.Rand, job, st, addr, topic string, kills int, records int64, span time.Duration) (killed, resumed, runs, writing int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	hwm := func() int64 {
		ends, err := adm.ListEndOffsets(context.Background(), topic)
		if err != nil {
			return -1
		}
		var sum int64
		ends.Each(func(o kadm.ListedOffset) { sum += o.Offset })
		return sum
	}
	for {
		runs++
		if runs > 4*kills+20 {
			t.Fatalf("the job did not finish after %d runs (%d killed)", runs, killed)
		}
		cmd := exec.Command(os.Args[0], "run", "--state-dir", st, job)
		cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		began := hwm()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		ended := make(chan struct{}) // closed once the run has exited
		go func() {
			exited <- cmd.Wait()
			close(ended)
		}()
		// until polls cond every 5 ms until it holds (true) or the run
		// has exited (false).
		until := func(cond func() bool) bool {
			for !cond() {
				select {
				case <-ended:
					return false
				case <-time.After(5 * time.Millisecond):
				}
			}
			return true
		}
		var err error
		if killed < kills {
			var at <-chan time.Time           // a random time (anywhere)
			progressed := make(chan struct{}) // closed at the moment on the run's progress
			anywhere := rng.IntN(3) == 0
			if anywhere {
				at = time.After(50*time.Millisecond + time.Duration(rng.Int64N(int64(span))))
				n := 1 + rng.Int64N(max(records*2/5, 1))
				go func() {
					if until(func() bool { return hwm() >= began+n }) {
						close(progressed)
					}
				}()
			} else {
				n := 1 + rng.Int64N(max(records/20, 1))
				go func() {
					if !until(func() bool { return hwm() > began }) {
						return
					}
					c := latestComplete(st)
					if !until(func() bool { return latestComplete(st) > c }) {
						return
					}
					var h int64
					if !until(func() bool { h = hwm(); return h >= 0 }) {
						return
					}
					if until(func() bool { return hwm() >= h+n }) {
						close(progressed)
					}
				}()
			}
			kill := false
			select {
			case err = <-exited:
			case <-at:
				kill = true
			case <-progressed:
				kill = true
			}
			if kill {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err = <-exited
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					killed++
					if !anywhere {
						writing++
					}
					if strings.Contains(stderr.String(), "resuming from checkpoint") {
						resumed++
					}
					continue
				}
			}
		} else {
			err = <-exited
		}
		if err != nil {
			t.Fatalf("run %d failed: %v\n%s", runs, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "resuming from checkpoint") {
			resumed++
		}
		return killed, resumed, runs, writing
	}
}

// TestKafkaExactlyOnceCrash: Kafka → interval join → kafka sink with
// 'exactly-once', killed with SIGKILL at random moments and resumed until
// it finishes: a read_committed reader of the topic sees exactly the clean
// run's records (as a multiset), and no transaction is left open.
func TestKafkaExactlyOnceCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job many times")
	}
	kills, rows := kafkaCrashKills(t)
	addr, cl := crashBroker(t, map[string]int32{"a": 2, "b": 2, "clean": 2})
	kafkaCrashInputs(t, cl, rows)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// The clean run: no checkpoints, at-least-once (exactly-once needs
	// checkpoints), nothing killed.
	begun := time.Now()
	if r := invoke("run", write("clean.sql", fmt.Sprintf(kafkaSinkJob, addr, "100ms", "clean", "at-least-once", "unused"))); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	span := max(time.Since(begun)*4/10, 150*time.Millisecond) // random kill times: 40% of the clean run's (a condition on the output caps them)
	want := values(readTopic(t, addr, cl, "clean", false))
	if len(want) < rows/2 {
		t.Fatalf("the clean run wrote %d records", len(want))
	}
	kafkaCrashEpisodes(t, dir, addr, kills, int64(len(want)), span, func(ep int) string {
		topic := fmt.Sprintf("out%d", ep)
		createTopic(t, cl, topic)
		return write("job.sql", fmt.Sprintf(kafkaSinkJob, addr, "100ms", topic, "exactly-once", fmt.Sprintf("crash-%d", ep)))
	}, func(ep int) string { return fmt.Sprintf("out%d", ep) }, func(ep int) {
		topic := fmt.Sprintf("out%d", ep)
		got := values(readTopic(t, addr, cl, topic, true))
		if !slices.Equal(got, want) {
			missing, extra := diffMultiset(want, got)
			all := len(readTopic(t, addr, cl, topic, false))
			t.Fatalf("episode %d: read_committed sees %d records (%d in all, aborted included), the clean run wrote %d; missing %d (e.g. %q), extra %d (e.g. %q)",
				ep, len(got), all, len(want), len(missing), first(missing), len(extra), first(extra))
		}
	})
}

// TestUpsertKafkaCrash: Kafka → interval join → group aggregate →
// upsert-kafka (at-least-once), killed at random and resumed: the
// compacted topic (the last record per key) is the clean run's table.
func TestUpsertKafkaCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job many times")
	}
	kills, rows := kafkaCrashKills(t)
	addr, cl := crashBroker(t, map[string]int32{"a": 2, "b": 2, "clean": 2})
	kafkaCrashInputs(t, cl, rows)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	begun := time.Now()
	if r := invoke("run", write("clean.sql", fmt.Sprintf(upsertSinkJob, addr, "100ms", "clean"))); r.code != 0 {
		t.Fatalf("clean run:\n%s", r)
	}
	span := max(time.Since(begun)*4/10, 150*time.Millisecond) // random kill times: 40% of the clean run's (a condition on the output caps them)
	clean := readTopic(t, addr, cl, "clean", false)
	want := table(clean)
	if len(want) < 500 {
		t.Fatalf("the clean run's table has %d keys", len(want))
	}
	kafkaCrashEpisodes(t, dir, addr, kills, int64(len(clean)), span, func(ep int) string {
		topic := fmt.Sprintf("up%d", ep)
		createTopic(t, cl, topic)
		return write("job.sql", fmt.Sprintf(upsertSinkJob, addr, "100ms", topic))
	}, func(ep int) string { return fmt.Sprintf("up%d", ep) }, func(ep int) {
		recs := readTopic(t, addr, cl, fmt.Sprintf("up%d", ep), false)
		got := table(recs)
		if !maps.Equal(got, want) {
			var diff []string
			for k, w := range want {
				if got[k] != w {
					diff = append(diff, fmt.Sprintf("key %s: %q, want %q", k, got[k], w))
				}
			}
			for k, g := range got {
				if _, ok := want[k]; !ok {
					diff = append(diff, fmt.Sprintf("key %s: %q, not in the clean run", k, g))
				}
			}
			slices.Sort(diff)
			t.Fatalf("episode %d: the compacted topic (%d records, %d keys) differs from the clean run's table (%d keys): %d keys differ, e.g. %s",
				ep, len(recs), len(got), len(want), len(diff), first(diff))
		}
	})
}
