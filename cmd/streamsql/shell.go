package main

// The interactive shell: `streamsql shell`. This file holds the command, the
// input loop (prompts, multi-line statements, history) and the dispatch of
// statements; shell_jobs.go runs SELECTs and background INSERT jobs,
// shell_view.go draws results, shell_complete.go completes names.
//
// One planner.Session lives for the whole shell. Every input is appended to
// one session text, and each statement is parsed at its offset in that text
// (earlier inputs blanked out, so they are not parsed again). A diagnostic
// can therefore point at anything typed before — the "first defined here"
// of a table created ten statements ago — and print it with its line and a
// caret, as `streamsql check` does; line numbers count from the start of the
// session.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chzyer/readline"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/metrics"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/secret"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/web"
)

var shellCmd = &command{
	name:    "shell",
	summary: "interactive SQL: build tables, watch queries, run jobs",
	help: `usage: streamsql shell [-f FILE.sql] [--http ADDR] [--set key=value]...

Shell reads SQL statements interactively. CREATE TABLE and CREATE VIEW build
up a catalog that lasts for the session; a SELECT runs continuously and shows
its result as it changes; INSERT INTO submits a background job.

A statement ends with ';' and may span lines (the prompt turns into '->').
Tab completes keywords, table and column names; history is kept in
~/.streamsql_history ($STREAMSQL_HISTORY overrides it); Ctrl-C stops the
running query, or clears the line; Ctrl-D or QUIT leaves.

Shell statements, besides the SQL of 'streamsql check':
  SHOW TABLES | VIEWS | FUNCTIONS | JOBS   list them
  DESCRIBE t                               columns, watermark, key, options
  EXPLAIN stmt                             the plan, as 'streamsql explain'
  SET                                      list the settings
  SET 'key' = 'value' / RESET ['key']      change them
  STOP JOB 'id'                            stop a background job
  HELP, QUIT (or EXIT)

SET 'sql-client.execution.result-mode' picks how a SELECT is shown:
  tableau    rows scroll by, each with its change kind (the default)
  changelog  one compact line per change: op, then the values
  table      the materialised result, redrawn in place as it changes

Flags:
  -f FILE.sql       run the statements of FILE.sql first, then read more
  --http ADDR       serve Prometheus metrics at /metrics and a web UI at / on
                    ADDR (HOST:PORT, or PORT alone for 127.0.0.1:PORT),
                    showing every background job and the running query; SET
                    'rest.address' or 'rest.port' starts it at the next job
  --set key=value   a configuration setting the session starts with, as in
                    'streamsql run' (RESET goes back to it); repeatable

Jobs the shell starts get every setting as 'streamsql run' gives them: the
settings in effect at their statement ('parallelism' and the rest).

When standard input is not a terminal, shell runs the statements it reads
and exits when they are done: a SELECT runs until its bounded sources end (a
SELECT over an unbounded table, such as datagen with 'rows-per-second' only,
runs until interrupted), and background jobs are waited for. It stops at the
first statement with an error and exits 1.

Exit status:
  0  the session ended normally
  1  a statement had errors or a job failed (non-interactive input)
  2  usage error, or FILE.sql could not be read

Relative paths in tables ('path', 'scan.late-rows.path') are taken relative
to the directory of the file given with -f, as 'streamsql run FILE.sql' takes
them, so 'shell -f FILE.sql' and 'run FILE.sql' read and write the same files.
Statements typed or piped on standard input have no file: their paths are
relative to the current directory (cd to the job's directory first).

Examples (from the repository's root):
  streamsql shell
  streamsql shell -f examples/payments.sql
  cd examples && streamsql shell < payments.sql
`,
	run: runShell,
}

// shellStdin is where the shell reads; tests replace it.
var shellStdin io.Reader = os.Stdin

// Prompts. The continuation prompt is as wide as the first, so that
// multi-line statements line up.
const (
	promptFirst = "streamsql> "
	promptMore  = "        -> "
)

func runShell(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	file := fs.String("f", "", "a file of statements to run first")
	httpAddr := fs.String("http", "", "serve metrics and the web UI at `HOST:PORT`")
	var sets setFlag
	fs.Var(&sets, "set", "configuration `key=value`; repeatable")
	pos, exit, done := parseArgs(c, fs, args, stdout, stderr)
	if done {
		return exit
	}
	base, ok := checkSetFlags(c, sets, stderr)
	if !ok {
		return exitUsage
	}
	if len(pos) > 0 {
		return usageError(c, stderr, "shell takes no arguments (use -f FILE.sql to run a file first)")
	}
	if *file == "" && given(fs, "f") {
		return usageError(c, stderr, "-f needs a file")
	}
	if *httpAddr == "" && given(fs, "http") {
		return usageError(c, stderr, "--http needs an address, such as 127.0.0.1:8081")
	}
	addr, err := web.Address(*httpAddr, settings.Defaults())
	if err != nil {
		return usageError(c, stderr, err.Error())
	}
	var init []byte
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			fmt.Fprintf(stderr, "streamsql shell: %v\n", err)
			return exitUsage
		}
		init = b
	}
	sh := newShell(stdout, stderr)
	sh.sess = planner.NewSessionWith(base)
	defer sh.close()
	if addr != "" && !sh.serve(addr) {
		return exitError
	}
	if f, ok := shellStdin.(*os.File); ok && readline.IsTerminal(int(f.Fd())) {
		sh.interactive = true
	}
	if *file != "" {
		sh.baseDir = filepath.Dir(*file)
		if !sh.execText(*file, string(init)) && !sh.interactive {
			return exitError
		}
	}
	if sh.interactive {
		if err := sh.interact(); err != nil {
			fmt.Fprintf(stderr, "streamsql shell: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	sh.batch(shellStdin)
	if sh.failed.Load() {
		return exitError
	}
	return exitOK
}

// shell is one session.
type shell struct {
	sess        *planner.Session
	text        strings.Builder // every input so far: the session's text
	interactive bool
	baseDir     string
	stdout      io.Writer // results (the terminal, or stdout when piped)
	stderr      io.Writer // diagnostics
	// async is where output that arrives while the prompt may be showing
	// goes (print sinks and messages of background jobs): readline redraws
	// the prompt under it.
	async io.Writer
	rl    *readline.Instance

	jobs    jobList
	fg      atomic.Pointer[context.CancelFunc] // the running SELECT
	sigs    chan os.Signal
	failed  atomic.Bool // a statement or job failed (the exit status when piped)
	closing sync.Once

	// watched are the jobs the web UI and /metrics show; srv serves them
	// (nil until --http or 'rest.address'/'rest.port' asks for it).
	watched metrics.Registry
	srv     *web.Server
	queries int // SELECTs run so far
}

func newShell(stdout, stderr io.Writer) *shell {
	// Jobs write to stdout (print sinks) while the shell does.
	out := &lockedOut{w: stdout}
	sh := &shell{sess: planner.NewSession(), stdout: out, async: out, stderr: &lockedOut{w: stderr}, baseDir: "."}
	sh.sigs = make(chan os.Signal, 4)
	signal.Notify(sh.sigs, os.Interrupt)
	go sh.interrupts()
	return sh
}

// interrupts turns Ctrl-C into stopping the running query. With none
// running, a non-interactive shell stops its background jobs (it is
// waiting for them); an interactive one ignores it (at the prompt,
// readline reads Ctrl-C itself and clears the line).
func (sh *shell) interrupts() {
	for range sh.sigs {
		if c := sh.fg.Load(); c != nil {
			(*c)()
			continue
		}
		if !sh.interactive {
			sh.jobs.stopAll()
		}
	}
}

func (sh *shell) close() {
	sh.closing.Do(func() {
		signal.Stop(sh.sigs)
		close(sh.sigs)
		if n := sh.jobs.stopAll(); n > 0 && sh.interactive {
			fmt.Fprintf(sh.stdout, "[INFO] Stopped %s.\n", plural(n, "running job"))
		}
		if sh.rl != nil {
			_ = sh.rl.Close()
		}
		if sh.srv != nil {
			_ = sh.srv.Close()
		}
	})
}

// serve starts the web UI and /metrics at addr; false when it cannot.
func (sh *shell) serve(addr string) bool {
	srv, err := web.Start(addr, &sh.watched, web.Options{})
	if err != nil {
		fmt.Fprintf(sh.stderr, "[ERROR] %v\n", err)
		return false
	}
	sh.srv = srv
	fmt.Fprintf(sh.stdout, "[INFO] Web UI at %s, Prometheus metrics at %smetrics\n", srv.URL(), srv.URL())
	return true
}

// watch shows a job in the web UI and /metrics, starting the server when
// the session's 'rest.address' or 'rest.port' asks for one. id is the
// job's id in SHOW JOBS; "" for a SELECT, which gets query-1, query-2, ….
func (sh *shell) watch(id string, job *exec.Job, plans []*planner.Plan, stmt string) *metrics.Job {
	if sh.srv == nil {
		addr, err := web.Address("", sh.sess.Settings)
		if err != nil {
			fmt.Fprintf(sh.stderr, "[ERROR] %v\n", err)
		} else if addr != "" {
			sh.serve(addr)
		}
	}
	if id == "" {
		sh.queries++
		id = "query-" + strconv.Itoa(sh.queries)
	}
	w := &metrics.Job{ID: id, Name: shorten(strings.Join(strings.Fields(stmt), " "), 80), Exec: job, Statements: []string{stmt},
		Graph: jobGraph(plans)}
	if n := sh.sess.Settings.PipelineName; n != "" {
		w.Name = n
	}
	w.Plans = planTexts(plans)
	sh.watched.Add(w)
	return w
}

// historyPath is $STREAMSQL_HISTORY, or ~/.streamsql_history.
func historyPath() string {
	if p, ok := os.LookupEnv("STREAMSQL_HISTORY"); ok {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".streamsql_history")
}

const banner = `streamsql %s interactive shell. End statements with ';'.
Type HELP; for help, QUIT; or Ctrl-D to leave.

`

// interact is the interactive loop on a terminal.
func (sh *shell) interact() error {
	in, _ := shellStdin.(*os.File)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 promptFirst,
		HistoryFile:            historyPath(),
		DisableAutoSaveHistory: true, // a statement is saved once, whole
		AutoComplete:           &completer{sess: sh.sess},
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		Stdin:                  io.NopCloser(in),
		Stdout:                 sh.stdout,
		Stderr:                 sh.stderr,
		HistorySearchFold:      true,
	})
	if err != nil {
		return err
	}
	sh.rl = rl
	sh.async = rl.Stdout()
	fmt.Fprintf(sh.stdout, banner, version)
	var buf []string
	for {
		if len(buf) == 0 {
			rl.SetPrompt(promptFirst)
		} else {
			rl.SetPrompt(promptMore)
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf = buf[:0]
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			fmt.Fprintln(sh.stdout)
			sh.bye()
			return nil
		}
		if len(buf) == 0 {
			if word, ok := shellWord(line); ok {
				_ = rl.SaveHistory(strings.TrimSpace(line))
				if !sh.shellCommand(word) {
					return nil
				}
				continue
			}
			if strings.TrimSpace(line) == "" {
				continue
			}
		}
		buf = append(buf, line)
		text := strings.Join(buf, "\n")
		if !complete(text) {
			continue
		}
		buf = buf[:0]
		if len(secret.Ranges(text)) == 0 {
			// A statement that holds a secret is not saved: the history
			// file would keep it in plain text.
			_ = rl.SaveHistory(oneLine(text))
		}
		if !sh.execText("<shell>", text) {
			continue
		}
	}
}

// batch runs the statements read from r (not a terminal), then waits for
// the background jobs.
func (sh *shell) batch(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var buf []string
	for sc.Scan() {
		line := sc.Text()
		if len(buf) == 0 {
			if word, ok := shellWord(line); ok {
				if !sh.shellCommand(word) {
					return
				}
				continue
			}
		}
		buf = append(buf, line)
		text := strings.Join(buf, "\n")
		if !complete(text) {
			continue
		}
		buf = buf[:0]
		if !sh.execText("<stdin>", text) {
			return
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(sh.stderr, "streamsql shell: reading input: %v\n", err)
		sh.failed.Store(true)
		return
	}
	if text := strings.Join(buf, "\n"); strings.TrimSpace(stripComments(text)) != "" {
		// The last statement may end without ';'.
		if !sh.execText("<stdin>", text) {
			return
		}
	}
	sh.jobs.waitAll(sh.stderr)
}

var shellWordRE = regexp.MustCompile(`(?i)^\s*(help|quit|exit|\?)\s*;?\s*$`)

// shellWord recognises the shell's own one-word commands, which need no
// ';'.
func shellWord(line string) (string, bool) {
	m := shellWordRE.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return strings.ToUpper(m[1]), true
}

// shellCommand runs HELP or QUIT; it returns false to leave the shell.
func (sh *shell) shellCommand(word string) bool {
	switch word {
	case "QUIT", "EXIT":
		sh.bye()
		return false
	default:
		fmt.Fprint(sh.stdout, shellHelp)
		return true
	}
}

func (sh *shell) bye() {
	sh.close()
	if sh.interactive {
		fmt.Fprintln(sh.stdout, "Bye.")
	}
}

const shellHelp = `Statements end with ';' and may span lines.

  CREATE TABLE t (...) WITH (...);         declare a table (CREATE VIEW, DROP too)
  SELECT ...;                              run a query and watch its result; Ctrl-C stops it
  INSERT INTO t SELECT ...;                submit a background job
  SHOW JOBS;   STOP JOB 'id';              list the jobs, stop one
  SHOW TABLES;  SHOW VIEWS;  SHOW FUNCTIONS;
  DESCRIBE t;                              columns, watermark, primary key, connector options
  EXPLAIN SELECT ...;                      the plan: changelog modes, keys, state
  SET;  SET 'key' = 'value';  RESET;       settings
  SET 'sql-client.execution.result-mode' = 'table';   or 'changelog', 'tableau' (default)
  HELP   QUIT   (Ctrl-D quits too)

Tab completes keywords, tables and columns. docs/shell.md has a walk-through.
`

// oneLine folds a multi-line statement into one history entry.
func oneLine(text string) string {
	fields := strings.Fields(text)
	return strings.Join(fields, " ")
}

// complete reports whether text ends a statement: its last token outside
// strings, quoted names and comments is ';', and it is not inside a
// statement set (BEGIN STATEMENT SET; ... END;), whose inner statements end
// with ';' too.
func complete(text string) bool {
	code := stripComments(text)
	t := strings.TrimSpace(code)
	if !strings.HasSuffix(t, ";") || code == "\x00" {
		return false
	}
	words := strings.Fields(strings.ToUpper(strings.NewReplacer(";", " ; ", "(", " ", ")", " ").Replace(t)))
	inSet := false
	for i, w := range words {
		if w == "STATEMENT" && i+1 < len(words) && words[i+1] == "SET" {
			inSet = true
		}
		if inSet && w == "END" {
			inSet = false
		}
	}
	return !inSet
}

// stripComments returns text with comments and the insides of quoted
// strings and names replaced by spaces, so that a ';' or keyword in them
// does not count. An unterminated quote or comment gives "\x00": the
// statement goes on.
func stripComments(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return b.String()
			}
			i += j - 1
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return "\x00"
			}
			i += j + 3
			b.WriteByte(' ')
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for ; j < len(text); j++ {
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c { // doubled quote
						j++
						continue
					}
					break
				}
			}
			if j >= len(text) {
				return "\x00"
			}
			b.WriteString("''")
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// execText appends text (one or more whole statements) to the session and
// runs its statements in order. It reports whether they all succeeded; a
// non-interactive shell stops at the first failure.
func (sh *shell) execText(name, text string) bool {
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	prefix := sh.text.String()
	sh.text.WriteString(text)
	full := diag.NewSource(name, sh.text.String())
	// Parse only the new text, at its offset in the session text.
	parseSrc := diag.NewSource(name, blankText(prefix)+text)
	f := parser.Parse(parseSrc)
	for _, d := range f.Diags.Items {
		if d.Source == nil || d.Source == parseSrc {
			d.Source = full
		}
	}
	if len(f.Diags.Items) > 0 {
		_ = diag.WriteText(sh.stderr, &f.Diags)
		if f.Diags.HasErrors() {
			fmt.Fprintf(sh.stderr, "[ERROR] %s; nothing was run.\n", plural(f.Diags.Errors(), "syntax error"))
			sh.failed.Store(true)
			return false
		}
	}
	for _, st := range f.Stmts {
		if !sh.exec(st, full) {
			sh.failed.Store(true)
			return false
		}
	}
	return true
}

// blankText keeps the newlines of s and replaces everything else by spaces.
func blankText(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// stmtText is the statement's text as typed, on one line.
func stmtText(src *diag.Source, st ast.Stmt) string {
	sp := st.Span()
	if !sp.IsValid() || int(sp.End) > len(src.Text) || sp.End < sp.Start {
		return ""
	}
	return oneLine(src.Text[sp.Start:sp.End])
}

// exec runs one statement; it reports whether it succeeded.
func (sh *shell) exec(st ast.Stmt, src *diag.Source) bool {
	l := &diag.List{Source: src}
	report := func() bool {
		l.Sort()
		_ = diag.WriteText(sh.stderr, l)
		return !l.HasErrors()
	}
	switch st := st.(type) {
	case *ast.Show:
		sh.show(st.What)
		return true
	case *ast.StopJob:
		return sh.stopJob(st.ID.Value)
	case *ast.Set:
		if st.Key == nil {
			sh.listSettings()
			return true
		}
	case *ast.Describe:
		sh.sess.Apply(st, l)
		if !report() {
			return false
		}
		sh.describe(st.Name.Name)
		return true
	}

	before := len(sh.sess.Plans)
	existed := map[string]bool{}
	for _, n := range sh.sess.Catalog.Names() {
		existed[n] = true
	}
	sh.sess.Apply(st, l)
	plans := sh.sess.Plans[before:]
	if !l.HasErrors() {
		// A job must not write the files it reads (as in a job file).
		planner.CheckFiles(plans, sh.baseDir, l)
		checkConnectors(plans, sh.baseDir, l)
	}
	ok := report()
	if !ok {
		// A definition with errors is registered (invalid) so that a job
		// file reports no follow-on errors; in a shell it is retyped, so
		// forget it.
		for _, n := range sh.sess.Catalog.Names() {
			if !existed[n] {
				sh.sess.Catalog.Drop(&ast.Drop{Name: &ast.Ident{Name: n}, View: isView(sh.sess, n)}, &diag.List{})
			}
		}
		sh.sess.Plans = sh.sess.Plans[:before]
		return false
	}
	switch st := st.(type) {
	case *ast.CreateTable:
		if existed[st.Name.Name] {
			fmt.Fprintf(sh.stdout, "[INFO] Table %s already exists.\n", st.Name.Name)
		} else {
			fmt.Fprintf(sh.stdout, "[INFO] Table %s created.\n", st.Name.Name)
		}
	case *ast.CreateView:
		if existed[st.Name.Name] {
			fmt.Fprintf(sh.stdout, "[INFO] View %s already exists.\n", st.Name.Name)
		} else {
			fmt.Fprintf(sh.stdout, "[INFO] View %s created.\n", st.Name.Name)
		}
	case *ast.Drop:
		if existed[st.Name.Name] {
			fmt.Fprintf(sh.stdout, "[INFO] %s dropped.\n", st.Name.Name)
		} else {
			fmt.Fprintf(sh.stdout, "[INFO] %s does not exist.\n", st.Name.Name)
		}
	case *ast.Set:
		fmt.Fprintf(sh.stdout, "[INFO] Set '%s' = '%s'.\n", st.Key.Value, secret.Show(st.Key.Value, st.Value.Value))
	case *ast.Reset:
		if st.Key == nil {
			fmt.Fprintln(sh.stdout, "[INFO] Every setting is back to its default.")
		} else {
			fmt.Fprintf(sh.stdout, "[INFO] '%s' is back to its default.\n", st.Key.Value)
		}
	case *ast.Explain:
		for i, p := range plans {
			if i > 0 {
				fmt.Fprintln(sh.stdout)
			}
			fmt.Fprint(sh.stdout, p.ExplainText())
		}
	case *ast.QueryStmt:
		return sh.runQuery(plans, stmtText(src, st), src)
	case *ast.Insert, *ast.StatementSet:
		return sh.submit(plans, stmtText(src, st), src)
	}
	return true
}

func isView(s *planner.Session, name string) bool {
	_, ok := s.Catalog.View(name)
	return ok
}

// show prints SHOW TABLES | VIEWS | FUNCTIONS | JOBS.
func (sh *shell) show(what string) {
	var t textTable
	switch what {
	case "TABLES":
		t.header = []string{"table name"}
		for _, tb := range sh.sess.Catalog.Tables() {
			t.add(tb.Name)
		}
	case "VIEWS":
		t.header = []string{"view name"}
		for _, v := range sh.sess.Catalog.Views() {
			t.add(v.Name)
		}
	case "FUNCTIONS":
		t.header = []string{"function name"}
		for _, f := range expr.FunctionNames() {
			t.add(f)
		}
	case "JOBS":
		sh.jobs.show(sh.stdout)
		return
	}
	t.write(sh.stdout)
}

// listSettings prints SET without arguments: every setting of the session.
func (sh *shell) listSettings() {
	t := textTable{header: []string{"key", "value"}}
	vals := sh.sess.Values()
	keys := vals.Keys()
	for _, k := range keys {
		v, _ := vals.Get(k)
		t.add(k, secret.Show(k, v))
	}
	if len(keys) == 0 {
		fmt.Fprintln(sh.stdout, "[INFO] No settings: every key has its default. SET 'key' = 'value'; sets one.")
		return
	}
	t.write(sh.stdout)
}

// describe prints DESCRIBE name: the columns with their types, then the
// watermark, primary key and connector options of a table, or the query of
// a view.
func (sh *shell) describe(name string) {
	if v, ok := sh.sess.Catalog.View(name); ok {
		fmt.Fprintf(sh.stdout, "view %s AS %s\n", v.Name, spanText(v.Source, v.Def.Query.Span()))
		return
	}
	tb, ok := sh.sess.Catalog.Table(name)
	if !ok {
		return
	}
	t := textTable{header: []string{"name", "type", "null", "key", "extras", "watermark"}}
	pk := map[int]bool{}
	for _, i := range tb.PrimaryKey {
		pk[i] = true
	}
	for i, c := range tb.Columns {
		null, key, extras, wm := "TRUE", "", "", ""
		if !c.Type.Nullable {
			null = "FALSE"
		}
		if pk[i] {
			key = "PRI(" + c.Name + ")"
		}
		typ := c.Type.WithNullable(true).String() // the null column says it
		if c.Time != expr.NoTime {
			typ += " *" + c.Time.String() + "*"
		}
		switch c.Kind {
		case ast.ComputedColumn:
			for _, cd := range tb.Def.Columns {
				if cd.Name.Name == c.Name && cd.Expr != nil {
					extras = "AS " + spanText(tb.Source, cd.Expr.Span())
				}
			}
		case ast.MetadataColumn:
			extras = "METADATA FROM '" + c.MetadataKey + "'"
			if c.Virtual {
				extras += " VIRTUAL"
			}
		case ast.PhysicalColumn:
		}
		if tb.Watermark != nil && tb.Watermark.Column == i {
			wm = spanText(tb.Source, tb.Def.Watermarks[0].Expr.Span())
		}
		t.add(c.Name, typ, null, key, extras, wm)
	}
	t.write(sh.stdout)
	if len(tb.PrimaryKey) > 0 {
		var cols []string
		for _, i := range tb.PrimaryKey {
			cols = append(cols, tb.Columns[i].Name)
		}
		fmt.Fprintf(sh.stdout, "primary key: (%s) NOT ENFORCED\n", strings.Join(cols, ", "))
	}
	if tb.Watermark != nil {
		fmt.Fprintf(sh.stdout, "watermark: %s AS %s\n", tb.Columns[tb.Watermark.Column].Name,
			spanText(tb.Source, tb.Def.Watermarks[0].Expr.Span()))
	}
	if len(tb.Def.Options) > 0 {
		fmt.Fprintln(sh.stdout, "with:")
		for _, o := range tb.Def.Options {
			fmt.Fprintf(sh.stdout, "  '%s' = '%s'\n", o.Key.Value, secret.Show(o.Key.Value, o.Value.Value))
		}
	}
}

// spanText is the source text of sp, on one line.
func spanText(src *diag.Source, sp diag.Span) string {
	if src == nil || !sp.IsValid() || int(sp.End) > len(src.Text) || sp.End < sp.Start {
		return "?"
	}
	return oneLine(src.Text[sp.Start:sp.End])
}

// lockedOut serialises writes from several goroutines.
type lockedOut struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedOut) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
