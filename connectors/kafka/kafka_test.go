package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/row"
)

// cluster starts an in-process broker with the topics (name → partitions)
// and returns its address.
func cluster(t *testing.T, topics map[string]int32) string {
	t.Helper()
	_, addr := killableCluster(t, topics)
	return addr
}

// rec is a record to produce to a given partition.
type rec struct {
	partition int32
	key       string // "" for no key
	value     string
	nilValue  bool
	ts        int64 // ms; 0: now
}

func produce(t *testing.T, addr, topic string, recs ...rec) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var rs []*kgo.Record
	for _, r := range recs {
		kr := &kgo.Record{Topic: topic, Partition: r.partition, Value: []byte(r.value)}
		if r.nilValue {
			kr.Value = nil
		}
		if r.key != "" {
			kr.Key = []byte(r.key)
		}
		if r.ts != 0 {
			kr.Timestamp = time.UnixMilli(r.ts)
		}
		rs = append(rs, kr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consumed is a record read back.
type consumed struct {
	partition  int32
	key, value string
	tombstone  bool
}

// consume reads every record of topic with an independent kgo consumer.
func consume(t *testing.T, addr, topic string) []consumed {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The end offsets tell when everything was read.
	want := endOffsets(t, addr, topic)
	total := int64(0)
	for _, e := range want {
		total += e
	}
	var out []consumed
	for int64(len(out)) < total {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records of %s: %v", len(out), total, topic, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			out = append(out, consumed{partition: r.Partition, key: string(r.Key), value: string(r.Value), tombstone: r.Value == nil})
		})
	}
	return out
}

func endOffsets(t *testing.T, addr, topic string) map[int32]int64 {
	t.Helper()
	spec := conntest.SourceSpec(t, `CREATE TABLE x (v STRING) WITH ('connector'='kafka','topic'='`+topic+
		`','properties.bootstrap.servers'='`+addr+`','format'='json','scan.startup.mode'='earliest-offset','scan.bounded.mode'='latest-offset')`, "")
	src, err := NewSource(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out := map[int32]int64{}
	for i := range src.Splits() {
		_, p := src.Partition(i)
		_, out[p] = src.Offsets(i)
	}
	return out
}

func openSource(t *testing.T, ddl string) *Source {
	t.Helper()
	f, ok := connector.LookupSource(connectorOf(ddl))
	if !ok {
		t.Fatal("source not registered")
	}
	src, err := f(conntest.SourceSpec(t, ddl, ""))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := src.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := src.Close(); err != nil {
			t.Error(err)
		}
	})
	return src.(*Source)
}

func connectorOf(ddl string) string {
	if strings.Contains(ddl, "'upsert-kafka'") {
		return "upsert-kafka"
	}
	return "kafka"
}

// result is everything a bounded read gave.
type result struct {
	rows  map[int]row.Batch // by split
	order []int             // splits in the order of the reads
	bad   []*connector.BadRowError
	done  []int // splits in the order they ended
	reads int
	// splitWM is the largest event time seen per split.
	splitWM []int64
	// violations are rows read from a split after it was reported done.
	violations []string
}

// readAll reads a bounded source to io.EOF, keeping per split the largest
// event time (column tsCol) seen, as exec's runtime does for watermarks.
func readAll(t *testing.T, src *Source, tsCol int) result {
	t.Helper()
	res := result{rows: map[int]row.Batch{}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := src.Splits()
	wm := make([]int64, n)
	done := make([]bool, n)
	for i := range wm {
		wm[i] = exec.MinWatermark
	}
	for {
		split, rows, err := src.Read(ctx)
		res.reads++
		if len(rows) > 0 && done[split] {
			res.violations = append(res.violations, fmt.Sprintf("rows of split %d after it was reported done", split))
		}
		if len(rows) > 0 {
			res.rows[split] = append(res.rows[split], rows...)
			res.order = append(res.order, split)
			if tsCol >= 0 {
				for _, r := range rows {
					wm[split] = max(wm[split], r.Vals[tsCol].Int())
				}
			}
		}
		for _, d := range src.DoneSplits() {
			if done[d] {
				t.Fatalf("split %d reported done twice", d)
			}
			done[d] = true
			res.done = append(res.done, d)
		}
		var bad *connector.BadRowError
		switch {
		case errors.Is(err, io.EOF):
			for i := range done {
				if !done[i] {
					res.violations = append(res.violations, fmt.Sprintf("io.EOF before split %d was reported done", i))
				}
			}
			for _, v := range res.violations {
				t.Error(v)
			}
			res.splitWM = wm
			return res
		case errors.As(err, &bad):
			res.bad = append(res.bad, bad)
		case err != nil:
			t.Fatal(err)
		}
		if res.reads > 10000 {
			t.Fatal("no io.EOF")
		}
	}
}

func ids(b row.Batch) []int64 {
	var out []int64
	for _, r := range b {
		out = append(out, r.Vals[0].Int())
	}
	return out
}

const ordersDDL = `CREATE TABLE orders (
  id BIGINT,
  name STRING,
  ts TIMESTAMP(3),
  p INT METADATA FROM 'partition' VIRTUAL,
  o BIGINT METADATA FROM 'offset' VIRTUAL,
  k STRING METADATA FROM 'key' VIRTUAL,
  rt TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  tp STRING METADATA FROM 'topic' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'%s)`

func ordersTable(addr, extra string) string { return fmt.Sprintf(ordersDDL, addr, extra) }

func js(id int, ts string) string {
	return fmt.Sprintf(`{"id": %d, "name": "n%d", "ts": "2026-01-01 00:00:%s"}`, id, id, ts)
}

// TestBoundedTwoPartitions: a bounded read ends (io.EOF) once both
// partitions reached the end offsets found at Open, each partition is its
// own split with its own watermark, and a partition that ended no longer
// holds the watermark back.
func TestBoundedTwoPartitions(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 2})
	produce(t, addr, "orders",
		rec{partition: 0, key: "a", value: js(1, "01"), ts: 1000},
		rec{partition: 1, key: "b", value: js(2, "10")},
		rec{partition: 0, value: js(3, "02")},
		rec{partition: 1, value: js(4, "11")},
		rec{partition: 1, value: js(5, "12")},
	)
	src := openSource(t, ordersTable(addr, ""))
	// Records produced after Open are past the end offsets: not read.
	produce(t, addr, "orders", rec{partition: 0, value: js(6, "03")}, rec{partition: 1, value: js(7, "13")})
	if src.Splits() != 2 {
		t.Fatalf("Splits() = %d", src.Splits())
	}
	for i := range 2 {
		if tp, p := src.Partition(i); tp != "orders" || p != int32(i) {
			t.Errorf("split %d is %s/%d", i, tp, p)
		}
		if s, e := src.Offsets(i); s != 0 || e != []int64{2, 3}[i] {
			t.Errorf("split %d: offsets %d..%d", i, s, e)
		}
	}
	res := readAll(t, src, 2)
	if got := ids(res.rows[0]); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("partition 0: %v", got)
	}
	if got := ids(res.rows[1]); !slices.Equal(got, []int64{2, 4, 5}) {
		t.Errorf("partition 1: %v", got)
	}
	if d := slices.Sorted(slices.Values(res.done)); !slices.Equal(d, []int{0, 1}) {
		t.Errorf("done splits %v", res.done)
	}
	r := res.rows[0][0]
	want := []row.Value{row.IntValue(1), row.StrValue("n1"), row.IntValue(1767225601000), row.IntValue(0),
		row.IntValue(0), row.StrValue("a"), row.IntValue(1000), row.StrValue("orders")}
	for i, w := range want {
		if !r.Vals[i].Equal(w) {
			t.Errorf("column %d: %v, want %v", i, r.Vals[i], w)
		}
	}
	if r.Kind != changelogmode.Insert || !res.rows[0][1].Vals[5].IsNull() {
		t.Errorf("row %v", res.rows[0][1])
	}
	// Each split has its own watermark (the largest event time seen in
	// it): partition 0 ends at 00:00:02, partition 1 at 00:00:12. A split is
	// reported done in the read that returned its last rows, never before,
	// and no rows of it follow: the runtime then takes the watermark from
	// the splits still running.
	if res.splitWM[0] != 1767225602000 || res.splitWM[1] != 1767225612000 {
		t.Errorf("split watermarks %v", res.splitWM)
	}
}

// TestBoundedEmptyPartition: a partition with nothing to read is done at
// Open; a topic with nothing at all ends at once.
func TestBoundedEmptyPartition(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 3})
	produce(t, addr, "orders", rec{partition: 1, value: js(1, "01")})
	src := openSource(t, ordersTable(addr, ""))
	res := readAll(t, src, 2)
	if len(res.rows[1]) != 1 || len(res.rows) != 1 {
		t.Errorf("rows %v", res.rows)
	}
	if d := slices.Sorted(slices.Values(res.done)); !slices.Equal(d, []int{0, 1, 2}) {
		t.Errorf("done %v", res.done)
	}
	src = openSource(t, strings.Replace(ordersTable(addr, ""), "earliest-offset", "latest-offset", 1))
	res = readAll(t, src, 2)
	if len(res.rows) != 0 || res.reads != 1 {
		t.Errorf("latest-offset to latest-offset read %v in %d reads", res.rows, res.reads)
	}
}

func TestBadRecord(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 1})
	produce(t, addr, "orders",
		rec{value: js(1, "01")},
		rec{value: `{"id": "x"}`},
		rec{value: js(3, "03")},
		rec{nilValue: true},
	)
	src := openSource(t, ordersTable(addr, ""))
	res := readAll(t, src, -1)
	if got := ids(res.rows[0]); !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("rows %v", got)
	}
	if len(res.bad) != 2 {
		t.Fatalf("bad rows %v", res.bad)
	}
	if res.bad[0].Where != "orders/0/1" || !strings.Contains(res.bad[0].Error(), "column id") || string(res.bad[0].Raw) != `{"id": "x"}` {
		t.Errorf("bad row: %v (raw %q)", res.bad[0], res.bad[0].Raw)
	}
	if res.bad[1].Where != "orders/0/3" || !strings.Contains(res.bad[1].Error(), "tombstone") {
		t.Errorf("bad row: %v", res.bad[1])
	}
}

func TestDebeziumRead(t *testing.T) {
	addr := cluster(t, map[string]int32{"cdc": 1})
	produce(t, addr, "cdc",
		rec{value: `{"before": null, "after": {"id": 1, "name": "a"}, "op": "c"}`},
		rec{value: `{"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "b"}, "op": "u"}`},
		rec{value: `{"before": {"id": 1, "name": "b"}, "after": null, "op": "d"}`},
		rec{nilValue: true}, // Debezium's tombstone after a delete: no change
	)
	src := openSource(t, `CREATE TABLE cdc (id BIGINT, name STRING) WITH ('connector'='kafka','topic'='cdc',
  'properties.bootstrap.servers'='`+addr+`','format'='debezium-json','scan.startup.mode'='earliest-offset',
  'scan.bounded.mode'='latest-offset')`)
	res := readAll(t, src, -1)
	var got []string
	for _, r := range res.rows[0] {
		got = append(got, r.Kind.String()+r.Vals[1].Str())
	}
	want := []string{"+Ia", "-Ua", "+Ub", "-Db"}
	if !slices.Equal(got, want) || len(res.bad) != 0 {
		t.Errorf("got %v (bad %v), want %v", got, res.bad, want)
	}
}

func TestUpsertRead(t *testing.T) {
	addr := cluster(t, map[string]int32{"users": 2})
	produce(t, addr, "users",
		rec{partition: 0, key: `{"id": 1}`, value: `{"id": 1, "name": "a"}`},
		rec{partition: 1, key: `{"id": 2}`, value: `{"id": 2, "name": "b"}`},
		rec{partition: 0, key: `{"id": 1}`, nilValue: true},
		rec{partition: 0, value: `{"id": 3, "name": "c"}`}, // no key: refused
	)
	src := openSource(t, `CREATE TABLE users (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector'='upsert-kafka','topic'='users','properties.bootstrap.servers'='`+addr+`',
  'key.format'='json','value.format'='json','scan.bounded.mode'='latest-offset')`)
	res := readAll(t, src, -1)
	var got []string
	for _, s := range []int{0, 1} {
		for _, r := range res.rows[s] {
			name := "NULL"
			if !r.Vals[1].IsNull() {
				name = r.Vals[1].Str()
			}
			got = append(got, fmt.Sprintf("%s%d,%s", r.Kind, r.Vals[0].Int(), name))
		}
	}
	want := []string{"+U1,a", "-D1,NULL", "+U2,b"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(res.bad) != 1 || res.bad[0].Where != "users/0/2" || !strings.Contains(res.bad[0].Error(), "needs a key") {
		t.Errorf("bad %v", res.bad)
	}
}

// TestStartupModes: earliest, latest, timestamp and specific offsets, each
// against the same two-partition topic, bounded at its latest offsets.
func TestStartupModes(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 2})
	var recs []rec
	for i := range 6 {
		recs = append(recs, rec{partition: int32(i % 2), value: js(i, "01"), ts: int64(1000 * (i + 1))})
	}
	produce(t, addr, "orders", recs...)
	for _, c := range []struct {
		name, opts string
		want       []int64
	}{
		{"earliest", "", []int64{0, 1, 2, 3, 4, 5}},
		{"latest", ", 'scan.startup.mode' = 'latest-offset'", nil},
		{"timestamp", ", 'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp-millis' = '3000'", []int64{2, 3, 4, 5}},
		{"specific", ", 'scan.startup.mode' = 'specific-offsets', 'scan.startup.specific-offsets' = 'partition:0,offset:2;partition:1,offset:1'", []int64{3, 4, 5}},
		{"bounded-timestamp", ", 'scan.bounded.timestamp-millis' = '4000'", []int64{0, 1, 2}},
		{"bounded-specific", ", 'scan.bounded.specific-offsets' = 'partition:0,offset:1'", []int64{0, 1, 3, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ddl := ordersTable(addr, "")
			ddl = strings.Replace(ddl, ", 'scan.startup.mode' = 'earliest-offset'", "", 1)
			if !strings.Contains(c.opts, "scan.startup.mode") {
				ddl = strings.Replace(ddl, "'format' = 'json'", "'format' = 'json', 'scan.startup.mode' = 'earliest-offset'", 1)
			}
			switch {
			case strings.Contains(c.opts, "bounded.timestamp"):
				ddl = strings.Replace(ddl, "'scan.bounded.mode' = 'latest-offset'", "'scan.bounded.mode' = 'timestamp'", 1)
			case strings.Contains(c.opts, "bounded.specific"):
				ddl = strings.Replace(ddl, "'scan.bounded.mode' = 'latest-offset'", "'scan.bounded.mode' = 'specific-offsets'", 1)
			}
			ddl = strings.TrimSuffix(ddl, ")") + c.opts + ")"
			res := readAll(t, openSource(t, ddl), -1)
			var got []int64
			for _, b := range res.rows {
				got = append(got, ids(b)...)
			}
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestTopicPattern: the partitions of every matching topic, in name order.
func TestTopicPattern(t *testing.T) {
	addr := cluster(t, map[string]int32{"ev-b": 1, "ev-a": 2, "other": 1})
	produce(t, addr, "ev-b", rec{value: js(1, "01")})
	produce(t, addr, "ev-a", rec{partition: 1, value: js(2, "01")})
	produce(t, addr, "other", rec{value: js(3, "01")})
	ddl := strings.Replace(ordersTable(addr, ""), "'topic' = 'orders'", "'topic-pattern' = 'ev-.*'", 1)
	src := openSource(t, ddl)
	if src.Splits() != 3 {
		t.Fatalf("splits %d", src.Splits())
	}
	if tp, p := src.Partition(2); tp != "ev-b" || p != 0 {
		t.Errorf("split 2 is %s/%d", tp, p)
	}
	res := readAll(t, src, -1)
	if len(res.rows[1]) != 1 || len(res.rows[2]) != 1 || res.rows[2][0].Vals[7].Str() != "ev-b" {
		t.Errorf("rows %v", res.rows)
	}
}

func TestSinkJSON(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 2})
	sink := openSink(t, `CREATE TABLE out (id BIGINT, name STRING) WITH ('connector'='kafka','topic'='out',
  'properties.bootstrap.servers'='`+addr+`','format'='json','key.format'='json','key.fields'='id')`)
	ctx := context.Background()
	in := row.Batch{row.Insert(row.IntValue(1), row.StrValue("a")), row.Insert(row.IntValue(2), row.StrValue("b")),
		row.Insert(row.IntValue(1), row.StrValue("c"))}
	if err := sink.Write(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sink.Acknowledged(); n != 3 {
		t.Errorf("after Flush %d records are acknowledged, want 3", n)
	}
	got := consume(t, addr, "out")
	byKey := map[string][]string{}
	part := map[string]int32{}
	for _, c := range got {
		byKey[c.key] = append(byKey[c.key], c.value)
		if p, ok := part[c.key]; ok && p != c.partition {
			t.Errorf("key %s in partitions %d and %d", c.key, p, c.partition)
		}
		part[c.key] = c.partition
	}
	want := map[string][]string{
		`{"id":1}`: {`{"id":1,"name":"a"}`, `{"id":1,"name":"c"}`},
		`{"id":2}`: {`{"id":2,"name":"b"}`},
	}
	if fmt.Sprint(byKey) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", byKey, want)
	}
	// json is insert-only: a retraction is refused, not written.
	err := sink.Write(ctx, row.Batch{{Kind: changelogmode.Delete, Vals: in[0].Vals}})
	if err == nil || !strings.Contains(err.Error(), "out") {
		t.Errorf("a -D into json: %v", err)
	}
}

func TestSinkUpsert(t *testing.T) {
	addr := cluster(t, map[string]int32{"users": 3})
	sink := openSink(t, `CREATE TABLE users (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector'='upsert-kafka','topic'='users','properties.bootstrap.servers'='`+addr+`',
  'key.format'='json','value.format'='json')`)
	ctx := context.Background()
	v := func(id int64, name string) []row.Value { return []row.Value{row.IntValue(id), row.StrValue(name)} }
	in := row.Batch{
		{Kind: changelogmode.Insert, Vals: v(1, "a")},
		{Kind: changelogmode.Insert, Vals: v(2, "b")},
		{Kind: changelogmode.UpdateBefore, Vals: v(1, "a")},
		{Kind: changelogmode.UpdateAfter, Vals: v(1, "a2")},
		{Kind: changelogmode.Delete, Vals: v(2, "b")},
	}
	if err := sink.Write(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got := consume(t, addr, "users")
	byKey := map[string][]string{}
	for _, c := range got {
		val := c.value
		if c.tombstone {
			val = "<tombstone>"
		}
		byKey[c.key] = append(byKey[c.key], val)
	}
	want := map[string][]string{
		`{"id":1}`: {`{"id":1,"name":"a"}`, `{"id":1,"name":"a2"}`},
		`{"id":2}`: {`{"id":2,"name":"b"}`, "<tombstone>"},
	}
	if fmt.Sprint(byKey) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", byKey, want)
	}
}

// TestSinkError: a producer error fails Flush with the topic and why.
func TestSinkError(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 1})
	sink := openSink(t, `CREATE TABLE out (id BIGINT) WITH ('connector'='kafka','topic'='missing',
  'properties.bootstrap.servers'='`+addr+`','format'='json')`)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := sink.Write(ctx, row.Batch{row.Insert(row.IntValue(1))})
	if err == nil {
		err = sink.Flush(ctx)
	}
	if err == nil || !strings.Contains(err.Error(), "topic missing") || !strings.Contains(err.Error(), "UNKNOWN_TOPIC") {
		t.Errorf("got %v", err)
	}
	if err := sink.Close(); err == nil {
		t.Error("Close after a failed record reports nothing")
	}
}

func openSink(t *testing.T, ddl string) *Sink {
	t.Helper()
	f, ok := connector.LookupSink(connectorOf(ddl))
	if !ok {
		t.Fatal("sink not registered")
	}
	s, err := f(conntest.SinkSpec(t, ddl, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.(*Sink)
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct{ opts, want string }{
		{"'properties.bogus.thing' = 'x'", "'properties.bogus.thing' is not supported"},
		{"'properties.auto.offset.reset' = 'sometimes'", "earliest, latest or none"},
		{"'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'x', 'properties.acks' = '1'", "exactly-once' needs 'properties.acks' = 'all'"},
		{"'properties.transaction.timeout.ms' = '10'", "want at least 1000"},
		{"'properties.delivery.timeout.ms' = '300'", "want at least 1000"},
	} {
		ddl := `CREATE TABLE t (id BIGINT) WITH ('connector'='kafka','topic'='t','properties.bootstrap.servers'='localhost:1','format'='json',` + c.opts + `)`
		_, err := NewSink(conntest.SinkSpec(t, ddl, ""))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.opts, err)
		}
	}
}

// TestSplitMeter: the source's consumer lag of a partition is its high
// watermark minus the offset after the last record Read returned, and its
// bytes are those of the keys and values returned, computed here from the
// records produced; before anything is fetched the lag is not known.
func TestSplitMeter(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 1})
	const n = 3000 // three Reads of BatchRecords at least
	var recs []rec
	size := make([]int, n+1) // size[i]: bytes of the first i records
	for i := range n {
		r := rec{value: js(i, "01")}
		if i%3 == 0 {
			r.key = fmt.Sprint("k", i)
		}
		recs = append(recs, r)
		size[i+1] = size[i] + len(r.key) + len(r.value)
	}
	produce(t, addr, "orders", recs...)
	src := openSource(t, ordersTable(addr, ""))
	if lag, ok := src.SplitLag(0); ok {
		t.Errorf("before any fetch: lag %d, want not known", lag)
	}
	if b := src.SplitBytes(0); b != 0 {
		t.Errorf("before any Read: %d bytes", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	read := 0
	for read < n {
		_, rows, err := src.Read(ctx)
		if err != nil {
			t.Fatalf("after %d records: %v", read, err)
		}
		read += len(rows)
		lag, ok := src.SplitLag(0)
		if !ok || lag != int64(n-read) {
			t.Fatalf("after %d of %d records: lag %d (known %v), want %d", read, n, lag, ok, n-read)
		}
		if b := src.SplitBytes(0); b != int64(size[read]) {
			t.Fatalf("after %d records: %d bytes, want %d", read, b, size[read])
		}
	}
	if lag, ok := src.SplitLag(7); ok || src.SplitBytes(-1) != 0 {
		t.Errorf("a split that does not exist has lag %d (%v), bytes %d", lag, ok, src.SplitBytes(-1))
	}
}

// TestSinkLinger: the sink's producer lingers Linger unless
// 'properties.linger.ms' sets it (franz-go's own default, 10 ms, is not
// used: see Linger).
func TestSinkLinger(t *testing.T) {
	addr := cluster(t, map[string]int32{"out": 1})
	for _, c := range []struct {
		opt  string
		want time.Duration
	}{
		{"", Linger},
		{", 'properties.linger.ms' = '25'", 25 * time.Millisecond},
	} {
		sink := openSink(t, `CREATE TABLE out (id BIGINT) WITH ('connector'='kafka','topic'='out',
  'properties.bootstrap.servers'='`+addr+`','format'='json'`+c.opt+`)`)
		if got := sink.cl.OptValue(kgo.ProducerLinger); got != c.want {
			t.Errorf("%q: the producer lingers %v, want %v", c.opt, got, c.want)
		}
	}
}
