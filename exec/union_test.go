package exec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// UNION ALL of branches of different types converts each branch's values
// to the union's type (issue #11, item 8: an INT 3 under a DECIMAL(5, 2)
// union read as 0.03, and under a DOUBLE as 0). The reference parses each
// value's text straight into the union's type, without the engine's
// numeric conversions; the values are exact in every type they meet. A
// comparison above the union (v < 1) reads each value as the union's type,
// as a sink's encoder does (printing alone would not tell an INT 3 from a
// DOUBLE 3.0).

type unionBranch struct {
	t    types.T
	vals []string // "null" is NULL
}

var unionBranches = []unionBranch{
	{types.New(types.TinyInt), []string{"3", "-2", "127", "null"}},
	{types.New(types.SmallInt), []string{"3", "-300"}},
	{types.New(types.Int), []string{"3", "100000", "null"}},
	{types.New(types.BigInt), []string{"3", "5000000000"}},
	{types.DecimalOf(5, 2), []string{"1.25", "-3.50", "3"}},
	{types.DecimalOf(10, 0), []string{"7", "-1"}},
	{types.New(types.Float), []string{"0.5", "1.25", "null"}},
	{types.New(types.Double), []string{"0.5", "-2.75", "3"}},
}

func unionRows(t *testing.T, b unionBranch, tag string) row.Batch {
	t.Helper()
	var rows row.Batch
	for i, s := range b.vals {
		v := row.NullValue
		if s != "null" {
			var err error
			if v, err = eval.ParseValue(s, b.t); err != nil {
				t.Fatal(err)
			}
		}
		rows = append(rows, row.Insert(row.StrValue(fmt.Sprintf("%s%d", tag, i)), v))
	}
	return rows
}

// unionReference is the union's final table: each branch's values parsed as
// the union's type u.
func unionReference(t *testing.T, u types.T, branches ...unionBranch) []string {
	t.Helper()
	var want []string
	for bi, b := range branches {
		for i, s := range b.vals {
			txt, less := "NULL", "NULL"
			if s != "null" {
				v, err := eval.ParseValue(s, u)
				if err != nil {
					t.Fatalf("%s as %s: %v", s, u, err)
				}
				txt = eval.FormatValue(v, u)
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				less = strings.ToUpper(strconv.FormatBool(f < 1))
			}
			want = append(want, fmt.Sprintf("[%s, %s, %s]", fmt.Sprintf("%c%d", 'a'+bi, i), txt, less))
		}
	}
	sort.Strings(want)
	return want
}

func TestUnionAllConvertsBranches(t *testing.T) {
	for _, a := range unionBranches {
		for _, b := range unionBranches {
			u, ok := types.CommonType(a.t, b.t)
			if !ok {
				t.Fatalf("no common type of %s and %s", a.t, b.t)
			}
			tag := fmt.Sprintf("union-%s-%s", a.t, b.t)
			setData(tag+"-a", unionRows(t, a, "a"))
			setData(tag+"-b", unionRows(t, b, "b"))
			sql := fmt.Sprintf(`CREATE TABLE a (id STRING, v %s) WITH ('connector' = 'filesystem', 'path' = '%s-a', 'format' = 'json');
CREATE TABLE b (id STRING, v %s) WITH ('connector' = 'filesystem', 'path' = '%s-b', 'format' = 'json');
SELECT id, v, v < 1 FROM (SELECT id, v FROM a UNION ALL SELECT id, v FROM b) x;`, a.t, tag, b.t, tag)
			want := unionReference(t, u, a, b)
			for _, p := range []int{1, 4} {
				if got := runJob(t, sql, p); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s UNION ALL %s (%s), parallelism %d:\n got %v\nwant %v", a.t, b.t, u, p, got, want)
				}
			}
		}
	}
}

// TestUnionOtherBranches: a branch of NULLs only, strings of different
// lengths (kept as they are, never cut), three branches, and UNION
// (distinct), whose duplicates are found after the conversion.
func TestUnionOtherBranches(t *testing.T) {
	setData("union-i", unionRows(t, unionBranch{types.New(types.Int), []string{"3", "null", "12"}}, "i"))
	setData("union-d", unionRows(t, unionBranch{types.DecimalOf(5, 2), []string{"3.00", "1.25"}}, "d"))
	setData("union-f", unionRows(t, unionBranch{types.New(types.Double), []string{"0.5", "3"}}, "f"))
	setData("union-s", unionRows(t, unionBranch{types.StringType(), []string{"abcdefgh", ""}}, "s"))
	setData("union-v", unionRows(t, unionBranch{types.VarcharOf(3), []string{"abc", "abcdef"}}, "v"))
	setData("union-c", unionRows(t, unionBranch{types.CharOf(2), []string{"ab", "abcd"}}, "c"))
	ddl := `CREATE TABLE i (id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'union-i', 'format' = 'json');
CREATE TABLE d (id STRING, v DECIMAL(5, 2)) WITH ('connector' = 'filesystem', 'path' = 'union-d', 'format' = 'json');
CREATE TABLE f (id STRING, v DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'union-f', 'format' = 'json');
CREATE TABLE s (id STRING, v STRING) WITH ('connector' = 'filesystem', 'path' = 'union-s', 'format' = 'json');
CREATE TABLE v (id STRING, v VARCHAR(3)) WITH ('connector' = 'filesystem', 'path' = 'union-v', 'format' = 'json');
CREATE TABLE c (id STRING, v CHAR(2)) WITH ('connector' = 'filesystem', 'path' = 'union-c', 'format' = 'json');
`
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"SELECT id, NULL FROM i UNION ALL SELECT id, v FROM d",
			[]string{"[d0, 3.00]", "[d1, 1.25]", "[i0, NULL]", "[i1, NULL]", "[i2, NULL]"}},
		{"SELECT id, v FROM d UNION ALL SELECT id, NULL FROM i",
			[]string{"[d0, 3.00]", "[d1, 1.25]", "[i0, NULL]", "[i1, NULL]", "[i2, NULL]"}},
		{"SELECT id, CAST(NULL AS INT) FROM d UNION ALL SELECT id, v FROM f",
			[]string{"[d0, NULL]", "[d1, NULL]", "[f0, 0.5]", "[f1, 3.0]"}},
		{"SELECT id, v FROM i UNION ALL SELECT id, v FROM d UNION ALL SELECT id, v FROM f",
			[]string{"[d0, 3.0]", "[d1, 1.25]", "[f0, 0.5]", "[f1, 3.0]", "[i0, 3.0]", "[i1, NULL]", "[i2, 12.0]"}},
		{"SELECT id, v FROM i UNION ALL (SELECT id, v FROM d UNION ALL SELECT id, v FROM i)",
			[]string{"[d0, 3.00]", "[d1, 1.25]", "[i0, 3.00]", "[i0, 3.00]", "[i1, NULL]", "[i1, NULL]", "[i2, 12.00]", "[i2, 12.00]"}},
		{"SELECT v FROM i UNION SELECT v FROM d",
			[]string{"[1.25]", "[12.00]", "[3.00]", "[NULL]"}},
		{"SELECT v FROM i UNION SELECT v FROM f",
			[]string{"[0.5]", "[12.0]", "[3.0]", "[NULL]"}},
		{"SELECT id, v FROM s UNION ALL SELECT id, v FROM v",
			[]string{"[s0, abcdefgh]", "[s1, ]", "[v0, abc]", "[v1, abcdef]"}},
		{"SELECT id, v FROM c UNION ALL SELECT id, v FROM v",
			[]string{"[c0, ab]", "[c1, abcd]", "[v0, abc]", "[v1, abcdef]"}},
	} {
		for _, p := range []int{1, 4} {
			if got := runJob(t, ddl+tc.query+";", p); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("%s, parallelism %d:\n got %v\nwant %v", tc.query, p, got, tc.want)
			}
		}
	}
}
