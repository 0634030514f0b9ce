// Package planner checks and plans job files (PlanFile, given the parsed
// statements; frontend.CheckJob parses and calls it): a Session applies
// statements in order, binds queries and INSERTs into logical plans, runs
// the rewrite rules, derives each node's properties (changelog mode, upsert
// keys, time attributes, state retention) and reports what cannot run or
// will hurt. A job may not write the files it reads, nor one file twice
// (CheckFiles: the only check that looks at the file system, to follow
// symbolic links). Every expression of a plan is compiled as the runtime
// will compile it (checkRunnable), so that run never refuses what check
// accepted. It also renders EXPLAIN and checks contracts across jobs
// (CheckContracts).
package planner
