package checkpoint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// manifestFormat is the version of the manifest's layout: 2 added parts
// kept in the shared directory (PartInfo.File). Format 1 is still read.
const manifestFormat = 2

// Manifest describes a complete checkpoint.
type Manifest struct {
	Format         int        `json:"format"`
	ID             int64      `json:"id"`
	Job            string     `json:"job,omitempty"`
	Started        time.Time  `json:"started"`
	Completed      time.Time  `json:"completed"`
	DurationMS     int64      `json:"duration_ms"`
	Parallelism    int        `json:"parallelism,omitempty"`
	MaxParallelism int        `json:"max_parallelism,omitempty"`
	Operators      []Operator `json:"operators"`
	Parts          []PartInfo `json:"parts"`
}

// PartInfo is one part as the manifest lists it.
type PartInfo struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	CRC32C uint32 `json:"crc32c"`
	// File is where a shared part is, relative to the checkpoints
	// directory ("shared/000042.op3.p0.state"); empty for a part in the
	// checkpoint's own directory. A shared part is written by one
	// checkpoint and listed again, unchanged, by the later ones that
	// refer to it (incremental checkpoints).
	File string `json:"file,omitempty"`
	// Records is how many records the part holds, as its writer counted
	// them (PartWriter.SetRecords; a state snapshot's, see
	// state.Snapshot.Records); nil when it did not. Its writer uses it
	// to weigh a chain of incremental parts against the state they make.
	Records *int64 `json:"records,omitempty"`
}

// Size is the total size of the checkpoint's parts.
func (m *Manifest) Size() int64 {
	var n int64
	for _, p := range m.Parts {
		n += p.Size
	}
	return n
}

// NewSize is the size of the parts the checkpoint wrote itself: its
// parts in its own directory and the shared parts it created, not those
// it refers to from earlier checkpoints.
func (m *Manifest) NewSize() int64 {
	var n int64
	for _, p := range m.Parts {
		if p.File == "" || strings.HasPrefix(p.File, sharedFile(m.ID, "")) {
			n += p.Size
		}
	}
	return n
}

// Part returns the part called name.
func (m *Manifest) Part(name string) (PartInfo, bool) {
	for _, p := range m.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return PartInfo{}, false
}

// The manifest is JSON followed by a last line "crc32c XXXXXXXX" over the
// JSON bytes.
const crcLinePrefix = "crc32c "

func encodeManifest(m *Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	return fmt.Appendf(b, "%s%08x\n", crcLinePrefix, crc32.Checksum(b, castagnoli)), nil
}

func decodeManifest(b []byte) (*Manifest, error) {
	body, last, ok := cutLastLine(b)
	if !ok || !strings.HasPrefix(last, crcLinePrefix) {
		return nil, errors.New("it is truncated (no checksum line at its end)")
	}
	want, err := strconv.ParseUint(strings.TrimPrefix(last, crcLinePrefix), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("its checksum line %q cannot be read", last)
	}
	if got := crc32.Checksum(body, castagnoli); got != uint32(want) {
		return nil, fmt.Errorf("its checksum does not match its content (crc32c %08x, the file says %08x): it is corrupted", got, want)
	}
	var m Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("it cannot be read: %w", err)
	}
	if m.Format != manifestFormat && m.Format != 1 {
		return nil, fmt.Errorf("it is in format %d; this streamsql reads formats 1 and %d", m.Format, manifestFormat)
	}
	for _, p := range m.Parts {
		if p.File != "" && !validSharedFile(p.File) {
			return nil, fmt.Errorf("its part %s names the file %q, which is not in the shared directory: it is corrupted", p.Name, p.File)
		}
	}
	return &m, nil
}

// cutLastLine splits b (ending in '\n') before its last line.
func cutLastLine(b []byte) (body []byte, last string, ok bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return nil, "", false
	}
	i := bytes.LastIndexByte(b[:len(b)-1], '\n')
	if i < 0 {
		return nil, "", false
	}
	return b[:i+1], string(b[i+1 : len(b)-1]), true
}

// Checkpoint is a complete checkpoint on disk.
type Checkpoint struct {
	Dir string
	Manifest
}

// File is the path of the part called name: in the checkpoint's directory,
// or in the shared directory for a shared part.
func (c *Checkpoint) File(name string) string {
	if p, ok := c.Part(name); ok && p.File != "" {
		return filepath.Join(filepath.Dir(c.Dir), filepath.FromSlash(p.File))
	}
	return filepath.Join(c.Dir, name)
}

// HasPart reports whether the checkpoint has a part called name.
func (c *Checkpoint) HasPart(name string) bool {
	_, ok := c.Part(name)
	return ok
}

// Open opens the part called name. The reader fails, naming the file, when
// the part turns out shorter, longer or other than the manifest says; it
// checks the checksum when it reaches the end, so read parts to io.EOF.
func (c *Checkpoint) Open(name string) (io.ReadCloser, error) {
	p, ok := c.Part(name)
	if !ok {
		return nil, fmt.Errorf("checkpoint %d (%s) has no part %s", c.ID, c.Dir, name)
	}
	f, err := os.Open(c.File(name))
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", c.ID, err)
	}
	return &partReader{f: f, r: bufio.NewReaderSize(f, 256<<10), path: c.File(name), want: p, crc: crc32.New(castagnoli)}, nil
}

// ReadPart reads the whole part called name, checked.
func (c *Checkpoint) ReadPart(name string) ([]byte, error) {
	r, err := c.Open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

type partReader struct {
	f    *os.File
	r    *bufio.Reader
	path string
	want PartInfo
	crc  hash.Hash32
	n    int64
	err  error
}

func (p *partReader) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.r.Read(b)
	p.crc.Write(b[:n])
	p.n += int64(n)
	switch {
	case p.n > p.want.Size:
		p.err = sizeError(p.path, p.n, p.want.Size)
		return 0, p.err
	case errors.Is(err, io.EOF):
		if p.n < p.want.Size {
			p.err = sizeError(p.path, p.n, p.want.Size)
		} else if got := p.crc.Sum32(); got != p.want.CRC32C {
			p.err = fmt.Errorf("checkpoint file %s is corrupted: its checksum (crc32c %08x) is not its manifest's (%08x)", p.path, got, p.want.CRC32C)
		} else {
			p.err = io.EOF
		}
		return n, p.err
	case err != nil:
		p.err = fmt.Errorf("checkpoint file %s: %w", p.path, err)
		return n, p.err
	}
	return n, nil
}

// Close closes the file.
func (p *partReader) Close() error { return p.f.Close() }

// sizeError says what is wrong with the part at path when it holds size
// bytes and its manifest says want (nil: nothing).
func sizeError(path string, size, want int64) error {
	switch {
	case size < want:
		return fmt.Errorf("checkpoint file %s is truncated: %d bytes of the %d its manifest says", path, size, want)
	case size > want:
		return fmt.Errorf("checkpoint file %s is longer than the %d bytes its manifest says: it is corrupted", path, want)
	}
	return nil
}

// Verify reads every part and checks its size and checksum.
func (c *Checkpoint) Verify() error {
	for _, p := range c.Parts {
		r, err := c.Open(p.Name)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, r)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// Skipped is a checkpoint directory Latest passed over.
type Skipped struct {
	ID     int64
	Dir    string
	Reason string
}

// Latest returns the newest complete checkpoint, or nil when there is none,
// and the newer incomplete ones it skipped (a crash while writing them). A
// complete checkpoint that cannot be trusted (its manifest corrupted, a
// part missing or of the wrong size) is an error naming the file; see the
// package comment for why that is not a fall back. Latest checks sizes;
// Verify checks the parts' checksums.
func (d *Dir) Latest() (*Checkpoint, []Skipped, error) {
	ids, err := d.ids()
	if err != nil {
		return nil, nil, err
	}
	var skipped []Skipped
	for i := len(ids) - 1; i >= 0; i-- {
		dir := d.Path(ids[i])
		mpath := filepath.Join(dir, ManifestName)
		b, err := os.ReadFile(mpath)
		if errors.Is(err, fs.ErrNotExist) {
			skipped = append(skipped, Skipped{ID: ids[i], Dir: dir, Reason: "incomplete: it has no " + ManifestName})
			continue
		}
		older := d.olderHint(ids[i], ids[:i])
		if err != nil {
			return nil, skipped, fmt.Errorf("checkpoint manifest %s cannot be read: %w; %s", mpath, err, older)
		}
		m, err := decodeManifest(b)
		if err != nil {
			return nil, skipped, fmt.Errorf("checkpoint manifest %s: %w; %s", mpath, err, older)
		}
		if m.ID != ids[i] {
			return nil, skipped, fmt.Errorf("checkpoint manifest %s names checkpoint %d, not %d; %s", mpath, m.ID, ids[i], older)
		}
		c := &Checkpoint{Dir: dir, Manifest: *m}
		for _, p := range m.Parts {
			st, err := os.Stat(c.File(p.Name))
			if err != nil {
				return nil, skipped, fmt.Errorf("checkpoint %d is damaged: %w; %s", m.ID, err, older)
			}
			if err := sizeError(c.File(p.Name), st.Size(), p.Size); err != nil {
				return nil, skipped, fmt.Errorf("%w; %s", err, older)
			}
		}
		return c, skipped, nil
	}
	return nil, skipped, nil
}

// Damaged adds to err, an error of checkpoint c (Verify's: a part whose
// checksum does not match), what the user can do about it: resume from an
// older checkpoint still kept, or start over.
func (d *Dir) Damaged(c *Checkpoint, err error) error {
	ids, _ := d.ids()
	var older []int64
	for _, id := range ids {
		if id < c.ID {
			older = append(older, id)
		}
	}
	return fmt.Errorf("%w; %s", err, d.olderHint(c.ID, older))
}

// olderHint says what the user can do about a damaged checkpoint.
func (d *Dir) olderHint(damaged int64, older []int64) string {
	stateDir := filepath.Dir(d.root)
	for i := len(older) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(d.Path(older[i]), ManifestName)); err == nil {
			return fmt.Sprintf("to resume from the older checkpoint %d instead (output written since it may be repeated), remove %s; to start over, remove %s",
				older[i], d.Path(damaged), stateDir)
		}
	}
	return fmt.Sprintf("no older complete checkpoint is kept; to start over, remove %s (or give another --state-dir)", stateDir)
}
