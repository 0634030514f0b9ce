package main

// Flag and argument helpers shared by the commands.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
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

// values checks the flags, each as a source of its own named "--set" (so
// that a diagnostic points at the value in the flag, as it would at a SET
// in a file), and returns them as settings. The list gets a warning for an
// unknown key and an error for a value its key does not take.
func (s setFlag) values(l *diag.List) settings.Values {
	var v settings.Values
	for _, kv := range s {
		src := diag.NewSource("--set", kv.key+"="+kv.value)
		key := diag.Span{Start: 0, End: diag.Pos(len(kv.key))}
		val := diag.Span{Start: key.End + 1, End: diag.Pos(len(src.Text))}
		fl := &diag.List{Source: src}
		if planner.CheckSetting(kv.key, key, kv.value, val, fl) {
			v.Set(kv.key, kv.value)
		}
		l.Append(fl.Items...)
	}
	return v
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
