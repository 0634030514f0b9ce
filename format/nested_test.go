package format

import (
	"github.com/streamsql/streamsql/connector"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// TestJSONNested reads nested objects and arrays into ARRAY, MAP and ROW
// columns, compares each value with one built by hand, and writes it back
// as the JSON Flink writes (object fields in the ROW type's order, map
// entries sorted by key, a repeated key's last value kept).
func TestJSONNested(t *testing.T) {
	inner := types.RowOf(types.Field{Name: "sku", Type: types.StringType()}, types.Field{Name: "qty", Type: types.New(types.Int)})
	cases := []struct {
		typ  types.T
		in   string
		want row.Value
		out  string // written back; "" if the same as in
	}{
		{types.ArrayOf(types.New(types.Int)), `[1, null, -3]`, row.ListValue([]row.Value{row.IntValue(1), row.NullValue, row.IntValue(-3)}), `[1,null,-3]`},
		{types.ArrayOf(types.New(types.Int)), `[]`, row.ListValue(nil), ``},
		{types.ArrayOf(types.DecimalOf(5, 2)), `["1.5",2]`, row.ListValue([]row.Value{row.IntValue(150), row.IntValue(200)}), `[1.50,2.00]`},
		{types.ArrayOf(types.ArrayOf(types.StringType())), `[["a"],[]]`,
			row.ListValue([]row.Value{row.ListValue([]row.Value{row.StrValue("a")}), row.ListValue(nil)}), ``},
		{types.MapOf(types.StringType(), types.New(types.BigInt)), `{"b":2,"a":1,"b":3}`,
			row.MapValue([]row.Value{row.StrValue("a"), row.StrValue("b")}, []row.Value{row.IntValue(1), row.IntValue(3)}), `{"a":1,"b":3}`},
		{types.MapOf(types.New(types.Int), types.StringType()), `{"10":"x","-2":null}`,
			row.MapValue([]row.Value{row.IntValue(-2), row.IntValue(10)}, []row.Value{row.NullValue, row.StrValue("x")}), `{"-2":null,"10":"x"}`},
		{inner, `{"qty":2,"other":{"x":[1]},"sku":"A-1"}`, row.ListValue([]row.Value{row.StrValue("A-1"), row.IntValue(2)}), `{"sku":"A-1","qty":2}`},
		{inner, `{}`, row.ListValue([]row.Value{row.NullValue, row.NullValue}), `{"sku":null,"qty":null}`},
		{types.ArrayOf(inner), `[{"sku":"a","qty":1},null]`,
			row.ListValue([]row.Value{row.ListValue([]row.Value{row.StrValue("a"), row.IntValue(1)}), row.NullValue}), ``},
		{types.StringType(), `{"a":[1]}`, row.StrValue(`{"a":[1]}`), `"{\"a\":[1]}"`}, // STRING keeps reading nested JSON as text
	}
	for _, c := range cases {
		schema := []connector.Column{col("v", c.typ)}
		b, err := decodeOne(t, JSON, schema, nil, `{"v":`+c.in+`}`)
		if err != nil {
			t.Fatalf("%s %s: %v", c.typ, c.in, err)
		}
		if got := b[0].Vals[0]; !got.Equal(c.want) {
			t.Errorf("%s %s: got %q, want %q", c.typ, c.in, got.Str(), c.want.Str())
		}
		e, err := NewEncoder(JSON, schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := e.Encode(nil, b[0])
		if err != nil {
			t.Fatalf("%s: encoding %v: %v", c.typ, b[0], err)
		}
		want := c.out
		if want == "" {
			want = c.in
		}
		if string(enc) != `{"v":`+want+`}` {
			t.Errorf("%s %s: written as %s, want {\"v\":%s}", c.typ, c.in, enc, want)
		}
	}
}

// TestJSONNestedErrors: malformed or mistyped nested JSON is an error that
// names the column, the path inside it and the offset, never a panic.
func TestJSONNestedErrors(t *testing.T) {
	schema := []connector.Column{
		col("a", types.ArrayOf(types.New(types.Int).NotNull())),
		col("m", types.MapOf(types.New(types.Int), types.New(types.Boolean))),
		col("r", types.RowOf(types.Field{Name: "x", Type: types.New(types.Int).NotNull()},
			types.Field{Name: "y", Type: types.ArrayOf(types.StringType())})),
	}
	for _, c := range []struct{ in, want string }{
		{`{"a":[1,"x"]}`, `column a[2] INT: value "x": expected an integer for INT`},
		{`{"a":[1,null]}`, `column a[2] INT: value null: the element type is NOT NULL`},
		{`{"a":[1,}`, `column a: invalid JSON at byte 8 (at "}")`},
		{`{"a":[1 2]}`, `invalid JSON at byte 8 (at "2]}"): expected ',' or ']' in the array`},
		{`{"a":{"x":1}}`, `column a ARRAY<INT NOT NULL>: value {"x":1}: expected a JSON array, got an object`},
		{`{"a":"[1]"}`, `column a ARRAY<INT NOT NULL>: value "[1]": expected a JSON array, got a string`},
		{`{"m":{"k":true}}`, `column m key INT: value "k": expected an integer for INT`},
		{`{"m":{"1":3}}`, `column m["1"] BOOLEAN: value 3: expected true or false, got a number`},
		{`{"r":{"y":[]}}`, `column r.x INT: the field is missing, and it is NOT NULL`},
		{`{"r":{"y":[],"x":"abc"}}`, `column r.x INT: value "abc": expected an integer for INT`},
		{`{"r":[1]}`, `expected a JSON object, got an array`},
		{`{"r":{"x":1,"y":[`, `column r: invalid JSON at byte 17`},
	} {
		_, err := decodeOne(t, JSON, schema, nil, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}
