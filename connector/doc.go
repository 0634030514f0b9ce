// Package connector is the contract between the runtime and the code that
// reads and writes data: the Source and Sink interfaces, the optional
// SplitDoner, SplitPauser, Buffered, SplitMeter and Acknowledger, the BadRowError a source
// reports undecodable input with, the Column descriptors of a schema, and
// the registry of factories by connector name; and for checkpoints the
// optional Positioner and CheckpointNotifier (sources) and SinkCheckpointer,
// SinkCommitter, CheckpointRequirer and SinkCheckpointing (sinks), see
// checkpoint.go; SinkWatermarker, for sinks that act on event time (the
// filesystem sink's partition commit); and LookupTable, a table read by key for a
// lookup join, with its own registry (lookup.go). The model is Benthos's
// input: connect, read a batch, close.
//
//	connectors/<name> ──init: RegisterSource/RegisterSink──► registry
//	exec ──LookupSource(name)(Spec)──► Source ──Read──► row.Batch
//	format ──Column──► Decoder/Encoder for a schema
//
// It is a leaf: it imports row and types and nothing else of streamsql, so
// that a codec (format), a connector runtime (connectors/<name>) and the
// runtime (exec) can all depend on it without depending on each other, and
// a JSON codec does not drag in the SQL parser or the state store.
// internal/archtest keeps it so.
//
// # connector and connectors
//
// Package connectors (plural) is the planner's side: the declarations of
// connectors and formats (their options, defaults, validation, changelog
// modes), checked against a CREATE TABLE's WITH clause with spans for the
// errors. Package connector (singular) is the runtime's side: what a
// connector does once the planner has accepted its table. The two meet in
// Spec.Options, which connectors.Config implements; catalog.Table builds a
// Spec's table fields and schemas (catalog.Table.ConnectorSpec,
// SourceColumns, SinkColumns).
//
// # What it promises
//
//   - A factory checks and allocates nothing that needs closing; Open
//     connects. The registry is safe for concurrent use; registering a name
//     twice panics (a programming error, found at init).
//   - Every method's contract is on the interface: when it is called, from
//     which goroutine, and what an error or io.EOF means.
package connector
