package eval

import (
	"strings"
	"testing"
)

// TestJSONFunctions pins JSON_VALUE, JSON_QUERY and JSON_EXISTS to the
// examples of Flink's documentation (the first of each group) and to
// answers worked out by hand from its SqlJsonUtils (Calcite's
// JsonFunctions over Jackson and Jayway JsonPath): strict is the default
// mode, where a missing member is an error (NULL ON ERROR unless said
// otherwise) and text that is not JSON too; in lax mode both are empty; a
// JSON null is empty; numbers print as Java prints a Jackson Integer,
// Long or Double.
func TestJSONFunctions(t *testing.T) {
	runCases(t, []evalCase{
		// Flink's documented examples.
		{`JSON_VALUE('{"a": true}', '$.a')`, "true"},
		{`JSON_VALUE('{"a": true}', '$.a' RETURNING BOOLEAN)`, "TRUE"},
		{`JSON_VALUE('{"a": true}', 'lax $.b' DEFAULT 'false' ON EMPTY)`, "false"},
		{`JSON_VALUE('{"a": true}', 'strict $.b' DEFAULT 'false' ON ERROR)`, "false"},
		{`JSON_VALUE('{"a.b": [0.998,0.996]}', '$.["a.b"][0]' RETURNING DOUBLE)`, "0.998"},
		{`JSON_VALUE('{"contains blank": "right"}', 'strict $.[''contains blank'']' NULL ON EMPTY DEFAULT 'wrong' ON ERROR)`, "right"},
		{`JSON_EXISTS('{"a": true}', '$.a')`, "TRUE"},
		{`JSON_EXISTS('{"a": true}', '$.b')`, "FALSE"},
		{`JSON_EXISTS('{"a": [{ "b": 1 }]}', '$.a[0].b')`, "TRUE"},
		{`JSON_EXISTS('{"a": true}', 'strict $.b' TRUE ON ERROR)`, "TRUE"},
		{`JSON_EXISTS('{"a": true}', 'strict $.b' FALSE ON ERROR)`, "FALSE"},
		{`JSON_QUERY('{ "a": { "b": 1 } }', '$.a')`, `{"b":1}`},
		{`JSON_QUERY('[1, 2]', '$')`, "[1,2]"},
		{`JSON_QUERY(CAST(NULL AS STRING), '$')`, "NULL"},
		{`JSON_QUERY('{}', 'strict $.invalid')`, "NULL"},
		{`JSON_QUERY('{}', 'strict $.invalid' EMPTY ARRAY ON ERROR)`, "[]"},
		{`JSON_QUERY('{}', 'lax $.invalid' EMPTY OBJECT ON EMPTY)`, "{}"},
		{`JSON_QUERY('[1, 2]', '$' WITH CONDITIONAL ARRAY WRAPPER)`, "[1,2]"},
		{`JSON_QUERY('[1, 2]', '$' WITH UNCONDITIONAL ARRAY WRAPPER)`, "[[1,2]]"},
		// Worked out by hand.
		{`JSON_VALUE('{"a": {"b": [10, 20.50, 1e20, -0.0001, 12345678901234567890]}}', '$.a.b[1]')`, "20.5"},
		{`JSON_VALUE('{"a": {"b": [10, 20.50, 1e20, -0.0001, 12345678901234567890]}}', '$.a.b[2]')`, "1.0E20"},
		{`JSON_VALUE('{"a": {"b": [10, 20.50, 1e20, -0.0001, 12345678901234567890]}}', '$.a.b[3]')`, "-1.0E-4"},
		{`JSON_VALUE('{"a": {"b": [10, 20.50, 1e20, -0.0001, 12345678901234567890]}}', '$.a.b[-1]')`, "12345678901234567890"},
		{`JSON_VALUE('{"a": {"b": [10, 2]}}', '$.a.b[0]' RETURNING INT) + 1`, "11"},
		{`JSON_VALUE('{"a": "x"}', '$.a' RETURNING INT)`, "NULL"},
		{`JSON_VALUE('{"a": "x"}', '$.a' RETURNING INT DEFAULT -1 ON ERROR)`, "-1"},
		{`JSON_VALUE('{"a": "x"}', '$.a' RETURNING INT ERROR ON ERROR)`, "error: does not convert"},
		{`JSON_VALUE('{"a": [1]}', '$.a')`, "NULL"},
		{`JSON_VALUE('{"a": [1]}', 'lax $.a' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "empty"},
		{`JSON_VALUE('{"a": [1]}', 'strict $.a' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "error"},
		{`JSON_VALUE('{"a": null}', '$.a' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "empty"},
		{`JSON_VALUE('{"a": 1}', '$.b' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "error"},
		{`JSON_VALUE('{"a": 1}', 'lax $.b' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "empty"},
		{`JSON_VALUE('not json', '$.a' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "error"},
		{`JSON_VALUE('not json', 'lax $.a' DEFAULT 'empty' ON EMPTY DEFAULT 'error' ON ERROR)`, "empty"},
		{`JSON_VALUE('{"a": 1}', '$.b' ERROR ON ERROR)`, "error: no value at the path"},
		{`JSON_VALUE('{"a": null}', '$.a' ERROR ON EMPTY)`, "error: ERROR ON EMPTY"},
		{`JSON_VALUE('{"a": "\u00e9\tx"}', '$.a') = 'é' || '	x'`, "TRUE"},
		{`JSON_VALUE(s, '$.a')`, "NULL"},
		{`JSON_VALUE(ns, '$.a')`, "NULL"},
		{`JSON_QUERY('{"b": "q\"", "a": [true, null, 1.0]}', '$')`, `{"b":"q\"","a":[true,null,1.0]}`},
		{`JSON_QUERY('{"a": 1}', '$.a')`, "NULL"},
		{`JSON_QUERY('{"a": 1}', '$.a' WITH WRAPPER)`, "[1]"},
		{`JSON_QUERY('{"a": 1}', 'lax $.a' EMPTY ARRAY ON EMPTY)`, "[]"},
		{`JSON_QUERY('{"a": [{"x": 1}, {"y": 2}, {"x": 3}]}', '$.a[*].x')`, "[1,3]"},
		{`JSON_QUERY('{"a": {"p": 1, "q": [2]}}', '$.a.*')`, "[1,[2]]"},
		{`JSON_QUERY('{"a": 1}', '$.c[*]')`, "NULL"},
		{`JSON_QUERY('{"a": 1}', 'lax $.c[*]')`, "[]"},
		{`JSON_EXISTS('{"a": null}', '$.a')`, "FALSE"},
		{`JSON_EXISTS('{"a": [1]}', '$.a[5]')`, "FALSE"},
		{`JSON_EXISTS('{"a": [1]}', 'strict $.a[5]' UNKNOWN ON ERROR)`, "NULL"},
		{`JSON_EXISTS('{"a": [1]}', 'lax $.a[5]' TRUE ON ERROR)`, "FALSE"},
		{`JSON_EXISTS('{"a": [1]}', '$.a[*]')`, "TRUE"},
		{`JSON_EXISTS('[', '$' ERROR ON ERROR)`, "error: not JSON"},
	})
}

// TestJSONPathRefused: a constant path streamsql cannot run is refused
// when the query is compiled, saying why.
func TestJSONPathRefused(t *testing.T) {
	for src, want := range map[string]string{
		`JSON_VALUE(s, '$..a')`:             "deep scan",
		`JSON_VALUE(s, '$.a[?(@.b > 1)]')`:  "filters",
		`JSON_VALUE(s, 'a.b')`:              "starts with $",
		`JSON_QUERY(s, '$.a[1:2]')`:         "[1:2] is not supported",
		`JSON_EXISTS(s, '$[''a'', ''b'']')`: "several member names",
	} {
		_, err := CompileWith(bind(t, src), testOptions())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error about %q", src, err, want)
		}
	}
}

// TestJSONConstructors pins JSON_OBJECT and JSON_ARRAY to the examples of
// Flink's documentation (the first group) and to answers worked out by hand
// from Jackson's writing (compact, members in order, Java's number text).
func TestJSONConstructors(t *testing.T) {
	runCases(t, []evalCase{
		{`JSON_OBJECT()`, "{}"},
		{`JSON_OBJECT('K1' VALUE 'V1', 'K2' VALUE 'V2')`, `{"K1":"V1","K2":"V2"}`},
		{`JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL)`, `{"K1":null}`},
		{`JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL)`, `{}`},
		{`JSON_OBJECT(KEY 'K1' VALUE JSON_OBJECT(KEY 'K2' VALUE 'V'))`, `{"K1":{"K2":"V"}}`},
		{`JSON_OBJECT(KEY 'K1' VALUE '{"K2":"V"}')`, `{"K1":"{\"K2\":\"V\"}"}`},
		{`JSON_ARRAY()`, "[]"},
		{`JSON_ARRAY(1, '2')`, `[1,"2"]`},
		{`JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL)`, "[null]"},
		{`JSON_ARRAY(CAST(NULL AS STRING) ABSENT ON NULL)`, "[]"},
		{`JSON_ARRAY(CAST(NULL AS STRING))`, "[]"},
		{`JSON_ARRAY(JSON_ARRAY(1))`, "[[1]]"},
		// Worked out by hand.
		{`JSON_OBJECT('a' VALUE 1, 'b' VALUE 2, 'a' VALUE 3)`, `{"a":3,"b":2}`},
		{`JSON_OBJECT('d' VALUE CAST(12.50 AS DECIMAL(6, 2)), 'f' VALUE CAST(1e20 AS DOUBLE), 'g' VALUE CAST(0.5 AS DOUBLE), 'b' VALUE FALSE)`,
			`{"d":12.50,"f":1.0E20,"g":0.5,"b":false}`},
		{`JSON_OBJECT('tags' VALUE ARRAY['x', 'y'], 'm' VALUE MAP['k', 1], 'r' VALUE ROW(1, 'q'))`, `{"tags":["x","y"],"m":{"k":1},"r":{"EXPR$0":1,"EXPR$1":"q"}}`},
		{`JSON_OBJECT('s' VALUE s)`, `{"s":"Hello World"}`},
		{`JSON_OBJECT('s' VALUE ns)`, `{"s":null}`},
		{`JSON_OBJECT(ns VALUE 1)`, "error: a key is NULL"},
		{"JSON_OBJECT('q' VALUE 'a\"b\\c\t')", `{"q":"a\"b\\c\t"}`},
		{`JSON_VALUE(JSON_OBJECT('a' VALUE JSON_ARRAY(10, 20)), '$.a[1]' RETURNING INT)`, "20"},
	})
}
