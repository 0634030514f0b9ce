package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
)

// Dead-letter files ('scan.late-rows.path') and checkpoints (#13).
//
// Every operator input whose table has a dead-letter path writes its late
// rows through a lateWriter; the writers of one path share one
// deadLetterFile (several operators, an operator's partitions, both sides
// of a self-join may write the same file). A checkpoint records each
// file's length at its barrier, and a resumed job cuts the file back to it,
// as the filesystem sink cuts its output: the late rows that came after the
// checkpoint, which the resumed job meets again, are written once.
//
// The length must be a consistent cut: every line written before the
// barrier by each writer in, every line written after it out. Writers pass
// the barrier at different moments (each operator when it has aligned it),
// so a writer that has passed barrier n holds its lines back (in memory,
// in order) until every writer of its file has passed n or finished; then
// the file's length is barrier n's cut, and the held lines are written.
// The coordinator reads the cuts when every sink has acknowledged the
// barrier (every operator has passed it by then, or finished) and writes
// them as the checkpoint's dead-letters part. A writer whose operator has
// finished (all its inputs ended, its finish done) writes nothing more and
// holds no cut back.
//
// A job that restarts with no completed checkpoint reads its input again
// from the beginning: the lengths at its first start, kept in
// DIR/DEAD-LETTERS-START.json, cut back what the lost runs wrote.

// deadLettersPart is the checkpoint part holding the dead-letter files'
// lengths at the barrier.
const deadLettersPart = "dead-letters"

// DeadLettersStartName is the file under --state-dir holding the
// dead-letter files' lengths when the job first started, for a restart
// that has no completed checkpoint to resume from.
const DeadLettersStartName = "DEAD-LETTERS-START.json"

// deadLettersVersion is the layout of the dead-letters part and of
// DeadLettersStartName.
const deadLettersVersion = 1

// deadLetterLengths is the dead-letters part and DeadLettersStartName:
// each file's length in bytes, by its absolute path.
type deadLetterLengths struct {
	V       int              `json:"v"`
	Started string           `json:"started,omitempty"` // the start file's: when
	Files   map[string]int64 `json:"files"`
}

// deadLetters are a job's dead-letter files, by absolute path.
type deadLetters struct {
	files map[string]*deadLetterFile
}

// file is the shared file of path, made with its first writer.
func (d *deadLetters) file(path string) *deadLetterFile {
	if d.files == nil {
		d.files = map[string]*deadLetterFile{}
	}
	f := d.files[path]
	if f == nil {
		f = &deadLetterFile{path: path, cuts: map[int64]int64{}, changed: make(chan struct{})}
		d.files[path] = f
	}
	return f
}

// paths are the files' paths, sorted.
func (d *deadLetters) paths() []string {
	out := make([]string, 0, len(d.files))
	for p := range d.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// deadLetterFile is one dead-letter file and its writers' progress through
// the checkpoint barriers.
type deadLetterFile struct {
	path string
	mu   sync.Mutex
	f    *os.File // opened (appending) with the first line
	size int64    // its length, when f is open
	err  error
	// writers are the lateWriters of this file.
	writers []*lateWriter
	// cut: every writer that has not finished has passed barrier cut
	// (math.MaxInt64 once they all have finished).
	cut int64
	// pending are the barriers some writer has passed and not all
	// (ascending); cuts the lengths at barriers, until the coordinator
	// reads them.
	pending []int64
	cuts    map[int64]int64
	// held are the lines of writers past the cut, in the order written.
	held []heldLine
	// changed is closed (and replaced) whenever a cut is taken.
	changed chan struct{}
}

type heldLine struct {
	after int64 // the last barrier its writer had passed
	line  []byte
}

// add registers w as a writer of f.
func (f *deadLetterFile) add(w *lateWriter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.file = f
	f.writers = append(f.writers, w)
}

// write writes one line of w's, or holds it while w is past the cut.
func (f *deadLetterFile) write(w *lateWriter, line []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	if w.passed > f.cut {
		f.held = append(f.held, heldLine{after: w.passed, line: line})
		return nil
	}
	return f.writeLocked(line)
}

func (f *deadLetterFile) writeLocked(line []byte) error {
	if f.err != nil {
		return f.err
	}
	if f.f == nil {
		file, err := os.OpenFile(f.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			var info os.FileInfo
			if info, err = file.Stat(); err == nil {
				f.size = info.Size()
			} else {
				_ = file.Close()
			}
		}
		if err != nil {
			f.err = fmt.Errorf("dead-letter file: %w", err)
			return f.err
		}
		f.f = file
	}
	n, err := f.f.Write(line)
	f.size += int64(n)
	if err != nil {
		f.err = fmt.Errorf("dead-letter file %s: %w", f.path, err)
	}
	return f.err
}

// lengthLocked is the file's length now: what was written, or what is on
// disk before the first line (0 when there is no file).
func (f *deadLetterFile) lengthLocked() (int64, error) {
	if f.f != nil {
		return f.size, nil
	}
	info, err := os.Stat(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("dead-letter file: %w", err)
	}
	return info.Size(), nil
}

// pass records that w has passed barrier id: its next lines come after it.
func (f *deadLetterFile) pass(w *lateWriter, id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id <= w.passed {
		return
	}
	w.passed = id
	if id > f.cut {
		if i, found := slices.BinarySearch(f.pending, id); !found {
			f.pending = slices.Insert(f.pending, i, id)
		}
	}
	f.advanceLocked()
}

// finished records that w writes nothing more.
func (f *deadLetterFile) finished(w *lateWriter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.done {
		return
	}
	w.done = true
	f.advanceLocked()
}

// advanceLocked takes the cuts of the barriers every unfinished writer has
// passed and writes the lines held back for them.
func (f *deadLetterFile) advanceLocked() {
	m := int64(math.MaxInt64)
	for _, w := range f.writers {
		if !w.done {
			m = min(m, w.passed)
		}
	}
	if m <= f.cut {
		return
	}
	for len(f.pending) > 0 && f.pending[0] <= m {
		id := f.pending[0]
		f.pending = f.pending[1:]
		f.flushHeldLocked(id - 1)
		n, err := f.lengthLocked()
		if err != nil && f.err == nil {
			f.err = err
		}
		f.cuts[id] = n
	}
	f.flushHeldLocked(m)
	f.cut = m
	close(f.changed)
	f.changed = make(chan struct{})
}

// flushHeldLocked writes the held lines of writers that had passed no
// barrier after upTo, in order, and keeps the others.
func (f *deadLetterFile) flushHeldLocked(upTo int64) {
	keep := f.held[:0]
	for _, h := range f.held {
		if h.after <= upTo {
			_ = f.writeLocked(h.line) // the error stays in f.err
		} else {
			keep = append(keep, h)
		}
	}
	clear(f.held[len(keep):])
	f.held = keep
}

// cutAt is the file's length at barrier id, once every writer has passed
// it or finished (ok false before). The cuts up to id are forgotten.
func (f *deadLetterFile) cutAt(id int64) (n int64, ok bool, changed <-chan struct{}, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, false, nil, f.err
	}
	n, ok = f.cuts[id]
	if !ok && f.cut == math.MaxInt64 {
		// Every writer finished before the barrier reached it: nothing
		// is held, and nothing more comes.
		n, err = f.lengthLocked()
		ok = err == nil
	}
	if !ok && err == nil && f.cut >= id {
		err = fmt.Errorf("internal error: dead-letter file %s: no length at barrier %d, which every writer has passed", f.path, id)
	}
	if ok {
		for k := range f.cuts {
			if k <= id {
				delete(f.cuts, k)
			}
		}
	}
	return n, ok, f.changed, err
}

// sync makes what was written durable.
func (f *deadLetterFile) sync() error {
	f.mu.Lock()
	file := f.f
	f.mu.Unlock()
	if file == nil {
		return nil
	}
	if err := file.Sync(); err != nil {
		return fmt.Errorf("dead-letter file %s: %w", f.path, err)
	}
	return nil
}

// close writes what is still held (a run stopped within a checkpoint:
// the lines were written, only their cut was not taken) and closes the
// file.
func (f *deadLetterFile) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushHeldLocked(math.MaxInt64)
	var err error
	if f.f != nil {
		err = f.f.Close()
		f.f = nil
	}
	if f.err != nil {
		return f.err
	}
	return err
}

// passBarrier records that the driver's operator has passed barrier id:
// its late rows from now on come after the checkpoint.
func (d *driver) passBarrier(id int64) {
	for _, w := range d.late {
		w.file.pass(w, id)
	}
}

// lateFinished records that the driver's operator writes no more late
// rows (it has finished).
func (d *driver) lateFinished() {
	for _, w := range d.late {
		w.file.finished(w)
	}
}

// deadLetterCuts waits until every dead-letter file has its length at
// barrier id (every writer past it or finished), syncs the files and
// returns the dead-letters part.
func (j *Job) deadLetterCuts(ctx context.Context, id int64, timeout <-chan time.Time) ([]byte, error) {
	st := deadLetterLengths{V: deadLettersVersion, Files: map[string]int64{}}
	for _, p := range j.dead.paths() {
		f := j.dead.files[p]
		for {
			n, ok, changed, err := f.cutAt(id)
			if err != nil {
				return nil, err
			}
			if ok {
				st.Files[p] = n
				break
			}
			select {
			case <-changed:
			case <-timeout:
				return nil, fmt.Errorf("checkpoint %d timed out waiting for the dead-letter file %s ('execution.checkpointing.timeout')", id, p)
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err := f.sync(); err != nil {
			return nil, err
		}
	}
	return json.Marshal(st)
}

// restoreDeadLetters cuts the dead-letter files back before the job opens:
// to their lengths at the checkpoint it resumes from, or, when it starts
// from the beginning, to their lengths at its first start
// (DeadLettersStartName, written now when there is none yet). A job that
// takes no checkpoints has nothing to cut back to.
func (j *Job) restoreDeadLetters() error {
	if len(j.dead.files) == 0 || j.cp == nil || j.cp.off != "" {
		return nil
	}
	if c := j.cp.cfg.Restore; c != nil {
		if !c.HasPart(deadLettersPart) {
			// A checkpoint of a streamsql that did not record them: the
			// files are appended to, as it did.
			j.warn("dead-letters", fmt.Sprintf("checkpoint %d records no dead-letter file lengths (an older streamsql wrote it): "+
				"late rows after it are written again to %s", c.ID, strings.Join(j.dead.paths(), ", ")))
			return nil
		}
		data, err := c.ReadPart(deadLettersPart)
		if err != nil {
			return err
		}
		st, err := decodeDeadLetterLengths(data, c.File(deadLettersPart))
		if err != nil {
			return err
		}
		return j.dead.cutBack(st.Files, fmt.Sprintf("checkpoint %d", c.ID), j.stateDir)
	}
	if j.stateDir == "" {
		return nil
	}
	start := filepath.Join(j.stateDir, DeadLettersStartName)
	data, err := os.ReadFile(start)
	switch {
	case err == nil:
		st, err := decodeDeadLetterLengths(data, start)
		if err != nil {
			return err
		}
		return j.dead.cutBack(st.Files, start, j.stateDir)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	st := deadLetterLengths{V: deadLettersVersion, Started: time.Now().UTC().Format(time.RFC3339), Files: map[string]int64{}}
	for _, p := range j.dead.paths() {
		f := j.dead.files[p]
		f.mu.Lock()
		n, err := f.lengthLocked()
		f.mu.Unlock()
		if err != nil {
			return err
		}
		st.Files[p] = n
	}
	data, _ = json.MarshalIndent(st, "", "  ")
	if err := os.MkdirAll(j.stateDir, 0o755); err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(start, append(data, '\n'))
}

func decodeDeadLetterLengths(data []byte, file string) (*deadLetterLengths, error) {
	var st deadLetterLengths
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if st.V != deadLettersVersion {
		return nil, fmt.Errorf("%s: dead-letter lengths of layout %d, this streamsql reads %d", file, st.V, deadLettersVersion)
	}
	for p, n := range st.Files {
		if n < 0 {
			return nil, fmt.Errorf("%s: dead-letter file %s has a negative length %d", file, p, n)
		}
	}
	return &st, nil
}

// cutBack truncates each file to its length in lengths (from where, for
// errors) and syncs it. A file that lengths does not know (its table got a
// dead-letter path since) is left as it is. A file missing or shorter than
// its length was changed outside the job: the lines the job wrote before
// the cut are gone, and it stops, naming the file.
func (d *deadLetters) cutBack(lengths map[string]int64, where, stateDir string) error {
	for _, p := range d.paths() {
		n, ok := lengths[p]
		if !ok {
			continue
		}
		info, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if n == 0 {
				continue
			}
			return fmt.Errorf("dead-letter file %s is missing; %s recorded %d bytes of it: the job cannot resume writing it "+
				"(put the file back, or start over: rm -r %s)", p, where, n, stateDir)
		case err != nil:
			return fmt.Errorf("dead-letter file: %w", err)
		case info.Size() < n:
			return fmt.Errorf("dead-letter file %s holds %d bytes, fewer than the %d %s recorded: it was changed outside the job, "+
				"and the job cannot resume writing it (put the lines back, or start over: rm -r %s)", p, info.Size(), n, where, stateDir)
		case info.Size() == n:
			continue
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("dead-letter file: %w", err)
		}
		err = f.Truncate(n)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("dead-letter file %s: cutting it back to its length at %s: %w", p, where, err)
		}
	}
	return nil
}
