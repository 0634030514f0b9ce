package filesystem

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/format/formattest"
	"github.com/streamsql/streamsql/row"
)

// How records are framed in a file: a csv quoted field may hold line
// breaks (RFC 4180), and every message names the record's first line.

const csv3DDL = `CREATE TABLE t (a STRING, b STRING, c STRING, ln BIGINT METADATA FROM 'line' VIRTUAL)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv')`

// record is what a source gave for one record: its fields (NULL read as
// "", as encoding/csv cannot tell them apart) or the bad-row error.
type record struct {
	line   int64
	fields []string
	bad    string
	breaks int64 // line breaks inside the record's fields (the reference's)
}

func (r record) String() string {
	if r.bad != "" {
		return fmt.Sprintf("line %d: bad: %s", r.line, r.bad)
	}
	return fmt.Sprintf("line %d: %q", r.line, r.fields)
}

// sourceRecords reads the file of spec with the filesystem source.
func sourceRecords(t *testing.T, spec connector.Spec, path string) []record {
	t.Helper()
	rows, bad := readAll(t, openSource(t, spec))
	var out []record
	for _, r := range rows {
		rec := record{line: r.Vals[3].Int()}
		for _, v := range r.Vals[:3] {
			rec.fields = append(rec.fields, v.Str())
		}
		out = append(out, rec)
	}
	for _, b := range bad {
		line, err := strconv.ParseInt(strings.TrimPrefix(b.Where, path+":"), 10, 64)
		if err != nil {
			t.Fatalf("bad row Where = %q, want %s:LINE", b.Where, path)
		}
		out = append(out, record{line: line, bad: b.Err.Error()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

// referenceRecords reads text with encoding/csv, the reference for RFC
// 4180: records with three fields are rows, others bad rows, each at the
// line it starts on. It stops at the first record encoding/csv refuses and
// returns that record's first line (0 when it read the whole text), from
// which on the two are not compared: streamsql reads a bare quote inside
// an unquoted field as itself, where encoding/csv refuses it.
func referenceRecords(text string) (recs []record, stop int64) {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	for {
		fields, err := r.Read()
		if errors.Is(err, io.EOF) {
			return recs, 0
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return recs, int64(pe.StartLine)
			}
			panic(err)
		}
		line, _ := r.FieldPos(0)
		rec := record{line: int64(line), fields: fields, breaks: int64(strings.Count(strings.Join(fields, ""), "\n"))}
		if len(fields) == 4 && strings.TrimLeft(fields[3], "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ") == "" {
			rec.fields = fields[:3] // a trailing delimiter: see compareWithReference
		}
		if len(rec.fields) != 3 {
			rec.fields, rec.bad = nil, "wrong number of fields"
		}
		recs = append(recs, rec)
	}
}

// compareWithReference fails unless the source read text as encoding/csv
// does, up to where encoding/csv stopped, with two differences, both
// Flink's (whose csv reader is Jackson's CsvParser):
//
//   - A line break inside a quoted field is data and is kept as it is in
//     the file: "\r\n" stays "\r\n" (encoding/csv turns it into "\n"; Python's
//     csv and Jackson keep it). Otherwise a value holding "\r\n", written
//     by the sink as it is, would not read back.
//   - An empty line (or one of carriage returns only) between records is a
//     record of one empty field, as Jackson reads it without
//     SKIP_EMPTY_LINES (encoding/csv skips it): with three columns a bad
//     record.
//   - A fourth field that is empty or blank (up to ' ', as Java's trim) is
//     dropped: a trailing delimiter, which Jackson's ALLOW_TRAILING_COMMA
//     ignores.
func compareWithReference(t *testing.T, text string, got []record) {
	t.Helper()
	want, stop := referenceRecords(text)
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1] // the text after the last line break is no line
	}
	covered := make([]bool, len(lines)+1) // by 1-based line
	for _, w := range want {
		end := w.line + w.breaks
		for l := w.line; l <= end && l <= int64(len(lines)); l++ {
			covered[l] = true
		}
	}
	for l := 1; l <= len(lines); l++ {
		if !covered[l] && strings.Trim(lines[l-1], "\r") == "" && (stop == 0 || int64(l) < stop) {
			want = append(want, record{line: int64(l), bad: "one empty field"})
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].line < want[j].line })
	for i := range got {
		for j, f := range got[i].fields {
			got[i].fields[j] = strings.ReplaceAll(f, "\r\n", "\n")
		}
	}
	if stop > 0 {
		var kept []record
		for _, g := range got {
			if g.line < stop {
				kept = append(kept, g)
			}
		}
		got = kept
	}
	if len(got) != len(want) {
		t.Fatalf("%q:\nsource read %d records %v\nencoding/csv %d %v (stopped at line %d)", text, len(got), got, len(want), want, stop)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.line != w.line || (g.bad != "") != (w.bad != "") || strings.Join(g.fields, "\x00") != strings.Join(w.fields, "\x00") {
			t.Fatalf("%q: record %d:\nsource       %v\nencoding/csv %v", text, i, g, w)
		}
	}
}

// TestReadCSVMultiline: a quoted field spans lines; the record is named
// by its first line (its 'line' column, and the Where of a bad row); a
// file that ends inside a quoted field is a bad row at the line the
// record starts on.
func TestReadCSVMultiline(t *testing.T) {
	dir := t.TempDir()
	text := "x,\"two\nlines\",y\r\n" + // 1-2; CRLF outside the field
		"\"a\r\nb\",\"\",\"c\"\"\nd\"\n" + // 3-5; a line break inside a field is kept as it is
		"\n" + // 6: an empty line is a record of one empty field (as Jackson reads it)
		"p,\"q\n\n\nr\",s\n" + // 7-10: blank lines inside a field are part of it
		"1,2\n" + // 11: two fields
		"e,f,\"open\nstill open\n" // 12-13: the file ends inside the field
	path := write(t, dir, "t.csv", text)
	got := sourceRecords(t, conntest.SourceSpec(t, csv3DDL, dir), path)
	want := []record{
		{line: 1, fields: []string{"x", "two\nlines", "y"}},
		{line: 3, fields: []string{"a\r\nb", "", "c\"\nd"}},
		{line: 6, bad: `the record has 1 fields, the table 3 columns (a, b, c) (delimiter ','): "" (an empty line is a record of one empty field, as in Flink: delete it, or set 'csv.ignore-parse-errors' = 'true')`},
		{line: 7, fields: []string{"p", "q\n\n\nr", "s"}},
		{line: 11, bad: `the record has 2 fields, the table 3 columns (a, b, c) (delimiter ','): "1,2"`},
		{line: 12, bad: `field 3 (column c): unterminated quoted field at byte 4: "\"open\nstill open"`},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
	// encoding/csv agrees up to the unterminated field, which it refuses
	// too, naming the same line.
	compareWithReference(t, text, got)
	if _, stop := referenceRecords(text); stop != 12 {
		t.Errorf("encoding/csv stopped at line %d, want 12", stop)
	}
}

// TestReadCSVOneColumn: with one column every line is a row, an empty one
// the empty string (Flink reads an empty line as a record of one empty
// field, and an empty STRING field as the empty string), a blank one its blanks.
func TestReadCSVOneColumn(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "o.csv", "a\n\n  \n\"\"\n")
	src := openSource(t, conntest.SourceSpec(t, `CREATE TABLE o (s STRING) WITH ('connector'='filesystem','path'='o.csv','format'='csv')`, dir))
	rows, bad := readAll(t, src)
	if len(bad) != 0 {
		t.Fatalf("bad rows in %s: %v", path, bad)
	}
	want := []row.Value{row.StrValue("a"), row.StrValue(""), row.StrValue("  "), row.StrValue("")}
	if len(rows) != len(want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	for i, w := range want {
		if !rows[i].Vals[0].Equal(w) {
			t.Errorf("row %d: %v, want %v", i, rows[i].Vals[0], w)
		}
	}
}

// FuzzCSVFile: the filesystem source frames and splits csv records as
// encoding/csv does (on text of letters, commas, quotes and line breaks),
// and names each record, good or bad, by the line it starts on.
func FuzzCSVFile(f *testing.F) {
	dir := f.TempDir()
	spec := conntest.SourceSpec(f, csv3DDL, dir)
	path := filepath.Join(dir, "t.csv")
	for _, s := range []string{
		"a,b,c\n", "a,\"b\nc\",d\n", "\"a\r\nb\",,\n", "a,b\n\"c\n", "\"\"\"\",\"\n\n\",x", "a,\"b\"c,d\n", "a,b\"c,d\n",
		"\n\n\"\n\",\n,\n", "\r\n\"a\r\r\n\",b,c\r", "a,b,c,d\n\"\"\n,,\n",
	} {
		f.Add([]byte(s))
	}
	const alphabet = "ab,\"\n\r"
	f.Fuzz(func(t *testing.T, data []byte) {
		b := make([]byte, len(data))
		for i, c := range data {
			b[i] = alphabet[int(c)%len(alphabet)]
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		compareWithReference(t, string(b), sourceRecords(t, spec, path))
	})
}

// FuzzFileRoundTrip: rows written by the filesystem sink read back the
// same through the filesystem source, in every format, for the table of
// every column type, for one-column tables of each type (where a NULL or a
// blank string is a whole line) and for two-column ones (two NULLs with a
// tab between them are a line of blanks). csv reads back what Flink would
// (formattest.CSVReadBack): a value written as the null literal is NULL.
func FuzzFileRoundTrip(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x05\x00\x00", "\x02\x1e\x01", "\x10\x03\x0d\x07", "\x11\x41\x00", "\xff\xff\xff",
		"\x5e\x02\x01\x00\x00\x00", "\x5e\x02\x01\x06\x06\x00"} {
		f.Add([]byte(s + strings.Repeat("\x03\x00\x41\x80", 40)))
	}
	dir := f.TempDir()
	all := formattest.Schema()
	all = all[:len(all)-1] // no metadata column: 'offset' is Kafka's
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &formattest.Gen{Data: data}
		sel := g.Byte()
		name := []string{format.JSON, format.CSV, format.DebeziumJSON}[sel%3]
		schema := all
		switch k := int(sel/3) % (2 * len(all)); {
		case k < len(all):
			schema = all[k : k+1]
		case k < 2*len(all)-1:
			schema = all[k-len(all) : k-len(all)+2]
		}
		ob := g.Byte()
		opts := fileOptions(name, ob)
		// The options come through the real parser and catalog; the
		// columns are set directly (a DDL cannot declare INTERVAL columns
		// yet, which the formats read).
		ddl := fmt.Sprintf("CREATE TABLE t (x INT) WITH ('connector' = 'filesystem', 'path' = 'rt.txt', 'format' = '%s'%s)", name, opts)
		sinkSpec := conntest.SinkSpec(t, ddl, dir)
		sinkSpec.Schema = schema
		srcSpec := conntest.SourceSpec(t, ddl, dir)
		srcSpec.Schema = schema
		sink, err := NewSink(sinkSpec)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := sink.Open(ctx); err != nil {
			t.Fatal(err)
		}
		n := int(g.Byte()%4) + 1
		var in row.Batch
		for range n {
			in = append(in, g.Row(schema, name == format.DebeziumJSON))
		}
		if err := sink.Write(ctx, in); err != nil {
			_ = sink.Close()
			if strings.Contains(err.Error(), "needs quoting") {
				return // 'csv.disable-quote-character' and a value that needs quotes
			}
			t.Fatal(err)
		}
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(sink.Path())
		got, bad := readAll(t, openSource(t, srcSpec))
		want := in
		if name == format.CSV {
			// What Flink reads back: a value written as the null literal
			// is NULL (formattest.CSVReadBack).
			want = make(row.Batch, len(in))
			for i := range in {
				var ok bool
				if want[i], ok = formattest.CSVReadBack(schema, csvNullLiteral(ob), true, format.AppendText, in[i]); !ok {
					if len(bad) == 0 {
						t.Fatalf("%s %s: row %v cannot be read back (as in Flink), but it was\nfile: %q", name, opts, in[i], raw)
					}
					return
				}
			}
		}
		if len(bad) != 0 {
			t.Fatalf("%s %s: a written row does not read back: %v\nfile: %q", name, opts, bad[0], raw)
		}
		if len(got) != len(in) {
			t.Fatalf("%s %s: wrote %d rows, read %d back\nfile: %q\nrows: %v", name, opts, len(in), len(got), raw, in)
		}
		for i := range in {
			kind := in[i].Kind
			if name == format.DebeziumJSON {
				switch kind {
				case changelogmode.UpdateAfter:
					kind = changelogmode.Insert
				case changelogmode.UpdateBefore:
					kind = changelogmode.Delete
				case changelogmode.Insert, changelogmode.Delete:
				}
			}
			if got[i].Kind != kind {
				t.Fatalf("%s %s: row %d: %s read back as %s\nfile: %q", name, opts, i, in[i].Kind, got[i].Kind, raw)
			}
			for j := range schema {
				if !formattest.SameValue(got[i].Vals[j], want[i].Vals[j]) {
					t.Fatalf("%s %s: row %d column %s %s: %v read back as %v, want %v\nfile: %q", name, opts, i, schema[j].Name, schema[j].Type,
						in[i].Vals[j], got[i].Vals[j], want[i].Vals[j], raw)
				}
			}
		}
	})
}

// csvNullLiteral is the 'csv.null-literal' of fileOptions(format.CSV, b).
func csvNullLiteral(b byte) string { return []string{"", "", "NULL", `\N`}[b>>4&3] }

// fileOptions are format options for a table's WITH clause, picked by b.
func fileOptions(name string, b byte) string {
	var o []string
	switch name {
	case format.CSV:
		o = append(o, "'csv.field-delimiter' = '"+[]string{",", "|", `\t`, ";"}[b&3]+"'")
		switch b >> 2 & 3 {
		case 1:
			o = append(o, "'csv.quote-character' = ''''")
		case 2:
			o = append(o, `'csv.escape-character' = '\'`)
		case 3:
			o = append(o, "'csv.disable-quote-character' = 'true'")
		}
		// Always a null literal: NULL is written as it (by default empty),
		// and an empty field of a number reads back as NULL only with one.
		o = append(o, "'csv.null-literal' = '"+csvNullLiteral(b)+"'")
		if b&64 != 0 {
			o = append(o, "'csv.allow-comments' = 'true'")
		}
	default:
		if b&1 != 0 {
			o = append(o, "'"+name+".timestamp-format.standard' = 'ISO-8601'")
		}
		if b&2 != 0 {
			o = append(o, "'"+name+".encode.ignore-null-fields' = 'true'")
		}
	}
	if len(o) == 0 {
		return ""
	}
	return ", " + strings.Join(o, ", ")
}
