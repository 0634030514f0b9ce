// Package logical is the logical plan: the relational operators a bound
// query is made of, before the planner chooses how they run.
//
//	Scan ─► ChangelogNormalize ─► Filter/Project ─► Join (regular, temporal) ─► Window ─► Aggregate ─► Rank ─► UpsertMaterialize ─► Sink
//	                                                                             Union
//
// Rank is ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...): the binder
// makes it unbounded, the rank rule bounds it with the filter on its number
// above and decides how it runs (a Top-N, a deduplication, a window Top-N).
//
// ChangelogNormalize and UpsertMaterialize are not written by the user: the
// planner puts the first above the scan of an upsert source whose consumer
// needs -U, the second in front of a keyed sink whose key is not a key of
// the query.
//
// Each node knows its output columns (Cols), with the time attribute of each
// column, and the span of the SQL it came from, so that a planning error
// points at the user's text. Node is a closed interface; Children is the one
// place that knows every node's inputs and panics on a node it does not know.
package logical
