// Package catalog holds what a job file declares: tables (columns, computed
// and metadata columns, the watermark, the primary key, the connector
// configuration) and views, and the session's settings (SET/RESET).
//
// CreateTable checks a CREATE TABLE completely before it is registered:
// column types, computed-column expressions (bound against the table's own
// columns), the watermark (on a TIMESTAMP(p)/TIMESTAMP_LTZ(p) column, of the
// form col or col - INTERVAL ...), the primary key, and the WITH options
// against the connector's declaration in package connectors. Every mistake is
// reported at its position with a suggestion where one is close; a table
// with errors is still registered (marked Invalid) so that later statements
// naming it do not add "unknown table" noise.
//
// A table also says what its connector runtime gets (connector.go):
// SourceColumns and SinkColumns are the columns a source produces and a
// sink writes, and ConnectorSpec the connector.Spec built from the table.
//
// Names are case-sensitive, as in Flink; a lookup that only differs in case
// is reported with the right spelling.
package catalog
