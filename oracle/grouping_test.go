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

// TestGroupingSetsAgainstPostgres checks GROUPING SETS, ROLLUP and CUBE
// (with GROUPING and GROUPING_ID, a plain GROUP BY expression beside them,
// a set named twice, HAVING on GROUPING) against PostgreSQL on random
// tables with NULLs in the grouping columns (so that a NULL group and a
// rolled-up NULL must stay apart), read as json or as a debezium-json
// changelog with updates and deletes, at parallelism 1 and 4: the engine's
// changelog, applied, must equal PostgreSQL's answer over the table's
// final contents. Flink's GROUPING_ID(a, b) is PostgreSQL's GROUPING(a, b).
func TestGroupingSetsAgainstPostgres(t *testing.T) {
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
	groupings := []string{
		"GROUPING SETS ((k, j), (k), ())",
		"ROLLUP (k, j)",
		"CUBE (k, j)",
		"k, ROLLUP (j)",
		"GROUPING SETS ((k), (k), (j))",
		"GROUPING SETS (k, j)",
		"CUBE (k), ROLLUP (j)",
	}
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		c := genRankCase(r) // a table t (id, k STRING, x INT, ts), json or a changelog
		// j: a second grouping column derived from x (NULL where x is).
		grouping := groupings[r.Intn(len(groupings))]
		sel := "k, j, COUNT(*) AS n, SUM(x) AS s, MIN(id) AS m, GROUPING(k) AS gk, GROUPING_ID(k, j) AS gid"
		pgSel := "k, j, COUNT(*) AS n, SUM(x) AS s, MIN(id) AS m, GROUPING(k) AS gk, GROUPING(k, j) AS gid"
		having := ""
		if r.Intn(4) == 0 {
			having = " HAVING GROUPING(k) = 0"
		}
		job := c.job[:strings.Index(c.job, ";\n")+2] +
			fmt.Sprintf("SELECT %s FROM (SELECT id, k, x, MOD(x, 3) AS j FROM t) GROUP BY %s%s;\n", sel, grouping, having)
		pgQuery := fmt.Sprintf("SELECT %s FROM (SELECT id, k, x, MOD(x, 3) AS j FROM t) AS q GROUP BY %s%s", pgSel, grouping, having)
		c.pgQuery = pgQuery
		want, err := c.pgAnswer(ctx, pg)
		if err != nil {
			t.Fatalf("seed %d: PostgreSQL: %v\n%s", seed, err, pgQuery)
		}
		if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(job), 0o644); err != nil {
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
				t.Fatalf("seed %d, parallelism %d: %v\njob:\n%s", seed, p, err, job)
			}
			var got []string
			for _, row := range res.rows {
				parts := make([]string, len(row))
				for i, v := range row {
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
					seed, p, job, c.data, pgQuery, strings.Join(want, "\n  "), strings.Join(got, "\n  "))
			}
		}
	}
}
