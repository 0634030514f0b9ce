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

const csvJob = `CREATE TABLE c (id INT, note STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv',
  'format' = 'csv'%s);
CREATE TABLE o (id INT, note STRING, n INT) WITH ('connector' = 'print');
INSERT INTO o SELECT id, note, n FROM c;
`

// TestRunCSVQuotedLineBreakAndEmptyValue: a quoted csv field holding a
// line break is one row (RFC 4180); a bad record after it is named by its
// own first line, and the message shows the offending value even when it
// is the empty string. With 'csv.ignore-parse-errors' the field that cannot
// be read is NULL and its row kept, as Flink's csv format does; a record
// with too many fields is still a bad row, counted and skipped.
func TestRunCSVQuotedLineBreakAndEmptyValue(t *testing.T) {
	data := "1,\"first\nsecond\",10\n2,\"x\",\"\"\n3,y,30\n4,z,40,extra\n"
	dir := writeFiles(t, map[string]string{"c.csv": data, "job.sql": strings.Replace(csvJob, "%s", "", 1)})
	r := invoke("run", filepath.Join(dir, "job.sql"))
	want := filepath.Join(dir, "c.csv") + `:3: bad row: column n INT: value "": an empty field cannot be read as INT`
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("want exit 1 and %q, got:\n%s", want, r)
	}

	dir = writeFiles(t, map[string]string{"c.csv": data, "job.sql": strings.Replace(csvJob, "%s", ",\n  'csv.ignore-parse-errors' = 'true'", 1)})
	r = invoke("run", filepath.Join(dir, "job.sql"))
	if r.code != 0 || !strings.Contains(r.stderr, "1 bad row") {
		t.Fatalf("with ignore-parse-errors: want exit 0 and 1 bad row, got:\n%s", r)
	}
	// A projection of one file keeps the file's order.
	if got, want := r.stdout, "+I[1, first\nsecond, 10]\n+I[2, x, null]\n+I[3, y, 30]\n"; got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunRowsWithoutTime: a row whose event time is NULL, or out of range
// (a BIGINT epoch that is no epoch, through TO_TIMESTAMP_LTZ), is in no
// window: counted on the source and the operator in the run summary, and
// written to the dead-letter file with the reason. It neither vanishes nor
// moves the watermark (MIN_VALUE - 5 s used to wrap around to the far
// future, making every later row late).
func TestRunRowsWithoutTime(t *testing.T) {
	const job = `CREATE TABLE e (k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'e.json', 'format' = 'json', 'scan.late-rows.path' = 'dead.jsonl');
CREATE TABLE o (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
`
	data := `{"k": "a", "ms": 1767261601000}
{"k": "nul", "ms": null}
{"k": "min", "ms": -9223372036854775808}
{"k": "b", "ms": 1767261602000}
{"k": "c", "ms": 1767261603000}
`
	// (The file is one batch: the watermark moves after it, so the dead
	// letters say -inf.)
	dir := writeFiles(t, map[string]string{"e.json": data, "job.sql": job})
	r := invoke("run", filepath.Join(dir, "job.sql"))
	if r.code != 0 {
		t.Fatalf("want exit 0, got:\n%s", r)
	}
	if want := "+I[2026-01-01 10:00:00.000, 3]\n"; r.stdout != want {
		t.Errorf("output %q, want %q", r.stdout, want)
	}
	for _, s := range []string{"2 rows without time", "no time 2", "watermark +inf  max event time 2026-01-01 10:00:03.000"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("the summary lacks %q:\n%s", s, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "late row") || strings.Contains(r.stderr, "late 1") {
		t.Errorf("no row is late:\n%s", r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "dead.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"operator":"Window TUMBLE(e)","reason":"no event time: ts is NULL","row":{"k":"nul","ms":null,"ts":null},"time":null,"watermark":"-inf"}
{"operator":"Window TUMBLE(e)","reason":"event time out of range: ts is -9223372036854775808 ms from 1970-01-01, before year 1","row":{"k":"min","ms":"-9223372036854775808","ts":"-292275055-05-16 16:47:04.192"},"time":null,"watermark":"-inf"}
`
	if string(b) != want {
		t.Errorf("dead letters:\n%s\nwant:\n%s", b, want)
	}
}
