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

// TestRankAgainstPostgres checks Top-N, deduplication and window Top-N
// (ROW_NUMBER() OVER with a filter on its result) against PostgreSQL's
// ROW_NUMBER, and session windows (the TVF and the legacy GROUP BY
// SESSION) against gaps and islands computed with LAG, and OVER aggregates
// (ROWS and RANGE frames) against PostgreSQL's, on random tables,
// at parallelism 1 and 4: the engine's
// changelog, applied, must equal PostgreSQL's answer over the table's
// final contents. The order always ends in the unique column id (and
// deduplication orders by a time column whose values are unique per row),
// so that no two rows tie and the answer does not depend on arrival order;
// NULL sorts first ascending and last descending, as in Flink, which
// PostgreSQL is told with NULLS FIRST/LAST. A changelog input (deletes and
// updates, debezium-json) exercises the Top-N that keeps every row.
func TestRankAgainstPostgres(t *testing.T) {
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
	for seed := int64(1); seed <= 100; seed++ {
		c := genRankCase(rand.New(rand.NewSource(seed)))
		want, err := c.pgAnswer(ctx, pg)
		if err != nil {
			t.Fatalf("seed %d: PostgreSQL: %v\n%s", seed, err, c.pgQuery)
		}
		if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(c.job), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{1, 4} {
			rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			res, err := runEngine(rctx, dir, p)
			cancel()
			if err != nil {
				t.Fatalf("seed %d, parallelism %d: %v\njob:\n%s", seed, p, err, c.job)
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
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, parallelism %d: streamsql and PostgreSQL differ\njob:\n%s\ndata:\n%s\nPostgreSQL: %s\nwant (PostgreSQL):\n  %s\ngot (streamsql):\n  %s",
					seed, p, c.job, c.data, c.pgQuery, strings.Join(want, "\n  "), strings.Join(got, "\n  "))
			}
		}
	}
}

// rankCase is one generated table and ranking query.
type rankCase struct {
	job, data string
	// rows are the table's final contents as PostgreSQL values.
	rows    [][]string
	pgQuery string
}

// genRankCase draws a table t (id BIGINT unique, k STRING with few
// values and NULLs, x INT with NULLs, ts TIMESTAMP(3) unique and in
// order up to a disorder the watermark covers) and a query over it.
func genRankCase(r *rand.Rand) *rankCase {
	kind := []string{"topn", "topn", "topn", "dedup", "window", "session", "over", "over"}[r.Intn(8)]
	changelog := kind == "topn" && r.Intn(2) == 0
	n := 5 + r.Intn(35)
	type rec struct {
		id   int64
		k    string // "" for NULL
		x    string // "NULL" or a number
		ts   int64
		live bool
	}
	var recs []*rec
	var lines []string
	obj := func(x *rec) string {
		k := "null"
		if x.k != "" {
			k = fmt.Sprintf("%q", x.k)
		}
		xs := x.x
		if xs == "NULL" {
			xs = "null"
		}
		return fmt.Sprintf(`{"id":%d,"k":%s,"x":%s,"ts":%q}`, x.id, k, xs, tsText(x.ts))
	}
	base := epoch
	for i := 0; i < n; i++ {
		x := &rec{id: int64(i + 1), x: "NULL", live: true}
		if r.Intn(6) > 0 {
			x.k = string(rune('a' + r.Intn(3)))
		}
		if r.Intn(6) > 0 {
			x.x = fmt.Sprint(r.Intn(12))
		}
		// Unique times (i*1001 - j*1000 for j < 3 and i < 1000), in order
		// up to 2 s of disorder (the watermark allows 5 s): no row is late.
		x.ts = base + int64(i)*1001 - int64(r.Intn(3))*1000
		recs = append(recs, x)
		if changelog {
			lines = append(lines, fmt.Sprintf(`{"before":null,"after":%s,"op":"c"}`, obj(x)))
			// Now and then delete or update an earlier live row.
			if j := r.Intn(len(recs)); r.Intn(4) == 0 && recs[j].live {
				y := recs[j]
				if r.Intn(2) == 0 {
					lines = append(lines, fmt.Sprintf(`{"before":%s,"after":null,"op":"d"}`, obj(y)))
					y.live = false
				} else {
					old := obj(y)
					y.x = fmt.Sprint(r.Intn(12))
					lines = append(lines, fmt.Sprintf(`{"before":%s,"after":%s,"op":"u"}`, old, obj(y)))
				}
			}
		} else {
			lines = append(lines, obj(x))
		}
	}
	c := &rankCase{data: strings.Join(lines, "\n") + "\n"}
	for _, x := range recs {
		if !x.live {
			continue
		}
		k := "NULL"
		if x.k != "" {
			k = "'" + x.k + "'"
		}
		c.rows = append(c.rows, []string{fmt.Sprint(x.id), k, x.x, "'" + tsText(x.ts) + "'"})
	}
	format := "json"
	if changelog {
		format = "debezium-json"
	}
	c.job = "CREATE TABLE t (id BIGINT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) " +
		"WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = '" + format + "');\n"
	dir := func(desc bool) (string, string) {
		if desc {
			return " DESC", " DESC NULLS LAST"
		}
		return "", " ASC NULLS FIRST"
	}
	switch kind {
	case "topn":
		part := []string{"k", "", "k, x"}[r.Intn(3)]
		var fo, po []string // the ORDER BY for streamsql and for PostgreSQL
		if part != "k, x" && r.Intn(3) > 0 {
			f, p := dir(r.Intn(2) == 0)
			fo, po = append(fo, "x"+f), append(po, "x"+p)
		}
		if r.Intn(2) == 0 {
			f, p := dir(r.Intn(2) == 0)
			fo, po = append(fo, "k"+f), append(po, "k"+p)
		}
		f, p := dir(r.Intn(2) == 0)
		fo, po = append(fo, "id"+f), append(po, "id"+p)
		over := func(order []string) string {
			s := "ROW_NUMBER() OVER ("
			if part != "" {
				s += "PARTITION BY " + part + " "
			}
			return s + "ORDER BY " + strings.Join(order, ", ") + ") AS rn"
		}
		top := 1 + r.Intn(4)
		bound := []string{fmt.Sprintf("rn <= %d", top), fmt.Sprintf("rn < %d", top+1), fmt.Sprintf("rn = %d", top),
			fmt.Sprintf("rn BETWEEN 2 AND %d", top+1), fmt.Sprintf("%d >= rn", top)}[r.Intn(5)]
		if r.Intn(3) == 0 {
			bound += " AND x IS NOT NULL"
		}
		cols := "id, k, x, rn"
		if r.Intn(2) == 0 {
			cols = "id, x" // the number not selected
		}
		c.job += fmt.Sprintf("SELECT %s FROM (SELECT id, k, x, %s FROM t) WHERE %s;\n", cols, over(fo), bound)
		c.pgQuery = fmt.Sprintf("SELECT %s FROM (SELECT id, k, x, %s FROM t) AS s WHERE %s", cols, over(po), bound)
	case "dedup":
		f, p := dir(r.Intn(2) == 0)
		c.job += fmt.Sprintf("SELECT id, k, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts%s) AS rn FROM t) WHERE rn = 1;\n", f)
		c.pgQuery = fmt.Sprintf("SELECT id, k, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts%s) AS rn FROM t) AS s WHERE rn = 1", p)
	case "over":
		// OVER aggregates: the frames mean the same in PostgreSQL; times
		// are unique, so no two rows are peers but by the frame's range.
		part := []string{"PARTITION BY k ", ""}[r.Intn(2)]
		frame := []string{fmt.Sprintf("ROWS BETWEEN %d PRECEDING AND CURRENT ROW", r.Intn(4)),
			fmt.Sprintf("RANGE BETWEEN INTERVAL '%d' SECOND PRECEDING AND CURRENT ROW", r.Intn(4)),
			"ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", ""}[r.Intn(4)]
		q := "SELECT id, k, x, SUM(x) OVER w, COUNT(*) OVER w, MAX(x) OVER w, MIN(x) OVER w FROM t WINDOW w AS (" + part + "ORDER BY ts " + frame + ")"
		c.job += q + ";\n"
		c.pgQuery = q
	case "session":
		// Sessions: a row's window [t, t + gap) merges with each session
		// it touches, so a new session starts where a row comes more
		// than gap after the one before it (PostgreSQL's gaps and
		// islands); it ends gap after its last row.
		gap := 1 + r.Intn(3)
		if r.Intn(2) == 0 {
			c.job += fmt.Sprintf("SELECT k, window_start, window_end, COUNT(*), SUM(x) FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '%d' SECOND)) "+
				"GROUP BY k, window_start, window_end;\n", gap)
		} else {
			c.job += fmt.Sprintf("SELECT k, SESSION_START(ts, INTERVAL '%[1]d' SECOND), SESSION_END(ts, INTERVAL '%[1]d' SECOND), COUNT(*), SUM(x) FROM t "+
				"GROUP BY SESSION(ts, INTERVAL '%[1]d' SECOND), k;\n", gap)
		}
		c.pgQuery = fmt.Sprintf("SELECT k, TO_CHAR(MIN(ts), 'YYYY-MM-DD HH24:MI:SS.MS'), TO_CHAR(MAX(ts) + INTERVAL '%[1]d seconds', 'YYYY-MM-DD HH24:MI:SS.MS'), COUNT(*), SUM(x) "+
			"FROM (SELECT *, SUM(brk) OVER (PARTITION BY k ORDER BY ts, id) AS sid FROM ("+
			"SELECT *, CASE WHEN ts - LAG(ts) OVER (PARTITION BY k ORDER BY ts, id) <= INTERVAL '%[1]d seconds' THEN 0 ELSE 1 END AS brk FROM t) AS a) AS b "+
			"GROUP BY k, sid", gap)
	case "window":
		f, p := dir(r.Intn(2) == 0)
		top := 1 + r.Intn(3)
		c.job += fmt.Sprintf("SELECT window_start, k, id, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY x%s, id) AS rn "+
			"FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= %d;\n", f, top)
		c.pgQuery = fmt.Sprintf("SELECT TO_CHAR(window_start, 'YYYY-MM-DD HH24:MI:SS.MS'), k, id, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, k ORDER BY x%s, id) AS rn "+
			"FROM (SELECT *, DATE_BIN(INTERVAL '10 seconds', ts, TIMESTAMP '1970-01-01') AS window_start FROM t) AS w) AS s WHERE rn <= %d", p, top)
	}
	return c
}

// pgAnswer runs the case's query in PostgreSQL over its final rows, each
// row its columns' text joined by |, sorted.
func (c *rankCase) pgAnswer(ctx context.Context, pg *PG) ([]string, error) {
	tx, err := pg.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "CREATE TEMPORARY TABLE t (id BIGINT, k TEXT, x INT, ts TIMESTAMP(3)) ON COMMIT DROP"); err != nil {
		return nil, err
	}
	for _, r := range c.rows {
		if _, err := tx.Exec(ctx, "INSERT INTO t VALUES ("+strings.Join(r, ", ")+")"); err != nil {
			return nil, err
		}
	}
	rows, err := tx.Query(ctx, c.pgQuery)
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
