package kafka

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
)

// The changelog case of the Kafka issue: orders LEFT JOIN shipments. A
// regular LEFT JOIN emits each order padded with nulls, then retracts it
// when its shipment arrives; only a keyed upsert sink may take that. The
// interval LEFT JOIN emits each order once and may go to a plain json topic.

// shop is the input of the changelog tests: orders over four partitions,
// shipments over three, produced after the orders. Order i ships when i%3
// is not 0: 5 minutes after it when i%3 == 1, 20 minutes after it (outside
// the interval join's 10-minute bound) when i%3 == 2. Orders with i%3 == 0
// never ship.
type shop struct {
	orders, shipments []rec
	// shipAfter is the minutes from order to shipment; absent: never ships.
	shipAfter map[int]int
	amount    map[int]int
}

const shopOrders = 48

func newShop() shop {
	s := shop{shipAfter: map[int]int{}, amount: map[int]int{}}
	for i := range shopOrders {
		s.amount[i] = 100 + 7*i
		s.orders = append(s.orders, rec{partition: int32(i % 4), key: fmt.Sprint(i),
			value: fmt.Sprintf(`{"order_id": %d, "amount": %d, "ts": "%s"}`, i, s.amount[i], minute(i))})
		switch i % 3 {
		case 1:
			s.shipAfter[i] = 5
		case 2:
			s.shipAfter[i] = 20
		}
	}
	// Shipments in the order they happen, spread over three partitions.
	ids := slices.Sorted(maps.Keys(s.shipAfter))
	slices.SortStableFunc(ids, func(a, b int) int { return (a + s.shipAfter[a]) - (b + s.shipAfter[b]) })
	for n, i := range ids {
		s.shipments = append(s.shipments, rec{partition: int32(n % 3),
			value: fmt.Sprintf(`{"ship_id": "s%d", "order_id": %d, "ts": "%s"}`, i, i, minute(i+s.shipAfter[i]))})
	}
	return s
}

// minute is the event time of minute i of the test day.
func minute(i int) string { return fmt.Sprintf("2026-01-01 %02d:%02d:00", i/60, i%60) }

// ledger is the row per order the join must leave, computed here from the
// inputs: an order whose shipment came within bound minutes (any shipment,
// with bound < 0) is joined to it, any other is padded with nulls.
func (s shop) ledger(bound int) map[int]map[string]any {
	out := map[int]map[string]any{}
	for i := range shopOrders {
		row := map[string]any{"order_id": float64(i), "amount": float64(s.amount[i]), "ship_id": nil}
		if after, ok := s.shipAfter[i]; ok && (bound < 0 || after <= bound) {
			row["ship_id"] = fmt.Sprintf("s%d", i)
		}
		out[i] = row
	}
	return out
}

// decodeRow reads a json record value; a test fails on anything else.
func decodeRow(t *testing.T, v string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		t.Fatalf("record value %q: %v", v, err)
	}
	return m
}

// shopTables declares orders and shipments as plain json topics (with
// watermarks or without).
func shopTables(addr string, watermarks bool) string {
	wm := ""
	if watermarks {
		wm = ",\n  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE"
	}
	return fmt.Sprintf(`
CREATE TABLE orders (order_id BIGINT, amount BIGINT, ts TIMESTAMP(3)%[2]s
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE shipments (ship_id STRING, order_id BIGINT, ts TIMESTAMP(3)%[2]s
) WITH ('connector' = 'kafka', 'topic' = 'shipments', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
`, addr, wm)
}

// keyedShopTables declares orders and shipments as upsert-kafka topics
// keyed by order_id (an order ships at most once), so that the join of the
// two is keyed by order_id too. A plain json topic cannot declare a key
// (SQL218): nothing in its records says one replaces another.
func keyedShopTables(addr string) string {
	return fmt.Sprintf(`
CREATE TABLE orders (order_id BIGINT, amount BIGINT, ts TIMESTAMP(3), PRIMARY KEY (order_id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE shipments (ship_id STRING, order_id BIGINT, ts TIMESTAMP(3), PRIMARY KEY (order_id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'shipments', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
`, addr)
}

// keyed returns recs with the record key upsert-kafka reads: the order_id
// in json.
func keyed(recs []rec) []rec {
	out := make([]rec, len(recs))
	for i, r := range recs {
		var v struct {
			OrderID int `json:"order_id"`
		}
		if err := json.Unmarshal([]byte(r.value), &v); err != nil {
			panic(err)
		}
		r.key = fmt.Sprintf(`{"order_id": %d}`, v.OrderID)
		out[i] = r
	}
	return out
}

// TestLeftJoinIntoUpsertKafka: a regular LEFT JOIN of two upsert-kafka
// topics keyed by order_id into upsert-kafka keyed by order_id. The join writes an order padded with nulls, then a tombstone
// and the joined row when its shipment arrives; a consumer that keeps the
// last record per key (a compacted topic) has exactly one row per order,
// equal to the ledger, and every key's records sit in one partition.
func TestLeftJoinIntoUpsertKafka(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 4, "shipments": 3, "enriched": 3})
	s := newShop()
	produce(t, addr, "orders", keyed(s.orders)...)
	produce(t, addr, "shipments", keyed(s.shipments)...)
	j := runJob(t, keyedShopTables(addr)+fmt.Sprintf(`
CREATE TABLE enriched (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'enriched', 'properties.bootstrap.servers' = '%s',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO enriched
SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`, addr))
	if in := j.Sources[0].In.Load() + j.Sources[1].In.Load(); in != int64(len(s.orders)+len(s.shipments)) {
		t.Fatalf("rows read: %d, want %d", in, len(s.orders)+len(s.shipments))
	}
	recs := consume(t, addr, "enriched")
	last := map[string]*consumed{}
	part := map[string]int32{}
	tombstones := 0
	for i, c := range recs {
		if p, ok := part[c.key]; ok && p != c.partition {
			t.Errorf("key %s written to partitions %d and %d: its history is not ordered", c.key, p, c.partition)
		}
		part[c.key] = c.partition
		if c.tombstone {
			tombstones++
			delete(last, c.key)
			continue
		}
		last[c.key] = &recs[i]
	}
	// Orders that shipped after they were read were written null-padded,
	// then retracted: the test exercises retractions only if some were.
	if tombstones == 0 {
		t.Errorf("no tombstones among %d records: no null-padded row was retracted, so the test proves little", len(recs))
	}
	want := s.ledger(-1)
	if len(last) != len(want) {
		t.Errorf("compacted topic has %d keys, want one per order (%d)", len(last), len(want))
	}
	for i, w := range want {
		key := fmt.Sprintf(`{"order_id":%d}`, i)
		c, ok := last[key]
		if !ok {
			t.Errorf("order %d: no row after compaction", i)
			continue
		}
		if got := decodeRow(t, c.value); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("order %d: %v, want %v", i, got, w)
		}
	}
	t.Logf("%d records (%d tombstones) compact to %d rows", len(recs), tombstones, len(last))
}

// TestLeftJoinIntoJSONRefused: the same regular LEFT JOIN into a kafka json
// topic is refused by the planner: SQL400 at the INSERT, naming the sink,
// its format and the kinds the query emits, with a note at the LEFT JOIN.
// It is the only error: the valid INSERT beside it is fine.
func TestLeftJoinIntoJSONRefused(t *testing.T) {
	addr := "localhost:9092" // planned, never run
	sql := shopTables(addr, false) + fmt.Sprintf(`
CREATE TABLE enriched (order_id BIGINT, amount BIGINT, ship_id STRING)
WITH ('connector' = 'kafka', 'topic' = 'enriched', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
CREATE TABLE copy (order_id BIGINT, amount BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'copy', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO copy SELECT order_id, amount FROM orders;
INSERT INTO enriched
SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`, addr)
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	var refused *diag.Diagnostic
	for _, d := range j.Diags.Items {
		if d.Severity == diag.Error {
			if refused != nil || d.Code != diag.SinkMode {
				t.Errorf("unexpected error: %v", d)
			}
			refused = d
		}
	}
	if refused == nil {
		t.Fatalf("the job is not refused; diagnostics: %v", j.Diags.Items)
	}
	if !strings.Contains(refused.Msg, "sink enriched (kafka, json) is append-only") ||
		!strings.Contains(refused.Msg, "[+I,-U,+U,-D]") {
		t.Errorf("message: %s", refused.Msg)
	}
	if len(refused.Notes) == 0 || !strings.Contains(refused.Notes[0].Msg, "LEFT JOIN") {
		t.Errorf("no note pointing at the LEFT JOIN: %v", refused.Notes)
	}
	if at := strings.Index(sql, "INSERT INTO enriched"); int(refused.Span.Start) != at {
		t.Errorf("the error points at offset %d, want the INSERT INTO enriched (%d)", refused.Span.Start, at)
	}
	// cmd/streamsql's TestRunRefusesLeftJoinIntoJSON runs such a job and
	// checks that nothing reaches the topics.
}

// TestIntervalLeftJoinIntoJSON: the interval LEFT JOIN (a shipment within
// 10 minutes of its order) into a plain json topic writes exactly one row
// per order: joined when the shipment came within the bound, padded with
// nulls when it came later or never. Nothing is retracted, nothing is late.
func TestIntervalLeftJoinIntoJSON(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 4, "shipments": 3, "enriched": 2})
	s := newShop()
	produce(t, addr, "orders", s.orders...)
	produce(t, addr, "shipments", s.shipments...)
	j := runJob(t, shopTables(addr, true)+fmt.Sprintf(`
CREATE TABLE enriched (order_id BIGINT, amount BIGINT, ship_id STRING)
WITH ('connector' = 'kafka', 'topic' = 'enriched', 'properties.bootstrap.servers' = '%s', 'format' = 'json');
INSERT INTO enriched
SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s
  ON o.order_id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' MINUTE;
`, addr))
	for _, o := range j.Operators {
		if n := o.Late.Load(); n > 0 {
			t.Errorf("%s dropped %d late rows", o.Name, n)
		}
	}
	got := map[int][]map[string]any{}
	for _, c := range consume(t, addr, "enriched") {
		if c.tombstone {
			t.Errorf("a tombstone in an append-only topic")
			continue
		}
		r := decodeRow(t, c.value)
		id, _ := r["order_id"].(float64)
		got[int(id)] = append(got[int(id)], r)
	}
	want := s.ledger(10)
	if len(got) != len(want) {
		t.Errorf("%d orders in the topic, want %d", len(got), len(want))
	}
	padded := 0
	for i, w := range want {
		rows := got[i]
		if len(rows) != 1 {
			t.Errorf("order %d: %d rows %v, want exactly one", i, len(rows), rows)
			continue
		}
		if fmt.Sprint(rows[0]) != fmt.Sprint(w) {
			t.Errorf("order %d: %v, want %v", i, rows[0], w)
		}
		if w["ship_id"] == nil {
			padded++
		}
	}
	if padded != 2*shopOrders/3 {
		t.Errorf("the ledger pads %d orders; the inputs are not what this test means", padded)
	}
}
