package kafka

import (
	"fmt"
	"testing"
)

// TestUpsertMaterializerAfterJoin is the reproduction (#11, 3)
// (o1 moves from customer D to A, o2 from H to E: the topic must compact to
// o1: alice, o2: eve), with 40 more orders of the same kind: orders (debezium-json, keyed on id) move between customers (an
// update changes k), joined on k with the customers into an upsert-kafka
// topic keyed on id. The join runs partitioned by k, so an order's
// retraction and its new row come from two partitions in either order; the
// upsert materializer in front of the sink keeps the live rows of each id,
// and the compacted topic holds each live order with its last customer's
// name, at parallelism 1 and 4.
func TestUpsertMaterializerAfterJoin(t *testing.T) {
	const orders, custs = 40, 10
	name := func(k int) string { return fmt.Sprintf("n%d", k) }
	for _, p := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism %d", p), func(t *testing.T) {
			addr := cluster(t, map[string]int32{"ord": 4, "cust": 2, "ordcust": 3})
			var cust []rec
			for k := range custs {
				cust = append(cust, rec{partition: int32(k % 2),
					value: fmt.Sprintf(`{"before": null, "after": {"k": "k%d", "name": "%s"}, "op": "c"}`, k, name(k))})
			}
			for _, c := range [][2]string{{"A", "alice"}, {"D", "dora"}, {"E", "eve"}, {"H", "hugo"}} {
				cust = append(cust, rec{value: fmt.Sprintf(`{"before": null, "after": {"k": "%s", "name": "%s"}, "op": "c"}`, c[0], c[1])})
			}
			var ord []rec
			for _, o := range [][3]string{{"o1", "D", "A"}, {"o2", "H", "E"}} {
				ord = append(ord,
					rec{value: fmt.Sprintf(`{"before": null, "after": {"id": "%s", "k": "%s", "amt": 1}, "op": "c"}`, o[0], o[1])},
					rec{value: fmt.Sprintf(`{"before": {"id": "%s", "k": "%s", "amt": 1}, "after": {"id": "%s", "k": "%s", "amt": 1}, "op": "u"}`, o[0], o[1], o[0], o[2])})
			}
			want := map[string]string{`{"id":"o1"}`: `{"id":"o1","k":"A","name":"alice"}`, `{"id":"o2"}`: `{"id":"o2","k":"E","name":"eve"}`}
			for i := range orders {
				from, to := i%custs, (i*3+1)%custs
				part := int32(i % 4)
				ord = append(ord,
					rec{partition: part, value: fmt.Sprintf(`{"before": null, "after": {"id": "g%d", "k": "k%d", "amt": %d}, "op": "c"}`, i, from, i)},
					rec{partition: part, value: fmt.Sprintf(`{"before": {"id": "g%d", "k": "k%d", "amt": %d}, "after": {"id": "g%d", "k": "k%d", "amt": %d}, "op": "u"}`, i, from, i, i, to, i)})
				if i%7 == 0 {
					ord = append(ord, rec{partition: part, value: fmt.Sprintf(`{"before": {"id": "g%d", "k": "k%d", "amt": %d}, "after": null, "op": "d"}`, i, to, i)})
					continue
				}
				want[fmt.Sprintf(`{"id":"g%d"}`, i)] = fmt.Sprintf(`{"id":"g%d","k":"k%d","name":"%s"}`, i, to, name(to))
			}
			produce(t, addr, "cust", cust...)
			produce(t, addr, "ord", ord...)
			runJobAt(t, fmt.Sprintf(`
CREATE TABLE ord (id STRING, k STRING, amt INT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'kafka', 'topic' = 'ord', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'debezium-json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE cust (k STRING, name STRING, PRIMARY KEY (k) NOT ENFORCED)
WITH ('connector' = 'kafka', 'topic' = 'cust', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'debezium-json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE ordcust (id STRING, k STRING, name STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'ordcust', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO ordcust SELECT o.id, o.k, c.name FROM ord o LEFT JOIN cust c ON o.k = c.k;
`, addr), p)
			got := compacted(t, addr, "ordcust")
			if len(got) != len(want) {
				t.Errorf("the topic compacts to %d orders, want %d", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("order %s: %q, want %q", k, got[k], w)
				}
			}
		})
	}
}

// TestLedgerIntoUpsertKafka is the ledger of #14: orders and shipments
// without keys, orders LEFT JOIN shipments into upsert-kafka keyed on
// order_id. The join emits each order padded with nulls and retracts that
// row when its shipment arrives; the query has no key, so the upsert
// materializer keeps the live rows of each order_id (matched by all their
// values) and the compacted topic is the ledger: one row per order, with
// its shipment or NULL. Parallelism 1 and 4.
func TestLedgerIntoUpsertKafka(t *testing.T) {
	for _, p := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism %d", p), func(t *testing.T) {
			addr := cluster(t, map[string]int32{"orders": 4, "shipments": 3, "ledger": 3})
			s := newShop()
			produce(t, addr, "orders", s.orders...)
			produce(t, addr, "shipments", s.shipments...)
			runJobAt(t, shopTables(addr, false)+fmt.Sprintf(`
CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'ledger', 'properties.bootstrap.servers' = '%s',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO ledger SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`, addr), p)
			got := compacted(t, addr, "ledger")
			want := s.ledger(-1)
			if len(got) != len(want) {
				t.Errorf("the topic compacts to %d rows, want one per order (%d)", len(got), len(want))
			}
			for i, w := range want {
				v, ok := got[fmt.Sprintf(`{"order_id":%d}`, i)]
				if !ok {
					t.Errorf("order %d: no row", i)
					continue
				}
				if g := decodeRow(t, v); fmt.Sprint(g) != fmt.Sprint(w) {
					t.Errorf("order %d: %v, want %v", i, g, w)
				}
			}
		})
	}
}
