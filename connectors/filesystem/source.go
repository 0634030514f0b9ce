package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// BatchLines is the most lines one Read decodes.
const BatchLines = 1024

// Source reads a file. See the package comment.
type Source struct {
	set    settings
	schema []exec.Column
	dec    format.Decoder
	meta   []metaCol

	f    *os.File
	r    *bufio.Reader
	long []byte // a line longer than the reader's buffer
	line int64  // lines read so far
	eof  bool
}

// metaCol is a metadata column to fill: the same value for every row of
// the file, or the line number.
type metaCol struct {
	idx    int
	isLine bool
	t      types.T
	v      row.Value
}

// NewSource returns the source of spec.Table. It checks the options and
// the format, but does not touch the file: Open does.
func NewSource(spec exec.Spec) (*Source, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	if spec.Table.Config.Has("source.monitor-interval") {
		return nil, fmt.Errorf("filesystem: table %s: 'source.monitor-interval' (watching a file for new data) is not supported yet", spec.Table.Name)
	}
	dec, err := format.NewDecoder(set.format, spec.Schema, set.opts)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table.Name, err)
	}
	s := &Source{set: set, schema: spec.Schema, dec: dec}
	for i, c := range spec.Schema {
		switch c.MetadataKey {
		case "":
		case "file.path", "file.name", "file.size", "file.modification-time", "line":
			s.meta = append(s.meta, metaCol{idx: i, isLine: c.MetadataKey == "line", t: c.Type})
		default:
			return nil, fmt.Errorf("filesystem: table %s: unknown metadata '%s' of column %s", spec.Table.Name, c.MetadataKey, c.Name)
		}
	}
	return s, nil
}

// Path is the file the source reads, as resolved.
func (s *Source) Path() string { return s.set.path }

// Open opens the file.
func (s *Source) Open(context.Context) error {
	f, err := os.Open(s.set.path)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("filesystem: %w", err)
	}
	if info.IsDir() {
		_ = f.Close()
		return fmt.Errorf("filesystem: %s is a directory; 'path' must name a file", s.set.path)
	}
	s.f, s.r = f, bufio.NewReaderSize(f, 64<<10)
	for k := range s.meta {
		m := &s.meta[k]
		switch s.schema[m.idx].MetadataKey {
		case "file.path":
			m.v = textOrInt(m.t, s.set.path, 0)
		case "file.name":
			m.v = textOrInt(m.t, filepath.Base(s.set.path), 0)
		case "file.size":
			m.v = textOrInt(m.t, strconv.FormatInt(info.Size(), 10), info.Size())
		case "file.modification-time":
			ms := info.ModTime().UnixMilli()
			m.v = textOrInt(m.t, string(format.AppendTimestamp(nil, ms, 3, ' ')), ms)
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
			return 0, batch, fmt.Errorf("filesystem: reading %s: %w", s.set.path, err)
		}
		s.line++
		if s.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		n := len(batch)
		if batch == nil {
			batch = make(row.Batch, 0, 64)
		}
		batch, err = s.dec.Decode(batch, line)
		if err != nil {
			return 0, batch, &exec.BadRowError{
				Where: s.set.path + ":" + strconv.FormatInt(s.line, 10),
				Err:   err,
				Raw:   bytes.Clone(line),
			}
		}
		for _, r := range batch[n:] {
			for k := range s.meta {
				m := &s.meta[k]
				if m.isLine {
					r.Vals[m.idx] = textOrInt(m.t, strconv.FormatInt(s.line, 10), s.line)
				} else {
					r.Vals[m.idx] = m.v
				}
			}
		}
	}
	return 0, batch, nil
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
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
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
