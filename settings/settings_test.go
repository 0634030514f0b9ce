package settings

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string // substring of the error; "" for none
	}{
		{"10s", 10 * time.Second, ""},
		{"5 min", 5 * time.Minute, ""},
		{"5m", 5 * time.Minute, ""},
		{"1h", time.Hour, ""},
		{"100ms", 100 * time.Millisecond, ""},
		{"24h", 24 * time.Hour, ""},
		{"1 d", 24 * time.Hour, ""},
		{"2 days", 48 * time.Hour, ""},
		{"3 HOURS", 3 * time.Hour, ""},
		{"30 sec", 30 * time.Second, ""},
		{"1 second", time.Second, ""},
		{"15 minutes", 15 * time.Minute, ""},
		{"500 millis", 500 * time.Millisecond, ""},
		{"7 µs", 7 * time.Microsecond, ""},
		{"9ns", 9, ""},
		{"1500", 1500 * time.Millisecond, ""}, // a bare number is milliseconds, as in Flink
		{" 0 ", 0, ""},
		{"", 0, "empty duration"},
		{"s", 0, "starts with a whole number"},
		{"-5 s", 0, "starts with a whole number"},
		{"1.5 s", 0, "write '1500 ms' rather than '1.5 s'"},
		{"5 mins", 0, "unknown time unit 'mins'; use ms, s, min, h or d"},
		{"10 weeks", 0, "unknown time unit 'weeks'"},
		{"99999999999999999999", 0, "too large"},
		{"200000 d", 0, "too long"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("ParseDuration(%q): %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseDuration(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.err)
		case tt.err == "" && got != tt.want:
			t.Errorf("ParseDuration(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseMemorySize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"256mb", 256 << 20}, {"128 MB", 128 << 20}, {"1g", 1 << 30}, {"1024", 1024}, {"64k", 64 << 10},
		{"2 gibibytes", 2 << 30}, {" 7b ", 7}, {"1tb", 1 << 40}, {"0", 0},
	} {
		got, err := ParseMemorySize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseMemorySize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "mb", "-1mb", "1.5gb", "12 parsecs", "99999999999999999999", "9000000tb"} {
		if _, err := ParseMemorySize(in); err == nil {
			t.Errorf("ParseMemorySize(%q) succeeded", in)
		}
	}
}

// Every key takes the values Flink's documentation shows for it and
// refuses malformed ones with the key, the value and what it accepts.
func TestCheck(t *testing.T) {
	good := map[string][]string{
		"table.exec.state.ttl":                    {"0", "24h", "1 h", "30 min", "10 s", "10s", "1 d", "86400000"},
		"parallelism":                             {"1", "16"},
		"parallelism.default":                     {"4"},
		"table.exec.resource.default-parallelism": {"-1", "8"},
		"pipeline.name":                           {"", "orders enrichment"},
		"execution.runtime-mode":                  {"streaming", "BATCH"},
		"sql-client.execution.result-mode":        {"table", "Changelog", "tableau"},
		"table.exec.source.idle-timeout":          {"0", "5 s"},
		"table.exec.sink.upsert-materialize":      {"auto", "FORCE", "none"},
		"table.exec.source.cdc-events-duplicate":  {"true", "False"},
		"table.exec.emit.allow-lateness":          {"0", "1 min", "10 s", "2h"},
		"table.exec.emit.final-only":              {"true", "FALSE"},
		"table.exec.emit.early-fire.enabled":      {"false", "FALSE", "true"},
		"table.exec.emit.early-fire.delay":        {"0", "10 s"},
		"table.exec.emit.late-fire.enabled":       {"false", "TRUE"},
		"table.exec.emit.late-fire.delay":         {"1 min"},
		"table.exec.source.future-time-warning":   {"0", "1 d"},
		"table.exec.watermark.drift-warning":      {"0", "1 h"},
		"table.exec.watermark.gap-alert":          {"0", "30 min"},
		"table.local-time-zone":                   {"UTC", "Etc/UTC", "GMT", "+00:00"},
		"table.exec.mini-batch.enabled":           {"true"},
		"table.exec.mini-batch.allow-latency":     {"5 s"},
		"table.exec.mini-batch.size":              {"5000"},
		"state.memory-budget":                     {"128mb", "1 gb", "1024", "64 KB", "2 gibibytes"},
		"execution.checkpointing.interval":        {"10 s", "3min"},
		"rest.address":                            {"0.0.0.0", "localhost"},
		"execution.checkpointing.timeout":         {"10 min"},
		"state.checkpoints.num-retained":          {"1", "3"},
		"pipeline.max-parallelism":                {"1", "128", "32768"},
		"rest.port":                               {"0", "8081", "65535"},
	}
	bad := map[string][]string{
		"table.exec.state.ttl":                    {"forever", "1.5 h", "-1 h", "10 weeks", ""},
		"parallelism":                             {"0", "-2", "four", "2.0"},
		"parallelism.default":                     {"0"},
		"table.exec.resource.default-parallelism": {"0", "-2"},
		"execution.runtime-mode":                  {"stream"},
		"sql-client.execution.result-mode":        {"tableu"},
		"table.exec.source.idle-timeout":          {"idle"},
		"table.exec.sink.upsert-materialize":      {"yes", "true"},
		"table.exec.source.cdc-events-duplicate":  {"yes", "1", "on"},
		"table.exec.emit.allow-lateness":          {"-1 min", "a minute", ""},
		"table.exec.emit.final-only":              {"yes", "0"},
		"table.exec.emit.early-fire.enabled":      {"yes", "1"},
		"table.exec.emit.early-fire.delay":        {"soon"},
		"table.exec.emit.late-fire.enabled":       {"on"},
		"table.exec.emit.late-fire.delay":         {"-1 s"},
		"table.exec.source.future-time-warning":   {"1 day and a bit"},
		"table.exec.watermark.drift-warning":      {"one hour"},
		"table.exec.watermark.gap-alert":          {"an hour"},
		"table.local-time-zone":                   {"Asia/Shanghai", "GMT+08:00", "+08:00", "default", "Mars/Olympus Mons"},
		"table.exec.mini-batch.enabled":           {"enabled"},
		"table.exec.mini-batch.allow-latency":     {"soon"},
		"table.exec.mini-batch.size":              {"0"},
		"state.memory-budget":                     {"lots", "0", "0 mb", "1.5gb", "12 parsecs", "-1mb", "9000000tb"},
		"execution.checkpointing.interval":        {"often"},
		"rest.port":                               {"-1", "65536", "http"},
		"execution.checkpointing.timeout":         {"never"},
		"state.checkpoints.num-retained":          {"0", "all"},
		"pipeline.max-parallelism":                {"0", "32769", "-1", "many"},
	}
	for _, name := range Names() {
		if len(good[name]) == 0 {
			t.Errorf("%s: no accepted values tested", name)
		}
		for _, v := range good[name] {
			if e := Check(name, v); e != nil {
				t.Errorf("Check(%q, %q) = %v, want nil", name, v, e)
			}
		}
		if name == "pipeline.name" || name == "rest.address" {
			continue // any text
		}
		if len(bad[name]) == 0 {
			t.Errorf("%s: no refused values tested", name)
		}
		for _, v := range bad[name] {
			e := Check(name, v)
			if e == nil {
				t.Errorf("Check(%q, %q) = nil, want an error", name, v)
				continue
			}
			msg := e.Error()
			for _, part := range []string{"'" + v + "'", "'" + name + "'", "expected " + Accepts(name)} {
				if !strings.Contains(msg, part) {
					t.Errorf("Check(%q, %q) = %q, want it to contain %q", name, v, msg, part)
				}
			}
		}
	}
	if e := Check("no.such.key", "x"); e != nil {
		t.Errorf("an unknown key is the caller's to warn about, got %v", e)
	}
}

// A well-formed time zone other than UTC is not supported, as opposed to
// malformed; the parser's own problem is kept in the message.
func TestCheckDetail(t *testing.T) {
	if e := Check("table.local-time-zone", "Asia/Shanghai"); e == nil || !e.Unsupported {
		t.Errorf("Asia/Shanghai: %+v, want unsupported", e)
	}
	if e := Check("table.local-time-zone", "nowhere"); e == nil || e.Unsupported {
		t.Errorf("nowhere: %+v, want invalid, not unsupported", e)
	}
	e := Check("table.exec.state.ttl", "10 weeks")
	if e == nil || !strings.Contains(e.Error(), "unknown time unit 'weeks'") {
		t.Errorf("10 weeks: %v, want the unit named", e)
	}
}

func TestResolve(t *testing.T) {
	d := Defaults()
	if d.MemoryBudget != 1<<30 || d.DriftWarning != time.Hour || d.FutureTimeWarning != 24*time.Hour ||
		d.UpsertMaterialize != MaterializeAuto || d.StateTTL != 0 || d.Parallelism != 0 || d.RuntimeMode != "streaming" ||
		d.RestPort != -1 {
		t.Errorf("defaults: %+v", d)
	}
	var v Values
	v.Set("table.exec.state.ttl", " 1 h")
	v.Set("state.memory-budget", "128mb")
	v.Set("table.exec.source.idle-timeout", "5 s")
	v.Set("table.exec.watermark.drift-warning", "0")
	v.Set("table.exec.source.future-time-warning", "2 d")
	v.Set("table.exec.sink.upsert-materialize", "NONE")
	v.Set("table.exec.source.cdc-events-duplicate", "TRUE")
	v.Set("sql-client.execution.result-mode", "Changelog")
	v.Set("execution.checkpointing.interval", "30 s")
	v.Set("pipeline.name", "orders")
	v.Set("no.such.key", "whatever")
	s, err := Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.StateTTL, want.StateTTLText = time.Hour, "1 h"
	want.MemoryBudget = 128 << 20
	want.IdleTimeout = 5 * time.Second
	want.DriftWarning = 0
	want.FutureTimeWarning = 48 * time.Hour
	want.UpsertMaterialize = MaterializeNone
	want.CDCEventsDuplicate = true
	want.ResultMode = ResultChangelog
	want.CheckpointInterval = 30 * time.Second
	want.PipelineName = "orders"
	if s != want {
		t.Errorf("Resolve =\n%+v\nwant\n%+v", s, want)
	}
	v.Set("state.memory-budget", "lots")
	if _, err := Resolve(v); err == nil || !strings.Contains(err.Error(), "'lots'") {
		t.Errorf("an unchecked bad value: %v, want an error naming it", err)
	}
}

// Of parallelism's three names, Flink's table-level one wins over
// parallelism.default, which wins over streamsql's own; -1 is Flink's
// "not set".
func TestResolveParallelism(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		want int
	}{
		{map[string]string{}, 0},
		{map[string]string{"parallelism": "3"}, 3},
		{map[string]string{"parallelism": "3", "parallelism.default": "5"}, 5},
		{map[string]string{"parallelism.default": "5", "table.exec.resource.default-parallelism": "7"}, 7},
		{map[string]string{"parallelism.default": "5", "table.exec.resource.default-parallelism": "-1"}, 5},
		{map[string]string{"table.exec.resource.default-parallelism": "-1"}, 0},
	} {
		var v Values
		for k, x := range c.set {
			v.Set(k, x)
		}
		s, err := Resolve(v)
		if err != nil || s.Parallelism != c.want {
			t.Errorf("%v: parallelism %d, %v; want %d", c.set, s.Parallelism, err, c.want)
		}
	}
}

func TestValues(t *testing.T) {
	var v Values
	if v.Len() != 0 || len(v.Keys()) != 0 {
		t.Fatal("zero Values not empty")
	}
	v.Set("b", "1")
	v.Set("a", "2")
	v.Set("b", "3")
	c := v.Clone()
	v.Delete("a")
	if got := strings.Join(v.Keys(), ","); got != "b" {
		t.Errorf("keys %s, want b", got)
	}
	if x, ok := v.Get("b"); !ok || x != "3" {
		t.Errorf("b = %q, %v; want the later value 3", x, ok)
	}
	if got := strings.Join(c.Keys(), ","); got != "a,b" {
		t.Errorf("clone keys %s, want a,b (unchanged by the original's Delete)", got)
	}
}
