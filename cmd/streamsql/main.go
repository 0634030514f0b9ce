package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// version is the streamsql version printed by --version.
const version = "0.1.0-dev"

// Exit statuses shared by every command.
const (
	exitOK    = 0 // success; for check, no errors (warnings allowed)
	exitError = 1 // the job has errors
	exitUsage = 2 // usage error, unreadable file, or command not available yet
)

// command is one subcommand. run receives the command itself (for its name
// and help) and the arguments after the command name, and returns the exit
// status.
type command struct {
	name    string
	summary string // one line for the command list
	help    string // full help: usage line, description, flags, examples
	run     func(c *command, args []string, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order the help shows them.
var commands = []*command{checkCmd, explainCmd, runCmd, reconcileCmd, shellCmd, devCmd}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program: it dispatches args (without the program name)
// to a command and returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return exitOK
	case "help":
		return help(args[1:], stdout, stderr)
	case "-version", "--version", "version":
		fmt.Fprintf(stdout, "streamsql %s\n", version)
		return exitOK
	default:
		c := lookup(name)
		if c == nil {
			if strings.HasPrefix(name, "-") {
				fmt.Fprintf(stderr, "streamsql: unknown flag %s (flags go after the command, as in `streamsql check --format json FILE.sql`)\n\n", name)
			} else {
				fmt.Fprintf(stderr, "streamsql: unknown command %q\n\n", name)
			}
			fmt.Fprint(stderr, usage())
			return exitUsage
		}
		return c.run(c, args[1:], stdout, stderr)
	}
}

// help implements `streamsql help [COMMAND]`.
func help(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		fmt.Fprint(stdout, usage())
		return exitOK
	case 1:
		c := lookup(args[0])
		if c == nil {
			fmt.Fprintf(stderr, "streamsql help: unknown command %q\n\n", args[0])
			fmt.Fprint(stderr, usage())
			return exitUsage
		}
		fmt.Fprint(stdout, c.help)
		return exitOK
	default:
		fmt.Fprint(stderr, "usage: streamsql help [COMMAND]\n")
		return exitUsage
	}
}

// usage is the top-level help.
func usage() string {
	var b strings.Builder
	b.WriteString(`streamsql is a streaming SQL engine for Flink-style SQL: tables over Kafka
topics or files with event-time watermarks, joins between streams, and
INSERT INTO a sink.

Usage:
  streamsql <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Examples (from the repository's root):
  streamsql check examples/*.sql
  streamsql check --format github examples/*.sql
  streamsql run examples/payments.sql
  streamsql explain examples/payments.sql

Exit status: 0 success, 1 the job has errors, 2 usage or I/O error.

Run 'streamsql help <command>' or 'streamsql <command> --help' for details.
'streamsql --version' prints the version.
`)
	return b.String()
}

// newFlagSet returns a flag set for command c that prints nothing itself:
// parseArgs reports its errors (prefixed with the command) on stderr, and
// prints the help for --help on stdout.
func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("streamsql "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args with fs, allowing flags after positional arguments
// (`streamsql check a.sql --format json`); everything after "--" is
// positional. It returns the positional arguments and, when parsing ends the
// command, its exit status: exitOK after printing the help for --help, or
// exitUsage after saying on stderr what is wrong with a flag.
func parseArgs(c *command, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, exit int, done bool) {
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, c.help)
			return nil, exitOK, true
		}
		if err != nil {
			return nil, usageError(c, stderr, err.Error()), true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, false
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), 0, false
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError prints msg (if any) and the command's usage line to stderr and
// returns exitUsage.
func usageError(c *command, stderr io.Writer, msg string) int {
	if msg != "" {
		fmt.Fprintf(stderr, "streamsql %s: %s\n", c.name, msg)
	}
	line, _, _ := strings.Cut(c.help, "\n")
	fmt.Fprintf(stderr, "%s\nRun 'streamsql help %s' for details.\n", line, c.name)
	return exitUsage
}
