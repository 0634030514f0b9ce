package state

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/row"
)

// The model: a plain Go map of record lists.
type model struct {
	recs map[string][]Record
	seq  uint64
}

func newModel() *model { return &model{recs: map[string][]Record{}} }

func (m *model) len() int64 {
	n := 0
	for _, rs := range m.recs {
		n += len(rs)
	}
	return int64(n)
}

func (m *model) reopen() {
	m.seq = 0
	for _, rs := range m.recs {
		for _, r := range rs {
			m.seq = max(m.seq, r.seq+1)
		}
	}
}

type expired struct {
	key string
	rec Record
}

func (m *model) expire(upTo int64) []expired {
	if upTo >= NoExpiry {
		upTo = NoExpiry - 1
	}
	var out []expired
	for k, rs := range m.recs {
		kept := rs[:0]
		for _, r := range rs {
			if r.Expiry <= upTo {
				out = append(out, expired{k, r})
			} else {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			delete(m.recs, k)
		} else {
			m.recs[k] = kept
		}
	}
	slices.SortFunc(out, func(a, b expired) int {
		if a.rec.Expiry != b.rec.Expiry {
			return cmpInt(a.rec.Expiry, b.rec.Expiry)
		}
		return cmpInt(int64(a.rec.seq), int64(b.rec.seq))
	})
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func randValue(r *rand.Rand) row.Value {
	switch r.IntN(6) {
	case 0:
		return row.NullValue
	case 1:
		return row.IntValue(r.Int64N(1000) - 500)
	case 2:
		return row.IntValue(int64(r.Uint64()))
	case 3:
		return row.FloatValue(r.NormFloat64())
	case 4:
		return row.StrValue("")
	default:
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return row.StrValue(string(b))
	}
}

func randVals(r *rand.Rand) []row.Value {
	v := make([]row.Value, r.IntN(5))
	for i := range v {
		v[i] = randValue(r)
	}
	return v
}

func sameRecord(a, b *Record) bool {
	if a.Count != b.Count || a.Matches != b.Matches || a.Time != b.Time || a.Expiry != b.Expiry ||
		a.Flags != b.Flags || a.seq != b.seq || len(a.Vals) != len(b.Vals) {
		return false
	}
	for i := range a.Vals {
		if !a.Vals[i].Equal(b.Vals[i]) {
			return false
		}
	}
	return true
}

func fmtRec(r *Record) string {
	return fmt.Sprintf("{seq %d exp %d c %d m %d t %d f %d %v}", r.seq, r.Expiry, r.Count, r.Matches, r.Time, r.Flags, r.Vals)
}

// scanAction is what a Scan callback does with one record.
type scanAction struct {
	keep, stop bool
	count      int64
	expiry     int64 // 0: unchanged
	flags      uint32
}

func apply(r *Record, a scanAction) {
	r.Count += a.count
	r.Matches += a.count * 2
	r.Flags ^= a.flags
	if a.expiry != 0 {
		r.Expiry = a.expiry
	}
}

// runModel drives a table and the model with the same random operations
// and fails at the first observable difference.
func runModel(t *testing.T, seed uint64, budget int64, steps int, reopen bool) Stats {
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := ""
	if reopen {
		dir = t.TempDir()
	}
	open := func() (*Store, *Table) {
		s, err := openTest(dir, Options{MemoryBudget: budget, BucketWidth: 16})
		if err != nil {
			t.Fatal(err)
		}
		return s, s.Table("side", TableOptions{})
	}
	s, tab := open()
	defer func() { s.Close() }()
	m := newModel()
	now := int64(0)
	nkeys := 5 + rng.IntN(60)
	key := func() string { return fmt.Sprintf("k%d", rng.IntN(nkeys)) }
	randExp := func() int64 {
		switch rng.IntN(8) {
		case 0:
			if modelAllExpire {
				return now + 1000
			}
			return NoExpiry
		case 1:
			return now - int64(rng.IntN(5)) // already due
		default:
			return now + int64(rng.IntN(200))
		}
	}
	var stats Stats
	for step := 0; step < steps; step++ {
		switch op := rng.IntN(20); {
		case op < 8: // append
			k := key()
			rec := Record{Vals: randVals(rng), Count: 1, Time: rng.Int64N(100), Expiry: randExp()}
			if rng.IntN(4) == 0 {
				rec.Flags = uint32(rng.IntN(4))
			}
			tab.Append([]byte(k), rec)
			rec.seq = m.seq
			m.seq++
			m.recs[k] = append(m.recs[k], rec)
		case op < 13: // scan
			k := key()
			var acts []scanAction
			// Half the scans only read (as an inner join's probe): a
			// cold key's records are then shown without making it hot.
			probe := rng.IntN(2) == 0
			for i := 0; i < 8; i++ {
				a := scanAction{keep: rng.IntN(5) != 0, stop: rng.IntN(6) == 0}
				if probe {
					acts = append(acts, scanAction{keep: true, stop: a.stop})
					continue
				}
				if rng.IntN(2) == 0 {
					a.count = rng.Int64N(3) - 1
				}
				if rng.IntN(3) == 0 {
					a.expiry = randExp()
				}
				if rng.IntN(3) == 0 {
					a.flags = uint32(rng.IntN(8))
				}
				acts = append(acts, a)
			}
			if !probe && rng.IntN(3) == 0 { // Find: the first record holding these values
				rs := m.recs[k]
				vals := randVals(rng)
				if len(rs) > 0 && rng.IntN(4) != 0 {
					vals = rs[rng.IntN(len(rs))].Vals
				}
				a := acts[0]
				var got []Record
				found := tab.Find([]byte(k), vals, func(r *Record) bool {
					got = append(got, *r)
					apply(r, a)
					return a.keep
				})
				j := slices.IndexFunc(rs, func(r Record) bool {
					if len(r.Vals) != len(vals) {
						return false
					}
					for i := range vals {
						if !r.Vals[i].Equal(vals[i]) {
							return false
						}
					}
					return true
				})
				if found != (j >= 0) || len(got) != min(1, j+1) {
					t.Fatalf("step %d: Find(%s, %v) found=%v visited %d, model index %d", step, k, vals, found, len(got), j)
				}
				if j < 0 {
					break
				}
				if !sameRecord(&got[0], &rs[j]) {
					t.Fatalf("step %d: Find(%s) got %s want %s", step, k, fmtRec(&got[0]), fmtRec(&rs[j]))
				}
				r := rs[j]
				apply(&r, a)
				kept := append(append(rs[:j:j], func() []Record {
					if a.keep {
						return []Record{r}
					}
					return nil
				}()...), rs[j+1:]...)
				if len(kept) == 0 {
					delete(m.recs, k)
				} else {
					m.recs[k] = kept
				}
				break
			}
			var got []Record
			i := 0
			had := tab.Scan([]byte(k), func(r *Record) (bool, bool) {
				got = append(got, *r)
				a := scanAction{keep: true}
				if i < len(acts) {
					a = acts[i]
				}
				i++
				apply(r, a)
				return a.keep, a.stop
			})
			rs := m.recs[k]
			if had != (len(rs) > 0) {
				t.Fatalf("step %d: Scan(%s) had=%v, model has %d records", step, k, had, len(rs))
			}
			var want []Record
			kept := rs[:0:0]
			stopped := false
			for j := range rs {
				r := rs[j]
				if stopped {
					kept = append(kept, r)
					continue
				}
				want = append(want, r)
				a := scanAction{keep: true}
				if j < len(acts) {
					a = acts[j]
				}
				apply(&r, a)
				stopped = a.stop
				if a.keep {
					kept = append(kept, r)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("step %d: Scan(%s) visited %d records, model %d", step, k, len(got), len(want))
			}
			for j := range got {
				if !sameRecord(&got[j], &want[j]) {
					t.Fatalf("step %d: Scan(%s) record %d: got %s want %s", step, k, j, fmtRec(&got[j]), fmtRec(&want[j]))
				}
			}
			if len(kept) == 0 {
				delete(m.recs, k)
			} else {
				m.recs[k] = kept
			}
		case op < 14: // delete
			k := key()
			n := tab.Delete([]byte(k))
			if n != len(m.recs[k]) {
				t.Fatalf("step %d: Delete(%s) = %d, model %d", step, k, n, len(m.recs[k]))
			}
			delete(m.recs, k)
		case op < 18: // expire
			now += int64(rng.IntN(40))
			upTo := now
			if rng.IntN(50) == 0 {
				upTo = math.MaxInt64
			}
			var got []expired
			var n int
			if rng.IntN(3) == 0 {
				// No callback: single-record cold keys go unread.
				n = tab.Expire(upTo, nil)
				want := m.expire(upTo)
				if n != len(want) {
					t.Fatalf("step %d: Expire(%d, nil) removed %d, model %d", step, upTo, n, len(want))
				}
				break
			}
			n = tab.Expire(upTo, func(k []byte, r *Record) {
				got = append(got, expired{string(k), *r})
			})
			want := m.expire(upTo)
			if n != len(got) || len(got) != len(want) {
				t.Fatalf("step %d: Expire(%d) removed %d (fn %d), model %d", step, upTo, n, len(got), len(want))
			}
			for j := range got {
				if got[j].key != want[j].key || !sameRecord(&got[j].rec, &want[j].rec) {
					t.Fatalf("step %d: Expire(%d) #%d: got %s %s want %s %s", step, upTo, j,
						got[j].key, fmtRec(&got[j].rec), want[j].key, fmtRec(&want[j].rec))
				}
			}
		case op < 19:
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
		default:
			if reopen && rng.IntN(8) == 0 {
				st := s.Stats()
				stats.Spilled += st.Spilled
				stats.Loaded += st.Loaded
				stats.ReadCold += st.ReadCold
				stats.ColdExpired += st.ColdExpired
				stats.ColdDropped += st.ColdDropped
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				s, tab = open()
				m.reopen()
			}
		}
		if tab.Len() != m.len() {
			t.Fatalf("step %d: Len = %d, model %d", step, tab.Len(), m.len())
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if budget > 0 && budget < 1<<20 && s.MemBytes() > budget && tab.HotKeys() > 0 && budget > 4096 {
			t.Fatalf("step %d: hot tier %d bytes over budget %d", step, s.MemBytes(), budget)
		}
		if step%64 == 0 {
			checkAccounting(t, step, s)
		}
	}
	checkAccounting(t, steps, s)
	// Everything left, key by key, through Scan.
	for k, rs := range m.recs {
		var got []Record
		tab.Scan([]byte(k), func(r *Record) (bool, bool) { got = append(got, *r); return true, false })
		if len(got) != len(rs) {
			t.Fatalf("final Scan(%s): %d records, model %d", k, len(got), len(rs))
		}
		for j := range got {
			if !sameRecord(&got[j], &rs[j]) {
				t.Fatalf("final Scan(%s) #%d: got %s want %s", k, j, fmtRec(&got[j]), fmtRec(&rs[j]))
			}
		}
	}
	st := s.Stats()
	stats.Spilled += st.Spilled
	stats.Loaded += st.Loaded
	stats.ReadCold += st.ReadCold
	stats.ColdExpired += st.ColdExpired
	stats.ColdDropped += st.ColdDropped
	return stats
}

func TestTableAgainstModel(t *testing.T) {
	for _, budget := range []int64{1, 6000, -1} {
		var total Stats
		for seed := uint64(1); seed <= 12; seed++ {
			st := runModel(t, seed, budget, 1500, false)
			total.Spilled += st.Spilled
			total.Loaded += st.Loaded
			total.ReadCold += st.ReadCold
			total.ColdExpired += st.ColdExpired
		}
		t.Logf("budget %d: %+v", budget, total)
		if budget > 0 && (total.Spilled == 0 || total.Loaded == 0 || total.ReadCold == 0 || total.ColdExpired == 0) {
			t.Errorf("budget %d did not exercise the cold tier: %+v", budget, total)
		}
		if budget < 0 && total.Spilled != 0 {
			t.Errorf("unlimited budget spilled: %+v", total)
		}
	}
}

// modelAllExpire makes the model give every record an expiry (so an
// expiry without callback past all of them drops the cold tier whole,
// see dropCold).
var modelAllExpire bool

// TestTableAgainstModelAllExpire runs the model with an expiry on every
// record, and checks that the whole-table drop ran.
func TestTableAgainstModelAllExpire(t *testing.T) {
	defer func() { modelAllExpire = false }()
	modelAllExpire = true
	for _, budget := range []int64{1} {
		var total Stats
		for seed := uint64(40); seed < 52; seed++ {
			st := runModel(t, seed, budget, 1500, false)
			total.ColdDropped += st.ColdDropped
			total.ColdExpired += st.ColdExpired
		}
		if total.ColdExpired == 0 || total.ColdDropped == 0 {
			t.Errorf("budget %d: the cold tier was never dropped whole: %+v", budget, total)
		}
	}
}

// TestTableAgainstModelSmallChunks expires cold records a few index
// entries at a time, so a key's due records span chunks and hot records
// interleave with several chunks.
func TestTableAgainstModelSmallChunks(t *testing.T) {
	defer func(n int) { coldChunkSize = n }(coldChunkSize)
	for _, n := range []int{1, 3} {
		coldChunkSize = n
		var total Stats
		for seed := uint64(20); seed < 28; seed++ {
			st := runModel(t, seed, 1, 1500, false)
			total.ColdExpired += st.ColdExpired
			runModel(t, seed, 6000, 1500, false)
		}
		if total.ColdExpired == 0 {
			t.Errorf("chunk size %d: nothing expired from the cold tier", n)
		}
	}
}

func TestTableReopenAgainstModel(t *testing.T) {
	for _, budget := range []int64{1, 6000, -1} {
		for seed := uint64(100); seed < 104; seed++ {
			runModel(t, seed, budget, 1500, true)
		}
	}
}

// checkAccounting recomputes the hot tier's estimate from what it holds
// (every hot entry's size, every bucket's capacity and the entries its
// stale ones keep alive) and compares it with the counters the store kept
// as it went.
func checkAccounting(t *testing.T, step int, s *Store) {
	t.Helper()
	var total int64
	for _, tab := range s.tlist {
		var hot int64
		for _, e := range tab.hot {
			hot += entrySize(e)
		}
		if hot != tab.hotBytes {
			t.Fatalf("step %d: table %s: hot entries %d bytes, counted %d", step, tab.name, hot, tab.hotBytes)
		}
		x := &tab.buckets
		var capN, pinned int64
		for _, b := range x.m {
			capN += int64(cap(b.ents))
			pinned += int64(b.pinned)
			if b.pinned < 0 || b.pinned > b.stale {
				t.Fatalf("step %d: bucket %d: pinned %d, stale %d", step, b.id, b.pinned, b.stale)
			}
		}
		if capN != x.capN || pinned != x.pinned || len(x.ids) != len(x.m) {
			t.Fatalf("step %d: table %s: buckets cap %d pinned %d ids %d, counted cap %d pinned %d, %d buckets",
				step, tab.name, capN, pinned, len(x.ids), x.capN, x.pinned, len(x.m))
		}
		total += hot + x.bytes()
	}
	if total != s.used {
		t.Fatalf("step %d: hot tier holds %d bytes, counted %d", step, total, s.used)
	}
}

// A Scan that changes nothing reads a spilled key in place: the key stays
// cold, the records are the model's, and a later write of the store (a
// spill of other keys) is seen by the next read. A Scan that changes a
// record makes the key hot with the change, also the model's.
func TestScanColdInPlace(t *testing.T) {
	s, err := openTest("", Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tab := s.Table("side", TableOptions{})
	m := newModel()
	add := func(k string, i int) {
		rec := Record{Vals: []row.Value{row.IntValue(int64(i)), row.StrValue(k)}, Count: 1, Time: int64(i), Expiry: NoExpiry}
		tab.Append([]byte(k), rec)
		rec.seq = m.seq
		m.seq++
		m.recs[k] = append(m.recs[k], rec)
	}
	check := func(k string) {
		t.Helper()
		var got []Record
		had := tab.Scan([]byte(k), func(r *Record) (bool, bool) { got = append(got, *r); return true, false })
		rs := m.recs[k]
		if had != (len(rs) > 0) || len(got) != len(rs) {
			t.Fatalf("Scan(%s): had %v, %d records; model %d", k, had, len(got), len(rs))
		}
		for j := range got {
			if !sameRecord(&got[j], &rs[j]) {
				t.Fatalf("Scan(%s) #%d: got %s want %s", k, j, fmtRec(&got[j]), fmtRec(&rs[j]))
			}
		}
	}
	for i := range 3000 {
		add(fmt.Sprintf("k%d", i%1000), i)
	}
	if s.Stats().Spilled == 0 {
		t.Fatal("nothing spilled")
	}
	st0, hot0 := s.Stats(), tab.HotKeys()
	for i := range 1000 {
		check(fmt.Sprintf("k%d", i))
		check(fmt.Sprintf("absent%d", i))
		if i%100 == 0 {
			// Appends spill (commit) between the reads of one transaction.
			add(fmt.Sprintf("k%d", 999-i), 10000+i)
			check(fmt.Sprintf("k%d", 999-i))
		}
	}
	st := s.Stats()
	if st.ReadCold < 900 || st.Loaded-st0.Loaded > 10 || tab.HotKeys() > hot0+1 {
		t.Fatalf("read-only scans made keys hot: read in place %d, loaded %d, hot keys %d then %d",
			st.ReadCold, st.Loaded-st0.Loaded, hot0, tab.HotKeys())
	}
	// A change to the second record of a cold key: the first is kept as
	// it was, the second counts 5, the third is removed, the rest unseen.
	k := "k7"
	add(k, 20000)
	add(k, 20001)
	for i := range 3000 { // push k7 out again
		add(fmt.Sprintf("p%d", i), i)
	}
	loaded := s.Stats().Loaded
	i := 0
	tab.Scan([]byte(k), func(r *Record) (bool, bool) {
		i++
		switch i {
		case 2:
			r.Count = 5
		case 3:
			return false, true
		}
		return true, false
	})
	if i != 3 || s.Stats().Loaded != loaded+1 {
		t.Fatalf("changing Scan: %d records seen, %d loads", i, s.Stats().Loaded-loaded)
	}
	rs := m.recs[k]
	rs[1].Count = 5
	m.recs[k] = append(rs[:2:2], rs[3:]...)
	check(k)
	for i := range 1000 {
		check(fmt.Sprintf("k%d", i))
	}
}
