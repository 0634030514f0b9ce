package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunLookupJoinFile runs Nexmark q13's shape: a processing-time lookup
// join of a stream against a csv file (the whole file indexed in memory),
// INNER and LEFT, and compares the output with a nested-loop join computed
// here: every probe row with each dim row of its key (duplicate keys give
// several), and for LEFT a probe without one padded with NULL.
func TestRunLookupJoinFile(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	type dimRow struct {
		k int64
		v string
	}
	var dim []dimRow
	var csv strings.Builder
	for i := range 40 {
		d := dimRow{int64(rng.IntN(30)), fmt.Sprintf("v%d", i)}
		dim = append(dim, d)
		fmt.Fprintf(&csv, "%d,%s\n", d.k, d.v)
	}
	var probes []int64
	var js strings.Builder
	for i := range 300 {
		a := int64(rng.IntN(100000))
		probes = append(probes, a)
		fmt.Fprintf(&js, "{\"id\": %d, \"auction\": %d}\n", i, a)
	}
	for name, text := range map[string]string{"side.csv": csv.String(), "bids.json": js.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The third case joins AS OF the dim table's own PROCTIME() column (as
	// the cookbook's functions/05 does; Flink reads it as the time of the
	// lookup) and reads a computed column of the dim table, computed on
	// each row found.
	for _, c := range []struct{ kind, dimCols, asOf, v, suffix string }{
		{"JOIN", "", "B.p", "S.`value`", ""},
		{"LEFT JOIN", "", "B.p", "S.`value`", ""},
		{"JOIN", ", w AS CONCAT(`value`, '!'), pt AS PROCTIME()", "pt", "CASE WHEN S.pt IS NOT NULL THEN S.w END", "!"},
	} {
		kind := c.kind
		job := writeJobIn(t, dir, "q13.sql", "CREATE TABLE bids (id BIGINT, auction BIGINT, p AS PROCTIME())\n"+
			"WITH ('connector' = 'filesystem', 'path' = 'bids.json', 'format' = 'json');\n"+
			"CREATE TABLE side_input (key BIGINT, `value` STRING"+c.dimCols+") WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');\n"+
			"CREATE TABLE out (id BIGINT, auction BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');\n"+
			"INSERT INTO out SELECT B.id, B.auction, "+c.v+" FROM bids AS B\n"+
			kind+" side_input FOR SYSTEM_TIME AS OF "+c.asOf+" AS S ON MOD(B.auction, 30) = S.key;\n")
		if r := invoke("run", job); r.code != 0 {
			t.Fatalf("%s AS OF %s: %s", kind, c.asOf, r)
		}
		b, err := os.ReadFile(filepath.Join(dir, "out.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r struct {
				ID, Auction int64
				V           *string
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %q: %v", kind, line, err)
			}
			v := "NULL"
			if r.V != nil {
				v = *r.V
			}
			got = append(got, fmt.Sprintf("%d,%d,%s", r.ID, r.Auction, v))
		}
		var want []string
		for i, a := range probes {
			n := 0
			for _, d := range dim {
				if a%30 == d.k {
					want = append(want, fmt.Sprintf("%d,%d,%s%s", i, a, d.v, c.suffix))
					n++
				}
			}
			if n == 0 && kind == "LEFT JOIN" {
				want = append(want, fmt.Sprintf("%d,%d,NULL", i, a))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s AS OF %s: %d rows, want %d\ngot  %.20v\nwant %.20v", kind, c.asOf, len(got), len(want), got, want)
		}
	}
}
