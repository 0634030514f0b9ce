// Package eval compiles bound expressions (package expr) into closures that
// the executor calls once per row:
//
//	expr.Expr ──Compile──► Func(vals []row.Value) (row.Value, error)
//	          └─CompilePredicate──► func(vals []row.Value) (bool, error)
//
// Compilation does the work once: it resolves every operator to a
// specialised closure for its operand types, converts constants to their
// runtime encoding (and pre-scales them for comparisons), folds constant
// sub-expressions, compiles constant LIKE patterns, regular expressions and
// date formats, and refuses what the runtime does not support, naming it.
// The planner compiles every expression of a plan the same way when it
// checks a job (planner.checkRunnable), so a compile error is reported by
// `check`, at the expression, never first by `run`.
//
// # Promises
//
//   - No panics. Bad data gives an *Error that wraps one of ErrOverflow,
//     ErrDivisionByZero, ErrInvalidCast or ErrInvalidArgument and says what
//     and where; the caller decides whether the row goes to a dead-letter
//     destination or stops the job.
//   - SQL's three-valued logic. NULL in, NULL out for operators and most
//     functions; FALSE AND NULL is FALSE, TRUE OR NULL is TRUE; a comparison
//     with NULL is NULL, but x IS [NOT] DISTINCT FROM y never is (two
//     NULLs are not distinct); x IN (..., NULL) is NULL when nothing matches;
//     CompilePredicate counts NULL as false.
//   - No silent wrap-around: integer results outside their type (INT,
//     BIGINT ...) and DECIMAL results beyond 18 digits are ErrOverflow
//     ("DECIMAL overflow"); integer and DECIMAL division by zero is
//     ErrDivisionByZero. DOUBLE follows IEEE 754 (1.0 / 0 is Infinity), as in
//     Flink.
//   - Numbers compare mathematically across kinds: a DECIMAL(15, 2) holding
//     100001 (1000.01) is greater than the INT 1000; exact kinds compare
//     exactly, and a DOUBLE operand makes the comparison a DOUBLE one.
//   - A Func is safe for concurrent use and does not retain vals. Numeric,
//     boolean and time expressions allocate nothing per row.
//
// # Encodings
//
// Values are row.Values in the encoding of package row: BOOLEAN 0/1;
// integers as int64; FLOAT and DOUBLE as float64; DECIMAL(p, s) as the
// unscaled int64 (12.34 in DECIMAL(10, 2) is 1234), whatever p says, so at
// most 18 digits at run time; DATE as days, TIME as milliseconds of the day,
// TIMESTAMP and TIMESTAMP_LTZ as milliseconds since 1970-01-01 UTC;
// day-time intervals as milliseconds, year-month intervals as months.
//
// DECIMAL arithmetic follows the types the binder derived
// (types.ArithmeticResult): operands are rescaled to their common scale for
// + - %, products and quotients are computed exactly in 128 bits (math/big
// for extreme scales) and rounded half up to the result scale, as Flink's
// BigDecimal arithmetic does. Casts from DOUBLE to DECIMAL round the
// double's shortest decimal text, so 1.005 becomes 1.01 at scale 2.
//
// # Functions worth knowing
//
//   - CAST fails on bad input (ErrInvalidCast, naming the text and the
//     type); TRY_CAST gives NULL. Casts to VARCHAR(n) truncate, to CHAR(n)
//     pad, as in Flink 1.15+; DECIMAL and DOUBLE cast to integers by
//     truncation toward zero.
//   - TO_TIMESTAMP, TO_DATE and UNIX_TIMESTAMP(s) give NULL for text that
//     does not parse, as Flink does. Without a format TO_TIMESTAMP reads
//     what ParseTimestamp does. Formats are Java patterns in the dialect
//     Flink uses for each function (DateTimeFormatter for DATE_FORMAT of a
//     TIMESTAMP and for TO_TIMESTAMP, SimpleDateFormat for the others), in
//     the en_US locale (javafmt.go lists the letters).
//   - CURRENT_WATERMARK(rowtime) is the watermark of the operator
//     evaluating it (Options.Watermark: filters and projections supply
//     theirs), NULL before its first; it does not compile elsewhere.
//   - TO_TIMESTAMP_LTZ(n, 0) reads seconds, (n, 3) milliseconds; DECIMAL
//     and DOUBLE inputs keep their millisecond fraction.
//   - LIKE: % and _ with backslash as the escape (with ESCAPE 'c', c before
//     _, % or itself only, as Flink's); a constant pattern is compiled once
//     into a prefix, suffix, infix or general matcher.
//   - FLOOR/CEIL(t TO unit) round in UTC; weeks start on Sunday; CEIL is the
//     first boundary at or after t (Flink's ignores the time of day for
//     weeks and longer units).
//   - TIMESTAMPADD by months, quarters and years clamps the day to the end
//     of a shorter month; TIMESTAMPDIFF counts months with Flink's
//     DateTimeUtils.subtractMonths (2026-01-31 to 2026-02-28 is one month),
//     other units truncated toward zero. YEAR ... DAYOFWEEK are EXTRACT's.
//   - HASH_CODE is Java's hashCode for numbers, booleans and strings
//     (String.hashCode over UTF-16), not Flink's internal binary hash.
//   - PROCTIME(), NOW(), CURRENT_TIMESTAMP and CURRENT_ROW_TIMESTAMP() read
//     Options.Now on every row; they are never folded, nor are
//     LOCALTIMESTAMP, LOCALTIME,
//     CURRENT_DATE, CURRENT_TIME (the session time zone is UTC), RAND,
//     RAND_INTEGER and UUID.
//   - RAND(seed) and RAND_INTEGER(seed, bound) draw java.util.Random's
//     sequence (funcs_flink.go has its algorithm), as Flink's do, one
//     generator per compiled expression.
//   - CONVERT_TZ reads zones as Java's TimeZone does (regions, the short
//     IDs, GMT+hh:mm) from the zone database compiled in (time/tzdata);
//     an unknown zone is ErrInvalidArgument, not Java's silent GMT.
//
// # Time zones
//
// streamsql has no session time zone yet: the local time zone is UTC.
// TIMESTAMP_LTZ and TIMESTAMP hold the same milliseconds, CAST between them
// does not shift, and DATE_FORMAT, EXTRACT, HOUR and friends read both in
// UTC. A zone offset in parsed text ('2026-01-01T10:00:00+02:00') is
// applied, giving UTC.
//
// # Not supported
//
// DECIMAL beyond 18 digits (the 64-bit encoding). Beware of division: Flink
// gives DECIMAL(15, 2) / INT the scale 13, which leaves 5 integer digits, so
// 200000.00 / 2 is a DECIMAL overflow here; CAST an operand to DOUBLE or to
// a smaller DECIMAL first. Sub-millisecond time precision (digits beyond milliseconds are dropped);
// Java regular-expression features that Go's RE2 lacks (backreferences,
// lookaround ...) and constructs the two read differently in REGEXP_EXTRACT
// and REGEXP_REPLACE: refused, named (regex.go); time-zone letters in a DateTimeFormatter
// pattern (a TIMESTAMP has no zone); parsing week fields, quarters and zones.
package eval
