// Package format encodes and decodes rows: Flink's json, debezium-json, csv
// and raw formats, for the file and Kafka connectors. A Decoder turns one
// record (a line, a Kafka record value) into rows of a schema; an Encoder
// turns a row into one record.
//
//	record bytes ──Decoder.Decode──► row.Batch (+I; or -U/+U, -D for debezium-json)
//	row.Row      ──Encoder.Encode──► record bytes (appended to a caller's buffer)
//
// # What a decoder promises
//
//   - Values follow the row package's encoding (DECIMAL a scaled int64,
//     TIMESTAMP and TIMESTAMP_LTZ milliseconds since the epoch UTC, DATE
//     days, BOOLEAN 0/1, strings and bytes Str), one per schema column, in
//     schema order. Metadata columns (connector.Column.MetadataKey set) are not
//     read or written by a format: they stay NULL for the connector to fill.
//   - Nothing is guessed and nothing is dropped silently. A value that does
//     not fit its column is an error naming the column, its type and the
//     value (a *FieldError; the value as written, quoted for csv, cut to 40
//     characters and an ellipsis), never a NULL or a truncation: 1.5 for an
//     INT, 300 for a TINYINT, 123.456 for a DECIMAL(4, 2) (it has room for
//     two digits before the point), "" for an INT in csv, a byte that is not
//     UTF-8 in a character string (declare BYTES for binary data). Extra
//     fraction digits of a DECIMAL are rounded half up, as a Flink cast does;
//     decimals are read from their text, exactly, never through a float.
//     Malformed JSON is an error at a byte offset that shows the text there
//     and the column whose value it was in; a malformed csv record shows the
//     record or the field.
//   - Time has an explicit unit. A TIMESTAMP(p) or TIMESTAMP_LTZ(p) value
//     is text, 'yyyy-MM-dd HH:mm:ss[.fff]' or ISO-8601
//     'yyyy-MM-ddTHH:mm:ss[.fff][Z|+hh:mm]' (an offset gives the UTC
//     instant; without one the text is UTC). An epoch number is refused with
//     a message saying to declare the field BIGINT and convert it with
//     TO_TIMESTAMP_LTZ(field, 3) (milliseconds) or TO_TIMESTAMP_LTZ(field, 0)
//     (seconds). Years outside 1..9999 are refused: they are how a
//     seconds-versus-milliseconds mistake shows up. Fractions beyond the
//     type's precision are truncated (floored), as a CAST to TIME(p) or
//     TIMESTAMP(p) does: a TIMESTAMP(0) column never holds a fraction that a
//     writer would leave out; the row encoding keeps milliseconds at most.
//   - Any input, however malformed, gives rows or an error, never a panic,
//     and what a decoder reads an encoder writes back to the same value
//     (in csv, as in Flink, except a value written as the null literal).
//     Fuzz targets check both for every format and every column type
//     (fuzz_test.go; `make fuzz`): arbitrary bytes decode to values in
//     their types' domains or to an error that names what is wrong, and
//     decode(encode(row)) == row for generated rows (package formattest;
//     for csv, the row formattest.CSVReadBack says Flink reads back).
//
// # Formats
//
// raw: the record is the value of the table's one physical column, a
// STRING (UTF-8) or BYTES, as it is; every line of a file is a row, an
// empty one too; NULL cannot be written (see Raw).
//
// json: one object per record; fields are matched to columns by name,
// unknown fields are ignored, a missing field is NULL unless
// 'json.fail-on-missing-field' is 'true' (or the column is NOT NULL).
// Numbers and strings are both accepted for numeric columns ("42" reads as
// 42, as in Flink); a nested object or array read into a STRING column is
// its JSON text. An ARRAY column reads a JSON array, a ROW column an object
// (fields by name, as a record's), a MAP column an object whose field names
// are the keys (read as the key type's text); an error inside one names the
// path to the element (tags[2], address.city, attrs["k"]). They are
// written the same way (map entries sorted by key). csv and raw refuse
// nested columns. Bytes are base64. Writing: timestamps as
// 'yyyy-MM-dd HH:mm:ss.SSS' with as many fraction digits as the type's
// precision ('json.timestamp-format.standard' = 'ISO-8601' writes
// 'yyyy-MM-ddTHH:mm:ss.SSS', with 'Z' for TIMESTAMP_LTZ), decimals as
// plain numbers with their scale (12.30), NaN and infinities as strings,
// NULL as null (or left out with 'json.encode.ignore-null-fields').
//
// debezium-json: {"before":…,"after":…,"op":…}; op c and r read as +I of
// after, u as -U of before and +U of after (Debezium must capture before
// images), d as -D of before; an empty record (a tombstone) is no rows.
// 'debezium-json.schema-include' unwraps {"schema":…,"payload":…}.
// Writing follows Flink's DebeziumJsonSerializationSchema: +I and +U as
// {"before":null,"after":ROW,"op":"c"}, -U and -D as
// {"before":ROW,"after":null,"op":"d"}.
//
// csv: fields in the order of the physical columns, separated by
// 'csv.field-delimiter' (','), optionally quoted with 'csv.quote-character'
// ('"'; a quote inside is doubled). It reads and writes as Flink's csv
// format does (Jackson's CSV parser and generator, CsvToRowDataConverters):
// a field equal to 'csv.null-literal', quoted or not, is NULL, and without
// one nothing is; an empty field is the empty string for a string, the
// empty byte string, FALSE for a BOOLEAN (which is TRUE only for 'true' in
// any case), and an error for other types; numbers and timestamps are
// trimmed (Java's trim), strings are not, DECIMAL, DATE and TIME refuse
// spaces; one trailing empty field (a trailing delimiter) is dropped;
// 'csv.ignore-parse-errors' sets a field that cannot be read to NULL, and
// the missing fields of a short record. NULL is written as the null literal
// (empty by default) and the empty string as an empty field, so that, as in
// Flink, a value written as the null literal reads back NULL, and NULL
// written without one reads back as an empty field does
// (formattest.CSVReadBack is the model the fuzz targets check against). A
// quoted field may hold line breaks (RFC 4180): the csv decoder implements
// Lines, with which a line-based source (a file) frames a record over
// several lines; a line break inside a field is data, kept as it was
// written ("\r\n" stays "\r\n"). No line is blank: an empty line is a record
// of one empty field, as Jackson reads it. docs/connectors.md lists the
// rules and the differences from Flink that remain.
//
// # Performance
//
// The json reader is a scanner specialised for flat objects: it allocates
// the record's text once (string values share it) and carves row values
// from a slab, so a row costs about one allocation. Encoders append to the
// caller's buffer and allocate nothing per row. BenchmarkJSONDecode
// measures a 6-field event.
//
// ParseText and AppendText are the text forms of values (used by csv, by
// json for values written as strings, and by the print connector).
package format
