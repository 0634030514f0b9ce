package filesystem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// Partitioned tables (PARTITIONED BY): 'path' is a directory; the sink
// writes each row into the part file of its partition,
// path/k1=v1/k2=v2/part-0, as Flink's filesystem sink lays them out,
// without the partition columns (the directory names hold them); the
// source reads every file under a directory path, filling the partition
// columns from the directory names.

// partFile is the name of the part file the sink writes in each partition
// directory.
const partFile = "part-0"

// DefaultPartition is the directory value of a NULL partition column,
// Flink's 'partition.default-name'.
const DefaultPartition = "__DEFAULT_PARTITION__"

// escapePartition escapes a partition value as Flink's
// PartitionPathUtils.escapePathName does: control characters and
// "\"#%'*/:=?\\\x7F{[]^ as %XX.
func escapePartition(v string) string {
	if v == "" {
		return DefaultPartition
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapePartition undoes escapePartition.
func unescapePartition(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '%' && i+2 < len(v) {
			var c byte
			if _, err := fmt.Sscanf(v[i+1:i+3], "%02X", &c); err == nil {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// partitionSchema marks the partition columns of schema as metadata, so
// that the format neither writes nor reads them, and returns their
// indexes.
func partitionSchema(schema []connector.Column, keys []string) ([]connector.Column, []int, error) {
	out := append([]connector.Column(nil), schema...)
	idx := make([]int, len(keys))
	for k, key := range keys {
		idx[k] = -1
		for i := range out {
			if out[i].Name == key && out[i].MetadataKey == "" {
				out[i].MetadataKey = "partition"
				idx[k] = i
			}
		}
		if idx[k] < 0 {
			return nil, nil, fmt.Errorf("the partition column %s is not a physical column of the table", key)
		}
	}
	return out, idx, nil
}

// PartSink writes a partitioned table. See the comment at the top.
type PartSink struct {
	set   settings
	table string
	keys  []string
	idx   []int // the partition columns in the row
	types []connector.Column
	enc   format.Encoder
	files map[string]*part // by directory, relative to the path
	last  time.Time
	rows  int64
	open  bool
}

type part struct {
	f    *os.File
	buf  []byte
	size int64
}

// NewPartSink returns the sink of a partitioned table.
func NewPartSink(spec connector.Spec) (*PartSink, error) {
	set, err := readSettings(spec)
	if err != nil {
		return nil, err
	}
	schema, idx, err := partitionSchema(spec.Schema, spec.PartitionKeys)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
	}
	enc, err := format.NewEncoder(set.format, schema, set.opts)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
	}
	return &PartSink{set: set, table: spec.Table, keys: spec.PartitionKeys, idx: idx, types: spec.Schema, enc: enc, files: map[string]*part{}}, nil
}

// Path is the directory the sink writes, as resolved.
func (s *PartSink) Path() string { return s.set.path }

// partFiles lists the part files the sink wrote under dir (relative
// directories).
func partFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && d.Name() == partFile {
			rel, err := filepath.Rel(dir, filepath.Dir(p))
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Open creates the directory and removes the part files a previous run
// left in it (the single-file sink truncates its file the same way).
func (s *PartSink) Open(context.Context) error {
	if err := os.MkdirAll(s.set.path, 0o755); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	old, err := partFiles(s.set.path)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	for _, d := range old {
		if err := os.Remove(filepath.Join(s.set.path, d, partFile)); err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
	}
	s.open, s.last = true, time.Now()
	return nil
}

// dir is the partition directory of a row: k1=v1/k2=v2, each value as
// CAST to STRING gives it, escaped; NULL is DefaultPartition.
func (s *PartSink) dir(r row.Row) string {
	parts := make([]string, len(s.keys))
	for k, i := range s.idx {
		v := r.Vals[i]
		text := DefaultPartition
		if !v.IsNull() {
			text = escapePartition(eval.FormatValue(v, s.types[i].Type))
		}
		parts[k] = s.keys[k] + "=" + text
	}
	return filepath.Join(parts...)
}

func (s *PartSink) file(dir string) (*part, error) {
	if p, ok := s.files[dir]; ok {
		return p, nil
	}
	full := filepath.Join(s.set.path, dir)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return nil, fmt.Errorf("filesystem: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(full, partFile), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("filesystem: %w", err)
	}
	p := &part{f: f}
	s.files[dir] = p
	return p, nil
}

// Write encodes each row into its partition's part file, gathering whole
// lines as the single-file sink does.
func (s *PartSink) Write(_ context.Context, rows row.Batch) error {
	if !s.open {
		return errors.New("filesystem: Write before Open")
	}
	total := 0
	for _, r := range rows {
		p, err := s.file(s.dir(r))
		if err != nil {
			return err
		}
		n := len(p.buf)
		p.buf, err = s.enc.Encode(p.buf, r)
		if err != nil {
			return fmt.Errorf("filesystem: %s: row %d: %w", s.set.path, s.rows+1, err)
		}
		if s.set.format == format.Raw && strings.ContainsAny(string(p.buf[n:]), "\r\n") {
			p.buf = p.buf[:n]
			return fmt.Errorf("filesystem: %s: row %d: the value holds a line break, which a line of the raw format cannot: use json or csv", s.set.path, s.rows+1)
		}
		p.buf = append(p.buf, '\n')
		s.rows++
	}
	for _, p := range s.files {
		total += len(p.buf)
	}
	if total >= writeSize || time.Since(s.last) >= writeAge {
		return s.writeOut()
	}
	return nil
}

func (s *PartSink) writeOut() error {
	s.last = time.Now()
	for dir, p := range s.files {
		if len(p.buf) == 0 {
			continue
		}
		n, err := p.f.Write(p.buf)
		if err != nil {
			if n > 0 {
				_ = p.f.Truncate(p.size)
				_, _ = p.f.Seek(p.size, io.SeekStart)
			}
			return fmt.Errorf("filesystem: writing %s: %w", filepath.Join(s.set.path, dir, partFile), err)
		}
		p.size += int64(n)
		p.buf = p.buf[:0]
	}
	return nil
}

// Flush writes the gathered rows and fsyncs every part file.
func (s *PartSink) Flush(context.Context) error {
	if !s.open {
		return nil
	}
	if err := s.writeOut(); err != nil {
		return err
	}
	for dir, p := range s.files {
		if err := p.f.Sync(); err != nil {
			return fmt.Errorf("filesystem: syncing %s: %w", filepath.Join(s.set.path, dir, partFile), err)
		}
	}
	return nil
}

// Close flushes and closes the part files.
func (s *PartSink) Close() error {
	if !s.open {
		return nil
	}
	err := s.Flush(context.Background())
	for _, p := range s.files {
		if cerr := p.f.Close(); err == nil {
			err = cerr
		}
	}
	s.files, s.open = map[string]*part{}, false
	return err
}

type partState struct {
	V     int              `json:"v"`
	Parts map[string]int64 `json:"parts"`
}

// Checkpoint writes the gathered rows, fsyncs every part file and returns
// their lengths, by partition directory.
func (s *PartSink) Checkpoint(ctx context.Context) ([]byte, error) {
	if !s.open {
		return nil, fmt.Errorf("filesystem: Checkpoint before Open")
	}
	if err := s.Flush(ctx); err != nil {
		return nil, err
	}
	st := partState{V: positionVersion, Parts: map[string]int64{}}
	for dir, p := range s.files {
		st.Parts[dir] = p.size
	}
	return json.Marshal(st)
}

// Resume cuts every part file back to its length at the checkpoint and
// removes the part files of partitions first written after it: the
// resumed job writes those rows again, so each appears once.
func (s *PartSink) Resume(_ context.Context, state []byte) error {
	var st partState
	if err := json.Unmarshal(state, &st); err != nil || st.V != positionVersion || st.Parts == nil {
		return fmt.Errorf("filesystem: %s: the checkpoint's sink state %q is not one this streamsql writes", s.set.path, state)
	}
	if err := os.MkdirAll(s.set.path, 0o755); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	found, err := partFiles(s.set.path)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	for _, dir := range found {
		if _, ok := st.Parts[dir]; !ok {
			if err := os.Remove(filepath.Join(s.set.path, dir, partFile)); err != nil {
				return fmt.Errorf("filesystem: %w", err)
			}
		}
	}
	s.files = map[string]*part{}
	for dir, size := range st.Parts {
		name := filepath.Join(s.set.path, dir, partFile)
		f, err := os.OpenFile(name, os.O_RDWR, 0o644)
		if err != nil {
			return fmt.Errorf("filesystem: %s, written before the checkpoint, cannot be opened: %w", name, err)
		}
		info, err := f.Stat()
		if err == nil && info.Size() < size {
			err = fmt.Errorf("%s holds %d bytes, fewer than the %d it had at the checkpoint: it was changed outside the job, and the job cannot resume writing it", name, info.Size(), size)
		}
		if err == nil {
			err = f.Truncate(size)
		}
		if err == nil {
			_, err = f.Seek(size, io.SeekStart)
		}
		if err == nil {
			err = f.Sync()
		}
		if err != nil {
			_ = f.Close()
			return fmt.Errorf("filesystem: %w", err)
		}
		s.files[dir] = &part{f: f, size: size}
	}
	s.open, s.last = true, time.Now()
	return nil
}
