package exec

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamsql/streamsql/row"
)

// TestStatAggregatesAgainstPostgreSQL: STDDEV_POP, STDDEV_SAMP, VAR_POP,
// VAR_SAMP (and STDDEV, VARIANCE, Flink's sample ones) of DOUBLE and
// DECIMAL columns, per group, against PostgreSQL's over the same values
// (within 1e-9 relative: streamsql computes in DOUBLE from sums, as Flink
// does, PostgreSQL exactly).
func TestStatAggregatesAgainstPostgreSQL(t *testing.T) {
	url := os.Getenv("ORACLE_PG")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := pgx.Connect(ctx, url)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL at %s: %v", url, err)
		}
		t.Skipf("PostgreSQL at %s: %v", url, err)
	}
	defer pg.Close(context.Background())
	r := rand.New(rand.NewSource(7))
	var data row.Batch
	var values []string
	for i := 0; i < 200; i++ {
		g := fmt.Sprintf("g%d", r.Intn(5))
		d := (r.Float64() - 0.3) * 1000
		c := int64(r.Intn(200000) - 50000) // DECIMAL(8, 2) in hundredths
		if i%17 == 0 {
			g = "single" // one row: the sample ones are NULL
			if i > 0 {
				continue
			}
		}
		data = append(data, row.Insert(row.StrValue(g), row.FloatValue(d), row.IntValue(c)))
		values = append(values, fmt.Sprintf("('%s', %s::float8, %s::numeric)", g, strconv.FormatFloat(d, 'g', -1, 64), fmtCents(c)))
	}
	setData("aggstat.json", data)
	got := runJob(t, "CREATE TABLE t (g STRING, d DOUBLE, c DECIMAL(8, 2)) WITH ('connector' = 'filesystem', 'path' = 'aggstat.json', 'format' = 'json');\n"+
		"SELECT g, STDDEV_POP(d), STDDEV_SAMP(d), VAR_POP(d), VAR_SAMP(d), STDDEV(c), VARIANCE(c), STDDEV_POP(c) FROM t GROUP BY g;\n", 2)
	rows, err := pg.Query(ctx, "SELECT g, stddev_pop(d)::text, stddev_samp(d)::text, var_pop(d)::text, var_samp(d)::text, "+
		"stddev_samp(c)::text, var_samp(c)::text, stddev_pop(c)::text FROM (VALUES "+strings.Join(values, ", ")+") AS t(g, d, c) GROUP BY g ORDER BY g")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for rows.Next() {
		var cells [8]*string
		if err := rows.Scan(&cells[0], &cells[1], &cells[2], &cells[3], &cells[4], &cells[5], &cells[6], &cells[7]); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cells {
			if c == nil {
				out = append(out, "NULL")
			} else {
				out = append(out, *c)
			}
		}
		want[out[0]] = out[1:]
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) < 5 {
		t.Fatalf("%d groups from streamsql, %d from PostgreSQL:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, line := range got {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"), ", ")
		w, ok := want[cells[0]]
		if !ok {
			t.Errorf("group %s: not in PostgreSQL's answer", cells[0])
			continue
		}
		for i, g := range cells[1:] {
			if g == w[i] {
				continue
			}
			x, err1 := strconv.ParseFloat(g, 64)
			y, err2 := strconv.ParseFloat(w[i], 64)
			if err1 != nil || err2 != nil || math.Abs(x-y) > 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
				t.Errorf("group %s, column %d: streamsql %s, PostgreSQL %s", cells[0], i+1, g, w[i])
			}
		}
	}
}
