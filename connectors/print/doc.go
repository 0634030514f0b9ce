// Package print is the runtime of the 'print' connector: a sink that writes
// every row to standard output, or to standard error with
// 'standard-error' = 'true', one line per row, the way Flink's print
// connector does:
//
//	+I[1, abc, 2026-01-01 00:00:00.000]
//	-U[1, abc, 2026-01-01 00:00:00.000]
//	id> +U[1, abd, 2026-01-01 00:00:00.000]      (with 'print-identifier' = 'id')
//
// The kind is printed first; values follow in column order, separated by
// ", ", in their text form (format.AppendText: timestamps with the type's
// precision, decimals with their scale, bytes in base64), NULL as null.
//
// Each Write prints its whole batch with one call on the writer, under a
// lock shared by every print sink, so lines of concurrent sinks never
// interleave. The sink keeps no buffer of its own: Flush has nothing to do.
// Tests replace Stdout and Stderr, or call NewSinkTo with a writer.
package print
