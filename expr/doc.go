// Package expr holds bound scalar expressions: names resolved to input
// column indexes, every node typed, Flink's syntax sugar removed. The binder
// (Bind) turns an ast.Expr into an Expr against a Scope, reporting unknown
// and ambiguous columns, unknown functions, wrong arguments and type
// mismatches at the user's position, with a "did you mean" where one is
// close.
//
// Promises:
//   - A bound Expr is well-typed: every Call's arguments satisfy the
//     function's signature, and Type() is the result type.
//   - BETWEEN is desugared into >= AND <=, so the planner sees one shape for
//     time bounds whatever the user wrote.
//   - Bind returns nil only after reporting at least one error.
//
// Aggregates (COUNT, SUM, ...) are recognised but not bound here: the
// planner supplies a Hook that replaces them (and grouped expressions) with
// references to the aggregate's output.
package expr
