CREATE TABLE payment_orders (
order_id STRING,
account_id STRING,
amount DECIMAL(15,2),
order_time TIMESTAMP(3),
WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
'connector' = 'kafka',
'topic' = 'nbi-payment-orders',
'properties.bootstrap.servers' = 'broker1:9092',
'format' = 'json'
);
CREATE TABLE settlement_confirmations (
settlement_id STRING,
order_id STRING,
settled_at DECIMAL(15,2),
settle_time TIMESTAMP(3),
WATERMARK FOR settle_time AS settle_time - INTERVAL '5' SECOND
) WITH (
'connector' = 'kafka',
'topic' = 'nbi-settlements',
'properties.bootstrap.servers' = 'broker1:9092',
'format' = 'json'
);
-- Regular join: state grows FOREVER
SELECT
o.order_id, o.account_id, o.amount,
s.settlement_id, s.settled_at
FROM payment_orders o
JOIN settlement_confirmations s
ON o.order_id = s.order_id;
-- Interval join: bounded state
SELECT o.order_id, o.account_id, o.amount, s.settlement_id, s.settled_at
FROM payment_orders o
JOIN settlement_confirmations s
ON o.order_id = s.order_id
AND o.order_time BETWEEN
s.settle_time - INTERVAL '4' HOUR
AND s.settle_time;
-- Symmetric: within 30 minutes either side
SELECT o.order_id, s.settlement_id FROM payment_orders o JOIN settlement_confirmations s
ON o.order_id = s.order_id
AND o.order_time BETWEEN
s.settle_time - INTERVAL '30' MINUTE
AND s.settle_time + INTERVAL '30' MINUTE;
-- LEFT interval join: unmatched orders produce null confirmation
SELECT
o.order_id, o.account_id, o.amount,
s.settlement_id -- NULL if no confirmation within 4 hours
FROM payment_orders o
LEFT JOIN settlement_confirmations s
ON o.order_id = s.order_id
AND o.order_time BETWEEN
s.settle_time - INTERVAL '4' HOUR
AND s.settle_time;
SET 'table.exec.state.ttl' = '24h';
CREATE TABLE clicks (
  click_id BIGINT, impression_id BIGINT, user_id BIGINT, epoch_ms BIGINT,
  click_time AS TO_TIMESTAMP_LTZ(epoch_ms, 3),
  WATERMARK FOR click_time AS click_time - INTERVAL '10' SECONDS
) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'localhost:9092',
        'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp-millis' = '1767225600000', 'format' = 'json');
CREATE TABLE rates (
  currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = 'localhost:9092',
        'key.format' = 'json', 'value.format' = 'json');
CREATE VIEW big_orders AS SELECT * FROM payment_orders WHERE amount > 1000;
SELECT o.order_id, o.amount * r.rate AS converted
FROM payment_orders o
JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.account_id = r.currency;
SELECT window_start, window_end, COUNT(*) AS n, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE payment_orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES))
GROUP BY window_start, window_end;
SELECT o.order_id, s.settlement_id
FROM payment_orders o FULL OUTER JOIN settlement_confirmations s ON o.order_id = s.order_id;
EXPLAIN CHANGELOG_MODE SELECT * FROM big_orders;
