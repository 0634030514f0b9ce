// Package ast is streamsql's own syntax tree for job files: statements,
// queries, expressions and data types, each with the byte Span it came from
// in the user's original text.
//
// The parser builds it from two sources: our own code for Flink's statements
// and DDL (CREATE TABLE with WATERMARK and WITH, SET, EXPLAIN, STATEMENT SET
// ...), and TiDB's parser for queries and expressions, whose nodes are
// converted here so that nothing downstream sees a TiDB type. Spans always
// refer to the original text, never to a rewritten one.
//
// Node interfaces are closed: Stmt, Query, TableExpr and Expr each have an
// unexported marker method, and Children panics on a node it does not know,
// so adding a node fails loudly wherever it must be handled.
//
// The tree is plain data. Format prints a node back as canonical SQL, which
// is what the golden files show, and what views keep.
package ast
