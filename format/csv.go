package format

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// csvOptions are the csv format's options, read once.
type csvOptions struct {
	delim, quote, escape byte
	noQuote              bool
	comments             bool
	// null is 'csv.null-literal', and nullSet whether the table sets it
	// (to "" too: then an empty field, quoted or not, is NULL whatever its
	// type).
	null    string
	nullSet bool
	// ignore is 'csv.ignore-parse-errors': a field that cannot be read is
	// NULL, as in Flink (CsvToRowDataConverters), rather than an error.
	ignore bool
}

func readCSVOptions(opts Options) (csvOptions, error) {
	o := csvOptions{delim: ',', quote: '"', null: opts.Get("csv.null-literal"), nullSet: given(opts, "csv.null-literal"),
		ignore: IgnoreParseErrors(CSV, opts)}
	one := func(key string, dst *byte) error {
		v := opts.Get(key)
		if v == "" {
			return nil
		}
		if v == `\t` {
			v = "\t"
		}
		if len(v) != 1 {
			return fmt.Errorf("option '%s' must be a single one-byte character, got %q", key, v)
		}
		*dst = v[0]
		return nil
	}
	if err := one("csv.field-delimiter", &o.delim); err != nil {
		return o, err
	}
	if err := one("csv.quote-character", &o.quote); err != nil {
		return o, err
	}
	if err := one("csv.escape-character", &o.escape); err != nil {
		return o, err
	}
	o.noQuote = strings.EqualFold(opts.Get("csv.disable-quote-character"), "true")
	o.comments = strings.EqualFold(opts.Get("csv.allow-comments"), "true")
	if o.delim == '\n' || o.delim == '\r' || (!o.noQuote && o.delim == o.quote) {
		return o, fmt.Errorf("the csv field delimiter %q cannot be a line break or the quote character", o.delim)
	}
	return o, nil
}

// csvDecoder is the csv format: one line per row, fields in the order of
// the schema's physical columns.
type csvDecoder struct {
	o       csvOptions
	cols    []int // schema index of each field
	schema  []connector.Column
	fields  []csvField
	buf     []byte
	scratch []row.Value
	slab    slab
}

type csvField struct {
	text   string
	quoted bool
}

func newCSVDecoder(schema []connector.Column, opts Options) (*csvDecoder, error) {
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	o, err := readCSVOptions(opts)
	if err != nil {
		return nil, err
	}
	d := &csvDecoder{o: o, schema: schema, scratch: make([]row.Value, len(schema)), slab: slab{n: len(schema)}}
	for i := range schema {
		if physical(&schema[i]) {
			d.cols = append(d.cols, i)
		}
	}
	return d, nil
}

// Blank implements Lines: no csv line is blank. An empty line is a record
// of one empty field, as Flink's reader (Jackson's CsvParser, without
// SKIP_EMPTY_LINES) reads it: with one column a row (the empty string for
// a STRING), with more a record that is too short (an error, or with
// 'csv.ignore-parse-errors' a row of its first field and NULLs).
func (d *csvDecoder) Blank([]byte) bool { return false }

// Continues implements Lines: it follows the quotes of line (from inside a
// quoted field when inQuote) and reports whether line ends inside one. An
// escape character ('csv.escape-character') escapes the next byte, inside
// quotes or out, as in Jackson's parser; inside quotes the quote comes
// first (an escape character that is the quote character is a quote).
func (d *csvDecoder) Continues(line []byte, inQuote bool) bool {
	if d.o.noQuote {
		return false
	}
	if !inQuote && d.o.comments && len(line) > 0 && line[0] == '#' {
		return false
	}
	i := 0
	atStart := !inQuote // at the start of a field
	for i < len(line) {
		c := line[i]
		switch {
		case inQuote && c == d.o.quote:
			if i+1 < len(line) && line[i+1] == d.o.quote {
				i += 2
				continue
			}
			inQuote = false
		case !inQuote && atStart && c == d.o.quote:
			inQuote = true
		case d.o.escape != 0 && c == d.o.escape:
			// An escape character at the very end of a quoted field's
			// line escapes the line break: the field goes on.
			i += 2
			atStart = false
			continue
		}
		atStart = !inQuote && c == d.o.delim
		i++
	}
	return inQuote
}

// unescape is the byte that c stands for after the escape character, as
// Jackson's CsvDecoder reads it: \0, \n, \r and \t are NUL, line feed,
// carriage return and tab; any other byte is itself (the quote, the
// delimiter, the escape character).
func unescape(c byte) byte {
	switch c {
	case '0':
		return 0
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c
}

// split cuts a record into fields as Jackson's CsvDecoder does. A field
// that starts with the quote character is quoted: it may hold the
// delimiter, line breaks and doubled quote characters, and be followed by
// blanks (bytes up to ' ') before the delimiter. With
// 'csv.escape-character' the escape character escapes the next byte in
// any field (see unescape).
func (d *csvDecoder) split(s string) error {
	d.fields = d.fields[:0]
	i := 0
	for {
		if !d.o.noQuote && i < len(s) && s[i] == d.o.quote {
			start := i
			i++
			d.buf = d.buf[:0]
			plain := true // no doubled quotes or escapes: a substring will do
			for {
				if i >= len(s) {
					return fmt.Errorf("%s: unterminated quoted field at byte %d: %s", d.fieldName(len(d.fields)), start, showText(s[start:]))
				}
				c := s[i]
				if c == d.o.quote {
					if i+1 < len(s) && s[i+1] == d.o.quote {
						if plain {
							d.buf = append(d.buf, s[start+1:i]...)
							plain = false
						}
						d.buf = append(d.buf, c)
						i += 2
						continue
					}
					break
				}
				if d.o.escape != 0 && c == d.o.escape && i+1 < len(s) {
					if plain {
						d.buf = append(d.buf, s[start+1:i]...)
						plain = false
					}
					d.buf = append(d.buf, unescape(s[i+1]))
					i += 2
					continue
				}
				if !plain {
					d.buf = append(d.buf, c)
				}
				i++
			}
			text := s[start+1 : i]
			if !plain {
				text = string(d.buf)
			}
			d.fields = append(d.fields, csvField{text: text, quoted: true})
			i++ // closing quote
			for i < len(s) && s[i] != d.o.delim && s[i] <= ' ' {
				i++ // blanks after the closing quote
			}
			if i < len(s) && s[i] != d.o.delim {
				end := strings.IndexByte(s[i:], d.o.delim)
				if end < 0 {
					end = len(s) - i
				}
				return fmt.Errorf("%s: unexpected %q after the closing quote: %s", d.fieldName(len(d.fields)-1), s[i], showText(s[start:i+end]))
			}
		} else {
			j := strings.IndexByte(s[i:], d.o.delim)
			if j < 0 {
				j = len(s) - i
			}
			if d.o.escape == 0 || strings.IndexByte(s[i:i+j], d.o.escape) < 0 {
				d.fields = append(d.fields, csvField{text: s[i : i+j]})
				i += j
			} else {
				start := i
				d.buf = d.buf[:0]
				for i < len(s) && s[i] != d.o.delim {
					if s[i] == d.o.escape {
						if i+1 >= len(s) {
							return fmt.Errorf("%s: the escape character %q ends the record, escaping nothing: %s", d.fieldName(len(d.fields)), d.o.escape, showText(s[start:]))
						}
						d.buf = append(d.buf, unescape(s[i+1]))
						i += 2
						continue
					}
					d.buf = append(d.buf, s[i])
					i++
				}
				d.fields = append(d.fields, csvField{text: string(d.buf)})
			}
		}
		if i >= len(s) {
			return nil
		}
		i++ // delimiter
	}
}

// fieldName names the k-th field (from 0) of a record for a message: its
// column, when the table has that many.
func (d *csvDecoder) fieldName(k int) string {
	if k < len(d.cols) {
		return fmt.Sprintf("field %d (column %s)", k+1, d.schema[d.cols[k]].Name)
	}
	return fmt.Sprintf("field %d (the table has %d columns)", k+1, len(d.cols))
}

// columnList is the names of the csv columns, in order, for a message:
// "(id, name, ts)".
func (d *csvDecoder) columnList() string {
	var b strings.Builder
	b.WriteByte('(')
	for k, ci := range d.cols {
		if k > 0 {
			b.WriteString(", ")
		}
		if k == 8 && len(d.cols) > 9 {
			fmt.Fprintf(&b, "… %d more", len(d.cols)-k)
			break
		}
		b.WriteString(d.schema[ci].Name)
	}
	b.WriteByte(')')
	return b.String()
}

// Decode implements Decoder. With 'csv.allow-comments', a line starting
// with '#' decodes to no rows. It reads as Flink's csv format does
// (CsvRowDataDeserializationSchema over Jackson's CsvParser, and
// CsvToRowDataConverters); docs/connectors.md lists the rules:
//
//   - A field equal to 'csv.null-literal', quoted or not, is NULL; without
//     a null literal nothing is NULL (see field for the empty field).
//   - One extra field at the end that is empty or blank (a trailing
//     delimiter) is dropped, as Jackson's ALLOW_TRAILING_COMMA does; any
//     other extra field is an error.
//   - A record with fewer fields than columns is an error; with
//     'csv.ignore-parse-errors' its missing fields are NULL.
//   - With 'csv.ignore-parse-errors' a field that cannot be read is NULL
//     and the row kept; a record that cannot be split into fields, or has
//     too many, is still an error (the runtime skips it, as Flink does).
func (d *csvDecoder) Decode(dst row.Batch, data []byte) (row.Batch, error) {
	if d.o.comments && len(data) > 0 && data[0] == '#' {
		return dst, nil
	}
	s := string(data)
	if err := d.split(s); err != nil {
		return dst, err
	}
	if n := len(d.fields); n == len(d.cols)+1 && javaTrim(d.fields[n-1].text) == "" {
		d.fields = d.fields[:n-1] // a trailing delimiter
	}
	if len(d.fields) > len(d.cols) || len(d.fields) < len(d.cols) && !d.o.ignore {
		blank := ""
		if len(data) == 0 {
			blank = " (an empty line is a record of one empty field, as in Flink: delete it, or set 'csv.ignore-parse-errors' = 'true')"
		}
		return dst, fmt.Errorf("the record has %d fields, the table %d columns %s (delimiter %q): %s%s",
			len(d.fields), len(d.cols), d.columnList(), d.o.delim, showText(s), blank)
	}
	clear(d.scratch)
	for k, f := range d.fields {
		c := &d.schema[d.cols[k]]
		if c.Unused {
			continue // left NULL (connector.Column.Unused)
		}
		v, err := d.field(c, f)
		if err != nil {
			if d.o.ignore && c.Type.Nullable {
				continue // NULL, as Flink sets a field it cannot parse
			}
			return dst, fieldError(c, showText(f.text), err)
		}
		d.scratch[d.cols[k]] = v
	}
	for _, ci := range d.cols[len(d.fields):] { // only with ignore
		if c := &d.schema[ci]; !c.Type.Nullable && !c.Unused {
			return dst, missingField(c, "the record has no field for it, and the column is NOT NULL")
		}
	}
	return append(dst, row.Row{Kind: changelogmode.Insert, Vals: d.slab.keep(d.scratch)}), nil
}

// field reads one field of column c as Flink's CsvToRowDataConverters
// does. The null literal (quoted or not) is NULL. Otherwise:
//
//   - CHAR/VARCHAR: the text as it is, never trimmed ("" is the empty
//     string).
//   - BINARY/VARBINARY: base64, not trimmed ("" is the empty byte string).
//   - BOOLEAN: TRUE when the trimmed text is 'true' in any case, else FALSE
//     (Java's Boolean.parseBoolean: "", "yes" and "1" are FALSE).
//   - TINYINT to BIGINT, FLOAT, DOUBLE, TIMESTAMP, TIMESTAMP_LTZ: the text
//     trimmed (Java's String.trim) and parsed; "" is an error.
//   - DECIMAL, DATE, TIME: the text untrimmed (Flink parses it with
//     BigDecimal, Date.valueOf and LocalTime.parse, which refuse spaces);
//     DATE accepts one-digit months and days, as Date.valueOf does.
func (d *csvDecoder) field(c *connector.Column, f csvField) (row.Value, error) {
	if d.o.nullSet && f.text == d.o.null {
		if !c.Type.Nullable {
			return row.NullValue, errors.New("the field is the null literal, which reads as NULL, and the column is NOT NULL")
		}
		return row.NullValue, nil
	}
	t := c.Type
	text := f.text
	switch t.Kind {
	case types.Char, types.Varchar, types.Binary, types.Varbinary:
		return ParseText(t, text)
	case types.Boolean:
		return row.BoolValue(strings.EqualFold(javaTrim(text), "true")), nil
	case types.Decimal, types.Date, types.Time:
		if text != "" && javaTrim(text) != text {
			return row.NullValue, fmt.Errorf("spaces around a %s are not read (as in Flink); remove them", t.Kind)
		}
	default:
		text = javaTrim(text)
	}
	if text == "" {
		what := "an empty field"
		if f.text != "" {
			what = "a blank field"
		}
		lit := ", and 'csv.null-literal' is " + strconv.Quote(d.o.null)
		if !d.o.nullSet {
			lit = "; 'csv.null-literal' = '' reads an empty field as NULL"
		}
		return row.NullValue, fmt.Errorf("%s cannot be read as %s%s (or 'csv.ignore-parse-errors' = 'true' sets the field NULL)", what, t.Kind, lit)
	}
	switch t.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Interval, types.IntervalYM:
		return parseInteger(t, text)
	case types.Float, types.Double:
		return parseFloat(t, javaFloatText(text))
	case types.Date:
		dd, err := civil.ParseDate(text, civil.Lenient)
		if err != nil {
			return row.NullValue, err
		}
		return row.IntValue(dd), nil
	default:
		return ParseText(t, text)
	}
}

// javaFloatText maps the text of a number as Java's Double.parseDouble
// reads it to text that strconv.ParseFloat reads the same way, or to "x"
// (an error) where Java refuses it: Java takes a d, D, f or F suffix
// ("1.5f") and spells the specials NaN, Infinity, +Infinity and -Infinity,
// case and all, where Go also takes "inf", "nan" and other cases.
func javaFloatText(s string) string {
	switch s {
	case "NaN", "Infinity", "+Infinity", "-Infinity":
		return s
	}
	if n := len(s); n > 1 && strings.IndexByte("dDfF", s[n-1]) >= 0 && (s[n-2] == '.' || s[n-2] >= '0' && s[n-2] <= '9') &&
		!strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") && !strings.HasPrefix(s[1:], "0x") && !strings.HasPrefix(s[1:], "0X") {
		s = s[:n-1] // Java's type suffix (not a hex digit of 0x…)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c == 'n' || c == 'i' || s[i] == '_' {
			return "x"
		}
	}
	return s
}

// javaTrim is Java's String.trim, which Flink's csv converters use: it
// drops the bytes up to ' ' (controls too) at both ends, and nothing else.
func javaTrim(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	return s[i:j]
}

// csvEncoder writes rows as csv lines.
type csvEncoder struct {
	o      csvOptions
	null   []byte // what NULL is written as: see newCSVEncoder
	schema []connector.Column
	cols   []int
	tmp    []byte
}

func newCSVEncoder(schema []connector.Column, opts Options) (*csvEncoder, error) {
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	o, err := readCSVOptions(opts)
	if err != nil {
		return nil, err
	}
	// NULL is the null literal, its escape characters doubled: the reader
	// (Jackson's too) compares the unescaped text with the literal, so '\N'
	// written as it is would read back as "N". (Jackson's writer writes it
	// as it is, which Flink then cannot read back.)
	e := &csvEncoder{o: o, schema: schema, null: []byte(o.null)}
	if o.escape != 0 {
		e.null = bytes.ReplaceAll(e.null, []byte{o.escape}, []byte{o.escape, o.escape})
	}
	for i := range schema {
		if physical(&schema[i]) {
			e.cols = append(e.cols, i)
		}
	}
	return e, nil
}

// Encode implements Encoder, as Flink's csv format writes (Jackson's
// CsvGenerator): NULL is written as the null literal (empty by default),
// the empty string as an empty field, and a field is quoted when it holds
// the delimiter, the quote or escape character, or a line break (or, with
// 'csv.allow-comments', when the line would start with '#'). So, as in
// Flink, without a null literal NULL and the empty string are both
// written empty (and read back as the empty string), and a string equal to
// the null literal reads back as NULL.
func (e *csvEncoder) Encode(buf []byte, r row.Row) ([]byte, error) {
	if r.Kind != changelogmode.Insert {
		return buf, insertOnlyError(CSV, r.Kind)
	}
	if len(r.Vals) != len(e.schema) {
		return buf, fmt.Errorf("row has %d values, the schema %d columns", len(r.Vals), len(e.schema))
	}
	out := buf
	for k, ci := range e.cols {
		if k > 0 {
			out = append(out, e.o.delim)
		}
		v := r.Vals[ci]
		if v.IsNull() {
			out = append(out, e.null...)
			continue
		}
		t := e.schema[ci].Type
		e.tmp = AppendText(e.tmp[:0], t, v)
		var err error
		if out, err = e.appendField(out, e.tmp, k == 0); err != nil {
			return buf, fmt.Errorf("column %s: %w", e.schema[ci].Name, err)
		}
	}
	return out, nil
}

func (e *csvEncoder) appendField(b, text []byte, first bool) ([]byte, error) {
	needQuote := first && e.o.comments && len(text) > 0 && text[0] == '#'
	for _, c := range text {
		if c == e.o.delim || c == '\n' || c == '\r' || (!e.o.noQuote && c == e.o.quote) || (e.o.escape != 0 && c == e.o.escape) {
			needQuote = true
			break
		}
	}
	if !needQuote {
		return append(b, text...), nil
	}
	if e.o.noQuote {
		return b, fmt.Errorf("value %q needs quoting (it holds the delimiter or a line break), but 'csv.disable-quote-character' is set", clip(string(text)))
	}
	b = append(b, e.o.quote)
	for _, c := range text {
		switch {
		case c == e.o.quote:
			b = append(b, c, c)
		case e.o.escape != 0 && c == e.o.escape:
			b = append(b, c, c)
		default:
			b = append(b, c)
		}
	}
	return append(b, e.o.quote), nil
}
