package state

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/row"
)

// Expire visits only due buckets: with most state far in the future, an
// expiry pass costs the due records, not the table.
func TestExpireTouchesOnlyDueBuckets(t *testing.T) {
	s, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{BucketWidth: 100})
	for i := 0; i < 10000; i++ {
		tab.Append([]byte(fmt.Sprint(i)), Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: 1_000_000 + int64(i)})
	}
	for i := 0; i < 10; i++ {
		tab.Append([]byte(fmt.Sprint("due", i)), Record{Expiry: int64(i * 10)})
	}
	buckets := len(tab.buckets.m)
	got := 0
	n := tab.Expire(45, func(k []byte, r *Record) { got++ })
	if n != 5 || got != 5 {
		t.Fatalf("Expire(45) removed %d (%d calls), want 5", n, got)
	}
	// Only the bucket [0, 128) was opened; the others are untouched.
	for id, b := range tab.buckets.m {
		if id != 0 && (!b.sorted || b.stale != 0) {
			t.Fatalf("bucket %d was touched", id)
		}
	}
	if len(tab.buckets.m) != buckets {
		t.Fatalf("buckets %d -> %d", buckets, len(tab.buckets.m))
	}
	// A record whose expiry moves later within its bucket is requeued, not lost.
	tab.Scan([]byte("due9"), func(r *Record) (bool, bool) { r.Expiry = 120; return true, false })
	if n := tab.Expire(119, nil); n != 4 {
		t.Fatalf("Expire(119) removed %d, want 4", n)
	}
	if n := tab.Expire(120, nil); n != 1 {
		t.Fatalf("Expire(120) removed %d, want 1", n)
	}
	if n := tab.Expire(1_000_000+9999, nil); n != 10000 || tab.Len() != 0 || tab.MemBytes() != 0 {
		t.Fatalf("Expire(all) removed %d; Len %d MemBytes %d", n, tab.Len(), tab.MemBytes())
	}
}

// Cold records expire from the Badger index without being loaded into
// the hot tier, and the index is consumed.
func TestExpireCold(t *testing.T) {
	s, err := Open("", Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	for i := 0; i < 1000; i++ {
		tab.Append([]byte(fmt.Sprint(i%100)), Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: int64(1000 - i)})
	}
	if tab.HotKeys() != 0 {
		t.Fatalf("%d hot keys under a 1-byte budget", tab.HotKeys())
	}
	loaded := s.Stats().Loaded
	prev := int64(-1)
	n := tab.Expire(500, func(k []byte, r *Record) {
		if r.Expiry < prev {
			t.Fatalf("out of order: %d after %d", r.Expiry, prev)
		}
		prev = r.Expiry
	})
	if n != 500 || tab.Len() != 500 {
		t.Fatalf("removed %d, Len %d", n, tab.Len())
	}
	if st := s.Stats(); st.ColdExpired != 500 || st.Loaded != loaded {
		t.Fatalf("stats %+v", st)
	}
	if n := tab.Expire(500, nil); n != 0 {
		t.Fatalf("second Expire(500) removed %d", n)
	}
}

func TestDurability(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	tab := s.Table("t", TableOptions{})
	tab.Append([]byte("a"), Record{Vals: []row.Value{row.StrValue("x")}, Expiry: NoExpiry})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	tab.Append([]byte("a"), Record{Vals: []row.Value{row.StrValue("y")}, Expiry: 5})
	tab.Append([]byte("b"), Record{Expiry: 7})
	tab.Delete([]byte("b"))
	// Simulate a crash after the Flush: close Badger without flushing the hot tier.
	s.closed = true
	if err := s.release(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	tab = s.Table("t", TableOptions{})
	var got []string
	tab.Scan([]byte("a"), func(r *Record) (bool, bool) { got = append(got, r.Vals[0].Str()); return true, false })
	if fmt.Sprint(got) != "[x]" || tab.Len() != 1 {
		t.Fatalf("after a crash following Flush: %v, Len %d", got, tab.Len())
	}
	tab.Append([]byte("a"), Record{Vals: []row.Value{row.StrValue("z")}, Expiry: 5})
	if err := s.Close(); err != nil { // a clean Close flushes
		t.Fatal(err)
	}
	s, err = Open(dir, Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab = s.Table("t", TableOptions{})
	if tab.Len() != 2 {
		t.Fatalf("after Close: Len %d", tab.Len())
	}
	var seqs []uint64
	if tab.Expire(5, func(k []byte, r *Record) { seqs = append(seqs, r.Seq()) }) != 1 {
		t.Fatal("the expiry index did not survive Close")
	}
	tab.Append([]byte("a"), Record{Expiry: NoExpiry})
	tab.Scan([]byte("a"), func(r *Record) (bool, bool) { seqs = append(seqs, r.Seq()); return true, false })
	if len(seqs) != 3 || seqs[2] <= seqs[0] || seqs[1] >= seqs[2] {
		t.Fatalf("seqs after reopen %v", seqs)
	}
}

func TestCallbackMayNotReenter(t *testing.T) {
	s, err := Open("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	tab.Append([]byte("k"), Record{Expiry: NoExpiry})
	defer func() {
		if recover() == nil {
			t.Fatal("Append inside Scan did not panic")
		}
	}()
	tab.Scan([]byte("k"), func(r *Record) (bool, bool) { tab.Append([]byte("j"), Record{}); return true, false })
}

// TestExpireColdBlind: with no callback, a spilled key whose only record
// is due is deleted without being read; a key with more records is read
// and rewritten; either way the results are the model's (model_test.go
// covers the mixes).
func TestExpireColdBlind(t *testing.T) {
	s, err := Open("", Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	for i := 0; i < 1000; i++ {
		tab.Append([]byte(fmt.Sprint("single", i)), Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: int64(i)})
	}
	for i := 0; i < 10; i++ {
		k := []byte(fmt.Sprint("double", i))
		tab.Append(k, Record{Expiry: int64(i)})
		tab.Append(k, Record{Expiry: 5000})
	}
	if tab.HotKeys() != 0 {
		t.Fatalf("%d hot keys under a 1-byte budget", tab.HotKeys())
	}
	loaded := s.Stats().Loaded
	if n := tab.Expire(999, nil); n != 1010 || tab.Len() != 10 {
		t.Fatalf("Expire(999, nil) removed %d, Len %d; want 1010 and 10", n, tab.Len())
	}
	st := s.Stats()
	if st.ColdBlind != 1000 || st.ColdExpired != 1010 || st.Loaded != loaded {
		t.Fatalf("stats %+v: want 1000 of 1010 cold expiries unread, nothing loaded", st)
	}
	// A single key appended to again after its blind delete starts afresh.
	tab.Append([]byte("single1"), Record{Expiry: 2000})
	var seen int
	if tab.Expire(math.MaxInt64-1, func([]byte, *Record) { seen++ }) != 11 || seen != 11 || tab.Len() != 0 {
		t.Fatalf("final Expire saw %d, Len %d", seen, tab.Len())
	}
}

// An expiry without callback past every expiry Badger holds drops the
// table's Badger data whole; hot keys that Badger also held keep their
// later records and write them again when they spill; a record without
// expiry in Badger keeps the per-record path.
func TestExpireColdDropsTableWhole(t *testing.T) {
	s, err := Open("", Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	other := s.Table("u", TableOptions{})
	for i := 0; i < 500; i++ {
		k := []byte(fmt.Sprint(i % 200)) // keys of one to three records
		tab.Append(k, Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: int64(i)})
		other.Append(k, Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: int64(i)})
	}
	// Key "7" comes back hot (Scan loads it) with a record due later than
	// anything in Badger; the budget keeps only what the scan touched.
	s.budget = 1 << 20
	tab.Scan([]byte("7"), func(*Record) (bool, bool) { return true, false })
	tab.Append([]byte("7"), Record{Vals: []row.Value{row.IntValue(-7)}, Expiry: 10_000})
	if n := tab.Expire(600, nil); n != 500 || tab.Len() != 1 {
		t.Fatalf("Expire(600, nil) removed %d, Len %d; want 500 and 1", n, tab.Len())
	}
	if st := s.Stats(); st.ColdDropped != 497 {
		t.Fatalf("stats %+v: want the 497 records Badger alone held dropped whole", st)
	}
	// The other table's Badger data is untouched.
	var seen []int64
	if !other.Scan([]byte("7"), func(r *Record) (bool, bool) { seen = append(seen, r.Vals[0].Int()); return true, false }) ||
		fmt.Sprint(seen) != "[7 207 407]" {
		t.Fatalf("the other table's key 7 holds %v, want [7 207 407]", seen)
	}
	// Key "7" spills again and comes back with its one live record only.
	s.budget = 1
	s.maybeSpill()
	if tab.HotKeys() != 0 {
		t.Fatalf("%d hot keys after a spill to a 1-byte budget", tab.HotKeys())
	}
	seen = nil
	tab.Scan([]byte("7"), func(r *Record) (bool, bool) { seen = append(seen, r.Vals[0].Int()); return true, false })
	if fmt.Sprint(seen) != "[-7]" {
		t.Fatalf("key 7 read back %v, want [-7]", seen)
	}
	if tab.Scan([]byte("8"), func(*Record) (bool, bool) { return true, false }) {
		t.Fatal("key 8 is still in Badger after the drop")
	}
	// With a record without expiry in Badger, nothing is dropped whole.
	tab.Append([]byte("never"), Record{Expiry: NoExpiry})
	tab.Append([]byte("soon"), Record{Expiry: 20_000})
	s.maybeSpill()
	dropped := s.Stats().ColdDropped
	if n := tab.Expire(math.MaxInt64, nil); n != 2 || tab.Len() != 1 || s.Stats().ColdDropped != dropped {
		t.Fatalf("Expire(max, nil) removed %d, Len %d, dropped %d more; want 2, 1, 0", n, tab.Len(), s.Stats().ColdDropped-dropped)
	}
}

// While a snapshot is being written, an expiry never drops a table's
// Badger data whole: the snapshot still reads it.
func TestExpireColdKeepsWhatASnapshotReads(t *testing.T) {
	s, err := Open("", Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	for i := 0; i < 300; i++ {
		tab.Append([]byte(fmt.Sprint(i%100)), Record{Vals: []row.Value{row.IntValue(int64(i))}, Expiry: int64(i)})
	}
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if n := tab.Expire(1000, nil); n != 300 || tab.Len() != 0 || s.Stats().ColdDropped != 0 {
		t.Fatalf("Expire(1000, nil) with a snapshot open: removed %d, Len %d, dropped whole %d; want 300, 0, 0",
			n, tab.Len(), s.Stats().ColdDropped)
	}
	var buf bytes.Buffer
	if _, err := sn.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(filepath.Join(t.TempDir(), "r"), Options{MemoryBudget: -1}, []SnapshotPart{{Name: "sn", R: &buf}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := r.Table("t", TableOptions{}).Len(); n != 300 {
		t.Fatalf("the snapshot restored %d records, want the 300 of when it was taken", n)
	}
}
