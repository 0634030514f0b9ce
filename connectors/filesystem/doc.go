// Package filesystem is the runtime of the 'filesystem' connector: a source
// that reads one file (or the files under a directory), line by line, and a
// sink that writes one (or, for a partitioned table, one per partition).
//
//	file ──bufio, line by line──► format.Decoder ──► row.Batch (≤ 1024 lines) ──► runtime
//	runtime ──► row.Batch ──► format.Encoder ──► whole lines (64 KiB or 200 ms) ──write──► file ──Flush: fsync
//
// # Source
//
// The file at 'path' (relative to the job file's directory, connector.Spec.BaseDir)
// is read once, from the start, as one split (split 0); Read returns the
// rows of up to 1024 lines at a time, then io.EOF. Lines may be of any
// length. A line ends at '\n' (a preceding '\r' is dropped; so is a UTF-8
// byte order mark at the start of the file); blank lines carry no row. Lines
// are decoded with the table's 'format' (json, csv, debezium-json; see
// package format) and its options. A format whose decoder implements
// format.Lines frames its records itself: a csv record whose quoted field
// holds a line break goes on over the next lines (joined with the line
// breaks as they were), and with one column an empty line is a row (NULL).
// A record is named by its first line, in errors and in the 'line' column.
//
// Bad input never vanishes: a line that cannot be decoded ends the batch,
// and Read returns the good rows before it together with an
// *connector.BadRowError whose Where is "PATH:LINE" (1-based, the record's first
// line; a file that ends inside a csv quoted field is a bad row there), whose Err says
// which column and value, and whose Raw is the line. The source itself
// never skips: the next Read continues after the bad line, and the runtime
// decides, from '<format>.ignore-parse-errors', whether to count and skip
// the row or to stop the job. An I/O error is returned as is.
//
// Metadata columns: 'file.path' (the path read, as resolved), 'file.name',
// 'file.size' (bytes), 'file.modification-time' (TIMESTAMP_LTZ(3)) and
// 'line' (the row's 1-based line number). 'source.monitor-interval' (an
// unbounded, watching source) is not implemented: the factory refuses it.
//
// # Lookup
//
// Lookup (lookup.go) is a file as the dim side of a lookup join, as Flink's
// filesystem lookup source: Open reads the whole file with a Source into a
// map from the join's key columns (row.AppendKey) to their rows; a Lookup
// that comes 'lookup.join.cache.ttl' (default 60 min) or more after the
// last read reads the file again into a new map. A row with a NULL key is
// not indexed (it equals nothing). A bad line fails the read, or is skipped
// with '<format>.ignore-parse-errors'. debezium-json is refused.
//
// # Sink
//
// Open creates the file at 'path' (and its directory), truncating it; each
// row is one line in the table's format. Encoded rows are gathered and
// written whole, with one write call, once there are 64 KiB of them or the
// oldest has waited 200 ms (checked as rows arrive), so the file only ever
// grows by whole lines: a job that fails, is stopped or is killed leaves
// parseable lines, never part of one. A row that fails to encode leaves
// nothing behind; a write that fails part way (a full disk) is cut back to
// the last whole line. One limit: Linux may cut a single write call at a
// page boundary when SIGKILL arrives during it, a window of microseconds.
// Flush writes what is gathered and fsyncs the file, so everything before a
// Flush is durable; Close flushes and closes. json and csv take +I rows
// only (the planner proves nothing else reaches them); debezium-json takes
// every kind.
//
// # Checkpoints
//
// The source's Position is the byte offset and line number after the last
// record Read returned; Seek continues there, refusing a file that no
// longer ends a line at that offset (it was shortened or rewritten). The
// sink's Checkpoint writes what is gathered, fsyncs and returns the file's
// length; Resume, called instead of Open when a job resumes, opens the file
// without truncating it and cuts it back to that length, so the rows
// written after the checkpoint, which the resumed job writes again, appear
// once: exactly-once output across a crash.
//
// # Partitions
//
// A table with PARTITIONED BY (connector.Spec.PartitionKeys) has a
// directory 'path' (partition.go). The sink is a PartSink: each row goes
// to path/k1=v1/k2=v2/part-0, Flink's layout, encoded without the
// partition columns (they are marked as metadata for the format); values
// are their CAST to STRING, escaped as Flink's PartitionPathUtils does,
// NULL and ” as __DEFAULT_PARTITION__. Its checkpoint state is every part
// file's length; Resume cuts each back to it and removes the part files
// of partitions first written after it; Open removes an earlier run's part
// files. A source whose 'path' is a directory reads every file under it
// (recursively, in name order, leaving out names that start with '.' or
// '_') as one split, file after file; partition columns take their values
// from the key=value directories; its position adds the file being read.
package filesystem
