package connectors

func init() {
	RegisterFormat(&FormatSpec{
		Name: "json",
		Doc: "One JSON object per line or Kafka record. Insert-only. A TIMESTAMP(p) field is a string " +
			"'yyyy-MM-dd HH:mm:ss[.fff]' (or ISO-8601 with 'json.timestamp-format.standard'); epoch numbers " +
			"go into BIGINT columns and become time through a computed column, TO_TIMESTAMP_LTZ(ms, 3).",
		Options: jsonOptions("json"),
	})
	RegisterFormat(&FormatSpec{
		Name: "debezium-json",
		Doc: "Debezium change events in JSON: each record carries 'before', 'after' and 'op', and is read as " +
			"+I, -U/+U or -D. A changelog format: sources emit every kind, sinks accept every kind.",
		Options: append(jsonOptions("debezium-json")[1:], // no fail-on-missing-field
			boolOpt("debezium-json.schema-include", "false",
				"Whether the records carry the Debezium schema envelope ({\"schema\": ..., \"payload\": ...}).")),
		Changelog: true,
	})
	RegisterFormat(&FormatSpec{
		Name: "csv",
		Doc:  "Comma-separated values, one row per line, columns in table order. Insert-only.",
		Options: []OptionSpec{
			{Key: "csv.field-delimiter", Default: ",", Validate: singleChar, Doc: "Field separator, one character."},
			boolOpt("csv.disable-quote-character", "false", "Whether values are never quoted."),
			{Key: "csv.quote-character", Default: `"`, Validate: singleChar, Doc: "Character that encloses values."},
			boolOpt("csv.allow-comments", "false", "Whether lines starting with '#' are skipped."),
			boolOpt("csv.ignore-parse-errors", "false",
				"Skip rows that cannot be parsed instead of failing; skipped rows are counted, never silently lost."),
			{Key: "csv.array-element-delimiter", Default: ";", Doc: "Separator of array elements."},
			{Key: "csv.escape-character", Validate: singleChar, Doc: "Character that escapes the quote character."},
			{Key: "csv.null-literal", Doc: "Text read as NULL (and written for NULL)."},
			boolOpt("csv.write-bigdecimal-in-scientific-notation", "true",
				"Whether DECIMAL values may be written in scientific notation."),
		},
	})
	RegisterFormat(&FormatSpec{
		Name: "raw",
		Doc:  "The whole line or record as a single column: STRING (decoded with 'raw.charset') or BYTES. Insert-only.",
		Options: []OptionSpec{
			{Key: "raw.charset", Default: "UTF-8", Validate: nonEmpty, Doc: "Character set of string values."},
			{Key: "raw.endianness", Default: "big-endian", Choices: []string{"big-endian", "little-endian"},
				Doc: "Byte order of numeric values."},
		},
	})
}

// jsonOptions are the options json and debezium-json share, with the format
// name as prefix; fail-on-missing-field comes first.
func jsonOptions(name string) []OptionSpec {
	return []OptionSpec{
		boolOpt(name+".fail-on-missing-field", "false", "Fail on a row that lacks a field of the table, instead of reading NULL."),
		boolOpt(name+".ignore-parse-errors", "false",
			"Skip rows that cannot be parsed instead of failing; skipped rows are counted, never silently lost."),
		{Key: name + ".timestamp-format.standard", Default: "SQL", Choices: []string{"SQL", "ISO-8601"},
			Doc: "Timestamp text: 'SQL' is 'yyyy-MM-dd HH:mm:ss.fff', 'ISO-8601' is 'yyyy-MM-ddTHH:mm:ss.fff'."},
		{Key: name + ".map-null-key.mode", Default: "FAIL", Choices: []string{"FAIL", "DROP", "LITERAL"},
			Doc: "What to do with a NULL key of a MAP value when writing."},
		{Key: name + ".map-null-key.literal", Default: "null", Doc: "Key written for a NULL map key in LITERAL mode."},
		boolOpt(name+".encode.decimal-as-plain-number", "false", "Write DECIMAL values without scientific notation."),
		boolOpt(name+".encode.ignore-null-fields", "false", "Leave out fields whose value is NULL when writing."),
	}
}

func boolOpt(key, def, doc string) OptionSpec {
	return OptionSpec{Key: key, Default: def, Choices: []string{"true", "false"}, Doc: doc}
}
