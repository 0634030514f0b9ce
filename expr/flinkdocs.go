package expr

import (
	"fmt"
	"sort"
	"strings"
)

// FunctionDoc is one row of the function table of docs/sql.md: a built-in
// of streamsql or of Flink, its group, and how it compares with Flink's.
type FunctionDoc struct {
	Name  string
	Group string // string, numeric, temporal, conditional, JSON, aggregate, window, other
	// Flink is "same", "differs: how", "streamsql-only: what" or "not
	// supported" (a Flink built-in streamsql does not have).
	Flink string
}

// Flink status of each built-in. Every function of the registry
// (FunctionNames) has a row, and every row that is not "not supported"
// names a function of the registry: TestFunctionDocs keeps them in step,
// and docs/sql.md's table is generated from them (docs tests).
var functionDocs = []FunctionDoc{
	// string
	{"CONCAT", "string", "same"},
	{"CARDINALITY", "other", "same"},
	{"ELEMENT", "other", "same"},
	{"ARRAY_CONTAINS", "other", "same"},
	{"ARRAY_POSITION", "other", "same"},
	{"ARRAY_REMOVE", "other", "same"},
	{"ARRAY_DISTINCT", "other", "same"},
	{"ARRAY_REVERSE", "other", "same"},
	{"ARRAY_SLICE", "other", "same"},
	{"ARRAY_UNION", "other", "differs: the arrays' elements must be of one type (Flink widens them to a common type)"},
	{"ARRAY_CONCAT", "other", "differs: as ARRAY_UNION"},
	{"ARRAY_JOIN", "other", "same"},
	{"MAP_KEYS", "other", "same (in key order; Flink promises no order)"},
	{"MAP_VALUES", "other", "same (in key order; Flink promises no order)"},
	{"MAP_ENTRIES", "other", "same (in key order; Flink promises no order)"},
	{"MAP_FROM_ARRAYS", "other", "differs: of repeated keys the last is kept, as MAP[…] keeps it (Flink's map holds both)"},
	{"ARRAY_APPEND", "other", "same"},
	{"ARRAY_PREPEND", "other", "same"},
	{"ARRAY_MAX", "other", "same"},
	{"ARRAY_MIN", "other", "same"},
	{"ARRAY_SORT", "other", "not supported"},
	{"ARRAY_EXCEPT", "other", "not supported"},
	{"ARRAY_INTERSECT", "other", "not supported"},
	{"MAP_UNION", "other", "not supported"},
	{"CONCAT_WS", "string", "same"},
	{"UPPER", "string", "same"},
	{"LOWER", "string", "same"},
	{"TRIM", "string", "same"},
	{"LTRIM", "string", "same"},
	{"RTRIM", "string", "same"},
	{"CHAR_LENGTH", "string", "differs: counts Unicode characters; Flink counts UTF-16 units (2 for a character beyond U+FFFF)"},
	{"CHARACTER_LENGTH", "string", "differs: as CHAR_LENGTH"},
	{"SUBSTRING", "string", "same"},
	{"REPLACE", "string", "same"},
	{"REGEXP_EXTRACT", "string", "differs: Go's RE2; Java-only constructs are refused (see below)"},
	{"REGEXP_REPLACE", "string", "differs: Go's RE2; Java-only constructs are refused (see below)"},
	{"SPLIT_INDEX", "string", "same"},
	{"MD5", "string", "same"},
	{"SHA1", "string", "same"},
	{"SHA224", "string", "same"},
	{"SHA256", "string", "same"},
	{"SHA384", "string", "same"},
	{"SHA512", "string", "same"},
	{"SHA2", "string", "differs: the number of bits must be a literal"},
	{"LPAD", "string", "same"},
	{"RPAD", "string", "same"},
	{"REPEAT", "string", "same"},
	{"LEFT", "string", "same"},
	{"RIGHT", "string", "same"},
	{"REVERSE", "string", "same"},
	{"INITCAP", "string", "same"},
	{"ASCII", "string", "same"},
	{"INSTR", "string", "same"},
	{"LOCATE", "string", "same"},
	{"TO_BASE64", "string", "same"},
	{"UUID", "string", "same"},
	{"HASH_CODE", "other", "differs: Java's hashCode of numbers, booleans and strings, not Flink's internal hash"},
	{"POSITION", "string", "same"},
	{"OVERLAY", "string", "differs: positions and lengths count Unicode characters, as CHAR_LENGTH"},
	{"REGEXP", "string", "differs: Go's RE2; Java-only constructs are refused (see below)"},
	{"CHR", "string", "same"},
	{"DECODE", "string", "differs: the charset is one of Flink's six (Java also takes aliases such as UTF8); each byte that is no character becomes U+FFFD"},
	{"ENCODE", "string", "differs: as DECODE"},
	{"FROM_BASE64", "string", "same"},
	{"PARSE_URL", "string", "differs: reads http, https, ftp and file URLs as java.net.URL does (jar and mailto: all after the protocol is the path, other protocols NULL); a constant unknown part is refused"},
	{"SPLIT", "string", "same"},
	{"STR_TO_MAP", "string", "differs: the delimiters are regular expressions run by Go's RE2; Java-only constructs are refused (as REGEXP_REPLACE)"},
	{"ELT", "string", "same"},
	{"TRANSLATE", "string", "same"},
	{"JSON_VALUE", "JSON", "differs: RETURNING takes STRING, BOOLEAN, INT, BIGINT or DOUBLE, and a value that does not convert to it takes the ON ERROR behaviour; paths are Jayway's .name, ['name'], [n], .* and [*] (no deep scan, filters or slices)"},
	{"JSON_QUERY", "JSON", "differs: as JSON_VALUE's paths; RETURNING ARRAY<STRING> is not supported"},
	{"JSON_EXISTS", "JSON", "differs: as JSON_VALUE's paths"},
	{"JSON_STRING", "JSON", "differs: as JSON_OBJECT's values"},
	{"IS JSON", "JSON", "differs: the text must be exactly one JSON value (Flink's Jackson ignores text after it)"},
	{"JSON_OBJECT", "JSON", "differs: values are strings, booleans, numbers, and ARRAY, MAP and ROW of those; other types are refused (CAST them to STRING)"},
	{"JSON_ARRAY", "JSON", "differs: as JSON_OBJECT"},
	{"IS_ALPHA", "string", "same"},
	{"IS_DECIMAL", "string", "same"},
	{"IS_DIGIT", "string", "same"},
	// numeric
	{"ABS", "numeric", "same"},
	{"FLOOR", "numeric", "differs: FLOOR(t TO WEEK or longer) of a TIMESTAMP before 1970 rounds down from t's own day (Flink's truncated day number starts from the next day)"},
	{"CEIL", "numeric", "differs: CEIL(t TO WEEK, MONTH, QUARTER or YEAR) of a TIMESTAMP after a boundary is the next boundary (Flink's ignores the time of day, and takes the first day of a quarter to the next quarter)"},
	{"ROUND", "numeric", "same"},
	{"MOD", "numeric", "same"},
	{"POWER", "numeric", "same"},
	{"SQRT", "numeric", "same"},
	{"LN", "numeric", "same"},
	{"LOG10", "numeric", "same"},
	{"LOG2", "numeric", "same"},
	{"LOG", "numeric", "same"},
	{"EXP", "numeric", "same"},
	{"SIN", "numeric", "same"},
	{"COS", "numeric", "same"},
	{"TAN", "numeric", "same"},
	{"COT", "numeric", "same"},
	{"ASIN", "numeric", "same"},
	{"ACOS", "numeric", "same"},
	{"ATAN", "numeric", "same"},
	{"ATAN2", "numeric", "same"},
	{"SINH", "numeric", "same"},
	{"COSH", "numeric", "same"},
	{"TANH", "numeric", "same"},
	{"DEGREES", "numeric", "same"},
	{"RADIANS", "numeric", "same"},
	{"SIGN", "numeric", "same"},
	{"PI", "numeric", "same"},
	{"E", "numeric", "same"},
	{"BIN", "numeric", "same"},
	{"HEX", "numeric", "same"},
	{"RAND", "numeric", "differs: the seed must be a literal; each parallel instance starts the seeded sequence afresh, and again after a restore"},
	{"RAND_INTEGER", "numeric", "differs: as RAND"},
	{"TRUNCATE", "numeric", "same"},
	// temporal
	{"TO_TIMESTAMP_LTZ", "temporal", "differs: the precision must be 0 or 3"},
	{"TO_TIMESTAMP", "temporal", "same"},
	{"TO_DATE", "temporal", "same"},
	{"DATE_FORMAT", "temporal", "same"},
	{"UNIX_TIMESTAMP", "temporal", "same"},
	{"FROM_UNIXTIME", "temporal", "same"},
	{"PROCTIME", "temporal", "same"},
	{"NOW", "temporal", "same"},
	{"CURRENT_TIMESTAMP", "temporal", "same"},
	{"LOCALTIMESTAMP", "temporal", "same (the session time zone is UTC)"},
	{"LOCALTIME", "temporal", "same (the session time zone is UTC)"},
	{"CURRENT_DATE", "temporal", "same (the session time zone is UTC)"},
	{"CURRENT_TIME", "temporal", "same (the session time zone is UTC)"},
	{"CURRENT_WATERMARK", "temporal", "differs: only in WHERE and SELECT"},
	{"CONVERT_TZ", "temporal", "differs: an unknown time zone is an error (Flink reads it as GMT); text after the seconds other than a fraction gives NULL"},
	{"EXTRACT", "temporal", "same"},
	{"TIMESTAMPDIFF", "temporal", "same"},
	{"TIMESTAMPADD", "temporal", "differs: a DATE moved by a unit shorter than a day is a TIMESTAMP(3), not TIMESTAMP(6); a TIME moves only by HOUR, MINUTE, SECOND"},
	{"YEAR", "temporal", "same"},
	{"QUARTER", "temporal", "same"},
	{"MONTH", "temporal", "same"},
	{"WEEK", "temporal", "same"},
	{"DAYOFYEAR", "temporal", "same"},
	{"DAYOFMONTH", "temporal", "same"},
	{"DAYOFWEEK", "temporal", "same"},
	{"HOUR", "temporal", "same"},
	{"MINUTE", "temporal", "same"},
	{"SECOND", "temporal", "same"},
	{"CURRENT_ROW_TIMESTAMP", "temporal", "same"},
	// conditional
	{"COALESCE", "conditional", "same"},
	{"IFNULL", "conditional", "same"},
	{"NULLIF", "conditional", "same"},
	{"IF", "conditional", "same"},
	{"GREATEST", "conditional", "same"},
	{"LEAST", "conditional", "same"},
	// aggregate
	{"COUNT", "aggregate", "same"},
	{"SUM", "aggregate", "differs: the SUM of an integer type is a BIGINT, and leaving BIGINT is an error (Flink keeps the type and wraps)"},
	{"AVG", "aggregate", "same"},
	{"MIN", "aggregate", "same"},
	{"MAX", "aggregate", "same"},
	{"FIRST_VALUE", "aggregate", "same"},
	{"LAST_VALUE", "aggregate", "same"},
	{"LISTAGG", "aggregate", "differs: the separator must be a literal"},
	{"WINDOW_FINALITY", "aggregate", "streamsql-only: in a window aggregate, whether the row is final"},
	{"WINDOW_VERSION", "aggregate", "streamsql-only: in a window aggregate, the row's version per window and key"},
	{"STDDEV_POP", "aggregate", "differs: of a DECIMAL, a DOUBLE (Flink: DECIMAL(38, max(6, s))); STDDEV is STDDEV_SAMP"},
	{"STDDEV_SAMP", "aggregate", "differs: as STDDEV_POP"},
	{"VAR_POP", "aggregate", "differs: as STDDEV_POP; VARIANCE is VAR_SAMP"},
	{"VAR_SAMP", "aggregate", "differs: as STDDEV_POP"},
	{"COLLECT", "aggregate", "not supported"},
	{"ARRAY_AGG", "aggregate", "differs: NULLs are kept (RESPECT NULLS); IGNORE NULLS and ORDER BY are not supported"},
	{"JSON_OBJECTAGG", "aggregate", "differs: values as JSON_OBJECT's; a retracted NULL value takes its key out (Flink's leaves the key and then fails on its next value); runs in HOP and SESSION windows, which Flink refuses"},
	{"JSON_ARRAYAGG", "aggregate", "differs: values as JSON_OBJECT's; runs in HOP and SESSION windows, which Flink refuses"},
	// window (OVER)
	{"ROW_NUMBER", "window", "same (Top-N and deduplication: a filter on its result)"},
	{"LAG", "window", "same (no frame; peers of one event time share the value)"},
	{"LEAD", "window", "same (refused on a stream, SQL315, as Flink refuses it in streaming mode)"},
	{"RANK", "window", "same (refused on a stream, SQL315, as Flink refuses it in streaming mode)"},
	{"DENSE_RANK", "window", "same (refused on a stream, SQL315, as Flink refuses it in streaming mode)"},
}

// windowFunctions are the window functions the planner binds OVER a
// window (planner/over.go), true where they run; false: refused on a
// stream, as Flink refuses them in streaming mode.
var windowFunctions = map[string]bool{"ROW_NUMBER": true, "LAG": true, "LEAD": false, "RANK": false, "DENSE_RANK": false}

// FunctionDocs returns the rows of the function table, by group and name.
func FunctionDocs() []FunctionDoc {
	out := append([]FunctionDoc(nil), functionDocs...)
	order := map[string]int{"string": 0, "numeric": 1, "temporal": 2, "conditional": 3, "JSON": 4, "aggregate": 5, "window": 6, "other": 7}
	sort.SliceStable(out, func(i, j int) bool {
		if gi, gj := order[out[i].Group], order[out[j].Group]; gi != gj {
			return gi < gj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// FunctionDocsProblems lists the ways the registry and functionDocs
// disagree: a function without a row, a row of an unknown group, a row
// that says "not supported" for a function the registry has, or a
// supported row for one it does not.
func FunctionDocsProblems() []string {
	var out []string
	groups := map[string]bool{"string": true, "numeric": true, "temporal": true, "conditional": true, "JSON": true, "aggregate": true, "window": true, "other": true}
	seen := map[string]bool{}
	for _, d := range functionDocs {
		if seen[d.Name] {
			out = append(out, d.Name+": two rows")
		}
		seen[d.Name] = true
		_, scalar := functions[d.Name]
		_, window := windowFunctions[d.Name]
		registered := scalar || IsAggregate(d.Name) || window
		switch {
		case !groups[d.Group]:
			out = append(out, fmt.Sprintf("%s: unknown group %q", d.Name, d.Group))
		case d.Flink == "not supported" && registered:
			out = append(out, d.Name+": marked not supported, but the registry has it")
		case d.Flink != "not supported" && !registered:
			out = append(out, d.Name+": the registry does not have it; mark it not supported")
		case d.Flink != "same" && d.Flink != "not supported" && !strings.HasPrefix(d.Flink, "same (") &&
			!strings.HasPrefix(d.Flink, "differs: ") && !strings.HasPrefix(d.Flink, "streamsql-only: "):
			out = append(out, fmt.Sprintf("%s: status %q is none of same, differs: …, streamsql-only: …, not supported", d.Name, d.Flink))
		}
	}
	for _, n := range FunctionNames() {
		if !seen[n] {
			out = append(out, n+": has no row in expr/flinkdocs.go (say how it compares with Flink's)")
		}
	}
	return out
}
