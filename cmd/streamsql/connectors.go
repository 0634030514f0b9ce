package main

import (
	"context"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/planner"
)

// checkConnectors adds to l what the connector runtimes linked into this
// binary refuse about the tables a job reads and writes
// (exec.ReportConnectors), so that `check` refuses whatever `run` could not
// start. baseDir is the job file's directory.
func checkConnectors(plans []*planner.Plan, baseDir string, l *diag.List) {
	var run []*planner.Plan
	for _, p := range plans {
		if p.Explain == nil {
			run = append(run, p)
		}
	}
	phys, err := planner.Lower(run)
	if err != nil {
		l.Errorf(diag.SinkNotWritable, diag.NoSpan, "%v", err)
		return
	}
	exec.ReportConnectors(phys, exec.Options{BaseDir: baseDir}, l)
}

// build lowers a job's plans to physical plans (planner.Lower) and builds
// the job that runs them (exec.Build).
func build(ctx context.Context, plans []*planner.Plan, opts exec.Options) (*exec.Job, error) {
	phys, err := planner.Lower(plans)
	if err != nil {
		return nil, err
	}
	return exec.Build(ctx, phys, opts)
}
