package connectors

import (
	"slices"
	"strings"
	"testing"
)

func TestModes(t *testing.T) {
	tests := []struct {
		connector, format string
		source, sink      string
	}{
		{"filesystem", "json", InsertOnly, InsertOnly},
		{"filesystem", "csv", InsertOnly, InsertOnly},
		{"filesystem", "debezium-json", AllKinds, AllKinds},
		{"kafka", "json", InsertOnly, InsertOnly},
		{"kafka", "raw", InsertOnly, InsertOnly},
		{"kafka", "debezium-json", AllKinds, AllKinds},
		{"upsert-kafka", "json", Upsert, Upsert},
		{"datagen", "", InsertOnly, ""},
		{"nexmark", "", InsertOnly, ""},
		{"print", "", "", AllKinds},
		{"blackhole", "", "", AllKinds},
		{"jdbc", "", InsertOnly, InsertOnly}, // a keyed table's sink takes upserts: TestKeyedSinkMode
		{"cassandra", "json", "", ""},
	}
	for _, tt := range tests {
		if got := SourceModeName(tt.connector, tt.format); got != tt.source {
			t.Errorf("SourceModeName(%q, %q) = %q, want %q", tt.connector, tt.format, got, tt.source)
		}
		if got := SinkModeName(tt.connector, tt.format); got != tt.sink {
			t.Errorf("SinkModeName(%q, %q) = %q, want %q", tt.connector, tt.format, got, tt.sink)
		}
	}
}

func TestRegistry(t *testing.T) {
	if got, want := Names(), []string{"blackhole", "datagen", "faker", "filesystem", "jdbc", "kafka", "nexmark", "print", "upsert-kafka"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	if got, want := FormatNames(), []string{"csv", "debezium-json", "json", "raw"}; !slices.Equal(got, want) {
		t.Errorf("FormatNames() = %v, want %v", got, want)
	}
	if s, ok := Lookup("upsert-kafka"); !ok || !s.NeedsPrimaryKey || !s.Source || !s.Sink {
		t.Errorf("Lookup(upsert-kafka) = %+v, %v", s, ok)
	}
	if _, ok := Lookup("Kafka"); ok {
		t.Errorf("connector names are case-sensitive, as in Flink")
	}
	if f, ok := LookupFormat("debezium-json"); !ok || !f.Changelog {
		t.Errorf("LookupFormat(debezium-json) = %+v, %v", f, ok)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("registering kafka twice should panic")
		}
	}()
	Register(&ConnectorSpec{Name: "kafka"})
}

// TestSpecsConsistent keeps the declarations honest: every default is a
// valid value, every option has a Doc, keys are unique, and format options
// carry their format's name.
func TestSpecsConsistent(t *testing.T) {
	check := func(owner string, opts []OptionSpec, prefix string) {
		seen := map[string]bool{}
		for _, o := range opts {
			where := owner + " option " + o.Key
			if seen[o.Key] {
				t.Errorf("%s: declared twice", where)
			}
			seen[o.Key] = true
			if o.Doc == "" {
				t.Errorf("%s: no Doc", where)
			}
			if !strings.HasPrefix(o.Key, prefix) {
				t.Errorf("%s: does not start with %q", where, prefix)
			}
			if o.Prefix != strings.HasSuffix(o.Key, ".") {
				t.Errorf("%s: Prefix options, and only they, end in '.'", where)
			}
			for _, v := range []string{o.Default, o.Example} {
				if v == "" {
					continue
				}
				if len(o.Choices) > 0 && !slices.Contains(o.Choices, v) {
					t.Errorf("%s: %q is not one of %v", where, v, o.Choices)
				}
				// A reference (${file:...}) is resolved before validation.
				if o.Validate != nil && o.Key != "format" && !strings.HasSuffix(o.Key, ".format") && !strings.Contains(v, "${") {
					if err := o.Validate(v); err != nil {
						t.Errorf("%s: %q is invalid: %v", where, v, err)
					}
				}
			}
		}
	}
	for _, name := range Names() {
		s, _ := Lookup(name)
		if s.Doc == "" || s.Name != name {
			t.Errorf("connector %s: missing Doc or wrong Name", name)
		}
		if s.Source != (s.SourceEmits != "") || s.Sink != (s.SinkAccepts != "") {
			t.Errorf("connector %s: Source/Sink and their modes disagree", name)
		}
		for _, fk := range s.FormatOptions {
			if s.option(fk) == nil {
				t.Errorf("connector %s: format option %s is not among its Options", name, fk)
			}
		}
		check("connector "+name, s.Options, "")
	}
	for _, name := range FormatNames() {
		f, _ := LookupFormat(name)
		if f.Doc == "" || f.Name != name {
			t.Errorf("format %s: missing Doc or wrong Name", name)
		}
		check("format "+name, f.Options, name+".")
	}
}
