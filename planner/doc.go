// Package planner checks and plans job files (PlanFile, given the parsed
// statements; frontend.CheckJob parses and calls it): a Session applies
// statements in order, binds queries and INSERTs into logical plans, runs
// the rewrite rules, derives each node's properties (changelog mode, upsert
// keys, time attributes, state retention) and reports what cannot run or
// will hurt. The rules (rules.go) are pure rewrites, plan to plan: they
// report nothing, and leave the plan they are given as it was (a rewrite
// copies the nodes it changes and the nodes above them). What a rule's input is refused or warned for is decided
// by the checks between the rules (checks.go), from the functions the rules
// read; the rest by the checks on the derived properties (validate.go).
// With Session.Trace each plan keeps its tree after every pass that
// changed it (testdata/rules). A job may not write the files it reads, nor one file twice
// (CheckFiles: the only check that looks at the file system, to follow
// symbolic links). Every expression of a plan is compiled as the runtime
// will compile it (checkRunnable), so that run never refuses what check
// accepted. Lower turns a job's plans into the physical plans exec runs
// (package physical): every fact the runtime needs (join keys, their
// common types and which are null-safe, state TTLs, delays, window columns, late-row destinations,
// source watermarks and idleness, sink casts) is decided here, once, and
// exec decides nothing. It also renders EXPLAIN (the logical plan, then
// the physical one) and checks contracts across jobs (CheckContracts).
package planner
