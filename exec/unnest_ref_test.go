package exec

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// TestUnnestMatchesPostgres checks UNNEST against PostgreSQL's unnest and
// jsonb_each_text on random rows: arrays that are NULL, empty or hold
// NULLs, maps likewise, some rows deleted again (a debezium changelog, so
// the -D rows must retract exactly what their +I gave). The final table of
// each query's changelog must be PostgreSQL's answer over the rows left.
func TestUnnestMatchesPostgres(t *testing.T) {
	db := jdbctest.Open(t, "postgres")
	queries := []struct{ ours, pg string }{
		{"SELECT t.id, u.x FROM t CROSS JOIN UNNEST(t.tags) AS u (x)",
			"SELECT t.id, u.x FROM t CROSS JOIN LATERAL unnest(t.tags) AS u (x)"},
		{"SELECT t.id, u.x, u.n FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u (x, n)",
			"SELECT t.id, u.x, u.n FROM t CROSS JOIN LATERAL unnest(t.tags) WITH ORDINALITY AS u (x, n)"},
		{"SELECT t.id, u.x, u.n FROM t LEFT JOIN UNNEST(t.tags) WITH ORDINALITY AS u (x, n) ON TRUE",
			"SELECT t.id, u.x, u.n FROM t LEFT JOIN LATERAL unnest(t.tags) WITH ORDINALITY AS u (x, n) ON TRUE"},
		{"SELECT id, x FROM t, UNNEST(tags) AS u (x) WHERE x > 3 AND id < 20",
			"SELECT id, x FROM t, unnest(tags) AS u (x) WHERE x > 3 AND id < 20"},
		{"SELECT t.id, e.k, e.v FROM t CROSS JOIN UNNEST(t.m) AS e (k, v)",
			"SELECT t.id, e.key, e.value::int FROM t CROSS JOIN LATERAL jsonb_each_text(t.m) AS e"},
		{"SELECT t.id, e.k, e.v FROM t LEFT JOIN UNNEST(t.m) AS e (k, v) ON TRUE",
			"SELECT t.id, e.key, e.value::int FROM t LEFT JOIN LATERAL jsonb_each_text(t.m) AS e ON TRUE"},
		{"SELECT id, CARDINALITY(tags), x FROM t CROSS JOIN UNNEST(tags) AS u (x) WHERE x IS NULL",
			"SELECT id, cardinality(tags), x FROM t CROSS JOIN LATERAL unnest(tags) AS u (x) WHERE x IS NULL"},
	}
	for seed := int64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewSource(seed))
		var changes row.Batch
		var pgRows []string
		for id := 0; id < 30; id++ {
			tags, tagsPG := randIntArray(r)
			m, mPG := randIntMap(r)
			ins := row.Insert(row.IntValue(int64(id)), tags, m)
			changes = append(changes, ins)
			if r.Intn(4) == 0 { // deleted again
				changes = append(changes, row.Row{Kind: changelogmode.Delete, Vals: ins.Vals})
				continue
			}
			pgRows = append(pgRows, fmt.Sprintf("(%d, %s, %s)", id, tagsPG, mPG))
		}
		path := fmt.Sprintf("unnest-ref-%d.json", seed)
		setData(path, changes)
		db.Exec(t, "DROP TABLE IF EXISTS t", "CREATE TABLE t (id INT, tags INT[], m JSONB)")
		if len(pgRows) > 0 {
			db.Exec(t, "INSERT INTO t VALUES "+strings.Join(pgRows, ", "))
		}
		for _, q := range queries {
			want := pgQuery(t, db.SQL, q.pg)
			for _, p := range []int{1, 3} {
				got := runUnnest(t, path, q.ours, p)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("seed %d, parallelism %d: %s\ngot:\n%s\nPostgreSQL:\n%s\ninput:\n%v", seed, p, q.ours,
						strings.Join(got, "\n"), strings.Join(want, "\n"), changes)
				}
			}
		}
	}
}

// randIntArray returns a random ARRAY<INT> value (maybe NULL, empty, or
// with NULL elements) and its PostgreSQL literal.
func randIntArray(r *rand.Rand) (row.Value, string) {
	if r.Intn(6) == 0 {
		return row.NullValue, "NULL"
	}
	n := r.Intn(5)
	vals := make([]row.Value, n)
	pg := make([]string, n)
	for i := range vals {
		if r.Intn(5) == 0 {
			pg[i] = "NULL"
			continue
		}
		v := r.Intn(10)
		vals[i], pg[i] = row.IntValue(int64(v)), strconv.Itoa(v)
	}
	return row.ListValue(vals), "ARRAY[" + strings.Join(pg, ", ") + "]::INT[]"
}

// randIntMap returns a random MAP<STRING, INT> value (maybe NULL or
// empty, values maybe NULL) and its PostgreSQL jsonb literal.
func randIntMap(r *rand.Rand) (row.Value, string) {
	if r.Intn(6) == 0 {
		return row.NullValue, "NULL"
	}
	n := r.Intn(4)
	seen := map[string]bool{}
	var ks, vs []row.Value
	var pg []string
	for i := 0; i < n; i++ {
		k := string(rune('a' + r.Intn(5)))
		if seen[k] {
			continue
		}
		seen[k] = true
		v, vpg := row.NullValue, "null"
		if r.Intn(4) != 0 {
			x := r.Intn(100)
			v, vpg = row.IntValue(int64(x)), strconv.Itoa(x)
		}
		ks, vs = append(ks, row.StrValue(k)), append(vs, v)
		pg = append(pg, fmt.Sprintf(`"%s": %s`, k, vpg))
	}
	return row.MapValue(ks, vs), "'{" + strings.Join(pg, ", ") + "}'::JSONB"
}

// runUnnest runs query over the table t of the rows registered at path and
// returns the final table of its changelog, one sorted line per row.
func runUnnest(t *testing.T, path, query string, parallelism int) []string {
	t.Helper()
	ddl := fmt.Sprintf("CREATE TABLE t (id INT, tags ARRAY<INT>, m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json')", path)
	out, _ := runFinalTable(t, ddl, query, parallelism)
	return out
}

// runFinalTable runs query after the DDL ddl and returns the final table
// of its changelog, one sorted line per row, and the change kinds it
// emitted.
func runFinalTable(t *testing.T, ddl, query string, parallelism int) ([]string, changelogmode.Mode) {
	t.Helper()
	sql := ddl + ";\n" + query + ";\n"
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	sink := &collectSink{}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{Settings: j.Session.Settings, Parallelism: parallelism,
		QuerySink: func(string, []connector.Column) connector.Sink { return sink }})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var kinds changelogmode.Mode
	for _, c := range sink.rows {
		kinds = kinds.Union(changelogmode.Of(c.Kind))
		parts := make([]string, len(c.Vals))
		for i, v := range c.Vals {
			parts[i] = cellText(v)
		}
		k := strings.Join(parts, "|")
		switch c.Kind {
		case changelogmode.Insert, changelogmode.UpdateAfter:
			count[k]++
		case changelogmode.UpdateBefore, changelogmode.Delete:
			count[k]--
		}
	}
	var out []string
	for k, n := range count {
		if n < 0 {
			t.Fatalf("%s: the changelog retracts %s once more than it added it", query, k)
		}
		for ; n > 0; n-- {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, kinds
}

func cellText(v row.Value) string {
	switch {
	case v.IsNull():
		return "NULL"
	case v.Kind() == row.Int:
		return strconv.FormatInt(v.Int(), 10)
	}
	return v.Str()
}

// pgQuery runs q and returns its rows, one sorted line each.
func pgQuery(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = "NULL"
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// collectSink keeps what a query emits (one goroutine writes a query's
// sink).
type collectSink struct{ rows []row.Row }

func (s *collectSink) Open(context.Context) error { return nil }
func (s *collectSink) Write(_ context.Context, b row.Batch) error {
	for _, r := range b {
		s.rows = append(s.rows, row.Row{Kind: r.Kind, Vals: append([]row.Value(nil), r.Vals...)})
	}
	return nil
}
func (s *collectSink) Flush(context.Context) error { return nil }
func (s *collectSink) Close() error                { return nil }
