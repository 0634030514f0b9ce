package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// Raw is Flink's raw format: the whole record (a file line, a Kafka record
// value or key) is the value of the table's single physical column, a
// STRING (CHAR, VARCHAR) in UTF-8 or BYTES (BINARY, VARBINARY) as they are.
// Flink's raw also reads numbers in binary ('raw.endianness'); streamsql
// does not, and refuses any other column type when the table is checked.
// A line-based source gives every line, an empty one included, as a row
// (the empty string). NULL has no encoding in a line: writing one is an
// error (Flink writes a Kafka tombstone; streamsql does not yet).
const Raw = "raw"

// rawColumn returns the index of the schema's single physical column,
// checking its type and the charset.
func rawColumn(schema []connector.Column, opts Options) (int, error) {
	if cs := opts.Get("raw.charset"); cs != "" && !strings.EqualFold(cs, "UTF-8") && !strings.EqualFold(cs, "UTF8") {
		return 0, fmt.Errorf("'raw.charset' = '%s' is not supported: streamsql reads and writes UTF-8", cs)
	}
	col := -1
	for i := range schema {
		if !physical(&schema[i]) {
			continue
		}
		if col >= 0 {
			return 0, fmt.Errorf("the raw format holds one column, and the table has %s and %s (and perhaps more): declare one STRING or BYTES column (metadata and computed columns may be added)",
				schema[col].Name, schema[i].Name)
		}
		col = i
	}
	if col < 0 {
		return 0, errors.New("the raw format holds one column, and the table has none it could hold")
	}
	if t := schema[col].Type; !t.IsString() && !t.IsBinary() {
		return 0, fmt.Errorf("column %s is %s: the raw format holds a STRING or BYTES column here (Flink's binary numbers are not supported)", schema[col].Name, t)
	}
	return col, nil
}

type rawDecoder struct {
	schema []connector.Column
	col    int
	slab   slab
}

func newRawDecoder(schema []connector.Column, opts Options) (*rawDecoder, error) {
	col, err := rawColumn(schema, opts)
	if err != nil {
		return nil, err
	}
	return &rawDecoder{schema: schema, col: col, slab: slab{n: len(schema)}}, nil
}

// Decode makes one +I row whose column holds data.
func (d *rawDecoder) Decode(dst row.Batch, data []byte) (row.Batch, error) {
	vals := d.slab.keep(nil) // all NULL
	if !d.schema[d.col].Unused {
		vals[d.col] = row.StrValue(string(data))
	}
	return append(dst, row.Row{Kind: changelogmode.Insert, Vals: vals}), nil
}

// Blank implements Lines: every line is a record, an empty one too.
func (d *rawDecoder) Blank([]byte) bool { return false }

// Continues implements Lines: a record is one line.
func (d *rawDecoder) Continues([]byte, bool) bool { return false }

type rawEncoder struct {
	col  int
	name string
	t    types.T
}

func newRawEncoder(schema []connector.Column, opts Options) (*rawEncoder, error) {
	col, err := rawColumn(schema, opts)
	if err != nil {
		return nil, err
	}
	return &rawEncoder{col: col, name: schema[col].Name, t: schema[col].Type}, nil
}

// Encode appends the column's value as it is.
func (e *rawEncoder) Encode(buf []byte, r row.Row) ([]byte, error) {
	if r.Kind != changelogmode.Insert {
		return buf, fmt.Errorf("the raw format is insert-only, and the row is %s", r.Kind)
	}
	v := r.Vals[e.col]
	if v.IsNull() {
		return buf, fmt.Errorf("column %s is NULL, which the raw format cannot write", e.name)
	}
	return append(buf, v.Str()...), nil
}
