package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/frontend"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/internal/plantest"
	"github.com/streamsql/streamsql/row"
)

// upsertRec is one record of a random upsert topic: a row for its key, or a
// tombstone.
type upsertRec struct {
	key       string
	g         string
	v         int
	tombstone bool
}

// genUpserts makes n records over a few keys, with values from a small
// range so that the same row often comes again, and tombstones, some for
// keys never written or already deleted.
func genUpserts(r *rand.Rand, n, keys int) []upsertRec {
	out := make([]upsertRec, n)
	for i := range out {
		k := fmt.Sprintf("k%d", r.Intn(keys))
		if r.Intn(10) < 3 {
			out[i] = upsertRec{key: k, tombstone: true}
			continue
		}
		out[i] = upsertRec{key: k, g: string(rune('a' + r.Intn(3))), v: r.Intn(4)}
	}
	return out
}

// upsertRows turns records into what the upsert-kafka source emits: +U for
// a row, -D with only the key set for a tombstone.
func upsertRows(recs []upsertRec) row.Batch {
	var b row.Batch
	for _, u := range recs {
		if u.tombstone {
			b = append(b, row.Row{Kind: changelogmode.Delete, Vals: []row.Value{row.StrValue(u.key), row.NullValue, row.NullValue}})
			continue
		}
		b = append(b, row.Row{Kind: changelogmode.UpdateAfter, Vals: []row.Value{row.StrValue(u.key), row.StrValue(u.g), row.IntValue(int64(u.v))}})
	}
	return b
}

// upsertModel is the table an upsert topic stands for: the last row of each
// key that was not deleted after it.
func upsertModel(recs []upsertRec) map[string]upsertRec {
	m := map[string]upsertRec{}
	for _, u := range recs {
		if u.tombstone {
			delete(m, u.key)
		} else {
			m[u.key] = u
		}
	}
	return m
}

// TestNormalizeMatchesModel reads random upsert streams (duplicate keys,
// repeated rows, tombstones of unknown keys) at parallelism 1 and 4. Every
// retraction the job emits must take out a row it emitted before (the
// materialisation fails otherwise: a tombstone passed on with only its key,
// or an update without its -U, is caught), and the final tables of a
// projection, a filter and an aggregate must equal those computed from the
// model table.
func TestNormalizeMatchesModel(t *testing.T) {
	const ddl = `CREATE TABLE t (k STRING, g STRING, v INT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
`
	type query struct {
		sql   string
		model func(map[string]upsertRec) []string
	}
	queries := []query{
		{"SELECT k, g, v FROM t;", func(m map[string]upsertRec) []string {
			var out []string
			for _, u := range m {
				out = append(out, fmt.Sprintf("[%s, %s, %d]", u.key, u.g, u.v))
			}
			return out
		}},
		{"SELECT k, v FROM t WHERE v < 2;", func(m map[string]upsertRec) []string {
			var out []string
			for _, u := range m {
				if u.v < 2 {
					out = append(out, fmt.Sprintf("[%s, %d]", u.key, u.v))
				}
			}
			return out
		}},
		{"SELECT g, COUNT(*), SUM(v) FROM t GROUP BY g;", func(m map[string]upsertRec) []string {
			count, sum := map[string]int{}, map[string]int{}
			for _, u := range m {
				count[u.g]++
				sum[u.g] += u.v
			}
			var out []string
			for g, n := range count {
				out = append(out, fmt.Sprintf("[%s, %d, %d]", g, n, sum[g]))
			}
			return out
		}},
	}
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		recs := genUpserts(r, 50+r.Intn(250), 3+r.Intn(15))
		topic := fmt.Sprintf("normalize-%d", seed)
		setData("topic:"+topic, upsertRows(recs))
		m := upsertModel(recs)
		for _, q := range queries {
			want := q.model(m)
			sort.Strings(want)
			for _, p := range []int{1, 4} {
				got := runJob(t, fmt.Sprintf(ddl, topic)+q.sql, p)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("seed %d, parallelism %d, %s\ngot:\n%s\nwant:\n%s", seed, p, q.sql, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		}
	}
}

// TestNormalizeWatermarksPassThrough: a watermark of the upsert source
// goes through the normalize at once, to the operator after it.
func TestNormalizeWatermarksPassThrough(t *testing.T) {
	sql := `CREATE TABLE w (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'scripted-wm', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
SELECT k, COUNT(*) FROM w GROUP BY k;`
	j := frontend.CheckJob(diag.NewSource("job.sql", sql))
	if j.Diags.HasErrors() {
		t.Fatal(j.Diags.Err())
	}
	job, err := Build(context.Background(), plantest.Lower(t, j.Session.Plans), Options{
		QuerySink: func(string, []connector.Column) connector.Sink { return &funcSink{write: func(row.Batch) {}} }})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	if err := job.open(context.Background(), context.Background()); err != nil {
		t.Fatal(err)
	}
	entry := job.entry[0]
	if err := entry.push(row.Batch{{Kind: changelogmode.UpdateAfter, Vals: []row.Value{row.StrValue("a"), row.IntValue(1), row.IntValue(5000)}}}); err != nil {
		t.Fatal(err)
	}
	if err := entry.watermark(4000); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, o := range job.Operators {
		if strings.HasPrefix(o.Name, "ChangelogNormalize") || strings.HasPrefix(o.Name, "GroupAggregate") {
			seen++
			if w := o.Watermark.Load(); w != 4000 {
				t.Errorf("%s saw watermark %d, want 4000", o.Name, w)
			}
		}
	}
	if seen != 2 {
		t.Errorf("want the normalize and the aggregate among the operators, found %d of them", seen)
	}
}

// upsertTopics are what the test sink of 'upsert-kafka' was written, by
// topic: the compacted table (key: the first column) and any -U it was
// handed, which an upsert sink must never get.
var (
	upsertMu     sync.Mutex
	upsertTopics = map[string]map[string]string{}
	upsertBefore = map[string]int{}
)

func init() {
	connector.RegisterSink("upsert-kafka", func(sp connector.Spec) (connector.Sink, error) {
		topic := sp.Options.Get("topic")
		upsertMu.Lock()
		upsertTopics[topic], upsertBefore[topic] = map[string]string{}, 0
		upsertMu.Unlock()
		return &funcSink{write: func(rows row.Batch) {
			upsertMu.Lock()
			defer upsertMu.Unlock()
			for _, r := range rows {
				parts := make([]string, len(r.Vals))
				for i, v := range r.Vals {
					parts[i] = eval.FormatValue(v, sp.Schema[i].Type)
				}
				switch r.Kind {
				case changelogmode.Insert, changelogmode.UpdateAfter:
					upsertTopics[topic][parts[0]] = "[" + strings.Join(parts, ", ") + "]"
				case changelogmode.Delete:
					delete(upsertTopics[topic], parts[0])
				case changelogmode.UpdateBefore:
					upsertBefore[topic]++
				}
			}
		}}, nil
	})
}

// TestFilterOverUpdatesIntoUpsertSink: a HAVING over a GROUP BY into an
// upsert sink. When a group's count leaves the condition (1 → 2) in a later
// batch, the +U fails it and only the -U of the old result can remove the
// key: the filter needs -U (Flink's changelog inference, FLINK-9528) and
// the upsert sink applies it as a deletion. Parallelism 1 and 4.
func TestFilterOverUpdatesIntoUpsertSink(t *testing.T) {
	// The source hands rows over in batches of 7: u0 and u3 come again
	// in later batches.
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u0", "u7", "u8", "u3", "u3", "u9"}
	var rows row.Batch
	count := map[string]int{}
	for _, u := range users {
		rows = append(rows, row.Insert(row.StrValue(u)))
		count[u]++
	}
	setData("having.json", rows)
	want := map[string]string{}
	for u, n := range count {
		if n < 2 {
			want[u] = fmt.Sprintf("[%s, %d]", u, n)
		}
	}
	for _, p := range []int{1, 4} {
		sql := `CREATE TABLE clicks (u STRING) WITH ('connector' = 'filesystem', 'path' = 'having.json', 'format' = 'json');
CREATE TABLE rare (u STRING, n BIGINT, PRIMARY KEY (u) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'rare', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO rare SELECT u, COUNT(*) FROM clicks GROUP BY u HAVING COUNT(*) < 2;`
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
		got, before := fmt.Sprint(upsertTopics["rare"]), upsertBefore["rare"]
		upsertMu.Unlock()
		if got != fmt.Sprint(want) {
			t.Errorf("parallelism %d: the upsert sink holds %s, want %s", p, got, fmt.Sprint(want))
		}
		if before != 0 {
			t.Errorf("parallelism %d: the upsert sink was handed %d -U", p, before)
		}
	}
}
