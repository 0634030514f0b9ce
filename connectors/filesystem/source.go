package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/streamsql/streamsql/civil"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// BatchLines is the most lines one Read decodes.
const BatchLines = 1024

// Source reads a file. See the package comment.
type Source struct {
	set    settings
	schema []connector.Column
	dec    format.Decoder
	meta   []metaCol

	lines format.Lines // the format's framing; nil: a record is a line

	f    *os.File
	r    *bufio.Reader
	long []byte // a line longer than the reader's buffer
	rec  []byte // a record of several lines
	cr   bool   // the last line read ended "\r\n"
	line int64  // lines read so far
	off  int64  // bytes read so far: the offset of the next line
	eof  bool
	// base is the offset this run started reading at (Seek's); read is
	// done + off - base after each Read, for metrics (SplitBytes).
	base int64
	read atomic.Int64

	// files are the files read, in order: the path, or the files under a
	// directory path; fileIdx and cur the one being read; done the bytes
	// read of the ones before it.
	files   []string
	fileIdx int
	cur     string
	done    int64
}

// metaCol is a metadata column to fill: the same value for every row of
// the file, or the line number.
type metaCol struct {
	idx    int
	isLine bool
	t      types.T
	v      row.Value
}

// NewSource returns the source of the table spec describes. It checks the options and
// the format, but does not touch the file: Open does.
func NewSource(spec connector.Spec) (*Source, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	if spec.Options.Has("source.monitor-interval") {
		return nil, fmt.Errorf("filesystem: table %s: 'source.monitor-interval' (watching a file for new data) is not supported yet", spec.Table)
	}
	schema := spec.Schema
	if len(spec.PartitionKeys) > 0 {
		if schema, _, err = partitionSchema(schema, spec.PartitionKeys); err != nil {
			return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
		}
	}
	dec, err := format.NewDecoder(set.format, schema, set.opts)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
	}
	s := &Source{set: set, schema: schema, dec: dec}
	s.lines, _ = dec.(format.Lines)
	for i, c := range schema {
		switch c.MetadataKey {
		case "":
		case "file.path", "file.name", "file.size", "file.modification-time", "line", "partition":
			s.meta = append(s.meta, metaCol{idx: i, isLine: c.MetadataKey == "line", t: c.Type})
		default:
			return nil, fmt.Errorf("filesystem: table %s: unknown metadata '%s' of column %s", spec.Table, c.MetadataKey, c.Name)
		}
	}
	return s, nil
}

// Path is the file the source reads, as resolved.
func (s *Source) Path() string { return s.set.path }

// Open opens the file, or the first file under a directory path.
func (s *Source) Open(context.Context) error {
	info, err := os.Stat(s.set.path)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	s.files = []string{s.set.path}
	if info.IsDir() {
		if s.files, err = dataFiles(s.set.path); err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
		if len(s.files) == 0 {
			s.eof, s.r = true, bufio.NewReader(strings.NewReader(""))
			return nil
		}
	}
	return s.openFile(0)
}

// dataFiles lists the files under dir, recursively, in name order,
// leaving out those whose name (or a directory's) starts with '.' or '_'
// (hidden and in-progress files, as Flink's reader does).
func dataFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// partitionValues reads the key=value directories between the table's
// path and file.
func (s *Source) partitionValues(file string) map[string]string {
	out := map[string]string{}
	rel, err := filepath.Rel(s.set.path, filepath.Dir(file))
	if err != nil {
		return out
	}
	for _, d := range strings.Split(rel, string(filepath.Separator)) {
		if k, v, ok := strings.Cut(d, "="); ok {
			out[k] = unescapePartition(v)
		}
	}
	return out
}

// openFile opens file i of s.files and sets its metadata and partition
// values.
func (s *Source) openFile(i int) error {
	if s.f != nil {
		s.done += s.off - s.base
		_ = s.f.Close()
		s.f = nil
	}
	name := s.files[i]
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("filesystem: %w", err)
	}
	s.fileIdx, s.cur = i, name
	s.f, s.r = f, bufio.NewReaderSize(f, 64<<10)
	s.off, s.line, s.base, s.eof, s.cr = 0, 0, 0, false, false
	parts := s.partitionValues(name)
	for k := range s.meta {
		m := &s.meta[k]
		switch s.schema[m.idx].MetadataKey {
		case "partition":
			text, ok := parts[s.schema[m.idx].Name]
			if !ok || text == DefaultPartition {
				m.v = row.NullValue
				break
			}
			if m.v, err = eval.ParseValue(text, m.t); err != nil {
				return fmt.Errorf("filesystem: %s: the partition value %s=%s is not a %s: %w", name, s.schema[m.idx].Name, text, m.t, err)
			}
		case "file.path":
			m.v = textOrInt(m.t, name, 0)
		case "file.name":
			m.v = textOrInt(m.t, filepath.Base(name), 0)
		case "file.size":
			m.v = textOrInt(m.t, strconv.FormatInt(info.Size(), 10), info.Size())
		case "file.modification-time":
			ms := info.ModTime().UnixMilli()
			m.v = textOrInt(m.t, string(civil.AppendTimestamp(nil, ms, 3, ' ')), ms)
		}
	}
	return nil
}

// textOrInt is a metadata value in the column's declared type: its text
// for a string column, else the integer.
func textOrInt(t types.T, text string, n int64) row.Value {
	if t.IsString() {
		return row.StrValue(text)
	}
	return row.IntValue(n)
}

// Splits is 1: a file is one split.
func (s *Source) Splits() int { return 1 }

// Read returns the rows of up to BatchLines lines, all from split 0. See
// the package comment for bad lines and the end of the file.
func (s *Source) Read(ctx context.Context) (int, row.Batch, error) {
	for {
		split, batch, err := s.readBatch(ctx)
		if errors.Is(err, io.EOF) && s.fileIdx+1 < len(s.files) {
			if err := s.openFile(s.fileIdx + 1); err != nil {
				return 0, nil, err
			}
			continue
		}
		s.read.Store(s.done + s.off - s.base)
		return split, batch, err
	}
}

// SplitBytes is the bytes of the file read so far by this run (SplitMeter).
func (s *Source) SplitBytes(int) int64 { return s.read.Load() }

// SplitLag is not known for a file (SplitMeter).
func (s *Source) SplitLag(int) (int64, bool) { return 0, false }

func (s *Source) readBatch(ctx context.Context) (int, row.Batch, error) {
	if s.r == nil {
		return 0, nil, errors.New("filesystem: Read before Open")
	}
	if s.eof {
		return 0, nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	var batch row.Batch
	for range BatchLines {
		line, err := s.readLine()
		if errors.Is(err, io.EOF) {
			s.eof = true
			if len(batch) == 0 {
				return 0, nil, io.EOF
			}
			return 0, batch, nil
		}
		if err != nil {
			return 0, batch, fmt.Errorf("filesystem: reading %s: %w", s.cur, err)
		}
		s.line++
		if s.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		first := s.line // the record's first line names it
		if s.lines == nil {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
		} else {
			if s.lines.Blank(line) {
				continue
			}
			if line, err = s.record(line); err != nil {
				return 0, batch, err
			}
		}
		n := len(batch)
		if batch == nil {
			batch = make(row.Batch, 0, 64)
		}
		batch, err = s.dec.Decode(batch, line)
		if err != nil {
			return 0, batch, &connector.BadRowError{
				Where: s.cur + ":" + strconv.FormatInt(first, 10),
				Err:   err,
				Raw:   bytes.Clone(line),
			}
		}
		for _, r := range batch[n:] {
			for k := range s.meta {
				m := &s.meta[k]
				if m.isLine {
					r.Vals[m.idx] = textOrInt(m.t, strconv.FormatInt(first, 10), first)
				} else {
					r.Vals[m.idx] = m.v
				}
			}
		}
	}
	return 0, batch, nil
}

// record returns the whole record that starts with line: while the format
// says the record goes on (a csv quoted field holding a line break), the
// next lines, each after the line break that ended the one before, as it
// was ("\r\n" or "\n": a line break inside a field is data, and the
// sink writes a value's "\r\n" as it is). A file that ends inside the
// record gives what was read: the decoder reports it unterminated, on the
// record's first line. The slice is valid until the next call.
func (s *Source) record(line []byte) ([]byte, error) {
	if !s.lines.Continues(line, false) {
		return line, nil
	}
	s.rec = append(s.rec[:0], line...)
	for open := true; open; {
		cr := s.cr
		next, err := s.readLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("filesystem: reading %s: %w", s.set.path, err)
		}
		s.line++
		if cr {
			s.rec = append(s.rec, '\r')
		}
		s.rec = append(s.rec, '\n')
		s.rec = append(s.rec, next...)
		open = s.lines.Continues(next, true)
	}
	return s.rec, nil
}

// readLine returns the next line without its terminator; the slice is
// valid until the next call. It returns io.EOF after the last line (a last
// line without '\n' is still a line).
func (s *Source) readLine() ([]byte, error) {
	b, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = s.r.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if errors.Is(err, io.EOF) && len(b) == 0 {
		return nil, io.EOF
	}
	s.off += int64(len(b))
	var nl bool
	b, nl = bytes.CutSuffix(b, []byte("\n"))
	b, s.cr = bytes.CutSuffix(b, []byte("\r"))
	s.cr = s.cr && nl
	return b, nil
}

// Close closes the file.
func (s *Source) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
