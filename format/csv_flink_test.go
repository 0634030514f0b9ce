package format

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format/formattest"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The csv format reads and writes as Flink's does (flink-formats/flink-csv:
// CsvRowDataDeserializationSchema reads a record with Jackson's CsvParser
// into a JsonNode, CsvToRowDataConverters turns each field into a value,
// RowDataToCsvConverters and Jackson's CsvGenerator write). One table per
// rule; each case says which piece of Flink it checks. The expectations
// are Flink's, worked out from that code, not the decoder's own output.

// flinkCase is one field read into a one-column table of type typ.
type flinkCase struct {
	typ  types.T
	in   string    // the record (one field, as written in the file)
	want row.Value // ignored when err != ""
	err  string    // "" for a value; else a part of the error
	why  string    // the Flink behaviour checked
}

func runFlinkCases(t *testing.T, opts Map, cases []flinkCase) {
	t.Helper()
	for _, c := range cases {
		schema := []connector.Column{col("v", c.typ)}
		got, err := decodeOne(t, CSV, schema, opts, c.in)
		if c.err != "" {
			var fe *FieldError
			if err == nil || !strings.Contains(err.Error(), c.err) || errors.As(err, &fe) && fe.Column != "v" {
				t.Errorf("%s %q (%s): got %v, %v; want an error saying %q", c.typ, c.in, c.why, got, err, c.err)
			}
			continue
		}
		if err != nil || len(got) != 1 {
			t.Errorf("%s %q (%s): got %v, %v; want %v", c.typ, c.in, c.why, got, err, c.want)
			continue
		}
		if !formattest.SameValue(got[0].Vals[0], c.want) {
			t.Errorf("%s %q (%s): got %v, want %v", c.typ, c.in, c.why, got[0].Vals[0], c.want)
		}
	}
}

var (
	tString = types.StringType()
	tBytes  = types.New(types.Varbinary)
	tBool   = types.New(types.Boolean)
	tInt    = types.New(types.Int)
	tBigInt = types.New(types.BigInt)
	tDouble = types.New(types.Double)
	tFloat  = types.New(types.Float)
	tDec    = types.DecimalOf(10, 2)
	tDate   = types.New(types.Date)
	tTime   = types.TimeOf(0)
	tTS     = types.TimestampOf(3)
	tLTZ    = types.TimestampLTZOf(3)
)

// TestCSVFlinkEmptyField: without 'csv.null-literal' nothing is NULL. Jackson
// reads an empty field as the text "", and the converters read it.
func TestCSVFlinkEmptyField(t *testing.T) {
	const noNull = "'csv.null-literal' = '' reads an empty field as NULL"
	runFlinkCases(t, nil, []flinkCase{
		{tString, ``, row.StrValue(""), "", "StringData.fromString(\"\")"},
		{tString, `""`, row.StrValue(""), "", "a quoted empty field is the same text"},
		{tBytes, ``, row.StrValue(""), "", "TextNode(\"\").binaryValue() is the empty byte array"},
		{tBool, ``, row.BoolValue(false), "", "Boolean.parseBoolean(\"\") is false"},
		{tInt, ``, row.NullValue, "an empty field cannot be read as INT; " + noNull, "Integer.parseInt(\"\") throws"},
		{tBigInt, `""`, row.NullValue, "an empty field cannot be read as BIGINT", "Long.parseLong(\"\") throws"},
		{tDouble, ``, row.NullValue, "an empty field cannot be read as DOUBLE", "Double.parseDouble(\"\") throws"},
		{tDec, ``, row.NullValue, "an empty field cannot be read as DECIMAL", "new BigDecimal(\"\") throws"},
		{tDate, ``, row.NullValue, "an empty field cannot be read as DATE", "Date.valueOf(\"\") throws"},
		{tTime, ``, row.NullValue, "an empty field cannot be read as TIME", "LocalTime.parse(\"\") throws"},
		{tTS, ``, row.NullValue, "an empty field cannot be read as TIMESTAMP", "LocalDateTime.parse(\"\") throws"},
		{tInt, `  `, row.NullValue, "a blank field cannot be read as INT", "Integer.parseInt(\"  \".trim()) throws"},
		{tString, `NULL`, row.StrValue("NULL"), "", "no null literal: NULL is text"},
	})
}

// TestCSVFlinkNullLiteral: Jackson's CsvParser reports a field whose text
// (after unquoting) equals the schema's null value as null, whatever the
// column's type, and quoted or not (_handleNamedValue compares the text).
func TestCSVFlinkNullLiteral(t *testing.T) {
	runFlinkCases(t, Map{"csv.null-literal": "n/a"}, []flinkCase{
		{tString, `n/a`, row.NullValue, "", "the literal is NULL"},
		{tString, `"n/a"`, row.NullValue, "", "quoted too: the parser compares the unquoted text"},
		{tInt, `n/a`, row.NullValue, "", "for any type"},
		{tString, ``, row.StrValue(""), "", "an empty field is still the empty string"},
		{tBool, ``, row.BoolValue(false), "", "and FALSE for a BOOLEAN"},
		{tInt, ``, row.NullValue, `an empty field cannot be read as INT, and 'csv.null-literal' is "n/a"`, "and an error for an INT"},
		{tString, ` n/a`, row.StrValue(" n/a"), "", "the literal is compared untrimmed"},
		{tString, `N/A`, row.StrValue("N/A"), "", "and case-sensitively"},
	})
	runFlinkCases(t, Map{"csv.null-literal": ""}, []flinkCase{
		{tString, ``, row.NullValue, "", "an empty literal makes the empty field NULL"},
		{tString, `""`, row.NullValue, "", "quoted too"},
		{tDouble, ``, row.NullValue, "", "for any type"},
		{tDate, ``, row.NullValue, "", "for any type"},
		{tDouble, ` `, row.NullValue, "a blank field cannot be read as DOUBLE", "a blank field is not the literal"},
	})
	// A NOT NULL column refuses the literal (Flink would put a null in it).
	schema := []connector.Column{col("v", tInt.NotNull())}
	if _, err := decodeOne(t, CSV, schema, Map{"csv.null-literal": "n/a"}, "n/a"); err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Errorf("NOT NULL column, null literal: %v", err)
	}
}

// TestCSVFlinkBoolean: convertToBoolean is Boolean.parseBoolean(text.trim()):
// 'true' in any case is TRUE, anything else FALSE, never an error.
func TestCSVFlinkBoolean(t *testing.T) {
	var cases []flinkCase
	for _, s := range []string{"true", "TRUE", "True", "tRuE", " true ", "\ttrue\x01"} {
		cases = append(cases, flinkCase{tBool, s, row.BoolValue(true), "", "parseBoolean(trim) is true"})
	}
	for _, s := range []string{"false", "yes", "1", "t", "on", "truex", "tru e", "\u00a0true"} {
		cases = append(cases, flinkCase{tBool, s, row.BoolValue(false), "", "parseBoolean of anything but 'true' is false"})
	}
	runFlinkCases(t, nil, cases)
}

// TestCSVFlinkTrim: which types Flink trims (String.trim, which drops every
// character up to ' ', control characters too, and no other space).
func TestCSVFlinkTrim(t *testing.T) {
	runFlinkCases(t, nil, []flinkCase{
		{tString, ` x `, row.StrValue(" x "), "", "convertToString: asText(), untrimmed"},
		{tString, "\tx\x01", row.StrValue("\tx\x01"), "", "untrimmed"},
		{tInt, ` 7 `, row.IntValue(7), "", "convertToInt: Integer.parseInt(text.trim())"},
		{tInt, "\t7\x01", row.IntValue(7), "", "String.trim drops control characters"},
		{tInt, "7\u00a0", row.NullValue, "expected an integer", "String.trim keeps a no-break space"},
		{tInt, `+7`, row.IntValue(7), "", "Integer.parseInt takes a plus sign"},
		{tBigInt, ` -9223372036854775808 `, row.IntValue(math.MinInt64), "", "Long.parseLong(text.trim())"},
		{tDouble, ` 1.5 `, row.FloatValue(1.5), "", "Double.parseDouble(text.trim())"},
		{tDouble, `1.5d`, row.FloatValue(1.5), "", "Double.parseDouble takes a type suffix"},
		{tFloat, `2F`, row.FloatValue(2), "", "Float.parseFloat takes a type suffix"},
		{tDouble, `Infinity`, row.FloatValue(math.Inf(1)), "", "Java's spelling of infinity"},
		{tDouble, `-Infinity`, row.FloatValue(math.Inf(-1)), "", "Java's spelling of infinity"},
		{tDouble, `inf`, row.NullValue, "expected a number", "Double.parseDouble refuses inf"},
		{tDouble, `nan`, row.NullValue, "expected a number", "Double.parseDouble refuses nan (only NaN)"},
		{tDouble, `1_000`, row.NullValue, "expected a number", "Double.parseDouble refuses underscores"},
		{tDec, `12.3`, row.IntValue(1230), "", "new BigDecimal(text)"},
		{tDec, ` 12.3`, row.NullValue, "spaces around a DECIMAL are not read", "new BigDecimal(text), untrimmed, throws"},
		{tDate, `2026-01-05`, row.IntValue(20458), "", "Date.valueOf"},
		{tDate, `2026-1-5`, row.IntValue(20458), "", "Date.valueOf takes one-digit months and days"},
		{tDate, `2026-01-05 `, row.NullValue, "spaces around a DATE are not read", "Date.valueOf(text), untrimmed, throws"},
		{tTime, `12:34:56`, row.IntValue(45296000), "", "LocalTime.parse"},
		{tTime, ` 12:34:56`, row.NullValue, "spaces around a TIME are not read", "LocalTime.parse(text), untrimmed, throws"},
		{tTS, ` 2026-01-01 00:00:00.250 `, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 250)), "", "LocalDateTime.parse(text.trim(), SQL_TIMESTAMP_FORMAT)"},
		{tLTZ, ` 2026-01-01 00:00:00Z `, row.IntValue(ms(2026, 1, 1, 0, 0, 0, 0)), "", "TIMESTAMP_LTZ: trimmed, 'Z' is UTC"},
	})
}

// TestCSVFlinkIgnoreParseErrors: with 'csv.ignore-parse-errors' the nullable
// converter returns null for a field that throws (createNullableConverter),
// and validateArity lets a short record through, its missing fields null
// (jsonNode.get(name) is null). A record Jackson cannot read (too many
// fields, an unterminated quote) makes deserialize return null: no row (our
// decoder's error, which the runtime counts and skips).
func TestCSVFlinkIgnoreParseErrors(t *testing.T) {
	schema := []connector.Column{col("name", tString), col("n", tInt), col("ok", tBool)}
	ignore := Map{"csv.ignore-parse-errors": "true"}
	cases := []struct {
		opts Map
		in   string
		want []row.Value // nil: an error
		why  string
	}{
		{ignore, `a,x,true`, []row.Value{row.StrValue("a"), row.NullValue, row.BoolValue(true)}, "a field that throws is NULL"},
		{ignore, `a,,`, []row.Value{row.StrValue("a"), row.NullValue, row.BoolValue(false)}, "an empty INT is NULL, an empty BOOLEAN FALSE"},
		{ignore, `a`, []row.Value{row.StrValue("a"), row.NullValue, row.NullValue}, "missing fields are NULL"},
		{ignore, ``, []row.Value{row.StrValue(""), row.NullValue, row.NullValue}, "an empty line is a record of one empty field: a row"},
		{ignore, `a,1,true,x`, nil, "too many entries: Jackson throws, no row"},
		{ignore, `"a,1,true`, nil, "an unterminated quote: Jackson throws, no row"},
		{nil, `a,x,true`, nil, "without it a field that throws fails the record"},
		{nil, `a`, nil, "without it validateArity fails a short record"},
		{nil, ``, nil, "without it an empty line fails (Row length mismatch)"},
	}
	for _, c := range cases {
		got, err := decodeOne(t, CSV, schema, c.opts, c.in)
		if c.want == nil {
			if err == nil {
				t.Errorf("%v %q (%s): got %v, want an error", c.opts, c.in, c.why, got)
			}
			continue
		}
		if err != nil || len(got) != 1 {
			t.Errorf("%v %q (%s): got %v, %v", c.opts, c.in, c.why, got, err)
			continue
		}
		assertVals(t, got[0].Vals, c.want)
	}
	// The error for an empty line says what it is.
	if _, err := decodeOne(t, CSV, schema, nil, ""); err == nil || !strings.Contains(err.Error(), "an empty line is a record of one empty field") {
		t.Errorf("empty line: %v", err)
	}
}

// TestCSVFlinkTrailingDelimiter: Jackson's ALLOW_TRAILING_COMMA (on by
// default) drops one extra last field when it is empty or blank
// (_handleExtraColumn trims it); any other extra field is "Too many
// entries".
func TestCSVFlinkTrailingDelimiter(t *testing.T) {
	schema := []connector.Column{col("a", tString), col("b", tInt)}
	cases := []struct {
		in   string
		want []row.Value // nil: an error
		why  string
	}{
		{`x,1,`, []row.Value{row.StrValue("x"), row.IntValue(1)}, "one trailing delimiter is ignored"},
		{`x,1, `, []row.Value{row.StrValue("x"), row.IntValue(1)}, "a blank extra field too"},
		{`x,1,""`, []row.Value{row.StrValue("x"), row.IntValue(1)}, "a quoted empty one too: the text is compared"},
		{`x,1,,`, nil, "two are too many entries"},
		{`x,1,y`, nil, "a non-empty extra field is too many entries"},
		{`x,`, nil, "a short record's trailing delimiter is its last, empty field: an empty INT"},
	}
	for _, c := range cases {
		got, err := decodeOne(t, CSV, schema, nil, c.in)
		if c.want == nil {
			if err == nil {
				t.Errorf("%q (%s): got %v, want an error", c.in, c.why, got)
			}
			continue
		}
		if err != nil || len(got) != 1 {
			t.Errorf("%q (%s): got %v, %v", c.in, c.why, got, err)
			continue
		}
		assertVals(t, got[0].Vals, c.want)
	}
}

// TestCSVFlinkEncode: RowDataToCsvConverters hand Jackson's CsvGenerator a
// null node for NULL, written as the schema's null value ("" without one),
// and the string itself otherwise; CsvEncoder does not quote an empty
// string (ALWAYS_QUOTE_EMPTY_STRINGS is off) and knows nothing of the null
// literal.
func TestCSVFlinkEncode(t *testing.T) {
	schema := []connector.Column{col("s", tString), col("n", tInt), col("b", tBool)}
	cases := []struct {
		opts Map
		vals []row.Value
		want string
	}{
		{nil, []row.Value{row.StrValue(""), row.IntValue(1), row.BoolValue(false)}, `,1,false`},
		{nil, []row.Value{row.NullValue, row.NullValue, row.NullValue}, `,,`},
		{Map{"csv.null-literal": "n/a"}, []row.Value{row.NullValue, row.NullValue, row.BoolValue(true)}, `n/a,n/a,true`},
		{Map{"csv.null-literal": "n/a"}, []row.Value{row.StrValue("n/a"), row.IntValue(-2), row.NullValue}, `n/a,-2,n/a`},
		{nil, []row.Value{row.StrValue(`say "hi", bye`), row.IntValue(0), row.BoolValue(true)}, `"say ""hi"", bye",0,true`},
		{nil, []row.Value{row.StrValue(" padded "), row.IntValue(0), row.BoolValue(true)}, ` padded ,0,true`},
	}
	for _, c := range cases {
		e, err := NewEncoder(CSV, schema, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Encode(nil, row.Insert(c.vals...))
		if err != nil || string(got) != c.want {
			t.Errorf("%v %v: got %q, %v; want %q", c.opts, c.vals, got, err, c.want)
		}
	}
}

// TestCSVFlinkRoundTrip: what the writer writes, the reader reads back as
// Flink would (formattest.CSVReadBack, a model of Flink's rules): a value
// comes back as itself, except a value written as the null literal (NULL,
// and the empty string when the literal is empty), which is NULL, and NULL
// written without a literal, which reads as an empty field does.
func TestCSVFlinkRoundTrip(t *testing.T) {
	schema := []connector.Column{col("s", tString), col("bin", tBytes), col("b", tBool), col("n", tInt), col("d", tDouble),
		col("dec", tDec), col("day", tDate), col("tod", tTime), col("ts", tTS)}
	rows := [][]row.Value{
		{row.StrValue("x, \"y\""), row.StrValue("\x00\xff"), row.BoolValue(true), row.IntValue(-7), row.FloatValue(0.1),
			row.IntValue(1230), row.IntValue(20458), row.IntValue(45296000), row.IntValue(ms(2026, 1, 1, 0, 0, 0, 250))},
		{row.StrValue(""), row.StrValue(""), row.BoolValue(false), row.IntValue(0), row.FloatValue(math.Inf(-1)),
			row.IntValue(0), row.IntValue(0), row.IntValue(0), row.IntValue(0)},
		{row.StrValue("NULL"), row.NullValue, row.NullValue, row.IntValue(1), row.FloatValue(1), row.IntValue(1), row.IntValue(1), row.IntValue(1000), row.IntValue(1000)},
		{row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue},
	}
	for _, opts := range []Map{nil, {"csv.null-literal": ""}, {"csv.null-literal": "NULL"}, {"csv.field-delimiter": "\t", "csv.null-literal": `\N`}} {
		e, err := NewEncoder(CSV, schema, opts)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := NewDecoder(CSV, schema, opts)
		null, nullSet := opts["csv.null-literal"]
		for _, vals := range rows {
			in := row.Insert(vals...)
			enc, err := e.Encode(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode(nil, enc)
			want, ok := formattest.CSVReadBack(schema, null, nullSet, AppendText, in)
			if !ok {
				if err == nil {
					t.Errorf("%v: %q reads back as %v; Flink cannot read it", opts, enc, got)
				}
				continue
			}
			if err != nil || len(got) != 1 {
				t.Errorf("%v: %q: %v %v", opts, enc, got, err)
				continue
			}
			for i := range schema {
				if !formattest.SameValue(got[0].Vals[i], want.Vals[i]) {
					t.Errorf("%v: %q: column %s is %v, want %v", opts, enc, schema[i].Name, got[0].Vals[i], want.Vals[i])
				}
			}
		}
	}
	// The model's cases, by hand: without a literal, the NULL row is
	// written ",,,,,,,," and fails (an empty INT); '' comes back as ''.
	e, _ := NewEncoder(CSV, schema, nil)
	d, _ := NewDecoder(CSV, schema, nil)
	enc, _ := e.Encode(nil, row.Insert(rows[3]...))
	if string(enc) != ",,,,,,,," {
		t.Errorf("NULL row written %q", enc)
	}
	if _, err := d.Decode(nil, enc); err == nil || !strings.Contains(err.Error(), "an empty field cannot be read as INT") {
		t.Errorf("NULL row read back: %v", err)
	}
}

// TestCSVFlinkEscape: with 'csv.escape-character', Jackson's CsvDecoder
// escapes the next character in quoted and unquoted fields alike, and
// _unescape reads \0, \n, \r and \t as NUL, line feed, carriage return and
// tab, any other character as itself. The null literal is compared with
// the unescaped text (CsvParser._handleNamedValue).
func TestCSVFlinkEscape(t *testing.T) {
	esc := Map{"csv.escape-character": `\`, "csv.null-literal": `\N`}
	runFlinkCases(t, esc, []flinkCase{
		{tString, `a\,b`, row.StrValue("a,b"), "", "an escaped delimiter, unquoted"},
		{tString, `"a\"b"`, row.StrValue(`a"b`), "", "an escaped quote, quoted"},
		{tString, `a\nb`, row.StrValue("a\nb"), "", `\n is a line feed`},
		{tString, `"a\tb\rc\0"`, row.StrValue("a\tb\rc\x00"), "", `\t, \r and \0, quoted too`},
		{tString, `a\qb\\c`, row.StrValue(`aqb\c`), "", "any other character is itself"},
		{tString, `\N`, row.StrValue("N"), "", `the literal \N unescapes to N, which is not the literal`},
		{tString, `\\N`, row.NullValue, "", `\\N unescapes to \N, the literal`},
		{tString, `ab\`, row.NullValue, "escaping nothing", "an escape at the end of the record: Unexpected EOF in escaped character"},
		{tInt, `\4\2`, row.IntValue(42), "", "escapes in a number"},
	})
	runFlinkCases(t, nil, []flinkCase{
		{tString, `"x"  `, row.StrValue("x"), "", "blanks after the closing quote are skipped (_nextQuotedString)"},
		{tString, `"x" y`, row.NullValue, "after the closing quote", "anything else is an error"},
		{tString, `a\nb`, row.StrValue(`a\nb`), "", "without an escape character a backslash is itself"},
	})
	two := []connector.Column{col("a", tString), col("b", tInt)}
	if got, err := decodeOne(t, CSV, two, nil, `"x" ,1`); err != nil || len(got) != 1 || got[0].Vals[0].Str() != "x" {
		t.Errorf(`"x" ,1: %v %v`, got, err)
	}
	// The writer doubles the escape character in a quoted value and in the
	// null literal, so that both read back (Jackson's writer writes the
	// literal \N as it is, which reads back as N).
	e, _ := NewEncoder(CSV, two, esc)
	d, _ := NewDecoder(CSV, two, esc)
	for _, c := range []struct {
		vals []row.Value
		want string
	}{
		{[]row.Value{row.NullValue, row.NullValue}, `\\N,\\N`},
		{[]row.Value{row.StrValue(`a\b`), row.IntValue(1)}, `"a\\b",1`},
		{[]row.Value{row.StrValue("a\nb,c"), row.IntValue(1)}, "\"a\nb,c\",1"},
	} {
		got, err := e.Encode(nil, row.Insert(c.vals...))
		if err != nil || string(got) != c.want {
			t.Errorf("%v: wrote %q, %v; want %q", c.vals, got, err, c.want)
			continue
		}
		back, err := d.Decode(nil, got)
		if err != nil || len(back) != 1 {
			t.Errorf("%q: %v %v", got, back, err)
			continue
		}
		assertVals(t, back[0].Vals, c.vals)
	}
	// Framing: an escaped quote does not open or close a quoted field.
	dec, _ := newCSVDecoder(two, esc)
	for _, c := range []struct {
		line    string
		inQuote bool
		want    bool
	}{
		{`a\,"b,1`, false, false},
		{`"a\",1`, false, true},
		{`"a\\",1`, false, false},
		{`x\"y",1`, true, false},
	} {
		if got := dec.Continues([]byte(c.line), c.inQuote); got != c.want {
			t.Errorf("Continues(%q, %v) = %v, want %v", c.line, c.inQuote, got, c.want)
		}
	}
}
