package eval

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// nestedCols are the columns of the nested tests: an array, a map and a
// row (with a row inside), and an integer for indexes and keys.
var nestedCols = []expr.ScopeColumn{
	{Qualifier: "t", Name: "a", T: types.ArrayOf(types.New(types.BigInt))},
	{Qualifier: "t", Name: "m", T: types.MapOf(types.StringType(), types.New(types.BigInt))},
	{Qualifier: "t", Name: "r", T: types.RowOf(types.Field{Name: "x", Type: types.New(types.Int)},
		types.Field{Name: "inner", Type: types.RowOf(types.Field{Name: "s", Type: types.StringType()})})},
	{Qualifier: "t", Name: "i", T: types.New(types.Int)},
}

func evalNested(t *testing.T, src string, vals []row.Value) (row.Value, types.T, error) {
	t.Helper()
	f := parser.ParseString("t.sql", "SELECT "+src+" FROM t;")
	if err := f.Diags.Err(); err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	sel := f.Stmts[0].(*ast.QueryStmt).Query.(*ast.Select)
	l := &diag.List{}
	e := (&expr.Binder{Scope: &expr.Scope{Tables: []expr.ScopeTable{{Alias: "t", Table: "t"}}, Cols: nestedCols}, L: l}).Bind(sel.Fields[0].Expr)
	if e == nil {
		t.Fatalf("bind %s: %v", src, l.Err())
	}
	fn, err := Compile(e)
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	v, err := fn(vals)
	return v, e.Type(), err
}

// TestNestedAccessModel: on random arrays and maps (NULL elements, empty
// ones, NULL themselves), a[i] for every index around the bounds,
// CARDINALITY, ELEMENT and m[k] for present and absent keys agree with a
// plain Go slice and map (the model: 1-based, out of range NULL, as Flink).
func TestNestedAccessModel(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for n := 0; n < 300; n++ {
		var arr []*int64
		var aval row.Value
		if r.Intn(8) > 0 {
			vals := make([]row.Value, r.Intn(4))
			arr = make([]*int64, len(vals))
			for k := range vals {
				if r.Intn(4) > 0 {
					x := r.Int63n(100) - 50
					arr[k] = &x
					vals[k] = row.IntValue(x)
				}
			}
			aval = row.ListValue(vals)
		}
		model := map[string]int64{}
		var keys, mvals []row.Value
		for k := r.Intn(4); k > 0; k-- {
			key := string(rune('a' + r.Intn(3)))
			x := r.Int63n(10)
			model[key] = x
			keys, mvals = append(keys, row.StrValue(key)), append(mvals, row.IntValue(x))
		}
		row := []row.Value{aval, row.MapValue(keys, mvals), row.NullValue, row.NullValue}
		for i := -1; i <= len(arr)+1; i++ {
			row[3] = rowInt(i)
			got, _, err := evalNested(t, "a[i]", row)
			var want *int64
			if aval.IsNull() == false && i >= 1 && i <= len(arr) {
				want = arr[i-1]
			}
			if err != nil || !sameInt(got, want) {
				t.Fatalf("a[%d] of %v = %v, %v; want %v", i, arr, got, err, deref(want))
			}
		}
		got, _, err := evalNested(t, "CARDINALITY(a)", row)
		if err != nil || aval.IsNull() != got.IsNull() || !aval.IsNull() && got.Int() != int64(len(arr)) {
			t.Fatalf("CARDINALITY(%v) = %v, %v", arr, got, err)
		}
		got, _, err = evalNested(t, "ELEMENT(a)", row)
		switch {
		case len(arr) > 1:
			if err == nil {
				t.Fatalf("ELEMENT(%v) = %v, want an error", arr, got)
			}
		case len(arr) == 1:
			if err != nil || !sameInt(got, arr[0]) {
				t.Fatalf("ELEMENT(%v) = %v, %v", arr, got, err)
			}
		default:
			if err != nil || !got.IsNull() {
				t.Fatalf("ELEMENT(%v) = %v, %v; want NULL", arr, got, err)
			}
		}
		for _, k := range []string{"a", "b", "c", "d"} {
			got, _, err := evalNested(t, "m['"+k+"']", row)
			want, ok := model[k]
			if err != nil || got.IsNull() == ok || ok && got.Int() != want {
				t.Fatalf("m['%s'] of %v = %v, %v", k, model, got, err)
			}
		}
		got, _, err = evalNested(t, "CARDINALITY(m)", row)
		if err != nil || got.Int() != int64(len(model)) {
			t.Fatalf("CARDINALITY(%v) = %v, %v", model, got, err)
		}
		// The map as text, {k=v, ...} sorted by key, built from the model.
		var ks []string
		for k := range model {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s=%d", k, model[k]))
		}
		got, _, err = evalNested(t, "CAST(m AS STRING)", row)
		if want := "{" + strings.Join(parts, ", ") + "}"; err != nil || got.Str() != want {
			t.Fatalf("CAST(m AS STRING) = %q, %v; want %q", got.Str(), err, want)
		}
	}
}

func rowInt(i int) row.Value { return row.IntValue(int64(i)) }

func sameInt(v row.Value, want *int64) bool {
	if want == nil {
		return v.IsNull()
	}
	return !v.IsNull() && v.Int() == *want
}

func deref(p *int64) any {
	if p == nil {
		return "NULL"
	}
	return *p
}

// TestNestedExpressions: fields, constructors, casts and equality, each
// against the value written out by hand (Flink's results).
func TestNestedExpressions(t *testing.T) {
	rv := row.ListValue([]row.Value{row.IntValue(5), row.ListValue([]row.Value{row.StrValue("deep")})})
	vals := []row.Value{row.ListValue([]row.Value{row.IntValue(1), row.IntValue(2)}), row.MapValue(nil, nil), rv, row.IntValue(2)}
	for _, c := range []struct{ src, want, typ string }{
		{"r.x", "5", "INT"},
		{"t.r.x", "5", "INT"},
		{"r.inner.s", "deep", "STRING"},
		{"CAST(ARRAY[1, NULL, 3] AS STRING)", "[1, NULL, 3]", "STRING"},
		{"CAST(ARRAY[1, 2.5] AS STRING)", "[1.0, 2.5]", "STRING"},
		{"CAST(MAP['b', 1, 'a', 2, 'b', 3] AS STRING)", "{a=2, b=3}", "STRING"},
		{"CAST(ROW(i, 'x', ARRAY[TRUE]) AS STRING)", "(2, x, [TRUE])", "STRING"},
		{"CAST(CAST(a AS ARRAY<STRING>) AS STRING)", "[1, 2]", "STRING"},
		{"ARRAY[ARRAY[1], ARRAY[2, 3]][2][i]", "3", "INT"},
		{"MAP[1, 'x'][CAST(1 AS BIGINT)]", "x", "CHAR(1)"},
		{"MAP[1, 'x'][1.5]", "NULL", "CHAR(1)"},
		{"MAP[1, 'x'][1.0]", "x", "CHAR(1)"},
		{"MAP[CAST(1 AS TINYINT), 'x'][257]", "NULL", "CHAR(1)"},
		{"a = ARRAY[CAST(1 AS BIGINT), 2]", "TRUE", "BOOLEAN"},
		{"a = ARRAY[CAST(2 AS BIGINT), 1]", "FALSE", "BOOLEAN"},
		{"MAP['a', 1, 'b', 2] = MAP['b', 2, 'a', 1]", "TRUE", "BOOLEAN"},
		{"CARDINALITY(ARRAY[NULL, 1])", "2", "INT"},
		{"a[i + 5]", "NULL", "BIGINT"},
		{"ROW(1, 'a') = ROW(1, 'a')", "TRUE", "BOOLEAN"},
	} {
		v, typ, err := evalNested(t, c.src, vals)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := FormatValue(v, typ); got != c.want || typ.WithNullable(true).String() != c.typ {
			t.Errorf("%s = %s (%s), want %s (%s)", c.src, got, typ, c.want, c.typ)
		}
	}
}
