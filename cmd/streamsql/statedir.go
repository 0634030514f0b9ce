package main

// --state-dir: a directory that already holds state is refused.
//
// Operator state under --state-dir outlives the run (Badger's files in
// DIR/op1, DIR/op2, ...), but nothing restarts from it yet: the sources of a
// second run start from the beginning again while the joins and aggregates
// open the first run's state, so a join repeats its rows and an aggregate
// counts twice. Until restart from a checkpoint exists, a run takes a state
// directory only when it is new or empty, and writes a marker into it
// first (stateMarkerName: the job file, when the run started, a
// fingerprint of the plan's state layout). A second run finds the marker
// (after a clean end, a failure or a kill -9 alike) and stops before
// opening anything, saying whose state is there, whether its layout is
// this job's, and how to start over. State is therefore never read as
// another job's types.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/planner"
)

// stateMarkerName is the file that marks a directory as streamsql state.
const stateMarkerName = "STREAMSQL-STATE.json"

// stateLayoutVersion changes whenever the files under a state directory
// change meaning.
const stateLayoutVersion = 1

// stateMarker is the marker's content.
type stateMarker struct {
	Layout  int    `json:"layout"`
	Job     string `json:"job"`
	Plan    string `json:"plan"` // planFingerprint of the job's plans
	Started string `json:"started"`
	PID     int    `json:"pid"`
}

// claimStateDir takes dir for this run: it creates it (and its marker)
// when it does not exist or is empty, and refuses it, with what is there
// and how to start over, otherwise. release undoes the claim when the job
// could not be built, before anything ran: the directory is emptied again.
func claimStateDir(dir, job string, plans []*planner.Plan) (release func(), err error) {
	m := stateMarker{Layout: stateLayoutVersion, Job: absPath(job), Plan: planFingerprint(plans),
		Started: time.Now().UTC().Format(time.RFC3339), PID: os.Getpid()}
	if err := refuseUsedStateDir(dir, m); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--state-dir: %w", err)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	marker := filepath.Join(dir, stateMarkerName)
	// O_EXCL: of two runs started at once on one directory, one wins.
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, refuseUsedStateDir(dir, m)
		}
		return nil, fmt.Errorf("--state-dir: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(marker)
		return nil, fmt.Errorf("--state-dir: %w", werr)
	}
	return func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}, nil
}

// refuseUsedStateDir returns nil when dir does not exist or is empty, and
// otherwise an error saying what it holds.
func refuseUsedStateDir(dir string, now stateMarker) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--state-dir: %w", err)
	case len(entries) == 0:
		return nil
	}
	startOver := fmt.Sprintf("to start over, remove it (rm -r %s) or give another --state-dir", shellQuote(dir))
	const why = "streamsql cannot restart from saved state yet: the sources would be read again from the start " +
		"while the operators keep the old state (a join would repeat its rows, an aggregate count them twice)"
	b, err := os.ReadFile(filepath.Join(dir, stateMarkerName))
	if err != nil {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		if len(names) > 4 {
			names = append(names[:4], "...")
		}
		if looksLikeState(entries) {
			return fmt.Errorf("--state-dir %s already holds operator state (%s) from an earlier run; %s; %s",
				dir, strings.Join(names, ", "), why, startOver)
		}
		return fmt.Errorf("--state-dir %s is not empty (%s) and is not a streamsql state directory: give a new or empty directory",
			dir, strings.Join(names, ", "))
	}
	var old stateMarker
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("--state-dir %s holds a state marker %s that cannot be read (%w); %s",
			dir, stateMarkerName, err, startOver)
	}
	whose := "this job"
	if old.Job != now.Job {
		whose = "the job " + old.Job
	}
	var layout string
	switch {
	case old.Layout != now.Layout:
		layout = fmt.Sprintf(", in state layout %d (this streamsql writes layout %d)", old.Layout, now.Layout)
	case old.Plan != now.Plan:
		layout = ", whose operators or column types differ from this job's (its state would not even be this job's types)"
	}
	return fmt.Errorf("--state-dir %s already holds the state of a run of %s started at %s%s; %s; %s",
		dir, whose, old.Started, layout, why, startOver)
}

// looksLikeState reports whether entries are those of a state directory
// written before the marker existed: op1, op2, ... directories.
func looksLikeState(entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "op") {
			return true
		}
	}
	return false
}

// planFingerprint digests what the state of a job's operators depends on:
// its plans (the operators and their keys) and the name and type of every
// column of every node.
func planFingerprint(plans []*planner.Plan) string {
	h := sha256.New()
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		fmt.Fprintf(h, "%T(", n)
		for _, c := range n.Columns() {
			fmt.Fprintf(h, "%s %s,", c.Name, c.Type)
		}
		for _, c := range logical.Children(n) {
			walk(c)
		}
		fmt.Fprint(h, ")")
	}
	for _, p := range plans {
		fmt.Fprint(h, p.Text())
		walk(p.Root)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// shellQuote quotes a path for a command line when it needs it.
func shellQuote(s string) string {
	plain := func(r rune) bool {
		return r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !plain(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
