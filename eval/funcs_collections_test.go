package eval

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestCollectionFunctions checks the ARRAY_* and MAP_* functions against
// Flink's documented behaviour (its "Collection Functions" and the classes
// that implement them), worked out by hand, NULL cases included.
func TestCollectionFunctions(t *testing.T) {
	runCases(t, []evalCase{
		{"ARRAY_CONTAINS(ARRAY[1, 2, 3], 2)", "TRUE"},
		{"ARRAY_CONTAINS(ARRAY[1, 2, 3], 4)", "FALSE"},
		{"ARRAY_CONTAINS(ARRAY[1, NULL, 3], CAST(NULL AS INT))", "TRUE"},
		{"ARRAY_CONTAINS(ARRAY[1, 2], ni)", "FALSE"},
		{"ARRAY_CONTAINS(ARRAY[1, NULL], 5)", "FALSE"},
		{"ARRAY_CONTAINS(CAST(NULL AS ARRAY<INT>), 1)", "NULL"},
		{"ARRAY_CONTAINS(ARRAY[1.5, 7], i)", "TRUE"},
		{"ARRAY_CONTAINS(ARRAY['a', 'b'], 'b')", "TRUE"},
		{"ARRAY_POSITION(ARRAY[5, 6, 5], 5)", "1"},
		{"ARRAY_POSITION(ARRAY[5, 6, 5], 6)", "2"},
		{"ARRAY_POSITION(ARRAY[5, 6], 7)", "0"},
		{"ARRAY_POSITION(ARRAY[5, NULL], ni)", "NULL"},
		{"ARRAY_POSITION(CAST(NULL AS ARRAY<INT>), 1)", "NULL"},
		{"ARRAY_REMOVE(ARRAY[1, 2, 1, NULL], 1)", "[2, NULL]"},
		{"ARRAY_REMOVE(ARRAY[1, 2, 1, NULL], ni)", "[1, 2, 1]"},
		{"ARRAY_REMOVE(ARRAY[1, 2], 3)", "[1, 2]"},
		{"ARRAY_REMOVE(CAST(NULL AS ARRAY<INT>), 1)", "NULL"},
		{"ARRAY_DISTINCT(ARRAY[3, 1, 3, NULL, 1, NULL])", "[3, 1, NULL]"},
		{"ARRAY_DISTINCT(ARRAY['b', 'a', 'b'])", "[b, a]"},
		{"ARRAY_DISTINCT(CAST(NULL AS ARRAY<INT>))", "NULL"},
		{"ARRAY_REVERSE(ARRAY[1, 2, NULL])", "[NULL, 2, 1]"},
		{"ARRAY_REVERSE(CAST(NULL AS ARRAY<INT>))", "NULL"},
		// ARRAY_SLICE: 1-based, inclusive; negative from the end; 0 is
		// the first; out of range clamps; start after end is empty.
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 2, 4)", "[2, 3, 4]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 3)", "[3, 4, 5]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -2)", "[4, 5]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -3, -2)", "[3, 4]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 0, 2)", "[1, 2]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -9, 9)", "[1, 2, 3, 4, 5]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 4, 2)", "[]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 6)", "[]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3], 1, 0)", "[1]"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3], ni)", "NULL"},
		{"ARRAY_SLICE(ARRAY[1, 2, 3], 1, ni)", "NULL"},
		{"ARRAY_UNION(ARRAY[1, 2, 2], ARRAY[3, 1, NULL, NULL])", "[1, 2, 3, NULL]"},
		{"ARRAY_UNION(ARRAY[1], CAST(NULL AS ARRAY<INT>))", "NULL"},
		{"ARRAY_CONCAT(ARRAY[1, 2], ARRAY[2, NULL], ARRAY[3])", "[1, 2, 2, NULL, 3]"},
		{"ARRAY_CONCAT(ARRAY[1])", "[1]"},
		{"ARRAY_CONCAT(ARRAY[1], CAST(NULL AS ARRAY<INT>))", "NULL"},
		{"ARRAY_JOIN(ARRAY['a', NULL, 'b'], ', ')", "a, b"},
		{"ARRAY_JOIN(ARRAY['a', NULL, 'b'], '-', '?')", "a-?-b"},
		{"ARRAY_JOIN(ARRAY['a', 'b'], ns)", "NULL"},
		{"ARRAY_JOIN(ARRAY['a', 'b'], ',', ns)", "NULL"},
		{"ARRAY_JOIN(CAST(ARRAY[1, 2] AS ARRAY<STRING>), '+')", "1+2"},
		{"MAP_KEYS(MAP['b', 1, 'a', 2])", "[a, b]"},
		{"MAP_VALUES(MAP['b', 1, 'a', 2])", "[2, 1]"},
		{"MAP_ENTRIES(MAP['b', 1, 'a', NULL])", "[(a, NULL), (b, 1)]"},
		{"MAP_KEYS(CAST(NULL AS MAP<STRING, INT>))", "NULL"},
		{"MAP_FROM_ARRAYS(ARRAY['a', 'b', 'a'], ARRAY[1, 2, 3])", "{a=3, b=2}"},
		{"MAP_FROM_ARRAYS(ARRAY['a'], CAST(NULL AS ARRAY<INT>))", "NULL"},
		{"MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1])", "error: must be as long as each other"},
		{"CARDINALITY(MAP_FROM_ARRAYS(ARRAY[1, 2], ARRAY['x', 'y']))", "2"},
		{"ARRAY_APPEND(ARRAY[1, 2], 3)", "[1, 2, 3]"},
		{"ARRAY_APPEND(ARRAY[1, 2], ni)", "[1, 2, NULL]"},
		{"ARRAY_APPEND(CAST(NULL AS ARRAY<INT>), 1)", "NULL"},
		{"ARRAY_APPEND(ARRAY[CAST(1 AS BIGINT)], i)", "[1, 7]"},
		{"ARRAY_PREPEND(ARRAY[1, 2], 0)", "[0, 1, 2]"},
		{"ARRAY_PREPEND(ARRAY['b'], ns)", "[NULL, b]"},
		{"ARRAY_MAX(ARRAY[3, NULL, 7, 1])", "7"},
		{"ARRAY_MIN(ARRAY[3, NULL, 7, 1])", "1"},
		{"ARRAY_MAX(ARRAY['b', 'ab', 'c'])", "c"},
		{"ARRAY_MAX(ARRAY[ni])", "NULL"},
		{"ARRAY_MIN(CAST(NULL AS ARRAY<INT>))", "NULL"},
		{"ARRAY_MAX(ARRAY[1.5, -2])", "1.5"},
		// JSON_STRING: Flink's documented examples, then nested values.
		{"JSON_STRING(CAST(NULL AS INT))", "NULL"},
		{"JSON_STRING(1)", "1"},
		{"JSON_STRING(TRUE)", "true"},
		{"JSON_STRING('Hello, World!')", `"Hello, World!"`},
		{"JSON_STRING(ARRAY[1, 2])", "[1,2]"},
		{"JSON_STRING(MAP['a', ARRAY['x', NULL]])", `{"a":["x",null]}`},
		{"JSON_STRING(s)", `"Hello World"`},
		// IS JSON: Flink's documented examples, then NOT and kinds.
		{"'1' IS JSON", "TRUE"},
		{"'[]' IS JSON", "TRUE"},
		{"'{}' IS JSON", "TRUE"},
		{`'"abc"' IS JSON`, "TRUE"},
		{"'abc' IS JSON", "FALSE"},
		{"ns IS JSON", "FALSE"},
		{"'1' IS JSON SCALAR", "TRUE"},
		{"'1' IS JSON ARRAY", "FALSE"},
		{"'1' IS JSON OBJECT", "FALSE"},
		{"'{}' IS JSON SCALAR", "FALSE"},
		{"'{}' IS JSON ARRAY", "FALSE"},
		{"'{}' IS JSON OBJECT", "TRUE"},
		{"'' IS JSON", "FALSE"},
		{"'null' IS JSON SCALAR", "TRUE"},
		{"' [1, {\"a\": 2}] ' IS JSON VALUE", "TRUE"},
		{"'{\"a\": 1' IS JSON", "FALSE"},
		{"'abc' IS NOT JSON", "TRUE"},
		{"ns IS NOT JSON", "TRUE"},
		{"'[1]' IS NOT JSON ARRAY", "FALSE"},
		{"'[1]' IS JSON ARRAY AND s IS NOT JSON", "TRUE"},
		{"CASE WHEN s IS JSON OBJECT THEN 1 ELSE 0 END", "0"},
		{"(s) IS JSON", "FALSE"},
		{"CAST(i AS STRING) IS JSON SCALAR", "TRUE"},
		{"CASE WHEN flag THEN '[1]' END IS NOT JSON ARRAY", "FALSE"},
		{"JSON_QUERY('{\"a\": [1]}', '$.a') IS JSON ARRAY", "TRUE"},
		{"s || '' IS JSON", "FALSE"},
		{"NOT ('[1]' IS JSON)", "FALSE"},
		{"flag IS TRUE", "TRUE"},
		{"nb IS NOT TRUE", "TRUE"},
	})
}

// TestCollectionFunctionsAgainstPostgreSQL compares the functions that
// have a PostgreSQL equivalent on random arrays with NULL elements:
// ARRAY_REMOVE (array_remove), ARRAY_JOIN (array_to_string), ARRAY_CONCAT
// of non-NULL arrays (array_cat), ARRAY_POSITION of a non-NULL value
// (array_position, 0 for none), ARRAY_CONTAINS of a non-NULL value (= ANY,
// FALSE for none), and ARRAY_SLICE of positive bounds within the array
// (a slice a[s:e]).
func TestCollectionFunctionsAgainstPostgreSQL(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	arr := func() (ours, theirs string) {
		n := 1 + r.Intn(5)
		var o, p []string
		for i := 0; i < n; i++ {
			if r.Intn(4) == 0 {
				o, p = append(o, "CAST(NULL AS INT)"), append(p, "NULL")
				continue
			}
			v := strconv.Itoa(r.Intn(4))
			o, p = append(o, v), append(p, v)
		}
		return "ARRAY[" + strings.Join(o, ", ") + "]", "ARRAY[" + strings.Join(p, ", ") + "]::INT[]"
	}
	// PostgreSQL writes an array {1,NULL,2}; ours is [1, NULL, 2].
	list := func(a string) string {
		return fmt.Sprintf("replace(replace(replace(CAST(%s AS TEXT), '{', '['), '}', ']'), ',', ', ')", a)
	}
	var cases []pgPair
	for k := 0; k < 60; k++ {
		a, pa := arr()
		b, pb := arr()
		x := r.Intn(4)
		n := strings.Count(pa, ",") + 1
		s := 1 + r.Intn(n)
		e := s + r.Intn(n-s+1)
		cases = append(cases,
			pgPair{fmt.Sprintf("CAST(ARRAY_REMOVE(%s, %d) AS STRING)", a, x), list(fmt.Sprintf("array_remove(%s, %d)", pa, x))},
			pgPair{fmt.Sprintf("ARRAY_JOIN(CAST(%s AS ARRAY<STRING>), '/')", a), fmt.Sprintf("array_to_string(%s, '/')", pa)},
			pgPair{fmt.Sprintf("ARRAY_JOIN(CAST(%s AS ARRAY<STRING>), '/', 'N')", a), fmt.Sprintf("array_to_string(%s, '/', 'N')", pa)},
			pgPair{fmt.Sprintf("CAST(ARRAY_CONCAT(%s, %s) AS STRING)", a, b), list(fmt.Sprintf("array_cat(%s, %s)", pa, pb))},
			pgPair{fmt.Sprintf("ARRAY_POSITION(%s, %d)", a, x), fmt.Sprintf("coalesce(array_position(%s, %d), 0)", pa, x)},
			pgPair{fmt.Sprintf("ARRAY_CONTAINS(%s, %d)", a, x), fmt.Sprintf("coalesce(%d = ANY(%s), false)", x, pa)},
			pgPair{fmt.Sprintf("CAST(ARRAY_SLICE(%s, %d, %d) AS STRING)", a, s, e), list(fmt.Sprintf("(%s)[%d:%d]", pa, s, e))},
		)
	}
	compareWithPostgreSQL(t, cases)
}
