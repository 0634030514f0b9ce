// Package physical is the plan the runtime executes: the one contract
// between the planner and package exec.
//
// The planner lowers its optimised logical plan (package logical) to a
// tree of physical nodes, one per operator exec builds, with every fact the
// runtime needs already decided: a join's keys cast to the type both sides
// compare in, its residual, each side's state retention, an interval
// join's bounds and how far it holds the watermark back, a window
// aggregate's window_end and time columns, which source an input's late
// rows are counted against and where they are written, a source's
// watermark, idleness and alignment, a sink's casts and what it does with
// -U. Exec constructs operators from these fields and decides nothing about
// meaning; anything it would have to work out belongs here.
//
// Promises:
//   - Every node has a stable ID, derived from its kind, its name and the
//     IDs of its inputs (a Source's from its table, connector and
//     watermark), never from pointers, map order or the clock: the same job
//     planned again gets the same IDs, so state written by an operator can
//     be matched to it after a restart (AssignIDs). IDs are unique within a
//     job, except that scans of one table with one watermark are one Source
//     with one ID (a table is read once per job).
//   - Every node has a Name (counters, runtime errors) and the Span of the
//     SQL it came from.
//   - Column indexes in a node index its input's columns (Left's then
//     Right's for the two-sided joins' Residual, each side's own for
//     Keys; a LookupJoin's Residual: its input's then the dim table's).
//   - A LookupJoin's dim table (Dim) is described as a Source but is no
//     input and no source: it has no ID and is never read as a stream.
//   - Nothing here refers to the logical plan; exec reads nothing else.
//
// The package imports expr, types, diag, changelogmode and connector (the
// connector.Spec a Source or Sink hands to its connector's factory).
package physical
