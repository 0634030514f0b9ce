package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// cdcWriterJob writes the topic 'orders-cdc' as a changelog (line 14).
const cdcWriterJob = `CREATE TABLE orders (
  order_id STRING,
  amount DECIMAL(10, 2)
) WITH ('connector' = 'datagen');
CREATE TABLE orders_cdc (
  order_id STRING,
  amount DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders-cdc',
  'properties.bootstrap.servers' = 'localhost:9092',
  'format' = 'debezium-json'
);
INSERT INTO orders_cdc SELECT order_id, amount FROM orders;
`

// plainReaderJob reads 'orders-cdc' as plain json rows ('format' on line 8).
const plainReaderJob = `CREATE TABLE cdc_in (
  order_id STRING,
  amount DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders-cdc',
  'properties.bootstrap.servers' = 'localhost:9092',
  'format' = 'json'
);
SELECT order_id, amount FROM cdc_in;
`

func TestCheckContractsAcrossFiles(t *testing.T) {
	writer := writeJob(t, "writer.sql", cdcWriterJob)
	reader := writeJob(t, "reader.sql", plainReaderJob)

	for _, path := range []string{writer, reader} {
		if r := invoke("check", path); r.code != 0 {
			t.Errorf("each job alone is accepted; %s:\n%s", path, r)
		}
	}

	for _, args := range [][]string{{"check", writer, reader}, {"check", reader, writer}, {"check", writer, reader, writer}} {
		r := invoke(args...)
		if r.code != 1 {
			t.Fatalf("%q: want exit 1 for a changelog topic read as plain rows, got:\n%s", args, r)
		}
		if !strings.HasPrefix(r.stdout, reader+":8:3: error: topic 'orders-cdc' is written by "+writer+":14 as 'debezium-json'") {
			t.Errorf("%q: want the error in the reader's file naming the writer's file and line, got:\n%s", args, r.stdout)
		}
		if !strings.Contains(r.stdout, "retractions as rows [SQL500]") {
			t.Errorf("%q: want the reason and code SQL500, got:\n%s", args, r.stdout)
		}
		if n := strings.Count(r.stdout, "[SQL500]"); n != 1 {
			t.Errorf("%q: want the contract reported once, got %d times:\n%s", args, n, r.stdout)
		}
		if !strings.Contains(r.stderr, ", 1 error,") {
			t.Errorf("%q: want 1 error in the summary, got %q", args, r.stderr)
		}
	}

	r := invoke("check", "--format", "json", writer, reader)
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 1 {
		t.Fatalf("json: want exit 1 and a JSON array, got %v:\n%s", err, r)
	}
	var found bool
	for _, d := range got {
		if d["code"] == "SQL500" {
			found = true
			if d["file"] != reader || d["line"] != 8.0 {
				t.Errorf("json: want SQL500 at %s:8, got %v", reader, d)
			}
			if msg, _ := d["message"].(string); !strings.Contains(msg, writer+":14") {
				t.Errorf("json: the message must name the writer, got %q", msg)
			}
		}
	}
	if !found {
		t.Errorf("json: no SQL500 in:\n%s", r.stdout)
	}

	// The same pair with the reader reading the changelog is accepted.
	fixed := writeJob(t, "fixed.sql", strings.Replace(plainReaderJob, "'format' = 'json'", "'format' = 'debezium-json'", 1))
	if r := invoke("check", writer, fixed); r.code != 0 || r.stdout != "" {
		t.Errorf("a debezium-json reader is accepted, got:\n%s", r)
	}
}
