package diag

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate the user most likely meant by word, or ""
// when none is close. It is the one "did you mean" of streamsql: for
// connectors, formats, options and option values (package connectors),
// tables, views, columns, metadata keys and settings (catalog, planner) and
// functions (expr).
//
// Matching ignores case. When word is itself a candidate there is nothing to
// correct, and Suggest returns "". Otherwise, in order of preference:
//
//  1. a candidate equal to word apart from case;
//  2. the candidate with the smallest Damerau-Levenshtein distance (an
//     adjacent transposition counts as one edit), if that distance is at
//     most max(1, len(word)/3) and smaller than len(word);
//  3. for words of three or more characters, the shortest candidate that
//     starts with word ("earliest" for "earliest-offset"), or that ends with
//     word after a '.', '_' or '-' ("group.id" for "properties.group.id").
//
// Ties go to the candidate that comes first, so results are stable.
func Suggest(word string, candidates []string) string {
	if word == "" || slices.Contains(candidates, word) {
		return ""
	}
	lw := strings.ToLower(word)
	w := []rune(lw)
	limit := min(max(1, len(w)/3), len(w)-1)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lw {
			return c
		}
		// The distance is at least the difference in length.
		if abs(utf8.RuneCountInString(lc)-len(w)) >= bestDist {
			continue
		}
		if d := distance(w, []rune(lc)); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" || len(w) < 3 {
		return best
	}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if (strings.HasPrefix(lc, lw) || endsWithPart(lc, lw)) && (best == "" || len(c) < len(best)) {
			best = c
		}
	}
	return best
}

// endsWithPart reports whether s ends with part, preceded by a separator.
func endsWithPart(s, part string) bool {
	if len(s) <= len(part) || !strings.HasSuffix(s, part) {
		return false
	}
	switch s[len(s)-len(part)-1] {
	case '.', '_', '-':
		return true
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// distance is the optimal-string-alignment form of the Damerau-Levenshtein
// distance between a and b: insertions, deletions, substitutions and
// transpositions of adjacent characters each cost one.
func distance(a, b []rune) int {
	// Three rows: two back (for transpositions), previous and current.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
