package main

import (
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/planner"
)

// checkConnectors adds to l what the connector runtimes linked into this
// binary refuse about the tables a job reads and writes
// (exec.ReportConnectors), so that `check` refuses whatever `run` could not
// start. baseDir is the job file's directory.
func checkConnectors(plans []*planner.Plan, baseDir string, l *diag.List) {
	exec.ReportConnectors(plans, exec.Options{BaseDir: baseDir}, l)
}
