package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeFiles writes name -> text into a fresh directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sortedLines is the non-empty lines of s, sorted.
func sortedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// malformedOps are debezium-json records whose "op" value is cut off or
// not JSON: each once crashed the decoder (slice bounds out of range),
// and the job died with an internal error naming no line.
var malformedOps = []string{`{"op":`, `{"op":}`, `{"op":tru`, `{"op": [1,`, `{"op":nul`}

const debeziumJob = `CREATE TABLE d (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'd.json',
  'format' = 'debezium-json'%s);
CREATE TABLE o (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT id, v FROM d;
`

// TestRunDebeziumMalformedOp: a malformed op stops the job with the file
// and line of the record (not an internal error), and
// 'debezium-json.ignore-parse-errors' skips and counts it.
func TestRunDebeziumMalformedOp(t *testing.T) {
	for _, bad := range malformedOps {
		t.Run(bad, func(t *testing.T) {
			data := `{"op":"c","after":{"id":1,"v":"a"}}` + "\n" + bad + "\n" + `{"op":"c","after":{"id":2,"v":"b"}}` + "\n"
			dir := writeFiles(t, map[string]string{
				"d.json":  data,
				"job.sql": strings.Replace(debeziumJob, "%s", "", 1),
			})
			r := invoke("run", filepath.Join(dir, "job.sql"))
			if r.code != 1 || !strings.Contains(r.stderr, filepath.Join(dir, "d.json")+":2: bad row: invalid JSON") ||
				strings.Contains(r.stderr, "internal error") {
				t.Errorf("want exit 1 naming d.json:2 as invalid JSON, got:\n%s", r)
			}

			dir = writeFiles(t, map[string]string{
				"d.json":  data,
				"job.sql": strings.Replace(debeziumJob, "%s", ",\n  'debezium-json.ignore-parse-errors' = 'true'", 1),
			})
			r = invoke("run", filepath.Join(dir, "job.sql"))
			if r.code != 0 {
				t.Fatalf("with ignore-parse-errors: want exit 0, got:\n%s", r)
			}
			if got, want := strings.Join(sortedLines(r.stdout), "\n"), "+I[1, a]\n+I[2, b]"; got != want {
				t.Errorf("rows:\n%s\nwant:\n%s", got, want)
			}
			if !strings.Contains(r.stderr, "1 bad row") {
				t.Errorf("the summary does not count the skipped row:\n%s", r.stderr)
			}
		})
	}
}
