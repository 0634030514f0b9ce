package eval

import (
	"regexp"
	"testing"
)

// TestSimilarTo: SIMILAR TO as Flink (Calcite) translates it, on cases
// worked out by hand from its rules (whole-string match, '_' and '%', '.'
// any character, classes, alternation, repetition, '\' and '$' plain).
func TestSimilarTo(t *testing.T) {
	cases := []struct {
		s, p string
		want bool
	}{
		{"404", "4[0-9][0-9]", true},
		{"4044", "4[0-9][0-9]", false},
		{"200", "[2,3][0-9][0-9]", true},
		{",00", "[2,3][0-9][0-9]", true},
		{"abc", "abc", true},
		{"abcd", "abc", false},
		{"xabc", "%abc", true},
		{"abc", "a_c", true},
		{"ac", "a_c", false},
		{"a\nc", "a_c", false}, // Java's '.' does not match a line break
		{"a\rc", "a%c", false},
		{"abc", "a.c", true}, // Calcite passes '.' through: any character
		{"ab", "(ab|cd)", true},
		{"cd", "ab|cd", true},
		{"ad", "ab|cd", false},
		{"aaa", "a{3}", true},
		{"aa", "a{3,}", false},
		{"aab", "a+b?", true},
		{"a$", "a$", true},
		{`a\b`, `a\b`, true},
		{"Q", "[[:UPPER:]]", true},
		{"q", "[[:UPPER:]]", false},
		{"é", "[[:ALPHA:]]", false}, // Java's \p{Alpha} is ASCII
		{"7", "[^[:ALPHA:]]", true},
		{"-", "[a-]", true},
		{"&", "[a&&b]", true},
	}
	for _, c := range cases {
		re, err := compileSimilar(c.p)
		if err != nil {
			t.Errorf("%q SIMILAR TO %q: %v", c.s, c.p, err)
			continue
		}
		if got := re.MatchString(c.s); got != c.want {
			t.Errorf("%q SIMILAR TO %q = %v, want %v (regexp %s)", c.s, c.p, got, c.want, re)
		}
	}
	for _, p := range []string{"[abc", "abc]", "[a%]", "[[:FOO:]]", "a{", "a{x}", "a{,3}", "(ab", "a**"} {
		if _, err := compileSimilar(p); err == nil {
			t.Errorf("SIMILAR TO %q: no error; Calcite or Java refuses it", p)
		}
	}
	// The translation agrees with a reference built the slow way for
	// patterns of plain characters, '_' and '%'.
	for _, p := range []string{"a%b_c", "%%", "_", "x%"} {
		re, err := compileSimilar(p)
		if err != nil {
			t.Fatal(err)
		}
		ref := regexp.MustCompile("^" + regexp.MustCompile(`[_%]`).ReplaceAllStringFunc(regexp.QuoteMeta(p), func(m string) string {
			if m == "_" {
				return "[^\n\r\u0085\u2028\u2029]"
			}
			return "[^\n\r\u0085\u2028\u2029]*"
		}) + "$")
		for _, s := range []string{"", "a", "ab", "abc", "axbyc", "x\n", "aXXbQc", "%_"} {
			if re.MatchString(s) != ref.MatchString(s) {
				t.Errorf("%q SIMILAR TO %q = %v, reference says %v", s, p, re.MatchString(s), ref.MatchString(s))
			}
		}
	}
}
