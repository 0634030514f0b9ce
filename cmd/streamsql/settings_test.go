package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/settings"
)

// settingsJob sets every setting a job's runtime reads, then aggregates
// by key, so that its GroupAggregate runs in 'parallelism' partitions.
const settingsJob = `SET 'parallelism' = '3';
SET 'state.memory-budget' = '64mb';
SET 'table.exec.state.ttl' = '1 h';
SET 'table.exec.watermark.drift-warning' = '5 min';
SET 'table.exec.source.future-time-warning' = '2 d';
SET 'table.exec.source.idle-timeout' = '30 s';
CREATE TABLE nums (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '20',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '20');
CREATE TABLE counts (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO counts SELECT n % 4, COUNT(*) FROM nums GROUP BY n % 4;
`

// builtJob is what one command built: its options and the number of
// partitions of its group aggregate.
type builtJob struct {
	opts  exec.Options
	parts int
}

// captureBuilds records every job built while f runs.
func captureBuilds(t *testing.T, f func()) []builtJob {
	t.Helper()
	var mu sync.Mutex
	var got []builtJob
	built = func(o exec.Options, j *exec.Job) {
		b := builtJob{opts: o}
		for _, c := range j.Operators {
			if strings.HasPrefix(c.Name, "GroupAggregate") {
				b.parts++
			}
		}
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
	}
	defer func() { built = nil }()
	f()
	mu.Lock()
	defer mu.Unlock()
	return got
}

// The shell gives a job every setting as run does: `run FILE`,
// `shell -f FILE` and the same statements typed into the shell build the
// job with the same settings and parallelism (three partitions of the
// aggregate, not the number of cores).
func TestShellAndRunPassEverySetting(t *testing.T) {
	want := settings.Defaults()
	want.Parallelism = 3
	want.MemoryBudget = 64 << 20
	want.StateTTL, want.StateTTLText = time.Hour, "1 h"
	want.DriftWarning = 5 * time.Minute
	want.FutureTimeWarning = 48 * time.Hour
	want.IdleTimeout = 30 * time.Second
	job := writeJob(t, "settings.sql", settingsJob)
	for _, mode := range []string{"run", "shell -f", "shell (typed)"} {
		var r result
		got := captureBuilds(t, func() {
			switch mode {
			case "run":
				r = invoke("run", job)
			case "shell -f":
				r = invokeShell(t, "", "-f", job)
			default:
				r = invokeShell(t, settingsJob)
			}
		})
		if r.code != 0 {
			t.Fatalf("%s: %s", mode, r)
		}
		if len(got) != 1 {
			t.Fatalf("%s built %d jobs, want 1", mode, len(got))
		}
		b := got[0]
		if b.opts.Settings != want {
			t.Errorf("%s: settings\n%+v\nwant\n%+v", mode, b.opts.Settings, want)
		}
		if b.opts.Parallelism != 3 || b.parts != 3 {
			t.Errorf("%s: parallelism %d, %d partitions of the aggregate; want 3 and 3", mode, b.opts.Parallelism, b.parts)
		}
	}
}

// --set gives the session's starting settings in run and the shell alike;
// the file's own SET overrides it, and RESET goes back to it (as Flink's
// client goes back to its -D options), not to the default.
func TestSetFlagAndReset(t *testing.T) {
	job := strings.Replace(settingsJob, "SET 'parallelism' = '3';\n", "", 1)
	path := writeJob(t, "noparallelism.sql", job)
	reset := writeJob(t, "reset.sql", "RESET 'parallelism';\nRESET 'state.memory-budget';\n"+settingsJob[len("SET 'parallelism' = '3';\n"):])
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		parts int
	}{
		{"run --set", []string{"run", "--set", "parallelism=2", path}, "", 2},
		{"shell --set -f", []string{"shell", "--set", "parallelism=2", "-f", path}, "", 2},
		{"shell --set typed", []string{"shell", "--set", "parallelism=2"}, job, 2},
		{"the file's SET wins", []string{"run", "--set", "parallelism=2", writeJob(t, "p3.sql", settingsJob)}, "", 3},
		{"RESET goes back to --set", []string{"run", "--set", "parallelism=2", reset}, "", 2},
	} {
		var r result
		got := captureBuilds(t, func() {
			if c.args[0] == "shell" {
				r = invokeShell(t, c.stdin, c.args[1:]...)
			} else {
				r = invoke(c.args...)
			}
		})
		if r.code != 0 || len(got) != 1 {
			t.Fatalf("%s: %d jobs built; %s", c.name, len(got), r)
		}
		if got[0].parts != c.parts || got[0].opts.Settings.Parallelism != c.parts {
			t.Errorf("%s: %d partitions, parallelism %d; want %d", c.name, got[0].parts, got[0].opts.Settings.Parallelism, c.parts)
		}
	}
}

// A bad --set value is refused where it is written, with the key, the
// value, what is accepted and the code, by every command that takes it.
func TestSetFlagRefused(t *testing.T) {
	job := writeJob(t, "ok.sql", settingsJob)
	const want = `--set:1:21: error: invalid value 'lots' for 'state.memory-budget': expected a memory size greater than 0`
	for _, args := range [][]string{
		{"run", "--set", "state.memory-budget=lots", job},
		{"explain", "--set", "state.memory-budget=lots", job},
		{"shell", "--set", "state.memory-budget=lots"},
	} {
		r := invoke(args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "[SQL311]") ||
			!strings.Contains(r.stderr, "    1 | state.memory-budget=lots\n      |                     ^^^^\n") {
			t.Errorf("%s: want exit 2 and\n%s ... [SQL311] with the value underlined; got %s", args[0], want, r)
		}
	}
	// check reports it with the files' diagnostics (and in JSON too).
	r := invoke("check", "--set", "state.memory-budget=lots", "--set", "table.exec.state.tl=1h", job)
	if r.code != exitError || !strings.Contains(r.stdout, want) ||
		!strings.Contains(r.stdout, "--set:1:1: warning: unknown configuration key 'table.exec.state.tl' is ignored [SQL310]") ||
		!strings.Contains(r.stdout, "hint: did you mean 'table.exec.state.ttl'?") {
		t.Errorf("check: want exit 1 with the error and the warning at their flags; got %s", r)
	}
	r = invoke("check", "--format", "json", "--set", "parallelism=0", job)
	if r.code != exitError || !strings.Contains(r.stdout, `"file": "--set"`) || !strings.Contains(r.stdout, `"code": "SQL311"`) {
		t.Errorf("check --format json: want the --set error in the JSON; got %s", r)
	}
}
