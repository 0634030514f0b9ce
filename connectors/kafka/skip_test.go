package kafka

import (
	"fmt"
	"testing"
)

// TestSkipBadRecordsValueFormat: with 'value.format', the value format's
// options are written 'value.json.…' (as in Flink), and
// 'value.json.ignore-parse-errors' makes the job skip and count a bad
// record instead of failing.
func TestSkipBadRecordsValueFormat(t *testing.T) {
	addr := cluster(t, map[string]int32{"in": 1, "out": 1})
	produce(t, addr, "in",
		rec{value: `{"id": 1}`}, rec{value: `{"id": "one"}`}, rec{value: `not json`}, rec{value: `{"id": 3}`})
	j := runJob(t, fmt.Sprintf(`
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '%[1]s',
  'value.format' = 'json', 'value.json.ignore-parse-errors' = 'true',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE dst (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = '%[1]s', 'format' = 'json');
INSERT INTO dst SELECT id FROM src;
`, addr))
	if in, bad := j.Sources[0].In.Load(), j.Sources[0].Bad.Load(); in != 2 || bad != 2 {
		t.Errorf("rows in %d, bad %d: want 2 and 2", in, bad)
	}
	var got []string
	for _, c := range consume(t, addr, "out") {
		got = append(got, c.value)
	}
	if fmt.Sprint(got) != `[{"id":1} {"id":3}]` {
		t.Errorf("out: %q", got)
	}
}
