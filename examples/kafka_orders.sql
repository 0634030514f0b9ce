-- Orders from Kafka: big orders to a json topic, running totals per customer
-- to an upsert-kafka topic. Try it with the development broker:
--   streamsql dev kafka --topics orders:2,big-orders:2,customer-totals:2
-- (see the README's Kafka section for the kcat commands). Both reads are
-- bounded at the offsets the topics had when the job started, so the job
-- ends once it has read them.

CREATE TABLE orders (
  order_id   BIGINT,
  customer   STRING,
  amount     DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format' = 'json'
);

CREATE TABLE big_orders (
  order_id BIGINT,
  customer STRING,
  amount   DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'big-orders',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'json',
  'key.fields' = 'order_id',
  'format' = 'json'
);

CREATE TABLE customer_totals (
  customer STRING,
  total    DECIMAL(38, 2),
  orders   BIGINT,
  PRIMARY KEY (customer) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'customer-totals',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'json',
  'value.format' = 'json'
);

INSERT INTO big_orders
SELECT order_id, customer, amount FROM orders WHERE amount >= 100;

INSERT INTO customer_totals
SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer;
