package main

// The commands in this file take their final flags and arguments (the
// command-line contract) but cannot do their work yet.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/streamsql/streamsql/diag"
)

// setFlag collects repeated --set key=value flags in order.
type setFlag []setting

type setting struct{ key, value string }

func (s *setFlag) String() string {
	parts := make([]string, len(*s))
	for i, kv := range *s {
		parts[i] = kv.key + "=" + kv.value
	}
	return strings.Join(parts, ",")
}

func (s *setFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return errors.New("want key=value, as in --set table.exec.state.ttl=24h")
	}
	*s = append(*s, setting{k, strings.TrimSpace(val)})
	return nil
}

// oneFile parses args and requires exactly one positional argument, the job
// file.
func oneFile(c *command, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (file string, exit int, done bool) {
	pos, exit, done := parseArgs(c, fs, args, stdout, stderr)
	switch {
	case done:
		return "", exit, true
	case len(pos) == 0:
		return "", usageError(c, stderr, "no job file given"), true
	case len(pos) > 1:
		return "", usageError(c, stderr, fmt.Sprintf("one job file at a time, got %d: %s", len(pos), strings.Join(pos, " "))), true
	}
	return pos[0], 0, false
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// precheck checks file as `streamsql check` would and prints its
// diagnostics, if any, in text form to stderr. It ends the command (done)
// with exitUsage when the file cannot be read and with exitError when the job
// has errors.
func precheck(c *command, file string, stderr io.Writer) (exit int, done bool) {
	l, err := checkFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "streamsql %s: %v\n", c.name, err)
		return exitUsage, true
	}
	if err := diag.WriteText(stderr, l); err != nil {
		return exitUsage, true
	}
	if n := l.Errors(); n > 0 {
		fmt.Fprintf(stderr, "streamsql %s: %s has %s; nothing was %s\n", c.name, file, plural(n, "error"), doneWhat(c))
		return exitError, true
	}
	return 0, false
}

func doneWhat(c *command) string {
	if c.name == "run" {
		return "run"
	}
	return "planned"
}

// notAvailable ends a command that passed its checks but cannot do its work
// yet.
func notAvailable(c *command, file string, stderr io.Writer, why string) int {
	fmt.Fprintf(stderr, "streamsql %s: not available yet: %s (see docs/architecture.md)\n", c.name, why)
	fmt.Fprintf(stderr, "streamsql %s: %s passed the checks 'streamsql check' makes\n", c.name, file)
	return exitUsage
}
