package jdbc_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/jdbc"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
)

// dimRow is a row of the dim table codes (code, v).
type dimRow struct {
	code string // "" for NULL
	v    int
}

// lookupShop makes the dim table codes in db, without a primary key (a
// code may have several rows; one differs from another code only in case,
// which MariaDB's default collation compares as equal), and n probe rows
// in dir/probes.json: (id, code, min) with codes the table has, lacks,
// holds in another case, and NULL. It returns the rows of both.
func lookupShop(t *testing.T, db *jdbctest.DB, dir string, n int) ([]dimRow, [][3]string) {
	t.Helper()
	db.Exec(t, "CREATE TABLE codes (code VARCHAR(10), v INT)")
	dim := []dimRow{{"a", 1}, {"a", 7}, {"b", 3}, {"c", 9}, {"D", 4}, {"", 5}}
	for i := range 40 {
		dim = append(dim, dimRow{fmt.Sprintf("k%d", i), i % 10})
	}
	var vals []string
	for _, d := range dim {
		c := "NULL"
		if d.code != "" {
			c = "'" + d.code + "'"
		}
		vals = append(vals, fmt.Sprintf("(%s, %d)", c, d.v))
	}
	db.Exec(t, "INSERT INTO codes (code, v) VALUES "+strings.Join(vals, ", "))
	codes := []string{"a", "A", "b", "c", "d", "D", "x", "NULL"}
	for i := range 60 {
		codes = append(codes, fmt.Sprintf("k%d", i)) // k40..k59 are missing
	}
	rng := rand.New(rand.NewPCG(3, 14))
	var probes [][3]string
	var b strings.Builder
	for i := range n {
		code := codes[rng.IntN(len(codes))]
		least := rng.IntN(10)
		probes = append(probes, [3]string{fmt.Sprint(i), code, fmt.Sprint(least)})
		c := "null"
		if code != "NULL" {
			c = `"` + code + `"`
		}
		fmt.Fprintf(&b, `{"id": %d, "code": %s, "min": %d}`+"\n", i, c, least)
	}
	if err := os.WriteFile(filepath.Join(dir, "probes.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dim, probes
}

// lookupModel is the lookup join by brute force over the dim table's
// rows: a probe matches the rows whose code equals its code exactly (NULL
// equals nothing; streamsql's = minds case) and whose v >= min; LEFT pads
// a probe without a match. Rows are the sink's JSON lines, sorted.
func lookupModel(dim []dimRow, probes [][3]string, left bool) []string {
	var out []string
	for _, p := range probes {
		code := `"` + p[1] + `"`
		if p[1] == "NULL" {
			code = "null"
		}
		matched := false
		for _, d := range dim {
			least, err := strconv.Atoi(p[2])
			if err != nil {
				panic(err)
			}
			if p[1] == "NULL" || d.code == "" || d.code != p[1] || d.v < least {
				continue
			}
			matched = true
			out = append(out, fmt.Sprintf(`{"id":%s,"code":%s,"v":%d}`, p[0], code, d.v))
		}
		if !matched && left {
			out = append(out, fmt.Sprintf(`{"id":%s,"code":%s,"v":null}`, p[0], code))
		}
	}
	slices.Sort(out)
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(out) == 1 && out[0] == "" {
		out = nil
	}
	slices.Sort(out)
	return out
}

func diffLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	shown := 0
	for _, g := range got {
		if !slices.Contains(want, g) && shown < 10 {
			t.Errorf("  unexpected %s", g)
			shown++
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) && shown < 20 {
			t.Errorf("  missing    %s", w)
			shown++
		}
	}
}

func lookupJob(with, cache string) string {
	return `
CREATE TABLE probes (id INT, code STRING, ` + "`min`" + ` INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 'probes.json', 'format' = 'json');
CREATE TABLE codes (code STRING, v INT) WITH (` + with + cache + `);
CREATE TABLE inner_out (id INT, code STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'inner.json', 'format' = 'json');
CREATE TABLE left_out (id INT, code STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'left.json', 'format' = 'json');
INSERT INTO inner_out SELECT p.id, p.code, d.v FROM probes AS p JOIN codes FOR SYSTEM_TIME AS OF p.pt AS d ON p.code = d.code AND d.v >= p.` + "`min`" + `;
INSERT INTO left_out SELECT p.id, p.code, d.v FROM probes AS p LEFT JOIN codes FOR SYSTEM_TIME AS OF p.pt AS d ON p.code = d.code AND d.v >= p.` + "`min`" + `;
`
}

// TestLookupJoin runs INNER and LEFT lookup joins of a file against a
// table of PostgreSQL and MariaDB, with and without a cache (at
// parallelism 1, and 4 without), and compares both outputs with the brute-force
// join over the table's rows. The cache is asked once per distinct key
// (it holds them all); without one, once per distinct key and batch.
func TestLookupJoin(t *testing.T) {
	const n = 2000
	caches := map[string]string{
		"no cache": "",
		"legacy":   ", 'lookup.cache.max-rows' = '1000', 'lookup.cache.ttl' = '1h'",
		"partial":  ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000'",
	}
	for _, dialect := range jdbctest.Dialects {
		db := jdbctest.Open(t, dialect)
		dir := t.TempDir()
		dim, probes := lookupShop(t, db, dir, n)
		distinct := map[string]bool{}
		for _, p := range probes {
			if p[1] != "NULL" {
				distinct[p[1]] = true
			}
		}
		for _, name := range []string{"no cache", "legacy", "partial"} {
			for _, p := range []int{1, 4} {
				if p == 4 && name != "no cache" {
					continue // the join is not partitioned: once is enough
				}
				t.Run(fmt.Sprintf("%s/%s/parallelism %d", dialect, name, p), func(t *testing.T) {
					explain, job := runJob(t, dir, lookupJob(db.With("", "codes"), caches[name]), p)
					if !strings.Contains(explain, "LookupJoin INNER AS OF pt, (p.code = d.code) AND (v >= min)") {
						t.Errorf("EXPLAIN shows no lookup join by code:\n%s", explain)
					}
					diffLines(t, "INNER", readLines(t, filepath.Join(dir, "inner.json")), lookupModel(dim, probes, false))
					diffLines(t, "LEFT", readLines(t, filepath.Join(dir, "left.json")), lookupModel(dim, probes, true))
					var lookups, hits int64
					for _, c := range job.Operators {
						lookups += c.Lookups.Load()
						hits += c.CacheHits.Load()
					}
					if name != "no cache" && lookups != 2*int64(len(distinct)) {
						t.Errorf("with a cache holding every key, the two joins asked %d keys; want each of the %d distinct keys once per join", lookups, len(distinct))
					}
					if name == "no cache" && (hits != 0 || lookups < 2*int64(len(distinct))) {
						t.Errorf("without a cache: %d hits, %d keys asked (at least %d)", hits, lookups, 2*len(distinct))
					}
				})
			}
		}
	}
}

// TestLookupConnectionLost: the connection is cut in the middle of the
// job's lookups; the lookup is retried on a new connection (Flink's
// JdbcRowDataLookupFunction retries 'lookup.max-retries' times) and the
// result is still the brute-force join.
func TestLookupConnectionLost(t *testing.T) {
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			dir := t.TempDir()
			dim, probes := lookupShop(t, db, dir, 10000)
			p := jdbctest.NewProxy(t, db.Addr)
			var retries atomic.Int32
			old := jdbc.Backoff
			jdbc.Backoff = func(int) time.Duration {
				retries.Add(1)
				p.Refuse(false)
				return 10 * time.Millisecond
			}
			t.Cleanup(func() { jdbc.Backoff = old })
			p.CutAfter(10_000)
			runJob(t, dir, lookupJob(db.With(p.Addr, "codes"), ", 'lookup.max-retries' = '2'"), 1)
			if retries.Load() == 0 {
				t.Fatal("no lookup was retried: the connection was not cut during the job")
			}
			diffLines(t, "INNER", readLines(t, filepath.Join(dir, "inner.json")), lookupModel(dim, probes, false))
			diffLines(t, "LEFT", readLines(t, filepath.Join(dir, "left.json")), lookupModel(dim, probes, true))
		})
	}
}

// TestLookupRetriesSpent: the database goes away for good in the middle
// of the job; after 'lookup.max-retries' retries the job fails with the
// driver's error, naming the table and the option.
func TestLookupRetriesSpent(t *testing.T) {
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			dir := t.TempDir()
			lookupShop(t, db, dir, 10000)
			p := jdbctest.NewProxy(t, db.Addr)
			var retries atomic.Int32
			old := jdbc.Backoff
			jdbc.Backoff = func(int) time.Duration {
				retries.Add(1)
				return time.Millisecond
			}
			t.Cleanup(func() { jdbc.Backoff = old })
			p.CutAfter(10_000)
			_, _, err := runJobErr(t, dir, lookupJob(db.With(p.Addr, "codes"), ", 'lookup.max-retries' = '2'"), 1)
			if err == nil {
				t.Fatal("the job succeeded though the database was gone")
			}
			msg := err.Error()
			for _, want := range []string{"LookupJoin", "jdbc: table codes", "failed 3 times ('lookup.max-retries' = 2)"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %q: %v", want, err)
				}
			}
			if retries.Load() != 2 {
				t.Errorf("%d retries, want 2", retries.Load())
			}
		})
	}
}

// TestLookupDocsExample runs the lookup join example of docs/connectors.md
// as written there, but for its database's address, user and password,
// against PostgreSQL and MariaDB: every order once, with its customer's
// name or NULL when the customer is missing, closed, or of a NULL tier.
func TestLookupDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/connectors.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "**Lookup joins.**")
	_, rest, ok2 := strings.Cut(rest, "```sql env=SHOP_PASSWORD\n")
	example, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/connectors.md has no lookup join example (```sql env=SHOP_PASSWORD after **Lookup joins.**)")
	}
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			db.Exec(t, "CREATE TABLE customers (cust_id INT PRIMARY KEY, name TEXT, tier TEXT)",
				"INSERT INTO customers VALUES (1, 'ann', 'gold'), (2, 'bob', 'closed'), (3, 'cy', NULL), (4, NULL, 'silver')")
			job := strings.NewReplacer(
				"'jdbc:postgresql://localhost:5432/shop'", "'"+db.URL(db.Addr)+"'",
				"'username' = 'streamsql'", "'username' = '"+db.User+"'",
				"'${SHOP_PASSWORD}'", "''").Replace(example)
			if !strings.Contains(job, db.URL(db.Addr)) {
				t.Fatalf("the example's url is not the one this test replaces:\n%s", example)
			}
			dir := t.TempDir()
			orders := `{"order_id": 10, "cust_id": 1, "amount": 5}
{"order_id": 11, "cust_id": 2, "amount": 6}
{"order_id": 12, "cust_id": 3, "amount": 7}
{"order_id": 13, "cust_id": 4, "amount": 8}
{"order_id": 14, "cust_id": 9, "amount": 9}
{"order_id": 15, "cust_id": null, "amount": 10}
{"order_id": 16, "cust_id": 1, "amount": 11}
`
			if err := os.WriteFile(filepath.Join(dir, "orders.json"), []byte(orders), 0o644); err != nil {
				t.Fatal(err)
			}
			runJob(t, dir, job, 1)
			want := []string{
				`{"order_id":10,"amount":5,"name":"ann"}`,
				`{"order_id":11,"amount":6,"name":null}`,
				`{"order_id":12,"amount":7,"name":null}`,
				`{"order_id":13,"amount":8,"name":null}`,
				`{"order_id":14,"amount":9,"name":null}`,
				`{"order_id":15,"amount":10,"name":null}`,
				`{"order_id":16,"amount":11,"name":"ann"}`,
			}
			diffLines(t, "enriched", readLines(t, filepath.Join(dir, "enriched.json")), want)
		})
	}
}
