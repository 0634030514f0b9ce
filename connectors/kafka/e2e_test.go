package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/planner"
	jobsettings "github.com/streamsql/streamsql/settings"
)

// plan checks sql as `streamsql run` does and returns its plans (EXPLAIN
// statements left out) and settings; a job with errors fails the test.
func plan(t *testing.T, sql string) ([]*planner.Plan, jobsettings.Settings) {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatalf("the job has errors: %v", j.Diags.Err())
	}
	var plans []*planner.Plan
	for _, p := range j.Session.Plans {
		if p.Explain == nil {
			plans = append(plans, p)
		}
	}
	return plans, j.Session.Settings
}

// runJob plans sql as `streamsql run` does and runs it to the end.
func runJob(t *testing.T, sql string) *exec.Job {
	t.Helper()
	plans, settings := plan(t, sql)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return job
}

// TestEndToEnd: a bounded interval join of two topics (three partitions and
// one) into a json topic and, aggregated, into an upsert-kafka topic.
func TestEndToEnd(t *testing.T) {
	addr := cluster(t, map[string]int32{"orders": 3, "shipments": 1, "out": 2, "totals": 2})
	var orders, shipments []rec
	for i := range 30 {
		orders = append(orders, rec{partition: int32(i % 3), key: fmt.Sprint(i),
			value: fmt.Sprintf(`{"id": %d, "customer": "c%d", "amount": %d, "ts": "2026-01-01 00:%02d:00"}`, i, i%4, i, i)})
		if i%2 == 0 { // every other order ships, 5 minutes later
			shipments = append(shipments, rec{value: fmt.Sprintf(`{"order_id": %d, "ts": "2026-01-01 00:%02d:00"}`, i, i+5)})
		}
	}
	produce(t, addr, "orders", orders...)
	produce(t, addr, "shipments", shipments...)
	job := fmt.Sprintf(`
CREATE TABLE orders (id BIGINT, customer STRING, amount BIGINT, ts TIMESTAMP(3),
  part INT METADATA FROM 'partition' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE shipments (order_id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'shipments', 'properties.bootstrap.servers' = '%[1]s',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE shipped (id BIGINT, part INT, shipped_at TIMESTAMP(3))
WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
CREATE TABLE totals (customer STRING, total BIGINT, PRIMARY KEY (customer) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO shipped
SELECT o.id, o.part, s.ts FROM orders o JOIN shipments s
  ON o.id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' MINUTE;
INSERT INTO totals SELECT customer, SUM(amount) FROM orders GROUP BY customer;
`, addr)
	j := runJob(t, job)
	if n := j.Sources[0].In.Load(); n != 30 {
		t.Errorf("orders read: %d", n)
	}
	var got []string
	for _, c := range consume(t, addr, "out") {
		got = append(got, c.value)
	}
	slices.Sort(got)
	var want []string
	for i := 0; i < 30; i += 2 {
		want = append(want, fmt.Sprintf(`{"id":%d,"part":%d,"shipped_at":"2026-01-01 00:%02d:00.000"}`, i, i%3, i+5))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("out:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Compacting the upsert topic by key gives one total per customer.
	last := map[string]string{}
	for _, c := range consume(t, addr, "totals") {
		if c.tombstone {
			delete(last, c.key)
		} else {
			last[c.key] = c.value
		}
	}
	sums := map[int]int{}
	for i := range 30 {
		sums[i%4] += i
	}
	for c, sum := range sums {
		key := fmt.Sprintf(`{"customer":"c%d"}`, c)
		if v := fmt.Sprintf(`{"customer":"c%d","total":%d}`, c, sum); last[key] != v {
			t.Errorf("totals[%s] = %s, want %s", key, last[key], v)
		}
	}
	if len(last) != 4 {
		t.Errorf("totals: %v", last)
	}
}
