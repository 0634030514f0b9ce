package exec

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/row"
)

// TestWindowOverUnnestMatchesPostgres checks window aggregates over UNNEST
// (a window TVF, then CROSS or LEFT JOIN UNNEST of the window's rows, then
// GROUP BY window_start, window_end and an element) against PostgreSQL on
// random rows in disorder within the watermark's delay: the windows are
// computed there by integer arithmetic on epoch milliseconds (TUMBLE and
// HOP by flooring, SESSION as gaps and islands per group: a row more than
// the gap after the group's previous row starts a new session, Flink's
// merging of the windows [t, t + gap), which touch at their ends). The
// window aggregate must emit inserts only, and exactly PostgreSQL's rows.
func TestWindowOverUnnestMatchesPostgres(t *testing.T) {
	db := jdbctest.Open(t, "postgres")
	const base = 1_767_225_600_000 // 2026-01-01 00:00:00 UTC
	queries := []struct{ ours, pg string }{
		{`SELECT window_start, window_end, x, COUNT(*), SUM(id)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) CROSS JOIN UNNEST(tags) AS u (x)
GROUP BY window_start, window_end, x`,
			`SELECT ms - ms % 10000, ms - ms % 10000 + 10000, x, count(*), sum(id)
FROM t CROSS JOIN LATERAL unnest(tags) AS u (x) GROUP BY 1, 2, 3`},
		{`SELECT w.window_start, u.x, u.n, COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) AS w LEFT JOIN UNNEST(w.tags) WITH ORDINALITY AS u (x, n) ON TRUE
GROUP BY w.window_start, w.window_end, u.x, u.n`,
			`SELECT ms - ms % 10000, x, n, count(*)
FROM t LEFT JOIN LATERAL unnest(tags) WITH ORDINALITY AS u (x, n) ON TRUE GROUP BY 1, 2, 3`},
		{`SELECT window_start, window_end, x, MAX(id)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) CROSS JOIN UNNEST(tags) AS u (x)
WHERE x > 2 GROUP BY window_start, window_end, x`,
			`SELECT ws, ws + 15000, x, max(id)
FROM t CROSS JOIN LATERAL unnest(tags) AS u (x)
CROSS JOIN LATERAL (SELECT ms - ms % 5000 - g * 5000 AS ws FROM generate_series(0, 2) AS g) AS w
WHERE x > 2 GROUP BY 1, 2, 3`},
		{`SELECT window_start, window_end, x, COUNT(*), MIN(id)
FROM TABLE(SESSION(TABLE t, DESCRIPTOR(ts), INTERVAL '3' SECOND)) CROSS JOIN UNNEST(tags) AS u (x)
GROUP BY window_start, window_end, x`,
			`WITH e AS (SELECT id, ms, x FROM t CROSS JOIN LATERAL unnest(tags) AS u (x)),
s AS (SELECT *, CASE WHEN ms - lag(ms) OVER (PARTITION BY x ORDER BY ms) <= 3000 THEN 0 ELSE 1 END AS fresh FROM e),
n AS (SELECT *, sum(fresh) OVER (PARTITION BY x ORDER BY ms ROWS UNBOUNDED PRECEDING) AS sid FROM s)
SELECT min(ms), max(ms) + 3000, x, count(*), min(id) FROM n GROUP BY x, sid`},
	}
	for seed := int64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewSource(seed))
		var rows row.Batch
		var pgRows []string
		clock := int64(base)
		for id := 0; id < 80; id++ {
			clock += int64(r.Intn(1500))
			ms := clock - int64(r.Intn(900)) // disorder within the 1-second watermark delay
			tags, tagsPG := randIntArray(r)
			rows = append(rows, row.Insert(row.IntValue(int64(id)), tags, row.IntValue(ms)))
			pgRows = append(pgRows, fmt.Sprintf("(%d, %s, %d)", id, tagsPG, ms))
		}
		path := fmt.Sprintf("unnest-window-ref-%d.json", seed)
		setData(path, rows)
		db.Exec(t, "DROP TABLE IF EXISTS t", "CREATE TABLE t (id INT, tags INT[], ms BIGINT)",
			"INSERT INTO t VALUES "+strings.Join(pgRows, ", "))
		ddl := fmt.Sprintf("CREATE TABLE t (id INT, tags ARRAY<INT>, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json')", path)
		for _, q := range queries {
			want := pgQuery(t, db.SQL, q.pg)
			for _, p := range []int{1, 3} {
				got, kinds := runFinalTable(t, ddl, q.ours, p)
				if kinds != changelogmode.InsertOnly && len(got) > 0 {
					t.Fatalf("seed %d, parallelism %d: %s emitted %s, not inserts only", seed, p, q.ours, kinds)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("seed %d, parallelism %d: %s\ngot:\n%s\nPostgreSQL:\n%s", seed, p, q.ours,
						strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
}
