package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// csvOptions are the csv format's options, read once.
type csvOptions struct {
	delim, quote, escape byte
	noQuote              bool
	comments             bool
	null                 string
}

func readCSVOptions(opts Options) (csvOptions, error) {
	o := csvOptions{delim: ',', quote: '"', null: opts.Get("csv.null-literal")}
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
	schema  []exec.Column
	fields  []csvField
	buf     []byte
	scratch []row.Value
	slab    slab
}

type csvField struct {
	text   string
	quoted bool
}

func newCSVDecoder(schema []exec.Column, opts Options) (*csvDecoder, error) {
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

// split cuts a line into fields. Quoted fields may hold the delimiter and
// doubled quote characters (or escaped ones, with 'csv.escape-character').
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
					return fmt.Errorf("unterminated quoted field at byte %d", start)
				}
				c := s[i]
				if d.o.escape != 0 && c == d.o.escape && i+1 < len(s) {
					if plain {
						d.buf = append(d.buf, s[start+1:i]...)
						plain = false
					}
					d.buf = append(d.buf, s[i+1])
					i += 2
					continue
				}
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
			if i < len(s) && s[i] != d.o.delim {
				return fmt.Errorf("unexpected %q after the closing quote of field %d", s[i], len(d.fields))
			}
		} else {
			j := strings.IndexByte(s[i:], d.o.delim)
			if j < 0 {
				j = len(s) - i
			}
			d.fields = append(d.fields, csvField{text: s[i : i+j]})
			i += j
		}
		if i >= len(s) {
			return nil
		}
		i++ // delimiter
	}
}

// Decode implements Decoder. With 'csv.allow-comments', a line starting
// with '#' decodes to no rows.
func (d *csvDecoder) Decode(dst row.Batch, data []byte) (row.Batch, error) {
	if d.o.comments && len(data) > 0 && data[0] == '#' {
		return dst, nil
	}
	s := string(data)
	if err := d.split(s); err != nil {
		return dst, err
	}
	if len(d.fields) != len(d.cols) {
		return dst, fmt.Errorf("the line has %d fields, the table %d columns (delimiter %q)", len(d.fields), len(d.cols), d.o.delim)
	}
	clear(d.scratch)
	for k, f := range d.fields {
		c := &d.schema[d.cols[k]]
		// NULL is the null literal; without one, an empty unquoted field
		// (a quoted "" is the empty string).
		if (d.o.null != "" && f.text == d.o.null && !f.quoted) || (d.o.null == "" && f.text == "" && !f.quoted) {
			if !c.Type.Nullable {
				return dst, fieldError(c, "", errors.New("the field is empty (NULL), and the column is NOT NULL"))
			}
			continue
		}
		text := f.text
		if !c.Type.IsString() && !f.quoted {
			text = strings.TrimSpace(text)
		}
		v, err := ParseText(c.Type, text)
		if err != nil {
			return dst, fieldError(c, text, err)
		}
		d.scratch[d.cols[k]] = v
	}
	return append(dst, row.Row{Kind: changelogmode.Insert, Vals: d.slab.keep(d.scratch)}), nil
}

// csvEncoder writes rows as csv lines.
type csvEncoder struct {
	o      csvOptions
	schema []exec.Column
	cols   []int
	tmp    []byte
}

func newCSVEncoder(schema []exec.Column, opts Options) (*csvEncoder, error) {
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	o, err := readCSVOptions(opts)
	if err != nil {
		return nil, err
	}
	e := &csvEncoder{o: o, schema: schema}
	for i := range schema {
		if physical(&schema[i]) {
			e.cols = append(e.cols, i)
		}
	}
	return e, nil
}

// Encode implements Encoder. NULL is written as the null literal (empty
// by default); the empty string is written quoted, "", so that it reads
// back as itself.
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
			out = append(out, e.o.null...)
			continue
		}
		t := e.schema[ci].Type
		e.tmp = AppendText(e.tmp[:0], t, v)
		var err error
		if out, err = e.appendField(out, e.tmp, t, k == 0); err != nil {
			return buf, fmt.Errorf("column %s: %w", e.schema[ci].Name, err)
		}
	}
	return out, nil
}

func (e *csvEncoder) appendField(b, text []byte, t types.T, first bool) ([]byte, error) {
	needQuote := len(text) == 0 && t.IsString() ||
		string(text) == e.o.null ||
		first && e.o.comments && len(text) > 0 && text[0] == '#'
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
		return b, fmt.Errorf("value %q needs quoting (it is empty, the null literal, or holds the delimiter or a line break), but 'csv.disable-quote-character' is set", clip(string(text)))
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
