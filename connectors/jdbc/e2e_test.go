package jdbc_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/jdbc"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/planner"

	_ "github.com/streamsql/streamsql/connectors/filesystem"
)

// runJob checks sql as `streamsql run` does and runs it to the end at
// parallelism p, in dir. It returns the EXPLAIN text of the INSERT and the
// job (for its counters).
func runJob(t *testing.T, dir, sql string, p int) (string, *exec.Job) {
	t.Helper()
	explain, job, err := runJobErr(t, dir, sql, p)
	if err != nil {
		t.Fatal(err)
	}
	return explain, job
}

// runJobErr is runJob, but returns the job's error.
func runJobErr(t *testing.T, dir, sql string, p int) (string, *exec.Job, error) {
	t.Helper()
	j := frontend.CheckJob(diag.NewSource(filepath.Join(dir, "job.sql"), sql))
	if j.Diags.HasErrors() {
		t.Fatalf("the job has errors: %v", j.Diags.Err())
	}
	var plans []*planner.Plan
	var explain strings.Builder
	for _, pl := range j.Session.Plans {
		if pl.Explain == nil && pl.Root != nil {
			plans = append(plans, pl)
			explain.WriteString(pl.Text())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lowered, err := planner.Lower(plans)
	if err != nil {
		t.Fatal(err)
	}
	job, err := exec.Build(ctx, lowered, exec.Options{Settings: j.Session.Settings, Parallelism: p, BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return explain.String(), job, job.Run(ctx)
}

// shop writes the ledger's inputs: n orders, without a key, and a shipment
// for two orders in three, written after a run of later orders so that
// most orders are first joined with nothing (a null-padded row) and then
// with their shipment (the join retracts the padded row). It returns the
// ledger: order_id -> "amount|ship_id" (ship_id "NULL" when unshipped).
func shop(t *testing.T, dir string, n int) map[int]string {
	t.Helper()
	var orders, ships strings.Builder
	ledger := map[int]string{}
	for i := range n {
		amount := 100 + 7*i
		fmt.Fprintf(&orders, `{"order_id": %d, "amount": %d}`+"\n", i, amount)
		ledger[i] = fmt.Sprintf("%d|NULL", amount)
		if i%3 != 0 {
			fmt.Fprintf(&ships, `{"ship_id": "s%d", "order_id": %d}`+"\n", i, i)
			ledger[i] = fmt.Sprintf("%d|s%d", amount, i)
		}
	}
	for name, text := range map[string]string{"orders.json": orders.String(), "shipments.json": ships.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ledger
}

const shopTables = `
CREATE TABLE orders (order_id BIGINT, amount BIGINT) WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');
CREATE TABLE shipments (ship_id STRING, order_id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'shipments.json', 'format' = 'json');
`

// table reads a table as order_id -> "amount|ship_id".
func table(t *testing.T, db *sql.DB, name string) map[int]string {
	t.Helper()
	rows, err := db.Query("SELECT order_id, amount, ship_id FROM " + name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var id, amount int
		var ship sql.NullString
		if err := rows.Scan(&id, &amount, &ship); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[id]; dup {
			t.Errorf("order %d is in the table twice", id)
		}
		s := "NULL"
		if ship.Valid {
			s = ship.String
		}
		out[id] = fmt.Sprintf("%d|%s", amount, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func compareLedger(t *testing.T, got, want map[int]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("the table has %d rows, want one per order (%d)", len(got), len(want))
	}
	bad := 0
	for id, w := range want {
		if g, ok := got[id]; !ok || g != w {
			if bad++; bad <= 10 {
				t.Errorf("order %d: %q, want %q", id, g, w)
			}
		}
	}
	if bad > 10 {
		t.Errorf("... %d orders differ in all", bad)
	}
}

// TestLedger is #14's ledger: orders without a key LEFT JOIN shipments into
// a database table keyed on order_id. The join emits each order padded with
// nulls and retracts that row when its shipment comes; the query has no
// key, so the planner puts the upsert materializer in front of the sink,
// and the table ends as the ledger computed here from the inputs: one row
// per order with its shipment or NULL. In PostgreSQL and MariaDB, at
// parallelism 1 and 4, with small batches (many flushes).
func TestLedger(t *testing.T) {
	const n = 3000
	for _, dialect := range jdbctest.Dialects {
		for _, p := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/parallelism %d", dialect, p), func(t *testing.T) {
				db := jdbctest.Open(t, dialect)
				db.Exec(t, "CREATE TABLE ledger (order_id BIGINT NOT NULL PRIMARY KEY, amount BIGINT, ship_id VARCHAR(20))")
				dir := t.TempDir()
				want := shop(t, dir, n)
				explain, job := runJob(t, dir, shopTables+`
CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED)
  WITH (`+db.With("", "ledger")+`, 'sink.buffer-flush.max-rows' = '64', 'sink.buffer-flush.interval' = '0');
INSERT INTO ledger SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`, p)
				if !strings.Contains(explain, "UpsertMaterialize key=(order_id) rows by all columns") ||
					!strings.Contains(explain, "Sink ledger (jdbc) accepts=[+I,+U,-D] by key (order_id)") {
					t.Errorf("EXPLAIN does not show the materializer in front of the keyed jdbc sink:\n%s", explain)
				}
				compareLedger(t, table(t, db.SQL, "ledger"), want)
				// The case is the one of the issue only if orders were first
				// written padded with nulls and then replaced: more changes
				// than orders reached the sink, all acknowledged.
				sk := job.Sinks[0]
				if sk.In.Load() <= n {
					t.Errorf("the sink got %d changes for %d orders: no padded row was replaced", sk.In.Load(), n)
				}
				if sk.Out.Load() != sk.In.Load() {
					t.Errorf("the sink took %d changes but %d were acknowledged", sk.In.Load(), sk.Out.Load())
				}
			})
		}
	}
}

// TestAppendOnlyRefusesUpdates: a jdbc table without a PRIMARY KEY is an
// append-only sink, and check refuses the ledger's updating join into it
// (SQL400), naming the sink.
func TestAppendOnlyRefusesUpdates(t *testing.T) {
	j := frontend.CheckJob(diag.NewSource("job.sql", shopTables+`
CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://localhost:5432/shop', 'table-name' = 'ledger');
INSERT INTO ledger SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`))
	err := j.Diags.Err()
	if err == nil || !strings.Contains(err.Error(), "sink ledger (jdbc) is append-only, but the query emits") {
		t.Errorf("check accepted an updating query into an append-only jdbc table, or said so unclearly: %v", err)
	}
}

// TestDocsExample runs the ledger example of docs/connectors.md as written
// there, but for its database's address, user and password, against
// PostgreSQL and MariaDB, and compares the table with the ledger.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/connectors.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## JDBC: `jdbc`")
	_, rest, ok2 := strings.Cut(rest, "```sql env=SHOP_PASSWORD\n")
	example, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/connectors.md has no JDBC ledger example (```sql env=SHOP_PASSWORD under ## JDBC)")
	}
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			db.Exec(t, "CREATE TABLE ledger (order_id BIGINT PRIMARY KEY, amount BIGINT, ship_id TEXT)")
			job := strings.NewReplacer(
				"'jdbc:postgresql://localhost:5432/shop'", "'"+db.URL(db.Addr)+"'",
				"'username' = 'streamsql'", "'username' = '"+db.User+"'",
				"'${SHOP_PASSWORD}'", "''").Replace(example)
			if !strings.Contains(job, db.URL(db.Addr)) {
				t.Fatalf("the example's url is not the one this test replaces:\n%s", example)
			}
			dir := t.TempDir()
			want := shop(t, dir, 200)
			runJob(t, dir, job, 1)
			compareLedger(t, table(t, db.SQL, "ledger"), want)
		})
	}
}

// TestLedgerConnectionLost runs the ledger job with its database behind a
// proxy that cuts every connection in the middle of the job (after 50 kB
// sent) and refuses new ones until the sink's first retry: the flush that
// was cut is retried on a new connection, and the table still ends as the
// ledger, every change acknowledged.
func TestLedgerConnectionLost(t *testing.T) {
	const n = 3000
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			db.Exec(t, "CREATE TABLE ledger (order_id BIGINT NOT NULL PRIMARY KEY, amount BIGINT, ship_id VARCHAR(20))")
			p := jdbctest.NewProxy(t, db.Addr)
			var retries atomic.Int32
			old := jdbc.Backoff
			jdbc.Backoff = func(int) time.Duration {
				retries.Add(1)
				p.Refuse(false)
				return 10 * time.Millisecond
			}
			t.Cleanup(func() { jdbc.Backoff = old })
			p.CutAfter(50_000)
			dir := t.TempDir()
			want := shop(t, dir, n)
			_, job := runJob(t, dir, shopTables+`
CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED)
  WITH (`+db.With(p.Addr, "ledger")+`, 'sink.buffer-flush.max-rows' = '64', 'sink.buffer-flush.interval' = '0');
INSERT INTO ledger SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;
`, 1)
			if retries.Load() == 0 {
				t.Fatal("no flush was retried: the connection was not cut during the job")
			}
			compareLedger(t, table(t, db.SQL, "ledger"), want)
			if sk := job.Sinks[0]; sk.Out.Load() != sk.In.Load() {
				t.Errorf("the sink took %d changes but %d were acknowledged", sk.In.Load(), sk.Out.Load())
			}
		})
	}
}
