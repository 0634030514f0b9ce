package diag

import "strings"

// Suggest returns the candidate closest to word when it is close enough to
// be a likely typo (case-insensitive edit distance at most a third of the
// word's length, and at least 1), or "" when nothing is. Ties keep the
// earlier candidate.
func Suggest(word string, candidates []string) string {
	w := strings.ToLower(word)
	best, bestD := "", -1
	limit := max(1, len([]rune(w))/3)
	for _, c := range candidates {
		d := distance(w, strings.ToLower(c))
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the optimal-string-alignment (Damerau-Levenshtein with
// adjacent transpositions) distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n, m := len(ra), len(rb)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
		d[i][0] = i
	}
	for j := 0; j <= m; j++ {
		d[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[n][m]
}
