package filesystem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// writeSize is how many bytes of whole rows the sink gathers before it
// writes them; writeAge is how long rows wait at most while more arrive.
const (
	writeSize = 64 << 10
	writeAge  = 200 * time.Millisecond
)

// Sink writes a file. See the package comment.
type Sink struct {
	set  settings
	enc  format.Encoder
	f    *os.File
	buf  []byte // whole encoded rows, each ending in '\n', not yet written
	size int64  // bytes in the file: always a row boundary
	last time.Time
	rows int64
}

// NewSink returns the sink of the table spec describes. It checks the options and the
// format, but does not touch the file: Open does.
func NewSink(spec connector.Spec) (*Sink, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	if err := partitionOnly(spec.Options); err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
	}
	enc, err := format.NewEncoder(set.format, spec.Schema, set.opts)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
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
	s.f, s.size, s.last = f, 0, time.Now()
	return nil
}

// Write encodes each row as a line. Lines go to the file whole: gathered
// until there are writeSize bytes of them or the oldest has waited
// writeAge, then written with one call.
func (s *Sink) Write(_ context.Context, rows row.Batch) error {
	if s.f == nil {
		return errors.New("filesystem: Write before Open")
	}
	for _, r := range rows {
		var err error
		n := len(s.buf)
		s.buf, err = s.enc.Encode(s.buf, r) // on error, s.buf is unchanged
		if err != nil {
			return fmt.Errorf("filesystem: %s: row %d: %w", s.set.path, s.rows+1, err)
		}
		if s.set.format == format.Raw && bytes.ContainsAny(s.buf[n:], "\r\n") {
			// A line break in a raw value would read back as two rows (and
			// a '\r' before the end of the line is dropped when read).
			s.buf = s.buf[:n]
			return fmt.Errorf("filesystem: %s: row %d: the value holds a line break, which a line of the raw format cannot: use json or csv", s.set.path, s.rows+1)
		}
		s.buf = append(s.buf, '\n')
		s.rows++
	}
	if len(s.buf) >= writeSize || time.Since(s.last) >= writeAge {
		return s.writeOut()
	}
	return nil
}

// writeOut writes the gathered rows. A write that fails part way (a full
// disk) is cut back to the last whole row, so that the file never ends in
// part of a line.
func (s *Sink) writeOut() error {
	s.last = time.Now()
	if len(s.buf) == 0 {
		return nil
	}
	n, err := s.f.Write(s.buf)
	if err != nil {
		if n > 0 { // best effort: the write error is what counts
			_ = s.f.Truncate(s.size)
			_, _ = s.f.Seek(s.size, io.SeekStart)
		}
		return fmt.Errorf("filesystem: writing %s: %w", s.set.path, err)
	}
	s.size += int64(n)
	s.buf = s.buf[:0]
	return nil
}

// Flush writes the gathered rows and fsyncs the file.
func (s *Sink) Flush(context.Context) error {
	if s.f == nil {
		return nil
	}
	if err := s.writeOut(); err != nil {
		return err
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
	s.f = nil
	return err
}
