package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRunSharesSources (#11.9, #19.8): the INSERTs of one job read each
// table once. Two SUM(v) over one random datagen table agree, and equal the
// sum of the rows a third INSERT copied to a file (the reference, summed
// here); the summary lists the source once, with the rows read once.
func TestRunSharesSources(t *testing.T) {
	dir := t.TempDir()
	job := writeJobIn(t, dir, "share.sql", `CREATE TABLE g (v INT, w AS v * 2) WITH (
  'connector' = 'datagen', 'number-of-rows' = '20000', 'fields.v.min' = '0', 'fields.v.max' = '1000000');
CREATE TABLE a (s BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'a');
CREATE TABLE b (s BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'b');
CREATE TABLE raw (v INT) WITH ('connector' = 'filesystem', 'path' = 'raw.json', 'format' = 'json');
INSERT INTO a SELECT SUM(v) FROM g;
INSERT INTO b SELECT SUM(w) / 2 FROM g;
INSERT INTO raw SELECT v FROM g;
`)
	res := invoke("run", "--set", "parallelism=4", job)
	if res.code != 0 {
		t.Fatalf("%s", res)
	}
	// The last change of each sink is its final sum.
	final := map[string]int64{}
	for _, m := range regexp.MustCompile(`(?m)^([ab])> [+][IU]\[(-?\d+)\]$`).FindAllStringSubmatch(res.stdout, -1) {
		final[m[1]], _ = strconv.ParseInt(m[2], 10, 64)
	}
	data, err := os.ReadFile(filepath.Join(dir, "raw.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	n := 0
	for _, m := range regexp.MustCompile(`\{"v":(\d+)\}`).FindAllStringSubmatch(string(data), -1) {
		v, _ := strconv.ParseInt(m[1], 10, 64)
		want += v
		n++
	}
	if n != 20000 {
		t.Fatalf("raw.json holds %d rows, want 20000", n)
	}
	if final["a"] != want || final["b"] != want {
		t.Errorf("SUM(v) = %d and %d; the rows copied to raw.json sum to %d", final["a"], final["b"], want)
	}
	if c := strings.Count(res.stderr, "  source g "); c != 1 {
		t.Errorf("the summary lists source g %d times:\n%s", c, res.stderr)
	}
	if !regexp.MustCompile(`(?m)^  source g +20000 rows`).MatchString(res.stderr) {
		t.Errorf("the summary should say source g read 20000 rows:\n%s", res.stderr)
	}
}
