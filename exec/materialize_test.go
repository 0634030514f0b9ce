package exec

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// matCollect is a collector that keeps what it is pushed.
type matCollect struct{ rows row.Batch }

func (c *matCollect) push(b row.Batch) error { c.rows = append(c.rows, b...); return nil }
func (c *matCollect) watermark(int64) error  { return nil }
func (c *matCollect) idle(bool) error        { return nil }
func (c *matCollect) end() error             { return nil }
func (c *matCollect) barrier(*barrier) error { return nil }

func newMaterializeOp(t *testing.T, upsertKey []int, out collector) *materializeOp {
	t.Helper()
	st, err := state.Open("", state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &materializeOp{name: "UpsertMaterialize", key: keyer{cols: []int{0}}, upsertKey: upsertKey,
		clock: func() int64 { return 0 }, store: st, lists: state.NewMap(st, "rows", matCodec{}, state.TableOptions{}),
		out: out, c: newCounters("UpsertMaterialize")}
}

// matRow is a row of the materializer's input: (sink key, id, value).
type matRow struct {
	k  string
	id int
	v  int
}

func (r matRow) vals() []row.Value {
	return []row.Value{row.StrValue(r.k), row.IntValue(int64(r.id)), row.IntValue(int64(r.v))}
}

// matChange is one change of the input.
type matChange struct {
	kind changelogmode.Kind
	r    matRow
}

// genChangelog makes the changelog of a query whose rows move between sink
// keys, as a join's do: rows are added (+I), updated (-U then +U, the new
// row often under another sink key) and deleted (-D). With byID each id has
// at most one live row (an upsert key); without, the same row may be live
// several times. The changes are then interleaved as p partitions would
// deliver them: each row's own changes stay in order (the partition is a
// hash of the row, or of its id with byID), the partitions' order is lost.
func genChangelog(r *rand.Rand, n, p int, byID bool) []matChange {
	var live []matRow
	var out []matChange
	keys := []string{"a", "b", "c", "d"}
	nextID := 0
	newRow := func() matRow {
		nextID++
		id := nextID
		if !byID {
			id = r.Intn(3) // identical rows are common
		}
		return matRow{k: keys[r.Intn(len(keys))], id: id, v: r.Intn(3)}
	}
	for len(out) < n {
		switch x := r.Intn(10); {
		case x < 4 || len(live) == 0:
			row := newRow()
			live = append(live, row)
			out = append(out, matChange{changelogmode.Insert, row})
		case x < 8:
			i := r.Intn(len(live))
			old := live[i]
			nw := old
			nw.v = r.Intn(3)
			if r.Intn(2) == 0 {
				nw.k = keys[r.Intn(len(keys))]
			}
			live[i] = nw
			out = append(out, matChange{changelogmode.UpdateBefore, old}, matChange{changelogmode.UpdateAfter, nw})
		default:
			i := r.Intn(len(live))
			out = append(out, matChange{changelogmode.Delete, live[i]})
			live = slices.Delete(live, i, i+1)
		}
	}
	// Interleave by partition.
	part := func(c matChange) int {
		h := fnv.New32a()
		if byID {
			fmt.Fprint(h, c.r.id)
		} else {
			fmt.Fprint(h, c.r)
		}
		return int(h.Sum32()) % p
	}
	queues := make([][]matChange, p)
	for _, c := range out {
		queues[part(c)] = append(queues[part(c)], c)
	}
	var merged []matChange
	for len(merged) < len(out) {
		q := r.Intn(p)
		if len(queues[q]) == 0 {
			continue
		}
		take := 1 + r.Intn(len(queues[q]))
		take = min(take, 3)
		merged = append(merged, queues[q][:take]...)
		queues[q] = queues[q][take:]
	}
	return merged
}

// TestMaterializerMatchesModel drives the upsert materializer with random
// changelogs whose changes arrive in partition order, not in the order
// they were made, and checks after every change what a keyed sink fed by it
// holds against a brute-force model of the query's live rows: a sink key
// is present exactly when some live row has it, and it then holds one of
// those rows; with one live row, that row; after a +I/+U, the row just
// added. Rows are matched by all their values, then by an upsert key (id).
func TestMaterializerMatchesModel(t *testing.T) {
	for _, byID := range []bool{false, true} {
		for seed := int64(1); seed <= 200; seed++ {
			r := rand.New(rand.NewSource(seed))
			changes := genChangelog(r, 20+r.Intn(80), 1+r.Intn(4), byID)
			var upsertKey []int
			if byID {
				upsertKey = []int{1}
			}
			out := &matCollect{}
			op := newMaterializeOp(t, upsertKey, out)
			sink := map[string]matRow{} // what the keyed sink holds
			var live []matRow           // the model: the query's live rows
			for n, c := range changes {
				out.rows = out.rows[:0]
				if err := op.process(0, row.Batch{{Kind: c.kind, Vals: c.r.vals()}}); err != nil {
					t.Fatal(err)
				}
				if isAccumulate(c.kind) {
					live = append(live, c.r)
				} else {
					i := slices.IndexFunc(live, func(x matRow) bool { return x == c.r })
					if i < 0 {
						t.Fatalf("seed %d: the generator retracted a row that is not live: %v", seed, c)
					}
					live = slices.Delete(live, i, i+1)
				}
				for _, o := range out.rows {
					got := matRow{k: o.Vals[0].Str(), id: int(o.Vals[1].Int()), v: int(o.Vals[2].Int())}
					switch o.Kind {
					case changelogmode.Insert, changelogmode.UpdateAfter:
						sink[got.k] = got
					case changelogmode.Delete:
						delete(sink, got.k)
					default:
						t.Fatalf("seed %d: the materializer emitted %s", seed, o.Kind)
					}
				}
				where := fmt.Sprintf("byID=%v seed %d, change %d (%s %v)", byID, seed, n, c.kind, c.r)
				byKey := map[string][]matRow{}
				for _, x := range live {
					byKey[x.k] = append(byKey[x.k], x)
				}
				for k, rows := range byKey {
					got, ok := sink[k]
					switch {
					case !ok:
						t.Fatalf("%s: key %s has %d live rows, the sink holds none", where, k, len(rows))
					case !slices.Contains(rows, got):
						t.Fatalf("%s: key %s: the sink holds %v, not one of the live rows %v", where, k, got, rows)
					case len(rows) == 1 && got != rows[0]:
						t.Fatalf("%s: key %s: the sink holds %v, the one live row is %v", where, k, got, rows[0])
					}
				}
				for k, got := range sink {
					if len(byKey[k]) == 0 {
						t.Fatalf("%s: the sink holds %v for key %s, which has no live row", where, got, k)
					}
				}
				if isAccumulate(c.kind) && sink[c.r.k] != c.r {
					t.Fatalf("%s: after adding %v the sink holds %v", where, c.r, sink[c.r.k])
				}
			}
			if len(live) == 0 && op.lists.Len() != 0 {
				t.Fatalf("seed %d: no live rows, but state holds %d keys", seed, op.lists.Len())
			}
		}
	}
}

// TestMatCodecRoundTrip: a list survives its encoding, with and without
// upsert keys, and a cut encoding is an error, never a panic.
func TestMatCodecRoundTrip(t *testing.T) {
	for _, l := range []*matList{
		{rows: [][]byte{state.AppendValues(nil, []row.Value{row.StrValue("a")}), state.AppendValues(nil, []row.Value{row.IntValue(7)})}},
		{match: [][]byte{{1}, {2, 3}}, rows: [][]byte{state.AppendValues(nil, []row.Value{row.StrValue("a")}), {}}},
	} {
		enc := matCodec{}.Append(nil, l)
		got, err := matCodec{}.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.rows) != fmt.Sprint(l.rows) || fmt.Sprint(got.match) != fmt.Sprint(l.match) || (got.match == nil) != (l.match == nil) {
			t.Fatalf("round trip: %v, want %v", got, l)
		}
		for i := range enc {
			if _, err := (matCodec{}).Decode(enc[:i]); err == nil {
				t.Fatalf("a list cut to %d of %d bytes decoded", i, len(enc))
			}
		}
	}
}

// BenchmarkUpsertMaterialize measures the upsert materializer alone, per
// input row: a query whose rows move between 10,000 sink keys, each change
// a -U of the row's old version and a +U of the new one (a key holds one
// or two live rows), in batches of 512, matched by all values (as after a
// keyless join) and by an upsert key.
func BenchmarkUpsertMaterialize(b *testing.B) {
	for _, mode := range []string{"all columns", "upsert key"} {
		b.Run(mode, func(b *testing.B) {
			var upsertKey []int
			if mode == "upsert key" {
				upsertKey = []int{1}
			}
			st, err := state.Open("", state.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			op := &materializeOp{name: "UpsertMaterialize", key: keyer{cols: []int{0}}, upsertKey: upsertKey,
				clock: func() int64 { return 0 }, store: st, lists: state.NewMap(st, "rows", matCodec{}, state.TableOptions{}),
				out: &matCollect{}, c: newCounters("UpsertMaterialize")}
			const keys, ids = 10_000, 15_000
			cur := make([]matRow, ids)
			var warm row.Batch
			for i := range cur {
				cur[i] = matRow{k: fmt.Sprintf("key-%d", i%keys), id: i, v: 0}
				warm = append(warm, row.Row{Kind: changelogmode.Insert, Vals: cur[i].vals()})
			}
			if err := op.process(0, warm); err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewSource(1))
			next := func(batch row.Batch) row.Batch {
				batch = batch[:0]
				for len(batch) < 512 {
					i := r.Intn(ids)
					nw := cur[i]
					nw.v++
					nw.k = fmt.Sprintf("key-%d", r.Intn(keys))
					batch = append(batch, row.Row{Kind: changelogmode.UpdateBefore, Vals: cur[i].vals()},
						row.Row{Kind: changelogmode.UpdateAfter, Vals: nw.vals()})
					cur[i] = nw
				}
				return batch
			}
			out := op.out.(*matCollect)
			var batch row.Batch
			b.ReportAllocs()
			b.ResetTimer()
			for rows := 0; rows < b.N; rows += len(batch) {
				b.StopTimer()
				batch = next(batch)
				out.rows = out.rows[:0]
				b.StartTimer()
				if err := op.process(0, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMaterializedJoinMatchesModel runs keyless l LEFT JOIN r into an
// upsert sink keyed on l.id (several l rows share an id) at parallelism 1
// and 4, over random inputs: the sink must hold exactly the ids that have a
// row in the join's result, each with one of those rows, as a brute-force
// join of the inputs computes them.
func TestMaterializedJoinMatchesModel(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		r := rand.New(rand.NewSource(seed))
		type lrow struct{ id, k string }
		type rrow struct{ k, name string }
		var ls []lrow
		var rs []rrow
		var lb, rb row.Batch
		for range 30 + r.Intn(60) {
			x := lrow{fmt.Sprintf("i%d", r.Intn(15)), fmt.Sprintf("k%d", r.Intn(8))}
			ls = append(ls, x)
			lb = append(lb, row.Insert(row.StrValue(x.id), row.StrValue(x.k)))
		}
		for range 10 + r.Intn(30) {
			x := rrow{fmt.Sprintf("k%d", r.Intn(10)), fmt.Sprintf("n%d", r.Intn(5))}
			rs = append(rs, x)
			rb = append(rb, row.Insert(row.StrValue(x.k), row.StrValue(x.name)))
		}
		lpath, rpath := fmt.Sprintf("mat-l-%d.json", seed), fmt.Sprintf("mat-r-%d.json", seed)
		setData(lpath, lb)
		setData(rpath, rb)
		live := map[string][]string{}
		for _, x := range ls {
			matched := false
			for _, y := range rs {
				if y.k == x.k {
					matched = true
					live[x.id] = append(live[x.id], fmt.Sprintf("[%s, %s, %s]", x.id, x.k, y.name))
				}
			}
			if !matched {
				live[x.id] = append(live[x.id], fmt.Sprintf("[%s, %s, NULL]", x.id, x.k))
			}
		}
		for _, p := range []int{1, 4} {
			topic := fmt.Sprintf("mat-%d-%d", seed, p)
			sql := fmt.Sprintf(`CREATE TABLE l (id STRING, k STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
CREATE TABLE r (k STRING, name STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
CREATE TABLE s (id STRING, k STRING, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO s SELECT l.id, l.k, r.name FROM l LEFT JOIN r ON l.k = r.k;`, lpath, rpath, topic)
			j := frontend.CheckJob(diag.NewSource("job.sql", sql))
			if j.Diags.HasErrors() {
				t.Fatal(j.Diags.Err())
			}
			job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{Settings: j.Session.Settings, Parallelism: p})
			if err != nil {
				t.Fatal(err)
			}
			if err := job.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			upsertMu.Lock()
			got := maps.Clone(upsertTopics[topic])
			before := upsertBefore[topic]
			upsertMu.Unlock()
			if before != 0 {
				t.Errorf("seed %d, parallelism %d: the sink was handed %d -U", seed, p, before)
			}
			for id, rows := range live {
				if v, ok := got[id]; !ok || !slices.Contains(rows, v) {
					t.Errorf("seed %d, parallelism %d: id %s: the sink holds %q, want one of %v", seed, p, id, v, rows)
				}
			}
			for id, v := range got {
				if len(live[id]) == 0 {
					t.Errorf("seed %d, parallelism %d: the sink holds %s for id %s, which has no row", seed, p, v, id)
				}
			}
		}
	}
}
