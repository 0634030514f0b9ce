package exec

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Equi-join keys of different types match when SQL's = says they are
// equal: the reference is a nested loop over both inputs that asks the
// engine's own comparison (eval's "=", what a WHERE clause runs) about every
// pair, independently of how a join encodes, hashes and partitions its keys.
// Every join kind runs at parallelism 1 and 4, so that the exchange has to
// send equal keys of different types to the same partition. The same cases
// run again with null-safe keys (IS NOT DISTINCT FROM) and a NULL on each
// side; PostgreSQL checks eval's IS NOT DISTINCT FROM (oracle's
// TestNullSafeAgainstPostgres).

type keyTypeCase struct {
	name        string
	lt, rt      types.T
	left, right []string // values as text (eval.ParseValue); "null" is NULL
}

var keyTypeCases = []keyTypeCase{
	{"decimal scales", types.DecimalOf(10, 1), types.DecimalOf(10, 3),
		[]string{"1.5", "2", "0.1", "-1.5", "null"}, []string{"1.500", "2.000", "0.100", "1.501", "-1.500", "null"}},
	{"int and double", types.New(types.Int), types.New(types.Double),
		[]string{"5", "0", "-3", "2147483647", "null"}, []string{"5.0", "-0.0", "-3.0", "5.5", "2147483647.0", "NaN"}},
	{"int and decimal", types.New(types.Int), types.DecimalOf(5, 2),
		[]string{"5", "0", "-3", "100"}, []string{"5.00", "0.00", "-3.00", "5.01", "100.00"}},
	{"bigint and int", types.New(types.BigInt), types.New(types.Int),
		[]string{"5", "9223372036854775807", "-1", "2147483648"}, []string{"5", "-1", "2147483647"}},
	{"tinyint and smallint", types.New(types.TinyInt), types.New(types.SmallInt),
		[]string{"5", "-128", "127"}, []string{"5", "-128", "128"}},
	// A BIGINT too large for the DECIMAL both sides are compared in cannot
	// equal any value of the other side: it must not fail the job.
	{"bigint and decimal", types.New(types.BigInt), types.DecimalOf(5, 2),
		[]string{"9223372036854775807", "5", "10000000000000000", "-9223372036854775808"}, []string{"5.00", "999.99"}},
	// Comparisons with a FLOAT are made in double precision: 16777217 is
	// not the FLOAT 16777216 (it would be if the INT were made a FLOAT).
	{"float and int", types.New(types.Float), types.New(types.Int),
		[]string{"16777216", "0.5", "1"}, []string{"16777217", "16777216", "1"}},
	{"decimal and double", types.DecimalOf(3, 1), types.New(types.Double),
		[]string{"0.1", "0.3", "1.0"}, []string{"0.1", "0.30000000000000004", "1"}},
	// -0.0 = 0.0 and NaN = NaN, as the engine's = says (and PostgreSQL).
	{"double zeros and NaN", types.New(types.Double), types.New(types.Double),
		[]string{"0.0", "-0.0", "NaN", "1.0"}, []string{"-0.0", "0.0", "NaN", "1.0"}},
	{"float and double", types.New(types.Float), types.New(types.Double),
		[]string{"0.5", "-0.0", "NaN"}, []string{"0.5", "0.0", "NaN", "0.1"}},
	{"timestamp precisions", types.TimestampOf(3), types.TimestampOf(6),
		[]string{"2026-01-01 10:00:00.123", "2026-01-01 10:00:00"}, []string{"2026-01-01 10:00:00.123000", "2026-01-01 10:00:00.124", "2026-01-01 10:00:00.000000"}},
	// Strings compare as they are: a value longer than its column's
	// length (sources do not cut them) is not cut to match a shorter one.
	{"char and varchar", types.CharOf(3), types.VarcharOf(5),
		[]string{"ab", "abc", "x", "abcdef"}, []string{"ab", "abc", "abcd", "x", "abcde"}},
	{"varchar and string", types.VarcharOf(5), types.StringType(),
		[]string{"ab", "", "abcde", "abcdefg"}, []string{"ab", "", "abcde", "abcdef", "abcdefg"}},
}

// sqlEquals is the engine's = between a value of type a and one of type b
// (NULL: false).
func sqlEquals(t *testing.T, a, b types.T) func(x, y row.Value) bool {
	t.Helper()
	return sqlCompare(t, "=", a, b)
}

// sqlCompare is the engine's comparison op (= or IS NOT DISTINCT FROM)
// between a value of type a and one of type b (NULL: false).
func sqlCompare(t *testing.T, op string, a, b types.T) func(x, y row.Value) bool {
	t.Helper()
	eq := &expr.Call{Fn: op, Args: []expr.Expr{&expr.Column{Index: 0, T: a}, &expr.Column{Index: 1, T: b}}, T: types.New(types.Boolean)}
	f, err := eval.CompilePredicate(eq)
	if err != nil {
		t.Fatal(err)
	}
	return func(x, y row.Value) bool {
		ok, err := f([]row.Value{x, y})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
}

func parseValues(t *testing.T, typ types.T, texts []string) []row.Value {
	t.Helper()
	out := make([]row.Value, len(texts))
	for i, s := range texts {
		if s == "null" {
			continue
		}
		v, err := eval.ParseValue(s, typ)
		if err != nil {
			t.Fatalf("%s as %s: %v", s, typ, err)
		}
		out[i] = v
	}
	return out
}

// joinKind is one way of writing a join of l and r on l.k = r.k.
type joinKind struct {
	name string
	// query selects l.id, r.id.
	query string
	// outerL and outerR say which sides are padded when unmatched.
	outerL, outerR bool
	// versioned: r is a versioned table (one row per key), l probes it.
	versioned bool
}

func keyJoinKinds() []joinKind {
	var ks []joinKind
	for _, k := range []struct {
		sql            string
		outerL, outerR bool
	}{{"JOIN", false, false}, {"LEFT JOIN", true, false}, {"RIGHT JOIN", false, true}, {"FULL JOIN", true, true}} {
		ks = append(ks,
			joinKind{name: "regular " + k.sql, outerL: k.outerL, outerR: k.outerR,
				query: "SELECT l.id, r.id FROM l " + k.sql + " r ON l.k = r.k"},
			joinKind{name: "interval " + k.sql, outerL: k.outerL, outerR: k.outerR,
				query: "SELECT l.id, r.id FROM l " + k.sql + " r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts + INTERVAL '1' SECOND"},
			joinKind{name: "window " + k.sql, outerL: k.outerL, outerR: k.outerR,
				query: "SELECT lw.id, rw.id FROM lw " + k.sql + " rw ON lw.k = rw.k AND lw.window_start = rw.window_start AND lw.window_end = rw.window_end"})
	}
	ks = append(ks,
		joinKind{name: "comma join", query: "SELECT l.id, r.id FROM l, r WHERE l.k = r.k"},
		joinKind{name: "temporal JOIN", versioned: true,
			query: "SELECT l.id, r.id FROM l JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k"},
		joinKind{name: "temporal LEFT JOIN", versioned: true, outerL: true,
			query: "SELECT l.id, r.id FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k"})
	return ks
}

// keyJoinReference is the join's expected final table: every pair that =
// relates, and the unmatched rows of outer sides padded with NULL.
func keyJoinReference(k joinKind, eq func(x, y row.Value) bool, left, right []row.Value) []string {
	var out []string
	rMatched := make([]bool, len(right))
	for i, x := range left {
		matched := false
		for j, y := range right {
			if eq(x, y) {
				matched, rMatched[j] = true, true
				out = append(out, fmt.Sprintf("[l%d, r%d]", i, j))
			}
		}
		if !matched && k.outerL {
			out = append(out, fmt.Sprintf("[l%d, NULL]", i))
		}
	}
	for j := range right {
		if !rMatched[j] && k.outerR {
			out = append(out, fmt.Sprintf("[NULL, r%d]", j))
		}
	}
	sort.Strings(out)
	return out
}

func TestJoinKeysOfDifferentTypesMatchAsEquals(t *testing.T) {
	testJoinKeyTypes(t, "=")
}

// TestNullSafeJoinKeysMatchAsIsNotDistinctFrom is the same with the keys
// written l.k IS NOT DISTINCT FROM r.k and a NULL on each side: a NULL
// matches a NULL, and a value made NULL by the cast to the common type (a
// BIGINT too large for DECIMAL(21, 2)) does not.
func TestNullSafeJoinKeysMatchAsIsNotDistinctFrom(t *testing.T) {
	testJoinKeyTypes(t, "IS NOT DISTINCT FROM")
}

// testJoinKeyTypes runs every keyTypeCase in every joinKind with the keys
// compared by op (= or IS NOT DISTINCT FROM), against a nested loop that
// asks the engine's op about each pair.
func testJoinKeyTypes(t *testing.T, op string) {
	const t0 = 1_767_225_600_000 // 2026-01-01 00:00:00
	for _, c := range keyTypeCases {
		eq := sqlCompare(t, op, c.lt, c.rt)
		if op != "=" {
			c.left = append(slices.Clone(c.left), "null")
			c.right = append(slices.Clone(c.right), "null")
		}
		left, right := parseValues(t, c.lt, c.left), parseValues(t, c.rt, c.right)
		// A versioned table holds one row per key: keep the first of the
		// right values that = makes equal (as its primary key would).
		eqR := sqlEquals(t, c.rt, c.rt)
		var versions []row.Value
		for _, y := range right {
			dup := y.IsNull()
			for _, v := range versions {
				dup = dup || eqR(v, y)
			}
			if !dup {
				versions = append(versions, y)
			}
		}
		for _, k := range keyJoinKinds() {
			rvals := right
			if k.versioned {
				rvals = versions
			}
			// Every row at the same time: the time conditions of the
			// interval and window joins hold for every pair, and the
			// versioned side's rows are valid before the probes.
			rt := int64(t0 + 1000)
			if k.versioned {
				rt = t0
			}
			tag := strings.NewReplacer(" ", "_").Replace(c.name + " " + k.name)
			var lrows, rrows row.Batch
			for i, v := range left {
				lrows = append(lrows, row.Insert(row.StrValue(fmt.Sprintf("l%d", i)), v, row.IntValue(t0+1000)))
			}
			for j, v := range rvals {
				rrows = append(rrows, row.Insert(row.StrValue(fmt.Sprintf("r%d", j)), v, row.IntValue(rt)))
			}
			setData(tag+"-l", lrows)
			setData(tag+"-r", rrows)
			pk := ""
			if k.versioned {
				pk = ", PRIMARY KEY (k) NOT ENFORCED"
			}
			ddl := fmt.Sprintf(`CREATE TABLE l (id STRING, k %s, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '%s-l', 'format' = 'json');
CREATE TABLE r (id STRING, k %s, ts TIMESTAMP(3), WATERMARK FOR ts AS ts%s) WITH ('connector' = 'filesystem', 'path' = '%s-r', 'format' = 'json');
CREATE VIEW lw AS SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND));
CREATE VIEW rw AS SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND));
`, c.lt, tag, c.rt, pk, tag)
			want := keyJoinReference(k, eq, left, rvals)
			query := strings.ReplaceAll(k.query, ".k = ", ".k "+op+" ")
			for _, p := range []int{1, 4} {
				got := runJob(t, ddl+query+";", p)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s (%s %s %s), %s, parallelism %d:\n got %v\nwant %v", c.name, c.lt, op, c.rt, k.name, p, got, want)
				}
			}
		}
	}
}

// TestGroupKeysFollowEquals: GROUP BY and COUNT(DISTINCT) put values in one
// group exactly when = says they are equal: -0.0 with 0.0, every NaN with
// every other (as PostgreSQL does too), whatever their bits.
func TestGroupKeysFollowEquals(t *testing.T) {
	vals := []row.Value{row.FloatValue(0), row.FloatValue(math.Copysign(0, -1)), row.FloatValue(math.NaN()),
		row.FloatValue(math.Float64frombits(0xfff8000000000001)), row.FloatValue(1), row.FloatValue(-1), row.NullValue, row.FloatValue(0)}
	var rows row.Batch
	for i, v := range vals {
		rows = append(rows, row.Insert(v, row.IntValue(int64(i))))
	}
	setData("groupkeys", rows)
	eq := sqlEquals(t, types.New(types.Double), types.New(types.Double))
	// The reference: classes of = (NULL its own group, not counted as distinct).
	var classes [][]int
	for i, v := range vals {
		placed := false
		for c, members := range classes {
			w := vals[members[0]]
			if v.IsNull() && w.IsNull() || !v.IsNull() && !w.IsNull() && eq(v, w) {
				classes[c] = append(classes[c], i)
				placed = true
				break
			}
		}
		if !placed {
			classes = append(classes, []int{i})
		}
	}
	var want []string
	distinct := 0
	for _, members := range classes {
		sum := 0
		for _, i := range members {
			sum += i
		}
		want = append(want, fmt.Sprintf("[%d, %d]", len(members), sum))
		if !vals[members[0]].IsNull() {
			distinct++
		}
	}
	sort.Strings(want)
	ddl := "CREATE TABLE t (k DOUBLE, v INT) WITH ('connector' = 'filesystem', 'path' = 'groupkeys', 'format' = 'json');\n"
	for _, p := range []int{1, 4} {
		if got := runJob(t, ddl+"SELECT COUNT(*), SUM(v) FROM t GROUP BY k;", p); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("GROUP BY k, parallelism %d:\n got %v\nwant %v", p, got, want)
		}
		wantD := []string{fmt.Sprintf("[%d]", distinct)}
		if got := runJob(t, ddl+"SELECT COUNT(DISTINCT k) FROM t;", p); strings.Join(got, "\n") != strings.Join(wantD, "\n") {
			t.Errorf("COUNT(DISTINCT k), parallelism %d: got %v, want %v", p, got, wantD)
		}
	}
}
