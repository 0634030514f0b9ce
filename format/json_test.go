package format

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func col(name string, t types.T) connector.Column { return connector.Column{Name: name, Type: t} }

// ms is a UTC timestamp in milliseconds, for expectations.
func ms(y, mo, d, h, mi, s, milli int64) int64 {
	return civil.DaysFromCivil(y, mo, d)*msPerDay + h*msPerHour + mi*msPerMinute + s*msPerSecond + milli
}

func decodeOne(t *testing.T, name string, schema []connector.Column, opts Options, in string) (row.Batch, error) {
	t.Helper()
	d, err := NewDecoder(name, schema, opts)
	if err != nil {
		t.Fatalf("NewDecoder: %v", err)
	}
	return d.Decode(nil, []byte(in))
}

// TestJSONDecodeTypes reads one value of every type.
func TestJSONDecodeTypes(t *testing.T) {
	cases := []struct {
		typ  types.T
		in   string
		want row.Value
	}{
		{types.New(types.Boolean), `true`, row.BoolValue(true)},
		{types.New(types.Boolean), `false`, row.BoolValue(false)},
		{types.New(types.Boolean), `"TRUE"`, row.BoolValue(true)},
		{types.New(types.TinyInt), `-128`, row.IntValue(-128)},
		{types.New(types.SmallInt), `32767`, row.IntValue(32767)},
		{types.New(types.Int), `-2147483648`, row.IntValue(math.MinInt32)},
		{types.New(types.Int), `"42"`, row.IntValue(42)},
		{types.New(types.BigInt), `9223372036854775807`, row.IntValue(math.MaxInt64)},
		{types.New(types.BigInt), `-0`, row.IntValue(0)},
		{types.New(types.Double), `1.5e3`, row.FloatValue(1500)},
		{types.New(types.Double), `0.1`, row.FloatValue(0.1)},
		{types.New(types.Double), `"NaN"`, row.FloatValue(math.NaN())},
		{types.New(types.Double), `-7`, row.FloatValue(-7)},
		{types.New(types.Float), `0.1`, row.FloatValue(float64(float32(0.1)))},
		{types.DecimalOf(10, 2), `12.3`, row.IntValue(1230)},
		{types.DecimalOf(10, 2), `12.30`, row.IntValue(1230)},
		{types.DecimalOf(10, 2), `-0.05`, row.IntValue(-5)},
		{types.DecimalOf(10, 2), `1.005`, row.IntValue(101)},   // half up
		{types.DecimalOf(10, 2), `-1.005`, row.IntValue(-101)}, // half up, away from zero
		{types.DecimalOf(10, 2), `1.004`, row.IntValue(100)},
		{types.DecimalOf(10, 2), `1.25e2`, row.IntValue(12500)},
		{types.DecimalOf(10, 2), `125E-2`, row.IntValue(125)},
		{types.DecimalOf(10, 2), `"99999999.99"`, row.IntValue(9999999999)},
		{types.DecimalOf(10, 0), `7`, row.IntValue(7)},
		{types.DecimalOf(18, 2), `1234567890123456.78`, row.IntValue(123456789012345678)}, // beyond float64's 15-16 digits
		{types.DecimalOf(10, 2), `0.0000001`, row.IntValue(0)},
		{types.StringType(), `"abc"`, row.StrValue("abc")},
		{types.StringType(), `"a\"b\\c\/d\n\u00e9\ud83d\ude00"`, row.StrValue("a\"b\\c/d\né😀")},
		{types.StringType(), `"\ud800"`, row.StrValue("\uFFFD")},
		{types.StringType(), `12.50`, row.StrValue("12.50")},
		{types.StringType(), `true`, row.StrValue("true")},
		{types.StringType(), `{"a": [1, 2]}`, row.StrValue(`{"a": [1, 2]}`)},
		{types.StringType(), `""`, row.StrValue("")},
		{types.CharOf(3), `"abc"`, row.StrValue("abc")},
		{types.BytesType(), `"AAEC"`, row.StrValue("\x00\x01\x02")},
		{types.New(types.Date), `"2026-02-28"`, row.IntValue(civil.DaysFromCivil(2026, 2, 28))},
		{types.New(types.Date), `"1970-01-01"`, row.IntValue(0)},
		{types.New(types.Date), `"1969-12-31"`, row.IntValue(-1)},
		{types.New(types.Date), `"2024-02-29"`, row.IntValue(civil.DaysFromCivil(2024, 2, 29))},
		{types.TimeOf(3), `"12:34:56.789"`, row.IntValue(12*msPerHour + 34*msPerMinute + 56*msPerSecond + 789)},
		{types.TimeOf(0), `"00:00"`, row.IntValue(0)},
		{types.TimestampOf(3), `"2026-01-01 00:00:00"`, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0))},
		{types.TimestampOf(3), `"2026-01-01 12:34:56.789"`, row.IntValue(ms(2026, 1, 1, 12, 34, 56, 789))},
		{types.TimestampOf(3), `"2026-01-01 12:34:56.7"`, row.IntValue(ms(2026, 1, 1, 12, 34, 56, 700))},
		{types.TimestampOf(9), `"2026-01-01 12:34:56.123456789"`, row.IntValue(ms(2026, 1, 1, 12, 34, 56, 123))},
		{types.TimestampOf(3), `"2026-01-01T00:00:00"`, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0))},
		{types.TimestampOf(3), `"2026-01-01T00:00:00.5Z"`, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 500))},
		{types.TimestampLTZOf(3), `"2026-01-01T02:00:00+02:00"`, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0))},
		{types.TimestampLTZOf(3), `"2025-12-31T19:30:00-04:30"`, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0))},
		{types.TimestampLTZOf(3), `"2026-01-01T05:30+0530"`, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0))},
		{types.TimestampOf(3), `"1969-12-31 23:59:59.999"`, row.IntValue(-1)},
		{types.TimestampOf(3), `"0001-01-01 00:00:00"`, row.IntValue(MinMillis)},
		{types.TimestampOf(3), `"9999-12-31 23:59:59.999"`, row.IntValue(MaxMillis)},
		{types.New(types.Interval), `60000`, row.IntValue(60000)},
		{types.New(types.BigInt), `null`, row.NullValue},
		{types.TimestampOf(3), `null`, row.NullValue},
	}
	for _, c := range cases {
		schema := []connector.Column{col("v", c.typ)}
		got, err := decodeOne(t, JSON, schema, nil, `{"v": `+c.in+`}`)
		if err != nil {
			t.Errorf("%s %s: %v", c.typ, c.in, err)
			continue
		}
		if len(got) != 1 || got[0].Kind != changelogmode.Insert || len(got[0].Vals) != 1 {
			t.Errorf("%s %s: got %v", c.typ, c.in, got)
			continue
		}
		g := got[0].Vals[0]
		if !g.Equal(c.want) && !(c.want.Kind() == row.Float && math.IsNaN(c.want.Float()) && math.IsNaN(g.Float())) {
			t.Errorf("%s %s: got %v, want %v", c.typ, c.in, g, c.want)
		}
	}
}

// TestJSONDecodeErrors: every error names the column and says why.
func TestJSONDecodeErrors(t *testing.T) {
	cases := []struct {
		typ  types.T
		in   string
		want []string // substrings of the error
	}{
		{types.New(types.Int), `1.5`, []string{"column v INT", "value 1.5", "not an integer"}},
		{types.New(types.Int), `1e3`, []string{"not an integer"}},
		{types.New(types.Int), `"1.5"`, []string{"not an integer"}},
		{types.New(types.Int), `2147483648`, []string{"out of range for INT"}},
		{types.New(types.TinyInt), `128`, []string{"out of range for TINYINT"}},
		{types.New(types.BigInt), `9223372036854775808`, []string{"out of range for BIGINT"}},
		{types.New(types.BigInt), `"abc"`, []string{`value "abc"`, "expected an integer"}},
		{types.New(types.BigInt), `true`, []string{"expected a number, got a boolean"}},
		{types.New(types.BigInt), `[1]`, []string{"got an array"}},
		{types.New(types.BigInt), `{"a":1}`, []string{"got an object"}},
		{types.New(types.Boolean), `1`, []string{"expected true or false, got a number"}},
		{types.New(types.Boolean), `"yes"`, []string{"expected true or false"}},
		{types.New(types.Double), `"abc"`, []string{"expected a number for DOUBLE"}},
		{types.New(types.Float), `1e39`, []string{"out of range for FLOAT"}},
		{types.DecimalOf(4, 2), `123.45`, []string{"does not fit DECIMAL(4, 2)", "at most 2 digits before the point"}},
		{types.DecimalOf(4, 2), `99.995`, []string{"does not fit DECIMAL(4, 2)"}}, // rounds to 100.00
		{types.DecimalOf(38, 2), `1e30`, []string{"does not fit DECIMAL(38, 2)", "64 bits"}},
		{types.DecimalOf(10, 2), `"1.2.3"`, []string{"not a decimal number"}},
		{types.DecimalOf(10, 2), `1e99999999999`, []string{"does not fit"}},
		{types.TimestampOf(3), `1767225600000`, []string{"column v TIMESTAMP(3)", "value 1767225600000", "not a number",
			"declare the field BIGINT (v BIGINT)", "v_time AS TO_TIMESTAMP_LTZ(v, 3)", "TO_TIMESTAMP_LTZ(v, 0)"}},
		{types.TimestampLTZOf(3), `1767225600`, []string{"TIMESTAMP_LTZ(3)", "TO_TIMESTAMP_LTZ(v, 3)"}},
		{types.TimestampOf(3), `"1767225600000"`, []string{"TO_TIMESTAMP_LTZ(v, 3)"}},
		{types.TimestampOf(3), `"57969-01-01 00:00:00"`, []string{"beyond year 9999"}},
		{types.TimestampOf(3), `"0000-12-31 23:59:59"`, []string{"before year 1"}},
		{types.TimestampLTZOf(3), `"9999-12-31T23:00:00-05:00"`, []string{"beyond year 9999"}},
		{types.TimestampLTZOf(3), `"0001-01-01T00:00:00+01:00"`, []string{"before year 1"}},
		{types.TimestampOf(3), `"2026-13-01 00:00:00"`, []string{"month 13"}},
		{types.TimestampOf(3), `"2026-02-29 00:00:00"`, []string{"no day 29"}},
		{types.TimestampOf(3), `"2026-01-01 24:00:00"`, []string{"not a valid time of day"}},
		{types.TimestampOf(3), `"2026-01-01"`, []string{"time of day is missing"}},
		{types.TimestampOf(3), `"2026-01-01 00:00:00 UTC"`, []string{"trailing text"}},
		{types.TimestampOf(3), `"2026-01-01 00:00:00.1234567891"`, []string{"1 to 9 digits"}},
		{types.TimestampOf(3), `"yesterday"`, []string{`value "yesterday"`, "expected a timestamp"}},
		{types.TimestampOf(3), `true`, []string{"expected a timestamp string"}},
		{types.New(types.Date), `20260101`, []string{"expected a date string 'yyyy-MM-dd', got a number"}},
		{types.New(types.Date), `"2026/01/01"`, []string{"expected a date 'yyyy-MM-dd'"}},
		{types.TimeOf(0), `"25:00:00"`, []string{"not a valid time of day"}},
		{types.BytesType(), `"!!"`, []string{"base64"}},
		{types.New(types.BigInt).NotNull(), `null`, []string{"NOT NULL"}},
	}
	for _, c := range cases {
		schema := []connector.Column{col("v", c.typ)}
		got, err := decodeOne(t, JSON, schema, nil, `{"v": `+c.in+`}`)
		if err == nil {
			t.Errorf("%s %s: no error, got %v", c.typ, c.in, got)
			continue
		}
		if got != nil {
			t.Errorf("%s %s: rows returned with the error: %v", c.typ, c.in, got)
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Column != "v" {
			t.Errorf("%s %s: error %q is not a FieldError naming the column", c.typ, c.in, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: error %q does not say %q", c.typ, c.in, err, w)
			}
		}
	}
}

func TestJSONSyntaxErrors(t *testing.T) {
	schema := []connector.Column{col("a", types.New(types.BigInt)), col("b", types.StringType())}
	for _, in := range []string{
		``, `   `, `[1]`, `"a"`, `{`, `{"a"`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":"x"}`, `{a:1}`,
		`{"a":1}x`, `{"a":1}{"a":2}`, `{"b":"x`, `{"b":"\x"}`, `{"b":"\u12"}`, "{\"b\":\"a\x01\"}",
		`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"c":[1,2}`, `{"c":{"d"}}`,
		`{"a":+1}`, `{"a":.5}`, strings.Repeat("[", 1000),
		`{"c":` + strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2) + `}`,
	} {
		if got, err := decodeOne(t, JSON, schema, nil, in); err == nil {
			t.Errorf("%q: no error, got %v", in, got)
		}
	}
}

func TestJSONDecodeObject(t *testing.T) {
	schema := []connector.Column{
		col("id", types.New(types.BigInt)),
		col("name", types.StringType()),
		{Name: "off", Type: types.New(types.BigInt), MetadataKey: "offset"},
		col("price", types.DecimalOf(10, 2)),
	}
	// Any field order, unknown fields (nested too) skipped, whitespace,
	// duplicate keys (the last wins), escaped key names, metadata untouched.
	got, err := decodeOne(t, JSON, schema, nil,
		" {\"price\": 1.5, \"extra\": {\"x\": [1, {\"y\": null}]}, \"n\\u0061me\": \"bob\", \"id\": 1, \"id\": 2, \"off\": 99 }\r\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []row.Value{row.IntValue(2), row.StrValue("bob"), row.NullValue, row.IntValue(150)}
	assertVals(t, got[0].Vals, want)

	// A missing field is NULL...
	got, err = decodeOne(t, JSON, schema, nil, `{"id": 1}`)
	if err != nil {
		t.Fatal(err)
	}
	assertVals(t, got[0].Vals, []row.Value{row.IntValue(1), row.NullValue, row.NullValue, row.NullValue})
	// ... or an error with fail-on-missing-field, naming the field (never a metadata column).
	_, err = decodeOne(t, JSON, schema, Map{"json.fail-on-missing-field": "true"}, `{"id": 1, "price": 2}`)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Column != "name" || !strings.Contains(err.Error(), "missing") {
		t.Errorf("fail-on-missing-field: got %v", err)
	}
	// A NOT NULL column must be present.
	nn := []connector.Column{col("id", types.New(types.BigInt).NotNull())}
	if _, err := decodeOne(t, JSON, nn, nil, `{}`); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Errorf("missing NOT NULL field: got %v", err)
	}
	got, err = decodeOne(t, JSON, schema, nil, `{}`)
	if err != nil || len(got) != 1 {
		t.Errorf("empty object: %v %v", got, err)
	}
}

// TestJSONDecoderKeepsRows: rows of earlier calls are not overwritten by
// later ones (row.Batch: the receiver may keep value slices), and a failed
// decode leaves dst alone.
func TestJSONDecoderKeepsRows(t *testing.T) {
	schema := []connector.Column{col("id", types.New(types.BigInt)), col("s", types.StringType())}
	d, err := NewDecoder(JSON, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b row.Batch
	for i := range 1000 {
		buf := []byte(`{"id": ` + itoa(i) + `, "s": "s` + itoa(i) + `"}`)
		if b, err = d.Decode(b, buf); err != nil {
			t.Fatal(err)
		}
		if b, err = d.Decode(b, []byte(`{"id": "bad"}`)); err == nil {
			t.Fatal("no error")
		}
		copy(buf, strings.Repeat("#", len(buf))) // the decoder must not keep data
	}
	if len(b) != 1000 {
		t.Fatalf("got %d rows", len(b))
	}
	for i, r := range b {
		if r.Vals[0].Int() != int64(i) || r.Vals[1].Str() != "s"+itoa(i) {
			t.Fatalf("row %d is %v", i, r.Vals)
		}
	}
}

func itoa(i int) string { return string(AppendText(nil, types.New(types.Int), row.IntValue(int64(i)))) }

func assertVals(t *testing.T, got, want []row.Value) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if !got[i].Equal(want[i]) {
			t.Errorf("value %d: got %v, want %v (row %v)", i, got[i], want[i], got)
		}
	}
}

func allTypes() []connector.Column {
	return []connector.Column{
		col("b", types.New(types.Boolean)),
		col("i8", types.New(types.TinyInt)),
		col("i16", types.New(types.SmallInt)),
		col("i32", types.New(types.Int)),
		col("i64", types.New(types.BigInt)),
		col("f", types.New(types.Float)),
		col("d", types.New(types.Double)),
		col("dec", types.DecimalOf(10, 2)),
		col("dec0", types.DecimalOf(5, 0)),
		col("s", types.StringType()),
		col("bin", types.BytesType()),
		col("day", types.New(types.Date)),
		col("tod", types.TimeOf(3)),
		col("ts", types.TimestampOf(3)),
		col("ts0", types.TimestampOf(0)),
		col("ts6", types.TimestampOf(6)),
		col("ltz", types.TimestampLTZOf(3)),
		{Name: "meta", Type: types.New(types.BigInt), MetadataKey: "offset"},
	}
}

func allValues() []row.Value {
	return []row.Value{
		row.BoolValue(true), row.IntValue(-8), row.IntValue(1600), row.IntValue(-32), row.IntValue(1 << 40),
		row.FloatValue(float64(float32(1.25))), row.FloatValue(-0.1), row.IntValue(1230), row.IntValue(-7),
		row.StrValue("a,\"b\"\n\té\x01"), row.StrValue("\x00\xff"), row.IntValue(civil.DaysFromCivil(2026, 3, 1)),
		row.IntValue(45296789), row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0)), row.IntValue(ms(1969, 7, 20, 20, 17, 40, 0)),
		row.IntValue(ms(2026, 1, 1, 12, 0, 0, 5)), row.IntValue(ms(2026, 6, 30, 23, 59, 59, 999)), row.NullValue,
	}
}

func TestJSONEncode(t *testing.T) {
	e, err := NewEncoder(JSON, allTypes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Encode([]byte("prefix:"), row.Insert(allValues()...))
	if err != nil {
		t.Fatal(err)
	}
	want := `prefix:{"b":true,"i8":-8,"i16":1600,"i32":-32,"i64":1099511627776,"f":1.25,"d":-0.1,"dec":12.30,"dec0":-7,` +
		`"s":"a,\"b\"\n\té\u0001","bin":"AP8=","day":"2026-03-01","tod":"12:34:56.789","ts":"2026-01-01 00:00:00.000",` +
		`"ts0":"1969-07-20 20:17:40","ts6":"2026-01-01 12:00:00.005000","ltz":"2026-06-30 23:59:59.999"}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// NULL is null; NaN is a string; invalid UTF-8 is replaced; the empty decimal scale.
	schema := []connector.Column{col("s", types.StringType()), col("d", types.New(types.Double)), col("x", types.DecimalOf(3, 3)),
		col("n", types.New(types.Int)), col("bad", types.StringType())}
	e, _ = NewEncoder(JSON, schema, nil)
	got, err = e.Encode(nil, row.Insert(row.NullValue, row.FloatValue(math.Inf(-1)), row.IntValue(-5), row.NullValue, row.StrValue("a\xffb")))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"s":null,"d":"-Infinity","x":-0.005,"n":null,"bad":"a\ufffdb"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	e, _ = NewEncoder(JSON, schema, Map{"json.encode.ignore-null-fields": "true"})
	got, _ = e.Encode(nil, row.Insert(row.NullValue, row.FloatValue(2), row.IntValue(5), row.NullValue, row.StrValue("")))
	if want := `{"d":2,"x":0.005,"bad":""}`; string(got) != want {
		t.Errorf("ignore-null-fields: got %s, want %s", got, want)
	}
	// ISO-8601.
	ts := []connector.Column{col("t", types.TimestampOf(3)), col("l", types.TimestampLTZOf(3))}
	e, _ = NewEncoder(JSON, ts, Map{"json.timestamp-format.standard": "ISO-8601"})
	got, _ = e.Encode(nil, row.Insert(row.IntValue(0), row.IntValue(0)))
	if want := `{"t":"1970-01-01T00:00:00.000","l":"1970-01-01T00:00:00.000Z"}`; string(got) != want {
		t.Errorf("ISO-8601: got %s, want %s", got, want)
	}
	// Insert-only: a retraction is refused, and the buffer is left as it was.
	buf := []byte("keep")
	out, err := e.Encode(buf, row.Row{Kind: changelogmode.Delete, Vals: []row.Value{row.NullValue, row.NullValue}})
	if err == nil || !strings.Contains(err.Error(), "debezium-json") || string(out) != "keep" {
		t.Errorf("encoding -D: %q, %v", out, err)
	}
	if _, err := e.Encode(nil, row.Insert(row.NullValue)); err == nil {
		t.Error("a short row was encoded")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, opts := range []Map{nil, {"json.timestamp-format.standard": "ISO-8601"}} {
		e, _ := NewEncoder(JSON, allTypes(), opts)
		d, _ := NewDecoder(JSON, allTypes(), opts)
		in := allValues()
		enc, err := e.Encode(nil, row.Insert(in...))
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Decode(nil, enc)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		in[9] = row.StrValue("a,\"b\"\n\té\x01")
		in[15] = row.IntValue(ms(2026, 1, 1, 12, 0, 0, 5))
		in[14] = row.IntValue(ms(1969, 7, 20, 20, 17, 40, 0))
		assertVals(t, got[0].Vals, in)
	}
}

func TestUnsupported(t *testing.T) {
	if _, err := NewDecoder("avro", nil, nil); err == nil {
		t.Error("avro decoder")
	}
	if _, err := NewEncoder("raw", nil, nil); err == nil {
		t.Error("raw encoder")
	}
	if _, err := NewDecoder(JSON, []connector.Column{col("x", types.New(types.Null))}, nil); err == nil {
		t.Error("NULL column")
	}
	if !IgnoreParseErrors(CSV, Map{"csv.ignore-parse-errors": "true"}) || IgnoreParseErrors(JSON, Map{"csv.ignore-parse-errors": "true"}) ||
		IgnoreParseErrors(JSON, nil) {
		t.Error("IgnoreParseErrors")
	}
	if got := Prefixed(Map{"key.json.x": "1"}, "key.").Get("json.x"); got != "1" {
		t.Errorf("Prefixed: %q", got)
	}
}

func benchSchema() []connector.Column {
	return []connector.Column{
		col("id", types.New(types.BigInt)),
		col("user", types.StringType()),
		col("amount", types.DecimalOf(10, 2)),
		col("ok", types.New(types.Boolean)),
		col("ts", types.TimestampOf(3)),
		col("score", types.New(types.Double)),
	}
}

func BenchmarkJSONDecode(b *testing.B) {
	d, err := NewDecoder(JSON, benchSchema(), nil)
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`{"id": 1234567, "user": "user_42", "amount": 1234.56, "ok": true, "ts": "2026-01-01 12:34:56.789", "score": 0.75}`)
	batch := make(row.Batch, 0, 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if len(batch) == cap(batch) {
			batch = batch[:0]
		}
		if batch, err = d.Decode(batch, line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONEncode(b *testing.B) {
	e, _ := NewEncoder(JSON, benchSchema(), nil)
	r := row.Insert(row.IntValue(1234567), row.StrValue("user_42"), row.IntValue(123456), row.BoolValue(true),
		row.IntValue(ms(2026, 1, 1, 12, 34, 56, 789)), row.FloatValue(0.75))
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = e.Encode(buf[:0], r)
	}
}
