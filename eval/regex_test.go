package eval

import (
	"strings"
	"testing"
)

// TestRegexAndSplit: the examples of Flink's documentation, and values
// computed with Java (String.replaceAll with Matcher.quoteReplacement, and
// Matcher.find then group, as Flink's SqlFunctionUtils calls them; JDK 17).
// SPLIT_INDEX follows commons-lang's splitByWholeSeparatorPreserveAllTokens.
func TestRegexAndSplit(t *testing.T) {
	runCases(t, []evalCase{
		{"REGEXP_REPLACE('foobar', 'oo|ar', '')", "fb"}, // Flink's example
		{"REGEXP_REPLACE(s, 'o', '0')", "Hell0 W0rld"},
		{"REGEXP_REPLACE('a.b', '\\.', '$1')", "a$1b"}, // literal replacement
		{"REGEXP_REPLACE('2026-03-15', '(\\d+)-(\\d+)', '\\x')", "\\x-15"},
		{"REGEXP_REPLACE(s, '[a-z]+', '_')", "H_ W_"},
		{"REGEXP_REPLACE(ns, 'a', 'b')", "NULL"},
		{"REGEXP_REPLACE(s, CAST(NULL AS STRING), 'b')", "NULL"},
		// A pattern from a column that Java refuses too: NULL, as Flink.
		{"REGEXP_REPLACE(s, CONCAT('(', s), 'x')", "NULL"},
		// One Java runs and RE2 cannot: an error naming it.
		{"REGEXP_REPLACE(s, CONCAT('(?=', s, ')'), 'x')", "error: lookahead"},
		{"REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2)", "bar"}, // Flink's example
		{"REGEXP_EXTRACT(s, 'W(or)ld', 3)", "NULL"},
		{"REGEXP_EXTRACT(s, CONCAT('(', s), 0)", "NULL"},
		{"REGEXP_EXTRACT(s, CONCAT('\\p{Alpha}', s), 0)", "error: invalid regular expression"},

		{"SPLIT_INDEX('Jack,John,Mary', ',', 2)", "Mary"},
		{"SPLIT_INDEX('Jack,John,Mary', ',', 3)", "NULL"},
		{"SPLIT_INDEX('Jack,John,Mary', ',', -1)", "NULL"},
		{"SPLIT_INDEX('a,,b', ',', 1)", ""},
		{"SPLIT_INDEX(',a', ',', 0)", ""},
		{"SPLIT_INDEX('a,', ',', 1)", ""},
		{"SPLIT_INDEX('a,', ',', 2)", "NULL"},
		{"SPLIT_INDEX('a::b::c', '::', 2)", "c"},
		{"SPLIT_INDEX('abc', ',', 0)", "abc"},
		{"SPLIT_INDEX('', ',', 0)", "NULL"},
		{"SPLIT_INDEX(s, '', 1)", "World"},
		{"SPLIT_INDEX('a  b', '', 1)", ""},
		{"SPLIT_INDEX(s, ' ', ni)", "NULL"},
		{"SPLIT_INDEX(ns, ' ', 0)", "NULL"},
	})
}

// TestRegexRefused: constant patterns that RE2 cannot run as Java does are
// refused when the query is compiled, naming the construct.
func TestRegexRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"REGEXP_EXTRACT(s, '(?<=a)b')", "lookbehind"},
		{"REGEXP_EXTRACT(s, '(a)\\1')", "backreference"},
		{"REGEXP_EXTRACT(s, '[a-z[^e]]')", "nested character class"},
		{"REGEXP_EXTRACT(s, '[a-z&&e]')", "intersection"},
		{"REGEXP_EXTRACT(s, '[[:alpha:]]')", "POSIX class"},
		{"REGEXP_EXTRACT(s, 'a*+')", "possessive"},
		{"REGEXP_EXTRACT(s, '(?>a)')", "atomic group"},
		{"REGEXP_EXTRACT(s, 'a\\Z')", "\\Z"},
		{"REGEXP_EXTRACT(s, '(')", "invalid regular expression"},
		{"REGEXP_REPLACE(s, 'a*', '-')", "empty and non-empty"},
		{"REGEXP_REPLACE(s, '(x|)', '-')", "empty and non-empty"},
	} {
		_, err := Compile(bind(t, tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%s) error = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
	// These run: the same in Java and RE2.
	for _, src := range []string{
		"REGEXP_REPLACE(s, '^', '>')", "REGEXP_REPLACE(s, '\\b', '|')", "REGEXP_REPLACE(s, 'a+', '-')",
		"REGEXP_EXTRACT(s, 'a*')", "REGEXP_EXTRACT(s, '[]a]')", "REGEXP_EXTRACT(s, '\\[a\\]\\+')",
		"REGEXP_EXTRACT(s, '\\\\1')",
	} {
		if _, err := Compile(bind(t, src)); err != nil {
			t.Errorf("Compile(%s): %v", src, err)
		}
	}
}
