// Package types holds streamsql's logical data types: what a column, a
// literal or an expression is, independent of how a connector encodes it or
// how the executor stores it.
//
// The types are Flink's, with Flink's names and defaults, so that a job file
// written for Flink means the same thing here:
//
//	BOOLEAN
//	TINYINT < SMALLINT < INT < BIGINT < DECIMAL(p, s) < FLOAT < DOUBLE   (numeric widening)
//	CHAR(n), VARCHAR(n), STRING = VARCHAR(2147483647)
//	BINARY(n), VARBINARY(n), BYTES = VARBINARY(2147483647)
//	DATE, TIME(p)
//	TIMESTAMP(p)      wall-clock date and time, no zone (default p = 6)
//	TIMESTAMP_LTZ(p)  an instant, shown in the session zone (default p = 6)
//	INTERVAL DAY TO SECOND(3), INTERVAL YEAR TO MONTH
//	NULL              the type of the NULL literal
//	ARRAY<T>, MAP<K, V>, ROW<name T, ...>   nested types (ArrayOf, MapOf, RowOf)
//
// A T is a small comparable value (kind, parameters, nullability), so types
// can be compared with == and used as map keys. Its String method prints the
// canonical Flink spelling (STRING, DECIMAL(15, 2), TIMESTAMP_LTZ(3) NOT
// NULL), which is what EXPLAIN, DESCRIBE and error messages show.
//
// # From syntax to types
//
// FromAST turns a parsed ast.TypeName into a T. It accepts Flink's names and
// aliases (INTEGER, DEC, NUMERIC, DOUBLE PRECISION, CHARACTER, TIMESTAMP WITH
// LOCAL TIME ZONE ...), applies Flink's defaults when parameters are left out
// (DECIMAL is DECIMAL(10, 0), VARCHAR is VARCHAR(1), TIMESTAMP is
// TIMESTAMP(6)), and reports every out-of-range parameter or unknown name as
// a positioned diag.InvalidType error that says what is allowed. Names from
// other systems (BOOL, TEXT, DATETIME, TIMESTAMPTZ ...) are refused with the
// Flink type to write instead, so that job files stay portable to Flink.
//
// # Rules for the binder
//
// Comparable, CommonType, ArithmeticResult, ImplicitCast and CanCast are the
// typing rules the binder applies to comparisons, CASE/COALESCE/UNION,
// arithmetic, INSERT and CAST. They follow Flink's LogicalTypeCasts and
// LogicalTypeMerging, simplified where Flink's behaviour is an accident, and
// stricter in two places where a silent conversion has cost users data:
//
//   - TIMESTAMP and TIMESTAMP_LTZ are different families. They are neither
//     comparable nor merged into a common type without an explicit CAST,
//     because the conversion depends on the session time zone.
//   - Numbers never cast to or from TIMESTAMP or TIMESTAMP_LTZ. Whether 1767225600000
//     is seconds or milliseconds must be written down:
//     TO_TIMESTAMP_LTZ(epoch, 3) for milliseconds, TO_TIMESTAMP_LTZ(epoch, 0)
//     for seconds (Flink 1.15+ refuses the TIMESTAMP case too; it reads
//     TIMESTAMP_LTZ casts as seconds).
//
// Nested types compare (= and <> only: Orderable) and merge only with the
// same type apart from nullability and ROW field names, since their values
// are compared by their encoding (package row); CAST converts them element
// by element, and to a string as Flink prints them.
//
// Results are nullable when any input is nullable. The NULL type is
// comparable with every type and merges into any type as a nullable one.
package types
