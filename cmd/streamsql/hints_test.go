package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestRunTableHintOptions runs the cookbook's override-table-options recipe:
// a CSV file with a malformed row, read once as declared (the run fails on
// that row, naming its line) and once with
// /*+ OPTIONS('csv.ignore-parse-errors' = 'true') */ (the run reads the
// field it cannot parse as NULL, as Flink's csv format does and the
// cookbook's "WHERE LATITUDE IS NULL" relies on).
// Both read the same table; only the hint differs, so a hint that were not
// applied would fail the second run too. The second run's INSERT has a
// hint too, writing another file than its table's.
func TestRunTableHintOptions(t *testing.T) {
	dir := t.TempDir()
	csv := "ABQ,Albuquerque,NM,35.04\nBAD,Nowhere,NM,north\nXXX,Somewhere,,\nSFO,San Francisco,CA,37.62\n"
	if err := os.WriteFile(filepath.Join(dir, "airports.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	table := "CREATE TABLE airports (iata STRING, city STRING, state STRING, latitude DOUBLE)\n" +
		"WITH ('connector' = 'filesystem', 'path' = 'airports.csv', 'format' = 'csv');\n" +
		"CREATE TABLE out (iata STRING, latitude DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');\n"
	plain := writeJobIn(t, dir, "plain.sql", table+"INSERT INTO out SELECT iata, latitude FROM airports;\n")
	r := invoke("run", plain)
	if r.code != 1 || !strings.Contains(r.stderr, "airports.csv:2") {
		t.Fatalf("without the hint: want exit 1 naming airports.csv:2, got:\n%s", r)
	}
	hinted := writeJobIn(t, dir, "hinted.sql", table+
		"INSERT INTO out /*+ OPTIONS('path' = 'out2.json') */ SELECT iata, latitude FROM airports /*+ OPTIONS('csv.ignore-parse-errors' = 'true') */;\n")
	os.Remove(filepath.Join(dir, "out.json"))
	if r := invoke("run", hinted); r.code != 0 {
		t.Fatalf("with the hint: want exit 0, got:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Errorf("the sink's hint names out2.json, but out.json was written")
	}
	b, err := os.ReadFile(filepath.Join(dir, "out2.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	sort.Strings(lines)
	want := []string{`{"iata":"ABQ","latitude":35.04}`, `{"iata":"BAD","latitude":null}`, `{"iata":"SFO","latitude":37.62}`, `{"iata":"XXX","latitude":null}`}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("with the hint: got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
