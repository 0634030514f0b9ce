package docs

import (
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// TestCSVRulesTable runs the table of connectors.md's "The csv format, as
// Flink reads and writes it": each row is one field (between [ and ]) read
// into a one-column table of the given type, without options, with
// an empty 'csv.null-literal' and with 'csv.ignore-parse-errors' = 'true'; the
// cells are what the decoder must give (a SQL literal, or error).
func TestCSVRulesTable(t *testing.T) {
	b, err := os.ReadFile("connectors.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- csv-rules: begin -->\n")
	table, _, ok2 := strings.Cut(rest, "<!-- csv-rules: end -->")
	if !ok || !ok2 {
		t.Fatal("connectors.md has no csv-rules table")
	}
	typeOf := map[string]types.T{
		"STRING": types.StringType(), "BYTES": types.New(types.Varbinary), "BOOLEAN": types.New(types.Boolean),
		"INT": types.New(types.Int), "DOUBLE": types.New(types.Double), "DECIMAL(10, 2)": types.DecimalOf(10, 2),
		"DATE": types.New(types.Date), "TIMESTAMP(3)": types.TimestampOf(3),
	}
	options := []format.Map{nil, {"csv.null-literal": ""}, {"csv.ignore-parse-errors": "true"}}
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
		}
		if len(cells) != 2+len(options) {
			t.Fatalf("row %q: %d cells", line, len(cells))
		}
		typ, ok := typeOf[cells[0]]
		if !ok {
			t.Fatalf("row %q: type %s is not in the test's list", line, cells[0])
		}
		field := strings.TrimSuffix(strings.TrimPrefix(cells[1], "["), "]")
		schema := []connector.Column{{Name: "v", Type: typ}}
		for k, opts := range options {
			d, err := format.NewDecoder(format.CSV, schema, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := "error"
			if out, err := d.Decode(nil, []byte(field)); err == nil {
				if len(out) != 1 {
					t.Fatalf("%s [%s] %v: %d rows", cells[0], field, opts, len(out))
				}
				got = sqlLiteral(typ, out[0].Vals[0])
			}
			if want := cells[2+k]; got != want {
				t.Errorf("%s [%s] with %v: reads %s, connectors.md says %s", cells[0], field, opts, got, want)
			}
		}
		rows++
	}
	if rows < 10 {
		t.Fatalf("only %d rows in the csv-rules table", rows)
	}
}

// sqlLiteral shows v as the table does: NULL, 'text', X'hex', TRUE, or
// the value's text.
func sqlLiteral(t types.T, v row.Value) string {
	switch {
	case v.IsNull():
		return "NULL"
	case t.IsString():
		return "'" + strings.ReplaceAll(v.Str(), "'", "''") + "'"
	case t.IsBinary():
		return "X'" + strings.ToUpper(hex.EncodeToString([]byte(v.Str()))) + "'"
	case t.Kind == types.Boolean:
		return strings.ToUpper(string(format.AppendText(nil, t, v)))
	}
	return string(format.AppendText(nil, t, v))
}
