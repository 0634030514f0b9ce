package filesystem

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Positions and sink states in checkpoints (connector.Positioner,
// connector.SinkCheckpointer). The source's position is the byte offset
// and the line number after the last record Read returned; the sink's
// state is the file's length at the checkpoint, every byte of it synced.

// positionVersion versions the encoding of a Position and a sink state.
const positionVersion = 1

type position struct {
	V      int   `json:"v"`
	Offset int64 `json:"offset"`
	Line   int64 `json:"line"`
	// File is the file being read, relative to a directory path ("" when
	// the path is a file).
	File string `json:"file,omitempty"`
}

// Position is the byte offset and line number after the last record Read
// returned, and for a directory path the file they are in.
func (s *Source) Position() ([]byte, error) {
	p := position{V: positionVersion, Offset: s.off, Line: s.line}
	if s.cur != s.set.path && s.cur != "" {
		rel, err := filepath.Rel(s.set.path, s.cur)
		if err != nil {
			return nil, fmt.Errorf("filesystem: %w", err)
		}
		p.File = rel
	}
	return json.Marshal(p)
}

// Seek continues reading at pos. The file must still hold the bytes up to
// pos, ending a line there (or ending there): a file that was shortened or
// rewritten since the checkpoint is refused.
func (s *Source) Seek(pos []byte) error {
	var p position
	if err := json.Unmarshal(pos, &p); err != nil || p.V != positionVersion || p.Offset < 0 || p.Line < 0 {
		return fmt.Errorf("filesystem: %s: the checkpoint's position %q is not one this streamsql writes", s.set.path, pos)
	}
	if s.files == nil {
		return fmt.Errorf("filesystem: Seek before Open")
	}
	if p.File != "" {
		i := slices.Index(s.files, filepath.Join(s.set.path, p.File))
		if i < 0 {
			return fmt.Errorf("filesystem: %s, which the checkpoint was reading, is gone from %s: the job cannot resume from it", p.File, s.set.path)
		}
		if err := s.openFile(i); err != nil {
			return err
		}
	}
	if s.f == nil {
		return fmt.Errorf("filesystem: Seek before Open")
	}
	if p.Offset > 0 {
		var b [1]byte
		if _, err := s.f.ReadAt(b[:], p.Offset-1); err != nil {
			return fmt.Errorf("filesystem: %s is shorter than when the checkpoint was taken (it had read %d bytes): the file changed, and the job cannot resume from it", s.set.path, p.Offset)
		}
		// A line ends there, or the file does (a last line without '\n').
		info, err := s.f.Stat()
		if b[0] != '\n' && (err != nil || info.Size() != p.Offset) {
			return fmt.Errorf("filesystem: %s does not end a line at byte %d, where the checkpoint stopped reading (line %d): the file changed, and the job cannot resume from it", s.set.path, p.Offset, p.Line)
		}
	}
	if _, err := s.f.Seek(p.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	s.r = bufio.NewReaderSize(s.f, 64<<10)
	s.off, s.line, s.eof, s.cr = p.Offset, p.Line, false, false
	s.base = p.Offset
	return nil
}

type sinkState struct {
	V    int   `json:"v"`
	Size int64 `json:"size"`
}

// Checkpoint writes the gathered rows, fsyncs the file and returns its
// length.
func (s *Sink) Checkpoint(ctx context.Context) ([]byte, error) {
	if s.f == nil {
		return nil, fmt.Errorf("filesystem: Checkpoint before Open")
	}
	if err := s.Flush(ctx); err != nil {
		return nil, err
	}
	return json.Marshal(sinkState{V: positionVersion, Size: s.size})
}

// Resume opens the file without truncating it, cuts it back to its length
// at the checkpoint (what was written after the checkpoint is written
// again by the resumed job) and syncs it.
func (s *Sink) Resume(_ context.Context, state []byte) error {
	var st sinkState
	if err := json.Unmarshal(state, &st); err != nil || st.V != positionVersion || st.Size < 0 {
		return fmt.Errorf("filesystem: %s: the checkpoint's sink state %q is not one this streamsql writes", s.set.path, state)
	}
	if dir := filepath.Dir(s.set.path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
	}
	f, err := os.OpenFile(s.set.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	info, err := f.Stat()
	if err == nil && info.Size() < st.Size {
		err = fmt.Errorf("%s holds %d bytes, fewer than the %d it had at the checkpoint: it was changed outside the job, and the job cannot resume writing it", s.set.path, info.Size(), st.Size)
	}
	if err == nil {
		err = f.Truncate(st.Size)
	}
	if err == nil {
		_, err = f.Seek(st.Size, io.SeekStart)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("filesystem: %w", err)
	}
	s.f, s.size, s.buf, s.last = f, st.Size, s.buf[:0], time.Now()
	return nil
}
