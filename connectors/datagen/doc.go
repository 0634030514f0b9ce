// Package datagen is the runtime of the 'datagen' connector: a source that
// generates rows, with Flink's options.
//
// Every physical column gets a generator, set by 'fields.<column>.…':
//
//	kind = random (default)
//	  BOOLEAN                 true or false
//	  TINYINT .. BIGINT       uniform in [min, max] (default: the type's range)
//	  FLOAT, DOUBLE           uniform in [min, max] (default: [0, the type's largest])
//	  DECIMAL(p, s)           uniform in [min, max] (default: every p-digit value), exact
//	  CHAR, VARCHAR, STRING   'length' (default 100, at most the type's length)
//	                          random hex digits; 'var-len' = 'true' picks a length in [1, length]
//	  BINARY .. BYTES         'length' random bytes
//	  TIMESTAMP(p), _LTZ(p)   the clock's now, minus a random duration up to 'max-past' (default 0)
//	  DATE, TIME(p)           today's date and time of day, the same way
//	  ARRAY<T>, MAP<K, V>     'length' (default 3, as Flink's) elements or entries (equal keys
//	                          collapse), each part generated with the options of its path:
//	                          'fields.<col>.element.…', '.key.…', '.value.…'
//	  ROW<f T, ...>           each field with the options of 'fields.<col>.<f>.…'
//	kind = sequence
//	  numbers and strings     'start', 'start'+1, ..., 'end' (inclusive); the source
//	                          ends when any sequence does
//	null-rate                 the share of NULLs, in [0, 1]
//
// # Rows and time
//
// 'number-of-rows' bounds the source (io.EOF after that many rows), as does
// a sequence. 'rows-per-second' (default 10000) limits the rate in wall
// time: rows are generated in small batches (about 10 ms worth, at most
// 1024), each released when its last row is due, measured from Open; a
// source that falls behind catches up by at most one second's worth. A
// bounded source without an explicit 'rows-per-second' generates as fast
// as it can, so that bounded jobs and tests do not wait on the clock.
//
// 'seed' (a streamsql option) seeds the random values: the same seed and
// the same clock give the same rows. The clock, both for timestamps and
// for the rate, is a Clock: the registered factory uses the system clock;
// tests pass their own to NewSource and neither sleep nor read the time.
//
// A source resumes from a checkpoint (connector.Positioner): its position
// is the rows generated and left, each sequence column's next value and the
// random generator's state, so a resumed source generates what the
// original would have generated next.
package datagen
