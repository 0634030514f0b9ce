package state

// Snapshots: a consistent view of a store, taken at a checkpoint barrier
// on the store's goroutine, written out from another goroutine while the
// operator keeps working, and read back into a new store on restart.
//
// Taking the view (Store.Snapshot) writes the hot tier's changed keys and
// pending deletes to Badger, as Flush does but without waiting for the
// disk, and opens a Badger read transaction. Badger is multi-version: the
// transaction reads the database as of its read timestamp, whatever the
// store writes afterwards, and compaction keeps the versions an open
// transaction can see (it discards only below the oldest open read
// timestamp). The cost at the barrier is therefore the changed hot keys,
// not the state; Snapshot.WriteTo then copies the view in the background.
//
// The snapshot format, one part per store:
//
//	"SSQLSNAP" version(1 byte) formatVersion(len-prefixed)
//	(uvarint(len(k)) k uvarint(len(v)) v)*   Badger's keys and values
//	uvarint(0) uvarint(count)                end: no key is empty
//
// Restore writes the entries back into a new Badger directory, keeping
// those of the keys a filter accepts: a store of a job restarted at another
// parallelism takes the keys of its key groups from every old partition's
// snapshot (see KeyGroup). Tables then reopen cold, as after a clean
// shutdown (their Len and sequence numbers recovered by a scan).

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
)

const snapshotMagic = "SSQLSNAP"

const snapshotVersion = 1

// maxSnapshotField bounds a key or value read from a snapshot: Badger's
// own limits are far below it, so a larger length is corruption.
const maxSnapshotField = 1 << 30

// snapshots counts a store's snapshots still being written: Close waits
// for them before closing Badger, and a table does not drop its Badger
// data whole (DropPrefix, which removes data an open read transaction
// still sees) while one is (idle).
type snapshots struct {
	wg sync.WaitGroup
	n  atomic.Int32
}

func (s *snapshots) wait() { s.wg.Wait() }

func (s *snapshots) add() {
	s.n.Add(1)
	s.wg.Add(1)
}

func (s *snapshots) done() {
	s.n.Add(-1)
	s.wg.Done()
}

// idle reports whether no snapshot is being written.
func (s *snapshots) idle() bool { return s.n.Load() == 0 }

// Snapshot is a consistent view of a store's tables as they were when
// Store.Snapshot returned. It is written once, by WriteTo (or given up by
// Release), from any goroutine.
type Snapshot struct {
	s    *Store
	txn  *badger.Txn
	once sync.Once
}

// Snapshot takes a consistent view of every table of the store. Call it on
// the store's goroutine, between operations (at a checkpoint barrier);
// the store may be used again as soon as it returns.
func (s *Store) Snapshot() (*Snapshot, error) {
	s.checkCallback()
	if s.err != nil {
		return nil, s.err
	}
	if s.closed {
		return nil, errors.New("state: snapshot of a closed store")
	}
	if !s.ensureDB() {
		return nil, s.err
	}
	s.writeChanged()
	if s.err != nil {
		return nil, s.err
	}
	s.snaps.add()
	return &Snapshot{s: s, txn: s.db.NewTransaction(false)}, nil
}

// Release gives the view up without writing it. WriteTo releases it too;
// calling Release again does nothing.
func (sn *Snapshot) Release() {
	sn.once.Do(func() {
		sn.txn.Discard()
		sn.s.snaps.done()
	})
}

// WriteTo writes the view in the snapshot format to w, then releases it.
func (sn *Snapshot) WriteTo(w io.Writer) (int64, error) {
	defer sn.Release()
	bw := bufio.NewWriterSize(w, 256<<10)
	cw := &countWriter{w: bw}
	var buf []byte
	buf = append(buf, snapshotMagic...)
	buf = append(buf, snapshotVersion)
	buf = binary.AppendUvarint(buf, uint64(len(formatVersion)))
	buf = append(buf, formatVersion...)
	if _, err := cw.Write(buf); err != nil {
		return cw.n, err
	}
	it := sn.txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64})
	var count uint64
	var err error
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		k := item.Key()
		if string(k) == string(formatKey) {
			continue
		}
		buf = binary.AppendUvarint(buf[:0], uint64(len(k)))
		buf = append(buf, k...)
		err = item.Value(func(v []byte) error {
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			buf = append(buf, v...)
			return nil
		})
		if err != nil {
			err = fmt.Errorf("state: snapshot: %w", err)
			break
		}
		if _, err = cw.Write(buf); err != nil {
			break
		}
		count++
	}
	it.Close()
	if err != nil {
		return cw.n, err
	}
	buf = binary.AppendUvarint(buf[:0], 0)
	buf = binary.AppendUvarint(buf, count)
	if _, err := cw.Write(buf); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// SnapshotPart is one snapshot to restore from.
type SnapshotPart struct {
	Name string // for errors: the checkpoint file it comes from
	R    io.Reader
}

// Restore opens a store in dir — which must not exist or be empty — holding
// the entries of the snapshots in parts whose table and key keep accepts
// (keep nil: every entry). Every part is read to its end, so a part reader
// that checks a checksum at the end gets to do so. A part that cannot be
// read is an error naming it, and no store is returned.
func Restore(dir string, opts Options, parts []SnapshotPart, keep func(table string, key []byte) bool) (*Store, error) {
	if dir != "" {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			return nil, fmt.Errorf("state: restoring into %s: the directory is not empty", dir)
		}
	}
	s, err := Open(dir, opts)
	if err != nil {
		return nil, err
	}
	if !s.ensureDB() {
		err := s.err
		s.Close()
		return nil, err
	}
	for i, p := range parts {
		var rn *renumber
		if len(parts) > 1 {
			rn = &renumber{i: uint64(i), n: uint64(len(parts))}
		}
		if err := s.restorePart(p, keep, rn); err != nil {
			s.Close()
			return nil, fmt.Errorf("state: restoring from %s: %w", p.Name, err)
		}
	}
	return s, nil
}

func (s *Store) restorePart(p SnapshotPart, keep func(string, []byte) bool, rn *renumber) error {
	r := bufio.NewReaderSize(p.R, 256<<10)
	head := make([]byte, len(snapshotMagic)+1)
	if _, err := io.ReadFull(r, head); err != nil {
		return fmt.Errorf("not a state snapshot (%w)", unexpected(err))
	}
	if string(head[:len(snapshotMagic)]) != snapshotMagic {
		return errors.New("not a state snapshot")
	}
	if v := head[len(snapshotMagic)]; v != snapshotVersion {
		return fmt.Errorf("a state snapshot in version %d; this streamsql reads version %d", v, snapshotVersion)
	}
	layout, err := readField(r)
	if err != nil {
		return err
	}
	if string(layout) != formatVersion {
		return fmt.Errorf("state in layout %s; this streamsql reads layout %s", layout, formatVersion)
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	var count uint64
	for {
		k, err := readField(r)
		if err != nil {
			return err
		}
		if len(k) == 0 {
			break
		}
		v, err := readField(r)
		if err != nil {
			return err
		}
		count++
		table, key, ok := entryKey(k, v)
		if !ok {
			return fmt.Errorf("entry %d: %w", count, ErrCorrupt)
		}
		if keep != nil && !keep(table, key) {
			continue
		}
		if rn != nil {
			if k, v, err = rn.entry(k, v); err != nil {
				return fmt.Errorf("entry %d: %w", count, err)
			}
		}
		if err := wb.Set(k, v); err != nil {
			return err
		}
	}
	want, err := binary.ReadUvarint(r)
	if err != nil {
		return fmt.Errorf("truncated after %d entries (%w)", count, unexpected(err))
	}
	if want != count {
		return fmt.Errorf("%d entries where its end says %d: it is corrupted", count, want)
	}
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return errors.New("bytes after its end: it is corrupted")
	}
	return wb.Flush()
}

// renumber makes the sequence numbers of records restored from several
// snapshots into one store unique: each store numbers its records from 0,
// and the expiry index is keyed by (expiry, seq), so two stores' records
// with one expiry and one seq would be one index entry, and one of them
// would never expire (a window never fired). Record seq s of part i of n
// becomes s*n+i, which keeps each key's records in their order (a key's
// records all come from one part).
type renumber struct{ i, n uint64 }

func (rn *renumber) seq(s uint64) (uint64, error) {
	if s > (^uint64(0)-rn.i)/rn.n {
		return 0, ErrCorrupt
	}
	return s*rn.n + rn.i, nil
}

// entry returns the Badger entry k, v with its seqs renumbered (k and v
// are the caller's: rewritten in place or copied).
func (rn *renumber) entry(k, v []byte) ([]byte, []byte, error) {
	if k[0] == 'x' {
		at := len(k) - 8
		s, err := rn.seq(binary.BigEndian.Uint64(k[at:]))
		if err != nil {
			return nil, nil, err
		}
		binary.BigEndian.PutUint64(k[at:], s)
		return k, v, nil
	}
	n, p := binary.Uvarint(v)
	if p <= 0 || n > uint64(len(v)) {
		return nil, nil, ErrCorrupt
	}
	out := make([]byte, 0, len(v)+int(n)*2)
	out = append(out, v[:p]...)
	var r Record
	for range n {
		s, w := binary.Uvarint(v[p:])
		if w <= 0 {
			return nil, nil, ErrCorrupt
		}
		ns, err := rn.seq(s)
		if err != nil {
			return nil, nil, err
		}
		out = binary.AppendUvarint(out, ns)
		p += w
		m, err := DecodeHeader(v[p:], &r)
		if err != nil {
			return nil, nil, err
		}
		_, size, _, err := valuesLen(v[p+m:])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v[p:p+m+size]...)
		p += m + size
	}
	return k, append(out, v[p:]...), nil
}

// readField reads a uvarint length and that many bytes.
func readField(r *bufio.Reader) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, fmt.Errorf("truncated (%w)", unexpected(err))
	}
	if n > maxSnapshotField {
		return nil, fmt.Errorf("a field of %d bytes: %w", n, ErrCorrupt)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("truncated (%w)", unexpected(err))
	}
	return b, nil
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// entryKey returns the table and the operator's key of a Badger entry:
// for a data entry 'd' len table key, for an index entry 'x' len table
// exp seq, whose value ends with the key.
func entryKey(k, v []byte) (table string, key []byte, ok bool) {
	if len(k) < 2 || (k[0] != 'd' && k[0] != 'x') || len(k) < 2+int(k[1]) {
		return "", nil, false
	}
	table = string(k[2 : 2+int(k[1])])
	rest := k[2+int(k[1]):]
	if k[0] == 'd' {
		return table, rest, true
	}
	if len(rest) != 16 || len(v) < 9 {
		return "", nil, false
	}
	_, w := binary.Uvarint(v[8:])
	if w <= 0 {
		return "", nil, false
	}
	return table, v[8+w:], true
}
