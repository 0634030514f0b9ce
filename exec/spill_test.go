package exec

import (
	"math/rand"
	"strings"
	"testing"
)

// TestIntervalJoinSpillMatchesReference runs the randomized interval joins
// with a one-byte state budget, so every key spills to Badger and comes back
// at every step: the results must equal the reference, as in memory. The
// outer sides' padded rows go downstream two at a time (fireBatch), from
// inside the expiry.
func TestIntervalJoinSpillMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("spills to disk: skipped with -short")
	}
	defer func(n int) { fireBatch = n }(fireBatch)
	fireBatch = 2
	for _, kind := range []string{"JOIN", "LEFT JOIN", "FULL JOIN"} {
		for seed := int64(1); seed <= 8; seed++ {
			r := rand.New(rand.NewSource(seed))
			lower := -int64(r.Intn(3000))
			upper := int64(r.Intn(3000)) - 500
			const delay = 700
			left := genStream(r, 30+r.Intn(30), 4, delay)
			right := genStream(r, 30+r.Intn(30), 4, delay)
			script := intervalScript(kind, lower, upper, delay, left, right, r)
			script = strings.Replace(script, "SELECT ", "SET 'state.memory-budget' = '1b';\nSELECT ", 1)
			out, err := runScript(script)
			if err != nil {
				t.Fatalf("%s seed %d: %v", kind, seed, err)
			}
			if !strings.Contains(out, "(state spilled to disk)") {
				t.Fatalf("%s seed %d: a one-byte budget did not spill", kind, seed)
			}
			got := materialize(t, out)
			want := intervalReference(kind, lower, upper, left, right)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s seed %d: with every key spilled, engine and reference differ\nengine:\n%s\nreference:\n%s",
					kind, seed, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}
