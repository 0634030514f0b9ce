package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format/formattest"
	"github.com/streamsql/streamsql/row"
)

// The fuzz targets of the row decoders (the schema, the row generator and
// the types' domains are package formattest's). Each format has two:
//
//   - FuzzXDecode feeds arbitrary bytes to the decoder (with options picked
//     by the first byte). Property: it never panics; on error it returns
//     the batch it was given, unchanged, and the error names what is wrong
//     (a *FieldError names a column of the schema and shows the value); on
//     success every value lies in its column's domain (an INT fits 32 bits,
//     a DECIMAL(p, s) its p digits, a TIMESTAMP(0) has no fraction, a
//     string is UTF-8, a NOT NULL column is not NULL, a metadata column is
//     left NULL), and encoding the rows and decoding them again gives the
//     same rows.
//   - FuzzXRoundTrip builds a valid row of every column type from the
//     fuzzer's bytes (edge values included: NULL, the ends of each range,
//     NaN and infinities, strings holding the delimiter, quotes, line
//     breaks, the null literal) and checks decode(encode(row)) == row, so
//     that the fuzzer finds wrong answers, not only crashes. For csv the
//     row expected back is formattest.CSVReadBack's, Flink's: a value written as the
//     null literal reads back NULL, and NULL written without one reads
//     back as an empty field does.
//
// `make fuzz` runs each for FUZZTIME; failing inputs are kept under
// testdata/fuzz/<target>/, which `go test` runs as regression cases.

// fuzzOptions picks a format's options from one byte; write leaves out
// the options only a reader takes.
func fuzzOptions(format string, b byte, write bool) Map {
	m := Map{}
	switch format {
	case JSON:
		if b&1 != 0 {
			m["json.timestamp-format.standard"] = "ISO-8601"
		}
		if b&2 != 0 {
			m["json.encode.ignore-null-fields"] = "true"
		} else if b&4 != 0 {
			// Not with ignore-null-fields: a NULL left out could not be
			// read back (as in Flink).
			m["json.fail-on-missing-field"] = "true"
		}
	case DebeziumJSON:
		if b&1 != 0 {
			m["debezium-json.timestamp-format.standard"] = "ISO-8601"
		}
		if b&2 != 0 && !write {
			// For reading only (the writer refuses it).
			m["debezium-json.schema-include"] = "true"
		}
	case CSV:
		m["csv.field-delimiter"] = []string{",", "|", `\t`, ";"}[b&3]
		switch b >> 2 & 3 {
		case 1:
			m["csv.quote-character"] = "'"
		case 2:
			m["csv.escape-character"] = `\`
		case 3:
			m["csv.disable-quote-character"] = "true"
		}
		m["csv.null-literal"] = []string{"", "", "NULL", `\N`}[b>>4&3]
		if b&64 != 0 {
			m["csv.allow-comments"] = "true"
		}
	}
	return m
}

// checkDomain fails when a decoded value is not a value of its column's
// type: a decoder must refuse such input, never hold a wrong value.
func checkDomain(t *testing.T, schema []connector.Column, vals []row.Value, data []byte) {
	t.Helper()
	if len(vals) != len(schema) {
		t.Fatalf("%q: %d values for %d columns", data, len(vals), len(schema))
	}
	for i, c := range schema {
		v := vals[i]
		if !physical(&c) {
			if !v.IsNull() {
				t.Fatalf("%q: metadata column %s holds %v", data, c.Name, v)
			}
			continue
		}
		if v.IsNull() {
			if !c.Type.Nullable {
				t.Fatalf("%q: NOT NULL column %s is NULL", data, c.Name)
			}
			continue
		}
		if err := formattest.InDomain(c.Type, v); err != "" {
			t.Fatalf("%q: column %s %s holds %v: %s", data, c.Name, c.Type, v, err)
		}
	}
}

// checkError fails unless err says what is wrong: a *FieldError names a
// physical column of the schema and shows the value (or says the field is
// missing), and its message names the column.
func checkError(t *testing.T, schema []connector.Column, err error, data []byte) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatalf("%q: an empty error", data)
	}
	var fe *FieldError
	if !errors.As(err, &fe) {
		return
	}
	found := false
	for i := range schema {
		if schema[i].Name == fe.Column && physical(&schema[i]) {
			found = true
		}
	}
	if !found {
		t.Fatalf("%q: error %q names column %q, not one of the schema's", data, msg, fe.Column)
	}
	if !strings.Contains(msg, "column "+fe.Column+fe.Path+" ") {
		t.Fatalf("%q: error %q does not name its column", data, msg)
	}
	if !fe.Missing && !strings.Contains(msg, "value ") {
		t.Fatalf("%q: error %q does not show the value", data, msg)
	}
}

// schemaOf is the schema a format's fuzz targets read and write: every
// column type it has (json and debezium-json have nested types too).
func schemaOf(format string) []connector.Column {
	if format == CSV {
		return formattest.Schema()
	}
	return formattest.NestedSchema()
}

// sentinel is a row put in dst before decoding: a decoder appends after it
// and, on error, returns dst unchanged.
var sentinel = row.Insert(row.StrValue("sentinel"))

// fuzzDecode is the body of the FuzzXDecode targets.
func fuzzDecode(t *testing.T, format string, data []byte) {
	if len(data) == 0 {
		return
	}
	ob := data[0]
	opts := fuzzOptions(format, ob, false)
	data = data[1:]
	schema := schemaOf(format)
	d, err := NewDecoder(format, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	dst := row.Batch{sentinel}
	b, err := d.Decode(dst, data)
	if len(b) < 1 || !b[0].Vals[0].Equal(sentinel.Vals[0]) {
		t.Fatalf("%q: the batch given lost its first row: %v", data, b)
	}
	if err != nil {
		if len(b) != 1 {
			t.Fatalf("%q: rows with an error %v: %v", data, err, b)
		}
		checkError(t, schema, err, data)
		return
	}
	rows := b[1:]
	switch {
	case format == DebeziumJSON && len(rows) > 2, format != DebeziumJSON && len(rows) > 1:
		t.Fatalf("%q: %d rows from one record", data, len(rows))
	}
	for _, r := range rows {
		if format != DebeziumJSON && r.Kind != changelogmode.Insert {
			t.Fatalf("%q: a %s row from an insert-only format", data, r.Kind)
		}
		checkDomain(t, schema, r.Vals, data)
	}
	// What decodes, re-encodes to a record that decodes to the same rows.
	// (With the writer's options: the record is read back with a reader
	// of the same options.)
	wopts := fuzzOptions(format, ob, true)
	e, err := NewEncoder(format, schema, wopts)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := NewDecoder(format, schema, wopts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		enc, err := e.Encode(nil, r)
		if err != nil {
			if format == CSV && opts["csv.disable-quote-character"] != "" {
				continue // a value that needs quotes cannot be written
			}
			t.Fatalf("%q: re-encoding %v: %v", data, r, err)
		}
		want := r
		if format == CSV {
			var ok bool
			if want, ok = csvReadBack(schema, wopts, r); !ok {
				if _, err := d2.Decode(nil, enc); err == nil {
					t.Fatalf("%q: the re-encoded %q decodes, but Flink cannot read it back", data, enc)
				}
				continue
			}
		}
		back, err := d2.Decode(nil, enc)
		if err != nil {
			t.Fatalf("%q: decoding the re-encoded %q: %v", data, enc, err)
		}
		if len(back) != 1 {
			t.Fatalf("%q: the re-encoded %q decodes to %d rows", data, enc, len(back))
		}
		sameRow(t, schema, want, back[0], format, string(enc))
	}
}

// sameRow fails unless got is what encoding want and decoding it gives:
// the same values, and for debezium-json the kind as the format writes it
// (+I and +U as an insert, -U and -D as a delete).
func sameRow(t *testing.T, schema []connector.Column, want, got row.Row, format, via string) {
	t.Helper()
	kind := want.Kind
	if format == DebeziumJSON {
		switch kind {
		case changelogmode.Insert, changelogmode.UpdateAfter:
			kind = changelogmode.Insert
		case changelogmode.UpdateBefore, changelogmode.Delete:
			kind = changelogmode.Delete
		}
	}
	if got.Kind != kind {
		t.Fatalf("%s %v came back as %s (via %q)", want.Kind, want.Vals, got.Kind, via)
	}
	for i := range schema {
		if !formattest.SameValue(got.Vals[i], want.Vals[i]) {
			t.Fatalf("column %s %s: %v came back as %v (via %q)", schema[i].Name, schema[i].Type, want.Vals[i], got.Vals[i], via)
		}
	}
}

func decodeSeeds(f *testing.F, format string, seeds []string) {
	for _, s := range seeds {
		for _, opt := range []byte{0, 1, 2, 4, 5, 6, 7, 0x48, 0x3d, 0x7f} {
			f.Add(append([]byte{opt}, s...))
		}
	}
}

// jsonSeeds are objects over fuzzSchema: every type, good and bad.
var jsonSeeds = []string{
	`{"b":true,"i8":-128,"i16":32767,"i32":-2147483648,"i64":9223372036854775807,"f":1.25,"d":-0.1,"dec":12.30,` +
		`"dec0":-99999,"dec18":0.123456789012345678,"dec38":-922337203685477.5808,"ch":"abc","vc":"é\ud83d\ude00",` +
		`"s":"a,\"b\"\n\t\u0001","bin":"AP8=","by":"","day":"0001-01-01","tod0":"23:59:59","tod":"00:00:00.001",` +
		`"ts0":"9999-12-31 23:59:59","ts1":"1969-12-31 23:59:59.9","ts":"2026-01-01T00:00:00Z","ts9":"2026-01-01 00:00:00.123456789",` +
		`"ltz":"2026-01-01T00:00:00+05:30","ltz0":"0001-01-01T00:00:00","iv":-86400000,"ym":14,"nn":0,"nns":""}`,
	`{"nn":"42","nns":"x","i32":"7","dec":"1e2","d":"NaN","f":"-Infinity","b":false,"s":{"nested":[1,{"a":null}]}}`,
	`{"nn":1,"nns":"x","ts0":"2026-01-01 00:00:00.999","tod0":"12:00:00.5","ts1":"2026-01-01 00:00:00.99"}`,
	`{"nn":1,"nns":"x","i8":128}`, `{"nn":1,"nns":"x","i32":1.5}`, `{"nn":1,"nns":"x","dec0":123456}`,
	`{"nn":1,"nns":"x","ts":1767225600000}`, `{"nn":1,"nns":"x","day":"2026-02-30"}`, `{"nn":null,"nns":"x"}`,
	`{"nn":1,"nns":"\xff"}`, `{"nn":1,"nns":"x","f":1e39}`, `{"nn":1,"nns":"x","i64":9223372036854775808}`,
	`{"nn":1,"nns":"x","dec18":1}`, `{"nn":1,"nns":"x","ts":"10000-01-01 00:00:00"}`, `{"nn":1}`, `{}`, `[`, ``,
	`{"nn":1,"nns":"x","ts9":"2026-01-01 00:00:00.1234567890"}`, `{"nn":1,"nns":"x","tod":"24:00:00"}`,
	`{"nn":tru`, `{"nn":`, `{"nn":}`, `{"nn": [1,`, `{"nn":nul`, `{"nn":1,"nns":"x"} x`, `{"a":{"b":[[[]]]}}`,
	`{"nn":1,"nns":"\u00"}`, `{"nn":1,"nns":"\ud800"}`, `{"nn":-0,"nns":"x","d":-0.0,"f":"-0"}`,
	`{"nn":1,"nns":"x","arr":[1,null,-3],"arrs":["a","é"],"arrd":[-0.0,"NaN",1e300],"m":{"k":"2026-01-01 00:00:00.5","j":null},` +
		`"mi":{"-9223372036854775808":[1.5,null],"7":[]},"r":{"a":null,"b c":true,"inner":{"x":"y","y":-12.34},"z":[1]},` +
		`"ar":[{"x":null},{"y":1}]}`,
	`{"nn":1,"nns":"x","arrs":["a",null]}`, `{"nn":1,"nns":"x","r":{"a":1}}`, `{"nn":1,"nns":"x","arr":[1,}`,
	`{"nn":1,"nns":"x","arr":[1 2]}`, `{"nn":1,"nns":"x","mi":{"x":[]}}`, `{"nn":1,"nns":"x","m":{"a":1}}`,
	`{"nn":1,"nns":"x","arr":"[1]"}`, `{"nn":1,"nns":"x","r":[1,true]}`, `{"nn":1,"nns":"x","ar":[{"x":[1]}]}`,
	`{"nn":1,"nns":"x","mi":{"1":[1],"1":[2]}}`, `{"nn":1,"nns":"x","ar":[{"x":"a"},{"x":"b",}]}`,
}

// FuzzJSONDecode: see the top of this file.
func FuzzJSONDecode(f *testing.F) {
	decodeSeeds(f, JSON, jsonSeeds)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, JSON, data) })
}

// FuzzDebeziumDecode: see the top of this file.
func FuzzDebeziumDecode(f *testing.F) {
	var seeds []string
	for _, s := range jsonSeeds[:4] {
		seeds = append(seeds,
			`{"before":null,"after":`+s+`,"op":"c"}`,
			`{"op":"u","before":`+s+`,"after":`+s+`,"ts_ms":1}`,
			`{"before":`+s+`,"after":null,"op":"d","source":{"db":"x"}}`,
			`{"schema":{"type":"struct"},"payload":{"before":null,"after":`+s+`,"op":"r"}}`)
	}
	seeds = append(seeds, `{"op":`, `{"op":}`, `{"op":tru`, `{"op": [1,`, `{"op":nul`, `{"op":null}`, `{"op":5}`,
		`{"op":"c"}`, `{"op":"u","after":{"nn":1,"nns":"x"}}`, `{"op":"x","after":{}}`, `{"payload":{}}`, ``, `  `,
		`{"before":{"nn":1,"nns":"x"},"op":"d"} x`, `{"after":[],"op":"c"}`, `{"schema":1,"payload":{"op":"c","after":{"nn":1,"nns":"y"}}}`)
	decodeSeeds(f, DebeziumJSON, seeds)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, DebeziumJSON, data) })
}

// FuzzCSVDecode: see the top of this file.
func FuzzCSVDecode(f *testing.F) {
	decodeSeeds(f, CSV, []string{
		`true,-128,32767,-2147483648,9223372036854775807,1.25,-0.1,12.30,-99999,0.123456789012345678,-922337203685477.5808,` +
			`abc,"é,""x""","a ""b"" c",AP8=,,0001-01-01,23:59:59,00:00:00.001,9999-12-31 23:59:59,1969-12-31 23:59:59.9,` +
			`2026-01-01T00:00:00Z,2026-01-01 00:00:00.123456789,2026-01-01T00:00:00+05:30,0001-01-01T00:00:00,-86400000,14,0,""`,
		`,,,,,,,,,,,,,,,,,,,,,,,,,,,1,x`,
		`,,,,,,,,,,,,,,,,,,,,,,,,,,,,x`, `,,,,,,,,,,,,,,,,,,,,,,,,,,,"",x`, `,,,,,,,,,,,,,,,,,,,,,,,,,,,1,"a`,
		`,,,,,,,,,,,,,,,,,,,,,,,,,,,1,"a"b`, `,,,,,,,,,,,,,,,,,,,,,,,,,,,1,"a` + "\n" + `b"`, `# comment`, `1,2`,
		`NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|1|"NULL"`,
		`,,,,,,,,,,,,,,,,,,,,,,,,,,,1,'a''b'`, `,,,,,,,,,,,,,,,,,,,,,,,,,,,1,"a\"b"`, ` x ,,,,,,,,,,,,,,,,,,,,,,,,,,,1,x`,
		`,,,,,,,,,,,,,,,,,,,,,,,,,,,1,` + "\xff",
	})
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, CSV, data) })
}

// csvReadBack is formattest.CSVReadBack with the options of a table.
func csvReadBack(schema []connector.Column, opts Map, in row.Row) (row.Row, bool) {
	null, nullSet := opts["csv.null-literal"]
	return formattest.CSVReadBack(schema, null, nullSet, AppendText, in)
}

// fuzzRoundTrip is the body of the FuzzXRoundTrip targets.
func fuzzRoundTrip(t *testing.T, format string, data []byte) {
	g := &formattest.Gen{Data: data}
	opts := fuzzOptions(format, g.Byte(), true)
	schema := schemaOf(format)
	in := g.Row(schema, format == DebeziumJSON)
	e, err := NewEncoder(format, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDecoder(format, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := e.Encode(nil, in)
	if err != nil {
		if format == CSV && opts["csv.disable-quote-character"] != "" && strings.Contains(err.Error(), "needs quoting") {
			return
		}
		t.Fatalf("encoding %v: %v", in, err)
	}
	want := in
	if format == CSV {
		var ok bool
		if want, ok = csvReadBack(schema, opts, in); !ok {
			if _, err := d.Decode(nil, enc); err == nil {
				t.Fatalf("%v (options %v) encodes to %q, which Flink cannot read back, but it decodes", in, opts, enc)
			}
			return
		}
	}
	out, err := d.Decode(nil, enc)
	if err != nil {
		t.Fatalf("%v (options %v) encodes to %q, which does not decode: %v", in, opts, enc, err)
	}
	if format == CSV && opts["csv.allow-comments"] != "" && len(out) == 0 {
		t.Fatalf("%v encodes to %q, which reads as a comment", in, enc)
	}
	if len(out) != 1 {
		t.Fatalf("%v encodes to %q, which decodes to %d rows", in, enc, len(out))
	}
	sameRow(t, schema, want, out[0], format, string(enc))
}

// roundTripSeeds drive the generator to the ends of every range, to NULLs,
// and to strings full of delimiters and quotes.
func roundTripSeeds(f *testing.F) {
	for opt := range 128 {
		for _, fill := range []byte{0, 1, 2, 3, 0x41, 0x80, 0xff} {
			seed := []byte{byte(opt)}
			for range 200 {
				seed = append(seed, fill)
			}
			f.Add(seed)
		}
	}
}

// FuzzJSONRoundTrip: see the top of this file.
func FuzzJSONRoundTrip(f *testing.F) {
	roundTripSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, JSON, data) })
}

// FuzzDebeziumRoundTrip: see the top of this file.
func FuzzDebeziumRoundTrip(f *testing.F) {
	roundTripSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, DebeziumJSON, data) })
}

// FuzzCSVRoundTrip: see the top of this file.
func FuzzCSVRoundTrip(f *testing.F) {
	roundTripSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, CSV, data) })
}
