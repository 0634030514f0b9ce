package filesystem

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// Sink writes a file. See the package comment.
type Sink struct {
	set  settings
	enc  format.Encoder
	f    *os.File
	w    *bufio.Writer
	buf  []byte
	rows int64
}

// NewSink returns the sink of spec.Table. It checks the options and the
// format, but does not touch the file: Open does.
func NewSink(spec exec.Spec) (*Sink, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	enc, err := format.NewEncoder(set.format, spec.Schema, set.opts)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table.Name, err)
	}
	return &Sink{set: set, enc: enc}, nil
}

// Path is the file the sink writes, as resolved.
func (s *Sink) Path() string { return s.set.path }

// Open creates (or truncates) the file.
func (s *Sink) Open(context.Context) error {
	if dir := filepath.Dir(s.set.path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
	}
	f, err := os.Create(s.set.path)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
	return nil
}

// Write encodes each row as a line.
func (s *Sink) Write(_ context.Context, rows row.Batch) error {
	if s.w == nil {
		return errors.New("filesystem: Write before Open")
	}
	for _, r := range rows {
		var err error
		s.buf, err = s.enc.Encode(s.buf[:0], r)
		if err != nil {
			return fmt.Errorf("filesystem: %s: row %d: %w", s.set.path, s.rows+1, err)
		}
		s.buf = append(s.buf, '\n')
		if _, err := s.w.Write(s.buf); err != nil {
			return fmt.Errorf("filesystem: writing %s: %w", s.set.path, err)
		}
		s.rows++
	}
	return nil
}

// Flush writes buffered lines and fsyncs the file.
func (s *Sink) Flush(context.Context) error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("filesystem: writing %s: %w", s.set.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("filesystem: syncing %s: %w", s.set.path, err)
	}
	return nil
}

// Close flushes and closes the file.
func (s *Sink) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.Flush(context.Background())
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f, s.w = nil, nil
	return err
}
