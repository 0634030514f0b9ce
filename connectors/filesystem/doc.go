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
// byte order mark at the start of the file); blank lines carry no row
// (except in csv, below). Lines are decoded with the table's 'format'
// (json, csv, debezium-json; see package format) and its options. A format
// whose decoder implements format.Lines frames its records itself: a csv
// record whose quoted field holds a line break goes on over the next lines
// (joined with the line breaks as they were), and an empty line is a record
// of one empty field, as Flink's csv reader takes it (a row in a one-column
// table, a record with too few fields in a wider one). A record is named
// by its first line, in errors and in the 'line' column.
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
// directory 'path' (partition.go, partsink.go). The sink is a PartSink:
// each row goes to the open part file of its partition,
// path/k1=v1/k2=v2/part-N, Flink's layout, encoded without the partition
// columns (they are marked as metadata for the format); values are their
// CAST to STRING, escaped as Flink's PartitionPathUtils does, NULL and ”
// as __DEFAULT_PARTITION__. A source whose 'path' is a directory reads
// every file under it (recursively, in name order, leaving out names that
// start with '.' or '_') as one split, file after file; partition columns
// take their values from the key=value directories; its position adds the
// file being read.
//
// # Rolling
//
// A partition's part file is closed ("rolled"; the partition's next row
// starts part-N+1) when it holds more than 'sink.rolling-policy.file-size'
// (checked before each row, as Flink's rolling policy does: a file exceeds
// the size by at most one row), or, checked at most every
// 'sink.rolling-policy.check-interval' when rows, watermarks or checkpoints
// reach the sink, when it has been open 'sink.rolling-policy.rollover-interval'
// or idle 'sink.rolling-policy.inactivity-interval'. A part file is visible
// (and read by a source) from its first row: rolling decides file sizes,
// not visibility.
//
// # Partition commit
//
// With 'sink.partition-commit.policy.kind' = 'success-file' a partition is
// committed (an empty success file, '_SUCCESS' by default, is written in
// its directory, synced) once its trigger fires: 'partition-time' when the
// watermark (connector.SinkWatermarker) is greater than the partition's
// time plus 'sink.partition-commit.delay', the time read from the
// partition values with 'partition.time-extractor.timestamp-pattern' and
// '...timestamp-formatter' (Flink's DefaultPartTimeExtractor);
// 'process-time' when the wall clock is past the partition's first row
// plus the delay. At the end of the input every partition is committed.
// A row that comes for a committed partition (late) is written into it and
// the partition is committed again, as in Flink.
//
// Without checkpoints a partition is committed as soon as its trigger
// fires, after its open file is written and synced; nothing is ever cut
// back, so a committed partition's bytes stay as they are (a late row
// appends). With checkpoints (connector.SinkCheckpointing) a commit waits
// for the checkpoint: Checkpoint marks the partitions whose trigger fired
// ready, closing their open files, and CheckpointComplete writes their
// success files (connector.SinkCommitter). The files a commit covers are
// then closed files that every later checkpoint holds at their length, so
// no restore cuts them back: a committed partition's files never change. A
// late row for it goes to a new part file, which a restore may remove
// until the partition is committed again. The checkpoint state is every
// partition's files and lengths, which were ready and which committed;
// Resume cuts the files back, removes the files and success files written
// after the checkpoint, and commits what was ready at it. At the end of the
// input the sink writes a finish marker ('_streamsql-finished.json', its
// final state) before the last commits: a run resumed from an earlier
// checkpoint then keeps the complete output and drops the rows it writes
// again (as the Kafka sink's finish marker does). Open removes an earlier
// run's part files, success files and marker.
package filesystem
