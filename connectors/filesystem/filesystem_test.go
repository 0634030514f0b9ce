package filesystem

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/row"
)

const eventsDDL = `CREATE TABLE events (
  id BIGINT,
  name STRING,
  ts TIMESTAMP(3),
  ln BIGINT METADATA FROM 'line' VIRTUAL,
  fp STRING METADATA FROM 'file.path' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in/events.json', 'format' = 'json'%s)`

func ddl(format, extra string) string {
	return strings.Replace(strings.Replace(eventsDDL, "%s", extra, 1), "'json'", "'"+format+"'", 1)
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func openSource(t *testing.T, spec connector.Spec) *Source {
	t.Helper()
	f, ok := connector.LookupSource("filesystem")
	if !ok {
		t.Fatal("filesystem source not registered")
	}
	src, err := f(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := src.Close(); err != nil {
			t.Error(err)
		}
	})
	return src.(*Source)
}

// readAll reads to the end, collecting rows and bad-row errors.
func readAll(t *testing.T, src connector.Source) (rows row.Batch, bad []*connector.BadRowError) {
	t.Helper()
	for range 100000 {
		split, b, err := src.Read(context.Background())
		if split != 0 {
			t.Fatalf("split %d", split)
		}
		rows = append(rows, b...)
		var br *connector.BadRowError
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			if len(b) != 0 {
				t.Fatalf("rows with io.EOF: %v", b)
			}
			return rows, bad
		case errors.As(err, &br):
			bad = append(bad, br)
		default:
			t.Fatal(err)
		}
	}
	t.Fatal("no io.EOF")
	return nil, nil
}

func TestReadJSONWithBadLine(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "in/events.json", "\xef\xbb\xbf"+`{"id": 1, "name": "a", "ts": "2026-01-01 00:00:00.000"}
{"id": 2, "name": "b", "ts": "2026-01-01 00:00:01.000"}`+"\r\n"+
		`{"id": 3, "name": "c", "ts": 1767225602000}
{"id": 4, "name": "d", "ts": "2026-01-01 00:00:03.000"}

{"id": 5, "name": "e", "ts": "2026-01-01 00:00:04.000"}`) // no final newline
	src := openSource(t, conntest.SourceSpec(t, ddl("json", ""), dir))
	if src.Splits() != 1 {
		t.Errorf("Splits() = %d", src.Splits())
	}

	split, b, err := src.Read(context.Background())
	var bad *connector.BadRowError
	if split != 0 || !errors.As(err, &bad) {
		t.Fatalf("first Read: split %d, err %v", split, err)
	}
	if bad.Where != path+":3" {
		t.Errorf("Where = %q, want %q", bad.Where, path+":3")
	}
	if !strings.Contains(bad.Error(), "column ts TIMESTAMP(3)") || !strings.Contains(bad.Error(), "TO_TIMESTAMP_LTZ") {
		t.Errorf("error does not say what is wrong: %v", bad)
	}
	if string(bad.Raw) != `{"id": 3, "name": "c", "ts": 1767225602000}` {
		t.Errorf("Raw = %q", bad.Raw)
	}
	checkIDs(t, b, path, []int64{1, 2}, []int64{1, 2})

	rest, more := readAll(t, src)
	if len(more) != 0 {
		t.Errorf("more bad rows: %v", more)
	}
	checkIDs(t, rest, path, []int64{4, 5}, []int64{4, 6})
	if ts := rest[1].Vals[2].Int(); ts != 1767225604000 {
		t.Errorf("ts = %d", ts)
	}
	// Read after the end stays at the end.
	if _, _, err := src.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Read after EOF: %v", err)
	}
}

func checkIDs(t *testing.T, b row.Batch, path string, ids, lines []int64) {
	t.Helper()
	if len(b) != len(ids) {
		t.Fatalf("got %d rows, want %d: %v", len(b), len(ids), b)
	}
	for i, r := range b {
		if r.Kind != changelogmode.Insert || len(r.Vals) != 5 {
			t.Fatalf("row %d: %v", i, r)
		}
		if r.Vals[0].Int() != ids[i] || r.Vals[3].Int() != lines[i] || r.Vals[4].Str() != path {
			t.Errorf("row %d: id %v line %v path %v, want %d %d %s", i, r.Vals[0], r.Vals[3], r.Vals[4], ids[i], lines[i], path)
		}
	}
}

// With ignore-parse-errors the source still reports every bad line: the
// runtime counts them; nothing is skipped silently.
func TestIgnoreParseErrorsStillReports(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "in/events.json", "{\"id\": 1}\nnot json\n{\"id\": \"x\"}\n{\"id\": 4}\n")
	src := openSource(t, conntest.SourceSpec(t, ddl("json", ", 'json.ignore-parse-errors' = 'true'"), dir))
	rows, bad := readAll(t, src)
	if len(rows) != 2 || rows[0].Vals[0].Int() != 1 || rows[1].Vals[0].Int() != 4 {
		t.Errorf("rows %v", rows)
	}
	if len(bad) != 2 || bad[0].Where != path+":2" || bad[1].Where != path+":3" {
		t.Errorf("bad rows %v", bad)
	}
}

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "in/events.json", "1,a,2026-01-01 00:00:00\n2,\"b,c\",\n3,,2026-01-01T00:00:02Z\n")
	src := openSource(t, conntest.SourceSpec(t, ddl("csv", ", 'csv.null-literal' = ''"), dir))
	rows, bad := readAll(t, src)
	if len(bad) != 0 {
		t.Fatal(bad)
	}
	checkIDs(t, rows, path, []int64{1, 2, 3}, []int64{1, 2, 3})
	if rows[1].Vals[1].Str() != "b,c" || !rows[1].Vals[2].IsNull() || !rows[2].Vals[1].IsNull() || rows[2].Vals[2].Int() != 1767225602000 {
		t.Errorf("rows %v", rows)
	}
	// Without a null literal an empty TIMESTAMP field is an error, as in
	// Flink, naming the file, the line and the column.
	src = openSource(t, conntest.SourceSpec(t, ddl("csv", ""), dir))
	rows, bad = readAll(t, src)
	if len(rows) != 2 || len(bad) != 1 || bad[0].Where != path+":2" || !strings.Contains(bad[0].Error(), "column ts TIMESTAMP(3)") {
		t.Errorf("without 'csv.null-literal': rows %v, bad %v", rows, bad)
	}
}

// TestBatches: a Read returns at most BatchLines lines' rows; lines of any
// length are read.
func TestBatches(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	long := strings.Repeat("x", 200<<10)
	upTo := []int{0} // upTo[i]: bytes of the first i lines
	for i := range 2500 {
		name := "n"
		if i == 1500 {
			name = long
		}
		sb.WriteString(`{"id": ` + strconv.Itoa(i) + `, "name": "` + name + `"}` + "\n")
		upTo = append(upTo, sb.Len())
	}
	write(t, dir, "in/events.json", sb.String())
	src := openSource(t, conntest.SourceSpec(t, ddl("json", ""), dir))
	var sizes []int
	var all row.Batch
	for {
		_, b, err := src.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(b))
		all = append(all, b...)
		// Metrics read the bytes of the lines read so far.
		if got := src.SplitBytes(0); got != int64(upTo[len(all)]) {
			t.Errorf("after %d lines: SplitBytes %d, want %d", len(all), got, upTo[len(all)])
		}
	}
	if len(sizes) != 3 || sizes[0] != BatchLines || sizes[1] != BatchLines || sizes[2] != 2500-2*BatchLines {
		t.Errorf("batch sizes %v", sizes)
	}
	for i, r := range all {
		if r.Vals[0].Int() != int64(i) || r.Vals[3].Int() != int64(i+1) {
			t.Fatalf("row %d: %v", i, r.Vals)
		}
	}
	if all[1500].Vals[1].Str() != long {
		t.Error("long line mangled")
	}
}

func TestRoundTrip(t *testing.T) {
	const table = `CREATE TABLE out (
  id BIGINT, name STRING, price DECIMAL(10, 2), ok BOOLEAN, day DATE, ts TIMESTAMP_LTZ(3), score DOUBLE
) WITH ('connector' = 'filesystem', 'path' = 'out/t.txt', 'format' = '%s')`
	vals := [][]row.Value{
		{row.IntValue(1), row.StrValue("a \"quoted\", value"), row.IntValue(1230), row.BoolValue(true), row.IntValue(20454), row.IntValue(1767225600123), row.FloatValue(0.5)},
		{row.IntValue(2), row.StrValue(""), row.IntValue(-5), row.BoolValue(false), row.IntValue(-1), row.IntValue(-1), row.FloatValue(-1e300)},
		{row.IntValue(3), row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue, row.NullValue},
	}
	for _, f := range []string{"json", "csv", "debezium-json"} {
		t.Run(f, func(t *testing.T) {
			dir := t.TempDir()
			d := strings.Replace(table, "%s", f, 1)
			if f == "csv" {
				// As in Flink, without a null literal NULL is written empty
				// and reads back as an empty field does ('' or an error),
				// and with an empty one '' reads back NULL: a literal that
				// is no value of the table keeps both.
				d = strings.Replace(d, "'format' = 'csv'", "'format' = 'csv', 'csv.null-literal' = '\\N'", 1)
			}
			sf, ok := connector.LookupSink("filesystem")
			if !ok {
				t.Fatal("filesystem sink not registered")
			}
			sink, err := sf(conntest.SinkSpec(t, d, dir))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := sink.Open(ctx); err != nil {
				t.Fatal(err)
			}
			var in row.Batch
			for _, v := range vals {
				in = append(in, row.Insert(v...))
			}
			if f == "debezium-json" {
				in = append(in, row.Row{Kind: changelogmode.Delete, Vals: vals[0]})
			}
			if err := sink.Write(ctx, in[:1]); err != nil {
				t.Fatal(err)
			}
			if err := sink.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			// Flushed rows are in the file.
			if data, _ := os.ReadFile(filepath.Join(dir, "out/t.txt")); strings.Count(string(data), "\n") != 1 {
				t.Errorf("after Flush the file holds %q", data)
			}
			if err := sink.Write(ctx, in[1:]); err != nil {
				t.Fatal(err)
			}
			if err := sink.Close(); err != nil {
				t.Fatal(err)
			}
			src := openSource(t, conntest.SourceSpec(t, d, dir))
			got, bad := readAll(t, src)
			if len(bad) != 0 {
				t.Fatal(bad)
			}
			if len(got) != len(in) {
				t.Fatalf("got %d rows, want %d", len(got), len(in))
			}
			for i := range in {
				if got[i].Kind != in[i].Kind {
					t.Errorf("row %d: kind %s, want %s", i, got[i].Kind, in[i].Kind)
				}
				for j := range in[i].Vals {
					if !got[i].Vals[j].Equal(in[i].Vals[j]) {
						t.Errorf("row %d col %d: got %v, want %v", i, j, got[i].Vals[j], in[i].Vals[j])
					}
				}
			}
		})
	}
}

func TestSinkRefusesRetractionsInJSON(t *testing.T) {
	dir := t.TempDir()
	sink, err := NewSink(conntest.SinkSpec(t, `CREATE TABLE o (id BIGINT) WITH ('connector'='filesystem','path'='o.json','format'='json')`, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	err = sink.Write(context.Background(), row.Batch{{Kind: changelogmode.UpdateBefore, Vals: []row.Value{row.IntValue(1)}}})
	if err == nil || !strings.Contains(err.Error(), "o.json: row 1") || !strings.Contains(err.Error(), "insert-only") {
		t.Errorf("got %v", err)
	}
}

// TestRawSinkRefusesLineBreaks: a raw value with a line break would read
// back as two rows; the sink refuses it, naming the row, and writes the
// rows before it whole.
func TestRawSinkRefusesLineBreaks(t *testing.T) {
	dir := t.TempDir()
	sink, err := NewSink(conntest.SinkSpec(t, `CREATE TABLE o (line STRING) WITH ('connector'='filesystem','path'='o.txt','format'='raw')`, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows := row.Batch{{Kind: changelogmode.Insert, Vals: []row.Value{row.StrValue("one")}},
		{Kind: changelogmode.Insert, Vals: []row.Value{row.StrValue("two\nlines")}}}
	err = sink.Write(context.Background(), rows)
	if err == nil || !strings.Contains(err.Error(), "o.txt: row 2") || !strings.Contains(err.Error(), "line break") {
		t.Errorf("got %v", err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "o.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("the file holds %q (%v), want the first row", b, err)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	src, err := NewSource(conntest.SourceSpec(t, ddl("json", ""), dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "events.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := src.Read(context.Background()); err == nil {
		t.Error("Read before Open")
	}
	if err := src.Close(); err != nil {
		t.Error(err)
	}
	if _, err := NewSource(conntest.SourceSpec(t, ddl("json", ", 'source.monitor-interval' = '1s'"), dir)); err == nil {
		t.Error("monitor-interval accepted")
	}
	if _, err := NewSource(conntest.SourceSpec(t, ddl("raw", ""), dir)); err == nil || !strings.Contains(err.Error(), "raw") {
		t.Errorf("raw: %v", err)
	}
	// A cancelled context stops a read.
	write(t, dir, "in/events.json", "{}\n")
	src = openSource(t, conntest.SourceSpec(t, ddl("json", ""), dir))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := src.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Read: %v", err)
	}
}

func TestMetadata(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "data.json", "{\"id\": 1}\n")
	src := openSource(t, conntest.SourceSpec(t, `CREATE TABLE m (
  id BIGINT,
  n STRING METADATA FROM 'file.name' VIRTUAL,
  sz BIGINT METADATA FROM 'file.size' VIRTUAL,
  mt TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time' VIRTUAL,
  ln STRING METADATA FROM 'line' VIRTUAL
) WITH ('connector'='filesystem','path'='`+path+`','format'='json')`, "/elsewhere"))
	rows, _ := readAll(t, src)
	info, _ := os.Stat(path)
	want := []row.Value{row.IntValue(1), row.StrValue("data.json"), row.IntValue(10), row.IntValue(info.ModTime().UnixMilli()), row.StrValue("1")}
	if len(rows) != 1 {
		t.Fatal(rows)
	}
	for i, w := range want {
		if !rows[0].Vals[i].Equal(w) {
			t.Errorf("column %d: %v, want %v", i, rows[0].Vals[i], w)
		}
	}
}

// wholeLines fails unless data is empty or a sequence of lines, each ending
// in '\n' and each a JSON object; it returns their number.
func wholeLines(t *testing.T, data []byte) int {
	t.Helper()
	if len(data) == 0 {
		return 0
	}
	if data[len(data)-1] != '\n' {
		t.Fatalf("the file ends in part of a line: …%q", data[max(len(data)-40, 0):])
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d is not a row: %q", i+1, l)
		}
	}
	return len(lines)
}

// TestSinkWritesWholeLines: whatever has reached the file, at any moment,
// is whole rows, so a job killed there leaves parseable lines (the sink
// used to write 64 KiB blocks cut anywhere); a row that fails to encode
// leaves no part of itself behind, and Close writes the rows before it.
func TestSinkWritesWholeLines(t *testing.T) {
	dir := t.TempDir()
	sink, err := NewSink(conntest.SinkSpec(t, `CREATE TABLE o (id BIGINT, name STRING) WITH ('connector'='filesystem','path'='o.json','format'='json')`, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sink.Open(ctx); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "o.json")
	var big row.Batch
	for i := 0; i < 5000; i++ { // ~200 KiB: more than the sink gathers
		big = append(big, row.Insert(row.IntValue(int64(i)), row.StrValue(strings.Repeat("x", i%50))))
	}
	if err := sink.Write(ctx, big); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := wholeLines(t, data); n != len(big) {
		t.Fatalf("after a Write of %d bytes of rows the file holds %d rows, want all %d", 5000*40, n, len(big))
	}
	for i := 0; i < 3000; i++ {
		if err := sink.Write(ctx, big[i:i+1]); err != nil {
			t.Fatal(err)
		}
		if i%97 == 0 {
			data, _ := os.ReadFile(path)
			wholeLines(t, data)
		}
	}
	// The third row cannot be encoded (json takes inserts only).
	bad := row.Batch{big[0], big[1], {Kind: changelogmode.UpdateBefore, Vals: big[2].Vals}, big[3]}
	if err := sink.Write(ctx, bad); err == nil {
		t.Fatal("a -U row was written to a json file")
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if n := wholeLines(t, data); n != 5000+3000+2 {
		t.Fatalf("after Close the file holds %d rows, want %d", n, 5000+3000+2)
	}
}

// TestSinkCutsAFailedWriteBack: when the disk refuses part of a write (here
// the file size limit), the file is cut back to its last whole row.
func TestSinkCutsAFailedWriteBack(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	sink, err := NewSink(conntest.SinkSpec(t, `CREATE TABLE o (id BIGINT, name STRING) WITH ('connector'='filesystem','path'='o.json','format'='json')`, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := sink.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var rows row.Batch
	for i := 0; i < 2000; i++ {
		rows = append(rows, row.Insert(row.IntValue(int64(i)), row.StrValue("abcdefghij")))
	}
	if err := sink.Write(ctx, rows[:10]); err != nil {
		t.Fatal(err)
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// Writes past 1000 bytes fail with EFBIG (and SIGXFSZ, ignored here).
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	lim := old
	lim.Cur = 1000
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	werr := sink.Write(ctx, rows[10:])
	cerr := sink.Close()
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if werr == nil && cerr == nil {
		t.Fatal("a write past the file size limit succeeded")
	}
	data, _ := os.ReadFile(filepath.Join(dir, "o.json"))
	if n := wholeLines(t, data); n != 10 {
		t.Errorf("the file holds %d rows, want the 10 written before the failure", n)
	}
}
