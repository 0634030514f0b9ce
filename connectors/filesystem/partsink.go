package filesystem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/format"
	"github.com/streamsql/streamsql/row"
)

// The partitioned sink (see "Partitions", "Rolling" and "Partition commit"
// in the package comment).

// finishMarker is the file, in the table's directory, where a sink that
// takes checkpoints records its final state when its input has ended,
// before it commits its last partitions: a run resumed from an earlier
// checkpoint then keeps that output instead of cutting it back (see Resume).
const finishMarker = "_streamsql-finished.json"

// maxWatermark is the watermark at the end of the input (exec.MaxWatermark).
const maxWatermark = math.MaxInt64

// PartSink writes a partitioned table. See the package comment.
type PartSink struct {
	set   settings
	table string
	keys  []string
	idx   []int // the partition columns in the row
	types []connector.Column
	enc   format.Encoder
	roll  rolling
	cmt   commit
	// now is the clock of the rolling policy and of the process-time
	// trigger (tests set it).
	now func() time.Time

	parts     map[string]*partition // by directory, relative to the path
	last      time.Time             // when gathered rows were last written
	check     time.Time             // when the rolling policy was last checked
	procCheck time.Time             // when the process-time trigger was last checked on a Write
	rows      int64
	open      bool
	wm        int64 // the watermark of the rows written so far
	ended     bool  // the input has ended (the watermark is maxWatermark)
	// checkpoints is set when the job takes checkpoints: partitions are
	// then committed when the checkpoint that found them ready completes.
	checkpoints bool
	// discard is set when the job resumed after a run that had reached the
	// end of its input (its finish marker): the output is complete, and
	// the rows written again are dropped.
	discard bool

	// committedMu guards committed, which CheckpointComplete fills from
	// any goroutine: the partitions (directory -> generation) whose
	// success files it wrote, taken in by the Write goroutine.
	committedMu sync.Mutex
	committed   map[string]int
}

// partition is one partition directory being written.
type partition struct {
	dir    string
	values []string // the partition values, unescaped ("" for the default partition)
	files  []fileState
	// cur is the open part file (its name is the last of files), nil when
	// the last was rolled.
	cur       *os.File
	buf       []byte // whole encoded rows not yet written to cur
	opened    time.Time
	lastWrite time.Time
	created   int64 // wall clock (ms) of the partition's first row: the process-time trigger
	// tm is the partition's time for the partition-time trigger (read
	// once: tmRead).
	tm     int64
	tmRead bool
	// gen counts the times the partition was reopened by a row after it
	// became ready to commit (a late row); ready says it is ready at gen;
	// done says it is committed at gen.
	gen         int
	ready, done bool
}

type fileState struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// partVersion versions the partitioned sink's state; version 1
// (positionVersion, one part-0 per partition) is still read.
const partVersion = 2

type partState struct {
	V int `json:"v"`
	// Parts are version 1's part-0 lengths.
	Parts map[string]int64 `json:"parts,omitempty"`
	// Dirs are the partitions, by directory.
	Dirs map[string]*dirState `json:"dirs,omitempty"`
	// Watermark is the sink's watermark at the checkpoint.
	Watermark int64 `json:"watermark"`
	// Ended is set in the state taken at the end of the input.
	Ended bool `json:"ended,omitempty"`
}

type dirState struct {
	Files []fileState `json:"files"`
	// Open says the last file was still being written.
	Open    bool  `json:"open,omitempty"`
	Created int64 `json:"created"`
	Gen     int   `json:"gen,omitempty"`
	// Ready: the partition was ready to commit at the checkpoint (it is
	// committed when the checkpoint completes); Done: committed before.
	Ready bool `json:"ready,omitempty"`
	Done  bool `json:"done,omitempty"`
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
	roll, err := readRolling(spec.Options)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
	}
	cmt, err := readCommit(spec.Options, spec.PartitionKeys)
	if err != nil {
		return nil, fmt.Errorf("filesystem: table %s: %w", spec.Table, err)
	}
	return &PartSink{set: set, table: spec.Table, keys: spec.PartitionKeys, idx: idx, types: spec.Schema, enc: enc,
		roll: roll, cmt: cmt, now: time.Now, parts: map[string]*partition{}, committed: map[string]int{},
		wm: math.MinInt64}, nil
}

// Path is the directory the sink writes, as resolved.
func (s *PartSink) Path() string { return s.set.path }

// Checkpointing is told, before Open or Resume, whether the job takes
// checkpoints (connector.SinkCheckpointing).
func (s *PartSink) Checkpointing(on bool) { s.checkpoints = on }

// Open creates the directory and removes the files a previous run left in
// it: part files, success files, the finish marker (the single-file sink
// truncates its file the same way).
func (s *PartSink) Open(context.Context) error {
	if err := os.MkdirAll(s.set.path, 0o755); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	old, err := sinkFiles(s.set.path, s.cmt.successFile)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	for _, f := range old {
		if err := os.Remove(filepath.Join(s.set.path, f)); err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
	}
	s.open, s.last, s.check = true, s.now(), s.now()
	return nil
}

// values are a row's partition values, as text, unescaped; "" for NULL.
func (s *PartSink) values(r row.Row) []string {
	vals := make([]string, len(s.keys))
	for k, i := range s.idx {
		if v := r.Vals[i]; !v.IsNull() {
			vals[k] = eval.FormatValue(v, s.types[i].Type)
		}
	}
	return vals
}

// dir is the partition directory of partition values: k1=v1/k2=v2, each
// value escaped; "" (NULL, or the empty string) is DefaultPartition.
func (s *PartSink) dir(vals []string) string {
	parts := make([]string, len(s.keys))
	for k, v := range vals {
		parts[k] = s.keys[k] + "=" + escapePartition(v)
	}
	return filepath.Join(parts...)
}

// partition returns the partition of dir, making it (without a file) the
// first time.
func (s *PartSink) partition(dir string, vals []string) *partition {
	p, ok := s.parts[dir]
	if !ok {
		p = &partition{dir: dir, values: vals, created: s.now().UnixMilli()}
		s.parts[dir] = p
	}
	return p
}

// startFile opens the partition's next part file.
func (s *PartSink) startFile(p *partition) error {
	full := filepath.Join(s.set.path, p.dir)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	name := partName(len(p.files))
	f, err := os.OpenFile(filepath.Join(full, name), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	p.files = append(p.files, fileState{Name: name})
	p.cur, p.opened, p.lastWrite = f, s.now(), s.now()
	return nil
}

// rollFile writes what the partition has gathered, syncs and closes its
// open part file: the next row of the partition starts a new one.
func (s *PartSink) rollFile(p *partition) error {
	if p.cur == nil {
		return nil
	}
	if err := s.writePart(p); err != nil {
		return err
	}
	name := s.fileName(p)
	if err := p.cur.Sync(); err != nil {
		return fmt.Errorf("filesystem: syncing %s: %w", name, err)
	}
	err := p.cur.Close()
	p.cur = nil
	if err != nil {
		return fmt.Errorf("filesystem: closing %s: %w", name, err)
	}
	return nil
}

func (s *PartSink) fileName(p *partition) string {
	return filepath.Join(s.set.path, p.dir, p.files[len(p.files)-1].Name)
}

// Write encodes each row into its partition's open part file, gathering
// whole lines as the single-file sink does. A part file larger than
// 'sink.rolling-policy.file-size' is rolled before the next row goes to
// its partition. A row of a partition that is committed, or ready to be,
// (a late row) goes to a new part file, and the partition is committed
// again.
func (s *PartSink) Write(_ context.Context, rows row.Batch) error {
	if !s.open {
		return errors.New("filesystem: Write before Open")
	}
	if s.discard {
		return nil
	}
	s.takeCommitted()
	if err := s.rollByTime(); err != nil {
		return err
	}
	now := s.now()
	for _, r := range rows {
		vals := s.values(r)
		p := s.partition(s.dir(vals), vals)
		if p.ready || p.done {
			// With checkpoints the files a commit covered are closed
			// (markReady rolled them): the late row starts a new one.
			p.gen++
			p.ready, p.done = false, false
		}
		if p.cur != nil && p.files[len(p.files)-1].Size+int64(len(p.buf)) > s.roll.size {
			if err := s.rollFile(p); err != nil {
				return err
			}
		}
		if p.cur == nil {
			if err := s.startFile(p); err != nil {
				return err
			}
		}
		n := len(p.buf)
		var err error
		p.buf, err = s.enc.Encode(p.buf, r)
		if err != nil {
			return fmt.Errorf("filesystem: %s: row %d: %w", s.set.path, s.rows+1, err)
		}
		if s.set.format == format.Raw && strings.ContainsAny(string(p.buf[n:]), "\r\n") {
			p.buf = p.buf[:n]
			return fmt.Errorf("filesystem: %s: row %d: the value holds a line break, which a line of the raw format cannot: use json or csv", s.set.path, s.rows+1)
		}
		p.buf = append(p.buf, '\n')
		p.lastWrite = now
		s.rows++
	}
	total := 0
	for _, p := range s.parts {
		total += len(p.buf)
	}
	if total >= writeSize || s.now().Sub(s.last) >= writeAge {
		if err := s.writeOut(); err != nil {
			return err
		}
	}
	// The partition-time trigger changes with the watermark only; the
	// process-time one with the clock, looked at once a second here.
	proc := s.cmt.trigger == triggerProcessTime && s.now().Sub(s.procCheck) >= time.Second
	if proc {
		s.procCheck = s.now()
	}
	return s.tick(proc)
}

// tick applies the time-based rolling policy, at most every
// 'sink.rolling-policy.check-interval', and, without checkpoints, commits
// the partitions that are ready.
func (s *PartSink) tick(commit bool) error {
	if err := s.rollByTime(); err != nil {
		return err
	}
	if commit && !s.checkpoints && s.cmt.enabled {
		return s.commitReady()
	}
	return nil
}

// rollByTime rolls, at most every 'sink.rolling-policy.check-interval',
// the part files open longer than 'sink.rolling-policy.rollover-interval'
// or idle longer than 'sink.rolling-policy.inactivity-interval'.
func (s *PartSink) rollByTime() error {
	now := s.now()
	if now.Sub(s.check) < s.roll.check {
		return nil
	}
	s.check = now
	for _, p := range s.sorted() {
		if p.cur != nil && (now.Sub(p.opened) >= s.roll.rollover || now.Sub(p.lastWrite) >= s.roll.inactivity) {
			if err := s.rollFile(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// sorted are the partitions in directory order (for deterministic work).
func (s *PartSink) sorted() []*partition {
	out := make([]*partition, 0, len(s.parts))
	for _, p := range s.parts {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

// Watermark takes the watermark of the rows written so far
// (connector.SinkWatermarker): the partition-time trigger's clock.
// maxWatermark ends the input: every partition is then ready.
func (s *PartSink) Watermark(_ context.Context, wm int64) error {
	if !s.open || wm <= s.wm {
		return nil
	}
	s.wm = wm
	if wm == maxWatermark {
		s.ended = true
	}
	if s.discard {
		return nil
	}
	s.takeCommitted()
	return s.tick(true)
}

// isReady reports whether the partition's commit trigger has fired.
func (s *PartSink) isReady(p *partition) (bool, error) {
	if s.ended {
		return true, nil
	}
	switch s.cmt.trigger {
	case triggerPartitionTime:
		if !p.tmRead {
			t, err := s.cmt.partitionTime(s.keys, p.values)
			if err != nil {
				return false, fmt.Errorf("filesystem: %s: %w", filepath.Join(s.set.path, p.dir), err)
			}
			p.tm, p.tmRead = t, true
		}
		return s.wm != math.MinInt64 && s.wm > p.tm+s.cmt.delay.Milliseconds(), nil
	default:
		return s.now().UnixMilli() > p.created+s.cmt.delay.Milliseconds(), nil
	}
}

// markReady marks every partition whose trigger fired ready; with
// checkpoints it rolls the partition's open file: the files it has then
// are the ones its commit covers, and none of them grows after it.
func (s *PartSink) markReady() error {
	if !s.cmt.enabled {
		return nil
	}
	for _, p := range s.sorted() {
		if p.ready || p.done {
			continue
		}
		ok, err := s.isReady(p)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if s.checkpoints {
			if err := s.rollFile(p); err != nil {
				return err
			}
		}
		p.ready = true
	}
	return nil
}

// commitReady, without checkpoints, commits the partitions whose trigger
// fired: their open files are written and synced first (without
// checkpoints nothing is ever cut back: a later row for the partition, a
// late one, only appends, and commits it again).
func (s *PartSink) commitReady() error {
	if err := s.markReady(); err != nil {
		return err
	}
	for _, p := range s.sorted() {
		if p.ready && !p.done {
			if err := s.syncPart(p); err != nil {
				return err
			}
			if err := s.commitDir(p.dir); err != nil {
				return err
			}
			p.ready, p.done = false, true
		}
	}
	return nil
}

// commitDir writes the success file of a partition (when the policy has
// one), synced, and syncs the directory.
func (s *PartSink) commitDir(dir string) error {
	if s.cmt.successFile == "" {
		return nil
	}
	full := filepath.Join(s.set.path, dir)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	name := filepath.Join(full, s.cmt.successFile)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = syncDir(full)
	}
	if err != nil {
		return fmt.Errorf("filesystem: committing partition %s: %w", full, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// takeCommitted marks the partitions that CheckpointComplete committed, at
// the generation it committed (a partition reopened by a late row since
// is not committed by it).
func (s *PartSink) takeCommitted() {
	s.committedMu.Lock()
	defer s.committedMu.Unlock()
	for dir, gen := range s.committed {
		if p, ok := s.parts[dir]; ok && p.gen == gen && p.ready {
			p.ready, p.done = false, true
		}
		delete(s.committed, dir)
	}
}

func (s *PartSink) writeOut() error {
	s.last = s.now()
	for _, p := range s.sorted() {
		if err := s.writePart(p); err != nil {
			return err
		}
	}
	return nil
}

// writePart writes what a partition gathered to its open file. A write
// that fails part way is cut back to the last whole row.
func (s *PartSink) writePart(p *partition) error {
	if len(p.buf) == 0 || p.cur == nil {
		return nil
	}
	fs := &p.files[len(p.files)-1]
	n, err := p.cur.Write(p.buf)
	if err != nil {
		if n > 0 {
			_ = p.cur.Truncate(fs.Size)
			_, _ = p.cur.Seek(fs.Size, io.SeekStart)
		}
		return fmt.Errorf("filesystem: writing %s: %w", s.fileName(p), err)
	}
	fs.Size += int64(n)
	p.buf = p.buf[:0]
	return nil
}

// Flush writes the gathered rows and fsyncs every open part file. At the
// end of the input it commits every partition; with checkpoints it first
// writes the finish marker (see Resume).
func (s *PartSink) Flush(context.Context) error {
	if !s.open {
		return nil
	}
	if s.discard {
		if s.ended {
			return s.commitAll()
		}
		return nil
	}
	if err := s.writeOut(); err != nil {
		return err
	}
	for _, p := range s.sorted() {
		if p.cur == nil {
			continue
		}
		if err := p.cur.Sync(); err != nil {
			return fmt.Errorf("filesystem: syncing %s: %w", s.fileName(p), err)
		}
	}
	if !s.ended {
		return nil
	}
	if s.checkpoints && s.cmt.enabled {
		if err := s.writeFinishMarker(); err != nil {
			return err
		}
	}
	return s.commitAll()
}

// syncPart writes what the partition gathered and syncs its open file.
func (s *PartSink) syncPart(p *partition) error {
	if p.cur == nil {
		return nil
	}
	if err := s.writePart(p); err != nil {
		return err
	}
	if err := p.cur.Sync(); err != nil {
		return fmt.Errorf("filesystem: syncing %s: %w", s.fileName(p), err)
	}
	return nil
}

// commitAll commits every partition, at the end of the input.
func (s *PartSink) commitAll() error {
	if !s.cmt.enabled {
		return nil
	}
	for _, p := range s.sorted() {
		if p.done {
			continue
		}
		if err := s.rollFile(p); err != nil {
			return err
		}
		if err := s.commitDir(p.dir); err != nil {
			return err
		}
		p.ready, p.done = false, true
	}
	return nil
}

func (s *PartSink) writeFinishMarker() error {
	st := s.state(false)
	st.Ended = true
	data, _ := json.Marshal(st)
	name := filepath.Join(s.set.path, finishMarker)
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err == nil {
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err == nil {
		err = syncDir(s.set.path)
	}
	if err != nil {
		return fmt.Errorf("filesystem: writing the finish marker %s: %w", name, err)
	}
	return nil
}

// Close flushes and closes the part files.
func (s *PartSink) Close() error {
	if !s.open {
		return nil
	}
	err := s.Flush(context.Background())
	for _, p := range s.parts {
		if p.cur != nil {
			if cerr := p.cur.Close(); err == nil {
				err = cerr
			}
			p.cur = nil
		}
	}
	s.parts, s.open = map[string]*partition{}, false
	return err
}

// state is the sink's state now: every partition's files and lengths.
func (s *PartSink) state(withReady bool) partState {
	st := partState{V: partVersion, Dirs: map[string]*dirState{}, Watermark: s.wm, Ended: s.ended}
	for dir, p := range s.parts {
		if len(p.files) == 0 {
			continue
		}
		st.Dirs[dir] = &dirState{Files: append([]fileState(nil), p.files...), Open: p.cur != nil,
			Created: p.created, Gen: p.gen, Ready: withReady && p.ready, Done: p.done}
	}
	return st
}

// Checkpoint writes the gathered rows, fsyncs every part file, marks the
// partitions whose trigger fired ready (rolling their files) and returns
// every partition's files and lengths, and which are ready: those are
// committed when the checkpoint completes (CheckpointComplete).
func (s *PartSink) Checkpoint(ctx context.Context) ([]byte, error) {
	if !s.open {
		return nil, fmt.Errorf("filesystem: Checkpoint before Open")
	}
	if s.discard {
		st := s.state(false)
		st.Ended = s.ended
		return json.Marshal(st)
	}
	s.takeCommitted()
	if err := s.Flush(ctx); err != nil {
		return nil, err
	}
	if err := s.markReady(); err != nil {
		return nil, err
	}
	return json.Marshal(s.state(true))
}

// CheckpointComplete commits the partitions that were ready at the
// checkpoint (connector.SinkCommitter): their success files are written
// now, when no restore can go back before their rows.
func (s *PartSink) CheckpointComplete(_ context.Context, state []byte) error {
	var st partState
	if err := json.Unmarshal(state, &st); err != nil || st.V != partVersion {
		return nil // a version 1 state commits nothing
	}
	var dirs []string
	for dir, d := range st.Dirs {
		if d.Ready {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		if err := s.commitDir(dir); err != nil {
			return err
		}
		s.committedMu.Lock()
		s.committed[dir] = st.Dirs[dir].Gen
		s.committedMu.Unlock()
	}
	return nil
}

// Resume cuts every part file back to its length at the checkpoint and
// removes the files written after it (part files the checkpoint does not
// list, and the success files of partitions it does not hold committed);
// the resumed job writes those rows again, so each appears once. It then
// commits the partitions that were ready at the checkpoint.
//
// When the run resumed from had reached the end of its input, it left the
// finish marker, holding its final state: its output is complete (and some
// partitions may be committed). The resumed run then keeps that output as
// it is, drops the rows it writes again, and commits every partition at
// the end.
func (s *PartSink) Resume(_ context.Context, state []byte) error {
	var st partState
	if err := json.Unmarshal(state, &st); err != nil || (st.V != partVersion && st.V != positionVersion) ||
		(st.V == positionVersion && st.Parts == nil) {
		return fmt.Errorf("filesystem: %s: the checkpoint's sink state %q is not one this streamsql writes", s.set.path, state)
	}
	if st.V == positionVersion {
		st = partState{V: partVersion, Dirs: map[string]*dirState{}, Watermark: math.MinInt64}
		var old partState
		_ = json.Unmarshal(state, &old)
		for dir, size := range old.Parts {
			st.Dirs[dir] = &dirState{Files: []fileState{{Name: partName(0), Size: size}}, Open: true}
		}
	}
	if err := os.MkdirAll(s.set.path, 0o755); err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	if data, err := os.ReadFile(filepath.Join(s.set.path, finishMarker)); err == nil {
		var fin partState
		if err := json.Unmarshal(data, &fin); err != nil || fin.V != partVersion || !fin.Ended {
			return fmt.Errorf("filesystem: %s: the finish marker %s is not one this streamsql writes", s.set.path, finishMarker)
		}
		st, s.discard = fin, true
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("filesystem: %w", err)
	}
	keep := map[string]bool{}
	for dir, d := range st.Dirs {
		for _, f := range d.Files {
			keep[filepath.Join(dir, f.Name)] = true
		}
		if d.Done || s.discard {
			keep[filepath.Join(dir, s.cmt.successFile)] = true
		}
	}
	keep[finishMarker] = s.discard
	found, err := sinkFiles(s.set.path, s.cmt.successFile)
	if err != nil {
		return fmt.Errorf("filesystem: %w", err)
	}
	for _, f := range found {
		if !keep[f] {
			if err := os.Remove(filepath.Join(s.set.path, f)); err != nil {
				return fmt.Errorf("filesystem: %w", err)
			}
		}
	}
	s.parts, s.wm, s.ended = map[string]*partition{}, st.Watermark, st.Ended
	for dir, d := range st.Dirs {
		p := &partition{dir: dir, values: dirValues(dir), files: append([]fileState(nil), d.Files...),
			created: d.Created, gen: d.Gen, ready: d.Ready, done: d.Done}
		for i, f := range d.Files {
			open := d.Open && i == len(d.Files)-1 && !s.discard
			if err := s.cutBack(p, f, open); err != nil {
				return err
			}
		}
		s.parts[dir] = p
	}
	s.open, s.last, s.check = true, s.now(), s.now()
	if s.discard {
		return nil
	}
	// What was ready at the checkpoint is committed now: the checkpoint
	// is complete (the job resumes from it), and its rows are in place.
	for _, p := range s.sorted() {
		if p.ready {
			if err := s.rollFile(p); err != nil {
				return err
			}
			if err := s.commitDir(p.dir); err != nil {
				return err
			}
			p.ready, p.done = false, true
		}
	}
	return nil
}

// cutBack cuts a part file back to its length at the checkpoint, and keeps
// it open for writing when open is set.
func (s *PartSink) cutBack(p *partition, fs fileState, open bool) error {
	name := filepath.Join(s.set.path, p.dir, fs.Name)
	f, err := os.OpenFile(name, os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("filesystem: %s, written before the checkpoint, cannot be opened: %w", name, err)
	}
	info, err := f.Stat()
	if err == nil && info.Size() < fs.Size {
		err = fmt.Errorf("%s holds %d bytes, fewer than the %d it had at the checkpoint: it was changed outside the job, and the job cannot resume writing it", name, info.Size(), fs.Size)
	}
	if err == nil && info.Size() > fs.Size {
		err = f.Truncate(fs.Size)
	}
	if err == nil {
		_, err = f.Seek(fs.Size, io.SeekStart)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil || !open {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("filesystem: %w", err)
		}
		return nil
	}
	p.cur, p.opened, p.lastWrite = f, s.now(), s.now()
	return nil
}

// dirValues reads the partition values back from a directory k1=v1/k2=v2.
func dirValues(dir string) []string {
	var out []string
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		_, v, _ := strings.Cut(part, "=")
		if v == DefaultPartition {
			v = ""
		} else {
			v = unescapePartition(v)
		}
		out = append(out, v)
	}
	return out
}
