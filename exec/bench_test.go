package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// The micro-benchmarks drive one operator through the job's entry points,
// without sources or goroutines: they measure the operator, per row.

// benchJob builds a one-query job over 'datagen' tables (the scripted
// source of the tests) and returns its entries by table name.
func benchJob(b *testing.B, sql string) (*Job, map[string]collector) {
	b.Helper()
	j := frontend.CheckJob(diag.NewSource("bench.sql", sql))
	if j.Diags.HasErrors() {
		b.Fatal(j.Diags.Err())
	}
	job, err := Build(context.Background(), plantest.Lower(b, j.Session.Plans), Options{
		Settings:  j.Session.Settings,
		Clock:     func() int64 { return 0 },
		QuerySink: func(string, []connector.Column) connector.Sink { return &funcSink{write: func(row.Batch) {}} },
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = job.Close() })
	if err := job.open(context.Background(), context.Background()); err != nil {
		b.Fatal(err)
	}
	entries := map[string]collector{}
	for i, s := range job.sources {
		entries[s.name] = job.entry[i]
	}
	return job, entries
}

const ijSQL = `CREATE TABLE l (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE r (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
SELECT l.id, r.ts FROM l JOIN r ON l.id = r.id AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts;
`

// BenchmarkIntervalJoinInsertProbe: each op is one left row stored and one
// right row probing it (a match), with the watermark advancing every 1024
// rows so that state stays around a few thousand rows.
func BenchmarkIntervalJoinInsertProbe(b *testing.B) {
	_, e := benchJob(b, ijSQL)
	const batch = 1024
	lb := make(row.Batch, batch)
	rb := make(row.Batch, batch)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += batch {
		size := min(batch, b.N-n)
		for i := range size {
			t := int64(n + i)
			lb[i] = row.Insert(row.IntValue(t), row.IntValue(t))
			rb[i] = row.Insert(row.IntValue(t), row.IntValue(t+500))
		}
		if err := e["l"].push(lb[:size]); err != nil {
			b.Fatal(err)
		}
		if err := e["r"].push(rb[:size]); err != nil {
			b.Fatal(err)
		}
		wm := int64(n) - 2000
		_ = e["l"].watermark(wm)
		_ = e["r"].watermark(wm)
	}
}

// BenchmarkWatermarkAdvance1MLive: 1M rows wait in an interval join, and
// the watermark advances in steps of 1000 rows; each op is one row leaving
// state (the cost of a step divided by the rows it expires).
func BenchmarkWatermarkAdvance1MLive(b *testing.B) {
	const live = 1_000_000
	_, e := benchJob(b, ijSQL)
	var base int64
	fill := func() {
		batch := make(row.Batch, 0, 1024)
		for i := int64(0); i < live; i++ {
			t := base + i
			batch = append(batch, row.Insert(row.IntValue(t), row.IntValue(t)))
			if len(batch) == cap(batch) {
				if err := e["l"].push(batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		if err := e["l"].push(batch); err != nil {
			b.Fatal(err)
		}
	}
	fill()
	b.ReportAllocs()
	b.ResetTimer()
	// A left row at t leaves once the watermark reaches t + 1s.
	wm := base + 1000 - 1
	for n := 0; n < b.N; n += 1000 {
		if wm >= base+1000+live-1 {
			b.StopTimer()
			base += live
			fill() // the next million, later in time
			b.StartTimer()
		}
		wm += 1000
		_ = e["r"].watermark(wm)
		if err := e["l"].watermark(wm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegularJoinUpdate: a regular join with 10k keys on each side;
// each op is one update (-U, +U) of a left row that has one partner.
func BenchmarkRegularJoinUpdate(b *testing.B) {
	_, e := benchJob(b, `CREATE TABLE l (id BIGINT, v BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE r (id BIGINT, w BIGINT) WITH ('connector' = 'datagen');
SELECT l.id, l.v, r.w FROM l JOIN r ON l.id = r.id;
`)
	const keys = 10_000
	for i := 0; i < keys; i++ {
		_ = e["l"].push(row.Batch{row.Insert(row.IntValue(int64(i)), row.IntValue(0))})
		_ = e["r"].push(row.Batch{row.Insert(row.IntValue(int64(i)), row.IntValue(1))})
	}
	vals := make([]int64, keys)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		k := n % keys
		before := row.Row{Kind: changelogmode.UpdateBefore, Vals: []row.Value{row.IntValue(int64(k)), row.IntValue(vals[k])}}
		vals[k]++
		after := row.Row{Kind: changelogmode.UpdateAfter, Vals: []row.Value{row.IntValue(int64(k)), row.IntValue(vals[k])}}
		if err := e["l"].push(row.Batch{before, after}); err != nil {
			b.Fatal(fmt.Errorf("update %d: %w", n, err))
		}
	}
}

// BenchmarkWindowAggregate: each op is one row into a 1 s tumbling window
// over 1000 keys, the watermark following 100 ms behind every 1024 rows
// (one row per ms of event time), and every tenth row 1.5 s late: dropped
// without lateness, an update of a fired window with 2 s of it, folded
// silently in final-only mode.
func BenchmarkWindowAggregate(b *testing.B) {
	for _, c := range []struct{ name, set string }{
		{"no-lateness", ""},
		{"lateness", "SET 'table.exec.emit.allow-lateness' = '2 s';\n"},
		{"final-only", "SET 'table.exec.emit.allow-lateness' = '2 s';\nSET 'table.exec.emit.final-only' = 'true';\n"},
		// Early firing with each batch (a preliminary row per group and
		// batch), and on a 1 s timer (registered per group; the benchmark's
		// clock does not move, so they only cost their registration).
		{"early-fire-each-batch", "SET 'table.exec.emit.early-fire.enabled' = 'true';\nSET 'table.exec.emit.early-fire.delay' = '0';\n"},
		{"early-fire-timer", "SET 'table.exec.emit.early-fire.enabled' = 'true';\nSET 'table.exec.emit.early-fire.delay' = '1 s';\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			_, e := benchJob(b, c.set+`CREATE TABLE b (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;
`)
			const batch = 1024
			rb := make(row.Batch, batch)
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; n < b.N; n += batch {
				size := min(batch, b.N-n)
				for i := range size {
					t := int64(n + i)
					if i%10 == 9 {
						t -= 1500
					}
					rb[i] = row.Insert(row.IntValue(int64((n+i)%1000)), row.IntValue(int64(i)), row.IntValue(max(t, 0)))
				}
				if err := e["b"].push(rb[:size]); err != nil {
					b.Fatal(err)
				}
				if err := e["b"].watermark(int64(n+size) - 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
