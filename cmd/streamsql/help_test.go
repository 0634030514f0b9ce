package main

import (
	"bufio"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helpExample is one command line from an Examples section of the help,
// with the output the help shows under it, if any.
type helpExample struct {
	where  string // "streamsql --help", "streamsql help run", ...
	line   string // as printed, without the leading indentation
	output []string
}

// helpExamples collects the examples of the top-level usage and of every
// command's help: the indented lines under a line that starts with
// "Example", up to the next unindented line. A line that starts with
// "streamsql " or "cd " is a command; the lines after it, up to the next
// command, are the output it shows ("..." ends a shortened output).
func helpExamples() []helpExample {
	texts := map[string]string{"streamsql --help": usage()}
	for _, c := range commands {
		texts["streamsql help "+c.name] = c.help
	}
	var out []helpExample
	for where, text := range texts {
		in := false
		for _, l := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(l, "Example"):
				in = true
				continue
			case l != "" && !strings.HasPrefix(l, " "):
				in = false
			}
			if !in {
				continue
			}
			body := strings.TrimPrefix(l, "  ")
			if strings.HasPrefix(body, "streamsql ") || strings.HasPrefix(body, "cd ") {
				out = append(out, helpExample{where: where, line: body})
				continue
			}
			if len(out) > 0 && out[len(out)-1].where == where && (body != "" || len(out[len(out)-1].output) > 0) {
				out[len(out)-1].output = append(out[len(out)-1].output, body)
			}
		}
	}
	return out
}

// TestHelpExamplesRun runs every example of every help text as written,
// from a copy of the repository's examples/ (the examples say they run from
// the repository's root), and requires exit status 0. An example that shows
// output must print exactly those lines first. `dev kafka` examples run
// until the broker says it listens (on a free port instead of the one
// written, which may be taken), then are stopped with Ctrl-C and must exit 0.
func TestHelpExamplesRun(t *testing.T) {
	examples := helpExamples()
	if len(examples) < 10 {
		t.Fatalf("found only %d help examples; the collector is broken", len(examples))
	}
	bin := buildBinary(t)
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "examples"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex.where+": "+ex.line, func(t *testing.T) {
			dir, args, stdin := parseExample(t, root, ex.line)
			if len(args) >= 2 && args[0] == "dev" && args[1] == "kafka" {
				runDevExample(t, bin, dir, args)
				return
			}
			cmd := osexec.Command(bin, args...)
			cmd.Dir = dir
			if stdin != "" {
				f, err := os.Open(stdin)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n--- stdout:\n%s--- stderr:\n%s", ex.line, err, stdout.String(), stderr.String())
			}
			if len(ex.output) == 0 {
				return
			}
			want := ex.output
			for i, l := range want {
				if l == "..." {
					want = want[:i]
					break
				}
			}
			for len(want) > 0 && want[len(want)-1] == "" {
				want = want[:len(want)-1]
			}
			got := strings.Split(stdout.String(), "\n")
			if len(got) < len(want) || strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: the help shows\n%s\nbut it prints\n%s", ex.line, strings.Join(want, "\n"), stdout.String())
			}
		})
	}
}

// parseExample splits an example into the directory it runs in (root, or
// root/DIR after "cd DIR &&"), the arguments after "streamsql" (globs
// expanded), and the file its standard input is redirected from. A trailing
// "# comment" is dropped.
func parseExample(t *testing.T, root, line string) (dir string, args []string, stdin string) {
	t.Helper()
	dir = root
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if rest, ok := strings.CutPrefix(line, "cd "); ok {
		d, cmd, ok := strings.Cut(rest, " && ")
		if !ok {
			t.Fatalf("%q: want 'cd DIR && streamsql ...'", line)
		}
		dir = filepath.Join(root, d)
		line = cmd
	}
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "streamsql" {
		t.Fatalf("%q: an example must run streamsql", line)
	}
	for i := 1; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "<" && i+1 < len(fields):
			stdin = filepath.Join(dir, fields[i+1])
			i++
		case strings.ContainsAny(f, "|>;&"):
			t.Fatalf("%q: the test runs plain commands (with '< FILE' and 'cd DIR &&' only)", line)
		case strings.Contains(f, "*"):
			m, err := filepath.Glob(filepath.Join(dir, f))
			if err != nil || len(m) == 0 {
				t.Fatalf("%q: %s matches no file", line, f)
			}
			for _, p := range m {
				rel, _ := filepath.Rel(dir, p)
				args = append(args, rel)
			}
		default:
			args = append(args, f)
		}
	}
	return dir, args, stdin
}

// runDevExample starts a `dev kafka` example on a free port, waits for its
// listening line and stops it with SIGINT.
func runDevExample(t *testing.T, bin, dir string, args []string) {
	t.Helper()
	listen := false
	for i := range args {
		if args[i] == "--listen" && i+1 < len(args) {
			args[i+1] = "127.0.0.1:0"
			listen = true
		}
	}
	if !listen {
		args = append(args, "--listen", "127.0.0.1:0")
	}
	cmd := osexec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			first <- sc.Text()
		}
		close(first)
		for sc.Scan() {
		}
	}()
	select {
	case l := <-first:
		if !strings.Contains(l, "listening on 127.0.0.1:") {
			t.Errorf("first line %q, want the listening address", l)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no listening line within 30s; stderr:\n%s", stderr.String())
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after Ctrl-C: %v\n%s", err, stderr.String())
	}
}

// TestDevKafkaStopsWithItsParent starts the broker the way `go run … &`
// does (from a parent process that then goes away) and requires it to stop
// and free its port: `kill` of go run used to leave it running.
func TestDevKafkaStopsWithItsParent(t *testing.T) {
	bin := buildBinary(t)
	log := filepath.Join(t.TempDir(), "dev.log")
	// The parent waits for the listening line, prints the broker's address
	// and exits, leaving the broker without its parent.
	script := `"$0" dev kafka --listen 127.0.0.1:0 >"$1" 2>&1 &
while ! grep -q 'listening on' "$1"; do sleep 0.05; done
sed -n 's/.*listening on //p' "$1"`
	out, err := osexec.Command("sh", "-c", script, bin, log).Output()
	if err != nil {
		t.Fatalf("parent: %v", err)
	}
	addr := strings.TrimSpace(string(out))
	if addr == "" {
		t.Fatal("no address")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		if strings.Contains(string(b), "dev kafka: stopped") {
			if !strings.Contains(string(b), "the process that started it has exited") {
				t.Errorf("the broker stopped without saying why:\n%s", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the broker at %s still runs 30s after its parent exited:\n%s", addr, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Its port is free again.
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("%s still accepts connections after the broker said it stopped", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestShellFileAndRunAgree: `shell -f FILE` and `run FILE` resolve the
// job's relative paths against FILE's directory, from whatever directory
// they are started, so both read the bundled data and write the same
// exceptions file.
func TestShellFileAndRunAgree(t *testing.T) {
	outputs := map[string]string{}
	for _, mode := range []string{"run", "shell -f"} {
		dir := copyExample(t)
		job := filepath.Join(dir, "payments.sql")
		var r result
		if mode == "run" {
			r = invoke("run", job)
		} else {
			r = invokeShell(t, "", "-f", job)
		}
		if r.code != 0 {
			t.Fatalf("%s: %s", mode, r)
		}
		b, err := os.ReadFile(filepath.Join(dir, "out", "unsettled_orders.json"))
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if !strings.Contains(string(b), `"order_id":"O3"`) {
			t.Errorf("%s wrote %q, want O3's row", mode, b)
		}
		outputs[mode] = string(b)
	}
	if outputs["run"] != outputs["shell -f"] {
		t.Errorf("run wrote %q, shell -f wrote %q", outputs["run"], outputs["shell -f"])
	}
}
