package catalog_test

import (
	"slices"
	"testing"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/types"
)

func names(cols []connector.Column) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name+":"+c.MetadataKey)
	}
	return out
}

func TestConnectorSpec(t *testing.T) {
	tab := conntest.Table(t, `CREATE TABLE t (
		k BIGINT, v STRING, ts TIMESTAMP(3) METADATA FROM 'timestamp', part INT METADATA FROM 'partition' VIRTUAL,
		doubled AS k * 2,
		PRIMARY KEY (v, k) NOT ENFORCED
	) WITH ('connector' = 'upsert-kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'b:9092',
		'key.format' = 'json', 'value.format' = 'json')`)
	if got, want := names(tab.SourceColumns()), []string{"k:", "v:", "ts:timestamp", "part:partition"}; !slices.Equal(got, want) {
		t.Errorf("source columns %q, want %q (computed columns left out)", got, want)
	}
	if got, want := names(tab.SinkColumns()), []string{"k:", "v:", "ts:timestamp"}; !slices.Equal(got, want) {
		t.Errorf("sink columns %q, want %q (virtual and computed columns left out)", got, want)
	}
	s := tab.ConnectorSpec(tab.SinkColumns())
	if s.Table != "t" || s.Connector != "upsert-kafka" || !slices.Equal(s.PrimaryKey, []string{"v", "k"}) || len(s.Schema) != 3 {
		t.Errorf("spec %+v", s)
	}
	if s.Options == nil || s.Options.Get("topic") != "x" || !s.Options.Has("value.format") {
		t.Errorf("options not the table's: %+v", s.Options)
	}
	if s.Schema[2].Type.Kind != types.Timestamp {
		t.Errorf("ts column type %v", s.Schema[2].Type)
	}
	fs := conntest.Table(t, `CREATE TABLE f (a INT) WITH ('connector' = 'filesystem', 'path' = 'x.json', 'format' = 'json')`)
	if got := fs.ConnectorSpec(nil).Format; got != "json" {
		t.Errorf("format %q, want json", got)
	}
}

// A table without a configuration gives a spec whose Options is nil, not a
// nil *connectors.Config inside the interface (which != nil).
func TestConnectorSpecNoConfig(t *testing.T) {
	tab := &catalog.Table{Name: "bare"}
	if s := tab.ConnectorSpec(nil); s.Options != nil || s.Connector != "" || s.Format != "" {
		t.Errorf("spec of a bare table %+v", s)
	}
}
