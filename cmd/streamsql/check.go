package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/frontend"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
)

var checkCmd = &command{
	name:    "check",
	summary: "plan jobs without running them and report every error and warning",
	help: `usage: streamsql check [--format text|json|github] [--set key=value]... FILE.sql...

Check reads each job file the way run will, up to the point of running it:
it parses every statement and resolves it against the tables and views the
file declares (names, types, connector options, settings), compiles every
expression as run will, and asks each connector's runtime whether it can
read or write the tables the job uses, so that a job check accepts can
start. It refuses a job that writes a file it reads. Nothing connects to
Kafka or opens a file a table names. It reports every error and warning,
each at the line and column it is about, with a stable code documented in
docs/errors.md.

Then it checks the contracts between the jobs given together: where one job
writes a topic (the same 'topic' on the same 'properties.bootstrap.servers')
or a file (the same 'path') that a job reads, the reader must read it as it
is written. A topic written as a changelog ('debezium-json', or by
'upsert-kafka') and read as plain 'json' rows is an error, reported in the
reader's file with the writer's file and line, and so are readers that
encode the topic differently or declare columns the writer does not write
(docs/changelog.md). Give every job that meets at a topic in one check.

Flags:
  --format text|json|github   how diagnostics are printed (default text)
  --set key=value             a configuration setting, as SET 'key' = 'value'
                              at the top of each file would make it; repeat
                              for several. A bad value is reported at the flag
                              (--set:1:COL) like a bad SET (SQL311)

Formats (diagnostics go to stdout):
  text    the go vet convention, with the offending line and a caret under
          it, then a summary line on stderr (after an empty line when
          anything was reported):

            jobs/orders.sql:5:15: error: WATERMARK FOR order_tme: table payment_orders has no column order_tme [SQL207]
                5 | WATERMARK FOR order_tme AS order_tme - INTERVAL '5' SECOND
                  |               ^^^^^^^^^
              hint: did you mean order_time?

            check: 1 file, 1 error, 0 warnings

  json    one JSON array for all the files; each element has file, line,
          column, end_line, end_column, severity ("error" or "warning"), code,
          message, and notes and hints when there are any
  github  GitHub Actions workflow commands, one line per diagnostic, which
          show up as annotations on the pull request:

            ::error file=jobs/orders.sql,line=5,col=15,endLine=5,endColumn=24,title=SQL207::WATERMARK FOR order_tme: table payment_orders has no column order_tme%0Ahint: did you mean order_time?

Exit status:
  0  no errors (warnings allowed)
  1  at least one error in at least one file
  2  usage error (unknown flag, bad --format, no files) or a file could not be
     read; the files that could be read are still checked and reported

The JSON is easy to filter: pipe it to jq '.[] | select(.severity == "error")'
for the errors only.

Examples (from the repository's root):
  streamsql check examples/*.sql
  streamsql check --format json examples/payments.sql
  streamsql check --format github examples/*.sql     # in a GitHub Actions step
`,
	run: runCheck,
}

// Output formats of check.
const (
	formatText   = "text"
	formatJSON   = "json"
	formatGitHub = "github"
)

// formatFlag is the value of --format; Set refuses anything but the three
// formats, so a bad value is a usage error.
type formatFlag string

func (f *formatFlag) String() string { return string(*f) }

func (f *formatFlag) Set(s string) error {
	switch s {
	case formatText, formatJSON, formatGitHub:
		*f = formatFlag(s)
		return nil
	}
	return errors.New("must be text, json or github")
}

func runCheck(c *command, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	format := formatFlag(formatText)
	fs.Var(&format, "format", "output format: text, json or github")
	var sets setFlag
	fs.Var(&sets, "set", "configuration `key=value`; repeatable")
	files, exit, done := parseArgs(c, fs, args, stdout, stderr)
	if done {
		return exit
	}
	if len(files) == 0 {
		return usageError(c, stderr, "no files to check")
	}

	// One list for every file, in command-line order, each diagnostic
	// naming its own source, so that json is one document for all files.
	all := &diag.List{}
	// --set values are checked as a SET at the top of each file would be;
	// what is wrong with them is reported once, at the flag.
	base := sets.values(all)
	var jobs []*planner.Job
	seen := map[string]bool{}
	checked, unreadable := 0, 0
	for _, path := range files {
		j, err := checkJobFile(path, base)
		if err != nil {
			fmt.Fprintf(stderr, "streamsql check: %v\n", err)
			unreadable++
			continue
		}
		checked++
		all.Append(j.Diags.Items...)
		if p := filepath.Clean(path); !seen[p] {
			seen[p] = true
			jobs = append(jobs, j)
		}
	}
	// Then the contracts between the jobs (each file once): a topic or file
	// one job writes must be read by the others, or by itself, as it is
	// written. Each diagnostic is in the reader's file.
	all.Append(planner.CheckContracts(jobs).Items...)

	var err error
	switch format {
	case formatJSON:
		err = diag.WriteJSON(stdout, all)
	case formatGitHub:
		err = diag.WriteGitHub(stdout, all)
	default:
		err = diag.WriteText(stdout, all)
	}
	if err != nil {
		fmt.Fprintf(stderr, "streamsql check: writing diagnostics: %v\n", err)
		return exitUsage
	}

	errs := all.Errors()
	if format == formatText {
		if len(all.Items) > 0 {
			// The diagnostics went to stdout, the summary goes to stderr:
			// a blank line first keeps it on a line of its own wherever
			// the two streams are joined (a CI log or a tool that drops
			// stdout's last newline glued it to the last hint or caret).
			fmt.Fprintln(stderr)
		}
		fmt.Fprintf(stderr, "check: %s, %s, %s", plural(checked, "file"), plural(errs, "error"), plural(len(all.Items)-errs, "warning"))
		if unreadable > 0 {
			fmt.Fprintf(stderr, "; %s could not be read", plural(unreadable, "file"))
		}
		fmt.Fprintln(stderr)
	}
	switch {
	case unreadable > 0:
		return exitUsage
	case errs > 0:
		return exitError
	default:
		return exitOK
	}
}

// checkJobFile reads the job file at path and checks it with the planner
// (with the settings base before the file's own),
// returning the checked job (its diagnostics, plans and catalog). Every
// diagnostic names its source (the planner may leave that to the list's
// default), so lists of several files can be merged. The error is only ever
// an I/O error.
func checkJobFile(path string, base settings.Values) (*planner.Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	src := diag.NewSource(path, string(data))
	j := frontend.CheckJobWith(src, base)
	checkConnectors(j.Session.Plans, filepath.Dir(path), j.Diags)
	j.Diags.Sort()
	def := j.Diags.Source
	if def == nil {
		def = src
	}
	for _, d := range j.Diags.Items {
		if d.Source == nil {
			d.Source = def
		}
	}
	return j, nil
}

// plural returns "1 file", "0 files", "2 files".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
