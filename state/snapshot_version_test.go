package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// writeVersion1 writes a store's Badger contents as a snapshot of version
// 1 (what the streamsql before wrote: every data and index entry, in
// Badger's order), read from Badger itself after a Flush, not through the
// snapshot code under test.
func writeVersion1(t *testing.T, s *Store) []byte {
	t.Helper()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	b := append([]byte(snapshotMagic), 1)
	b = binary.AppendUvarint(b, uint64(len(formatVersion)))
	b = append(b, formatVersion...)
	var n uint64
	var xs int
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if bytes.Equal(k, formatKey) {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if k[0] == 'x' {
				xs++
			}
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if xs == 0 {
		t.Fatal("the version 1 snapshot has no index entries: the test needs some")
	}
	b = binary.AppendUvarint(b, 0)
	return binary.AppendUvarint(b, n)
}

// A whole snapshot of version 2 holds no index entry and restores the
// index (expiries fire, in order); one of version 1, with its index, still
// restores, alone and as the base of a chain of deltas (whose expiry
// horizons drop its index entries with its records), at the same and at
// another parallelism. Each restored store is compared with the model,
// then changed and expired alike.
func TestSnapshotVersions(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { snapshotVersionsRun(t, seed) })
	}
}

func snapshotVersionsRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 13))
	s, err := Open(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: 3000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &snapDriver{t: t, rng: rng, m: &snapModel{recs: map[string][]Record{}, vals: map[string]mapVal{}}, nkeys: 40 + rng.IntN(40)}
	d.open(s)
	for range 600 {
		d.step()
	}
	v1 := writeVersion1(t, s)
	atBase, nowBase := d.m.clone(), d.now
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var v2 bytes.Buffer
	if _, err := sn.WriteTo(&v2); err != nil {
		t.Fatal(err)
	}
	if err := readPart(SnapshotPart{R: bytes.NewReader(v2.Bytes())}, true, new(byte), func(_ uint64, k, _ []byte) error {
		if k[0] != 'd' {
			return fmt.Errorf("an index entry %q in a snapshot of version 2", k)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if v2.Len() >= len(v1) {
		t.Errorf("version 2 is %d bytes, version 1 %d: the index was not left out", v2.Len(), len(v1))
	}
	// takeDelta changes the store for 300 steps and writes a delta.
	takeDelta := func() (delta *bytes.Buffer, at *snapModel, now int64) {
		t.Helper()
		for range 300 {
			d.step()
		}
		sn, err := s.SnapshotChanges()
		if err != nil || !sn.Delta() {
			t.Fatalf("no delta (%v)", err)
		}
		delta = &bytes.Buffer{}
		if _, err := sn.WriteTo(delta); err != nil {
			t.Fatal(err)
		}
		return delta, d.m.clone(), d.now
	}
	delta, atDelta, nowDelta := takeDelta()
	// A second delta: its horizons apply to the first's values too.
	delta2, atDelta2, nowDelta2 := takeDelta()

	check := func(what string, parts []SnapshotPart, m *snapModel, now int64, keep func(string, []byte) bool) {
		t.Helper()
		r, err := Restore(filepath.Join(t.TempDir(), "restored"), Options{MemoryBudget: 3000}, parts, keep)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer r.Close()
		rm := m.clone()
		rm.seq = 0
		for _, rs := range rm.recs {
			for _, rec := range rs {
				rm.seq = max(rm.seq, rec.seq+1)
			}
		}
		rd := &snapDriver{t: t, rng: rand.New(rand.NewPCG(seed, 7)), m: rm, now: now, nkeys: d.nkeys}
		rd.open(r)
		rd.check(what, m, keep)
		if keep != nil {
			return // renumbered sequence numbers: the model's no longer apply
		}
		for range 400 {
			rd.step()
		}
		rd.check(what+", then changed and expired", rd.m, nil)
	}
	part := func(name string, b []byte, deltas ...[]byte) SnapshotPart {
		p := SnapshotPart{Name: name, R: bytes.NewReader(b)}
		for i, d := range deltas {
			p.Deltas = append(p.Deltas, SnapshotPart{Name: fmt.Sprintf("%s.delta.%d", name, i+1), R: bytes.NewReader(d)})
		}
		return p
	}
	check("version 1", []SnapshotPart{part("v1", v1)}, atBase, nowBase, nil)
	check("version 2", []SnapshotPart{part("v2", v2.Bytes())}, atBase, nowBase, nil)
	check("version 1 and a delta", []SnapshotPart{part("v1", v1, delta.Bytes())}, atDelta, nowDelta, nil)
	check("version 2 and a delta", []SnapshotPart{part("v2", v2.Bytes(), delta.Bytes())}, atDelta, nowDelta, nil)
	check("version 1 and two deltas", []SnapshotPart{part("v1", v1, delta.Bytes(), delta2.Bytes())}, atDelta2, nowDelta2, nil)
	check("version 2 and two deltas", []SnapshotPart{part("v2", v2.Bytes(), delta.Bytes(), delta2.Bytes())}, atDelta2, nowDelta2, nil)
	for p := range 2 {
		keep := KeyGroupFilter(p, 2, DefaultMaxParallelism, nil)
		check(fmt.Sprintf("version 1 and a delta, partition %d of 2", p), []SnapshotPart{part("v1", v1, delta.Bytes())}, atDelta, nowDelta, keep)
	}
	// Several parts (renumbered, through a WriteBatch): a version 1 chain
	// and another store's version 2 snapshot, whose keys differ. Every
	// record of both is there and expires once.
	o, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	ot := o.Table("t", TableOptions{})
	for i := range 50 {
		ot.Append([]byte(fmt.Sprint("z", i%17)), Record{Vals: randVals(rng), Expiry: int64(i % 7)})
	}
	osn, err := o.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var other bytes.Buffer
	if _, err := osn.WriteTo(&other); err != nil {
		t.Fatal(err)
	}
	r, err := Restore("", Options{MemoryBudget: 3000}, []SnapshotPart{part("v1", v1, delta.Bytes()), part("other", other.Bytes())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tab := r.Table("t", TableOptions{})
	want := atDelta.len() + 50
	if n := tab.Len(); n != want {
		t.Fatalf("%d records restored from two parts, want %d", n, want)
	}
	var noExp int64
	for _, rs := range atDelta.recs {
		for _, rec := range rs {
			if rec.Expiry == NoExpiry {
				noExp++
			}
		}
	}
	if n := tab.Expire(1<<40, nil); int64(n) != want-noExp {
		t.Fatalf("%d records expired, want %d", n, want-noExp)
	}
}

// Two records of a table with one sequence number and one expiry (a
// damaged part: sequence numbers are unique in a table) would be one index
// entry twice, on which Badger's StreamWriter panics: the restore refuses
// it as corruption, naming the part.
func TestSnapshotSequenceNumberTwice(t *testing.T) {
	s, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	tab.Append([]byte("a"), Record{Vals: randVals(rand.New(rand.NewPCG(1, 1))), Expiry: 50})
	tab.Append([]byte("b"), Record{Vals: randVals(rand.New(rand.NewPCG(2, 2))), Expiry: 50})
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if _, err := sn.WriteTo(&good); err != nil {
		t.Fatal(err)
	}
	// Rebuild the part with b's record numbered as a's (seq 0).
	var ents [][2][]byte
	if err := readPart(SnapshotPart{R: bytes.NewReader(good.Bytes())}, false, new(byte), func(_ uint64, k, v []byte) error {
		ents = append(ents, [2][]byte{k, v})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		t.Fatalf("%d entries, want 2", len(ents))
	}
	v := ents[1][1]
	if n, w := binary.Uvarint(v); n != 1 || w != 1 || v[1] != 1 {
		t.Fatalf("b's value does not begin with one record of seq 1: % x", v[:4])
	}
	v[1] = 0
	b := append([]byte(snapshotMagic), snapshotVersion)
	b = binary.AppendUvarint(b, uint64(len(formatVersion)))
	b = append(b, formatVersion...)
	for _, e := range ents {
		b = binary.AppendUvarint(b, uint64(len(e[0])))
		b = append(b, e[0]...)
		b = binary.AppendUvarint(b, uint64(len(e[1])))
		b = append(b, e[1]...)
	}
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, 2)
	for _, parts := range [][]SnapshotPart{
		{{Name: "op3.p0.state", R: bytes.NewReader(b)}},
		{{Name: "op3.p0.state", R: bytes.NewReader(b)}, {Name: "op3.p1.state", R: bytes.NewReader(good.Bytes())}},
	} {
		r, err := Restore("", Options{}, parts, nil)
		if err == nil {
			r.Close()
			if len(parts) == 1 {
				t.Fatal("a part with a sequence number twice was restored")
			}
			continue
		}
		if !strings.Contains(err.Error(), "op3.p0.state") || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("the error does not name the part and say what: %v", err)
		}
	}
	// The good part restores, and its records expire.
	r, err := Restore("", Options{}, []SnapshotPart{{Name: "good", R: bytes.NewReader(good.Bytes())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := r.Table("t", TableOptions{}).Expire(100, nil); n != 2 {
		t.Fatalf("%d records expired, want 2", n)
	}
}

// A table of a restored store takes what Restore counted of its keys
// (records, next sequence number, cold keys, least expiry) instead of
// reading them all back: the same as a scan of the directory finds.
func TestRestoredCountsAsScanned(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	s, err := Open("", Options{MemoryBudget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &snapDriver{t: t, rng: rng, m: &snapModel{recs: map[string][]Record{}, vals: map[string]mapVal{}}, nkeys: 200}
	d.open(s)
	for range 1500 {
		d.step()
	}
	for _, v1 := range []bool{false, true} {
		var b []byte
		if v1 {
			b = writeVersion1(t, s)
		} else {
			sn, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := sn.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			b = buf.Bytes()
		}
		dir := filepath.Join(t.TempDir(), "restored")
		// (A budget of 1: nothing is taken into the hot tier.)
		r, err := Restore(dir, Options{MemoryBudget: 1}, []SnapshotPart{{Name: "p", R: bytes.NewReader(b)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.restored) != 2 {
			t.Fatalf("version 1 %v: Restore counted %d tables, want 2", v1, len(r.restored))
		}
		type counts struct {
			rows, keys, cold int64
			seq              uint64
			minExp           int64
			noExp            bool
		}
		of := func(t *Table) counts {
			return counts{t.rows, t.coldKeys, int64(len(t.cold)), t.seq, t.coldMinExp, t.coldNoExp}
		}
		got := []counts{of(r.Table("t", TableOptions{})), of(NewMap(r, "m", BytesCodec{}, TableOptions{}).t)}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		o, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []counts{of(o.Table("t", TableOptions{})), of(NewMap(o, "m", BytesCodec{}, TableOptions{}).t)}
		o.Close()
		if got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("version 1 %v: restored %+v, scanned %+v", v1, got, want)
		}
		if got[0].rows != d.m.len() || got[0].minExp == math.MaxInt64 {
			t.Fatalf("version 1 %v: %+v for a table of %d records with expiries", v1, got[0], d.m.len())
		}
	}
}

// The arena of a deltaSet spans chunks: entries across several, and one
// larger than a chunk, read back as written.
func TestDeltaSetArenaChunks(t *testing.T) {
	ds := &deltaSet{}
	big := bytes.Repeat([]byte("v"), arenaChunk+10)
	var want [][2][]byte
	for i := range 30000 {
		k := []byte(fmt.Sprintf("dk%08d", i))
		v := bytes.Repeat([]byte{byte(i)}, i%300)
		if i == 12345 {
			v = big
		}
		ds.add(k, v, false, 0)
		want = append(want, [2][]byte{k, v})
	}
	if len(ds.arena) < 3 {
		t.Fatalf("%d chunks: the test needs several", len(ds.arena))
	}
	for i := range want {
		if k, v := ds.key(&ds.ents[i]), ds.val(&ds.ents[i]); !bytes.Equal(k, want[i][0]) || !bytes.Equal(v, want[i][1]) {
			t.Fatalf("entry %d: %q (%d bytes), want %q (%d bytes)", i, k, len(v), want[i][0], len(want[i][1]))
		}
	}
}

// When more keys went since the last snapshot than the store holds
// records, the next snapshot is whole (and small) instead of a delta of
// deletes; the chains of TestIncrementalSnapshotsAgainstModel still
// restore to the model when that happens after every few deletes.
func TestManyGoneMakesWholeSnapshot(t *testing.T) {
	defer func(a, e int) { untrackAfter, untrackEvery = a, e }(untrackAfter, untrackEvery)
	untrackAfter, untrackEvery = 100, 10
	s, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 1000 {
		tab.Append([]byte(fmt.Sprint("k", i)), Record{Vals: randVals(rng), Expiry: int64(i)})
	}
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sn.Release()
	// 400 of 1000 keys go: a delta. (Deleted: keys that expire are not
	// counted, see TestExpiryIsAHorizon.)
	deleteKeys := func(from, to int) {
		for i := from; i < to; i++ {
			if tab.Delete([]byte(fmt.Sprint("k", i))) != 1 {
				t.Fatalf("k%d: not deleted", i)
			}
		}
	}
	deleteKeys(0, 400)
	sn, err = s.SnapshotChanges()
	if err != nil {
		t.Fatal(err)
	}
	delta := sn.Delta()
	sn.Release()
	if !delta {
		t.Fatal("400 keys of 1000 gone: a whole snapshot")
	}
	// 500 of the 600 left go: whole.
	deleteKeys(400, 900)
	sn, err = s.SnapshotChanges()
	if err != nil {
		t.Fatal(err)
	}
	if sn.Delta() {
		sn.Release()
		t.Fatal("500 keys of 600 gone: a delta")
	}
	var b bytes.Buffer
	if _, err := sn.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := Restore("", Options{}, []SnapshotPart{{Name: "whole", R: bytes.NewReader(b.Bytes())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rt := r.Table("t", TableOptions{})
	if rt.Len() != 100 || !rt.Scan([]byte("k950"), func(*Record) (bool, bool) { return true, false }) ||
		rt.Scan([]byte("k899"), func(*Record) (bool, bool) { return true, false }) {
		t.Fatalf("restored %d records, want k900..k999", rt.Len())
	}
	// Tracking resumed: the next snapshot is a delta again.
	tab.Delete([]byte("k950"))
	sn, err = s.SnapshotChanges()
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Release()
	if !sn.Delta() {
		t.Fatal("after the whole snapshot, one delete: not a delta")
	}
	// The model test with the threshold low.
	untrackAfter, untrackEvery = 1, 1
	for seed := uint64(1); seed <= 2; seed++ {
		for _, budget := range []int64{1, -1} {
			t.Run(fmt.Sprintf("model/budget%d/seed%d", budget, seed), func(t *testing.T) { incrementalRun(t, budget, seed) })
		}
	}
}
