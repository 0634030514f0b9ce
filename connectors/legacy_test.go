package connectors

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/diag"
)

// TestLegacyOptions: a WITH clause in Flink's pre-1.11 keys reads as the
// current keys it stands for (Flink's own legacy factories read it so), with
// a warning at each legacy key naming its current spelling.
func TestLegacyOptions(t *testing.T) {
	tests := []struct {
		name  string
		kv    []string
		get   map[string]string // current key -> value after the translation
		warns []string          // `at: message` substrings of the warnings, in order
	}{
		{
			name: "nexmark q13's side input",
			kv:   []string{"connector.type", "filesystem", "connector.path", "file:///data/side_input.txt", "format.type", "csv"},
			get:  map[string]string{"connector": "filesystem", "path": "file:///data/side_input.txt", "format": "csv"},
			warns: []string{
				"'connector.type': 'connector.type' is Flink's legacy (pre-1.11) spelling of 'connector'",
				"'connector.path': 'connector.path' is Flink's legacy (pre-1.11) spelling of 'path'",
				"'format.type': 'format.type' is Flink's legacy (pre-1.11) spelling of 'format'",
			},
		},
		{
			name: "format options and ignored keys",
			kv: []string{"connector.type", "filesystem", "connector.path", "in.csv", "connector.property-version", "1",
				"format.type", "csv", "format.field-delimiter", "|", "format.derive-schema", "TRUE", "format.ignore-parse-errors", "true"},
			get: map[string]string{"csv.field-delimiter": "|", "csv.ignore-parse-errors": "true"},
			warns: []string{
				"'connector.type'", "'connector.path'",
				"'connector.property-version': 'connector.property-version' is one of Flink's legacy (pre-1.11) options; it has no effect",
				"'format.type'",
				"'format.field-delimiter': 'format.field-delimiter' is Flink's legacy (pre-1.11) spelling of 'csv.field-delimiter'",
				"'format.derive-schema': 'format.derive-schema' is one of Flink's legacy (pre-1.11) options; it has no effect",
				"'format.ignore-parse-errors': 'format.ignore-parse-errors' is Flink's legacy (pre-1.11) spelling of 'csv.ignore-parse-errors'",
			},
		},
		{
			name: "kafka",
			kv: []string{"connector.type", "kafka", "connector.version", "universal", "connector.topic", "bids",
				"connector.properties.bootstrap.servers", "localhost:9092", "connector.properties.group.id", "g",
				"connector.startup-mode", "earliest-offset", "update-mode", "append", "format.type", "json",
				"format.fail-on-missing-field", "true"},
			get: map[string]string{"connector": "kafka", "topic": "bids", "properties.bootstrap.servers": "localhost:9092",
				"properties.group.id": "g", "scan.startup.mode": "earliest-offset", "format": "json", "json.fail-on-missing-field": "true"},
			warns: []string{"'connector.type'", "'connector.version'", "'connector.topic'",
				"'connector.properties.bootstrap.servers': 'connector.properties.bootstrap.servers' is Flink's legacy (pre-1.11) spelling of 'properties.bootstrap.servers'",
				"'connector.properties.group.id'", "'connector.startup-mode'", "'update-mode'", "'format.type'",
				"'format.fail-on-missing-field'"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := with(tt.kv...)
			var l diag.List
			cfg, ok := Validate(c.opts, c.with, &l)
			if !ok || cfg == nil {
				t.Fatalf("Validate = %v, %v: %v", cfg, ok, l.Err())
			}
			for k, v := range tt.get {
				if got := cfg.Get(k); got != v {
					t.Errorf("Get(%q) = %q, want %q", k, got, v)
				}
			}
			if len(l.Items) != len(tt.warns) {
				for _, d := range l.Items {
					t.Logf("got %s", c.render(d))
				}
				t.Fatalf("%d diagnostics, want %d warnings", len(l.Items), len(tt.warns))
			}
			for i, d := range l.Items {
				got := c.render(d)
				if d.Code != diag.DeprecatedOption || d.Severity != diag.Warning || !strings.Contains(got, tt.warns[i]) {
					t.Errorf("diagnostic %d = %s, want an SQL222 warning containing %q", i, got, tt.warns[i])
				}
			}
			// The options keep their positions: a current key points at
			// the legacy key the user wrote.
			if o := cfg.Option("connector"); o == nil || c.at(o.Key.Span()) != "'connector.type'" {
				t.Errorf("Option(connector) does not point at 'connector.type'")
			}
		})
	}
}

// TestLegacyOptionsRefused: legacy keys that have no current counterpart,
// values of ignored keys that would mean something else, and a legacy key
// beside 'connector' are errors, never silently dropped.
func TestLegacyOptionsRefused(t *testing.T) {
	tests := []struct {
		name string
		kv   []string
		want string // `CODE severity at: message` substring of an error
	}{
		{"a format field list", []string{"connector.type", "filesystem", "connector.path", "a.csv", "format.type", "csv",
			"format.fields.0.name", "a"}, "SQL204 error 'format.fields.0.name': unknown option 'format.fields.0.name' for connector 'filesystem'"},
		{"derive-schema false", []string{"connector.type", "filesystem", "connector.path", "a.csv", "format.type", "csv",
			"format.derive-schema", "false"}, "SQL205 error 'false': invalid value 'false' for Flink's legacy option 'format.derive-schema'"},
		{"update-mode upsert", []string{"connector.type", "kafka", "connector.topic", "t", "connector.properties.bootstrap.servers", "k:9092",
			"format.type", "json", "update-mode", "upsert"}, "SQL205 error 'upsert': invalid value 'upsert' for Flink's legacy option 'update-mode'"},
		{"legacy beside current", []string{"connector", "filesystem", "connector.type", "filesystem", "path", "a.csv", "format", "csv"},
			"SQL204 error 'connector.type': unknown option 'connector.type' for connector 'filesystem'"},
		{"unknown legacy connector", []string{"connector.type", "hbase", "connector.table-name", "t"},
			"SQL202 error 'hbase': unknown connector 'hbase'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := with(tt.kv...)
			var l diag.List
			_, ok := Validate(c.opts, c.with, &l)
			if ok {
				t.Fatalf("Validate accepted %v", tt.kv)
			}
			var all []string
			for _, d := range l.Items {
				all = append(all, c.render(d))
				if d.Severity == diag.Error && strings.Contains(c.render(d), tt.want) {
					return
				}
			}
			t.Errorf("no error containing %q in:\n%s", tt.want, strings.Join(all, "\n"))
		})
	}
}
