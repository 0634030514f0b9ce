package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/row"
)

// ledgerInputs writes n orders (amount 100+i) and a shipment for every
// order but each third into dir, as orders.json and shipments.json.
func ledgerInputs(t *testing.T, dir string, n int) {
	t.Helper()
	var o, s strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&o, `{"order_id": %d, "amount": %d}`+"\n", i, 100+i)
		if i%3 != 0 {
			fmt.Fprintf(&s, `{"ship_id": "s%d", "order_id": %d}`+"\n", i, i)
		}
	}
	writeFilesIn(t, dir, map[string]string{"orders.json": o.String(), "shipments.json": s.String()})
}

const ledgerInputTables = `CREATE TABLE orders (order_id BIGINT, amount BIGINT) WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');
CREATE TABLE shipments (ship_id STRING, order_id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'shipments.json', 'format' = 'json');
`

const ledgerInsert = "INSERT INTO ledger SELECT o.order_id, o.amount, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id;\n"

// TestReconcileExample: the example job's file, as `run` writes it, holds
// what the job computes (exit 0); with an order removed, a phantom
// null-padded row added to a shipped order and an order that does not
// exist, reconcile names each key and exits 1. The file is a
// debezium-json changelog: reading it applies the retractions.
func TestReconcileExample(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "examples", "ledger.sql")
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	r := invoke("reconcile", job)
	if r.code != 0 || !strings.Contains(r.stdout, "20 equal, 0 missing, 0 unexpected, 0 different") {
		t.Fatalf("reconcile after run:\n%s", r)
	}
	out := filepath.Join(dir, "examples", "data", "ledger.debezium.json")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(l, `"order_id":5,`) {
			kept = append(kept, l)
		}
	}
	kept = append(kept, `{"before":null,"after":{"order_id":2,"amount":16.74,"ship_id":null},"op":"c"}`,
		`{"before":null,"after":{"order_id":99,"amount":1.00,"ship_id":null},"op":"c"}`)
	if err := os.WriteFile(out, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = invoke("reconcile", job)
	want := `reconcile ledger (filesystem), by key (order_id): the job computes 20 keys, the table holds 20
different   order_id=2: computed [2, 16.74, S-002], held [2, 16.74, S-002] [2, 16.74, NULL]
missing     order_id=5: computed [5, 25.85, S-005]
unexpected  order_id=99: held [99, 1.00, NULL]
18 equal, 1 missing, 1 unexpected, 1 different
`
	if r.code != 1 || r.stdout != want {
		t.Errorf("reconcile with planted differences:\n%s\nwant exit 1 and\n%s", r, want)
	}
	r = invoke("reconcile", "--format", "json", job)
	var rep struct {
		Missing, Unexpected, Different, Equal int
		Differences                           []struct {
			Kind     string
			Key      map[string]any
			Computed []map[string]any
			Held     []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 {
		t.Fatalf("--format json: %v\n%s", err, r)
	}
	if rep.Equal != 18 || rep.Missing != 1 || rep.Unexpected != 1 || rep.Different != 1 || len(rep.Differences) != 3 ||
		rep.Differences[0].Key["order_id"] != "2" || len(rep.Differences[0].Held) != 2 || rep.Differences[0].Computed[0]["ship_id"] != "S-002" {
		t.Errorf("--format json: %+v", rep)
	}
}

// TestReconcileJDBC: the ledger job into a PostgreSQL table keyed on
// order_id; reconcile finds it equal, then names the keys of differences
// planted in the database. On an append-only copy (the join's changelog
// appended as it came, the retracted null-padded rows kept) it names every
// shipped order: each has a phantom row.
func TestReconcileJDBC(t *testing.T) {
	db := jdbctest.Open(t, "postgres")
	db.Exec(t, "CREATE TABLE ledger (order_id BIGINT PRIMARY KEY, amount BIGINT, ship_id TEXT)",
		"CREATE TABLE ledger_copy (order_id BIGINT, amount BIGINT, ship_id TEXT)")
	dir := t.TempDir()
	const n = 300
	ledgerInputs(t, dir, n)
	sinkDDL := func(table string) string {
		return "CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED) WITH (" +
			db.With("", table) + ");\n"
	}
	job := writeJobIn(t, dir, "ledger.sql", ledgerInputTables+sinkDDL("ledger")+ledgerInsert)
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	r := invoke("reconcile", "--sink", "ledger", job)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("%d equal, 0 missing, 0 unexpected, 0 different", n)) {
		t.Fatalf("reconcile after run:\n%s", r)
	}
	db.Exec(t, "DELETE FROM ledger WHERE order_id = 7",
		"UPDATE ledger SET ship_id = NULL WHERE order_id = 10",
		"UPDATE ledger SET amount = 0 WHERE order_id = 12",
		"INSERT INTO ledger VALUES (1000, 5, 'x')")
	r = invoke("reconcile", job)
	for _, want := range []string{
		"missing     order_id=7: computed [7, 107, s7]\n",
		"different   order_id=10: computed [10, 110, s10], held [10, 110, NULL]\n",
		"different   order_id=12: computed [12, 112, NULL], held [12, 0, NULL]\n",
		"unexpected  order_id=1000: held [1000, 5, x]\n",
		fmt.Sprintf("%d equal, 1 missing, 1 unexpected, 2 different\n", n-3),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, r)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	// The append-only copy: what a loader that ignored retractions left.
	for i := 1; i <= n; i++ {
		db.Exec(t, fmt.Sprintf("INSERT INTO ledger_copy VALUES (%d, %d, NULL)", i, 100+i))
		if i%3 != 0 {
			db.Exec(t, fmt.Sprintf("INSERT INTO ledger_copy VALUES (%d, %d, 's%d')", i, 100+i, i))
		}
	}
	job = writeJobIn(t, dir, "copy.sql", ledgerInputTables+sinkDDL("ledger_copy")+ledgerInsert)
	r = invoke("reconcile", job)
	shipped := n - n/3
	if r.code != 1 || !strings.Contains(r.stdout, fmt.Sprintf("%d equal, 0 missing, 0 unexpected, %d different\n", n-shipped, shipped)) ||
		!strings.Contains(r.stdout, "different   order_id=1: computed [1, 101, s1], held [1, 101, NULL] [1, 101, s1]\n") {
		t.Errorf("reconcile of the append-only copy:\n%s", r)
	}
	if got := strings.Count(r.stdout, "\ndifferent   order_id="); got != shipped {
		t.Errorf("%d keys named, want the %d shipped orders", got, shipped)
	}
}

// TestReconcileUsage: what reconcile refuses, with exit 2.
func TestReconcileUsage(t *testing.T) {
	dir := t.TempDir()
	ledgerInputs(t, dir, 3)
	two := writeJobIn(t, dir, "two.sql", ledgerInputTables+`
CREATE TABLE a (order_id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
CREATE TABLE b (order_id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b.json', 'format' = 'json');
INSERT INTO a SELECT order_id FROM orders;
INSERT INTO b SELECT order_id FROM orders;
`)
	unbounded := writeJobIn(t, dir, "unbounded.sql", `
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE a (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'a.json', 'format' = 'json');
INSERT INTO a SELECT id FROM g;
`)
	printed := writeJobIn(t, dir, "print.sql", ledgerInputTables+`
CREATE TABLE p (order_id BIGINT) WITH ('connector' = 'print');
INSERT INTO p SELECT order_id FROM orders;
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{two}, "the job writes several tables (a, b): name one with --sink"},
		{[]string{"--sink", "c", two}, "--sink c: the job writes a, b"},
		{[]string{"--format", "xml", two}, "--format xml: want text or json"},
		{[]string{unbounded}, "input g (datagen) does not end"},
		{[]string{printed}, "table p cannot be read back through its connector 'print'"},
	} {
		r := invoke(append([]string{"reconcile"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("reconcile %v: want exit 2 and %q:\n%s", c.args, c.want, r)
		}
	}
	// --sink picks one of several.
	if r := invoke("run", two); r.code != 0 {
		t.Fatal(r)
	}
	if r := invoke("reconcile", "--sink", "b", two); r.code != 0 || !strings.Contains(r.stdout, "reconcile b (filesystem), by whole row") {
		t.Errorf("--sink b:\n%s", r)
	}
}

// TestReconcileUpsertKafka: the ledger into an upsert-kafka topic (on an
// in-memory broker), read back to its end ('scan.bounded.mode'), is equal
// to what the job computes; a tombstone and a wrong value produced to the
// topic afterwards are named by key.
func TestReconcileUpsertKafka(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "ledger"))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]
	dir := t.TempDir()
	const n = 60
	ledgerInputs(t, dir, n)
	job := writeJobIn(t, dir, "ledger.sql", ledgerInputTables+fmt.Sprintf(`
CREATE TABLE ledger (order_id BIGINT, amount BIGINT, ship_id STRING, PRIMARY KEY (order_id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'ledger', 'properties.bootstrap.servers' = '%s',
        'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
`, addr)+ledgerInsert)
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	r := invoke("reconcile", job)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("%d equal, 0 missing, 0 unexpected, 0 different", n)) {
		t.Fatalf("reconcile after run:\n%s", r)
	}
	// A tombstone for order 4 and a wrong ship for order 5, in the
	// partitions the sink wrote those keys to.
	var recs []*kgo.Record
	for _, rec := range consumeWalk(t, addr, "ledger") {
		switch string(rec.Key) {
		case `{"order_id":4}`:
			recs = append(recs, &kgo.Record{Topic: "ledger", Partition: rec.Partition, Key: rec.Key})
		case `{"order_id":5}`:
			recs = append(recs, &kgo.Record{Topic: "ledger", Partition: rec.Partition, Key: rec.Key,
				Value: []byte(`{"order_id":5,"amount":105,"ship_id":"wrong"}`)})
		}
	}
	produceWalk(t, addr, dedupRecords(recs))
	r = invoke("reconcile", job)
	for _, want := range []string{
		"missing     order_id=4: computed [4, 104, s4]\n",
		"different   order_id=5: computed [5, 105, s5], held [5, 105, wrong]\n",
		fmt.Sprintf("%d equal, 1 missing, 0 unexpected, 1 different\n", n-2),
	} {
		if r.code != 1 || !strings.Contains(r.stdout, want) {
			t.Errorf("the report does not say %q (want exit 1):\n%s", want, r)
		}
	}
}

// dedupRecords keeps the first record of each key.
func dedupRecords(recs []*kgo.Record) []*kgo.Record {
	seen := map[string]bool{}
	var out []*kgo.Record
	for _, r := range recs {
		if !seen[string(r.Key)] {
			seen[string(r.Key)] = true
			out = append(out, r)
		}
	}
	return out
}

// TestReconcileNegativeZero: -0.0 and 0.0 are one value, as SQL's =
// compares them: one key of a table applied from a changelog (a +I of 0.0
// then a -D of -0.0 leaves nothing), and rows that differ only there are
// the same rows. Before, they were two keys: the +I stayed, and a key
// read back as 0.0 was missing and unexpected at once.
func TestReconcileNegativeZero(t *testing.T) {
	negZero := row.FloatValue(math.Copysign(0, -1))
	zero := row.FloatValue(0)
	s := newTableState([]int{0}, true)
	if err := s.Write(context.Background(), row.Batch{
		{Kind: changelogmode.Insert, Vals: []row.Value{zero, row.StrValue("a")}},
		{Kind: changelogmode.Delete, Vals: []row.Value{negZero, row.StrValue("a")}},
		{Kind: changelogmode.Insert, Vals: []row.Value{row.FloatValue(1), row.StrValue("b")}},
	}); err != nil {
		t.Fatal(err)
	}
	if len(s.rows) != 1 {
		t.Errorf("after +I 0.0, -D -0.0, +I 1.0 the table holds %d keys, want 1: %v", len(s.rows), s.rows)
	}
	held := newTableState([]int{0}, false)
	if err := held.Write(context.Background(), row.Batch{
		{Kind: changelogmode.Insert, Vals: []row.Value{negZero, row.StrValue("c")}},
	}); err != nil {
		t.Fatal(err)
	}
	want := newTableState([]int{0}, true)
	if err := want.Write(context.Background(), row.Batch{
		{Kind: changelogmode.Insert, Vals: []row.Value{zero, row.StrValue("c")}},
	}); err != nil {
		t.Fatal(err)
	}
	if len(held.rows) != 1 || len(want.rows) != 1 {
		t.Fatalf("one row each: %v, %v", held.rows, want.rows)
	}
	for k, w := range want.rows {
		if g, ok := held.rows[k]; !ok || !sameRows(w, g) {
			t.Errorf("the row of key 0.0 is %v; held, -0.0 is %v (%v): want the same row under the same key", w, g, ok)
		}
	}
}

// TestReconcileJSONFile: an append-only json file sink (no key: rows are
// compared whole, counted). The file as `run` wrote it holds what the job
// computes; with a row removed, one written twice and one changed,
// reconcile names each and exits 1.
func TestReconcileJSONFile(t *testing.T) {
	dir := t.TempDir()
	const n = 30
	ledgerInputs(t, dir, n)
	job := writeJobIn(t, dir, "shipped.sql", ledgerInputTables+
		"CREATE TABLE shipped (order_id BIGINT, amount BIGINT, ship_id STRING) WITH ('connector' = 'filesystem', 'path' = 'shipped.json', 'format' = 'json');\n"+
		"INSERT INTO shipped SELECT o.order_id, o.amount, s.ship_id FROM orders o JOIN shipments s ON o.order_id = s.order_id;\n")
	if r := invoke("run", job); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	shipped := n - n/3
	r := invoke("reconcile", job)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("%d equal, 0 missing, 0 unexpected, 0 different", shipped)) {
		t.Fatalf("reconcile after run:\n%s", r)
	}
	out := filepath.Join(dir, "shipped.json")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		switch {
		case strings.Contains(l, `"order_id":1,`): // removed
		case strings.Contains(l, `"order_id":2,`): // written twice
			lines = append(lines, l, l)
		case strings.Contains(l, `"order_id":4,`): // changed
			lines = append(lines, strings.Replace(l, `"ship_id":"s4"`, `"ship_id":"s44"`, 1))
		default:
			lines = append(lines, l)
		}
	}
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = invoke("reconcile", job)
	for _, want := range []string{
		"by whole row (the table has no PRIMARY KEY)",
		"missing     [1, 101, s1]: computed [1, 101, s1]\n",
		"different   [2, 102, s2]: computed [2, 102, s2], held [2, 102, s2] [2, 102, s2]\n",
		"missing     [4, 104, s4]: computed [4, 104, s4]\n",
		"unexpected  [4, 104, s44]: held [4, 104, s44]\n",
		fmt.Sprintf("%d equal, 2 missing, 1 unexpected, 1 different\n", shipped-3),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, r)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
}
