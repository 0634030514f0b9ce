package jdbc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/row"
)

// backoffs records the retries of flushes (Backoff's arguments) and runs
// then before each wait.
type backoffs struct {
	mu    sync.Mutex
	calls []int
	then  func(i int)
}

func recordBackoff(t *testing.T, then func(i int)) *backoffs {
	b := &backoffs{then: then}
	old := Backoff
	Backoff = func(i int) time.Duration {
		b.mu.Lock()
		b.calls = append(b.calls, i)
		f := b.then
		b.mu.Unlock()
		if f != nil {
			f(i)
		}
		return time.Duration(i) * 10 * time.Millisecond
	}
	t.Cleanup(func() { Backoff = old })
	return b
}

func (b *backoffs) got() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.calls)
}

func rows(kind changelogmode.Kind, from, to int, v string) row.Batch {
	var out row.Batch
	for i := from; i < to; i++ {
		out = append(out, ins(kind, int64(i), fmt.Sprintf("%s%d", v, i)))
	}
	return out
}

// TestLostConnectionRetried: the connection is lost between flushes and
// the database refuses connections for two attempts; the flush is retried
// as Flink's JdbcOutputFormat does (waits 0, 1, ... units), connects again
// and writes everything. Nothing acknowledged before is lost.
func TestLostConnectionRetried(t *testing.T) {
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			db.Exec(t, "CREATE TABLE kv (id BIGINT PRIMARY KEY, v VARCHAR(20))")
			p := jdbctest.NewProxy(t, db.Addr)
			s := openSink(t, "CREATE TABLE kv (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("+
				db.With(p.Addr, "kv")+", 'sink.buffer-flush.max-rows' = '0', 'sink.buffer-flush.interval' = '0', 'sink.max-retries' = '3')")
			ctx := context.Background()
			if err := s.Write(ctx, rows(changelogmode.Insert, 0, 100, "a")); err != nil {
				t.Fatal(err)
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			b := recordBackoff(t, func(i int) {
				if i == 1 {
					p.Refuse(false) // the database is back before the third attempt
				}
			})
			p.Refuse(true)
			p.Cut()
			batch := append(rows(changelogmode.Insert, 100, 200, "b"), rows(changelogmode.UpdateAfter, 0, 50, "c")...)
			batch = append(batch, rows(changelogmode.Delete, 50, 60, "")...)
			if err := s.Write(ctx, batch); err != nil {
				t.Fatal(err)
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatalf("the flush failed although the database came back within the retries: %v", err)
			}
			if got := b.got(); !slices.Equal(got, []int{0, 1}) {
				t.Errorf("retries waited %v, want [0 1] (two failed attempts, the third succeeds)", got)
			}
			var want []string
			for i := range 200 {
				switch {
				case i < 50:
					want = append(want, fmt.Sprintf("%d|c%d", i, i))
				case i < 60:
				case i < 100:
					want = append(want, fmt.Sprintf("%d|a%d", i, i))
				default:
					want = append(want, fmt.Sprintf("%d|b%d", i, i))
				}
			}
			if got := dump(t, db, "kv", "id", "v"); !slices.Equal(got, want) {
				t.Errorf("table has %d rows, want %d:\n%v", len(got), len(want), got)
			}
			if n := s.Acknowledged(); n != int64(100+len(batch)) {
				t.Errorf("acknowledged %d, want %d", n, 100+len(batch))
			}
		})
	}
}

// TestLostMidTransaction: the connection is lost in the middle of a flush
// of an append-only table (many statements of one transaction). The
// attempt's transaction never commits, the retry writes the whole buffer
// again: every row is in the table exactly once.
func TestLostMidTransaction(t *testing.T) {
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			db.Exec(t, "CREATE TABLE log (id BIGINT, v VARCHAR(40))")
			p := jdbctest.NewProxy(t, db.Addr)
			s := openSink(t, "CREATE TABLE log (id BIGINT, v STRING) WITH ("+
				db.With(p.Addr, "log")+", 'sink.buffer-flush.max-rows' = '0', 'sink.buffer-flush.interval' = '0')")
			b := recordBackoff(t, func(int) { p.Refuse(false) })
			const n = 5000 // 5 INSERT statements of 1000 rows
			if err := s.Write(context.Background(), rows(changelogmode.Insert, 0, n, "row number ")); err != nil {
				t.Fatal(err)
			}
			p.CutAfter(60_000) // in the second or third statement
			if err := s.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			if len(b.got()) == 0 {
				t.Fatal("no retry: the connection was not cut during the flush")
			}
			var count, distinct int
			if err := db.SQL.QueryRow("SELECT COUNT(*), COUNT(DISTINCT id) FROM log").Scan(&count, &distinct); err != nil {
				t.Fatal(err)
			}
			if count != n || distinct != n {
				t.Errorf("the table holds %d rows (%d ids), want each of %d once", count, distinct, n)
			}
		})
	}
}

// TestRetriesSpent: with the database gone, a flush is tried
// 1 + 'sink.max-retries' times, then fails with the driver's error; the
// rows stay unacknowledged and the job's error names the option.
func TestRetriesSpent(t *testing.T) {
	for _, dialect := range jdbctest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			db := jdbctest.Open(t, dialect)
			db.Exec(t, "CREATE TABLE kv (id BIGINT PRIMARY KEY, v VARCHAR(20))")
			p := jdbctest.NewProxy(t, db.Addr)
			s := openSink(t, "CREATE TABLE kv (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("+
				db.With(p.Addr, "kv")+", 'sink.buffer-flush.max-rows' = '10', 'sink.buffer-flush.interval' = '0', 'sink.max-retries' = '2')")
			ctx := context.Background()
			if err := s.Write(ctx, rows(changelogmode.Insert, 0, 10, "a")); err != nil {
				t.Fatal(err)
			}
			b := recordBackoff(t, nil)
			p.Refuse(true)
			p.Cut()
			err := s.Write(ctx, rows(changelogmode.Insert, 10, 20, "b"))
			if err == nil {
				t.Fatal("the write succeeded with the database unreachable")
			}
			if !strings.Contains(err.Error(), "writing 10 buffered rows failed 3 times ('sink.max-retries' = 2)") {
				t.Errorf("error: %v", err)
			}
			if got := b.got(); !slices.Equal(got, []int{0, 1}) {
				t.Errorf("retries waited %v, want [0 1]", got)
			}
			if n := s.Acknowledged(); n != 10 {
				t.Errorf("acknowledged %d, want the 10 rows of the first flush", n)
			}
			if err := s.Flush(ctx); err == nil {
				t.Error("a flush after the failure succeeded: the job must fail")
			}
			if got := dump(t, db, "kv", "id", "v"); len(got) != 10 {
				t.Errorf("the table holds %d rows, want the 10 acknowledged", len(got))
			}
		})
	}
}
