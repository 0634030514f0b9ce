package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

const eosDDL = `CREATE TABLE t (id BIGINT) WITH ('connector'='kafka','topic'='out','properties.bootstrap.servers'='%s',
  'format'='json','sink.delivery-guarantee'='exactly-once','sink.transactional-id-prefix'='%s')`

// newEOSSink makes (without opening) an exactly-once sink on topic out.
func newEOSSink(t *testing.T, addr, prefix string) *Sink {
	t.Helper()
	s, err := NewSink(conntest.SinkSpec(t, fmt.Sprintf(eosDDL, addr, prefix), ""))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func idRows(ids ...int64) row.Batch {
	var b row.Batch
	for _, id := range ids {
		b = append(b, row.Row{Kind: changelogmode.Insert, Vals: []row.Value{row.IntValue(id)}})
	}
	return b
}

// committedIDs reads topic as a read_committed consumer to its end
// offsets, and fails if a transaction left open holds it back.
func committedIDs(t *testing.T, addr, topic string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want := endOffsets(t, addr, topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	next := map[int32]int64{}
	var out []string
	for {
		done := true
		for p, e := range want {
			if next[p] < e {
				done = false
			}
		}
		if done {
			break
		}
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read_committed read %v of %v: a transaction is left open", next, want)
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			for _, r := range p.Records {
				next[r.Partition] = r.Offset + 1
				if !r.Attrs.IsControl() {
					out = append(out, string(r.Value))
				}
			}
			if len(p.Records) == 0 && p.LastStableOffset > next[p.Partition] {
				next[p.Partition] = p.LastStableOffset // aborted records, skipped
			}
		})
	}
	slices.Sort(out)
	return out
}

func jsonIDs(ids ...int) []string {
	var out []string
	for _, id := range ids {
		out = append(out, fmt.Sprintf(`{"id":%d}`, id))
	}
	slices.Sort(out)
	return out
}

// stable sums the last stable offsets (what read_committed readers may
// read up to) and the end offsets of topic's partitions.
func stable(t *testing.T, addr, topic string) (lso, end int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	c, err := adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = c.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = e.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Each(func(o kadm.ListedOffset) { lso += o.Offset })
	e.Each(func(o kadm.ListedOffset) { end += o.Offset })
	return lso, end
}

// TestExactlyOnceCommitsOnCompletion: records of an exactly-once sink are
// invisible to read_committed readers until the checkpoint that holds them
// completes; a stop (Close) aborts what no checkpoint holds.
func TestExactlyOnceCommitsOnCompletion(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 2})
	ctx := context.Background()
	s := newEOSSink(t, addr, "p1")
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, idRows(1, 2, 3)); err != nil {
		t.Fatal(err)
	}
	st, err := s.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lso, end := stable(t, addr, "out"); end != 3 || lso != 0 {
		t.Fatalf("pre-committed: last stable offsets %d, end offsets %d; want 0 and 3", lso, end)
	}
	if err := s.Write(ctx, idRows(4)); err != nil { // the next transaction
		t.Fatal(err)
	}
	if err := s.CheckpointComplete(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // a stop: 4 is aborted
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3); !slices.Equal(got, want) {
		t.Fatalf("read_committed sees %v, want %v", got, want)
	}
}

// TestExactlyOnceResume: a run that crashed after its checkpoint was
// complete but before it committed (and with a transaction open after it)
// is recovered by the next: the checkpoint's transaction is committed, the
// open one aborted, and a commit that already happened is no error.
func TestExactlyOnceResume(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 2})
	ctx := context.Background()
	crashed := newEOSSink(t, addr, "p2")
	if err := crashed.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := crashed.Write(ctx, idRows(1, 2)); err != nil {
		t.Fatal(err)
	}
	st, err := crashed.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := crashed.Write(ctx, idRows(3)); err != nil {
		t.Fatal(err)
	}
	if err := crashed.flush(ctx); err != nil {
		t.Fatal(err)
	}
	// The crash: the process is gone without a word to the brokers
	// (crashed is never closed).
	resumed := newEOSSink(t, addr, "p2")
	if err := resumed.Resume(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Write(ctx, idRows(3, 4)); err != nil {
		t.Fatal(err)
	}
	st2, err := resumed.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.CheckpointComplete(ctx, st2); err != nil {
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3, 4); !slices.Equal(got, want) {
		t.Fatalf("read_committed sees %v, want %v", got, want)
	}
	// Resumed again from the first checkpoint, whose transaction is now
	// committed: no error, nothing twice.
	again := newEOSSink(t, addr, "p2")
	if err := again.Resume(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3, 4); !slices.Equal(got, want) {
		t.Fatalf("read_committed sees %v, want %v", got, want)
	}
}

// TestExactlyOnceFinished: at the end of its input the sink commits
// everything, with a marker in the same transaction; a crash after that
// and before the job exits resumes from the last checkpoint, and the
// resumed run writes nothing again.
func TestExactlyOnceFinished(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 2})
	ctx := context.Background()
	first := newEOSSink(t, addr, "p3")
	if err := first.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Write(ctx, idRows(1)); err != nil {
		t.Fatal(err)
	}
	st, err := first.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.CheckpointComplete(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := first.Write(ctx, idRows(2)); err != nil {
		t.Fatal(err)
	}
	// A checkpoint whose barrier passed the sink but which never completed.
	if _, err := first.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Write(ctx, idRows(3)); err != nil {
		t.Fatal(err)
	}
	if err := first.Flush(ctx); err != nil { // the end of the input
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3); !slices.Equal(got, want) {
		t.Fatalf("after the end: read_committed sees %v, want %v", got, want)
	}
	// Killed before it exits; the next run resumes from st.
	resumed := newEOSSink(t, addr, "p3")
	if err := resumed.Resume(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Write(ctx, idRows(2, 3)); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3); !slices.Equal(got, want) {
		t.Fatalf("resumed after the end: read_committed sees %v, want %v", got, want)
	}
	// Another chain of checkpoints with the same prefix (the state
	// directory removed) is not taken for finished.
	fresh := newEOSSink(t, addr, "p3")
	if err := fresh.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Write(ctx, idRows(9)); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3, 9); !slices.Equal(got, want) {
		t.Fatalf("a fresh run: read_committed sees %v, want %v", got, want)
	}
}

// TestExactlyOnceNeedsCheckpoints: a job with an exactly-once sink and no
// checkpoints is refused before it writes anything: nothing would ever
// commit.
func TestExactlyOnceNeedsCheckpoints(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 1})
	plans, settings := plan(t, fmt.Sprintf(eosDDL, addr, "p4")+`;
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
INSERT INTO t SELECT id FROM src;`)
	ctx := context.Background()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	err = job.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "'sink.delivery-guarantee' = 'exactly-once' commits a Kafka transaction when a checkpoint completes, "+
		"and this job takes no checkpoints: run it with --state-dir") {
		t.Fatalf("Run: %v", err)
	}
	if _, end := stable(t, addr, "out"); end != 0 {
		t.Fatalf("the refused job wrote %d records", end)
	}
}

// TestExactlyOnceThenAtLeastOnce: a job resumed with another delivery
// guarantee still commits the transactions its checkpoint holds: their
// rows are before the checkpoint and are not written again.
func TestExactlyOnceThenAtLeastOnce(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 2})
	ctx := context.Background()
	crashed := newEOSSink(t, addr, "p5")
	if err := crashed.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := crashed.Write(ctx, idRows(1, 2)); err != nil {
		t.Fatal(err)
	}
	st, err := crashed.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ddl := strings.Replace(fmt.Sprintf(eosDDL, addr, "p5"), "'exactly-once'", "'at-least-once'", 1)
	resumed, err := NewSink(conntest.SinkSpec(t, ddl, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := resumed.Resume(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Write(ctx, idRows(3)); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := committedIDs(t, addr, "out"), jsonIDs(1, 2, 3); !slices.Equal(got, want) {
		t.Fatalf("read_committed sees %v, want %v", got, want)
	}
}
