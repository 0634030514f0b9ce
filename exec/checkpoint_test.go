package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// TestBarrierAlignment: a driver holds the inputs that delivered a barrier
// (their messages queued, in order) until every input that has not ended
// delivered it; then it snapshots, passes the barrier on and replays what
// it held. An input that ends counts as aligned.
func TestBarrierAlignment(t *testing.T) {
	var log []string
	out := &recOut{log: &log}
	d := newDriver(&unionOp{out: out, c: newCounters("union")}, 3, out)
	d.id = "union-1"
	run := &cpRun{acks: make(chan *driver, 1)}
	b1 := &barrier{id: 1, run: run}
	b2 := &barrier{id: 2, run: run}
	batch := func(n int) row.Batch {
		var b row.Batch
		for i := range n {
			b = append(b, row.Insert(row.IntValue(int64(i))))
		}
		return b
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(d.process(0, batch(1)))
	must(d.barrier(0, b1))
	must(d.process(0, batch(2))) // held: port 0 delivered barrier 1
	must(d.watermark(0, 5))      // held
	must(d.barrier(0, b2))       // held: the next checkpoint's
	must(d.process(1, batch(3))) // port 1 goes on
	must(d.watermark(1, 7))      // port 2 holds the combined watermark
	must(d.barrier(1, b1))       // port 1 aligned too
	must(d.process(2, batch(4))) // port 2 not yet
	must(d.end(2))               // port 2 ends: barrier 1 is aligned
	must(d.process(1, batch(5))) // port 1 has not delivered barrier 2: goes on
	got := strings.Join(log, "\n")
	want := strings.Join([]string{
		"out: 1 rows",
		"out: 3 rows",
		"out: 4 rows",
		// port 2 ended: barrier 1 goes on, then what port 0 held, in order,
		// up to its barrier 2 (held again until port 1 delivers it).
		"out: barrier 1",
		"out: 2 rows",
		"out: watermark 5",
		"out: 5 rows",
	}, "\n")
	if got != want {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, want)
	}
	if _, ok := run.small["union-1.p0.meta"]; !ok {
		t.Errorf("no meta part written: %v", run.small)
	}
	// Port 1 delivers barrier 2: it goes on (port 2 has ended).
	log = log[:0]
	must(d.barrier(1, b2))
	if got := strings.Join(log, "\n"); got != "out: barrier 2" {
		t.Fatalf("after barrier 2 on port 1: %s", got)
	}
}

// TestEndThenReplayKeepsWatermarkRising: an input's end lets the combined
// watermark rise, and the alignment it completes replays a held watermark
// that rises further; the operator must see them in that order, never the
// lower after the higher.
func TestEndThenReplayKeepsWatermarkRising(t *testing.T) {
	var log []string
	out := &recOut{log: &log}
	d := newDriver(&unionOp{out: out, c: newCounters("union")}, 3, out)
	d.id = "union-1"
	run := &cpRun{acks: make(chan *driver, 1)}
	b1 := &barrier{id: 1, run: run}
	for _, err := range []error{
		d.watermark(0, 5), d.watermark(1, 10), d.watermark(2, 3),
		d.barrier(0, b1),
		d.watermark(0, 10), // held: port 0 delivered barrier 1
		d.barrier(1, b1),
		d.end(2), // the combined watermark rises to 5; barrier 1 is aligned; port 0's 10 is replayed
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(log, "\n")
	want := strings.Join([]string{
		"out: watermark 3",
		"out: watermark 5",
		"out: barrier 1",
		"out: watermark 10",
	}, "\n")
	if got != want {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, want)
	}
}

// A runner that stopped taking barrier requests (it read its final
// checkpoint's barrier and waits for the end) must not hold the coordinator
// once the job's context ends: a SIGTERM'd Kafka job hung here for minutes
// with its queue full.
func TestRequestGivesUpWhenTheJobEnds(t *testing.T) {
	c := &srcCP{id: "src", reqs: make(chan *barrier, 2)}
	ctx, cancel := context.WithCancel(context.Background())
	if !c.request(ctx, &barrier{id: 1}) || !c.request(ctx, &barrier{id: 2}) {
		t.Fatal("a request with room in the queue was refused")
	}
	cancel()
	done := make(chan bool, 1)
	go func() { done <- c.request(ctx, &barrier{id: 3}) }()
	if ok := <-done; ok {
		t.Fatal("a request to a full queue succeeded after the job ended")
	}
}

// overlapping lists exactly the old partitions that own a key group the
// new partition owns (brute force over the key groups).
func TestOverlappingPartitions(t *testing.T) {
	for _, maxP := range []int{1, 7, 128} {
		for old := 1; old <= min(maxP, 9); old++ {
			for parts := 1; parts <= min(maxP, 9); parts++ {
				for part := range parts {
					want := map[int]bool{}
					for kg := range maxP {
						if state.KeyGroupPartition(kg, parts, maxP) == part {
							want[state.KeyGroupPartition(kg, old, maxP)] = true
						}
					}
					got := overlapping(part, parts, old, maxP)
					if len(got) != len(want) {
						t.Fatalf("max %d, %d -> %d, partition %d: %v, want %v", maxP, old, parts, part, got, want)
					}
					for _, o := range got {
						if !want[o] {
							t.Fatalf("max %d, %d -> %d, partition %d: %v, want %v", maxP, old, parts, part, got, want)
						}
					}
				}
			}
		}
	}
}

// TestStateChainExtend: a chain takes another delta while the records its
// parts wrote stay under twice the store's rows (so a state that only
// grows is never rewritten whole), up to maxDeltas; parts without counted
// records fall back to sizes, the deltas against the base.
func TestStateChainExtend(t *testing.T) {
	recs := func(n int64) *int64 { return &n }
	part := func(size int64, r *int64) checkpoint.PartInfo { return checkpoint.PartInfo{Size: size, Records: r} }
	grow := &stateChain{base: part(100, recs(10))}
	for i := range 40 {
		// Each delta adds 10 new records: the chain holds the state once.
		rows := int64(10 * (i + 1))
		if got, want := grow.extend(rows), i < maxDeltas; got != want {
			t.Fatalf("growing state, %d deltas: extend = %v, want %v", i, got, want)
		}
		if i < maxDeltas {
			grow.deltas = append(grow.deltas, part(100, recs(10)))
		}
	}
	churn := &stateChain{base: part(100, recs(10))}
	for i := range 3 {
		// The same 10 records rewritten by every delta.
		if got, want := churn.extend(10), i < 1; got != want {
			t.Fatalf("rewritten state, %d deltas: extend = %v, want %v", i, got, want)
		}
		churn.deltas = append(churn.deltas, part(100, recs(10)))
	}
	if (*stateChain)(nil).extend(10) {
		t.Fatal("no chain: extend = true")
	}
	if (&stateChain{base: part(100, recs(0))}).extend(0) {
		t.Fatal("an empty store: extend = true (a whole snapshot costs nothing)")
	}
	old := &stateChain{base: part(100, nil), deltas: []checkpoint.PartInfo{part(60, recs(1))}}
	if !old.extend(1) {
		t.Fatal("uncounted base, deltas smaller than it: extend = false")
	}
	old.deltas = append(old.deltas, part(40, recs(1)))
	if old.extend(1000) {
		t.Fatal("uncounted base, deltas as large as it: extend = true")
	}
}
