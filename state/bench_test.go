package state

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/streamsql/streamsql/row"
)

func benchKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(i)*0x9E3779B97F4A7C15)
	}
	return keys
}

func benchVals(i int) []row.Value {
	return []row.Value{row.IntValue(int64(i)), row.IntValue(int64(i) * 1000), row.StrValue("order-confirmed")}
}

// reportCPU reports the CPU time (every goroutine's, the collector's
// included) per operation since start, less what was spent with the timer
// stopped (stopped).
func reportCPU(b *testing.B, start, stopped time.Duration) {
	b.ReportMetric(float64(cpuTime()-start-stopped)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func reportHeap(b *testing.B, s *Store) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heapMB")
	b.ReportMetric(float64(s.MemBytes())/(1<<20), "hotMB")
}

// Interval-join steady state, all in memory: probe a key, append a row,
// expire what the watermark passed; ~64k rows live.
func BenchmarkAppendScanHot(b *testing.B) {
	s, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("left", TableOptions{})
	const live = 1 << 16
	keys := benchKeys(live)
	vals := make([][]row.Value, 4096)
	for i := range vals {
		vals[i] = benchVals(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	matched := 0
	for i := 0; i < b.N; i++ {
		k := keys[i&(live-1)]
		tab.Scan(k, func(r *Record) (bool, bool) {
			if r.Time <= int64(i) {
				r.Flags |= 1
				matched++
			}
			return true, false
		})
		tab.Append(k, Record{Vals: vals[i&4095], Time: int64(i), Expiry: int64(i + live)})
		if i&1023 == 0 {
			tab.Expire(int64(i), func([]byte, *Record) {})
		}
	}
	b.StopTimer()
	reportHeap(b, s)
}

// 1M distinct keys through a 1 MB budget: every op appends a row under a
// new key and probes an older one, which is cold.
func BenchmarkAppendSpill(b *testing.B) {
	s, err := Open("", Options{MemoryBudget: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("left", TableOptions{})
	const n = 1 << 20
	keys := benchKeys(n)
	b.ReportAllocs()
	b.ResetTimer()
	found := 0
	for i := 0; i < b.N; i++ {
		tab.Append(keys[i&(n-1)], Record{Vals: benchVals(i), Time: int64(i), Expiry: NoExpiry - 1})
		if i >= 1024 {
			tab.Scan(keys[(uint64(i)*0x9E3779B97F4A7C15)%uint64(i)&(n-1)], func(r *Record) (bool, bool) { found++; return true, true })
		}
	}
	b.StopTimer()
	if err := s.Err(); err != nil {
		b.Fatal(err)
	}
	if p := os.Getenv("STATE_HEAP_PROFILE"); p != "" { // where the memory is, with the state open
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	st := s.Stats()
	b.ReportMetric(float64(st.Spilled)/float64(b.N), "spills/op")
	b.ReportMetric(float64(st.Loaded)/float64(b.N), "loads/op")
	reportHeap(b, s)
}

// Expire 1M records (1M keys) in 1024 watermark steps: one op expires all
// of them; ns/record is the cost per record.
func BenchmarkExpire1M(b *testing.B)     { benchExpire(b, -1) }
func BenchmarkExpire1MCold(b *testing.B) { benchExpire(b, 1<<20) }

func benchExpire(b *testing.B, budget int64) {
	b.StopTimer()
	const n = 1 << 20
	keys := benchKeys(n)
	b.ReportAllocs()
	for it := 0; it < b.N; it++ {
		s, err := Open("", Options{MemoryBudget: budget})
		if err != nil {
			b.Fatal(err)
		}
		tab := s.Table("left", TableOptions{})
		for i := 0; i < n; i++ {
			tab.Append(keys[i], Record{Vals: benchVals(i), Time: int64(i), Expiry: int64(i)})
		}
		got := 0
		b.StartTimer()
		for w := int64(0); w < n; w += 1000 { // a watermark every 1000 ms
			got += tab.Expire(w+999, func([]byte, *Record) {})
		}
		b.StopTimer()
		if got != n || tab.Len() != 0 {
			b.Fatalf("expired %d, Len %d", got, tab.Len())
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
}

// snapshotStore is a store with n changed hot keys of one record each,
// with an expiry (an interval join's side).
func snapshotStore(b *testing.B, n int) *Store {
	s, err := Open(b.TempDir(), Options{MemoryBudget: -1})
	if err != nil {
		b.Fatal(err)
	}
	tab := s.Table("left", TableOptions{})
	for i, k := range benchKeys(n) {
		tab.Append(k, Record{Vals: benchVals(i), Time: int64(i), Expiry: int64(i) + 1000})
	}
	return s
}

// The barrier's cost of a snapshot of 500k changed hot keys (what the
// operator's goroutine spends; the writing happens apart, in WriteTo).
func BenchmarkSnapshotBarrier500k(b *testing.B) {
	s := snapshotStore(b, 500_000)
	defer s.Close()
	var stopped time.Duration
	start := cpuTime()
	for b.Loop() {
		sn, err := s.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		t0 := cpuTime()
		sn.Release()
		stopped += cpuTime() - t0
		b.StartTimer()
	}
	reportCPU(b, start, stopped)
}

// Writing a snapshot of 500k changed hot keys (in the background).
func BenchmarkSnapshotWrite500k(b *testing.B) {
	s := snapshotStore(b, 500_000)
	defer s.Close()
	var size int64
	start := cpuTime()
	for b.Loop() {
		sn, err := s.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		if size, err = sn.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start, 0)
	b.ReportMetric(float64(size)/(1<<20), "MB")
}

// Restoring a snapshot of 1M keys (one record each, with an expiry), then
// opening its table (which counts the keys).
func BenchmarkRestore1M(b *testing.B) {
	s := snapshotStore(b, 1_000_000)
	sn, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := sn.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	s.Close()
	s, sn = nil, nil
	runtime.GC()
	b.ReportMetric(float64(buf.Len())/(1<<20), "MB")
	var stopped time.Duration
	start := cpuTime()
	for b.Loop() {
		b.StopTimer()
		t0 := cpuTime()
		dir := filepath.Join(b.TempDir(), "r")
		stopped += cpuTime() - t0
		b.StartTimer()
		r, err := Restore(dir, Options{MemoryBudget: -1}, []SnapshotPart{{Name: "snap", R: bytes.NewReader(buf.Bytes())}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if n := r.Table("left", TableOptions{}).Len(); n != 1_000_000 {
			b.Fatalf("%d records restored", n)
		}
		b.StopTimer()
		t0 = cpuTime()
		r.Close()
		stopped += cpuTime() - t0
		b.StartTimer()
	}
	reportCPU(b, start, stopped)
}

// Restoring 1M keys from a chain at its longest: exec lets a chain grow
// until its parts hold twice the records of the state (or 128 deltas).
// "grown": a state that only grew, a base of 1/32 of its keys and 31
// deltas adding the others (every record once; and some deleted);
// "rewritten": a base of 1M keys and 4 deltas that rewrite all of them
// (every record twice, half of them in deltas).
func BenchmarkRestore1MChain(b *testing.B) {
	const n = 1_000_000
	keys := benchKeys(n)
	chain := func(b *testing.B, grown bool) (base []byte, deltas [][]byte, want int64) {
		s, err := Open(b.TempDir(), Options{MemoryBudget: -1})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		tab := s.Table("left", TableOptions{})
		write := func(sn *Snapshot, err error) []byte {
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := sn.WriteTo(&buf); err != nil {
				b.Fatal(err)
			}
			return buf.Bytes()
		}
		add := func(from, to int) {
			for i := from; i < to; i++ {
				tab.Append(keys[i], Record{Vals: benchVals(i), Time: int64(i), Expiry: int64(i) + 1000})
			}
		}
		if grown {
			const parts = 32
			add(0, n/parts)
			base = write(s.Snapshot())
			for d := 1; d < parts; d++ {
				add(d*n/parts, (d+1)*n/parts)
				for i := d * 100; i < (d+1)*100; i++ {
					tab.Delete(keys[i])
				}
				deltas = append(deltas, write(s.SnapshotChanges()))
			}
			return base, deltas, tab.Len()
		}
		add(0, n)
		base = write(s.Snapshot())
		for d := range 4 {
			for i := d * n / 4; i < (d+1)*n/4; i++ {
				tab.Scan(keys[i], func(r *Record) (bool, bool) { r.Flags++; return true, false })
			}
			deltas = append(deltas, write(s.SnapshotChanges()))
		}
		return base, deltas, tab.Len()
	}
	for _, grown := range []bool{true, false} {
		name := "rewritten"
		if grown {
			name = "grown"
		}
		b.Run(name, func(b *testing.B) {
			base, deltas, want := chain(b, grown)
			size := 0
			for _, d := range deltas {
				size += len(d)
			}
			runtime.GC()
			b.ReportMetric(float64(len(base))/(1<<20), "baseMB")
			b.ReportMetric(float64(size)/(1<<20), "deltasMB")
			var stopped time.Duration
			start := cpuTime()
			for b.Loop() {
				b.StopTimer()
				t0 := cpuTime()
				dir := filepath.Join(b.TempDir(), "r")
				p := SnapshotPart{Name: "base", R: bytes.NewReader(base)}
				for _, d := range deltas {
					p.Deltas = append(p.Deltas, SnapshotPart{Name: "delta", R: bytes.NewReader(d)})
				}
				stopped += cpuTime() - t0
				b.StartTimer()
				r, err := Restore(dir, Options{MemoryBudget: -1}, []SnapshotPart{p}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if n := r.Table("left", TableOptions{}).Len(); n != want {
					b.Fatalf("%d records restored, want %d", n, want)
				}
				b.StopTimer()
				t0 = cpuTime()
				r.Close()
				stopped += cpuTime() - t0
				b.StartTimer()
			}
			reportCPU(b, start, stopped)
		})
	}
}

// A checkpoint of a 1M-key store after 10k keys changed: a whole snapshot
// written (what every checkpoint did) against an incremental one, each
// taken and written (the barrier and the background writer together).
func BenchmarkSnapshotWrite1M(b *testing.B) {
	for _, inc := range []bool{false, true} {
		name := "whole"
		if inc {
			name = "incremental"
		}
		b.Run(name, func(b *testing.B) {
			s := snapshotStore(b, 1_000_000)
			defer s.Close()
			tab := s.Table("left", TableOptions{})
			keys := benchKeys(1_000_000)
			sn, err := s.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			sn.Release()
			var n int64
			j := 0
			start := cpuTime()
			for b.Loop() {
				b.StopTimer()
				for range 10_000 {
					tab.Append(keys[j%len(keys)], Record{Vals: benchVals(j), Time: int64(j), Expiry: int64(j) + 1000})
					j += 97
				}
				b.StartTimer()
				if inc {
					sn, err = s.SnapshotChanges()
				} else {
					sn, err = s.Snapshot()
				}
				if err != nil {
					b.Fatal(err)
				}
				if n, err = sn.WriteTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start, 0)
			b.ReportMetric(float64(n)/(1<<20), "MB")
		})
	}
}
