package state

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// snapModel is the plain-map reference for a store with a multimap table
// "t" and a Map "m".
type snapModel struct {
	recs map[string][]Record
	seq  uint64
	vals map[string]mapVal
}

type mapVal struct {
	v   []byte
	exp int64
}

func (m *snapModel) clone() *snapModel {
	c := &snapModel{recs: map[string][]Record{}, seq: m.seq, vals: map[string]mapVal{}}
	for k, rs := range m.recs {
		c.recs[k] = slices.Clone(rs)
	}
	for k, v := range m.vals {
		c.vals[k] = mapVal{bytes.Clone(v.v), v.exp}
	}
	return c
}

func (m *snapModel) len() int64 {
	n := 0
	for _, rs := range m.recs {
		n += len(rs)
	}
	return int64(n)
}

// snapDriver applies the same random operations to a store and a model.
type snapDriver struct {
	t     *testing.T
	rng   *rand.Rand
	s     *Store
	tab   *Table
	mp    *Map[[]byte]
	m     *snapModel
	now   int64
	nkeys int
}

func (d *snapDriver) open(s *Store) {
	d.s = s
	d.tab = s.Table("t", TableOptions{BucketWidth: 16})
	d.mp = NewMap(s, "m", BytesCodec{}, TableOptions{BucketWidth: 16})
}

func (d *snapDriver) key() string { return fmt.Sprintf("k%d", d.rng.IntN(d.nkeys)) }

func (d *snapDriver) exp() int64 {
	if d.rng.IntN(6) == 0 {
		return NoExpiry
	}
	return d.now + int64(d.rng.IntN(300))
}

func (d *snapDriver) step() {
	rng, m := d.rng, d.m
	switch op := rng.IntN(12); {
	case op < 4:
		k := d.key()
		r := Record{Vals: randVals(rng), Count: 1, Time: rng.Int64N(100), Expiry: d.exp(), Flags: uint32(rng.IntN(3))}
		d.tab.Append([]byte(k), r)
		r.seq = m.seq
		m.seq++
		m.recs[k] = append(m.recs[k], r)
	case op < 6: // change records in place, drop some
		k := d.key()
		drop := rng.IntN(3)
		i := 0
		d.tab.Scan([]byte(k), func(r *Record) (bool, bool) {
			r.Count++
			r.Matches += 2
			keep := i%3 != drop
			i++
			return keep, false
		})
		var kept []Record
		for j, r := range m.recs[k] {
			r.Count++
			r.Matches += 2
			if j%3 != drop {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			delete(m.recs, k)
		} else {
			m.recs[k] = kept
		}
	case op < 7:
		k := d.key()
		d.tab.Delete([]byte(k))
		delete(m.recs, k)
	case op < 9:
		k := d.key()
		v := []byte(fmt.Sprintf("v%d-%s", rng.IntN(1000), strings.Repeat("x", rng.IntN(20))))
		e := d.exp()
		d.mp.Put([]byte(k), v, e)
		m.vals[k] = mapVal{v, e}
	case op < 10:
		k := d.key()
		d.mp.Delete([]byte(k))
		delete(m.vals, k)
	default:
		d.now += int64(rng.IntN(30))
		d.tab.Expire(d.now, nil)
		d.mp.Expire(d.now, nil)
		for k, rs := range m.recs {
			rs = slices.DeleteFunc(rs, func(r Record) bool { return r.Expiry <= d.now })
			if len(rs) == 0 {
				delete(m.recs, k)
			} else {
				m.recs[k] = rs
			}
		}
		for k, v := range m.vals {
			if v.exp <= d.now {
				delete(m.vals, k)
			}
		}
	}
	if err := d.s.Err(); err != nil {
		d.t.Fatal(err)
	}
}

// check compares the store with the model, key by key, for the keys keep
// accepts.
func (d *snapDriver) check(what string, m *snapModel, keep func(string, []byte) bool) {
	t := d.t
	t.Helper()
	var wantLen int64
	for i := 0; i < d.nkeys; i++ {
		k := fmt.Sprintf("k%d", i)
		var want []Record
		if keep == nil || keep("t", []byte(k)) {
			want = m.recs[k]
		}
		wantLen += int64(len(want))
		var got []Record
		d.tab.Scan([]byte(k), func(r *Record) (bool, bool) { got = append(got, *r); return true, false })
		if len(got) != len(want) {
			t.Fatalf("%s: key %s has %d records, the model %d", what, k, len(got), len(want))
		}
		for j := range got {
			if !sameRecord(&got[j], &want[j]) {
				t.Fatalf("%s: key %s record %d: %s, the model %s", what, k, j, fmtRec(&got[j]), fmtRec(&want[j]))
			}
		}
		mv, inModel := m.vals[k]
		inModel = inModel && (keep == nil || keep("m", []byte(k)))
		v, ok := d.mp.Get([]byte(k))
		if ok != inModel || ok && !bytes.Equal(v, mv.v) {
			t.Fatalf("%s: map key %s = %q (%v), the model %q (%v)", what, k, v, ok, mv.v, inModel)
		}
	}
	if d.tab.Len() != wantLen {
		t.Fatalf("%s: Len %d, the model %d", what, d.tab.Len(), wantLen)
	}
}

// snapshotBytes takes a whole snapshot of s and writes it out.
func snapshotBytes(t *testing.T, s *Store) []byte {
	t.Helper()
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := sn.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type taken struct {
	step int
	m    *snapModel
	now  int64
	buf  bytes.Buffer
	err  error
}

// TestSnapshotRestoreAgainstModel takes snapshots at random steps, writes
// each from another goroutine while the store keeps changing, restores
// each into a new store and compares it with the model as it was at the
// snapshot; then keeps changing the restored store and the model alike
// (sequence numbers and the expiry index must have come back too).
func TestSnapshotRestoreAgainstModel(t *testing.T) {
	for _, budget := range []int64{1, 3000, -1} {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("budget%d/seed%d", budget, seed), func(t *testing.T) {
				snapshotRun(t, budget, seed)
			})
		}
	}
}

func snapshotRun(t *testing.T, budget int64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	s, err := openTest(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &snapDriver{t: t, rng: rng, m: &snapModel{recs: map[string][]Record{}, vals: map[string]mapVal{}}, nkeys: 10 + rng.IntN(80)}
	d.open(s)
	var snaps []*taken
	var wg sync.WaitGroup
	// A snapshot's writing starts at once, or only some steps later (or
	// at the next snapshot): the store changes its frozen hot keys
	// before the writer gets to them, and must hand it them as they were.
	type later struct {
		at int
		sn *Snapshot
		tk *taken
	}
	var waiting []later
	write := func(sn *Snapshot, tk *taken) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, tk.err = sn.WriteTo(&tk.buf)
		}()
	}
	for step := 0; step < 1500; step++ {
		d.step()
		waiting = slices.DeleteFunc(waiting, func(l later) bool {
			if l.at <= step {
				write(l.sn, l.tk)
				return true
			}
			return false
		})
		if rng.IntN(300) == 0 || step == 1499 {
			sn, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			tk := &taken{step: step, m: d.m.clone(), now: d.now}
			snaps = append(snaps, tk)
			if rng.IntN(2) == 0 || step == 1499 {
				write(sn, tk)
			} else {
				waiting = append(waiting, later{at: step + rng.IntN(600), sn: sn, tk: tk})
			}
		}
	}
	for _, l := range waiting {
		write(l.sn, l.tk)
	}
	wg.Wait()
	d.check("the live store", d.m, nil)
	for i, tk := range snaps {
		if tk.err != nil {
			t.Fatal(tk.err)
		}
		what := fmt.Sprintf("snapshot %d (step %d)", i, tk.step)
		r, err := Restore(filepath.Join(t.TempDir(), "restored"), Options{MemoryBudget: budget},
			[]SnapshotPart{{Name: what, R: bytes.NewReader(tk.buf.Bytes())}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		// A restored table numbers new records after its highest (as a
		// reopened one does): the order of old and new is kept.
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
		for range 400 {
			rd.step()
		}
		rd.check(what+" restored, then changed", rd.m, nil)
		// A snapshot of the restored store holds its keys, those Restore
		// kept in the hot tier (never written to Badger) too.
		again := snapshotBytes(t, r)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		r2, err := Restore("", Options{MemoryBudget: budget}, []SnapshotPart{{Name: what + " again", R: bytes.NewReader(again)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		what2 := what + " restored, changed, snapshotted and restored"
		m2 := rd.m.clone()
		m2.seq = 0
		for _, rs := range m2.recs {
			for _, r := range rs {
				m2.seq = max(m2.seq, r.seq+1)
			}
		}
		rd2 := &snapDriver{t: t, rng: rand.New(rand.NewPCG(seed, uint64(i)+1000)), m: m2, now: rd.now, nkeys: d.nkeys}
		rd2.open(r2)
		rd2.check(what2, rd.m, nil)
		for range 200 {
			rd2.step()
		}
		rd2.check(what2+", then changed", rd2.m, nil)
		if err := r2.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The last snapshot split among 3 partitions by key group: each holds
	// its keys, and together all of them.
	last := snaps[len(snaps)-1]
	var total int64
	for part := range 3 {
		keep := KeyGroupFilter(part, 3, DefaultMaxParallelism, nil)
		r, err := Restore("", Options{MemoryBudget: budget}, []SnapshotPart{{Name: "last", R: bytes.NewReader(last.buf.Bytes())}}, keep)
		if err != nil {
			t.Fatal(err)
		}
		pd := &snapDriver{t: t, nkeys: d.nkeys}
		pd.open(r)
		pd.check(fmt.Sprintf("partition %d of 3", part), last.m, keep)
		total += pd.tab.Len()
		r.Close()
	}
	if total != last.m.len() {
		t.Fatalf("the partitions hold %d records, the snapshot %d", total, last.m.len())
	}
}

// A snapshot cut anywhere is refused with an error naming the part, and
// damaged bytes never panic.
func TestSnapshotDamaged(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	tab := s.Table("t", TableOptions{})
	for i := range 20 {
		tab.Append([]byte(fmt.Sprint("k", i%7)), Record{Vals: randVals(rand.New(rand.NewPCG(uint64(i), 1))), Expiry: int64(i)})
	}
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := sn.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b := buf.Bytes()
	// Every cut in the header and the first entries, then a sample
	// (each restore opens a Badger database: every cut would take long).
	var cuts []int
	for n := 0; n < len(b); n++ {
		if n < 48 || n%17 == 0 || n == len(b)-1 {
			cuts = append(cuts, n)
		}
	}
	for _, n := range cuts {
		r, err := Restore("", Options{}, []SnapshotPart{{Name: "op3.p0.state", R: bytes.NewReader(b[:n])}}, nil)
		if err == nil {
			r.Close()
			t.Fatalf("a snapshot cut at %d of %d bytes was restored", n, len(b))
		}
		if !strings.Contains(err.Error(), "op3.p0.state") {
			t.Fatalf("the error does not name the part: %v", err)
		}
	}
	if _, err := Restore("", Options{}, []SnapshotPart{{Name: "x", R: bytes.NewReader(append(bytes.Clone(b), 0))}}, nil); err == nil {
		t.Error("a snapshot with a byte after its end was restored")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for range 40 {
		c := bytes.Clone(b)
		for range 1 + rng.IntN(3) {
			c[rng.IntN(len(c))] ^= byte(1 + rng.IntN(255))
		}
		r, err := Restore("", Options{}, []SnapshotPart{{Name: "x", R: bytes.NewReader(c)}}, nil)
		if err == nil {
			// Undetected here (the checkpoint's checksum catches it):
			// the store still must not panic when read.
			tb := r.Table("t", TableOptions{})
			for i := range 7 {
				tb.Scan([]byte(fmt.Sprint("k", i)), func(*Record) (bool, bool) { return true, false })
			}
			tb.Expire(1<<40, nil)
			r.Close()
		}
	}
	// Restoring into a directory that holds something is refused.
	dir := t.TempDir()
	s2, _ := Open(dir, Options{})
	s2.Close()
	if _, err := Restore(dir, Options{}, nil, nil); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("restore into a used directory: %v", err)
	}
}

func TestKeyGroups(t *testing.T) {
	const maxP = DefaultMaxParallelism
	counts := make([]int, maxP)
	for i := range 100_000 {
		counts[KeyGroup(fmt.Appendf(nil, "key-%d", i), maxP)]++
	}
	for kg, n := range counts {
		if n < 500 || n > 1100 { // 781 expected
			t.Errorf("key group %d has %d of 100000 keys", kg, n)
		}
	}
	for _, p := range []int{1, 2, 3, 7, 64, 128} {
		owned := make([]int, p)
		prev := 0
		for kg := range maxP {
			part := KeyGroupPartition(kg, p, maxP)
			if part < prev || part >= p {
				t.Fatalf("p=%d: key group %d goes to %d after %d", p, kg, part, prev)
			}
			prev = part
			owned[part]++
		}
		for part, n := range owned {
			if n < maxP/p || n > maxP/p+1 {
				t.Errorf("p=%d: partition %d owns %d key groups", p, part, n)
			}
		}
	}
}

// A snapshot being written sees the state as it was, even when an expiry
// then removes every record from Badger (which it would otherwise do with
// one DropPrefix, removing data the snapshot's view still reads).
func TestSnapshotSurvivesExpiry(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "live"), Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	for i := range 500 {
		tab.Append([]byte(fmt.Sprint("k", i)), Record{Vals: randVals(rand.New(rand.NewPCG(uint64(i), 2))), Expiry: 10})
	}
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if n := tab.Expire(100, nil); n != 500 {
		t.Fatalf("expired %d of 500", n)
	}
	var buf bytes.Buffer
	if _, err := sn.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Restore("", Options{}, []SnapshotPart{{Name: "x", R: &buf}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := r.Table("t", TableOptions{}).Len(); n != 500 {
		t.Fatalf("the snapshot holds %d of the 500 records", n)
	}
}

// Stores restored from several snapshots into one (a job restarted at a
// lower parallelism) get every record of each, and every record still
// expires, in its key's order: each store numbered its records from 0, and
// records of two stores with one expiry and one number must not become
// one index entry (one of them would never expire: a window never fired).
// Each store's snapshot is a chain: a base with half its keys and a delta
// with the rest, whose index entries the restore derives.
func TestRestoreSeveralSnapshotsExpiresAll(t *testing.T) {
	const parts, keys = 3, 400
	var snaps []SnapshotPart
	want := map[string][]int64{} // key -> its records' Time, in order
	for p := range parts {
		// Budget 1: every record is in Badger, with an index entry.
		s, err := Open(filepath.Join(t.TempDir(), fmt.Sprint("p", p)), Options{MemoryBudget: 1})
		if err != nil {
			t.Fatal(err)
		}
		tab := s.Table("t", TableOptions{})
		m := NewMap(s, "m", BytesCodec{}, TableOptions{})
		write := func(sn *Snapshot, err error) *bytes.Buffer {
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := sn.WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			return &buf
		}
		var base *bytes.Buffer
		for i := range keys {
			if i == keys/2 {
				base = write(s.Snapshot())
			}
			k := fmt.Sprintf("p%d-k%d", p, i)
			for j := range 2 {
				// The same expiries, the same seqs in every store.
				tab.Append([]byte(k), Record{Vals: randVals(rand.New(rand.NewPCG(uint64(i), 3))), Time: int64(j), Expiry: int64(10 + i%5)})
				want[k] = append(want[k], int64(j))
			}
			m.Put([]byte(k), []byte(k), int64(10+i%5))
		}
		delta := write(s.SnapshotChanges())
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, SnapshotPart{Name: fmt.Sprint("part ", p), R: base,
			Deltas: []SnapshotPart{{Name: fmt.Sprint("part ", p, " delta"), R: delta}}})
	}
	r, err := Restore(filepath.Join(t.TempDir(), "merged"), Options{MemoryBudget: 1}, snaps, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tab := r.Table("t", TableOptions{})
	m := NewMap(r, "m", BytesCodec{}, TableOptions{})
	if n := tab.Len(); n != parts*keys*2 {
		t.Fatalf("restored %d records, want %d", n, parts*keys*2)
	}
	got := map[string][]int64{}
	n := tab.Expire(100, func(key []byte, rec *Record) { got[string(key)] = append(got[string(key)], rec.Time) })
	if n != parts*keys*2 || len(got) != len(want) {
		t.Fatalf("expired %d records of %d keys, want %d of %d", n, len(got), parts*keys*2, len(want))
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Fatalf("key %s expired records %v, want %v (in order)", k, got[k], w)
		}
	}
	vals := 0
	m.Expire(100, func(key []byte, v []byte) {
		if string(key) != string(v) {
			t.Errorf("map key %s holds %s", key, v)
		}
		vals++
	})
	if vals != parts*keys {
		t.Fatalf("expired %d map values, want %d", vals, parts*keys)
	}
}

// keysSnapshot snapshots a store holding the keys k%05d of i = from,
// from+step, ... below n, each a record of random values expiring at i: it
// returns what they took in the hot tier and the snapshot's bytes.
func keysSnapshot(t *testing.T, from, step, n int) (int64, []byte) {
	t.Helper()
	s, err := Open("", Options{MemoryBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("t", TableOptions{})
	for i := from; i < n; i += step {
		tab.Append([]byte(fmt.Sprintf("k%05d", i)), Record{Vals: randVals(rand.New(rand.NewPCG(uint64(i), 1))), Expiry: int64(i)})
	}
	return s.MemBytes(), snapshotBytes(t, s)
}

// A state whose snapshot says it is larger than the budget is restored to
// Badger alone (hotRoom); one that fits is restored to memory alone. Either
// way every key reads back, and the restore's working set leaves the Go
// limit when Restore returns.
func TestRestoreHotOnlyWhenItFits(t *testing.T) {
	const keys = 2000
	full, b := keysSnapshot(t, 0, 1, keys)
	memLimit.Lock()
	restoring := memLimit.restoring
	memLimit.Unlock()
	for _, c := range []struct {
		budget int64
		hot    int
	}{
		{full / 2, 0},    // it does not fit: nothing hot
		{full * 2, keys}, // it fits: all but the sample
		{-1, keys},       // no budget: all of it
	} {
		r, err := Restore(filepath.Join(t.TempDir(), "r"), Options{MemoryBudget: c.budget}, []SnapshotPart{{Name: "p", R: bytes.NewReader(b), Size: int64(len(b))}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		memLimit.Lock()
		left := memLimit.restoring - restoring
		memLimit.Unlock()
		if left != 0 {
			t.Fatalf("budget %d: %d bytes of the restore left in the Go limit", c.budget, left)
		}
		rt := r.Table("t", TableOptions{})
		// The sample decides: about 1/256 of the bytes, at least 4 KiB
		// (an entry is about as large on disk as the average).
		hot, sample := r.Stats().RestoredHot, int64(0)
		if c.budget > 0 && c.hot > 0 {
			sample = 2 * int64(keys) * 4 << 10 / int64(len(b))
		}
		if hot > int64(c.hot) || hot < int64(c.hot)-sample-1 {
			t.Fatalf("budget %d (the state %d bytes in memory, %d on disk): %d keys restored hot, want %d less a sample of %d", c.budget, full, len(b), hot, c.hot, sample)
		}
		if c.budget > 0 && r.MemBytes() > c.budget {
			t.Fatalf("budget %d: the hot tier counts %d bytes", c.budget, r.MemBytes())
		}
		for i := range keys {
			n := 0
			rt.Scan([]byte(fmt.Sprintf("k%05d", i)), func(*Record) (bool, bool) { n++; return true, false })
			if n != 1 {
				t.Fatalf("budget %d: key %d has %d records", c.budget, i, n)
			}
		}
		r.Close()
	}
}

// Parts restored into one store (a lower parallelism) share the budget's
// room: together they take no more than it.
func TestRestorePartsShareTheRoom(t *testing.T) {
	var parts [][]byte
	var full int64
	for p := range 2 {
		n, b := keysSnapshot(t, p, 2, 2000)
		full += n
		parts = append(parts, b)
	}
	budget := full / 2
	r, err := Restore("", Options{MemoryBudget: budget}, []SnapshotPart{
		{Name: "p0", R: bytes.NewReader(parts[0])}, {Name: "p1", R: bytes.NewReader(parts[1])}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rt := r.Table("t", TableOptions{})
	if hot := r.Stats().RestoredHot; hot == 0 || hot >= 1000 {
		t.Fatalf("%d of 2000 keys restored hot from two parts with a quarter of each one's room", hot)
	}
	if r.MemBytes() > budget {
		t.Fatalf("two parts restored %d bytes into the hot tier against a budget of %d", r.MemBytes(), budget)
	}
	if rt.Len() != 2000 {
		t.Fatalf("Len %d, want 2000", rt.Len())
	}
}

// Restore keeps keys in the hot tier while they fit 7/8 of the budget and
// writes the rest to Badger: a store restored with a budget of about half
// its state holds part of it hot and part cold, counts it against the
// budget, and reads, expires and snapshots all of it.
func TestRestoreSplitsHotAndCold(t *testing.T) {
	const keys = 2000
	full, b := keysSnapshot(t, 0, 1, keys)
	budget := full / 2
	r, err := Restore(filepath.Join(t.TempDir(), "r"), Options{MemoryBudget: budget}, []SnapshotPart{{Name: "p", R: bytes.NewReader(b)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rt := r.Table("t", TableOptions{})
	hot := r.Stats().RestoredHot
	if hot == 0 || hot >= keys {
		t.Fatalf("%d of %d keys restored hot with half the budget they took", hot, keys)
	}
	if r.MemBytes() > budget || r.MemBytes() < budget/2 {
		t.Fatalf("the restored hot tier counts %d bytes against a budget of %d", r.MemBytes(), budget)
	}
	if rt.Len() != keys {
		t.Fatalf("Len %d, want %d", rt.Len(), keys)
	}
	again := snapshotBytes(t, r)
	// Every key reads back, hot or cold, with its values.
	for i := range keys {
		n := 0
		want := randVals(rand.New(rand.NewPCG(uint64(i), 1)))
		rt.Scan([]byte(fmt.Sprintf("k%05d", i)), func(rec *Record) (bool, bool) {
			n++
			if fmt.Sprint(rec.Vals) != fmt.Sprint(want) || rec.Expiry != int64(i) {
				t.Fatalf("key %d: %v expiring at %d, want %v at %d", i, rec.Vals, rec.Expiry, want, i)
			}
			return true, false
		})
		if n != 1 {
			t.Fatalf("key %d: %d records", i, n)
		}
	}
	// Expiry finds hot and cold records alike, in order.
	var got []int64
	if n := rt.Expire(keys/2-1, func(_ []byte, rec *Record) { got = append(got, rec.Expiry) }); n != keys/2 {
		t.Fatalf("%d records expired up to %d, want %d", n, keys/2-1, keys/2)
	}
	if !slices.IsSorted(got) || len(got) != keys/2 {
		t.Fatalf("expired %d records, sorted %v", len(got), slices.IsSorted(got))
	}
	// The snapshot of the restored store holds all of it.
	r2, err := Restore("", Options{MemoryBudget: 1}, []SnapshotPart{{Name: "again", R: bytes.NewReader(again)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if n := r2.Table("t", TableOptions{}).Expire(keys, nil); n != keys {
		t.Fatalf("the snapshot of the restored store expired %d records, want %d", n, keys)
	}
}

// A table Restore took keys into the hot tier for must be opened before a
// snapshot: else the snapshot would leave them out, silently.
func TestRestoreUnopenedTableRefusesSnapshot(t *testing.T) {
	s, err := Open("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Table("a", TableOptions{}).Append([]byte("k"), Record{Count: 1})
	s.Table("b", TableOptions{}).Append([]byte("k"), Record{Count: 2})
	r, err := Restore("", Options{}, []SnapshotPart{{Name: "p", R: bytes.NewReader(snapshotBytes(t, s))}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Table("a", TableOptions{})
	if _, err := r.Snapshot(); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("a snapshot with table b never opened: %v", err)
	}
	r.Table("b", TableOptions{})
	sn, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sn.Release()
}
