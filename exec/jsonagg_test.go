package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// jsonKeys returns the keys of a JSON object text in the order written.
func jsonKeys(t *testing.T, text string) []string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(text))
	var keys []string
	depth := 0
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				keys = append(keys, v)
				var skip json.RawMessage
				if err := d.Decode(&skip); err != nil {
					t.Fatalf("%s: %v", text, err)
				}
			}
		}
	}
	return keys
}

func parseJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %q: %v", text, err)
	}
	return v
}

// TestJSONAggregatesAgainstPostgreSQL: JSON_OBJECTAGG and JSON_ARRAYAGG over
// an insert-only input (strings with quotes, backslashes, control and
// non-ASCII characters; integers, doubles, booleans; NULLs), per group,
// against PostgreSQL's json_object_agg and json_agg (ordered by arrival,
// FILTER (WHERE x IS NOT NULL) for ABSENT ON NULL) over the same rows,
// compared as JSON values; the object's keys must come sorted (Flink's
// serializer sorts them) and the array's elements in arrival order.
func TestJSONAggregatesAgainstPostgreSQL(t *testing.T) {
	url := os.Getenv("ORACLE_PG")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := pgx.Connect(ctx, url)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL at %s: %v", url, err)
		}
		t.Skipf("PostgreSQL at %s: %v", url, err)
	}
	defer pg.Close(context.Background())
	r := rand.New(rand.NewSource(11))
	words := []string{"a", "b", `say "hi"`, `back\slash`, "tab\there", "line\nbreak", "ünï", "日本", "😀", "\u0001", "", "null"}
	var data row.Batch
	var values []string
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	for i := 0; i < 300; i++ {
		g := fmt.Sprintf("g%d", r.Intn(4))
		k := fmt.Sprintf("%s%d", words[r.Intn(len(words))], i) // unique per row
		vals := []row.Value{row.IntValue(int64(i)), row.StrValue(g), row.StrValue(k), row.NullValue, row.NullValue, row.NullValue, row.NullValue}
		pv := []string{strconv.Itoa(i), lit(g), lit(k), "NULL::int", "NULL::text", "NULL::float8", "NULL::boolean"}
		if r.Intn(5) > 0 {
			v := int64(r.Intn(2001) - 1000)
			vals[3], pv[3] = row.IntValue(v), fmt.Sprintf("%d::int", v)
		}
		if r.Intn(5) > 0 {
			s := words[r.Intn(len(words))]
			vals[4], pv[4] = row.StrValue(s), lit(s)+"::text"
		}
		if r.Intn(5) > 0 {
			d := float64(r.Intn(20001)-10000) / 64 // exact in binary and decimal
			vals[5], pv[5] = row.FloatValue(d), strconv.FormatFloat(d, 'g', -1, 64)+"::float8"
		}
		if r.Intn(5) > 0 {
			b := r.Intn(2) == 0
			vals[6], pv[6] = row.BoolValue(b), strconv.FormatBool(b)
		}
		data = append(data, row.Insert(vals...))
		values = append(values, "("+strings.Join(pv, ", ")+")")
	}
	setData("jsonagg-pg.json", data)
	ddl := "CREATE TABLE t (seq INT, g STRING, k STRING, v INT, s STRING, d DOUBLE, b BOOLEAN) " +
		"WITH ('connector' = 'filesystem', 'path' = 'jsonagg-pg.json', 'format' = 'json');\n"
	cases := []struct {
		ours, pg string
		object   bool
	}{
		{"JSON_OBJECTAGG(KEY k VALUE v)", "json_object_agg(k, v)", true},
		{"JSON_OBJECTAGG(k VALUE s NULL ON NULL)", "json_object_agg(k, s)", true},
		{"JSON_OBJECTAGG(KEY k VALUE d ABSENT ON NULL)", "coalesce(json_object_agg(k, d) FILTER (WHERE d IS NOT NULL), '{}')", true},
		{"JSON_OBJECTAGG(KEY k || s VALUE seq) FILTER (WHERE s IS NOT NULL AND seq < 50)", "coalesce(json_object_agg(k || s, seq) FILTER (WHERE s IS NOT NULL AND seq < 50), '{}')", true},
		{"JSON_ARRAYAGG(s)", "coalesce(json_agg(s ORDER BY seq) FILTER (WHERE s IS NOT NULL), '[]')", false},
		{"JSON_ARRAYAGG(v NULL ON NULL)", "json_agg(v ORDER BY seq)", false},
		{"JSON_ARRAYAGG(d ABSENT ON NULL)", "coalesce(json_agg(d ORDER BY seq) FILTER (WHERE d IS NOT NULL), '[]')", false},
		{"JSON_ARRAYAGG(b NULL ON NULL) FILTER (WHERE v > 0)", "coalesce(json_agg(b ORDER BY seq) FILTER (WHERE v > 0), '[]')", false},
		{"JSON_ARRAYAGG(JSON_OBJECT(KEY 'k' VALUE k, KEY 'v' VALUE v))", "json_agg(json_build_object('k', k, 'v', v) ORDER BY seq)", false},
	}
	for _, c := range cases {
		got := runJob(t, ddl+"SELECT g, "+c.ours+" FROM t GROUP BY g;\n", 1)
		rows, err := pg.Query(ctx, "SELECT g, ("+c.pg+")::text FROM (VALUES "+strings.Join(values, ", ")+") AS t(seq, g, k, v, s, d, b) GROUP BY g")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for rows.Next() {
			var g, j string
			if err := rows.Scan(&g, &j); err != nil {
				t.Fatal(err)
			}
			want[g] = j
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) != 4 {
			t.Fatalf("%s: %d groups from streamsql, %d from PostgreSQL:\n%s", c.ours, len(got), len(want), strings.Join(got, "\n"))
		}
		for _, line := range got {
			g, j, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(line, "["), "]"), ", ")
			if !reflect.DeepEqual(parseJSON(t, j), parseJSON(t, want[g])) {
				t.Errorf("%s, group %s:\nstreamsql  %s\nPostgreSQL %s", c.ours, g, j, want[g])
			}
			if c.object {
				keys := jsonKeys(t, j)
				if !slices.IsSortedFunc(keys, javaStringCompare) {
					t.Errorf("%s, group %s: keys not in Java's order: %q", c.ours, g, keys)
				}
			}
		}
	}
}

// TestJavaStringOrder: Java's String.compareTo orders by UTF-16 code units:
// a character above U+FFFF (a surrogate pair, 0xD83D…) sorts before one
// from U+E000 to U+FFFF, unlike in byte order.
func TestJavaStringOrder(t *testing.T) {
	keys := []string{"\uFF01", "😀", "b", "a", "ab", "日本", ""}
	slices.SortFunc(keys, javaStringCompare)
	want := []string{"", "a", "ab", "b", "日本", "😀", "\uFF01"}
	if !slices.Equal(keys, want) {
		t.Fatalf("got %q, want %q", keys, want)
	}
}

// jsonRow is a row of t in the retraction tests: id unique among live rows.
type jsonRow struct {
	g, id string
	v     *int64
	s     *string
}

func (x jsonRow) text() string {
	v, s := "null", "null"
	if x.v != nil {
		v = strconv.FormatInt(*x.v, 10)
	}
	if x.s != nil {
		s = *x.s
	}
	return strings.Join([]string{x.g, x.id, v, s}, ", ")
}

func (x jsonRow) values() []row.Value {
	vals := []row.Value{row.StrValue(x.g), row.StrValue(x.id), row.NullValue, row.NullValue}
	if x.v != nil {
		vals[2] = row.IntValue(*x.v)
	}
	if x.s != nil {
		vals[3] = row.StrValue(*x.s)
	}
	return vals
}

type jsonChange struct {
	kind string
	row  jsonRow
}

// randJSONChanges is a changelog of inserts, deletes and updates (-U/+U
// that may move a row to another group) whose live rows have distinct
// ids; it returns the changes and the rows left.
func randJSONChanges(r *rand.Rand) ([]jsonChange, []jsonRow) {
	var changes []jsonChange
	var live []jsonRow
	next := 0
	mk := func() jsonRow {
		next++
		x := jsonRow{g: fmt.Sprintf("g%d", r.Intn(3)), id: fmt.Sprintf("r%d", next)}
		if r.Intn(5) > 0 {
			v := int64(r.Intn(7) - 3)
			x.v = &v
		}
		if r.Intn(5) > 0 {
			s := string(rune('a' + r.Intn(3)))
			x.s = &s
		}
		return x
	}
	for n := 0; n < 30+r.Intn(80); n++ {
		switch x := r.Intn(6); {
		case x < 2 && len(live) > 0:
			i := r.Intn(len(live))
			changes = append(changes, jsonChange{"-D", live[i]})
			live = slices.Delete(live, i, i+1)
		case x == 2 && len(live) > 0:
			i := r.Intn(len(live))
			y := mk()
			changes = append(changes, jsonChange{"-U", live[i]}, jsonChange{"+U", y})
			live[i] = y
		default:
			y := mk()
			changes = append(changes, jsonChange{"+I", y})
			live = append(live, y)
		}
	}
	return changes, live
}

// runJSONChanges runs query over the changes as table t (g, id, v, s), in
// memory, with every group spilled, or at 4 partitions, and returns the
// final table.
func runJSONChanges(t *testing.T, mode, name, query string, changes []jsonChange) []string {
	t.Helper()
	const cols = "CREATE TABLE t (g STRING, id STRING, v INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json');\n"
	if mode == "parallel" {
		var data row.Batch
		for _, c := range changes {
			k, _ := changelogmode.ParseKind(c.kind)
			data = append(data, row.Row{Kind: k, Vals: c.row.values()})
		}
		setData(name, data)
		return runJob(t, fmt.Sprintf(cols, name)+query, 4)
	}
	var b strings.Builder
	fmt.Fprintf(&b, cols, "script")
	if mode == "spill" {
		b.WriteString("SET 'state.memory-budget' = '1b';\n")
	}
	b.WriteString(query + "=== events\n")
	for _, c := range changes {
		fmt.Fprintf(&b, "t %s %s\n", c.kind, c.row.text())
	}
	b.WriteString("t end\n")
	out, err := runScript(b.String())
	if err != nil {
		t.Fatalf("%s: %v\n%s", mode, err, b.String())
	}
	if mode == "spill" && !strings.Contains(out, "(state spilled to disk)") {
		t.Fatalf("a one-byte budget did not spill")
	}
	return materialize(t, out)
}

// TestJSONAggregatesRetractionMatchReference: JSON_OBJECTAGG and
// JSON_ARRAYAGG over random changelogs (inserts, deletes, updates that may
// move a row to another group, NULL values), in memory, spilled and at 4
// partitions, against a brute-force model: the object is the live rows'
// ids and values (keys sorted), the arrays Flink's ListView (values in
// arrival order, a retraction taking out the first equal one).
func TestJSONAggregatesRetractionMatchReference(t *testing.T) {
	const query = "SELECT g, JSON_OBJECTAGG(KEY id VALUE v), JSON_OBJECTAGG(KEY id VALUE s ABSENT ON NULL), " +
		"JSON_ARRAYAGG(v), JSON_ARRAYAGG(s NULL ON NULL), JSON_ARRAYAGG(v) FILTER (WHERE v > 0) FROM t GROUP BY g;\n"
	for _, mode := range []string{"memory", "spill", "parallel"} {
		for seed := int64(1); seed <= 40; seed++ {
			if mode != "memory" && seed > 10 {
				break
			}
			r := rand.New(rand.NewSource(seed))
			changes, live := randJSONChanges(r)
			// The arrays: per group, in arrival order.
			lists := [3]map[string][]string{{}, {}, {}}
			for _, c := range changes {
				retract := c.kind == "-D" || c.kind == "-U"
				v, s := "null", "null"
				if c.row.v != nil {
					v = strconv.FormatInt(*c.row.v, 10)
				}
				if c.row.s != nil {
					s = strconv.Quote(*c.row.s)
				}
				for i, e := range []struct {
					val  string
					take bool
				}{{v, c.row.v != nil}, {s, true}, {v, c.row.v != nil && *c.row.v > 0}} {
					if !e.take {
						continue
					}
					l := lists[i][c.row.g]
					if !retract {
						lists[i][c.row.g] = append(l, e.val)
					} else if j := slices.Index(l, e.val); j >= 0 {
						lists[i][c.row.g] = slices.Delete(l, j, j+1)
					}
				}
			}
			groups := map[string][]jsonRow{}
			for _, x := range live {
				groups[x.g] = append(groups[x.g], x)
			}
			var want []string
			for g, rows := range groups {
				sort.Slice(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
				var o1, o2 []string
				for _, x := range rows {
					v := "null"
					if x.v != nil {
						v = strconv.FormatInt(*x.v, 10)
					}
					o1 = append(o1, strconv.Quote(x.id)+":"+v)
					if x.s != nil {
						o2 = append(o2, strconv.Quote(x.id)+":"+strconv.Quote(*x.s))
					}
				}
				cells := []string{g, "{" + strings.Join(o1, ",") + "}", "{" + strings.Join(o2, ",") + "}"}
				for i := range lists {
					cells = append(cells, "["+strings.Join(lists[i][g], ",")+"]")
				}
				want = append(want, "["+strings.Join(cells, ", ")+"]")
			}
			sort.Strings(want)
			got := runJSONChanges(t, mode, fmt.Sprintf("jsonagg-%d.json", seed), query, changes)
			if joinLines(got) != joinLines(want) {
				t.Fatalf("%s seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s", mode, seed, joinLines(got), joinLines(want))
			}
		}
	}
}

// TestJSONAggregatesOverAnUpdatingAggregate: the cookbook's shape, an
// aggregate of another aggregate's updating output (SELECT
// JSON_OBJECTAGG(KEY k VALUE cnt) FROM (SELECT k, COUNT(*) … GROUP BY k)):
// each -U/+U of the inner aggregate must take the key's old value out
// before its new one goes in. Against the final inner table, recomputed
// from the live rows; the array (whose order follows the inner changes) is
// compared as a multiset.
func TestJSONAggregatesOverAnUpdatingAggregate(t *testing.T) {
	const query = "SELECT g, JSON_OBJECTAGG(KEY k VALUE n), JSON_OBJECTAGG(KEY k VALUE n ABSENT ON NULL), JSON_ARRAYAGG(k) " +
		"FROM (SELECT g, COALESCE(s, 'none') AS k, SUM(v) AS n FROM t GROUP BY g, COALESCE(s, 'none')) GROUP BY g;\n"
	for _, mode := range []string{"memory", "spill", "parallel"} {
		for seed := int64(1); seed <= 30; seed++ {
			if mode != "memory" && seed > 8 {
				break
			}
			r := rand.New(rand.NewSource(seed))
			changes, live := randJSONChanges(r)
			type inner struct {
				n   int64
				any bool
			}
			groups := map[string]map[string]*inner{}
			for _, x := range live {
				k := "none"
				if x.s != nil {
					k = *x.s
				}
				if groups[x.g] == nil {
					groups[x.g] = map[string]*inner{}
				}
				in := groups[x.g][k]
				if in == nil {
					in = &inner{}
					groups[x.g][k] = in
				}
				if x.v != nil {
					in.n += *x.v
					in.any = true
				}
			}
			var want []string
			for g, ks := range groups {
				keys := slices.Sorted(func(yield func(string) bool) {
					for k := range ks {
						if !yield(k) {
							return
						}
					}
				})
				var o1, o2, a []string
				for _, k := range keys {
					n := "null"
					if ks[k].any {
						n = strconv.FormatInt(ks[k].n, 10)
						o2 = append(o2, strconv.Quote(k)+":"+n)
					}
					o1 = append(o1, strconv.Quote(k)+":"+n)
					a = append(a, strconv.Quote(k))
				}
				want = append(want, "["+strings.Join([]string{g, "{" + strings.Join(o1, ",") + "}", "{" + strings.Join(o2, ",") + "}", "[" + strings.Join(a, ",") + "]"}, ", ")+"]")
			}
			sort.Strings(want)
			got := runJSONChanges(t, mode, fmt.Sprintf("jsonagg-nested-%d.json", seed), query, changes)
			for i, line := range got {
				// Sort the array's elements (the last cell).
				at := strings.LastIndex(line, ", [")
				var elems []string
				if err := json.Unmarshal([]byte(strings.TrimSuffix(line[at+2:], "]")), &elems); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				sort.Strings(elems)
				var b bytes.Buffer
				for j, e := range elems {
					if j > 0 {
						b.WriteByte(',')
					}
					b.WriteString(strconv.Quote(e))
				}
				got[i] = line[:at+2] + "[" + b.String() + "]]"
			}
			sort.Strings(got)
			if joinLines(got) != joinLines(want) {
				t.Fatalf("%s seed %d: engine and reference differ\nengine:\n%s\nreference:\n%s", mode, seed, joinLines(got), joinLines(want))
			}
		}
	}
}

// TestJSONObjectAggErrors: a NULL key and a key that comes again while
// present stop the job, as in Flink, with a message naming the key.
func TestJSONObjectAggErrors(t *testing.T) {
	const ddl = "CREATE TABLE t (g STRING, id STRING, v INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'script', 'format' = 'debezium-json');\n"
	for _, c := range []struct{ events, want string }{
		{"t +I g1, a, 1, x\nt +I g1, a, 2, y\nt end\n", "JSON_OBJECTAGG: key 'a' is already present; duplicate keys are not allowed"},
		{"t +I g1, a, 1, x\nt +I g1, a, null, y\nt end\n", "JSON_OBJECTAGG: key 'a' is already present"}, // checked before ABSENT ON NULL skips the NULL, as in Flink
		{"t +I g1, null, 1, x\nt end\n", "JSON_OBJECTAGG: a key is NULL"},
	} {
		_, err := runScript(ddl + "SELECT g, JSON_OBJECTAGG(KEY id VALUE v ABSENT ON NULL) FROM t GROUP BY g;\n=== events\n" + c.events)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error with %q", c.events, err, c.want)
		}
	}
	// A key whose value is retracted may come again.
	out, err := runScript(ddl + "SELECT g, JSON_OBJECTAGG(KEY id VALUE v) FROM t GROUP BY g;\n=== events\n" +
		"t +I g1, a, 1, x\nt +I g1, b, null, x\nt -U g1, a, 1, x\nt +U g1, a, 2, x\nt -D g1, b, null, x\nt +I g1, b, 3, x\nt end\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := materialize(t, out); joinLines(got) != `[g1, {"a":2,"b":3}]` {
		t.Fatalf("got %s", joinLines(got))
	}
}

// TestJSONAggregatesDocExample: the example of docs/sql.md ("JSON_OBJECTAGG
// and JSON_ARRAYAGG") gives what the page says it gives.
func TestJSONAggregatesDocExample(t *testing.T) {
	got := runJob(t, `SELECT JSON_OBJECTAGG(KEY fruit VALUE n) AS counts, JSON_OBJECTAGG(KEY fruit VALUE n ABSENT ON NULL) AS known,
  JSON_ARRAYAGG(fruit) AS fruits, JSON_ARRAYAGG(n NULL ON NULL) AS ns
FROM (VALUES ('pear', 2), ('apple', CAST(NULL AS INT)), ('fig', 5)) AS t (fruit, n);
`, 1)
	want := `[{"apple":null,"fig":5,"pear":2}, {"fig":5,"pear":2}, ["pear","apple","fig"], [2,null,5]]`
	if joinLines(got) != want {
		t.Fatalf("got %s, want %s", joinLines(got), want)
	}
}
