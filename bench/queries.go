package main

import (
	"fmt"
	"slices"
	"strings"
)

// query is one benchmark job: SQL run by `streamsql run`.
type query struct {
	name string
	// what the query is and how it differs from its Nexmark original.
	note string
	sql  func(c config) string
	// events of the input: Nexmark stream events, or JSON rows.
	events func(c config) int64
	// nexmark: the events count as Nexmark's whole stream (events.num),
	// although the job reads only some kinds.
	nexmark bool
	// budget, when set, is the 'state.memory-budget' of the run (a budget
	// that forces state to spill to Badger).
	budget string
	// http: the job runs with --http 127.0.0.1:0, and bench scrapes its
	// /metrics every second while it runs (the cost of being watched).
	http bool
	// kafka: the job reads and writes topics of the development broker
	// (see kafka.go): inputs are produced to these topics from the files
	// of the same name under data/, keyed by order_id, and the output
	// topic is emptied before each run.
	kafka *kafkaTopics
	// checkpoint, when set, is the 'execution.checkpointing.interval' of a
	// run with --state-dir (a fresh directory each run; see checkpoint.go);
	// restore adds the step that stops a run and times its resume.
	checkpoint string
	restore    bool
	// scale: a query of the scaling table (scale.go), run only with
	// BENCH_SCALE=1 or when BENCH_QUERIES names it.
	scale bool
	// prepare, when set, makes the query's input before its runs.
	prepare func(c config) error
}

// kafkaTopics are a Kafka query's input files and topics, and its output
// topic.
type kafkaTopics struct {
	inputs map[string]string // topic → file under data/
	output string
}

func nexmarkDDL(c config, tables ...string) string {
	cols := map[string]string{
		"person":  "id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, state STRING, dateTime TIMESTAMP(3), extra STRING",
		"auction": "id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING",
		"bid":     "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING",
	}
	var b strings.Builder
	for _, t := range tables {
		fmt.Fprintf(&b, `CREATE TABLE %s (
  %s,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
  'connector' = 'nexmark', 'nexmark.table' = '%s',
  'events.num' = '%d', 'first-event.rate' = '%d'
);
`, t, cols[t], t, c.events, c.rate)
	}
	return b.String()
}

func withEvents(c config, n int64) config {
	c.events = n
	return c
}

func ordersDDL(shipments string) string {
	return fmt.Sprintf(`CREATE TABLE orders (
  order_id STRING, customer STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE shipments (
  ship_id STRING, order_id STRING, carrier STRING, ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/%s', 'format' = 'json');
CREATE TABLE shipped (order_id STRING, customer STRING, amount DECIMAL(10, 2), ship_id STRING, carrier STRING, ship_time TIMESTAMP(3))
WITH ('connector' = 'blackhole');
`, shipments)
}

func nexmarkEvents(c config) int64 { return c.events }
func servedEvents(c config) int64  { return c.servedEvents }

// servedSQL is the job of served-1m and served-1m-http: datagen rows at
// 1 M a second of wall clock into a blackhole, with an event time.
func servedSQL(c config) string {
	return fmt.Sprintf(`CREATE TABLE gen (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '1000000', 'number-of-rows' = '%d');
CREATE TABLE served_out (id BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO served_out SELECT id, ts FROM gen;
`, c.servedEvents)
}
func joinEvents(c config) int64   { return c.joinEvents }
func windowEvents(c config) int64 { return c.windowEvents }
func orderEvents(c config) int64  { return 2 * c.keys }

var queries = []query{
	{
		name: "served-1m", events: servedEvents, sql: servedSQL,
		note: "datagen at 1 M rows a second of wall clock into a blackhole, without --http: the base of served-1m-http.",
	},
	{
		name: "served-1m-http", events: servedEvents, sql: servedSQL, http: true,
		note: "served-1m run with --http 127.0.0.1:0, its /metrics scraped every second while it runs: what serving metrics costs.",
	},
	{
		name: "q0", nexmark: true, events: nexmarkEvents,
		note: "Nexmark q0: every bid passed through to a blackhole sink.",
		sql: func(c config) string {
			return nexmarkDDL(c, "bid") + `CREATE TABLE q0_out (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING)
WITH ('connector' = 'blackhole');
INSERT INTO q0_out SELECT auction, bidder, price, dateTime, extra FROM bid;
`
		},
	},
	{
		name: "q3", nexmark: true, events: nexmarkEvents,
		note: "Nexmark q3 as written: auction ⋈ person on seller, category 10, sellers in OR, ID or CA (a regular join).",
		sql: func(c config) string {
			return nexmarkDDL(c, "person", "auction") + `CREATE TABLE q3_out (name STRING, city STRING, state STRING, id BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO q3_out
SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');
`
		},
	},
	{
		name: "q8", nexmark: true, events: nexmarkEvents,
		note: "Nexmark q8 as written: people and sellers per 10-second TUMBLE window, joined on id and window " +
			"(a window join: each window is joined once when the watermark passes its end, then freed).",
		sql: func(c config) string {
			return nexmarkDDL(c, "person", "auction") + `CREATE TABLE q8_out (id BIGINT, name STRING, stime TIMESTAMP(3))
WITH ('connector' = 'blackhole');
INSERT INTO q8_out
SELECT P.id, P.name, P.starttime
FROM (
  SELECT id, name, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY id, name, window_start, window_end
) P
JOIN (
  SELECT seller, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY seller, window_start, window_end
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;
`
		},
	},
	{
		name: "q9", nexmark: true, events: joinEvents,
		note: "Nexmark q9's join: bids within their auction's [dateTime, expires]. expires is not a time attribute, " +
			"so `BETWEEN A.dateTime AND A.expires` alone plans as a regular join; here the bound is written as an " +
			"interval join on dateTime (upper bound 1 s, above the longest auction at rates of 5,000 events/s and up) " +
			"with `B.dateTime <= A.expires` as a residual filter: the same rows. q9's top-1 bid per auction " +
			"(ROW_NUMBER) is left out.",
		sql: func(c config) string {
			return nexmarkDDL(withEvents(c, c.joinEvents), "auction", "bid") + `CREATE TABLE q9_out (id BIGINT, itemName STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3),
  expires TIMESTAMP(3), seller BIGINT, category BIGINT, bidder BIGINT, price BIGINT, bid_dateTime TIMESTAMP(3))
WITH ('connector' = 'blackhole');
INSERT INTO q9_out
SELECT A.id, A.itemName, A.initialBid, A.reserve, A.dateTime, A.expires, A.seller, A.category,
       B.bidder, B.price, B.dateTime
FROM auction A JOIN bid B
  ON A.id = B.auction
 AND B.dateTime BETWEEN A.dateTime AND A.dateTime + INTERVAL '1' SECOND
 AND B.dateTime <= A.expires;
`
		},
	},
	{
		name: "q20", nexmark: true, events: joinEvents,
		note: "Nexmark q20 as written (bid ⋈ auction, category 10, a regular join) with 'table.exec.state.ttl' = '1 h': " +
			"the TTL is in processing time, so in a run of seconds it expires nothing but is kept up to date on every row.",
		sql: func(c config) string {
			return "SET 'table.exec.state.ttl' = '1 h';\n" + nexmarkDDL(withEvents(c, c.joinEvents), "auction", "bid") + `CREATE TABLE q20_out (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, bid_dateTime TIMESTAMP(3), bid_extra STRING,
  itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, auction_dateTime TIMESTAMP(3),
  expires TIMESTAMP(3), seller BIGINT, category BIGINT, auction_extra STRING)
WITH ('connector' = 'blackhole');
INSERT INTO q20_out
SELECT auction, bidder, price, channel, url, B.dateTime, B.extra,
       itemName, description, initialBid, reserve, A.dateTime, expires, seller, category, A.extra
FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10;
`
		},
	},
	{
		name: "orders-1s", events: orderEvents,
		note: "orders ⋈ shipments from JSON files, interval join, shipment within 1 second of its order.",
		sql: func(c config) string {
			return ordersDDL("shipments_1s.json") + `INSERT INTO shipped
SELECT o.order_id, o.customer, o.amount, s.ship_id, s.carrier, s.ship_time
FROM orders o JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '1' SECOND;
`
		},
	},
	{
		name: "orders-1s-kafka", events: orderEvents,
		note: "orders-1s from Kafka JSON to Kafka JSON: the orders and shipments topics (4 partitions each, keyed by " +
			"order_id) of the development broker (`streamsql dev kafka`, a process on the same cores) read bounded at " +
			"their latest offsets, the joined rows written to a 4-partition json topic; producing the inputs is not " +
			"counted, and the broker's CPU during the run is reported apart.",
		kafka: &kafkaTopics{inputs: map[string]string{"orders": "orders.json", "shipments": "shipments_1s.json"}, output: "shipped"},
		sql: func(c config) string {
			src := func(name, cols, wm string) string {
				return fmt.Sprintf(`CREATE TABLE %s (
  %s,
  WATERMARK FOR %s AS %[3]s - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = '%[1]s', 'properties.bootstrap.servers' = '%[4]s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
`, name, cols, wm, c.kafkaAddr)
			}
			return src("orders", "order_id STRING, customer STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3)", "order_time") +
				src("shipments", "ship_id STRING, order_id STRING, carrier STRING, ship_time TIMESTAMP(3)", "ship_time") +
				fmt.Sprintf(`CREATE TABLE shipped (order_id STRING, customer STRING, amount DECIMAL(10, 2), ship_id STRING, carrier STRING, ship_time TIMESTAMP(3))
WITH ('connector' = 'kafka', 'topic' = 'shipped', 'properties.bootstrap.servers' = '%s', 'format' = 'json');
INSERT INTO shipped
SELECT o.order_id, o.customer, o.amount, s.ship_id, s.carrier, s.ship_time
FROM orders o JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '1' SECOND;
`, c.kafkaAddr)
		},
	},
	{
		name: "orders-temporal", events: orderEvents,
		note: "Event-time temporal join: each shipment joins the version of its order valid at ship_time (orders declared " +
			"versioned by PRIMARY KEY (order_id)); 1M probes, 1M versions, one per key, so every version stays (peak state ~1M rows).",
		sql: func(c config) string {
			ddl := strings.Replace(ordersDDL("shipments_1s.json"),
				"WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND\n",
				"WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND,\n  PRIMARY KEY (order_id) NOT ENFORCED\n", 1)
			return ddl + `INSERT INTO shipped
SELECT s.order_id, o.customer, o.amount, s.ship_id, s.carrier, s.ship_time
FROM shipments s LEFT JOIN orders FOR SYSTEM_TIME AS OF s.ship_time AS o
  ON s.order_id = o.order_id;
`
		},
	},
	{
		name: "tumble-1h-spill", nexmark: true, events: windowEvents, budget: "64mb",
		note: "Bids per auction, bidder and price in a 1-hour TUMBLE window with 'state.memory-budget' = '64mb': the stream's " +
			"~3.8M groups (at the default 4.2M events) all fall in one window, most of them spilled, and fire at the end " +
			"of input, a batch at a time in order of window end.",
		sql: func(c config) string {
			return nexmarkDDL(withEvents(c, c.windowEvents), "bid") + `CREATE TABLE tumble_out (
  auction BIGINT, bidder BIGINT, price BIGINT, bids BIGINT, wstart TIMESTAMP(3), wend TIMESTAMP(3)
) WITH ('connector' = 'blackhole');
INSERT INTO tumble_out
SELECT auction, bidder, price, COUNT(*), window_start, window_end
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '1' HOUR))
GROUP BY auction, bidder, price, window_start, window_end;
`
		},
	},
	{
		name: "orders-4h", events: orderEvents,
		note: "orders ⋈ shipments from JSON files, interval join, shipment within 4 hours of its order: " +
			"the orders span less than 4 hours of event time, so nearly every order is in state at the end.",
		sql: func(c config) string {
			return ordersDDL("shipments_4h.json") + `INSERT INTO shipped
SELECT o.order_id, o.customer, o.amount, s.ship_id, s.carrier, s.ship_time
FROM orders o JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '4' HOUR;
`
		},
	},
}

// spillRuns are queries run again under a 'state.memory-budget' small enough
// that their state spills to Badger and comes back; each is a copy of its
// base query, appended to queries in this order.
var spillRuns = []struct{ base, budget, note string }{
	{"q8", "32mb", "the window aggregates' groups and the window join's rows spill to Badger and come back."},
	{"orders-1s", "256kb", "the join's few thousand live rows do not fit, so nearly every row spills to Badger and comes back."},
	{"orders-4h", "128mb", "most of the 1.6M waiting rows spill to Badger and come back."},
	{"q20", "128mb", "the regular join's rows spill to Badger and come back."},
}

func init() {
	for _, sr := range spillRuns {
		i := slices.IndexFunc(queries, func(q query) bool { return q.name == sr.base })
		sp := queries[i]
		sp.name, sp.budget = sr.base+"-spill", sr.budget
		sp.note = fmt.Sprintf("%s with 'state.memory-budget' = '%s': %s", sr.base, sr.budget, sr.note)
		queries = append(queries, sp)
	}
}
