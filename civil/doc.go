// Package civil is streamsql's one calendar and its one reader and writer of
// dates and times as text (AppendDate, AppendTime and AppendTimestamp write
// what CAST to STRING, the formats and the print connector show). Values
// use the row encoding: a DATE is days since 1970-01-01, a TIME milliseconds
// of the day, a TIMESTAMP milliseconds since 1970-01-01 00:00 UTC, all on
// the proleptic Gregorian calendar.
//
//	DaysFromCivil(2024, 2, 29) = 19782        FromDays(19782) = 2024, 2, 29
//	ParseTimestamp("2024-01-01T00:00:00.123Z", Strict) = 1704067200123
//
// Two modes, because Flink has two contracts for the same text:
//
//   - Strict is its formats' (json, csv; docs/connectors.md): two-digit
//     month, day, hour, minute and second, and a timestamp has its time of
//     day: 'yyyy-MM-dd HH:mm[:ss[.f…]]' or ISO-8601
//     'yyyy-MM-ddTHH:mm[:ss[.f…]][Z|±hh[:mm]]'.
//   - Lenient is its CAST and TO_TIMESTAMP's (DateTimeUtils'
//     'yyyy-[M]M-[d]d [[H]H:[m]m:[s]s]'): one or two digits for each of
//     those fields, and a date alone is a timestamp at midnight.
//
// Both take ' ', 'T' or 't' between date and time, an optional zone ('Z',
// 'z', ±hh, ±hhmm, ±hh:mm, at most 18 hours) that is applied (the result is
// the UTC instant; without one the text is read as UTC), and 1 to 9
// fraction digits, truncated to milliseconds. Years have four digits, and
// a result outside years 1 to 9999 (row.MinMillis..row.MaxMillis) is an
// error: no format could write it, and event time would overflow.
//
// What AppendTimestamp writes for years 1..9999, ParseTimestamp reads back.
//
// Errors say what was expected and quote the text (cut to 64 bytes); they
// never name a column or a type: callers wrap them.
package civil
