package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/decimal"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

func TestCSVDecode(t *testing.T) {
	schema := []connector.Column{
		col("id", types.New(types.BigInt)),
		col("name", types.StringType()),
		{Name: "line", Type: types.New(types.BigInt), MetadataKey: "line"},
		col("price", types.DecimalOf(10, 2)),
		col("ts", types.TimestampOf(3)),
		col("ok", types.New(types.Boolean)),
	}
	cases := []struct {
		opts Map
		in   string
		want []row.Value
	}{
		{nil, `1,abc,12.3,2026-01-01 00:00:00.250,true`,
			[]row.Value{row.IntValue(1), row.StrValue("abc"), row.NullValue, row.IntValue(1230), row.IntValue(ms(2026, 1, 1, 0, 0, 0, 250)), row.BoolValue(true)}},
		// Quotes hold delimiters and doubled quotes; with
		// 'csv.null-literal' = '' an empty field is NULL whatever its type;
		// numbers are trimmed.
		{Map{"csv.null-literal": ""}, ` 2 ,"a,""b""",,2026-01-01T00:00:00Z,`,
			[]row.Value{row.IntValue(2), row.StrValue(`a,"b"`), row.NullValue, row.NullValue, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0)), row.NullValue}},
		{nil, `3,"",1,2026-01-01 00:00:00,FALSE`,
			[]row.Value{row.IntValue(3), row.StrValue(""), row.NullValue, row.IntValue(100), row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0)), row.BoolValue(false)}},
		{nil, `4, x ,1,2026-01-01 00:00:00,true`, // strings are not trimmed
			[]row.Value{row.IntValue(4), row.StrValue(" x "), row.NullValue, row.IntValue(100), row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0)), row.BoolValue(true)}},
		{Map{"csv.field-delimiter": "|", "csv.null-literal": "NULL"}, `5|NULL|NULL|NULL|true`,
			[]row.Value{row.IntValue(5), row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.BoolValue(true)}},
		// The null literal is NULL quoted too (Jackson's CsvParser compares
		// the unquoted text with it).
		{Map{"csv.null-literal": "NULL"}, `5,"NULL",NULL,NULL,NULL`,
			[]row.Value{row.IntValue(5), row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue}},
		{Map{"csv.field-delimiter": "|", "csv.null-literal": "NULL"}, `6||1|NULL|true`,
			[]row.Value{row.IntValue(6), row.StrValue(""), row.NullValue, row.IntValue(100), row.NullValue, row.BoolValue(true)}},
		{Map{"csv.field-delimiter": `\t`, "csv.null-literal": ""}, "7\tx\t1\t\ttrue",
			[]row.Value{row.IntValue(7), row.StrValue("x"), row.NullValue, row.IntValue(100), row.NullValue, row.BoolValue(true)}},
		{Map{"csv.quote-character": "'", "csv.escape-character": `\`, "csv.null-literal": ""}, `8,'a\'b\\c,d',1,,`,
			[]row.Value{row.IntValue(8), row.StrValue(`a'b\c,d`), row.NullValue, row.IntValue(100), row.NullValue, row.NullValue}},
		{Map{"csv.disable-quote-character": "true", "csv.null-literal": ""}, `9,"x",1,,`,
			[]row.Value{row.IntValue(9), row.StrValue(`"x"`), row.NullValue, row.IntValue(100), row.NullValue, row.NullValue}},
	}
	for _, c := range cases {
		got, err := decodeOne(t, CSV, schema, c.opts, c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if len(got) != 1 || got[0].Kind != changelogmode.Insert {
			t.Errorf("%q: got %v", c.in, got)
			continue
		}
		assertVals(t, got[0].Vals, c.want)
	}
	// Comments decode to no rows.
	got, err := decodeOne(t, CSV, schema, Map{"csv.allow-comments": "true"}, "# a comment")
	if err != nil || len(got) != 0 {
		t.Errorf("comment: %v %v", got, err)
	}
}

func TestCSVDecodeErrors(t *testing.T) {
	schema := []connector.Column{
		col("id", types.New(types.BigInt).NotNull()),
		col("name", types.StringType()),
		col("ts", types.TimestampOf(3)),
	}
	cases := []struct {
		in     string
		column string // "" when no single field is to blame
		want   string
	}{
		{`1,a`, "", `the record has 2 fields, the table 3 columns (id, name, ts) (delimiter ','): "1,a"`},
		{`1,a,,x`, "", "the record has 4 fields"},
		{`1,"a,`, "", "unterminated quoted field"},
		{`1,"a"b,`, "", "after the closing quote"},
		{`x,a,`, "id", `value "x": expected an integer`},
		{`1.5,a,`, "id", "not an integer"},
		{`,a,`, "id", `value "": an empty field cannot be read as BIGINT; 'csv.null-literal' = '' reads an empty field as NULL`},
		{` ,a,`, "id", "a blank field cannot be read as BIGINT"},
		{`"",a,`, "id", `value "": an empty field cannot be read as BIGINT`},
		{`1,a,`, "ts", "an empty field cannot be read as TIMESTAMP"},
		{`1,a,1767225600000`, "ts", "TO_TIMESTAMP_LTZ(ts, 3)"},
		{`1,a,10000-01-01 00:00:00`, "ts", "beyond year 9999"},
		{`1,a,2026-01-01`, "ts", "time of day is missing"},
	}
	for _, c := range cases {
		got, err := decodeOne(t, CSV, schema, nil, c.in)
		if err == nil {
			t.Errorf("%q: no error, got %v", c.in, got)
			continue
		}
		var fe *FieldError
		if isField := errors.As(err, &fe); isField != (c.column != "") || isField && fe.Column != c.column {
			t.Errorf("%q: error %q should name column %q", c.in, err, c.column)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q does not say %q", c.in, err, c.want)
		}
	}
	for _, opts := range []Map{{"csv.field-delimiter": "ab"}, {"csv.field-delimiter": `"`}, {"csv.quote-character": ""}} {
		if _, err := NewDecoder(CSV, schema, opts); err == nil && opts["csv.quote-character"] == "" && len(opts) == 1 {
			continue // "" is the default
		} else if err == nil {
			t.Errorf("%v: accepted", opts)
		}
	}
}

func TestCSVEncode(t *testing.T) {
	e, err := NewEncoder(CSV, allTypes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Encode(nil, row.Insert(allValues()...))
	if err != nil {
		t.Fatal(err)
	}
	want := "true,-8,1600,-32,1099511627776,1.25,-0.1,12.30,-7,\"a,\"\"b\"\"\n\té\x01\",AP8=,2026-03-01,12:34:56.789," +
		"2026-01-01 00:00:00.000,1969-07-20 20:17:40,2026-01-01 12:00:00.005000,2026-06-30 23:59:59.999"
	if string(got) != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	schema := []connector.Column{col("a", types.StringType()), col("b", types.StringType()), col("c", types.New(types.Int))}
	cases := []struct {
		opts Map
		vals []row.Value
		want string
	}{
		// As Flink (Jackson's CsvGenerator) writes: '' is an empty field,
		// as NULL is without a null literal; a string equal to the null
		// literal is not quoted (and reads back NULL, as in Flink).
		{nil, []row.Value{row.NullValue, row.StrValue(""), row.NullValue}, `,,`},
		{Map{"csv.null-literal": "NULL"}, []row.Value{row.NullValue, row.StrValue("NULL"), row.IntValue(1)}, `NULL,NULL,1`},
		{Map{"csv.null-literal": "NULL"}, []row.Value{row.StrValue(""), row.StrValue(" "), row.NullValue}, `, ,NULL`},
		{Map{"csv.field-delimiter": ";"}, []row.Value{row.StrValue("a;b"), row.StrValue("a,b"), row.IntValue(1)}, `"a;b";a,b;1`},
		{Map{"csv.allow-comments": "true"}, []row.Value{row.StrValue("#x"), row.StrValue("#y"), row.IntValue(1)}, `"#x",#y,1`},
	}
	for _, c := range cases {
		e, _ := NewEncoder(CSV, schema, c.opts)
		got, err := e.Encode(nil, row.Insert(c.vals...))
		if err != nil || string(got) != c.want {
			t.Errorf("%v %v: got %q, %v; want %q", c.opts, c.vals, got, err, c.want)
		}
	}
	e, _ = NewEncoder(CSV, schema, Map{"csv.disable-quote-character": "true"})
	if _, err := e.Encode(nil, row.Insert(row.StrValue("a,b"), row.NullValue, row.NullValue)); err == nil || !strings.Contains(err.Error(), "column a") {
		t.Errorf("unquotable value: %v", err)
	}
	if _, err := e.Encode(nil, row.Row{Kind: changelogmode.UpdateAfter, Vals: make([]row.Value, 3)}); err == nil {
		t.Error("+U encoded as csv")
	}
}

func TestCSVRoundTrip(t *testing.T) {
	// NULL is written as the null literal, by default empty, which reads
	// back as NULL only when the table says 'csv.null-literal' = ''
	// (TestCSVEmptyField; without it NULL reads back as an empty field
	// does, TestCSVFlinkRoundTrip).
	for _, opts := range []Map{{"csv.null-literal": ""}, {"csv.field-delimiter": "|", "csv.null-literal": `\N`},
		{"csv.quote-character": "'", "csv.escape-character": `\`, "csv.null-literal": ""}} {
		e, err := NewEncoder(CSV, allTypes(), opts)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewDecoder(CSV, allTypes(), opts)
		vals := allValues()
		vals[9] = row.StrValue(`a,"b' \N |x`) // no line break: a csv record is one line
		for _, in := range [][]row.Value{vals, make([]row.Value, len(vals))} {
			enc, err := e.Encode(nil, row.Insert(in...))
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode(nil, enc)
			if err != nil {
				t.Fatalf("%v: %s: %v", opts, enc, err)
			}
			assertVals(t, got[0].Vals, in)
		}
	}
}

func TestDebeziumDecode(t *testing.T) {
	schema := []connector.Column{col("id", types.New(types.BigInt)), col("name", types.StringType())}
	type kv struct {
		kind changelogmode.Kind
		id   int64
		name string
	}
	cases := []struct {
		opts Map
		in   string
		want []kv
	}{
		{nil, `{"before":null,"after":{"id":1,"name":"a"},"op":"c","ts_ms":1}`, []kv{{changelogmode.Insert, 1, "a"}}},
		{nil, `{"op":"r","after":{"id":1,"name":"a"},"source":{"db":"x"}}`, []kv{{changelogmode.Insert, 1, "a"}}},
		{nil, `{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"b"},"op":"u"}`,
			[]kv{{changelogmode.UpdateBefore, 1, "a"}, {changelogmode.UpdateAfter, 1, "b"}}},
		{nil, `{"before":{"id":1,"name":"b"},"after":null,"op":"d"}`, []kv{{changelogmode.Delete, 1, "b"}}},
		{nil, ``, nil},
		{nil, "  \n", nil},
		{Map{"debezium-json.schema-include": "true"},
			`{"schema":{"type":"struct"},"payload":{"before":null,"after":{"id":2,"name":"x"},"op":"c"}}`,
			[]kv{{changelogmode.Insert, 2, "x"}}},
	}
	for _, c := range cases {
		got, err := decodeOne(t, DebeziumJSON, schema, c.opts, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v", c.in, got)
			continue
		}
		for i, w := range c.want {
			r := got[i]
			if r.Kind != w.kind || r.Vals[0].Int() != w.id || r.Vals[1].Str() != w.name {
				t.Errorf("%s: row %d is %v %v, want %v", c.in, i, r.Kind, r.Vals, w)
			}
		}
	}
	errs := []struct{ in, want string }{
		{`{"before":null,"after":null,"op":"c"}`, "needs an 'after' image"},
		{`{"after":{"id":1},"op":"u"}`, "REPLICA IDENTITY FULL"},
		{`{"before":{"id":1},"op":"d"}x`, "unexpected text"},
		{`{"after":{"id":1}}`, "no 'op'"},
		{`{"after":{"id":1},"op":"t"}`, `unknown op "t"`},
		{`{"after":{"id":1},"op":5}`, `unknown op`},
		{`{"after":{"id":"x"},"op":"c"}`, `'after': column id BIGINT`},
		{`{"after":[1],"op":"c"}`, `expected a JSON object`},
		{`{"schema":{},"payload":{"op":"c","after":{}}}`, "schema-include"},
		{`[]`, "expected a JSON object"},
	}
	for _, c := range errs {
		got, err := decodeOne(t, DebeziumJSON, schema, nil, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, %v; want an error saying %q", c.in, got, err, c.want)
		}
	}
	if _, err := decodeOne(t, DebeziumJSON, schema, Map{"debezium-json.schema-include": "true"}, `{"op":"c","after":{}}`); err == nil {
		t.Error("schema-include without payload")
	}
}

func TestDebeziumEncode(t *testing.T) {
	schema := []connector.Column{col("id", types.New(types.BigInt)), col("name", types.StringType())}
	e, err := NewEncoder(DebeziumJSON, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewDecoder(DebeziumJSON, schema, nil)
	vals := []row.Value{row.IntValue(1), row.StrValue("a")}
	want := map[changelogmode.Kind]string{
		changelogmode.Insert:       `{"before":null,"after":{"id":1,"name":"a"},"op":"c"}`,
		changelogmode.UpdateAfter:  `{"before":null,"after":{"id":1,"name":"a"},"op":"c"}`,
		changelogmode.UpdateBefore: `{"before":{"id":1,"name":"a"},"after":null,"op":"d"}`,
		changelogmode.Delete:       `{"before":{"id":1,"name":"a"},"after":null,"op":"d"}`,
	}
	for k, w := range want {
		got, err := e.Encode(nil, row.Row{Kind: k, Vals: vals})
		if err != nil || string(got) != w {
			t.Errorf("%s: got %s, %v; want %s", k, got, err, w)
		}
		back, err := d.Decode(nil, got)
		if err != nil || len(back) != 1 {
			t.Fatalf("%s: %v %v", got, back, err)
		}
		wantKind := changelogmode.Insert
		if k == changelogmode.UpdateBefore || k == changelogmode.Delete {
			wantKind = changelogmode.Delete
		}
		if back[0].Kind != wantKind {
			t.Errorf("%s read back as %s", k, back[0].Kind)
		}
		assertVals(t, back[0].Vals, vals)
	}
	if out, err := e.Encode([]byte("x"), row.Row{Kind: 9, Vals: vals}); err == nil || string(out) != "x" {
		t.Errorf("bad kind: %q %v", out, err)
	}
	if out, err := e.Encode([]byte("x"), row.Insert(row.NullValue)); err == nil || string(out) != "x" {
		t.Errorf("short row: %q %v", out, err)
	}
}

func TestText(t *testing.T) {
	dec := []struct {
		u     int64
		scale int
		want  string
	}{{0, 0, "0"}, {0, 2, "0.00"}, {5, 3, "0.005"}, {-5, 3, "-0.005"}, {1230, 2, "12.30"}, {-9223372036854775808, 2, "-92233720368547758.08"}, {7, 0, "7"}}
	for _, c := range dec {
		if got := string(decimal.Append(nil, c.u, c.scale)); got != c.want {
			t.Errorf("decimal.Append(%d, %d) = %s, want %s", c.u, c.scale, got, c.want)
		}
		if c.u != -9223372036854775808 {
			if back, err := decimal.Parse(c.want, 18, c.scale); err != nil || back != c.u {
				t.Errorf("decimal.Parse(%s) = %d, %v", c.want, back, err)
			}
		}
	}
	if v, err := decimal.Parse("-9223372036854775808", 19, 0); err != nil || v != -9223372036854775808 {
		t.Errorf("min int64: %d %v", v, err)
	}
	if _, err := decimal.Parse("9223372036854775808", 19, 0); err == nil {
		t.Error("max int64 + 1 accepted")
	}
	// Dates across the whole range round-trip through text.
	for days := int64(-719162); days <= 2932896; days += 997 {
		txt := civil.AppendDate(nil, days)
		back, err := civil.ParseDate(string(txt), civil.Strict)
		if err != nil || back != days {
			t.Fatalf("%d -> %s -> %d, %v", days, txt, back, err)
		}
	}
	for _, m := range []int64{MinMillis, -1, 0, 1, 86399999, MaxMillis} {
		txt := civil.AppendTimestamp(nil, m, 3, ' ')
		back, err := civil.ParseTimestamp(string(txt), civil.Strict)
		if err != nil || back != m {
			t.Errorf("%d -> %s -> %d, %v", m, txt, back, err)
		}
	}
	if got := string(civil.AppendTimestamp(nil, MinMillis, 0, 'T')); got != "0001-01-01T00:00:00" {
		t.Errorf("MinMillis: %s", got)
	}
	if v, err := ParseText(types.New(types.Null), "x"); err == nil {
		t.Errorf("NULL type parsed: %v", v)
	}
}

// TestCSVEmptyField pins what an empty field and a field that cannot be
// parsed read as, against Flink's csv format (CsvToRowDataConverters, the
// format's documented 'csv.ignore-parse-errors': "fields are set to null in
// case of errors"): Flink parses an empty DOUBLE field with
// Double.parseDouble("") and fails, unless the null literal matches it or
// parse errors are ignored, which sets that field, not the row, to NULL.
func TestCSVEmptyField(t *testing.T) {
	schema := []connector.Column{col("iata", types.StringType()), col("city", types.StringType()), col("lat", types.New(types.Double))}
	lat := func(f float64) row.Value { return row.FloatValue(f) }
	ignore := Map{"csv.ignore-parse-errors": "true"}
	cases := []struct {
		opts Map
		in   string
		want []row.Value // nil: an error naming column lat
	}{
		{nil, "ABQ,Albuquerque,35.04", []row.Value{row.StrValue("ABQ"), row.StrValue("Albuquerque"), lat(35.04)}},
		{nil, "XXX,,", nil},
		{nil, `XXX,,""`, nil},
		{nil, "XXX,, ", nil},
		{nil, "BAD,Nowhere,north", nil},
		{Map{"csv.null-literal": "n/a"}, "XXX,,", nil},
		{Map{"csv.null-literal": "n/a"}, "XXX,n/a,n/a", []row.Value{row.StrValue("XXX"), row.NullValue, row.NullValue}},
		{Map{"csv.null-literal": ""}, "XXX,,", []row.Value{row.StrValue("XXX"), row.NullValue, row.NullValue}},
		// An empty string field is the empty string without a null literal
		// (Flink's StringData.fromString(jsonNode.asText())).
		{nil, "XXX,,1", []row.Value{row.StrValue("XXX"), row.StrValue(""), lat(1)}},
		{ignore, "XXX,,", []row.Value{row.StrValue("XXX"), row.StrValue(""), row.NullValue}},
		{ignore, "BAD,Nowhere,north", []row.Value{row.StrValue("BAD"), row.StrValue("Nowhere"), row.NullValue}},
		{ignore, "SHORT", []row.Value{row.StrValue("SHORT"), row.NullValue, row.NullValue}},
	}
	for _, c := range cases {
		got, err := decodeOne(t, CSV, schema, c.opts, c.in)
		if c.want == nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Column != "lat" {
				t.Errorf("%v %q: want an error naming column lat, got %v, %v", c.opts, c.in, got, err)
			}
			continue
		}
		if err != nil || len(got) != 1 {
			t.Errorf("%v %q: got %v, %v", c.opts, c.in, got, err)
			continue
		}
		assertVals(t, got[0].Vals, c.want)
	}
	// Ignoring parse errors does not make up a row: too many fields, an
	// unterminated quote, or NULL in a NOT NULL column stay errors (the
	// runtime then counts and skips the record).
	strict := []connector.Column{col("iata", types.StringType()), col("lat", types.New(types.Double).NotNull())}
	for _, in := range []string{"A,1,2", `A,"1`, "A,north", "A,", "A"} {
		if got, err := decodeOne(t, CSV, strict, ignore, in); err == nil {
			t.Errorf("ignore-parse-errors %q: want an error, got %v", in, got)
		}
	}
}

// BenchmarkCSVDecode reads the 6-field event of BenchmarkJSONDecode as a
// csv line.
func BenchmarkCSVDecode(b *testing.B) {
	d, err := NewDecoder(CSV, benchSchema(), nil)
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`1234567,user_42,1234.56,true,2026-01-01 12:34:56.789,0.75`)
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
