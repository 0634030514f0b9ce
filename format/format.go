package format

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Decoder turns one record (a file line, a Kafka record value) into rows.
//
// A Decoder is not safe for concurrent use; each source holds its own.
type Decoder interface {
	// Decode appends the rows that data encodes to dst and returns the
	// extended batch: one +I row for json and csv, zero to two rows for
	// debezium-json. Each row has one value per schema column, in schema
	// order; metadata columns are left NULL for the connector to fill, and
	// columns marked Unused (connector.Column) are left NULL unconverted.
	// Decode does not keep data. On error it returns dst unchanged and an
	// error naming the column and the value (a *FieldError where one field
	// is to blame); it never panics, whatever data holds.
	Decode(dst row.Batch, data []byte) (row.Batch, error)
}

// Lines is implemented by the decoders of formats whose records a
// line-based source (a file) must frame with the format's help: csv, whose
// quoted field may hold line breaks (RFC 4180), and whose every line, an
// empty one too, is a record (as Flink's csv reader takes it). Without it a
// record is one line, and a blank line carries no row.
type Lines interface {
	// Blank reports whether line (without its terminator) carries no
	// record, at the start of a record.
	Blank(line []byte) bool
	// Continues reports whether the record goes on past the end of line:
	// line ends inside a quoted field. inQuote says whether line starts
	// inside one (it continues a record). The source then reads the next
	// line and decodes the lines joined by '\n' as one record.
	Continues(line []byte, inQuote bool) bool
}

// Encoder turns a row into one record.
//
// An Encoder is not safe for concurrent use; each sink holds its own.
type Encoder interface {
	// Encode appends the encoding of r to buf, without a line terminator,
	// and returns the extended buffer. Metadata columns are not written.
	// An insert-only format refuses a row whose kind is not +I (the
	// planner proves this cannot happen; the error keeps a bug from
	// becoming silent data loss). On error buf is returned unchanged.
	Encode(buf []byte, r row.Row) ([]byte, error)
}

// Options gives a format its options by full key, e.g.
// "json.fail-on-missing-field", with defaults applied: *connectors.Config
// is one. Map is another, for tests and tools.
type Options interface {
	Get(key string) string
}

// Map is Options from a map (no defaults: a missing key reads "").
type Map map[string]string

// Get returns m[key].
func (m Map) Get(key string) string { return m[key] }

// Has reports whether m sets key.
func (m Map) Has(key string) bool {
	_, ok := m[key]
	return ok
}

// given reports whether opts sets key, even to "" (an empty
// 'csv.null-literal'): Options that can tell (a Has method, as
// *connectors.Config and Map have) say so; of others, a non-empty value
// counts.
func given(opts Options, key string) bool {
	if h, ok := opts.(interface{ Has(key string) bool }); ok {
		return h.Has(key)
	}
	return opts.Get(key) != ""
}

// Prefixed returns Options that look keys up under prefix: Kafka's
// 'key.format' reads its options as "key.json.…".
func Prefixed(o Options, prefix string) Options { return prefixed{o, prefix} }

type prefixed struct {
	o      Options
	prefix string
}

// Get looks key up under the prefix.
func (p prefixed) Get(key string) string { return p.o.Get(p.prefix + key) }

// Has reports whether the options set key under the prefix.
func (p prefixed) Has(key string) bool { return given(p.o, p.prefix+key) }

// Names of the formats this package implements.
const (
	JSON         = "json"
	DebeziumJSON = "debezium-json"
	CSV          = "csv"
)

// NewDecoder returns a decoder of the named format for schema. It fails on
// an unknown format, an invalid option, or a column type the format cannot
// read.
func NewDecoder(name string, schema []connector.Column, opts Options) (Decoder, error) {
	if opts == nil {
		opts = Map{}
	}
	switch name {
	case JSON:
		return newJSONDecoder(schema, opts, JSON)
	case DebeziumJSON:
		return newDebeziumDecoder(schema, opts)
	case CSV:
		return newCSVDecoder(schema, opts)
	case Raw:
		return newRawDecoder(schema, opts)
	}
	return nil, fmt.Errorf("format %q cannot be read (streamsql reads %s, %s, %s and %s)", name, JSON, CSV, DebeziumJSON, Raw)
}

// NewEncoder returns an encoder of the named format for schema.
func NewEncoder(name string, schema []connector.Column, opts Options) (Encoder, error) {
	if opts == nil {
		opts = Map{}
	}
	switch name {
	case JSON:
		return newJSONEncoder(schema, opts, JSON)
	case DebeziumJSON:
		return newDebeziumEncoder(schema, opts)
	case CSV:
		return newCSVEncoder(schema, opts)
	case Raw:
		return newRawEncoder(schema, opts)
	}
	return nil, fmt.Errorf("format %q cannot be written (streamsql writes %s, %s, %s and %s)", name, JSON, CSV, DebeziumJSON, Raw)
}

// IgnoreParseErrors reports whether the named format was told to skip rows
// it cannot decode ('json.ignore-parse-errors' and its csv and
// debezium-json twins). Sources report such rows either way, as
// *connector.BadRowError: the runtime counts and skips them when this is true,
// and fails the job when it is false.
func IgnoreParseErrors(name string, opts Options) bool {
	if opts == nil {
		return false
	}
	return strings.EqualFold(opts.Get(name+".ignore-parse-errors"), "true")
}

// FieldError is a value that could not be decoded.
type FieldError struct {
	// Column is the column (and field) name.
	Column string
	// Path is where in a nested value (ARRAY, MAP, ROW) of the column the
	// value is: [2] (1-based, as SQL indexes arrays), ["key"], .field, or a
	// chain of them; "" for the column's own value. Type is then the type
	// at Path.
	Path string
	// Type is the column's type.
	Type types.T
	// Value is the offending value as the message shows it: a JSON value
	// as its JSON text (a string with its quotes), a csv field as a quoted
	// string ("" for an empty one), at most 40 characters and an ellipsis,
	// with unprintable bytes escaped. "" only when Missing.
	Value string
	// Missing is set when the field is not in the record at all.
	Missing bool
	// Reason says what was expected.
	Reason string
}

func (e *FieldError) Error() string {
	if e.Missing {
		return fmt.Sprintf("column %s%s %s: %s", e.Column, e.Path, e.Type.WithNullable(true), e.Reason)
	}
	return fmt.Sprintf("column %s%s %s: value %s: %s", e.Column, e.Path, e.Type.WithNullable(true), e.Value, e.Reason)
}

// fieldErrorAt is the error for the value at path in column c, of type t.
func fieldErrorAt(c *connector.Column, path string, t types.T, shown string, err error) *FieldError {
	fe := fieldError(c, shown, err)
	fe.Path, fe.Type = path, t
	return fe
}

// notNullWhat says what is NOT NULL: the column, or the nested element
// at path.
func notNullWhat(path string) string {
	if path == "" {
		return "the column is NOT NULL"
	}
	return "the element type is NOT NULL"
}

// fieldError is the error for a value of column c; shown is the value as
// the message shows it (see FieldError.Value: showJSON, showText).
func fieldError(c *connector.Column, shown string, err error) *FieldError {
	var ee *epochErr
	if errors.As(err, &ee) {
		ee.name = c.Name
	}
	return &FieldError{Column: c.Name, Type: c.Type, Value: shown, Reason: err.Error()}
}

// missingField is the error for a field that is not in the record.
func missingField(c *connector.Column, reason string) *FieldError {
	return &FieldError{Column: c.Name, Type: c.Type, Missing: true, Reason: reason}
}

// maxShown is how many characters of a value an error message shows.
const maxShown = 40

// showText is a text value as an error message shows it: quoted, with
// unprintable characters and bytes that are not UTF-8 escaped, shortened
// to maxShown characters and an ellipsis.
func showText(s string) string {
	short, cut := shorten(s)
	q := strconv.Quote(short)
	if cut {
		q += "…"
	}
	return q
}

// showJSON is JSON text (a number, a literal, a string with its quotes, an
// object) as an error message shows it: as written, shortened to maxShown
// characters and an ellipsis, with unprintable characters and bytes that
// are not UTF-8 escaped as Go escapes them.
func showJSON(s string) string {
	short, cut := shorten(s)
	var b strings.Builder
	for i := 0; i < len(short); {
		r, size := utf8.DecodeRuneInString(short[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, short[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(short[i : i+size])
		}
		i += size
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// shorten cuts s to maxShown characters (runes; a byte that is not UTF-8
// counts as one) and reports whether it cut.
func shorten(s string) (string, bool) {
	n := 0
	for i := 0; i < len(s); n++ {
		if n == maxShown {
			return s[:i], true
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s, false
}

// physical reports whether the format reads and writes column c (metadata
// columns are the connector's).
func physical(c *connector.Column) bool { return c.MetadataKey == "" }

// readable reports whether a column of type t can be read and written by
// a format of this package; nested says whether the format has ARRAY, MAP
// and ROW (json and debezium-json do, csv and raw do not).
func readable(t types.T, nested bool) error {
	switch t.Kind {
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
		types.Decimal, types.Char, types.Varchar, types.Binary, types.Varbinary, types.Date, types.Time,
		types.Timestamp, types.TimestampLTZ, types.Interval, types.IntervalYM:
		return nil
	case types.Array, types.Map, types.Row:
		if !nested {
			return fmt.Errorf("type %s is not supported by this format; use 'json' (nested objects and arrays) or declare the column STRING", t)
		}
		for _, e := range nestedElems(t) {
			if err := readable(e, true); err != nil {
				return err
			}
		}
		return nil
	case types.Invalid, types.Null:
	}
	return fmt.Errorf("type %s is not supported by the formats", t)
}

// nestedElems are the element types of a nested type: ARRAY's element,
// MAP's key and value, ROW's fields.
func nestedElems(t types.T) []types.T {
	switch t.Kind {
	case types.Array:
		return []types.T{t.Elem()}
	case types.Map:
		return []types.T{t.Key(), t.Value()}
	case types.Row:
		var ts []types.T
		for _, f := range t.Fields() {
			ts = append(ts, f.Type)
		}
		return ts
	default:
		return nil
	}
}

func checkSchema(schema []connector.Column) error { return checkSchemaOf(schema, false) }

func checkSchemaOf(schema []connector.Column, nested bool) error {
	for i := range schema {
		if !physical(&schema[i]) {
			continue
		}
		if err := readable(schema[i].Type, nested); err != nil {
			return fmt.Errorf("column %s: %w", schema[i].Name, err)
		}
	}
	return nil
}

// slab hands out value slices carved from larger allocations, so that a
// decoded row costs no allocation of its own. Slices are never reused: a
// row's values may be kept by the receiver (see row.Batch).
type slab struct {
	buf []row.Value
	n   int // values per row
}

const slabRows = 256

// keep copies vals into a fresh slice of the slab.
func (s *slab) keep(vals []row.Value) []row.Value {
	if len(s.buf) < s.n {
		s.buf = make([]row.Value, s.n*slabRows)
	}
	v := s.buf[:s.n:s.n]
	s.buf = s.buf[s.n:]
	copy(v, vals)
	return v
}
