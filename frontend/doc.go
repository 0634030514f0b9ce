// Package frontend turns a job file's text into checked plans: it parses
// (package parser) and hands the statements to the planner
// (planner.PlanFile). It is what `streamsql check` runs, and what run,
// the oracle and tests use to load a job.
//
//	diag.Source ──parser.Parse──► statements + syntax diagnostics
//	            ──planner.PlanFile──► planner.Job (session, plans, all diagnostics, sorted)
//
// It exists so that the planner depends on the syntax tree (ast) only, not
// on the parser and the TiDB parser behind it: whoever plans statements
// built some other way (the shell, one statement at a time) does not link
// the parser through the planner.
//
// Promises: CheckJob never panics on user input, and its diagnostics are
// sorted by position. It does not ask the connector runtimes about the
// job's tables: `streamsql check` and `run` add exec.CheckConnectors.
package frontend
