// Package diag holds source positions and diagnostics for every stage of
// streamsql: the parser, the catalog, the binder and the planner.
//
// A position is a byte offset into the user's original text (Pos), and a
// Span is a half-open range [Start, End). Offsets are turned into line and
// column only when a diagnostic is printed, against the Source it came from,
// so rewrites made by the dialect layer never leak into what a user sees: the
// parser maps every offset back to the original text before it builds a Span.
//
// A Diagnostic carries a stable Code (documented in docs/errors.md), a
// Severity, a Span, a message that says what is wrong, optional notes that
// point at related places (for example the operator that produces retractions
// behind an INSERT that is refused), and optional hints that say what to do.
// Stages collect diagnostics in a List and report them together.
//
// Printing follows the go vet convention:
//
//	FILE:LINE:COL: error: message [CODE]
//	   12 | WATERMARK FOR order_tme AS order_tme - INTERVAL '5' SECOND
//	      |               ^^^^^^^^^
//	      = hint: did you mean order_time?
//
// Lines and columns are 1-based; a column counts bytes, as go/token does.
package diag
