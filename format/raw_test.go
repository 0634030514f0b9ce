package format

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// TestRaw: Flink's raw format, for one STRING or BYTES column: the record
// is the value, as it is; every line is a row (an empty one is ”), NULL
// cannot be written, other column types and charsets are refused.
func TestRaw(t *testing.T) {
	schema := []connector.Column{{Name: "line", Type: types.StringType()}, {Name: "off", Type: types.New(types.BigInt), MetadataKey: "offset"}}
	d, err := NewDecoder(Raw, schema, Map{"raw.charset": "UTF-8"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"hello, world", "", `{"not":"json"}`, "é\x00"} {
		b, err := d.Decode(nil, []byte(in))
		if err != nil || len(b) != 1 || b[0].Kind != changelogmode.Insert || b[0].Vals[0].Str() != in || !b[0].Vals[1].IsNull() {
			t.Errorf("Decode(%q) = %v, %v", in, b, err)
		}
	}
	if l, ok := d.(Lines); !ok || l.Blank(nil) || l.Continues([]byte(`"`), false) {
		t.Errorf("raw must frame one record per line, empty ones included")
	}
	e, err := NewEncoder(Raw, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Encode([]byte("x"), row.Row{Kind: changelogmode.Insert, Vals: []row.Value{row.StrValue("a,b"), row.IntValue(7)}})
	if err != nil || string(got) != "xa,b" {
		t.Errorf("Encode = %q, %v", got, err)
	}
	if _, err := e.Encode(nil, row.Row{Kind: changelogmode.Insert, Vals: []row.Value{row.NullValue, row.NullValue}}); err == nil {
		t.Error("encoding NULL succeeded, want an error")
	}
	if _, err := e.Encode(nil, row.Row{Kind: changelogmode.Delete, Vals: []row.Value{row.StrValue("a"), row.NullValue}}); err == nil {
		t.Error("encoding -D succeeded, want an error: raw is insert-only")
	}
	bytesCol := []connector.Column{{Name: "b", Type: types.BytesType()}}
	if _, err := NewDecoder(Raw, bytesCol, nil); err != nil {
		t.Errorf("BYTES: %v", err)
	}
	for _, c := range []struct {
		schema []connector.Column
		opts   Map
		want   string
	}{
		{[]connector.Column{{Name: "n", Type: types.New(types.Int)}}, nil, "column n is INT"},
		{[]connector.Column{{Name: "a", Type: types.StringType()}, {Name: "b", Type: types.StringType()}}, nil, "holds one column"},
		{[]connector.Column{{Name: "o", Type: types.New(types.BigInt), MetadataKey: "offset"}}, nil, "has none"},
		{schema, Map{"raw.charset": "ISO-8859-1"}, "UTF-8"},
	} {
		if _, err := NewDecoder(Raw, c.schema, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDecoder(%v) error %v, want %q", c.schema, err, c.want)
		}
	}
}
