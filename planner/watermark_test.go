package planner

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/settings"
)

// CURRENT_WATERMARK is evaluated when a change passes: over an input that
// retracts, a -U would carry another value than the +I it retracts, and the
// row would stay downstream for ever. It is refused there, and accepted over
// an append-only input.
func TestCurrentWatermarkOverRetractions(t *testing.T) {
	const ddl = `
CREATE TABLE pay (acct STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'p.json', 'format' = 'json');
CREATE TABLE out_ (acct STRING, ws TIMESTAMP(3), total INT, wm TIMESTAMP(3), PRIMARY KEY (acct, ws) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
`
	const query = `
INSERT INTO out_ SELECT acct, window_start, total, CURRENT_WATERMARK(wt) FROM (
  SELECT acct, window_start, window_time AS wt, CAST(SUM(amount) AS INT) AS total
  FROM TABLE(TUMBLE(TABLE pay, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY acct, window_start, window_end, window_time);
`
	for _, tc := range []struct {
		set     string
		refused bool
	}{
		{"", false},
		{"SET 'table.exec.emit.allow-lateness' = '1 min';", true},
		{"SET 'table.exec.emit.allow-lateness' = '1 min'; SET 'table.exec.emit.final-only' = 'true';", false},
	} {
		src := diag.NewSource("job.sql", ddl+tc.set+query)
		f := parser.Parse(src)
		j := PlanFile(src, f.Stmts, &f.Diags, settings.Values{})
		var msgs []string
		for _, d := range j.Diags.Items {
			msgs = append(msgs, d.Msg)
		}
		got := strings.Contains(strings.Join(msgs, "\n"), "CURRENT_WATERMARK over an input that retracts rows")
		if got != tc.refused {
			t.Errorf("%q: refused = %v, want %v; diagnostics:\n%s", tc.set, got, tc.refused, strings.Join(msgs, "\n"))
		}
		if !tc.refused && j.Diags.Errors() != 0 {
			t.Errorf("%q: want no error, got %v", tc.set, j.Diags.Err())
		}
	}
}
