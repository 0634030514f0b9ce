// Package exec runs planned jobs: it turns physical plans (package
// physical, lowered by planner.Lower) into operators, wires them
// push-style, reads the sources, moves event time forward with watermarks,
// and writes the sinks. Build is mechanical: every fact an operator is built
// from (keys, casts, state TTL, delays, window columns, late-row
// destinations, watermarks) was decided by the planner; exec imports
// neither the planner, the logical plan, the catalog nor the parser
// (internal/archtest).
//
//	source goroutines ──msg──► task goroutine: calc ─► join ─► aggregate ─► sink
//	(read, computed columns,   (operators call each other synchronously;
//	 per-split watermarks)      one batch at a time)
//
// Promises:
//   - Operators are synchronous inside the task; only typed messages (a
//     batch, a watermark, the end of a source) cross goroutines, in order, on
//     one channel. No goroutine hop per row.
//   - Every operator, and every sink, is called from one goroutine only:
//     keyed operators run in partitions (parallel.go) whose outputs a merge
//     stage gathers, and an unpartitioned operator whose inputs come from
//     different goroutines (a UNION ALL of two partitioned branches) gets a
//     stage of its own (fanIn). A sink's rows therefore never interleave,
//     and one key's changes reach it in order.
//   - A table is read once per job: scans of it in several statements
//     (or twice in one, a self-join) share one source, whose batches,
//     watermarks, idleness and end fan out to each consumer in the task.
//   - A watermark W means no more rows with time <= W are expected on that
//     input. A source's watermark is the minimum over its active splits; a
//     multi-input operator's is the minimum over its inputs; watermarks never
//     go backwards. A split quiet for 'scan.watermark.idle-timeout' is idle
//     and leaves the minimum; idleness travels with the watermarks, so a
//     join takes the minimum over its inputs that are not idle, and an
//     input back from idleness below the join's watermark stays out of the
//     minimum (its rows late) until it catches up. Sources of
//     one alignment group ('scan.watermark.alignment.*') stop reading while
//     more than max-drift ahead of the group (align.go).
//   - Connectors register factories (package connector) that check a table and
//     allocate nothing; CheckConnectors calls them for every table a job
//     uses, so that `check` refuses what Build would (check.go).
//   - A bounded source ends with a final watermark (MaxWatermark) that fires
//     every timer and flushes every buffered row, then End. The job ends when
//     every sink has seen End.
//   - A row whose time is at or below its operator's watermark is late: it is
//     counted per operator and source, and written to the job's dead-letter
//     destination when one is configured ('scan.late-rows.path'); it is never
//     dropped without a trace. With checkpoints the dead-letter file is
//     exactly-once: each checkpoint records its length at a consistent cut
//     (the writers of one file hold the lines they write after a barrier
//     until all have passed it), and a resumed job cuts it back to that
//     length, or to its length at the job's first start
//     (DeadLettersStartName) when there is no checkpoint (deadletter.go). A window aggregate with allowed lateness
//     ('table.exec.emit.allow-lateness') still takes a row for a fired
//     window until window_end - 1 + lateness, updating the result
//     (Counters.LateUpdates); final-only emits each window once, then.
//     Session windows (session.go) retract (-D) the sessions a late row
//     extends or merges; outer window joins retract a padded row when a
//     late partner comes; a window Top-N updates the top rows a late row
//     enters. Each holds its output watermark back by the lateness.
//     Early and late firing ('table.exec.emit.early-fire.*',
//     '….late-fire.*') emit a group's result on a processing-time timer.
//   - Processing-time timers (proctime.go) fire on the goroutine that
//     runs their operator, between two calls of it: its loop (the task's
//     or its stage's) waits for the earliest timer besides its next
//     message. Time comes from Options.Clock and Options.Wake, which
//     tests replace with a fake clock. Timers are not checkpointed; the
//     state they guard is.
//   - A row that cannot be placed in time (a NULL event time, or one
//     outside years 1 to 9999) never moves a watermark; every time-based
//     operator counts it (Counters.NoTime, against the operator and the
//     source) and writes it to the dead-letter destination with the reason
//     when it drops it (eventtime.go says what each operator does).
//   - Bad input (a row a source cannot decode) fails the job with where and
//     why, unless the table says to skip it ('json.ignore-parse-errors'); a
//     skipped row is counted. Nothing already accepted is lost: the good
//     rows read before a bad one go on before the job stops.
//   - Keyed operators store, look up and partition rows by the keys the
//     planner decided: a physical join's Keys, already cast to the type
//     both sides compare in, and its residual condition; a group's keys.
//     Exec derives no key itself. A key's encoding (row.AppendKey) makes
//     values equal exactly when = does: -0.0 with 0.0, NaN with NaN. A
//     lookup join (lookup.go) matches the rows its table returns to their
//     keys with the same encoding, whatever the database's collation
//     matched; its cache is no state (a resumed job asks the table again).
//   - Every operator keeps one contract (operator.go): open, then batches
//     per input port, "the watermark advanced to W", "input i ended", and
//     finish when all have, then close; one call at a time, never
//     re-entered; a batch is lent for the call. Its inputs' watermarks,
//     idleness and ends are combined by the runtime (valve.go), once for
//     all operators, not by each.
//   - No panic escapes on user input: an operator error (or panic) stops
//     the job with a RuntimeError that names the operator and, when the
//     job's text is known (Options.Source), where its SQL is:
//     "job.sql:12:3: runtime error in Join INNER(o, c): …".
package exec
