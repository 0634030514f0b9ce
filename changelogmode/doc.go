// Package changelogmode names the kinds of change a streaming operator emits
// and the sets of kinds ("modes") that producers emit and consumers accept.
//
// A dynamic table is a stream of changes. Each row of the stream carries one
// Kind, printed the way Flink prints a RowKind:
//
//	+I  Insert        a new row
//	-U  UpdateBefore  the old image of an updated row (retracts it)
//	+U  UpdateAfter   the new image of an updated row
//	-D  Delete        a row that is gone
//
// A Mode is a set of kinds. Flink's ChangelogMode names three that matter,
// and so do we:
//
//	InsertOnly  [+I]           append-only: filesystem or kafka with json,
//	                           an interval join of append-only inputs
//	Upsert      [+I,+U,-D]     keyed: each change replaces or deletes the row
//	                           for its key, so no -U is sent (upsert-kafka)
//	All         [+I,-U,+U,-D]  retract: an update is a -U of the old row then
//	                           a +U of the new one (debezium-json, regular
//	                           outer joins, unwindowed aggregates)
//
// Upsert needs a key to be meaningful; All does not, which is why a plan with
// no upsert key must emit -U before +U. A consumer is satisfied when its mode
// Contains the producer's mode: an upsert sink can take [+I], but an
// append-only sink cannot take [+I,-D]. The planner infers modes in two
// passes (bottom-up what each node can produce, top-down what each consumer
// requires) and refuses a plan where they do not meet; this package only
// holds the vocabulary and the set algebra.
//
// Mode.String is stable and always lists kinds in the order +I, -U, +U, -D,
// for example "[+I,+U,-D]"; the empty mode prints "[]". ParseMode and
// ParseKind accept exactly what String produces (blanks around kinds are
// allowed), so golden files and EXPLAIN output round-trip.
//
// The package is a leaf: it imports only the standard library.
package changelogmode
