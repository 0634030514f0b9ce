package oracle

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/eval"
)

// nullSafeQuery is one query with IS [NOT] DISTINCT FROM, as streamsql and
// as PostgreSQL read it (the same SQL, but for windows and time).
type nullSafeQuery struct {
	name, flink, pg string
}

// nullSafeQueries use IS [NOT] DISTINCT FROM in filters, projections and
// as null-safe join keys of every kind of join: regular (inner, left,
// right, full; with a second key, with a residual, with a key whose sides
// are cast), interval, window and temporal joins, a LATERAL subquery's
// Top-N, and EXISTS / NOT EXISTS (semi and anti joins). Booleans are shown as 1 and 0 (never NULL for
// the null-safe ones). PostgreSQL runs a FULL JOIN on hashable equalities
// only: there its key is COALESCE(k, -1) on both sides (keys are 1 to 3).
var nullSafeQueries = []nullSafeQuery{
	{"filter", `SELECT id, CASE WHEN k IS DISTINCT FROM 2 THEN 1 ELSE 0 END, CASE WHEN s IS NOT DISTINCT FROM k2 THEN 1 ELSE 0 END FROM l
		WHERE s IS NOT DISTINCT FROM NULL OR k IS DISTINCT FROM id OR NOT (k IS NOT DISTINCT FROM big)`, ""},
	{"inner", `SELECT l.id, r.id FROM l JOIN r ON l.k IS NOT DISTINCT FROM r.k`, ""},
	{"left", `SELECT l.id, r.id FROM l LEFT JOIN r ON r.k IS NOT DISTINCT FROM l.k`, ""},
	{"right", `SELECT l.id, r.id FROM l RIGHT JOIN r ON l.k IS NOT DISTINCT FROM r.k`, ""},
	{"full", `SELECT l.id, r.id FROM l FULL JOIN r ON l.k IS NOT DISTINCT FROM r.k`,
		`SELECT l.id, r.id FROM l FULL JOIN r ON COALESCE(l.k, -1) = COALESCE(r.k, -1)`},
	{"two keys", `SELECT l.id, r.id FROM l FULL JOIN r ON l.k IS NOT DISTINCT FROM r.k AND l.s = r.s`,
		`SELECT l.id, r.id FROM l FULL JOIN r ON COALESCE(l.k, -1) = COALESCE(r.k, -1) AND l.s = r.s`},
	{"two null-safe keys", `SELECT l.id, r.id FROM l LEFT JOIN r ON l.k IS NOT DISTINCT FROM r.k AND l.s IS NOT DISTINCT FROM r.s`, ""},
	{"residual", `SELECT l.id, r.id FROM l JOIN r ON l.k IS NOT DISTINCT FROM r.k AND l.s IS DISTINCT FROM r.s`, ""},
	{"cast key", `SELECT l.id, r.id FROM l LEFT JOIN r ON l.big IS NOT DISTINCT FROM r.d`, ""},
	{"where key", `SELECT l.id, r.id FROM l, r WHERE l.k IS NOT DISTINCT FROM r.k AND r.id > 2`, ""},
	{"interval", `SELECT l.id, r.id FROM l JOIN r ON l.k IS NOT DISTINCT FROM r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND`, ""},
	{"interval left", `SELECT l.id, r.id FROM l LEFT JOIN r ON l.k IS NOT DISTINCT FROM r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND`, ""},
	{"window", `SELECT lw.id, rw.id
		FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) lw
		FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) rw
		ON lw.k IS NOT DISTINCT FROM rw.k AND lw.window_start = rw.window_start AND lw.window_end = rw.window_end`,
		`SELECT l.id, r.id FROM l FULL JOIN r ON COALESCE(l.k, -1) = COALESCE(r.k, -1)
		AND date_bin('10 seconds', l.ts, TIMESTAMP '2000-01-01') = date_bin('10 seconds', r.ts, TIMESTAMP '2000-01-01')`},
	{"temporal", `SELECT l.id, v.id FROM l LEFT JOIN v FOR SYSTEM_TIME AS OF l.ts ON l.k IS NOT DISTINCT FROM v.k`,
		`SELECT l.id, x.id FROM l LEFT JOIN LATERAL (SELECT v.id FROM v WHERE v.k IS NOT DISTINCT FROM l.k AND v.ts <= l.ts
		ORDER BY v.ts DESC LIMIT 1) x ON TRUE`},
	{"lateral", `SELECT l.id, t.id FROM l, LATERAL (SELECT r.id FROM r WHERE r.k IS NOT DISTINCT FROM l.k ORDER BY r.id DESC LIMIT 2) t`, ""},
	{"exists", `SELECT l.id FROM l WHERE EXISTS (SELECT * FROM r WHERE r.k IS NOT DISTINCT FROM l.k AND r.s IS NOT DISTINCT FROM l.s)`, ""},
	{"not exists", `SELECT l.id FROM l WHERE NOT EXISTS (SELECT * FROM r WHERE l.k IS NOT DISTINCT FROM r.k)`, ""},
}

// TestNullSafeAgainstPostgres runs each of nullSafeQueries on random small
// tables with NULLs on both sides, at parallelism 1 and 4, and compares
// the engine's final rows with PostgreSQL's answer.
func TestNullSafeAgainstPostgres(t *testing.T) {
	ctx := context.Background()
	pg, err := ConnectPG(ctx)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot reach PostgreSQL at %s: %v", pgURL(), err)
		}
		t.Skipf("cannot reach PostgreSQL at %s: %v", pgURL(), err)
	}
	defer pg.Close()
	dir := t.TempDir()
	ddl := `CREATE TABLE l (id INT, k INT, k2 STRING, s STRING, big BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'l.json', 'format' = 'json');
CREATE TABLE r (id INT, k INT, s STRING, d DECIMAL(5, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'r.json', 'format' = 'json');
CREATE TABLE v (id INT, k INT NOT NULL, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'v.json', 'format' = 'json');
`
	pgDDL := []string{
		"CREATE TEMPORARY TABLE l (id INT, k INT, k2 TEXT, s TEXT, big BIGINT, ts TIMESTAMP(3)) ON COMMIT DROP",
		"CREATE TEMPORARY TABLE r (id INT, k INT, s TEXT, d NUMERIC(5, 2), ts TIMESTAMP(3)) ON COMMIT DROP",
		"CREATE TEMPORARY TABLE v (id INT, k INT NOT NULL, ts TIMESTAMP(3)) ON COMMIT DROP",
	}
	for seed := int64(1); seed <= 6; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		tables := genNullSafeTables(rnd)
		for name, tb := range tables {
			if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(strings.Join(tb.json, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range nullSafeQueries {
			pgq := q.pg
			if pgq == "" {
				pgq = q.flink
			}
			want, err := pgRows(ctx, pg, pgDDL, tables, pgq)
			if err != nil {
				t.Fatalf("seed %d, %s: PostgreSQL: %v\n%s", seed, q.name, err, pgq)
			}

			job := ddl + q.flink + ";\n"
			if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, p := range []int{1, 4} {
				rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
				res, err := runEngine(rctx, dir, p)
				cancel()
				if err != nil {
					t.Fatalf("seed %d, %s, parallelism %d: %v\njob:\n%s", seed, q.name, p, err, job)
				}
				var got []string
				for _, r := range res.rows {
					parts := make([]string, len(r))
					for i, v := range r {
						parts[i] = "NULL"
						if !v.IsNull() {
							parts[i] = eval.FormatValue(v, res.cols[i].Type)
						}
					}
					got = append(got, strings.Join(parts, "|"))
				}
				slices.Sort(got)
				if res.late > 0 {
					t.Fatalf("seed %d, %s, parallelism %d: %d rows counted late, none is", seed, q.name, p, res.late)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d, %s, parallelism %d: streamsql and PostgreSQL differ\nquery: %s\ndata: %v\nwant (PostgreSQL):\n  %s\ngot (streamsql):\n  %s",
						seed, q.name, p, q.flink, tables, strings.Join(want, "\n  "), strings.Join(got, "\n  "))
				}
			}
		}
	}
}

// nullSafeTable is one table's rows, as JSON lines and as PostgreSQL
// VALUES tuples.
type nullSafeTable struct {
	json, pg []string
}

// genNullSafeTables draws l, r and v: few distinct keys and many NULLs on
// both sides (the first row of l and r has NULL keys); l.big holds the largest BIGINT now and then (too large for
// r.d's DECIMAL: its cast key is NULL, which must not match r.d's NULLs);
// times increase by a second, out of order by up to 3 s (the watermark
// allows 5 s: nothing is late); v's keys are 1 to 3, its times distinct.
func genNullSafeTables(rnd *rand.Rand) map[string]nullSafeTable {
	pick := func(vals ...string) string { return vals[rnd.Intn(len(vals))] }
	js := func(v string) string {
		if v == "NULL" {
			return "null"
		}
		if strings.HasPrefix(v, "'") {
			return `"` + strings.Trim(v, "'") + `"`
		}
		return v
	}
	out := map[string]nullSafeTable{}
	for _, name := range []string{"l", "r", "v"} {
		var tb nullSafeTable
		n := 4 + rnd.Intn(8)
		for i := 1; i <= n; i++ {
			ts := tsText(epoch + int64(i)*1000 + int64(rnd.Intn(4))*1000)
			k := pick("NULL", "NULL", "1", "2", "3")
			s := pick("NULL", "'a'", "'b'")
			if i == 1 {
				// Every seed has NULL keys on both sides.
				k, s = "NULL", "NULL"
			}
			var cols, vals []string
			switch name {
			case "l":
				cols = []string{"id", "k", "k2", "s", "big", "ts"}
				big := pick("NULL", "1", "2", "9223372036854775807")
				if i == 1 {
					big = "9223372036854775807" // NULL as a DECIMAL(21, 2) key
				}
				vals = []string{fmt.Sprint(i), k, pick("NULL", "'a'"), s, big, "'" + ts + "'"}
			case "r":
				cols = []string{"id", "k", "s", "d", "ts"}
				d := pick("NULL", "1.00", "2.00", "2.50")
				if i == 1 {
					d = "NULL"
				}
				vals = []string{fmt.Sprint(100 + i), k, s, d, "'" + ts + "'"}
			default:
				// Versions of one key at distinct times (no tie to break).
				cols = []string{"id", "k", "ts"}
				vals = []string{fmt.Sprint(200 + i), pick("1", "2", "3"), "'" + tsText(epoch+int64(i)*2500) + "'"}
			}
			parts := make([]string, len(cols))
			for j, c := range cols {
				parts[j] = fmt.Sprintf("%q:%s", c, js(vals[j]))
			}
			tb.json = append(tb.json, "{"+strings.Join(parts, ",")+"}")
			tb.pg = append(tb.pg, "("+strings.Join(vals, ", ")+")")
		}
		out[name] = tb
	}
	return out
}

// pgRows loads the tables into temporary tables and runs q, each row's
// values joined by |.
func pgRows(ctx context.Context, pg *PG, ddl []string, tables map[string]nullSafeTable, q string) ([]string, error) {
	tx, err := pg.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, s := range ddl {
		if _, err := tx.Exec(ctx, s); err != nil {
			return nil, err
		}
	}
	for name, tb := range tables {
		if _, err := tx.Exec(ctx, "INSERT INTO "+name+" VALUES "+strings.Join(tb.pg, ", ")); err != nil {
			return nil, err
		}
	}
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = "NULL"
			if v != nil {
				parts[i] = fmt.Sprint(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
