package format

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/decimal"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// The JSON reader is a small scanner specialised for what a row needs: one
// flat object whose fields are matched to columns by name, values parsed
// straight into row.Values. It allocates one string per record (the record's
// text, which unescaped string values share) and nothing per field, which
// is what keeps a 6-field event well under the microsecond budget; a
// general decoder into map[string]any costs several times more.

// maxDepth bounds the nesting of skipped values, so that hostile input
// cannot exhaust the stack.
const maxDepth = 512

// syntaxError is malformed JSON at a byte offset. The decoder fills in
// the column whose value it was reading, if any, and the text at the
// offset, so that the message shows where and what.
type syntaxError struct {
	off    int
	msg    string
	column string // "" outside a column's value
	near   string // the text at off, as showText shows it; "" at the end
}

func (e *syntaxError) Error() string {
	var b strings.Builder
	if e.column != "" {
		fmt.Fprintf(&b, "column %s: ", e.column)
	}
	fmt.Fprintf(&b, "invalid JSON at byte %d", e.off)
	if e.near != "" {
		fmt.Fprintf(&b, " (at %s)", e.near)
	} else {
		b.WriteString(" (at the end of the record)")
	}
	fmt.Fprintf(&b, ": %s", e.msg)
	return b.String()
}

// located fills in the text of a syntax error from the record s.
func located(err error, s string) error {
	var se *syntaxError
	if errors.As(err, &se) && se.near == "" && se.off >= 0 && se.off < len(s) {
		se.near = showText(s[se.off:])
	}
	return err
}

func synErr(off int, format string, args ...any) error {
	return &syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
}

func skipWS(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString reads the JSON string starting at s[i] == '"' and returns its
// value and the offset after the closing quote. Without escapes the value
// is a substring of s.
func scanString(s string, i int) (string, int, error) {
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			return s[i+1 : j], j + 1, nil
		case c == '\\':
			return scanEscaped(s, i, j)
		case c < 0x20:
			return "", 0, synErr(j, "control character in a string")
		}
		j++
	}
	return "", 0, synErr(i, "unterminated string")
}

func scanEscaped(s string, i, j int) (string, int, error) {
	b := make([]byte, 0, j-i+16)
	b = append(b, s[i+1:j]...)
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			return string(b), j + 1, nil
		case c < 0x20:
			return "", 0, synErr(j, "control character in a string")
		case c != '\\':
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(s) {
			break
		}
		e := s[j+1]
		j += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, j)
			if !ok {
				return "", 0, synErr(j-2, `invalid \u escape`)
			}
			j += 4
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s, j+2); ok && j+1 < len(s) && s[j] == '\\' && s[j+1] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						j += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", 0, synErr(j-2, "invalid escape \\%c", e)
		}
	}
	return "", 0, synErr(i, "unterminated string")
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for k := i; k < i+4; k++ {
		c := s[k]
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// scanNumber reads a JSON number at s[i] and returns its text and the
// offset after it. It reports whether the number is an integer (no
// fraction, no exponent).
func scanNumber(s string, i int) (text string, next int, integer bool, err error) {
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	default:
		return "", 0, false, synErr(i, "invalid number")
	}
	integer = true
	if j < len(s) && s[j] == '.' {
		integer = false
		j++
		start := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == start {
			return "", 0, false, synErr(i, "invalid number")
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		integer = false
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		start := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == start {
			return "", 0, false, synErr(i, "invalid number")
		}
	}
	return s[i:j], j, integer, nil
}

func scanLiteral(s string, i int, lit string) (int, error) {
	if !strings.HasPrefix(s[i:], lit) {
		return 0, synErr(i, "invalid literal")
	}
	return i + len(lit), nil
}

// skipValue returns the offset after the JSON value at s[i].
func skipValue(s string, i, depth int) (int, error) {
	if i >= len(s) {
		return 0, synErr(i, "unexpected end of input, expected a value")
	}
	switch c := s[i]; {
	case c == '"':
		_, j, err := scanString(s, i)
		return j, err
	case c == '-' || c >= '0' && c <= '9':
		_, j, _, err := scanNumber(s, i)
		return j, err
	case c == 't':
		return scanLiteral(s, i, "true")
	case c == 'f':
		return scanLiteral(s, i, "false")
	case c == 'n':
		return scanLiteral(s, i, "null")
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return 0, synErr(i, "nested more than %d levels deep", maxDepth)
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		j := skipWS(s, i+1)
		if j < len(s) && s[j] == closer {
			return j + 1, nil
		}
		for {
			var err error
			if c == '{' {
				if j >= len(s) || s[j] != '"' {
					return 0, synErr(j, "expected a field name")
				}
				if _, j, err = scanString(s, j); err != nil {
					return 0, err
				}
				j = skipWS(s, j)
				if j >= len(s) || s[j] != ':' {
					return 0, synErr(j, "expected ':'")
				}
				j = skipWS(s, j+1)
			}
			if j, err = skipValue(s, j, depth+1); err != nil {
				return 0, err
			}
			j = skipWS(s, j)
			switch {
			case j < len(s) && s[j] == ',':
				j = skipWS(s, j+1)
			case j < len(s) && s[j] == closer:
				return j + 1, nil
			default:
				return 0, synErr(j, "expected ',' or '%c'", closer)
			}
		}
	default:
		return 0, synErr(i, "unexpected character %q", c)
	}
}

// jsonObject reads flat JSON objects into values in schema order.
type jsonObject struct {
	schema        []connector.Column
	byName        map[string]int
	failOnMissing bool
	seen          []bool
}

func newJSONObject(schema []connector.Column, failOnMissing bool) (*jsonObject, error) {
	if err := checkSchemaOf(schema, true); err != nil {
		return nil, err
	}
	o := &jsonObject{schema: schema, byName: map[string]int{}, failOnMissing: failOnMissing, seen: make([]bool, len(schema))}
	for i := range schema {
		if physical(&schema[i]) {
			o.byName[schema[i].Name] = i
		}
	}
	return o, nil
}

// read decodes the object at s[i] into vals (len(schema), zeroed by the
// caller) and returns the offset after it.
func (o *jsonObject) read(s string, i int, vals []row.Value) (int, error) {
	if i >= len(s) || s[i] != '{' {
		if i >= len(s) {
			return 0, synErr(i, "expected a JSON object, got end of input")
		}
		return 0, synErr(i, "expected a JSON object")
	}
	clear(o.seen)
	hint := 0 // fields usually come in schema order
	j := skipWS(s, i+1)
	if j < len(s) && s[j] == '}' {
		j++
	} else {
		for {
			if j >= len(s) || s[j] != '"' {
				return 0, synErr(j, "expected a field name")
			}
			key, k, err := scanString(s, j)
			if err != nil {
				return 0, err
			}
			k = skipWS(s, k)
			if k >= len(s) || s[k] != ':' {
				return 0, synErr(k, "expected ':' after field name")
			}
			k = skipWS(s, k+1)
			col := -1
			for hint < len(o.schema) && !physical(&o.schema[hint]) {
				hint++
			}
			if hint < len(o.schema) && o.schema[hint].Name == key {
				col = hint
			} else if c, ok := o.byName[key]; ok {
				col = c
			}
			if col >= 0 {
				hint = col + 1
			}
			if col < 0 || o.schema[col].Unused {
				if k, err = skipValue(s, k, 1); err != nil {
					return 0, err
				}
			} else {
				if vals[col], k, err = o.value(&o.schema[col], s, k); err != nil {
					var se *syntaxError
					if errors.As(err, &se) && se.column == "" {
						se.column = o.schema[col].Name
					}
					return 0, err
				}
				o.seen[col] = true
			}
			k = skipWS(s, k)
			if k < len(s) && s[k] == ',' {
				j = skipWS(s, k+1)
				continue
			}
			if k < len(s) && s[k] == '}' {
				j = k + 1
				break
			}
			return 0, synErr(k, "expected ',' or '}'")
		}
	}
	for c := range o.schema {
		col := &o.schema[c]
		if o.seen[c] || !physical(col) || col.Unused {
			continue
		}
		if o.failOnMissing {
			return 0, missingField(col, "the field is missing ('fail-on-missing-field' is set)")
		}
		if !col.Type.Nullable {
			return 0, missingField(col, "the field is missing, and the column is NOT NULL")
		}
	}
	return j, nil
}

// value decodes the JSON value at s[i] as a value of column c.
func (o *jsonObject) value(c *connector.Column, s string, i int) (row.Value, int, error) {
	return o.valueAt(c, "", c.Type, s, i)
}

// valueAt decodes the JSON value at s[i] as a value of type t, found in
// column c at path (tags[2], address.city; "" for the column's value).
func (o *jsonObject) valueAt(c *connector.Column, path string, t types.T, s string, i int) (row.Value, int, error) {
	if i >= len(s) {
		return row.NullValue, 0, synErr(i, "unexpected end of input, expected a value")
	}
	switch ch := s[i]; {
	case ch == '"':
		str, j, err := scanString(s, i)
		if err != nil {
			return row.NullValue, 0, err
		}
		if t.IsString() {
			if err := checkUTF8(str); err != nil {
				return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(s[i:j]), err)
			}
			return row.StrValue(str), j, nil
		}
		if t.IsNested() {
			return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(s[i:j]), fmt.Errorf("expected %s, got a string", expected(t)))
		}
		v, err := ParseText(t, str)
		if err != nil {
			return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(s[i:j]), err)
		}
		return v, j, nil
	case ch == '-' || ch >= '0' && ch <= '9':
		num, j, integer, err := scanNumber(s, i)
		if err != nil {
			return row.NullValue, 0, err
		}
		var v row.Value
		switch t.Kind {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Interval, types.IntervalYM:
			if !integer {
				err = fmt.Errorf("not an integer; %s holds whole numbers only (declare DECIMAL(p, s) or DOUBLE for fractions)", t.Kind)
			} else {
				v, err = parseInteger(t, num)
			}
		case types.Float, types.Double, types.Decimal:
			v, err = ParseText(t, num)
		case types.Char, types.Varchar:
			v = row.StrValue(num)
		case types.Timestamp, types.TimestampLTZ:
			err = epochError(t)
		default:
			err = fmt.Errorf("expected %s, got a number", expected(t))
		}
		if err != nil {
			return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(num), err)
		}
		return v, j, nil
	case ch == 't' || ch == 'f':
		lit := "true"
		if ch == 'f' {
			lit = "false"
		}
		j, err := scanLiteral(s, i, lit)
		if err != nil {
			return row.NullValue, 0, err
		}
		switch {
		case t.Kind == types.Boolean:
			return row.BoolValue(ch == 't'), j, nil
		case t.IsString():
			return row.StrValue(lit), j, nil
		}
		return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(lit), fmt.Errorf("expected %s, got a boolean", expected(t)))
	case ch == 'n':
		j, err := scanLiteral(s, i, "null")
		if err != nil {
			return row.NullValue, 0, err
		}
		if !t.Nullable {
			return row.NullValue, 0, fieldErrorAt(c, path, t, "null", errors.New(notNullWhat(path)))
		}
		return row.NullValue, j, nil
	case ch == '[' && t.Kind == types.Array:
		return o.array(c, path, t, s, i)
	case ch == '{' && t.Kind == types.Map:
		return o.mapValue(c, path, t, s, i)
	case ch == '{' && t.Kind == types.Row:
		return o.rowValue(c, path, t, s, i)
	case ch == '{' || ch == '[':
		j, err := skipValue(s, i, 1)
		if err != nil {
			return row.NullValue, 0, err
		}
		if t.IsString() {
			// As Flink: a nested value read into a string column is its
			// JSON text.
			if err := checkUTF8(s[i:j]); err != nil {
				return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(s[i:j]), err)
			}
			return row.StrValue(s[i:j]), j, nil
		}
		what := "an object"
		if ch == '[' {
			what = "an array"
		}
		return row.NullValue, 0, fieldErrorAt(c, path, t, showJSON(s[i:j]), fmt.Errorf("expected %s, got %s", expected(t), what))
	default:
		return row.NullValue, 0, synErr(i, "unexpected character %q", ch)
	}
}

// expected describes what a JSON value for t looks like.
func expected(t types.T) string {
	switch t.Kind {
	case types.Boolean:
		return "true or false"
	case types.Date:
		return "a date string 'yyyy-MM-dd'"
	case types.Time:
		return "a time string 'HH:mm:ss[.fff]'"
	case types.Timestamp, types.TimestampLTZ:
		return "a timestamp string " + timestampHint
	case types.Binary, types.Varbinary:
		return "a base64 string"
	case types.Char, types.Varchar:
		return "a string"
	case types.Array:
		return "a JSON array"
	case types.Map:
		return "a JSON object (its fields are the map's entries)"
	case types.Row:
		return "a JSON object"
	default:
		return "a number"
	}
}

// array decodes the JSON array at s[i] == '[' as a value of the ARRAY
// column c.
func (o *jsonObject) array(c *connector.Column, path string, t types.T, s string, i int) (row.Value, int, error) {
	et := t.Elem()
	var vals []row.Value
	j := skipWS(s, i+1)
	if j < len(s) && s[j] == ']' {
		return row.ListValue(nil), j + 1, nil
	}
	for k := 1; ; k++ {
		v, next, err := o.valueAt(c, path+"["+strconv.Itoa(k)+"]", et, s, j)
		if err != nil {
			return row.NullValue, 0, err
		}
		vals = append(vals, v)
		j = skipWS(s, next)
		switch {
		case j < len(s) && s[j] == ',':
			j = skipWS(s, j+1)
		case j < len(s) && s[j] == ']':
			return row.ListValue(vals), j + 1, nil
		default:
			return row.NullValue, 0, synErr(j, "expected ',' or ']' in the array")
		}
	}
}

// objectFields calls field for each field of the JSON object at
// s[i] == '{' with the field's name and the offset of its value; field
// returns the offset after the value.
func objectFields(s string, i int, field func(name string, at int) (int, error)) (int, error) {
	j := skipWS(s, i+1)
	if j < len(s) && s[j] == '}' {
		return j + 1, nil
	}
	for {
		if j >= len(s) || s[j] != '"' {
			return 0, synErr(j, "expected a field name")
		}
		key, k, err := scanString(s, j)
		if err != nil {
			return 0, err
		}
		k = skipWS(s, k)
		if k >= len(s) || s[k] != ':' {
			return 0, synErr(k, "expected ':' after field name")
		}
		if k, err = field(key, skipWS(s, k+1)); err != nil {
			return 0, err
		}
		k = skipWS(s, k)
		switch {
		case k < len(s) && s[k] == ',':
			j = skipWS(s, k+1)
		case k < len(s) && s[k] == '}':
			return k + 1, nil
		default:
			return 0, synErr(k, "expected ',' or '}'")
		}
	}
}

// mapValue decodes the JSON object at s[i] == '{' as a value of the MAP
// column c: each field an entry, its name read as the key type's text.
func (o *jsonObject) mapValue(c *connector.Column, path string, t types.T, s string, i int) (row.Value, int, error) {
	kt, vt := t.Key(), t.Value()
	var keys, vals []row.Value
	j, err := objectFields(s, i, func(name string, at int) (int, error) {
		var key row.Value
		var err error
		if kt.IsString() {
			err = checkUTF8(name)
			key = row.StrValue(name)
		} else {
			key, err = ParseText(kt, name)
		}
		if err != nil {
			return 0, fieldErrorAt(c, path+" key", kt, showJSON(strconv.Quote(name)), err)
		}
		v, next, err := o.valueAt(c, path+"["+strconv.Quote(name)+"]", vt, s, at)
		if err != nil {
			return 0, err
		}
		keys, vals = append(keys, key), append(vals, v)
		return next, nil
	})
	if err != nil {
		return row.NullValue, 0, err
	}
	return row.MapValue(keys, vals), j, nil
}

// rowValue decodes the JSON object at s[i] == '{' as a value of the ROW
// column c: fields matched by name as a record's are, unknown ones
// ignored, missing ones NULL (an error for a NOT NULL field).
func (o *jsonObject) rowValue(c *connector.Column, path string, t types.T, s string, i int) (row.Value, int, error) {
	fs := t.Fields()
	vals := make([]row.Value, len(fs))
	seen := make([]bool, len(fs))
	j, err := objectFields(s, i, func(name string, at int) (int, error) {
		f := t.FieldIndex(name)
		if f < 0 {
			return skipValue(s, at, 1)
		}
		v, next, err := o.valueAt(c, path+"."+name, fs[f].Type, s, at)
		if err != nil {
			return 0, err
		}
		vals[f], seen[f] = v, true
		return next, nil
	})
	if err != nil {
		return row.NullValue, 0, err
	}
	for f := range fs {
		if !seen[f] && !fs[f].Type.Nullable {
			return row.NullValue, 0, &FieldError{Column: c.Name, Path: path + "." + fs[f].Name, Type: fs[f].Type, Missing: true,
				Reason: "the field is missing, and it is NOT NULL"}
		}
	}
	return row.ListValue(vals), j, nil
}

// jsonDecoder is the json format: one object per record.
type jsonDecoder struct {
	obj     *jsonObject
	scratch []row.Value
	slab    slab
}

func newJSONDecoder(schema []connector.Column, opts Options, name string) (*jsonDecoder, error) {
	o, err := newJSONObject(schema, strings.EqualFold(opts.Get(name+".fail-on-missing-field"), "true"))
	if err != nil {
		return nil, err
	}
	return &jsonDecoder{obj: o, scratch: make([]row.Value, len(schema)), slab: slab{n: len(schema)}}, nil
}

// Decode implements Decoder.
func (d *jsonDecoder) Decode(dst row.Batch, data []byte) (row.Batch, error) {
	s := string(data)
	clear(d.scratch)
	i := skipWS(s, 0)
	j, err := d.obj.read(s, i, d.scratch)
	if err != nil {
		return dst, located(err, s)
	}
	if j = skipWS(s, j); j != len(s) {
		return dst, located(synErr(j, "unexpected text after the object"), s)
	}
	return append(dst, row.Row{Kind: changelogmode.Insert, Vals: d.slab.keep(d.scratch)}), nil
}

// jsonFields writes rows as flat JSON objects.
type jsonFields struct {
	cols       []encCol
	ignoreNull bool
	iso        bool
	n          int
}

type encCol struct {
	idx  int
	name string
	t    types.T
	key  []byte // "name":
}

func newJSONFields(schema []connector.Column, opts Options, name string) (*jsonFields, error) {
	if err := checkSchemaOf(schema, true); err != nil {
		return nil, err
	}
	f := &jsonFields{
		ignoreNull: strings.EqualFold(opts.Get(name+".encode.ignore-null-fields"), "true"),
		iso:        strings.EqualFold(opts.Get(name+".timestamp-format.standard"), "ISO-8601"),
		n:          len(schema),
	}
	for i := range schema {
		if physical(&schema[i]) {
			key := appendJSONString(nil, schema[i].Name)
			f.cols = append(f.cols, encCol{idx: i, name: schema[i].Name, t: schema[i].Type, key: append(key, ':')})
		}
	}
	return f, nil
}

func (f *jsonFields) appendObject(b []byte, vals []row.Value) ([]byte, error) {
	if len(vals) != f.n {
		return b, fmt.Errorf("row has %d values, the schema %d columns", len(vals), f.n)
	}
	b = append(b, '{')
	first := true
	for k := range f.cols {
		c := &f.cols[k]
		v := vals[c.idx]
		if v.IsNull() && f.ignoreNull {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, c.key...)
		var err error
		if b, err = f.appendValue(b, c.t, v); err != nil {
			return b, fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return append(b, '}'), nil
}

func (f *jsonFields) appendValue(b []byte, t types.T, v row.Value) ([]byte, error) {
	if v.IsNull() {
		return append(b, "null"...), nil
	}
	switch t.Kind {
	case types.Array, types.Map, types.Row:
		return f.appendNested(b, t, v)
	default:
		return f.appendScalar(b, t, v), nil
	}
}

// appendNested writes an ARRAY as a JSON array, a MAP as an object (keys
// as their text), a ROW as an object of its fields.
func (f *jsonFields) appendNested(b []byte, t types.T, v row.Value) ([]byte, error) {
	r, n, err := row.NewListReader(v.Str())
	if err != nil {
		return b, err
	}
	var fs []types.Field
	open, closer := byte('{'), byte('}')
	switch t.Kind {
	case types.Array:
		open, closer = '[', ']'
	case types.Row:
		fs = t.Fields()
		if n != len(fs) {
			return b, fmt.Errorf("a %s value has %d fields: %w", t, n, row.ErrCorrupt)
		}
	default: // MAP
	}
	b = append(b, open)
	first := true
	for k := 0; k < n; k++ {
		var et types.T
		switch t.Kind {
		case types.Array:
			et = t.Elem()
		case types.Map:
			key, err := r.Next()
			if err != nil {
				return b, err
			}
			et = t.Value()
			if !first {
				b = append(b, ',')
			}
			if kt := t.Key(); kt.IsString() {
				b = appendJSONString(b, key.Str())
			} else {
				b = appendJSONString(b, string(AppendText(nil, kt, key)))
			}
			b = append(b, ':')
		default:
			et = fs[k].Type
		}
		e, err := r.Next()
		if err != nil {
			return b, err
		}
		if t.Kind == types.Row {
			if e.IsNull() && f.ignoreNull {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			b = appendJSONString(b, fs[k].Name)
			b = append(b, ':')
		} else if t.Kind == types.Array && !first {
			b = append(b, ',')
		}
		first = false
		if b, err = f.appendValue(b, et, e); err != nil {
			return b, err
		}
	}
	return append(b, closer), nil
}

func (f *jsonFields) appendScalar(b []byte, t types.T, v row.Value) []byte {
	switch t.Kind {
	case types.Char, types.Varchar:
		return appendJSONString(b, v.Str())
	case types.Boolean:
		return strconv.AppendBool(b, v.Bool())
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Interval, types.IntervalYM:
		return strconv.AppendInt(b, v.Int(), 10)
	case types.Decimal:
		return decimal.Append(b, v.Int(), t.Scale)
	case types.Float, types.Double:
		if x := v.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
			// NaN and infinities have no JSON number: write them as
			// strings, which the reader accepts.
			b = append(b, '"')
			b = AppendText(b, t, v)
			return append(b, '"')
		}
		return AppendText(b, t, v)
	case types.Timestamp, types.TimestampLTZ:
		b = append(b, '"')
		if f.iso {
			b = civil.AppendTimestamp(b, v.Int(), t.Precision, 'T')
			if t.Kind == types.TimestampLTZ {
				b = append(b, 'Z')
			}
		} else {
			b = civil.AppendTimestamp(b, v.Int(), t.Precision, ' ')
		}
		return append(b, '"')
	default: // dates, times, bytes: their text, as a string
		b = append(b, '"')
		b = AppendText(b, t, v)
		return append(b, '"')
	}
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 is written as
// U+FFFD, as encoding/json does, so that the output is always valid JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonEncoder is the json format.
type jsonEncoder struct{ f *jsonFields }

func newJSONEncoder(schema []connector.Column, opts Options, name string) (*jsonEncoder, error) {
	f, err := newJSONFields(schema, opts, name)
	if err != nil {
		return nil, err
	}
	return &jsonEncoder{f: f}, nil
}

// Encode implements Encoder.
func (e *jsonEncoder) Encode(buf []byte, r row.Row) ([]byte, error) {
	if r.Kind != changelogmode.Insert {
		return buf, insertOnlyError(JSON, r.Kind)
	}
	out, err := e.f.appendObject(buf, r.Vals)
	if err != nil {
		return buf, err
	}
	return out, nil
}

func insertOnlyError(name string, k changelogmode.Kind) error {
	return fmt.Errorf("format %s is insert-only and cannot write a %s row; use 'debezium-json' for a changelog", name, k)
}
