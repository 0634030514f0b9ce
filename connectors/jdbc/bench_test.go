package jdbc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/connectors/jdbc/jdbctest"
	"github.com/streamsql/streamsql/row"
)

// BenchmarkUpsert writes b.N upserts through the sink into a table keyed
// on id, over 100,000 keys (so most are updates of a key written before),
// 1,000 rows a Write, with 'sink.buffer-flush.max-rows' at each size; one
// op is one row. rows/s is what reached the database (the last flush
// included). Run for the 1M upserts with
//
//	go test ./connectors/jdbc -run XXX -bench Upsert -benchtime 1000000x
func BenchmarkUpsert(b *testing.B) {
	for _, dialect := range jdbctest.Dialects {
		for _, batch := range []int{100, 1000, 5000} {
			b.Run(fmt.Sprintf("%s/batch=%d", dialect, batch), func(b *testing.B) {
				db := jdbctest.Open(b, dialect)
				db.Exec(b, "CREATE TABLE kv (id BIGINT PRIMARY KEY, amount BIGINT, note VARCHAR(40))")
				s, err := NewSink(conntest.SinkSpec(b, fmt.Sprintf(
					"CREATE TABLE kv (id BIGINT, amount BIGINT, note STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (%s, "+
						"'sink.buffer-flush.max-rows' = '%d', 'sink.buffer-flush.interval' = '0')", db.With("", "kv"), batch), ""))
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if err := s.Open(ctx); err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				const keys, perWrite = 100_000, 1000
				rows := make(row.Batch, 0, perWrite)
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					rows = append(rows, row.Row{Kind: changelogmode.UpdateAfter, Vals: []row.Value{
						row.IntValue(int64(i % keys)), row.IntValue(int64(i)), row.StrValue("a note of twenty chars")}})
					if len(rows) == perWrite || i == b.N-1 {
						if err := s.Write(ctx, rows); err != nil {
							b.Fatal(err)
						}
						rows = rows[:0]
					}
				}
				if err := s.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rows/s")
				var n int
				if err := db.SQL.QueryRow("SELECT COUNT(*) FROM kv").Scan(&n); err != nil {
					b.Fatal(err)
				}
				if want := min(b.N, keys); n != want {
					b.Fatalf("the table holds %d keys, want %d", n, want)
				}
			})
		}
	}
}

// BenchmarkLookup looks up batches of 256 distinct keys (of which 1 in 8
// is missing) in a 100,000-row table keyed on k, with 1, 16 and 256 keys a
// SELECT: 1 is what Flink's JdbcRowDataLookupFunction does (a query per
// key), 256 what the lookup join does with a probe batch. One op is one
// key; keys/s is the rate.
//
//	go test ./connectors/jdbc -run XXX -bench Lookup -benchtime 20000x
func BenchmarkLookup(b *testing.B) {
	for _, dialect := range jdbctest.Dialects {
		db := jdbctest.Open(b, dialect)
		db.Exec(b, "CREATE TABLE dim (k BIGINT PRIMARY KEY, v VARCHAR(20))")
		const rows = 100_000
		for start := 0; start < rows; start += 1000 {
			var vals []string
			for i := start; i < start+1000; i++ {
				vals = append(vals, fmt.Sprintf("(%d, 'value %d')", i, i))
			}
			db.Exec(b, "INSERT INTO dim (k, v) VALUES "+strings.Join(vals, ", "))
		}
		for _, per := range []int{1, 16, 256} {
			b.Run(fmt.Sprintf("%s/keys-per-query=%d", dialect, per), func(b *testing.B) {
				old := keysPerQuery
				keysPerQuery = per
				defer func() { keysPerQuery = old }()
				spec := conntest.SourceSpec(b, "CREATE TABLE dim (k BIGINT, v STRING) WITH ("+db.With("", "dim")+")", "")
				l, err := NewLookup(spec, []int{0})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if err := l.Open(ctx); err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				rng := rand.New(rand.NewPCG(1, 2))
				keys := make([][]row.Value, 0, 256)
				found := 0
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					keys = append(keys, []row.Value{row.IntValue(rng.Int64N(rows * 8 / 7))})
					if len(keys) == cap(keys) || i == b.N-1 {
						got, err := l.Lookup(ctx, keys)
						if err != nil {
							b.Fatal(err)
						}
						found += len(got)
						keys = keys[:0]
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "keys/s")
				if found == 0 || found > b.N {
					b.Fatalf("%d rows found for %d keys", found, b.N)
				}
			})
		}
	}
}
