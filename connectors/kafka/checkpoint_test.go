package kafka

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// readN reads at least n rows (whole batches) from src, by split.
func readN(t *testing.T, src *Source, n int) map[int][]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := map[int][]int64{}
	got := 0
	for got < n {
		split, rows, err := src.Read(ctx)
		if err != nil {
			t.Fatalf("after %d rows: %v", got, err)
		}
		out[split] = append(out[split], ids(rows)...)
		got += len(rows)
	}
	return out
}

// TestSourceSeek: a source that Seeks to another's Position returns
// exactly the rows after those that one returned, per partition, and ends
// where the first run would have ended (the end offsets of the first Open,
// not of the second: records produced in between are beyond them).
func TestSourceSeek(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 2})
	var recs []rec
	for i := range 40 {
		recs = append(recs, rec{partition: int32(i % 2), value: js(i, "01")})
	}
	produce(t, addr, "orders", recs...)
	first := openSource(t, ordersTable(addr, ""))
	before := readN(t, first, 1)
	pos, err := first.Position()
	if err != nil {
		t.Fatal(err)
	}
	produce(t, addr, "orders", rec{partition: 0, value: js(100, "02")}, rec{partition: 1, value: js(101, "02")})

	second := openSource(t, ordersTable(addr, ""))
	if err := second.Seek(pos); err != nil {
		t.Fatal(err)
	}
	after := readAll(t, second, -1)
	for split := range 2 {
		got := append(slices.Clone(before[split]), ids(after.rows[split])...)
		var want []int64
		for i := split; i < 40; i += 2 {
			want = append(want, int64(i))
		}
		if !slices.Equal(got, want) {
			t.Errorf("partition %d: read %v then %v, want %v", split, before[split], ids(after.rows[split]), want)
		}
	}
}

// TestSourceSeekLost: a position whose offset was deleted since (retention)
// is refused, not silently skipped.
func TestSourceSeekLost(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 1})
	produce(t, addr, "orders", rec{value: js(1, "01")}, rec{value: js(2, "01")}, rec{value: js(3, "01")})
	src := openSource(t, ordersTable(addr, ""))
	pos, err := src.Position() // nothing read: offset 0
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	del := kadm.Offsets{}
	del.Add(kadm.Offset{Topic: "orders", Partition: 0, At: 2})
	if _, err := kadm.NewClient(cl).DeleteRecords(ctx, del); err != nil {
		t.Fatal(err)
	}
	again := openSource(t, ordersTable(addr, ""))
	err = again.Seek(pos)
	if err == nil || !strings.Contains(err.Error(), "orders/0: the checkpoint continues at offset 0, but the partition now starts at 2") {
		t.Fatalf("Seek: %v", err)
	}
}

// TestSourceCommitsToGroup: after a checkpoint completes, the offsets of
// its position are committed to 'properties.group.id', as a lag tool reads
// them.
func TestSourceCommitsToGroup(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 2})
	var recs []rec
	for i := range 10 {
		recs = append(recs, rec{partition: int32(i % 2), value: js(i, "01")})
	}
	produce(t, addr, "orders", recs...)
	src := openSource(t, ordersTable(addr, ", 'properties.group.id' = 'lagged'"))
	read := readN(t, src, 1)
	pos, err := src.Position()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := src.CheckpointComplete(ctx, pos); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rs, err := kadm.NewClient(cl).FetchOffsets(ctx, "lagged")
	if err != nil {
		t.Fatal(err)
	}
	for p := range int32(2) {
		o, ok := rs.Lookup("orders", p)
		want := int64(len(read[int(p)]))
		if !ok || o.At != want {
			t.Errorf("partition %d: committed %+v (found %v), want offset %d", p, o.Offset, ok, want)
		}
	}
	// Without a group nothing is committed, and that is not an error.
	nog := openSource(t, ordersTable(addr, ""))
	if err := nog.CheckpointComplete(ctx, pos); err != nil {
		t.Fatal(err)
	}
}
