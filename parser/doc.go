// Package parser reads job files into ast statements (Parse). Its own lexer
// and statement parser handle Flink's statements and DDL; queries and
// expressions go to TiDB's parser through a dialect layer that rewrites
// what TiDB does not know into placeholders, records every rewrite and maps
// positions back, so that every node gets its span in the user's text.
// Errors are diagnostics, never panics; nothing outside this package sees a
// TiDB type.
package parser
