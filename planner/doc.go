// Package planner checks and plans job files (CheckJob): a Session applies
// statements in order, binds queries and INSERTs into logical plans, runs
// the rewrite rules, derives each node's properties (changelog mode, upsert
// keys, time attributes, state retention) and reports what cannot run or
// will hurt. It also renders EXPLAIN and checks contracts across jobs
// (CheckContracts).
package planner
