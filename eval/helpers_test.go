package eval

import (
	"math"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The test row: each column's name, type and value.
var testCols = []struct {
	name string
	t    types.T
	v    row.Value
}{
	{"i", types.New(types.Int), row.IntValue(7)},
	{"big", types.New(types.BigInt), row.IntValue(math.MaxInt64)},
	{"amount", types.DecimalOf(15, 2), row.IntValue(1234)}, // 12.34
	{"d", types.New(types.Double), row.FloatValue(2.5)},
	{"s", types.StringType(), row.StrValue("Hello World")},
	{"ts", types.TimestampOf(3), row.IntValue(1767270896789)}, // 2026-01-01 12:34:56.789
	{"ltz", types.TimestampLTZOf(3), row.IntValue(1767270896789)},
	{"dt", types.New(types.Date), row.IntValue(20454)}, // 2026-01-01
	{"flag", types.New(types.Boolean), row.BoolValue(true)},
	{"ni", types.New(types.Int), row.NullValue},
	{"ns", types.StringType(), row.NullValue},
	{"nb", types.New(types.Boolean), row.NullValue},
	{"p", types.DecimalOf(10, 3), row.IntValue(1005)}, // 1.005
	{"big_amount", types.DecimalOf(18, 2), row.IntValue(999_999_999_999_999_999)},
	{"ms", types.New(types.BigInt), row.IntValue(1767225600000)},
	{"secs", types.New(types.BigInt), row.IntValue(1767225600)},
	{"tm", types.TimeOf(0), row.IntValue(12*msPerHour + 30*msPerMinute)},
	{"fmt", types.StringType(), row.StrValue("yyyy/MM/dd")},
	{"pat", types.StringType(), row.StrValue("H%o W_rld")},
	{"txt", types.StringType(), row.StrValue(" 42 ")},
	{"zero", types.New(types.Int), row.IntValue(0)},
	{"da", types.DecimalOf(15, 2), row.IntValue(100001)}, // 1000.01
	{"f", types.New(types.Float), row.FloatValue(float64(float32(1.5)))},
}

func testRow() []row.Value {
	vals := make([]row.Value, len(testCols))
	for i, c := range testCols {
		vals[i] = c.v
	}
	return vals
}

// bind parses "SELECT <src> FROM t" and binds the expression against the
// test columns.
func bind(t testing.TB, src string) expr.Expr {
	t.Helper()
	f := parser.ParseString("t.sql", "SELECT "+src+" FROM t;")
	if err := f.Diags.Err(); err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	sel, ok := f.Stmts[0].(*ast.QueryStmt).Query.(*ast.Select)
	if !ok || len(sel.Fields) != 1 {
		t.Fatalf("parse %s: not a one-column SELECT", src)
	}
	scope := &expr.Scope{Tables: []expr.ScopeTable{{Alias: "t", Table: "t"}}}
	for _, c := range testCols {
		sc := expr.ScopeColumn{Qualifier: "t", Name: c.name, T: c.t}
		if c.name == "ts" {
			sc.Time = expr.RowTime // the event time, for CURRENT_WATERMARK
		}
		scope.Cols = append(scope.Cols, sc)
	}
	l := &diag.List{}
	e := (&expr.Binder{Scope: scope, L: l}).Bind(sel.Fields[0].Expr)
	if e == nil {
		t.Fatalf("bind %s: %v", src, l.Err())
	}
	return e
}

// fixedNow is the clock of the tests: 2026-01-01 00:00:00.000 UTC.
const fixedNow = 1767225600000

func testOptions() Options { return Options{Now: func() int64 { return fixedNow }} }
