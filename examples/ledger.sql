-- The ledger: every order with its shipment, or NULL while it has none.
--
-- Orders carry no key, so the LEFT JOIN first emits each order padded with
-- nulls and, when its shipment comes, retracts that row and emits the joined
-- one. A loader that appends whatever comes keeps the retracted rows as
-- phantoms; a table keyed on order_id, written with the retractions applied
-- (here a debezium-json changelog; in a database, 'connector' = 'jdbc' with
-- the PRIMARY KEY), holds one row per order. Run it, then compare what the
-- file holds with what the job computes, per order:
--
--   go run ./cmd/streamsql run examples/ledger.sql
--   go run ./cmd/streamsql reconcile examples/ledger.sql

CREATE TABLE orders (order_id BIGINT, amount DECIMAL(10, 2))
  WITH ('connector' = 'filesystem', 'path' = 'data/ledger_orders.json', 'format' = 'json');

CREATE TABLE shipments (ship_id STRING, order_id BIGINT)
  WITH ('connector' = 'filesystem', 'path' = 'data/ledger_shipments.json', 'format' = 'json');

CREATE TABLE ledger (
  order_id BIGINT,
  amount   DECIMAL(10, 2),
  ship_id  STRING,
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/ledger.debezium.json', 'format' = 'debezium-json');

INSERT INTO ledger
SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
