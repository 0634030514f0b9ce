package main

// --state-dir: checkpoints and resuming from them.
//
// A new or empty directory is claimed for the job: a marker is written into
// it first (stateMarkerName: the job file, when the run started, a
// fingerprint of the plan's state layout), and the run checkpoints into it
// (package checkpoint, every 'execution.checkpointing.interval', default
// 10 s). A directory holding this job's marker is resumed: from its latest
// complete checkpoint when it has one (exec.Build refuses it, saying what
// changed, when the job's operators are no longer the checkpoint's), and
// otherwise from the beginning, its live state emptied (a run that never
// completed a checkpoint is started over, which is what a clean run does).
// A directory holding another job's state, or anything else, is refused
// before anything is opened, saying whose it is and how to start over.

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

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
)

// stateMarkerName is the file that marks a directory as streamsql state.
const stateMarkerName = "STREAMSQL-STATE.json"

// stateLayoutVersion changes whenever the files under a state directory
// change meaning. Layout 1 named each operator's live state op1, op2, ...
// in the order the job was built; layout 2 names it by the operator's
// physical ID and partition, as its checkpoint parts are named. A
// directory in another layout is refused, never resumed.
const stateLayoutVersion = 2

// stateMarker is the marker's content.
type stateMarker struct {
	Layout  int    `json:"layout"`
	Job     string `json:"job"`
	Plan    string `json:"plan"` // planFingerprint of the job's plans
	Started string `json:"started"`
	PID     int    `json:"pid"`
}

// prepareStateDir takes dir for this run: it claims a new or empty one
// (claimStateDir), or opens this job's, finding the checkpoint to resume
// from (nil: start from the beginning). release undoes a claim when the job
// could not be built, before anything ran.
func prepareStateDir(dir, job string, plans []*planner.Plan, set settings.Settings) (cp *exec.Checkpointing, release func(), note string, err error) {
	cp = &exec.Checkpointing{Interval: set.CheckpointInterval, Timeout: set.CheckpointTimeout, Job: absPath(job)}
	retained := set.CheckpointsRetained
	m := stateMarker{Layout: stateLayoutVersion, Job: absPath(job), Plan: planFingerprint(plans),
		Started: time.Now().UTC().Format(time.RFC3339), PID: os.Getpid()}
	release = func() {}
	if err := refuseUsedStateDir(dir, m); err != nil {
		if !errors.Is(err, errOwnState) {
			return nil, nil, "", err
		}
		// This job's directory: resume.
		d, err := checkpoint.Open(dir, checkpoint.Options{Retained: retained})
		if err != nil {
			return nil, nil, "", fmt.Errorf("--state-dir: %w", err)
		}
		cp.Dir = d
		latest, skipped, err := d.Latest()
		if err != nil {
			return nil, nil, "", fmt.Errorf("--state-dir %s: %w", dir, err)
		}
		if n := len(skipped); n > 0 {
			which := fmt.Sprintf("checkpoint %d is", skipped[0].ID)
			if n > 1 {
				which = fmt.Sprintf("%d checkpoints (%d to %d) are", n, skipped[n-1].ID, skipped[0].ID)
			}
			note += fmt.Sprintf("%s in %s incomplete (the run stopped while writing it): skipped\n", which, d.Root())
		}
		if latest == nil {
			if err := emptyLiveState(dir); err != nil {
				return nil, nil, "", err
			}
			note += fmt.Sprintf("%s holds no complete checkpoint of this job: starting from the beginning\n", dir)
			return cp, release, note, nil
		}
		if err := latest.Verify(); err != nil {
			return nil, nil, "", fmt.Errorf("--state-dir %s: %w", dir, d.Damaged(latest, err))
		}
		cp.Restore = latest
		note += fmt.Sprintf("resuming from checkpoint %d in %s (completed %s, %s ago)\n", latest.ID, dir,
			latest.Completed.Local().Format("2006-01-02 15:04:05"), time.Since(latest.Completed).Round(time.Second))
		return cp, release, note, nil
	}
	if release, err = claimStateDir(dir, m); err != nil {
		return nil, nil, "", err
	}
	d, err := checkpoint.Open(dir, checkpoint.Options{Retained: retained})
	if err != nil {
		release()
		return nil, nil, "", fmt.Errorf("--state-dir: %w", err)
	}
	cp.Dir = d
	return cp, release, "", nil
}

// emptyLiveState removes what a run that completed no checkpoint left in
// dir, but the marker and the dead-letter files' lengths at the first
// start (the run starting over cuts them back to those).
func emptyLiveState(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--state-dir: %w", err)
	}
	for _, e := range entries {
		if e.Name() == stateMarkerName || e.Name() == exec.DeadLettersStartName {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("--state-dir: %w", err)
		}
	}
	return nil
}

// errOwnState is what refuseUsedStateDir says of a directory holding this
// job's state in this layout: resume it.
var errOwnState = errors.New("the state of this job")

// claimStateDir creates dir (and its marker m) for this run when it does
// not exist or is empty. release undoes the claim when the job could not
// be built, before anything ran: the directory is emptied again.
func claimStateDir(dir string, m stateMarker) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--state-dir: %w", err)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	marker := filepath.Join(dir, stateMarkerName)
	// O_EXCL: of two runs started at once on one directory, one wins.
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("--state-dir %s was claimed by another run just now", dir)
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
	const why = "a state directory belongs to one job: its checkpoints hold that job's positions and state"
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
		return fmt.Errorf("--state-dir %s holds the state of a run of %s started at %s, in state layout %d: this streamsql reads and writes layout %d (operator state named by operator ID), so it cannot resume from it; %s",
			dir, whose, old.Started, old.Layout, now.Layout, startOver)
	case old.Job == now.Job:
		// Resumed: a changed plan is refused against the checkpoint's
		// operators, saying what changed (exec.Build).
		return errOwnState
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
