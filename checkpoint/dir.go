package checkpoint

import (
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Subdir is the directory under --state-dir that holds the checkpoints.
const Subdir = "checkpoints"

// ManifestName is the file whose presence makes a checkpoint complete.
const ManifestName = "MANIFEST"

const dirPrefix = "chk-"

// SharedSubdir is the directory under the checkpoints directory that holds
// the shared parts: written by one checkpoint, referred to by later ones.
const SharedSubdir = "shared"

// sharedFile is the path, relative to the checkpoints directory, of the
// shared part name written by checkpoint id.
func sharedFile(id int64, name string) string {
	return fmt.Sprintf("%s/%06d.%s", SharedSubdir, id, name)
}

// validSharedFile reports whether f can be a PartInfo.File: a part's file
// name directly under the shared directory.
func validSharedFile(f string) bool {
	name, ok := strings.CutPrefix(f, SharedSubdir+"/")
	return ok && validPartName(name)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Options configure a Dir.
type Options struct {
	// Retained is how many complete checkpoints are kept after a commit
	// ('state.checkpoints.num-retained'); 0 means 1.
	Retained int
}

// Dir is the checkpoints directory of one job. Begin, Commit and Abort are
// called by one coordinator goroutine; parts may be written from any.
type Dir struct {
	root     string
	retained int
	next     int64 // id of the next Begin
	active   *Writer
}

// Open opens (creating it) the checkpoints directory under stateDir.
func Open(stateDir string, o Options) (*Dir, error) {
	root := filepath.Join(stateDir, Subdir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	d := &Dir{root: root, retained: max(o.Retained, 1)}
	ids, err := d.ids()
	if err != nil {
		return nil, err
	}
	d.next = 1
	if len(ids) > 0 {
		d.next = ids[len(ids)-1] + 1
	}
	return d, nil
}

// Root is the checkpoints directory.
func (d *Dir) Root() string { return d.root }

// NextID is the id the next Begin will use.
func (d *Dir) NextID() int64 { return d.next }

// ids lists the ids of every chk-N directory, complete or not, ascending.
func (d *Dir) ids() ([]int64, error) {
	entries, err := os.ReadDir(d.root)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var ids []int64
	for _, e := range entries {
		if id, ok := parseDirName(e.Name()); ok && e.IsDir() {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

func dirName(id int64) string { return fmt.Sprintf("%s%06d", dirPrefix, id) }

func parseDirName(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, dirPrefix)
	if !ok || s == "" {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}

// LatestComplete is the id of the newest checkpoint under stateDir whose
// manifest is in place (0: none). It opens and checks nothing, and creates
// nothing: for watching the directory of a job running in another process
// (tests, the bench), not for resuming from it (Dir.Latest).
func LatestComplete(stateDir string) int64 {
	matches, _ := filepath.Glob(filepath.Join(stateDir, Subdir, dirPrefix+"*", ManifestName))
	var best int64
	for _, m := range matches {
		if id, ok := parseDirName(filepath.Base(filepath.Dir(m))); ok && id > best {
			best = id
		}
	}
	return best
}

// Path is the directory of checkpoint id.
func (d *Dir) Path(id int64) string { return filepath.Join(d.root, dirName(id)) }

// Writer is a checkpoint being written.
type Writer struct {
	d       *Dir
	id      int64
	dir     string
	started time.Time

	mu     sync.Mutex
	parts  map[string]*PartInfo // closed parts, and shared parts reused
	open   map[string]bool
	shared []string // the shared files this checkpoint created
	err    error    // first failure of a part; Commit returns it
	done   bool
}

// Begin starts checkpoint NextID in a new directory. One checkpoint is
// written at a time: Begin fails while another has neither committed nor
// aborted.
func (d *Dir) Begin() (*Writer, error) {
	if d.active != nil {
		return nil, fmt.Errorf("checkpoint %d is still being written", d.active.id)
	}
	id := d.next
	dir := d.Path(id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	d.next++
	w := &Writer{d: d, id: id, dir: dir, started: time.Now(), parts: map[string]*PartInfo{}, open: map[string]bool{}}
	d.active = w
	return w, nil
}

// ID is the checkpoint's id.
func (w *Writer) ID() int64 { return w.id }

// Dir is the checkpoint's directory.
func (w *Writer) Dir() string { return w.dir }

// validPartName reports whether name can name a part: a plain file name of
// letters, digits, '.', '-' and '_', not the manifest's.
func validPartName(name string) bool {
	if name == "" || len(name) > 200 || name == ManifestName || name == ManifestName+".tmp" || name[0] == '.' {
		return false
	}
	for _, r := range name {
		ok := r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// Part creates the part called name. It is safe to call from several
// goroutines at once, each writing its own part.
func (w *Writer) Part(name string) (*PartWriter, error) {
	return w.create(name, false)
}

// SharedPart creates the part called name in the shared directory, so
// that later checkpoints can refer to it unchanged (Reuse). It is removed
// once no complete checkpoint kept lists it.
func (w *Writer) SharedPart(name string) (*PartWriter, error) {
	return w.create(name, true)
}

func (w *Writer) create(name string, shared bool) (*PartWriter, error) {
	if !validPartName(name) {
		return nil, fmt.Errorf("checkpoint %d: %q cannot name a part", w.id, name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil, fmt.Errorf("checkpoint %d is already committed or aborted", w.id)
	}
	if w.open[name] || w.parts[name] != nil {
		return nil, fmt.Errorf("checkpoint %d: part %s written twice", w.id, name)
	}
	path, file, flags := filepath.Join(w.dir, name), "", os.O_WRONLY|os.O_CREATE|os.O_EXCL
	if shared {
		// A file of this name can only be left by a crash while this id
		// was being written before (ids are not reused once a checkpoint
		// of the id completed): no complete checkpoint lists it.
		file = sharedFile(w.id, name)
		path = filepath.Join(w.d.root, filepath.FromSlash(file))
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", w.id, err)
		}
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", w.id, err)
	}
	if shared {
		w.shared = append(w.shared, path)
	}
	w.open[name] = true
	return &PartWriter{w: w, name: name, file: file, f: f, out: newPartFile(f), crc: crc32.New(castagnoli)}, nil
}

// Reuse lists in this checkpoint the shared part p of an earlier complete
// checkpoint, unchanged, under its name: an incremental checkpoint refers
// to the state it did not rewrite. The part's file stays as long as a
// complete checkpoint kept lists it.
func (w *Writer) Reuse(p PartInfo) error {
	if p.File == "" || !validSharedFile(p.File) || !validPartName(p.Name) {
		return fmt.Errorf("checkpoint %d: part %s is not a shared part", w.id, p.Name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return fmt.Errorf("checkpoint %d is already committed or aborted", w.id)
	}
	if w.open[p.Name] || w.parts[p.Name] != nil {
		return fmt.Errorf("checkpoint %d: part %s written twice", w.id, p.Name)
	}
	w.parts[p.Name] = &p
	return nil
}

// PartWriter writes one part. Writes are buffered; Close makes the part
// durable. It belongs to one goroutine.
type PartWriter struct {
	w    *Writer
	name string
	file string // PartInfo.File: "" but for a shared part
	f    *os.File
	out  *partFile
	crc  hash.Hash32
	n    int64
	err  error
	recs *int64 // SetRecords
}

// SetRecords records in the manifest how many records the part holds
// (PartInfo.Records). Call it before Close.
func (p *PartWriter) SetRecords(n int64) { p.recs = &n }

// Write appends to the part.
func (p *PartWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.out.Write(b)
	p.crc.Write(b[:n])
	p.n += int64(n)
	if err != nil {
		p.err = fmt.Errorf("checkpoint %d: part %s: %w", p.w.id, p.name, err)
	}
	return n, p.err
}

// Close flushes the part, fsyncs it and records its size and checksum for
// the manifest. A part that failed makes the checkpoint fail at Commit.
func (p *PartWriter) Close() error {
	if p.f == nil {
		return p.err
	}
	if p.err == nil {
		p.err = p.out.Flush()
	}
	if p.err == nil {
		p.err = p.f.Sync()
	}
	if err := p.f.Close(); p.err == nil {
		p.err = err
	}
	p.out.release()
	p.f, p.out = nil, nil
	if p.err != nil && !strings.HasPrefix(p.err.Error(), "checkpoint ") {
		p.err = fmt.Errorf("checkpoint %d: part %s: %w", p.w.id, p.name, p.err)
	}
	w := p.w
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.open, p.name)
	if p.err == nil && w.done {
		p.err = fmt.Errorf("checkpoint %d: part %s: the checkpoint was given up", w.id, p.name)
	}
	if p.err != nil {
		if w.err == nil {
			w.err = p.err
		}
		return p.err
	}
	w.parts[p.name] = &PartInfo{Name: p.name, Size: p.n, CRC32C: p.crc.Sum32(), File: p.file, Records: p.recs}
	return nil
}

// Fail records err as a failure of the checkpoint (a part that could not
// be produced): Commit will return it.
func (w *Writer) Fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && err != nil {
		w.err = err
	}
}

// Meta is what the caller tells Commit about the checkpoint.
type Meta struct {
	Job            string     // the job file, for messages
	Operators      []Operator // the job's stateful operators (see ComparePlan)
	Parallelism    int
	MaxParallelism int
}

// Commit makes the checkpoint complete: it checks that every part was
// closed without error, writes and fsyncs the manifest, renames it into
// place and fsyncs the directory; then it removes complete checkpoints
// beyond the retained number and every incomplete one. On error the
// checkpoint is aborted (its directory removed) and the previous complete
// one stays the latest.
func (w *Writer) Commit(meta Meta) (*Checkpoint, error) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return nil, fmt.Errorf("checkpoint %d is already committed or aborted", w.id)
	}
	err := w.err
	if err == nil && len(w.open) > 0 {
		var names []string
		for n := range w.open {
			names = append(names, n)
		}
		sort.Strings(names)
		err = fmt.Errorf("checkpoint %d: parts not closed: %s", w.id, strings.Join(names, ", "))
	}
	parts := make([]PartInfo, 0, len(w.parts))
	for _, p := range w.parts {
		parts = append(parts, *p)
	}
	w.mu.Unlock()
	if err != nil {
		w.Abort()
		return nil, err
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].Name < parts[j].Name })
	for _, p := range parts {
		if p.File == "" {
			continue
		}
		// A shared part reused from an earlier checkpoint must still be
		// there (retention removes only what no kept checkpoint lists).
		path := filepath.Join(w.d.root, filepath.FromSlash(p.File))
		st, err := os.Stat(path)
		if err == nil {
			err = sizeError(path, st.Size(), p.Size)
		}
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("checkpoint %d: part %s: %w", w.id, p.Name, err)
		}
	}
	now := time.Now()
	m := Manifest{
		Format: manifestFormat, ID: w.id, Job: meta.Job,
		Started: w.started.UTC(), Completed: now.UTC(), DurationMS: now.Sub(w.started).Milliseconds(),
		Parallelism: meta.Parallelism, MaxParallelism: meta.MaxParallelism,
		Operators: meta.Operators, Parts: parts,
	}
	if err := writeManifest(w.dir, &m); err != nil {
		w.Abort()
		return nil, fmt.Errorf("checkpoint %d: %w", w.id, err)
	}
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	w.d.active = nil
	c := &Checkpoint{Dir: w.dir, Manifest: m}
	return c, w.d.retain(w.id)
}

// Abort gives the checkpoint up and removes its directory. Parts still
// open fail when they are closed.
func (w *Writer) Abort() {
	w.mu.Lock()
	w.done = true
	shared := w.shared
	w.shared = nil
	w.mu.Unlock()
	if w.d.active == w {
		w.d.active = nil
	}
	_ = os.RemoveAll(w.dir)
	for _, f := range shared {
		_ = os.Remove(f)
	}
}

// writeManifest writes m to dir/MANIFEST durably: a temporary file, fsync,
// rename, fsync of the directory.
func writeManifest(dir string, m *Manifest) error {
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ManifestName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, ManifestName))
	}
	if err == nil {
		err = syncDir(dir)
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// retain removes complete checkpoints older than the newest d.retained
// and every incomplete checkpoint up to latest, the one just committed.
func (d *Dir) retain(latest int64) error {
	ids, err := d.ids()
	if err != nil {
		return err
	}
	kept := 0
	var firstErr error
	for i := len(ids) - 1; i >= 0; i-- {
		id := ids[i]
		if id > latest {
			continue // (none: one checkpoint is written at a time)
		}
		dir := d.Path(id)
		_, err := os.Stat(filepath.Join(dir, ManifestName))
		complete := err == nil
		if complete && kept < d.retained {
			kept++
			continue
		}
		if err := removeCheckpoint(dir, complete); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("checkpoints: removing %s: %w", dir, err)
		}
	}
	if err := d.collectShared(); err != nil && firstErr == nil {
		firstErr = err
	}
	return firstErr
}

// collectShared removes the shared parts that no complete checkpoint
// lists (as Flink's SharedStateRegistry, with the manifests on disk as
// the registry): those of removed checkpoints, of checkpoints a crash
// left incomplete. It runs after a commit, when no checkpoint is being
// written, and removes nothing when a manifest cannot be read: a part it
// cannot tell unused stays.
func (d *Dir) collectShared() error {
	sdir := filepath.Join(d.root, SharedSubdir)
	entries, err := os.ReadDir(sdir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	ids, err := d.ids()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(d.Path(id), ManifestName))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil
		}
		m, err := decodeManifest(b)
		if err != nil {
			return nil
		}
		for _, p := range m.Parts {
			if p.File != "" {
				used[p.File] = true
			}
		}
	}
	var firstErr error
	for _, e := range entries {
		if used[SharedSubdir+"/"+e.Name()] {
			continue
		}
		if err := os.Remove(filepath.Join(sdir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
			firstErr = fmt.Errorf("checkpoints: removing %s: %w", filepath.Join(sdir, e.Name()), err)
		}
	}
	return firstErr
}

// removeCheckpoint removes a checkpoint directory, its manifest first (and
// durably) so that a crash halfway leaves an incomplete checkpoint.
func removeCheckpoint(dir string, complete bool) error {
	if complete {
		if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	return os.RemoveAll(dir)
}
