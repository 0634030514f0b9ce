package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// chainSnap is one snapshot of a chain: whole (a base) or incremental.
type chainSnap struct {
	taken
	delta bool
	base  int // index of the chain's base in the list of snapshots
	sn    *Snapshot
}

// countRecords counts the records of a written snapshot from its bytes
// (a deleted key of a delta counting one), for Snapshot.Records.
func countRecords(t *testing.T, tk *chainSnap) int64 {
	t.Helper()
	var n int64
	count := func(k, v []byte) error {
		if k[0] != 'd' {
			return nil
		}
		if v == nil {
			n++
			return nil
		}
		c, w := binary.Uvarint(v)
		if w <= 0 {
			return ErrCorrupt
		}
		n += int64(c)
		return nil
	}
	p := SnapshotPart{Name: "counted", R: bytes.NewReader(tk.buf.Bytes())}
	var err error
	if tk.delta {
		err = readDelta(p, nil, func(_ uint64, k, v []byte) error { return count(k, v) })
	} else {
		err = readPart(p, true, new(byte), func(_ uint64, k, v []byte) error { return count(k, v) })
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIncrementalSnapshotsAgainstModel drives a store with random appends,
// scans, deletes, Map puts and expiries (spilling or not), and takes
// snapshots at random steps: mostly incremental (SnapshotChanges), now and
// then a whole one, now and then one given up unwritten (a failed
// checkpoint: the next must be whole). Each is written from another
// goroutine, at once or later while the store keeps changing. Every
// snapshot is then restored from its chain (the base and the deltas up to
// it, in order), compared with the model as it was, changed further
// alongside a copy of the model (sequence numbers and the expiry index
// must have come back), and split among 3 partitions by key group.
func TestIncrementalSnapshotsAgainstModel(t *testing.T) {
	for _, budget := range []int64{1, 3000, -1} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("budget%d/seed%d", budget, seed), func(t *testing.T) {
				incrementalRun(t, budget, seed)
			})
		}
	}
}

func incrementalRun(t *testing.T, budget int64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	s, err := openTest(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &snapDriver{t: t, rng: rng, m: &snapModel{recs: map[string][]Record{}, vals: map[string]mapVal{}}, nkeys: 10 + rng.IntN(150)}
	d.open(s)
	var snaps []*chainSnap
	var wg sync.WaitGroup
	type later struct {
		at int
		sn *Snapshot
		tk *chainSnap
	}
	var waiting []later
	write := func(sn *Snapshot, tk *chainSnap) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, tk.err = sn.WriteTo(&tk.buf)
		}()
	}
	whole := true // the next snapshot must be whole (none yet, or one given up)
	deltas := 0
	const steps = 2500
	for step := 0; step < steps; step++ {
		d.step()
		waiting = slices.DeleteFunc(waiting, func(l later) bool {
			if l.at <= step {
				write(l.sn, l.tk)
				return true
			}
			return false
		})
		if rng.IntN(60) != 0 && step != steps-1 {
			continue
		}
		var sn *Snapshot
		if whole || rng.IntN(8) == 0 {
			sn, err = s.Snapshot()
		} else {
			sn, err = s.SnapshotChanges()
		}
		if err != nil {
			t.Fatal(err)
		}
		if !whole && rng.IntN(12) == 0 && step != steps-1 {
			sn.Release() // a checkpoint that failed: its changes are lost
			whole = true
			continue
		}
		whole = false
		if rows, want := s.Rows(), d.m.len()+int64(len(d.m.vals)); rows != want {
			t.Fatalf("step %d: Rows %d, the model holds %d records", step, rows, want)
		}
		tk := &chainSnap{taken: taken{step: step, m: d.m.clone(), now: d.now}, delta: sn.Delta(), sn: sn}
		tk.base = len(snaps)
		if tk.delta {
			deltas++
			tk.base = snaps[len(snaps)-1].base
		}
		snaps = append(snaps, tk)
		if rng.IntN(2) == 0 || step == steps-1 {
			write(sn, tk)
		} else {
			waiting = append(waiting, later{at: step + rng.IntN(200), sn: sn, tk: tk})
		}
	}
	for _, l := range waiting {
		write(l.sn, l.tk)
	}
	wg.Wait()
	if deltas == 0 {
		t.Fatal("no incremental snapshot was taken")
	}
	d.check("the live store", d.m, nil)
	chain := func(i int) SnapshotPart {
		p := SnapshotPart{Name: fmt.Sprintf("snapshot %d", snaps[i].base), R: bytes.NewReader(snaps[snaps[i].base].buf.Bytes())}
		for j := snaps[i].base + 1; j <= i; j++ {
			p.Deltas = append(p.Deltas, SnapshotPart{Name: fmt.Sprintf("delta %d", j), R: bytes.NewReader(snaps[j].buf.Bytes())})
		}
		return p
	}
	for i, tk := range snaps {
		if tk.err != nil {
			t.Fatal(tk.err)
		}
		if i > 0 && tk.delta && snaps[i-1].base != tk.base {
			t.Fatalf("snapshot %d: a delta after a snapshot of another chain", i)
		}
		got, want := tk.sn.Records(), countRecords(t, tk)
		if got != want {
			t.Fatalf("snapshot %d: Records %d, its bytes hold %d", i, got, want)
		}
		if !tk.delta && got != tk.m.len()+int64(len(tk.m.vals)) {
			t.Fatalf("snapshot %d (whole): Records %d, the model held %d records", i, got, tk.m.len()+int64(len(tk.m.vals)))
		}
	}
	for i, tk := range snaps {
		if i%2 == 1 && i != len(snaps)-1 {
			continue // (each restore opens a Badger database: half of them)
		}
		what := fmt.Sprintf("snapshot %d (step %d, %d deltas)", i, tk.step, i-tk.base)
		r, err := Restore(filepath.Join(t.TempDir(), "restored"), Options{MemoryBudget: budget}, []SnapshotPart{chain(i)}, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		rm := tk.m.clone()
		rm.seq = 0
		for _, rs := range rm.recs {
			for _, r := range rs {
				rm.seq = max(rm.seq, r.seq+1)
			}
		}
		rd := &snapDriver{t: t, rng: rand.New(rand.NewPCG(seed, uint64(i))), m: rm, now: tk.now, nkeys: d.nkeys}
		rd.open(r)
		rd.check(what+" restored", tk.m, nil)
		for range 300 {
			rd.step()
		}
		rd.check(what+" restored, then changed", rd.m, nil)
		// Everything expires, each record once (the derived index).
		rd.tab.Expire(NoExpiry-1, nil)
		if n := rd.tab.Len(); n != int64(countNoExpiry(rd.m)) {
			t.Fatalf("%s: after expiring all, %d records, the model %d without expiry", what, n, countNoExpiry(rd.m))
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The last chain split among 3 partitions by key group.
	last := len(snaps) - 1
	var total int64
	for part := range 3 {
		keep := KeyGroupFilter(part, 3, DefaultMaxParallelism, nil)
		r, err := Restore("", Options{MemoryBudget: budget}, []SnapshotPart{chain(last)}, keep)
		if err != nil {
			t.Fatal(err)
		}
		pd := &snapDriver{t: t, nkeys: d.nkeys}
		pd.open(r)
		pd.check(fmt.Sprintf("partition %d of 3", part), snaps[last].m, keep)
		total += pd.tab.Len()
		r.Close()
	}
	if total != snaps[last].m.len() {
		t.Fatalf("the partitions hold %d records, the snapshot %d", total, snaps[last].m.len())
	}
}

func countNoExpiry(m *snapModel) int {
	n := 0
	for _, rs := range m.recs {
		for _, r := range rs {
			if r.Expiry == NoExpiry {
				n++
			}
		}
	}
	return n
}

// An incremental snapshot holds what changed, not the state: after a few
// changes to a large state, it is a small fraction of a whole one.
func TestIncrementalSnapshotIsSmall(t *testing.T) {
	for _, budget := range []int64{1 << 10, -1} {
		s, err := openTest(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		tab := s.Table("t", TableOptions{})
		rng := rand.New(rand.NewPCG(1, 1))
		for i := range 5000 {
			tab.Append(fmt.Appendf(nil, "k%d", i), Record{Vals: randVals(rng), Expiry: int64(1000 + i)})
		}
		size := func(sn *Snapshot, err error) (int64, bool) {
			if err != nil {
				t.Fatal(err)
			}
			n, err := sn.WriteTo(&bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			return n, sn.Delta()
		}
		full, delta := size(s.SnapshotChanges()) // the first is whole
		if delta {
			t.Fatal("the first snapshot is incremental")
		}
		for i := range 50 {
			tab.Append(fmt.Appendf(nil, "k%d", i*7), Record{Vals: randVals(rng), Expiry: 5})
			tab.Delete(fmt.Appendf(nil, "k%d", 4000+i))
		}
		tab.Expire(1010, nil) // 11 keys, hot or spilled
		inc, delta := size(s.SnapshotChanges())
		if !delta || inc*20 > full {
			t.Fatalf("budget %d: after 111 changes of 5000 keys, the snapshot is incremental %v, %d bytes of the whole one's %d", budget, delta, inc, full)
		}
		empty, _ := size(s.SnapshotChanges())
		if empty > 32 {
			t.Fatalf("budget %d: a snapshot without changes takes %d bytes", budget, empty)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A delta cut anywhere or damaged is refused with an error naming it, or,
// if the damage is not detectable here (the checkpoint's checksum is what
// catches it), never panics.
func TestIncrementalSnapshotDamaged(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	tab := s.Table("t", TableOptions{})
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 30 {
		tab.Append([]byte(fmt.Sprint("k", i%9)), Record{Vals: randVals(rng), Expiry: int64(i)})
	}
	var base, delta bytes.Buffer
	sn, _ := s.Snapshot()
	if _, err := sn.WriteTo(&base); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		tab.Append([]byte(fmt.Sprint("k", i%13)), Record{Vals: randVals(rng), Expiry: int64(i + 40)})
	}
	tab.Delete([]byte("k3"))
	sn, _ = s.SnapshotChanges()
	if !sn.Delta() {
		t.Fatal("not incremental")
	}
	if _, err := sn.WriteTo(&delta); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b := delta.Bytes()
	restore := func(d []byte) (*Store, error) {
		return Restore("", Options{}, []SnapshotPart{{Name: "op3.p0.state", R: bytes.NewReader(base.Bytes()),
			Deltas: []SnapshotPart{{Name: "op3.p0.delta.1", R: bytes.NewReader(d)}}}}, nil)
	}
	for n := 0; n < len(b); n += 1 + n/8 {
		r, err := restore(b[:n])
		if err == nil {
			r.Close()
			t.Fatalf("a delta cut at %d of %d bytes was restored", n, len(b))
		}
		if !strings.Contains(err.Error(), "op3.p0.delta.1") {
			t.Fatalf("the error does not name the delta: %v", err)
		}
	}
	if r, err := restore(append(bytes.Clone(b), 0)); err == nil {
		r.Close()
		t.Error("a delta with a byte after its end was restored")
	}
	for range 20 {
		c := bytes.Clone(b)
		for range 1 + rng.IntN(3) {
			c[rng.IntN(len(c))] ^= byte(1 + rng.IntN(255))
		}
		r, err := restore(c)
		if err == nil {
			tb := r.Table("t", TableOptions{})
			for i := range 13 {
				tb.Scan([]byte(fmt.Sprint("k", i)), func(*Record) (bool, bool) { return true, false })
			}
			tb.Expire(1<<40, nil)
			r.Close()
		}
	}
	// The good delta restores.
	r, err := restore(b)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := r.Table("t", TableOptions{}).Scan([]byte("k3"), func(*Record) (bool, bool) { return true, false }); n {
		t.Error("k3, deleted in the delta, is back")
	}
}

// Deltas in version 1 (sorted, as the streamsql before wrote them) and 2
// (without expiry horizons) still restore, and one of version 1 out of
// order is refused; a key twice in one delta of version 3 (in no order) is
// refused, naming the delta.
func TestDeltaVersions(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 20 {
		tab.Append([]byte(fmt.Sprint("k", i)), Record{Vals: randVals(rng), Expiry: int64(i)})
	}
	var base, delta bytes.Buffer
	sn, _ := s.Snapshot()
	if _, err := sn.WriteTo(&base); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		tab.Append([]byte(fmt.Sprint("k", 29-i)), Record{Vals: randVals(rng), Expiry: int64(i + 40)})
	}
	tab.Delete([]byte("k3"))
	sn, _ = s.SnapshotChanges()
	if _, err := sn.WriteTo(&delta); err != nil {
		t.Fatal(err)
	}
	type kv struct{ k, v []byte }
	var ents []kv
	if err := readDelta(SnapshotPart{Name: "d", R: bytes.NewReader(delta.Bytes())}, nil, func(_ uint64, k, v []byte) error {
		ents = append(ents, kv{bytes.Clone(k), bytes.Clone(v)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	encode := func(version byte, ents []kv) []byte {
		b := append([]byte(deltaMagic), version)
		b = binary.AppendUvarint(b, uint64(len(formatVersion)))
		b = append(b, formatVersion...)
		if version >= 3 {
			b = binary.AppendUvarint(b, 0) // no expiry horizons
		}
		for _, e := range ents {
			b = binary.AppendUvarint(b, uint64(len(e.k)))
			b = append(b, e.k...)
			if e.v == nil {
				b = append(b, deltaDelete)
				continue
			}
			b = append(b, deltaPut)
			b = binary.AppendUvarint(b, uint64(len(e.v)))
			b = append(b, e.v...)
		}
		b = binary.AppendUvarint(b, 0)
		return binary.AppendUvarint(b, uint64(len(ents)))
	}
	restore := func(d []byte) (*Store, error) {
		return Restore("", Options{}, []SnapshotPart{{Name: "op3.p0.state", R: bytes.NewReader(base.Bytes()),
			Deltas: []SnapshotPart{{Name: "op3.p0.delta.1", R: bytes.NewReader(d)}}}}, nil)
	}
	check := func(what string, d []byte) {
		r, err := restore(d)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer r.Close()
		rt := r.Table("t", TableOptions{})
		if n, want := rt.Len(), tab.Len(); n != want {
			t.Fatalf("%s: %d records restored, want %d", what, n, want)
		}
		if rt.Scan([]byte("k3"), func(*Record) (bool, bool) { return true, false }) {
			t.Fatalf("%s: k3, deleted in the delta, is back", what)
		}
		if n := rt.Expire(1<<40, nil); n != int(tab.Len()) {
			t.Fatalf("%s: %d records expired, want %d", what, n, tab.Len())
		}
	}
	check("as written (version 3)", delta.Bytes())
	check("version 2", encode(2, ents))
	sorted := slices.Clone(ents)
	slices.SortFunc(sorted, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	if slices.EqualFunc(sorted, ents, func(a, b kv) bool { return bytes.Equal(a.k, b.k) }) {
		t.Fatal("the delta was written sorted: this test needs one in another order")
	}
	check("version 1, sorted", encode(1, sorted))
	if r, err := restore(encode(1, ents)); err == nil {
		r.Close()
		t.Fatal("a delta of version 1 out of order was restored")
	}
	twice := append(slices.Clone(ents), ents[len(ents)/2])
	r, err := restore(encode(deltaVersion, twice))
	if err == nil {
		r.Close()
		t.Fatal("a delta with a key twice was restored")
	}
	if !strings.Contains(err.Error(), "op3.p0.delta.1") || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("the error does not name the delta and say what: %v", err)
	}
}

// A key that expires whole is not named in the next delta: the delta
// carries the table's expiry horizon instead, and restoring drops the
// expired records from the values the chain held before it — but not
// from the delta's own values (a record appended after the Expire, due
// by then) nor from a key that changed otherwise before it expired (its
// older values held records that went another way). In memory and
// spilled (the blind delete, the cold rewrite, a timer's callback changing
// a Map value in Badger), the restored chain equals the live store, and
// the delta is a fraction of what expired.
func TestExpiryIsAHorizon(t *testing.T) {
	for _, budget := range []int64{-1, 1} {
		t.Run(fmt.Sprintf("budget%d", budget), func(t *testing.T) { horizonRun(t, budget) })
	}
}

func horizonRun(t *testing.T, budget int64) {
	s, err := openTest(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inner := s.Table("inner", TableOptions{BucketWidth: 16}) // expired without callback
	outer := s.Table("outer", TableOptions{BucketWidth: 16}) // with one
	mp := NewMap(s, "m", BytesCodec{}, TableOptions{BucketWidth: 16})
	rng := rand.New(rand.NewPCG(9, 9))
	var keys []string
	add := func(i int, exp ...int64) {
		k := fmt.Sprint("k", i)
		keys = append(keys, k)
		for _, e := range exp {
			inner.Append([]byte(k), Record{Vals: randVals(rng), Expiry: e})
			outer.Append([]byte(k), Record{Vals: randVals(rng), Expiry: e, Time: int64(i)})
		}
	}
	for i := range 1000 {
		switch {
		case i < 10:
			add(i, int64(i), int64(i)+2000) // expires in part
		default:
			add(i, int64(i))
		}
	}
	for i := range 50 {
		k := []byte(fmt.Sprint("k", i))
		mp.Put(k, []byte(fmt.Sprint("v", i)), 5000)
		mp.AddTimer(k, int64(i*20))
	}
	// k1000 holds two records: one goes by a Scan, the other expires.
	add(1000, 100, 3000)
	var parts []*bytes.Buffer
	take := func(delta bool) *Snapshot {
		t.Helper()
		var sn *Snapshot
		var err error
		if delta {
			sn, err = s.SnapshotChanges()
		} else {
			sn, err = s.Snapshot()
		}
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := sn.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		if sn.Delta() != delta {
			t.Fatalf("a delta: %v, want %v", sn.Delta(), delta)
		}
		parts = append(parts, &b)
		return sn
	}
	take(false)
	for _, tab := range []*Table{inner, outer} {
		tab.Scan([]byte("k1000"), func(r *Record) (bool, bool) { return r.Expiry != 3000, false })
	}
	inner.Expire(899, nil)
	heard := 0
	outer.Expire(899, func([]byte, *Record) { heard++ })
	if heard != 901 { // k0..k899's first records and k1000's
		t.Fatalf("the callback heard of %d records", heard)
	}
	fired := 0
	mp.Expire(899, func(_ []byte, v []byte) { v[0] = 'F'; fired++ })
	if fired != 45 {
		t.Fatalf("%d timers fired, want 45", fired)
	}
	// Due by the horizon already, appended after the Expire: it stays.
	add(2000, 899)
	sn := take(true)
	// Expired whole: 890 keys of each table. Named: the 10 keys expired in
	// part, k1000 (changed before it expired) and k2000 in both tables,
	// and the 45 map keys whose timer fired.
	if n := sn.Records(); n > 2*(10*2+1+1)+45 {
		t.Fatalf("the delta holds %d records: the keys that expired whole are in it", n)
	}
	// Another delta: the first's values are due by its horizon.
	add(2001, 950)
	inner.Expire(960, nil)
	outer.Expire(960, func([]byte, *Record) {})
	mp.Expire(960, func(_ []byte, v []byte) { v[0] = 'G' })
	take(true)

	check := func(what string, upTo int) {
		t.Helper()
		p := SnapshotPart{Name: "base", R: bytes.NewReader(parts[0].Bytes())}
		for i := 1; i <= upTo; i++ {
			p.Deltas = append(p.Deltas, SnapshotPart{Name: fmt.Sprint("delta ", i), R: bytes.NewReader(parts[i].Bytes())})
		}
		r, err := Restore(filepath.Join(t.TempDir(), "restored"), Options{MemoryBudget: budget}, []SnapshotPart{p}, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer r.Close()
		for _, name := range []string{"inner", "outer"} {
			live, got := s.Table(name, TableOptions{}), r.Table(name, TableOptions{})
			for _, k := range keys {
				var a, b []Record
				live.Scan([]byte(k), func(r *Record) (bool, bool) { a = append(a, *r); return true, false })
				got.Scan([]byte(k), func(r *Record) (bool, bool) { b = append(b, *r); return true, false })
				if !slices.EqualFunc(a, b, func(x, y Record) bool { return sameRecord(&x, &y) }) {
					t.Fatalf("%s: %s %s: %d records restored, %d live (%v, live %v)", what, name, k, len(b), len(a), b, a)
				}
			}
			if got.Len() != live.Len() {
				t.Fatalf("%s: %s: Len %d, live %d", what, name, got.Len(), live.Len())
			}
		}
		rm := NewMap(r, "m", BytesCodec{}, TableOptions{})
		for i := range 50 {
			k := []byte(fmt.Sprint("k", i))
			a, okA := mp.Get(k)
			b, okB := rm.Get(k)
			if okA != okB || !bytes.Equal(a, b) {
				t.Fatalf("%s: map %s = %q (%v), live %q (%v)", what, k, b, okB, a, okA)
			}
		}
		if rm.Len() != mp.Len() {
			t.Fatalf("%s: map Len %d, live %d", what, rm.Len(), mp.Len())
		}
	}
	check("the base and both deltas", 2)
	// The first delta: the store went on since, so compare with what it
	// held then: k0..k9's later records, k900..k999, and k2000 (due by
	// the first horizon, appended after it); k1000 went whole.
	p := SnapshotPart{Name: "base", R: bytes.NewReader(parts[0].Bytes()),
		Deltas: []SnapshotPart{{Name: "delta 1", R: bytes.NewReader(parts[1].Bytes())}}}
	r, err := Restore(filepath.Join(t.TempDir(), "first"), Options{MemoryBudget: budget}, []SnapshotPart{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"inner", "outer"} {
		rt := r.Table(name, TableOptions{})
		var exps []int64
		for _, k := range []string{"k5", "k500", "k950", "k1000", "k2000"} {
			rt.Scan([]byte(k), func(r *Record) (bool, bool) { exps = append(exps, r.Expiry); return true, false })
		}
		if want := []int64{2005, 950, 899}; !slices.Equal(exps, want) {
			t.Fatalf("%s after the first delta: the expiries of k5 k500 k950 k1000 k2000 are %v, want %v", name, exps, want)
		}
		if n := rt.Len(); n != 10+100+1 {
			t.Fatalf("%s after the first delta: %d records, want 111", name, n)
		}
	}
	rm := NewMap(r, "m", BytesCodec{}, TableOptions{})
	for i := range 50 {
		want := fmt.Sprint("v", i)
		if i*20 <= 899 {
			want = "F" + want[1:]
		}
		if v, ok := rm.Get([]byte(fmt.Sprint("k", i))); !ok || string(v) != want {
			t.Fatalf("map k%d after the first delta: %q (%v), want %q", i, v, ok, want)
		}
	}
}
