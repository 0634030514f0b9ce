package main

import (
	"context"
	"io"
	"runtime"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/settings"
)

// jobSettings are the settings a job of several statements runs with:
// those in effect at its last statement, as when Flink's client submits
// it (a SET after the last INSERT changes nothing). Each plan keeps its
// own for what the planner resolved per statement.
func jobSettings(plans []*planner.Plan) settings.Settings {
	if len(plans) == 0 {
		return settings.Defaults()
	}
	return plans[len(plans)-1].Settings
}

// jobOptions are the options every command (run, the shell) builds a job
// with: the settings, and the parallelism they give (the number of cores
// when none is set, at most 'pipeline.max-parallelism').
func jobOptions(set settings.Settings) exec.Options {
	p := set.Parallelism
	if p < 1 {
		p = runtime.NumCPU()
		if m := set.MaxParallelism; m > 0 {
			p = min(p, m)
		}
	}
	return exec.Options{Settings: set, Parallelism: p}
}

// built, when set (by tests), sees every job a command builds, with the
// options it was built with.
var built func(exec.Options, *exec.Job)

// buildJob lowers plans and builds their job (build).
func buildJob(ctx context.Context, plans []*planner.Plan, opts exec.Options) (*exec.Job, error) {
	job, err := build(ctx, plans, opts)
	if err == nil && built != nil {
		built(opts, job)
	}
	return job, err
}

// checkSetFlags checks --set flags, printing what is wrong with them. It
// reports false when a value is refused (a usage error: nothing runs).
func checkSetFlags(c *command, sets setFlag, stderr io.Writer) (settings.Values, bool) {
	var l diag.List
	v := sets.values(&l)
	if len(l.Items) > 0 {
		_ = diag.WriteText(stderr, &l)
	}
	if l.HasErrors() {
		usageError(c, stderr, "")
		return v, false
	}
	return v, true
}
