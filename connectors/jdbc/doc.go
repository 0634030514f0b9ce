// Package jdbc is the runtime of the 'jdbc' connector: a table of a
// PostgreSQL, MySQL or MariaDB database, written by a sink and read by a
// bounded scan. The connector's options and their checks are declared in
// package connectors (jdbcSpec); this package registers the source and
// sink factories with package connector.
//
// What it promises, as Flink's JDBC connector does:
//
//   - A sink of a table with a PRIMARY KEY takes upserts and deletes by key
//     (the planner hands it +I, +U and -D; -U only when they are deletions,
//     see exec's sinkOp). The changes are buffered and reduced per key as
//     Flink's TableBufferReducedStatementExecutor does: the last change of a
//     key wins, so a -D and then a +I of one key within a buffer end as the
//     +I. A flush writes the buffer in one transaction, as multi-row
//     INSERT ... ON CONFLICT (...) DO UPDATE (PostgreSQL) or INSERT ... ON
//     DUPLICATE KEY UPDATE (MySQL, MariaDB) and DELETE ... WHERE key IN
//     (...). Keys are distinct within a flush, so the order of the
//     statements does not matter; across flushes it is the order of the
//     input.
//   - A sink of a table without one only inserts, in order (the planner
//     refuses an updating query at check, SQL401).
//   - The buffer is flushed when 'sink.buffer-flush.max-rows' rows were taken
//     since the last flush, every 'sink.buffer-flush.interval' (from a timer,
//     as Flink's scheduler), at the end of the input and when the sink closes.
//     A failed flush is retried 'sink.max-retries' times, after 0 s, 1 s,
//     2 s, ... (Flink's backoff); the pool drops a broken connection and the
//     next attempt makes a new one. The buffer is kept until a flush
//     commits, so nothing taken is lost: a retry writes all of it again (the
//     upserts and deletes are idempotent; a transaction that did not commit
//     left nothing behind). When the retries are spent the job fails with the
//     database's error. Rows count as written (connector.Acknowledger) once their
//     flush committed.
//   - A sink of a table with a PRIMARY KEY takes part in checkpoints
//     (keyedSink, checkpoint.go): it writes its buffer before a barrier is
//     acknowledged and, on resume, relies on the replay's upserts by key
//     instead of cutting the table back. A sink without one does not (a
//     replay would insert twice): its job runs without checkpoints.
//   - When a job starts (Open), the table must exist and its columns must
//     hold the DDL's: every column of the DDL is matched to a column of the
//     table (by name, or ignoring case when that is unambiguous, as an
//     unquoted name folds), each column's type must hold the DDL type's
//     values, a keyed sink's key must be the table's primary key (or a
//     unique key) on the same columns, and a column the DDL does not write
//     must be nullable or have a default. Otherwise Open fails with every
//     mismatch named. `streamsql check` does not connect: a job file checks
//     on a machine without the database.
//   - A lookup table (Lookup, the dim side of a lookup join) answers the
//     distinct keys of a probe batch with one SELECT ... WHERE key IN
//     (...) (or (k1, k2) IN ((...), ...)), 256 keys a statement at most,
//     as Flink's JdbcRowDataLookupFunction answers one key; a failed
//     query is retried 'lookup.max-retries' times after 0 s, 1 s, 2 s, ...
//     (Backoff), on a new connection when the old one was lost, then the
//     job fails with the database's error. It returns what the database
//     matched; the runtime keeps the rows equal by streamsql's =, and the
//     runtime, not the connector, caches.
//   - A source reads the table once with one SELECT (or one per range with
//     'scan.partition.*': WHERE column BETWEEN low AND high, the ranges
//     read one after another), its rows all +I, and ends.
package jdbc
