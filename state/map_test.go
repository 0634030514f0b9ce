package state

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// acc stands for a group's accumulators.
type acc struct {
	n    int64
	tags string
}

type accCodec struct{}

func (accCodec) Append(dst []byte, a *acc) []byte {
	dst = binary.AppendVarint(dst, a.n)
	return append(dst, a.tags...)
}

func (accCodec) Decode(b []byte) (*acc, error) {
	n, w := binary.Varint(b)
	if w <= 0 {
		return nil, ErrCorrupt
	}
	return &acc{n: n, tags: string(b[w:])}, nil
}

func (accCodec) Size(a *acc) int64 { return 32 + int64(len(a.tags)) }

type mval struct {
	n    int64
	tags string
	exp  int64
	seq  uint64
}

func TestMapAgainstModel(t *testing.T) {
	for _, budget := range []int64{1, 3000, -1} {
		var spilled int64
		for seed := uint64(1); seed <= 8; seed++ {
			rng := rand.New(rand.NewPCG(seed, 11))
			s, err := Open("", Options{MemoryBudget: budget, BucketWidth: 8})
			if err != nil {
				t.Fatal(err)
			}
			m := NewMap[*acc](s, "groups", accCodec{}, TableOptions{})
			model := map[string]*mval{}
			var seq uint64
			now := int64(0)
			for step := 0; step < 2000; step++ {
				k := fmt.Sprintf("g%d", rng.IntN(50))
				switch op := rng.IntN(10); {
				case op < 5: // fold: Get, change, Put with a new expiry
					a, ok := m.Get([]byte(k))
					mv := model[k]
					if ok != (mv != nil) || ok && (a.n != mv.n || a.tags != mv.tags) {
						t.Fatalf("seed %d step %d: Get(%s) = %v %v, model %v", seed, step, k, a, ok, mv)
					}
					if !ok {
						a = &acc{}
						mv = &mval{seq: seq}
						seq++
						model[k] = mv
					}
					a.n++
					if rng.IntN(3) == 0 {
						a.tags += string(rune('a' + rng.IntN(26)))
					}
					exp := now + int64(rng.IntN(100))
					if rng.IntN(5) == 0 {
						exp = NoExpiry
					}
					m.Put([]byte(k), a, exp)
					mv.n, mv.tags, mv.exp = a.n, a.tags, exp
				case op < 6:
					if got := m.Delete([]byte(k)); got != (model[k] != nil) {
						t.Fatalf("step %d: Delete(%s) = %v", step, k, got)
					}
					delete(model, k)
				default:
					now += int64(rng.IntN(20))
					type kv struct {
						k string
						n int64
						e int64
						s uint64
					}
					var got, want []kv
					m.Expire(now, func(key []byte, a *acc) { got = append(got, kv{k: string(key), n: a.n}) })
					for k, mv := range model {
						if mv.exp <= now {
							want = append(want, kv{k, mv.n, mv.exp, mv.seq})
							delete(model, k)
						}
					}
					slices.SortFunc(want, func(a, b kv) int {
						if a.e != b.e {
							return cmpInt(a.e, b.e)
						}
						return cmpInt(int64(a.s), int64(b.s))
					})
					if len(got) != len(want) {
						t.Fatalf("seed %d step %d: Expire(%d) gave %d keys, model %d", seed, step, now, len(got), len(want))
					}
					for i := range got {
						if got[i].k != want[i].k || got[i].n != want[i].n {
							t.Fatalf("step %d: Expire #%d: %v, model %v", step, i, got[i], want[i])
						}
					}
				}
				if m.Len() != int64(len(model)) {
					t.Fatalf("step %d: Len %d, model %d", step, m.Len(), len(model))
				}
			}
			spilled += s.Stats().Spilled
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if budget > 0 && spilled == 0 {
			t.Errorf("budget %d never spilled", budget)
		}
	}
}

func TestMapReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{MemoryBudget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMap[[]byte](s, "v", BytesCodec{}, TableOptions{})
	for i := 0; i < 300; i++ {
		m.Put([]byte(fmt.Sprint(i)), []byte(fmt.Sprint("value", i)), int64(i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{MemoryBudget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m = NewMap[[]byte](s, "v", BytesCodec{}, TableOptions{})
	if m.Len() != 300 {
		t.Fatalf("reopened Len = %d", m.Len())
	}
	if v, ok := m.Get([]byte("42")); !ok || string(v) != "value42" {
		t.Fatalf("Get(42) = %q %v", v, ok)
	}
	n := 0
	m.Expire(99, func(k []byte, v []byte) {
		if string(k) != fmt.Sprint(n) || string(v) != fmt.Sprint("value", n) {
			t.Fatalf("expired %s=%s, want %d", k, v, n)
		}
		n++
	})
	if n != 100 || m.Len() != 200 {
		t.Fatalf("expired %d, Len %d", n, m.Len())
	}
}

// TestMapTimers checks AddTimer against a model, hot and spilled: a timer
// calls Expire's fn for the key's value in (expiry, order of adding)
// order, leaves the key, and a change fn makes to the value is kept.
func TestMapTimers(t *testing.T) {
	for _, budget := range []int64{1, -1} {
		for seed := uint64(1); seed <= 6; seed++ {
			rng := rand.New(rand.NewPCG(seed, 17))
			s, err := Open("", Options{MemoryBudget: budget, BucketWidth: 8})
			if err != nil {
				t.Fatal(err)
			}
			m := NewMap[*acc](s, "windows", accCodec{}, TableOptions{})
			type ev struct {
				exp   int64
				seq   int
				key   string
				timer bool
			}
			var pending []ev // the model: every record not yet expired
			vals := map[string]int64{}
			seq, now, fired := 0, int64(0), 0
			for step := 0; step < 1500; step++ {
				k := fmt.Sprintf("g%d", rng.IntN(40))
				if rng.IntN(3) > 0 {
					if _, ok := vals[k]; ok {
						continue // one own expiry per key in this test
					}
					own := now + 5 + int64(rng.IntN(60))
					m.Put([]byte(k), &acc{n: 1}, own)
					vals[k] = 1
					pending = append(pending, ev{own, seq, k, false})
					seq++
					for i := rng.IntN(3); i > 0; i-- {
						at := now + 1 + int64(rng.IntN(int(own-now-1))) // before own
						if !m.AddTimer([]byte(k), at) {
							t.Fatalf("AddTimer(%s) on a key with a value said no", k)
						}
						pending = append(pending, ev{at, seq, k, true})
						seq++
					}
					continue
				}
				now += int64(rng.IntN(15))
				var due []ev
				rest := pending[:0]
				for _, e := range pending {
					if e.exp <= now {
						due = append(due, e)
					} else {
						rest = append(rest, e)
					}
				}
				pending = rest
				slices.SortFunc(due, func(a, b ev) int {
					if a.exp != b.exp {
						return cmpInt(a.exp, b.exp)
					}
					return a.seq - b.seq
				})
				i := 0
				m.Expire(now, func(key []byte, a *acc) {
					if i >= len(due) || string(key) != due[i].key {
						t.Fatalf("seed %d step %d: Expire #%d called for %s, model %v", seed, step, i, key, due)
					}
					if a.n != vals[string(key)] {
						t.Fatalf("seed %d step %d: %s holds %d, model %d", seed, step, key, a.n, vals[string(key)])
					}
					a.n++ // kept when the key stays
					vals[string(key)]++
					if !due[i].timer {
						delete(vals, string(key))
					}
					i++
					fired++
				})
				if i != len(due) {
					t.Fatalf("seed %d step %d: Expire called fn %d times, model %d", seed, step, i, len(due))
				}
				if m.Len() != int64(len(pending)) {
					t.Fatalf("seed %d step %d: Len %d, model %d", seed, step, m.Len(), len(pending))
				}
				for k, n := range vals {
					if a, ok := m.Get([]byte(k)); !ok || a.n != n {
						t.Fatalf("seed %d step %d: Get(%s) = %v %v, model %d", seed, step, k, a, ok, n)
					}
				}
			}
			if fired == 0 || budget == 1 && s.Stats().Spilled == 0 {
				t.Fatalf("seed %d: nothing fired (%d) or nothing spilled", seed, fired)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
