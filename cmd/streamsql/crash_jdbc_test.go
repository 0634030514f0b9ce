package main

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
)

// ledgerCrashJob is the ledger of issue #14 (orders without a key LEFT
// JOIN shipments, into a PostgreSQL table keyed on order_id, through the
// upsert materializer) with checkpoints every 100 ms. Its inputs are
// datagen sequences at a rate, so that checkpoints complete while they
// run (files are read faster than the sink writes: the barriers would
// reach it only after the inputs ended, when no checkpoint completes).
// Order i has amount 7i + 100 and, unless i is a multiple of 3, the
// shipment 's<i>'.
const ledgerCrashJob = `SET 'execution.checkpointing.interval' = '100ms';
SET 'parallelism' = '2';
CREATE TABLE orders (order_id BIGINT, amount AS order_id * 7 + 100)
  WITH ('connector' = 'datagen', 'rows-per-second' = '10000', 'fields.order_id.kind' = 'sequence',
        'fields.order_id.start' = '0', 'fields.order_id.end' = '%[1]d');
CREATE TABLE shipments (order_id BIGINT, ship_id AS CONCAT('s', CAST(order_id AS STRING)))
  WITH ('connector' = 'datagen', 'rows-per-second' = '10000', 'fields.order_id.kind' = 'sequence',
        'fields.order_id.start' = '0', 'fields.order_id.end' = '%[1]d');
CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED)
  WITH (%[2]s, 'sink.buffer-flush.max-rows' = '0', 'sink.buffer-flush.interval' = '0');
INSERT INTO ledger SELECT o.order_id, o.amount, s.ship_id
FROM orders o LEFT JOIN (SELECT * FROM shipments WHERE order_id %% 3 <> 0) s ON o.order_id = s.order_id;
`

// TestCrashLedgerJDBC kills the ledger job with SIGKILL at random moments
// (most of them just after a checkpoint completed, while the sink has
// changes buffered and written after it), resumes it from its state
// directory until it finishes, and compares the table with the ledger:
// one row per order, with its shipment or NULL. The sink's buffer is
// written only at checkpoints and at the end ('sink.buffer-flush.max-rows'
// and '.interval' 0), so a checkpoint that did not write it would lose
// every change before it; what the killed run wrote after the checkpoint
// is written again by the resumed one (upserts by key).
func TestCrashLedgerJDBC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the job several times")
	}
	db := jdbctest.Open(t, "postgres")
	db.Exec(t, "CREATE TABLE ledger (order_id BIGINT NOT NULL PRIMARY KEY, amount BIGINT, ship_id VARCHAR(20))")
	dir := t.TempDir()
	const n = 30000
	want := map[int64]string{}
	for i := range int64(n) {
		want[i] = fmt.Sprintf("%d|NULL", 100+7*i)
		if i%3 != 0 {
			want[i] = fmt.Sprintf("%d|s%d", 100+7*i, i)
		}
	}
	job := filepath.Join(dir, "job.sql")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(ledgerCrashJob, n-1, db.With("", "ledger"))), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "state")
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill timing seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 14))
	// Episodes until one resumed from a checkpoint (a kill may come
	// before the first): each ends with the table compared with the
	// ledger, then starts over with an empty table and no state.
	for episode := 1; ; episode++ {
		killed, resumed, runs := crashRuns(t, rng, job, st, 2, 2*time.Second)
		t.Logf("episode %d: %d runs, %d killed, %d resumed from a checkpoint", episode, runs, killed, resumed)
		compareLedgerTable(t, ledgerRows(t, db.SQL), want)
		if resumed > 0 || t.Failed() {
			return
		}
		if episode == 4 {
			t.Fatal("no run resumed from a checkpoint in 4 episodes: the job with a jdbc sink takes none")
		}
		db.Exec(t, "TRUNCATE ledger")
		if err := os.RemoveAll(st); err != nil {
			t.Fatal(err)
		}
	}
}

func compareLedgerTable(t *testing.T, got, want map[int64]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("the table has %d rows, the ledger %d", len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			if bad++; bad <= 10 {
				t.Errorf("order %d: table %q, ledger %q", k, g, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d orders differ from the ledger", bad)
	}
}

func ledgerRows(t *testing.T, db *sql.DB) map[int64]string {
	t.Helper()
	rows, err := db.Query("SELECT order_id, amount, ship_id FROM ledger")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id, amount int64
		var ship sql.NullString
		if err := rows.Scan(&id, &amount, &ship); err != nil {
			t.Fatal(err)
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
