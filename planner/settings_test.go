package planner

import (
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/settings"
)

// Each plan keeps the settings of its statement; RESET goes back to the
// settings the session started with (--set), as Flink's client goes back
// to its -D options, and RESET alone to all of them.
func TestSessionSettings(t *testing.T) {
	var base settings.Values
	base.Set("table.exec.state.ttl", "1 h")
	base.Set("parallelism", "2")
	src := diag.NewSource("job.sql", `
CREATE TABLE src (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = 't', 'properties.bootstrap.servers' = 'b:9092', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE snk (k STRING, v INT) WITH ('connector' = 'print');
INSERT INTO snk SELECT k, v FROM src;
SET 'table.exec.state.ttl' = '2 h';
SET 'parallelism' = '5';
SET 'state.memory-budget' = '64mb';
INSERT INTO snk SELECT k, v FROM src;
RESET 'table.exec.state.ttl';
RESET 'state.memory-budget';
INSERT INTO snk SELECT k, v FROM src;
RESET;
SET 'state.memory-budget' = 'lots';
INSERT INTO snk SELECT k, v FROM src;
`)
	f := parser.Parse(src)
	j := PlanFile(src, f.Stmts, &f.Diags, base)
	if n := j.Diags.Errors(); n != 1 || !strings.Contains(j.Diags.Items[len(j.Diags.Items)-1].Msg, "'lots'") {
		t.Fatalf("want the one error of 'lots', got %v", j.Diags.Err())
	}
	if len(j.Session.Plans) != 4 {
		t.Fatalf("%d plans, want 4", len(j.Session.Plans))
	}
	for i, want := range []struct {
		ttl    time.Duration
		par    int
		budget int64
	}{
		{time.Hour, 2, 1 << 30},
		{2 * time.Hour, 5, 64 << 20},
		{time.Hour, 5, 1 << 30},
		{time.Hour, 2, 1 << 30}, // RESET: back to --set; a bad value changes nothing
	} {
		p := j.Session.Plans[i]
		s := p.Settings
		if s.StateTTL != want.ttl || s.Parallelism != want.par || s.MemoryBudget != want.budget {
			t.Errorf("plan %d: ttl %v, parallelism %d, budget %d; want %v, %d, %d", i+1, s.StateTTL, s.Parallelism, s.MemoryBudget, want.ttl, want.par, want.budget)
		}
		// The planner reads the plan's own settings: the changelog
		// normalize of the upsert source expires keys after its TTL.
		cn := findNormalize(p.Root)
		if cn == nil || cn.TTL != want.ttl.Milliseconds() {
			t.Errorf("plan %d: normalize %+v, want TTL %v", i+1, cn, want.ttl)
		}
	}
	if got := j.Session.Values().Keys(); strings.Join(got, ",") != "parallelism,table.exec.state.ttl" {
		t.Errorf("values after RESET: %v, want the --set ones", got)
	}
}

func findNormalize(n logical.Node) *logical.ChangelogNormalize {
	if cn, ok := n.(*logical.ChangelogNormalize); ok {
		return cn
	}
	for _, c := range logical.Children(n) {
		if cn := findNormalize(c); cn != nil {
			return cn
		}
	}
	return nil
}
