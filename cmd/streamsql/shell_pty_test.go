package main

// These tests drive a real `streamsql shell` through a pseudo-terminal
// (github.com/creack/pty): the test binary re-executes itself as the
// streamsql command (TestMain), the shell sees a terminal on stdin and
// stdout, and what it writes is fed into a small terminal emulator (vt
// below), so the assertions are on the screen a person would see. Every
// wait polls the screen for a condition with a generous deadline; nothing
// sleeps for a fixed time.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
)

// TestMain lets the test binary be the streamsql command: with
// STREAMSQL_TEST_MAIN=1 it runs the command on its arguments instead of the
// tests.
func TestMain(m *testing.M) {
	if os.Getenv("STREAMSQL_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// deadline bounds every wait on the screen. It is generous: a slow CI
// machine must not fail a correct shell.
const deadline = 60 * time.Second

// ptyShell is a shell running on a pseudo-terminal.
type ptyShell struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	scr  *vt
	done chan struct{} // closed when the process has exited
	eof  chan struct{} // closed when everything it wrote has been read
	err  error         // its exit error
	hist string        // the history file
}

const (
	ptyRows = 50
	ptyCols = 200
)

func startShell(t *testing.T, args ...string) *ptyShell {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], append([]string{"shell"}, args...)...)
	hist := filepath.Join(dir, "history")
	cmd.Env = append(os.Environ(), "STREAMSQL_TEST_MAIN=1", "STREAMSQL_HISTORY="+hist, "HOME="+dir, "TERM=xterm")
	cmd.Dir = dir
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: ptyRows, Cols: ptyCols})
	if err != nil {
		t.Fatalf("starting the shell on a pseudo-terminal: %v", err)
	}
	s := &ptyShell{t: t, cmd: cmd, tty: tty, scr: newVT(ptyRows, ptyCols), done: make(chan struct{}), eof: make(chan struct{}), hist: hist}
	go func() {
		defer close(s.eof)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.scr.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = cmd.Process.Kill()
			<-s.done
		}
		tty.Close()
		if t.Failed() {
			t.Logf("the screen, with scrollback:\n%s", s.scr.text())
		}
	})
	return s
}

func (s *ptyShell) send(keys string) {
	s.t.Helper()
	if _, err := s.tty.Write([]byte(keys)); err != nil {
		s.t.Fatalf("typing %q: %v", keys, err)
	}
}

// waitFor polls the screen until cond holds.
func (s *ptyShell) waitFor(what string, cond func() bool) {
	s.t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			s.t.Fatalf("waited %s for %s", deadline, what)
		}
		select {
		case <-s.done:
			select { // the screen gets the last of the output
			case <-s.eof:
			case <-time.After(deadline):
			}
			if !cond() {
				s.t.Fatalf("the shell exited (%v) while waiting for %s", s.err, what)
			}
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitText waits until text appears on a line at or after line from.
func (s *ptyShell) waitText(from int, text string) int {
	s.t.Helper()
	at := -1
	s.waitFor(fmt.Sprintf("%q", text), func() bool {
		at = s.scr.find(from, func(l string) bool { return strings.Contains(l, text) })
		return at >= 0
	})
	return at
}

// waitPrompt waits for the prompt p alone on the cursor's line, at or
// after line from, and returns that line.
func (s *ptyShell) waitPrompt(from int, p string) int {
	s.t.Helper()
	line := -1
	s.waitFor(fmt.Sprintf("the prompt %q", p), func() bool {
		row, l := s.scr.cursorLine()
		line = row
		return row >= from && l == strings.TrimRight(p, " ")
	})
	return line
}

// enter types one statement (lines separated by \n), a line at a time,
// waiting for the continuation prompt between lines, and returns the
// screen line where the statement starts.
func (s *ptyShell) enter(stmt string) int {
	s.t.Helper()
	lines := strings.Split(stmt, "\n")
	start := s.waitPrompt(0, promptFirst)
	for i, l := range lines {
		s.send(l + "\r")
		if i < len(lines)-1 {
			s.waitPrompt(start+i+1, promptMore)
		}
	}
	return start
}

func (s *ptyShell) waitExit() {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(deadline):
		s.t.Fatalf("the shell did not exit; the screen:\n%s", s.scr.text())
	}
	if s.err != nil {
		s.t.Fatalf("the shell exited with %v; the screen:\n%s", s.err, s.scr.text())
	}
}

// TestShellPty is the acceptance test, beyond the transcript of
// docs/shell.md (TestShellTranscript): a datagen table typed on several
// lines, a SELECT whose rows arrive with a status line, Ctrl-C back to the
// prompt, EXPLAIN, an INSERT job listed and stopped, the table result mode
// redrawn in place, an error with its caret, tab completion, Ctrl-C at the
// prompt, history, and Ctrl-D.
func TestShellPty(t *testing.T) {
	s := startShell(t)
	s.waitText(0, "interactive shell")

	at := s.enter(`CREATE TABLE gen (
  id BIGINT,
  amount INT
) WITH ('connector' = 'datagen', 'rows-per-second' = '20',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000',
  'fields.amount.min' = '1', 'fields.amount.max' = '99');`)
	s.waitText(at, "[INFO] Table gen created.")
	if l := s.scr.line(at + 1); l != promptMore+"  id BIGINT," {
		t.Errorf("continuation line = %q, want %q", l, promptMore+"  id BIGINT,")
	}

	// A continuous SELECT: rows arrive, the status line counts them.
	at = s.enter("SELECT id, amount FROM gen;")
	s.waitText(at, "| op |                   id |      amount |")
	s.waitText(at, "| +I |                    3 |")
	s.waitFor("the status line", func() bool {
		_, l := s.scr.cursorLine()
		return strings.HasPrefix(l, "-- ") && strings.Contains(l, "rows read, watermark -inf") && strings.HasSuffix(l, "Ctrl-C stops the query")
	})
	s.send("\x03")
	end := s.waitText(at, "Query stopped. Received a total of ")
	s.waitPrompt(end+1, promptFirst)

	// EXPLAIN.
	at = s.enter("EXPLAIN SELECT id FROM gen WHERE amount > 50;")
	s.waitText(at, "└── Filter amount > 50  mode=[+I]")
	s.waitText(at, "Scan gen (datagen)")

	// An INSERT runs as a background job; SHOW JOBS lists it; STOP JOB
	// stops it.
	at = s.enter("CREATE TABLE sink (id BIGINT, amount INT) WITH ('connector' = 'blackhole');")
	s.waitText(at, "[INFO] Table sink created.")
	at = s.enter("INSERT INTO sink SELECT id, amount FROM gen WHERE amount > 10;")
	s.waitText(at, "[INFO] Submitted job 1.")
	jobRow := regexp.MustCompile(`^\| 1  \| INSERT INTO sink SELECT id, amount FROM gen W... \| RUNNING +\| +(\d+) \| +(\d+) \| -inf +\|$`)
	var rowsIn int
	s.waitFor("the job to have read rows", func() bool {
		at = s.enter("SHOW JOBS;")
		s.waitText(at, "in set")
		i := s.scr.find(at, jobRow.MatchString)
		if i < 0 {
			t.Fatalf("SHOW JOBS lacks a RUNNING row for job 1:\n%s", s.scr.text())
		}
		rowsIn, _ = strconv.Atoi(jobRow.FindStringSubmatch(s.scr.line(i))[1])
		return rowsIn > 0
	})
	at = s.enter("STOP JOB '1';")
	s.waitText(at, "[INFO] Job 1 stopped.")
	at = s.enter("SHOW JOBS;")
	s.waitText(at, "| CANCELED |")
	s.waitText(at, "1 row in set")
	at = s.enter("STOP JOB '7';")
	s.waitText(at, "[ERROR] No job '7'. SHOW JOBS lists the jobs.")

	// The table mode: a materialised result, redrawn in place.
	at = s.enter("SET 'sql-client.execution.result-mode' = 'table';")
	s.waitText(at, "[INFO] Set 'sql-client.execution.result-mode' = 'table'.")
	at = s.enter("SELECT id % 2 AS odd, COUNT(*) AS n FROM gen GROUP BY id % 2;")
	countRow := regexp.MustCompile(`^\| +1 \| +(\d+) \|$`)
	s.waitFor("the count of odd ids to pass 3", func() bool {
		i := s.scr.find(at, countRow.MatchString)
		if i < 0 {
			return false
		}
		n, _ := strconv.Atoi(countRow.FindStringSubmatch(s.scr.line(i))[1])
		return n > 3
	})
	if n := s.scr.count(at, func(l string) bool { return strings.HasPrefix(l, "|                  odd |") }); n != 1 {
		t.Errorf("the table is drawn %d times on the screen; want once, redrawn in place", n)
	}
	if n := s.scr.count(at, countRow.MatchString); n != 1 {
		t.Errorf("%d rows for odd = 1; want one, updated in place", n)
	}
	s.send("\x03")
	end = s.waitText(at, "Query stopped. 2 rows in the result, from ")
	s.waitPrompt(end+1, promptFirst)

	// An error shows the line and a caret, as check does.
	at = s.enter("SELECT amout FROM gen;")
	s.waitText(at, "error: unknown column amout")
	caret := s.waitText(at, "| SELECT amout FROM gen;")
	if l := s.scr.line(caret + 1); l != "      |        ^^^^^" {
		t.Errorf("caret line = %q, want the caret under amout", l)
	}

	// Tab completes table names and keywords; Ctrl-C clears the line.
	start := s.waitPrompt(0, promptFirst)
	s.send("DESCRIBE ge\t")
	s.waitFor("DESCRIBE to complete the table name", func() bool { return s.scr.line(start) == promptFirst+"DESCRIBE gen" })
	s.send(";\r")
	s.waitText(start, "| amount | INT")
	s.waitText(start, "'connector' = 'datagen'")
	start = s.waitPrompt(start+1, promptFirst)
	s.send("SELECT nothing")
	s.waitFor("the typed text", func() bool { return s.scr.line(start) == promptFirst+"SELECT nothing" })
	s.send("\x03")
	s.waitPrompt(start+1, promptFirst)

	// Ctrl-D leaves; the statements are in the history file, whole.
	s.send("\x04")
	s.waitExit()
	b, err := os.ReadFile(s.hist)
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	for _, want := range []string{
		"CREATE TABLE gen ( id BIGINT, amount INT ) WITH ('connector' = 'datagen', 'rows-per-second' = '20',",
		"STOP JOB '1';",
		"DESCRIBE gen ;", // as completed, with its space
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the history file lacks %q:\n%s", want, b)
		}
	}
}

// TestShellInitFileThenInteractive runs `shell -f FILE`, then a statement
// on the terminal that uses the file's table.
func TestShellInitFileThenInteractive(t *testing.T) {
	init := writeJob(t, "init.sql", `CREATE TABLE nums (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '3');
`)
	s := startShell(t, "-f", init)
	s.waitText(0, "[INFO] Table nums created.")
	at := s.enter("SELECT n * 10 AS tens FROM nums;")
	s.waitText(at, "| +I |                   30 |")
	s.waitText(at, "Query finished. Received a total of 3 changes.")
	at = s.enter("QUIT;")
	s.waitText(at, "Bye.")
	s.waitExit()
}

// TestShellTranscript types every statement of the transcript in
// docs/shell.md into a real shell and checks that the screen shows what the
// transcript shows, line by line.
//
// The transcript is the ```console block of docs/shell.md. A line that
// starts with the prompt (or the continuation prompt) is typed; "^C" alone
// presses Ctrl-C; every other line must appear on the screen, in order,
// after the statement typed before it. In an expected line "..." stands for
// any text (values that change from run to run), and a line of "..." alone
// for any number of lines.
func TestShellTranscript(t *testing.T) {
	steps := transcript(t, "../../docs/shell.md")
	s := startShell(t)
	from := 0 // where the output of the last typed statement starts
	var pending []string
	for _, st := range steps {
		switch {
		case st.typed != "":
			pending = append(pending, st.typed)
			if !complete(strings.Join(pending, "\n")) && !shellWordRE.MatchString(pending[0]) {
				continue
			}
			from = s.enter(strings.Join(pending, "\n"))
			for i, l := range pending {
				p := promptFirst
				if i > 0 {
					p = promptMore
				}
				s.waitFor(fmt.Sprintf("the typed line %q", p+l), func() bool { return s.scr.line(from+i) == strings.TrimRight(p+l, " ") })
			}
			from += len(pending)
			pending = nil
		case st.ctrlC:
			s.send("\x03")
		case st.any:
		default:
			re := st.re
			at := -1
			s.waitFor(fmt.Sprintf("docs/shell.md:%d: %q", st.line, st.want), func() bool {
				at = s.scr.find(from, re.MatchString)
				if at < 0 {
					// The statement is done (the prompt is back) and the
					// line is not there: the transcript is wrong.
					if row, l := s.scr.cursorLine(); row > from && l == strings.TrimRight(promptFirst, " ") {
						t.Fatalf("docs/shell.md:%d: the screen lacks %q", st.line, st.want)
					}
				}
				return at >= 0
			})
			from = at + 1
		}
	}
	s.waitExit()
}

// step is one line of the transcript.
type step struct {
	line  int
	typed string // a statement line to type
	ctrlC bool
	any   bool // "..." alone
	want  string
	re    *regexp.Regexp
}

func transcript(t *testing.T, path string) []step {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []step
	in := false
	blocks := 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimRight(sc.Text(), " ")
		switch {
		case !in && l == "```console":
			in = true
			blocks++
			continue
		case in && l == "```":
			in = false
			continue
		case !in:
			continue
		}
		switch {
		case l == "$ streamsql shell":
		case strings.HasPrefix(l, strings.TrimRight(promptFirst, " ")):
			steps = append(steps, step{line: n, typed: strings.TrimPrefix(strings.TrimPrefix(l, strings.TrimRight(promptFirst, " ")), " ")})
		case strings.HasPrefix(l, promptMore):
			steps = append(steps, step{line: n, typed: strings.TrimPrefix(l, promptMore)})
		case l == "^C":
			steps = append(steps, step{line: n, ctrlC: true})
		case l == "...":
			steps = append(steps, step{line: n, any: true})
		case l == "":
		default:
			parts := strings.Split(l, "...")
			for i := range parts {
				parts[i] = regexp.QuoteMeta(parts[i])
			}
			steps = append(steps, step{line: n, want: l, re: regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if blocks != 1 || len(steps) < 10 {
		t.Fatalf("%s: want one ```console block with a session in it, found %d blocks, %d lines", path, blocks, len(steps))
	}
	return steps
}

// vt is a minimal terminal emulator: enough of VT100/xterm for readline and
// the shell (cursor movement, erasing, carriage return, line feed). It
// keeps every line that scrolled off, so tests can look at the whole
// session.
type vt struct {
	mu         sync.Mutex
	rows, cols int
	lines      [][]rune
	row, col   int // the cursor; row indexes lines
	pending    []byte
}

func newVT(rows, cols int) *vt { return &vt{rows: rows, cols: cols, lines: [][]rune{nil}} }

// top is the first line on the screen.
func (v *vt) top() int { return max(0, len(v.lines)-v.rows) }

func (v *vt) write(p []byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	data := append(v.pending, p...)
	v.pending = nil
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == 0x1b:
			n := v.escape(data[i:])
			if n == 0 { // incomplete: wait for more
				v.pending = append([]byte(nil), data[i:]...)
				return
			}
			i += n
			continue
		case c == '\r':
			v.col = 0
		case c == '\n':
			v.lineFeed()
		case c == '\b':
			v.col = max(v.col-1, 0)
		case c == '\t':
			v.col = min((v.col/8+1)*8, v.cols-1)
		case c < 0x20 || c == 0x7f:
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && !utf8.FullRune(data[i:]) {
				v.pending = append([]byte(nil), data[i:]...)
				return
			}
			v.put(r)
			i += size
			continue
		}
		i++
	}
}

func (v *vt) lineFeed() {
	v.row++
	for v.row >= len(v.lines) {
		v.lines = append(v.lines, nil)
	}
}

func (v *vt) put(r rune) {
	if v.col >= v.cols {
		v.col = 0
		v.lineFeed()
	}
	l := v.lines[v.row]
	for len(l) <= v.col {
		l = append(l, ' ')
	}
	l[v.col] = r
	v.lines[v.row] = l
	v.col++
}

var csiRE = regexp.MustCompile(`^\x1b\[([?>]?)([0-9;]*)([@-~])`)

// escape interprets the escape sequence at the start of b and returns its
// length, or 0 when it is incomplete.
func (v *vt) escape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	if b[1] != '[' {
		return 2 // ESC 7, ESC 8, ...: nothing the tests look at
	}
	m := csiRE.FindSubmatch(b)
	if m == nil {
		if len(b) < 16 {
			return 0
		}
		return 1
	}
	var ps []int
	for _, f := range strings.Split(string(m[2]), ";") {
		n, _ := strconv.Atoi(f)
		ps = append(ps, n)
	}
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] > 0 {
			return ps[i]
		}
		return def
	}
	if len(m[1]) > 0 {
		return len(m[0]) // private modes
	}
	switch m[3][0] {
	case 'A':
		v.row = max(v.row-arg(0, 1), v.top())
	case 'B':
		v.row = min(v.row+arg(0, 1), len(v.lines)-1)
	case 'C':
		v.col = min(v.col+arg(0, 1), v.cols-1)
	case 'D':
		v.col = max(v.col-arg(0, 1), 0)
	case 'G':
		v.col = min(arg(0, 1)-1, v.cols-1)
	case 'H', 'f':
		v.row = min(v.top()+arg(0, 1)-1, len(v.lines)-1)
		v.col = min(arg(1, 1)-1, v.cols-1)
	case 'K':
		l := v.lines[v.row]
		switch arg(0, 0) {
		case 0:
			if v.col < len(l) {
				v.lines[v.row] = l[:v.col]
			}
		case 1:
			for i := 0; i < min(v.col+1, len(l)); i++ {
				l[i] = ' '
			}
		case 2:
			v.lines[v.row] = nil
		}
	case 'J':
		switch arg(0, 0) {
		case 0:
			if l := v.lines[v.row]; v.col < len(l) {
				v.lines[v.row] = l[:v.col]
			}
			v.lines = v.lines[:v.row+1]
		case 2, 3:
			for i := v.top(); i < len(v.lines); i++ {
				v.lines[i] = nil
			}
		}
	}
	return len(m[0])
}

// line returns line i without trailing spaces.
func (v *vt) line(i int) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if i < 0 || i >= len(v.lines) {
		return ""
	}
	return strings.TrimRight(string(v.lines[i]), " ")
}

func (v *vt) cursorLine() (int, string) {
	v.mu.Lock()
	row := v.row
	v.mu.Unlock()
	return row, v.line(row)
}

// find returns the first line at or after from that matches, or -1.
func (v *vt) find(from int, match func(string) bool) int {
	v.mu.Lock()
	n := len(v.lines)
	v.mu.Unlock()
	for i := max(from, 0); i < n; i++ {
		if match(v.line(i)) {
			return i
		}
	}
	return -1
}

// count counts the lines at or after from that match.
func (v *vt) count(from int, match func(string) bool) int {
	n := 0
	for i := v.find(from, match); i >= 0; i = v.find(i+1, match) {
		n++
	}
	return n
}

// text is every line, numbered, for failure messages.
func (v *vt) text() string {
	v.mu.Lock()
	n := len(v.lines)
	v.mu.Unlock()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%4d| %s\n", i, v.line(i))
	}
	return b.String()
}
