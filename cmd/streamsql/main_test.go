package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cleanJob is a job without errors or warnings.
const cleanJob = `CREATE TABLE orders (
  order_id STRING,
  amount DECIMAL(15, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = 'localhost:9092',
  'format' = 'json'
);
SELECT order_id, amount FROM orders WHERE amount > 100;
`

// badJob has one syntax error: SELEC on line 12, column 1.
const badJob = `CREATE TABLE orders (
  order_id STRING,
  amount DECIMAL(15, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = 'localhost:9092',
  'format' = 'json'
);
SELEC order_id FROM orders;
`

// writeJob writes text to a file named name in a new temporary directory and
// returns its path.
func writeJob(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type result struct {
	code           int
	stdout, stderr string
}

func invoke(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

func TestCheckClean(t *testing.T) {
	path := writeJob(t, "clean.sql", cleanJob)
	r := invoke("check", path)
	if r.code != 0 {
		t.Fatalf("want exit 0 for a clean job, got:\n%s", r)
	}
	if r.stdout != "" {
		t.Errorf("want no diagnostics, got:\n%s", r.stdout)
	}
	if want := "check: 1 file, 0 errors, 0 warnings\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestCheckErrorText(t *testing.T) {
	path := writeJob(t, "bad.sql", badJob)
	r := invoke("check", path)
	if r.code != 1 {
		t.Fatalf("want exit 1 for a job with an error, got:\n%s", r)
	}
	first := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(path) + `:12:1: error: .*\[SQL\d+\]$`)
	if !first.MatchString(r.stdout) {
		t.Errorf("want a %s:12:1: error: line, got:\n%s", path, r.stdout)
	}
	if !strings.Contains(r.stdout, "   12 | SELEC order_id FROM orders;\n") {
		t.Errorf("want the offending source line, got:\n%s", r.stdout)
	}
	if !regexp.MustCompile(`(?m)^      \| \^+$`).MatchString(r.stdout) {
		t.Errorf("want a caret line under column 1, got:\n%s", r.stdout)
	}
	if want := "\ncheck: 1 file, 1 error, 0 warnings\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestCheckWarningsExitZero(t *testing.T) {
	path := writeJob(t, "warn.sql", "SET 'no.such.setting' = 'x';\n"+cleanJob)
	r := invoke("check", path)
	if r.code != 0 {
		t.Fatalf("want exit 0 for a job with only warnings, got:\n%s", r)
	}
	if !strings.HasPrefix(r.stdout, path+":1:5: warning:") {
		t.Errorf("want a warning at %s:1:5, got:\n%s", path, r.stdout)
	}
	if want := "\ncheck: 1 file, 0 errors, 1 warning\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestCheckSeveralFiles(t *testing.T) {
	clean := writeJob(t, "clean.sql", cleanJob)
	bad := writeJob(t, "bad.sql", badJob)
	r := invoke("check", clean, bad, clean)
	if r.code != 1 {
		t.Fatalf("want exit 1 when one file has an error, got:\n%s", r)
	}
	if want := "\ncheck: 3 files, 1 error, 0 warnings\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	if !strings.HasPrefix(r.stdout, bad+":12:1: error:") {
		t.Errorf("want the diagnostic to name %s, got:\n%s", bad, r.stdout)
	}
}

func TestCheckJSON(t *testing.T) {
	clean := writeJob(t, "clean.sql", cleanJob)
	bad := writeJob(t, "bad.sql", badJob)
	for _, args := range [][]string{
		{"check", "--format", "json", clean, bad},
		{"check", clean, bad, "--format=json"}, // flags may follow the files
	} {
		r := invoke(args...)
		if r.code != 1 {
			t.Fatalf("%q: want exit 1, got:\n%s", args, r)
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%q: stdout is not one JSON document: %v\n%s", args, err, r.stdout)
		}
		if len(got) != 1 {
			t.Fatalf("%q: want 1 diagnostic, got %d:\n%s", args, len(got), r.stdout)
		}
		d := got[0]
		for _, f := range []string{"file", "line", "column", "severity", "code", "message"} {
			if _, ok := d[f]; !ok {
				t.Errorf("%q: diagnostic has no field %q: %v", args, f, d)
			}
		}
		if d["file"] != bad || d["line"] != 12.0 || d["column"] != 1.0 || d["severity"] != "error" {
			t.Errorf("%q: want an error at %s:12:1, got %v", args, bad, d)
		}
		if code, _ := d["code"].(string); !regexp.MustCompile(`^SQL\d+$`).MatchString(code) {
			t.Errorf("%q: code = %v, want SQLnnn", args, d["code"])
		}
		if r.stderr != "" {
			t.Errorf("%q: json prints no summary, got stderr %q", args, r.stderr)
		}
	}

	// No diagnostics is still a JSON array, so consumers need no special case.
	r := invoke("check", "--format", "json", clean)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("want [] and exit 0 for a clean job, got:\n%s", r)
	}
}

func TestCheckGitHub(t *testing.T) {
	bad := writeJob(t, "bad.sql", badJob)
	r := invoke("check", "--format", "github", bad)
	if r.code != 1 {
		t.Fatalf("want exit 1, got:\n%s", r)
	}
	want := "::error file=" + ghEscape(bad) + ",line=12,col=1,"
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("want a line starting %q, got:\n%s", want, r.stdout)
	}
	if n := strings.Count(r.stdout, "\n"); n != 1 {
		t.Errorf("want one annotation line, got %d:\n%s", n, r.stdout)
	}
}

// ghEscape escapes a workflow command property as diag.WriteGitHub does (a
// temporary path on Windows has a colon).
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C").Replace(s)
}

func TestCheckMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.sql")
	r := invoke("check", missing)
	if r.code != 2 {
		t.Fatalf("want exit 2 for a missing file, got:\n%s", r)
	}
	if !strings.Contains(r.stderr, missing) {
		t.Errorf("want the error to name %s, got:\n%s", missing, r.stderr)
	}

	// The files that can be read are still checked, and I/O wins over errors.
	bad := writeJob(t, "bad.sql", badJob)
	r = invoke("check", missing, bad)
	if r.code != 2 {
		t.Fatalf("want exit 2 when one file is missing, got:\n%s", r)
	}
	if !strings.HasPrefix(r.stdout, bad+":12:1: error:") {
		t.Errorf("want the readable file checked, got:\n%s", r)
	}
}

func TestUsageErrors(t *testing.T) {
	clean := writeJob(t, "clean.sql", cleanJob)
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"check", "--frobnicate", clean}, "flag provided but not defined: -frobnicate"},
		{[]string{"check"}, "no files to check"},
		{[]string{"check", "--format", "xml", clean}, `invalid value "xml" for flag -format`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run"}, "no job file given"},
		{[]string{"run", clean, clean}, "one job file at a time"},
		{[]string{"run", "--set", "no-equals", clean}, "want key=value"},
		{[]string{"run", "--state-dir=", clean}, "--state-dir needs a directory"},
		{[]string{"explain"}, "no job file given"},
		{[]string{"shell", clean}, "shell takes no arguments"},
	} {
		r := invoke(tc.args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got:\n%s", tc.args, r)
			continue
		}
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: want stderr to contain %q, got:\n%s", tc.args, tc.want, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%q: want nothing on stdout, got:\n%s", tc.args, r.stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := invoke(args...)
		if r.code != 0 {
			t.Errorf("%q: want exit 0, got:\n%s", args, r)
		}
		for _, c := range commands {
			if !regexp.MustCompile(`(?m)^  ` + c.name + ` `).MatchString(r.stdout) {
				t.Errorf("%q: help does not list command %s:\n%s", args, c.name, r.stdout)
			}
		}
	}

	for _, c := range commands {
		for _, args := range [][]string{{c.name, "--help"}, {"help", c.name}} {
			r := invoke(args...)
			if r.code != 0 {
				t.Errorf("%q: want exit 0, got:\n%s", args, r)
			}
			if !strings.HasPrefix(r.stdout, "usage: streamsql "+c.name) {
				t.Errorf("%q: want the usage line first, got:\n%s", args, r.stdout)
			}
			if !strings.Contains(r.stdout, "Example") {
				t.Errorf("%q: help has no example:\n%s", args, r.stdout)
			}
		}
	}

	// Every flag a command defines is explained in its help.
	for _, c := range []struct {
		cmd   *command
		flags func(*flag.FlagSet)
	}{
		{checkCmd, func(fs *flag.FlagSet) { var f formatFlag; fs.Var(&f, "format", "") }},
		{runCmd, func(fs *flag.FlagSet) { fs.String("state-dir", "", ""); var s setFlag; fs.Var(&s, "set", "") }},
		{devCmd, func(fs *flag.FlagSet) {
			fs.String("listen", "", "")
			fs.String("topics", "", "")
			fs.String("tls", "", "")
			var l listFlag
			fs.Var(&l, "sasl", "")
			fs.Var(&l, "acl", "")
		}},
	} {
		fs := newFlagSet(c.cmd)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(c.cmd.help, "--"+f.Name) {
				t.Errorf("help for %s does not explain --%s", c.cmd.name, f.Name)
			}
		})
	}

	check := invoke("check", "--help").stdout
	for _, want := range []string{"streamsql check examples/*.sql", "::error file=", "text", "json", "github", "  0 ", "  1 ", "  2 "} {
		if !strings.Contains(check, want) {
			t.Errorf("check help does not mention %q:\n%s", want, check)
		}
	}
}

func TestVersion(t *testing.T) {
	r := invoke("--version")
	if r.code != 0 || r.stdout != "streamsql "+version+"\n" {
		t.Errorf("want %q and exit 0, got:\n%s", "streamsql "+version, r)
	}
}

func TestNotAvailableYet(t *testing.T) {
	clean := writeJob(t, "clean.sql", cleanJob)
	bad := writeJob(t, "bad.sql", badJob)
	// A clean Kafka job with no broker at its address fails, naming the
	// table and the broker.
	if r := invoke("run", clean); r.code != 1 || !strings.Contains(r.stderr, "kafka: table orders") {
		t.Errorf("run of a Kafka job without a broker: want exit 1 naming the table and the broker, got:\n%s", r)
	}

	// A job with errors fails with its diagnostics before "not available".
	for _, name := range []string{"run", "explain"} {
		r := invoke(name, bad)
		if name == "explain" {
			// explain prints the plans it could make; the errors still fail it.
			if r.code != 1 || !strings.Contains(r.stderr, bad+":12:1: error:") {
				t.Errorf("explain: want exit 1 and the diagnostics, got:\n%s", r)
			}
			continue
		}
		if r.code != 1 {
			t.Errorf("%s: want exit 1 for a job with errors, got:\n%s", name, r)
			continue
		}
		if !strings.Contains(r.stderr, bad+":12:1: error:") || strings.Contains(r.stderr, "not available") {
			t.Errorf("%s: want the diagnostics and no 'not available', got:\n%s", name, r)
		}
	}
	if r := invoke("run", filepath.Join(t.TempDir(), "missing.sql")); r.code != 2 {
		t.Errorf("run: want exit 2 for a missing file, got:\n%s", r)
	}
}

// TestBinaryChecksAcceptance builds the real binary and checks the
// acceptance corpus from the repository root, as a user would.
func TestBinaryChecksAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	bin := filepath.Join(t.TempDir(), "streamsql")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "check", "testdata/acceptance.sql")
	cmd.Dir = filepath.Join("..", "..")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		t.Fatalf("streamsql check testdata/acceptance.sql: exit %d, want 0\n--- stdout:\n%s--- stderr:\n%s", exitErr.ExitCode(), stdout.String(), stderr.String())
	case err != nil:
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.TrimLeft(stderr.String(), "\n"), "check: 1 file, 0 errors") {
		t.Errorf("want the summary on stderr, got:\n%s", stderr.String())
	}
}

// TestCheckSummaryOnItsOwnLine: the summary (stderr) never continues the
// last diagnostic line (stdout), even where the two streams are joined
// without stdout's last newline, as a CI log or a tool capturing both may
// do (issue #19.5: `…finds nothing)check: 1 file, …` after a hint).
func TestCheckSummaryOnItsOwnLine(t *testing.T) {
	for name, job := range map[string]string{
		"caret": badJob,
		"hint":  strings.Replace(cleanJob, "order_time AS order_time", "order_tme AS order_tme", 1),
	} {
		path := writeJob(t, name+".sql", job)
		r := invoke("check", path)
		if r.code != 1 || r.stdout == "" {
			t.Fatalf("%s: want exit 1 with diagnostics, got:\n%s", name, r)
		}
		joined := strings.TrimSuffix(r.stdout, "\n") + r.stderr
		if !regexp.MustCompile(`(?m)^check: 1 file, `).MatchString(joined) {
			t.Errorf("%s: the summary does not start a line of its own:\n%s", name, joined)
		}
	}
}
