-- Payment orders and their settlement confirmations.
--
-- A confirmation must arrive within four hours of its order. The interval
-- join keeps each order in state only until no confirmation can still match
-- it (its time plus four hours, as the watermark tells), so state stays
-- bounded; its output is append-only, so any sink can take it.
--
-- The LEFT variant sends every order that was not confirmed in time to an
-- exceptions file, once, when the watermark passes the end of its four
-- hours. Run it with:
--
--   go run ./cmd/streamsql run examples/payments.sql

CREATE TABLE payment_orders (
  order_id   STRING,
  account_id STRING,
  amount     DECIMAL(15, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/payment_orders.json',
  'format' = 'json'
);

CREATE TABLE settlement_confirmations (
  settlement_id STRING,
  order_id      STRING,
  settled_at    DECIMAL(15, 2),
  settle_time   TIMESTAMP(3),
  WATERMARK FOR settle_time AS settle_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/settlement_confirmations.json',
  'format' = 'json'
);

-- Matched within four hours: printed.
CREATE TABLE settled (
  order_id      STRING,
  account_id    STRING,
  amount        DECIMAL(15, 2),
  settlement_id STRING,
  settle_time   TIMESTAMP(3)
) WITH (
  'connector' = 'print',
  'print-identifier' = 'settled'
);

-- Not confirmed within four hours: the exceptions file.
CREATE TABLE unsettled_orders (
  order_id   STRING,
  account_id STRING,
  amount     DECIMAL(15, 2),
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'out/unsettled_orders.json',
  'format' = 'json'
);

EXECUTE STATEMENT SET
BEGIN
  INSERT INTO settled
  SELECT o.order_id, o.account_id, o.amount, s.settlement_id, s.settle_time
  FROM payment_orders o
  JOIN settlement_confirmations s
    ON o.order_id = s.order_id
   AND o.order_time BETWEEN s.settle_time - INTERVAL '4' HOUR AND s.settle_time;

  INSERT INTO unsettled_orders
  SELECT o.order_id, o.account_id, o.amount, o.order_time
  FROM payment_orders o
  LEFT JOIN settlement_confirmations s
    ON o.order_id = s.order_id
   AND o.order_time BETWEEN s.settle_time - INTERVAL '4' HOUR AND s.settle_time
  WHERE s.settlement_id IS NULL;
END;
