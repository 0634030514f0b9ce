package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
)

// dimTable is a lookup table in memory: rows of (k STRING, v INT); it
// matches keys ignoring case, as a database with a case-insensitive
// collation does, and records what it was asked.
type dimTable struct {
	rows  [][]row.Value
	asked [][]string // keys per Lookup call
	fail  error
}

func (d *dimTable) Open(context.Context) error { return nil }
func (d *dimTable) Close() error               { return nil }
func (d *dimTable) Lookup(_ context.Context, keys [][]row.Value) (row.Batch, error) {
	if d.fail != nil {
		return nil, d.fail
	}
	var call []string
	for _, k := range keys {
		if k[0].IsNull() {
			panic("a NULL key was looked up")
		}
		call = append(call, k[0].Str())
	}
	// WHERE k IN (...): each row once.
	var out row.Batch
	for _, r := range d.rows {
		for _, k := range call {
			if !r[0].IsNull() && strings.EqualFold(r[0].Str(), k) {
				out = append(out, row.Insert(slices.Clone(r)...))
				break
			}
		}
	}
	d.asked = append(d.asked, call)
	return out, nil
}

type batches struct{ got []row.Batch }

func (c *batches) push(b row.Batch) error {
	c.got = append(c.got, slices.Clone(b))
	return nil
}
func (c *batches) watermark(int64) error { return nil }
func (c *batches) idle(bool) error       { return nil }
func (c *batches) end() error            { return nil }
func (c *batches) barrier(*barrier) error {
	return nil
}

// newLookupTest is a lookup join of probe rows (id INT, k STRING, min INT)
// with the dim table (k STRING, v INT) on probe.k = dim.k AND dim.v >=
// probe.min, at the clock *now.
func newLookupTest(d *dimTable, outer bool, cache physical.LookupCache, now *int64) (*lookupOp, *batches) {
	out := &batches{}
	op := &lookupOp{table: d, keys: keyer{cols: []int{1}}, dimKeys: []int{0}, place: []int{0, 1}, width: 2, nl: 3,
		outer: outer, now: func() int64 { return *now }, out: out, c: newCounters("LookupJoin"), found: map[string][]row.Row{},
		ctx: context.Background()}
	op.residual = func(v []row.Value) (bool, error) {
		if v[4].IsNull() || v[2].IsNull() {
			return false, nil
		}
		return v[4].Int() >= v[2].Int(), nil
	}
	if cache.Enabled() {
		op.cache = newLookupCache(cache)
	}
	return op, out
}

func probeRow(id int64, k string, least int64) row.Row {
	kv := row.StrValue(k)
	if k == "NULL" {
		kv = row.NullValue
	}
	return row.Insert(row.IntValue(id), kv, row.IntValue(least))
}

// lookupModel is the join computed by brute force over the dim table as
// it is: every pair whose keys are equal (NULL equals nothing, case
// matters) and whose residual holds; a LEFT join pads a probe row without
// one.
func lookupModel(dim [][]row.Value, probes row.Batch, outer bool) []string {
	var out []string
	for _, p := range probes {
		matched := false
		for _, d := range dim {
			if p.Vals[1].IsNull() || d[0].IsNull() || p.Vals[1].Str() != d[0].Str() {
				continue
			}
			if d[1].IsNull() || d[1].Int() < p.Vals[2].Int() {
				continue
			}
			matched = true
			out = append(out, fmt.Sprint(append(slices.Clone(p.Vals), d...)))
		}
		if !matched && outer {
			out = append(out, fmt.Sprint(append(slices.Clone(p.Vals), row.NullValue, row.NullValue)))
		}
	}
	slices.Sort(out)
	return out
}

func rowsText(b row.Batch) []string {
	out := []string{}
	for _, r := range b {
		out = append(out, fmt.Sprint(r.Vals))
	}
	slices.Sort(out)
	return out
}

// TestLookupJoinModel: random probe batches against a dim table that
// changes between them (no cache: each batch sees the table as it is),
// INNER and LEFT, compared with the brute-force join. Keys differ in case
// only sometimes: the table matches them, the join must not.
func TestLookupJoinModel(t *testing.T) {
	keys := []string{"a", "A", "b", "c", "d", "NULL"}
	for _, outer := range []bool{false, true} {
		t.Run(fmt.Sprintf("outer=%v", outer), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(keys))))
			d := &dimTable{}
			var now int64
			op, out := newLookupTest(d, outer, physical.LookupCache{}, &now)
			for batch := range 200 {
				// Change the table: add, drop or update a row.
				switch rng.IntN(3) {
				case 0:
					k := row.StrValue(keys[rng.IntN(len(keys))])
					if k.Str() == "NULL" {
						k = row.NullValue
					}
					v := row.IntValue(rng.Int64N(10))
					if rng.IntN(8) == 0 {
						v = row.NullValue
					}
					d.rows = append(d.rows, []row.Value{k, v})
				case 1:
					if len(d.rows) > 0 {
						i := rng.IntN(len(d.rows))
						d.rows = slices.Delete(d.rows, i, i+1)
					}
				case 2:
					if len(d.rows) > 0 {
						d.rows[rng.IntN(len(d.rows))][1] = row.IntValue(rng.Int64N(10))
					}
				}
				var in row.Batch
				for i := range rng.IntN(12) {
					in = append(in, probeRow(int64(batch*100+i), keys[rng.IntN(len(keys))], rng.Int64N(10)))
				}
				out.got = nil
				if err := op.process(0, in); err != nil {
					t.Fatal(err)
				}
				var got row.Batch
				for _, b := range out.got {
					got = append(got, b...)
				}
				want := lookupModel(d.rows, in, outer)
				if g := rowsText(got); !slices.Equal(g, want) {
					t.Fatalf("batch %d: probes %v against %v:\n got %v\nwant %v", batch, in, d.rows, g, want)
				}
				// Each distinct non-NULL key of the batch was asked once.
				distinct := map[string]bool{}
				for _, r := range in {
					if !r.Vals[1].IsNull() {
						distinct[r.Vals[1].Str()] = true
					}
				}
				if len(distinct) > 0 {
					last := d.asked[len(d.asked)-1]
					if len(last) != len(distinct) {
						t.Fatalf("batch %d: asked %v for keys %v", batch, last, distinct)
					}
					d.asked = nil
				} else if len(d.asked) > 0 {
					t.Fatalf("batch %d: a batch without keys asked %v", batch, d.asked)
				}
			}
		})
	}
}

// TestLookupCache: hits, misses, expiry after write and after access, the
// size limit (least recently used out) and missing keys, with the clock
// in the test's hands. A cached key answers with the rows read when it was
// cached, though the table changed since: that is what a cache is.
func TestLookupCache(t *testing.T) {
	run := func(t *testing.T, op *lookupOp, out *batches, keys ...string) []string {
		t.Helper()
		var in row.Batch
		for i, k := range keys {
			in = append(in, probeRow(int64(i), k, 0))
		}
		out.got = nil
		if err := op.process(0, in); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range out.got {
			for _, r := range b {
				got = append(got, fmt.Sprintf("%s=%v", r.Vals[1].Str(), r.Vals[4]))
			}
		}
		return got
	}
	asked := func(d *dimTable) []string {
		var out []string
		for _, c := range d.asked {
			out = append(out, c...)
		}
		d.asked = nil
		slices.Sort(out)
		return out
	}
	t.Run("expire-after-write", func(t *testing.T) {
		d := &dimTable{rows: [][]row.Value{{row.StrValue("a"), row.IntValue(1)}}}
		now := int64(1000)
		op, out := newLookupTest(d, true, physical.LookupCache{MaxRows: 10, AfterWrite: time.Minute, Missing: true}, &now)
		if got := run(t, op, out, "a", "x"); !slices.Equal(got, []string{"a=1", "x=NULL"}) {
			t.Fatalf("first batch: %v", got)
		}
		if a := asked(d); !slices.Equal(a, []string{"a", "x"}) {
			t.Fatalf("first batch asked %v", a)
		}
		d.rows[0][1] = row.IntValue(2)
		d.rows = append(d.rows, []row.Value{row.StrValue("x"), row.IntValue(9)})
		now += time.Minute.Milliseconds() - 1
		if got := run(t, op, out, "a", "x"); !slices.Equal(got, []string{"a=1", "x=NULL"}) {
			t.Fatalf("within the ttl the cache answers (a missing key too): %v", got)
		}
		if a := asked(d); len(a) != 0 {
			t.Fatalf("a cached key was asked again: %v", a)
		}
		if op.c.CacheHits.Load() != 2 || op.c.Lookups.Load() != 2 {
			t.Fatalf("hits %d, lookups %d; want 2, 2", op.c.CacheHits.Load(), op.c.Lookups.Load())
		}
		now++
		if got := run(t, op, out, "a", "x"); !slices.Equal(got, []string{"a=2", "x=9"}) {
			t.Fatalf("after the ttl the table answers: %v", got)
		}
		if a := asked(d); !slices.Equal(a, []string{"a", "x"}) {
			t.Fatalf("after the ttl asked %v", a)
		}
	})
	t.Run("missing keys not cached", func(t *testing.T) {
		d := &dimTable{}
		now := int64(0)
		op, out := newLookupTest(d, false, physical.LookupCache{MaxRows: 10, AfterWrite: time.Hour}, &now)
		run(t, op, out, "x")
		d.rows = append(d.rows, []row.Value{row.StrValue("x"), row.IntValue(3)})
		if got := run(t, op, out, "x"); !slices.Equal(got, []string{"x=3"}) {
			t.Fatalf("a key the table lacked was cached: %v", got)
		}
		if a := asked(d); !slices.Equal(a, []string{"x", "x"}) {
			t.Fatalf("asked %v", a)
		}
	})
	t.Run("max-rows", func(t *testing.T) {
		d := &dimTable{rows: [][]row.Value{{row.StrValue("a"), row.IntValue(1)}, {row.StrValue("b"), row.IntValue(1)}, {row.StrValue("c"), row.IntValue(1)}}}
		now := int64(0)
		op, out := newLookupTest(d, false, physical.LookupCache{MaxRows: 2, AfterWrite: time.Hour}, &now)
		run(t, op, out, "a")
		run(t, op, out, "b")
		run(t, op, out, "a") // a is now the most recently used
		run(t, op, out, "c") // b goes
		asked(d)
		run(t, op, out, "a", "c")
		if a := asked(d); len(a) != 0 {
			t.Fatalf("a and c should be cached, but were asked: %v", a)
		}
		run(t, op, out, "b")
		if a := asked(d); !slices.Equal(a, []string{"b"}) {
			t.Fatalf("b should have been evicted: asked %v", a)
		}
		if n := op.c.StateRows.Load(); n != 2 {
			t.Fatalf("the cache holds %d keys, want 2", n)
		}
	})
	t.Run("expire-after-access", func(t *testing.T) {
		d := &dimTable{rows: [][]row.Value{{row.StrValue("a"), row.IntValue(1)}}}
		now := int64(0)
		op, out := newLookupTest(d, false, physical.LookupCache{AfterAccess: time.Second}, &now)
		for range 5 { // used every 999 ms: never expires
			run(t, op, out, "a")
			now += 999
		}
		if a := asked(d); !slices.Equal(a, []string{"a"}) {
			t.Fatalf("a key used within the expiry was asked again: %v", a)
		}
		now++
		run(t, op, out, "a")
		if a := asked(d); !slices.Equal(a, []string{"a"}) {
			t.Fatalf("a key unused for the expiry was not asked again: %v", a)
		}
	})
}

// TestLookupError: the table's error stops the operator with it.
func TestLookupError(t *testing.T) {
	d := &dimTable{fail: fmt.Errorf("connection refused")}
	now := int64(0)
	op, _ := newLookupTest(d, true, physical.LookupCache{}, &now)
	if err := op.process(0, row.Batch{probeRow(1, "a", 0)}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("got %v", err)
	}
	// A batch of NULL keys asks nothing and cannot fail.
	if err := op.process(0, row.Batch{probeRow(1, "NULL", 0)}); err != nil {
		t.Fatal(err)
	}
}
