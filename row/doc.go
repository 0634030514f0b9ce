// Package row is the runtime representation of data: a Value is a compact
// typed scalar (no interface boxing, no allocation for numbers and times), a
// Row is a changelog kind plus values, and a Batch is what crosses goroutine
// boundaries.
//
// Encoding of each logical type (package types) in a Value:
//
//	BOOLEAN                         Int 0 or 1
//	TINYINT .. BIGINT               Int
//	FLOAT, DOUBLE                   Float (bits in the int field)
//	DECIMAL(p, s), p <= 18          Int: the unscaled value (12.34 in DECIMAL(10,2) is 1234)
//	CHAR, VARCHAR, STRING           Str
//	BINARY, VARBINARY, BYTES        Str (raw bytes)
//	DATE                            Int: days since 1970-01-01
//	TIME(p)                         Int: milliseconds of the day
//	TIMESTAMP(p), TIMESTAMP_LTZ(p)  Int: milliseconds since 1970-01-01 UTC
//	INTERVAL DAY TO SECOND          Int: milliseconds
//	INTERVAL YEAR TO MONTH          Int: months
//	NULL                            the zero Value
//	ARRAY, ROW                      Str: a list of values (nested.go)
//	MAP                             Str: a list of keys and values, sorted by key
//
// Times are kept in milliseconds, the unit of event time and watermarks;
// precision beyond milliseconds is truncated. DECIMAL with precision above 18
// is kept in 64 bits too and an overflow is an error, never a silent wrap.
package row
