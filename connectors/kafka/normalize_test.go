package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/internal/plantest"
)

// runJobAt runs sql to the end with keyed operators in p partitions.
func runJobAt(t *testing.T, sql string, p int) *exec.Job {
	t.Helper()
	plans, settings := plan(t, sql)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	job, err := exec.Build(ctx, plantest.Lower(t, plans), exec.Options{Settings: settings, Parallelism: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return job
}

// compacted reads topic back and applies it as Kafka's log compaction
// would: the last value of each key, tombstones removing it. A key written
// to two partitions fails the test (its history would not be ordered).
func compacted(t *testing.T, addr, topic string) map[string]string {
	t.Helper()
	out := map[string]string{}
	part := map[string]int32{}
	for _, c := range consume(t, addr, topic) {
		if p, ok := part[c.key]; ok && p != c.partition {
			t.Errorf("%s: key %s written to partitions %d and %d", topic, c.key, p, c.partition)
		}
		part[c.key] = c.partition
		if c.tombstone {
			delete(out, c.key)
		} else {
			out[c.key] = c.value
		}
	}
	return out
}

// ratesTable is the upsert-kafka table of the reproduction (#11, 1).
func ratesTable(addr string) string {
	return fmt.Sprintf(`CREATE TABLE rates (cur STRING, rate DECIMAL(10, 2), ut TIMESTAMP(3), WATERMARK FOR ut AS ut,
  PRIMARY KEY (cur) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'rates', 'properties.bootstrap.servers' = '%s',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
`, addr)
}

// produceRates writes the reproduction's records: USD 1.00 at 10:00, USD
// 1.10 at 10:05, EUR 0.90 at 10:00, then a tombstone for EUR.
func produceRates(t *testing.T, addr string) {
	t.Helper()
	r := func(cur, rate, ut string) rec {
		return rec{key: fmt.Sprintf(`{"cur":"%s"}`, cur), value: fmt.Sprintf(`{"cur":"%s","rate":%s,"ut":"2026-01-01 %s"}`, cur, rate, ut)}
	}
	produce(t, addr, "rates", r("USD", "1.00", "10:00:00"), r("USD", "1.10", "10:05:00"), r("EUR", "0.90", "10:00:00"),
		rec{key: `{"cur":"EUR"}`, nilValue: true})
}

// TestUpsertSourceNormalized is the reproduction (#11, 1) end to
// end, at parallelism 1 and 4: an upsert-kafka topic of rates, aggregated
// and filtered into upsert-kafka topics keyed by currency. Flink's answers:
// the aggregate counts USD once (its last rate, 1.10) and deletes EUR; the
// filter rate < 1.05 keeps nothing (USD's rate is 1.10 now, EUR is
// deleted).
func TestUpsertSourceNormalized(t *testing.T) {
	for _, p := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism %d", p), func(t *testing.T) {
			addr := cluster(t, map[string]int32{"rates": 1, "totals": 2, "cheap": 2})
			produceRates(t, addr)
			runJobAt(t, ratesTable(addr)+fmt.Sprintf(`
CREATE TABLE totals (cur STRING, n BIGINT, total DECIMAL(38, 2), PRIMARY KEY (cur) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE cheap (cur STRING, rate DECIMAL(10, 2), PRIMARY KEY (cur) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'cheap', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO totals SELECT cur, COUNT(*), SUM(rate) FROM rates GROUP BY cur;
INSERT INTO cheap SELECT cur, rate FROM rates WHERE rate < 1.05;
`, addr), p)
			totals := compacted(t, addr, "totals")
			want := map[string]string{`{"cur":"USD"}`: `{"cur":"USD","n":1,"total":1.10}`}
			if fmt.Sprint(totals) != fmt.Sprint(want) {
				t.Errorf("totals compact to %v, want %v", totals, want)
			}
			if cheap := compacted(t, addr, "cheap"); len(cheap) != 0 {
				t.Errorf("cheap compacts to %v, want nothing (USD is 1.10 now, EUR is deleted)", cheap)
			}
		})
	}
}
