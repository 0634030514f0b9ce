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
	for _, kind := range []string{"JOIN", "LEFT JOIN"} {
		job := writeJobIn(t, dir, "q13.sql", "CREATE TABLE bids (id BIGINT, auction BIGINT, p AS PROCTIME())\n"+
			"WITH ('connector' = 'filesystem', 'path' = 'bids.json', 'format' = 'json');\n"+
			"CREATE TABLE side_input (key BIGINT, `value` STRING) WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');\n"+
			"CREATE TABLE out (id BIGINT, auction BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');\n"+
			"INSERT INTO out SELECT B.id, B.auction, S.`value` FROM bids AS B\n"+
			kind+" side_input FOR SYSTEM_TIME AS OF B.p AS S ON MOD(B.auction, 30) = S.key;\n")
		if r := invoke("run", job); r.code != 0 {
			t.Fatalf("%s: %s", kind, r)
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
					want = append(want, fmt.Sprintf("%d,%d,%s", i, a, d.v))
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
			t.Errorf("%s: %d rows, want %d\ngot  %.20v\nwant %.20v", kind, len(got), len(want), got, want)
		}
	}
}
