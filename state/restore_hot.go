package state

import (
	"bytes"
	"fmt"
	"math"
)

// Restoring into the hot tier: when the whole state fits 7/8 of the budget
// (the level an eviction brings the tier down to; see hotRoom), Restore
// keeps the data entries it reads in memory, as hot keys, and builds
// Badger's tables only from what does not fit. A job whose state fitted its budget before the
// stop has it all in memory again after the restart, as it had before:
// the restore skips building and syncing Badger tables for it (a third
// of a restore's CPU when everything went to Badger), and the resumed run
// does not read every key back from Badger on its first touch. Keys are
// taken in the snapshot's order (Badger's): the snapshot says nothing of
// which were hot.
//
// A Table's codec (a Map's value) and bucket width are known only when the
// operator opens it, after Restore: Restore decodes the records into hot
// entries of no table yet (a Map's value kept encoded), and Store.table
// adopts them (adoptRestored): it decodes the values, lists the records
// in the expiry buckets, puts the keys on the clock and counts them
// against the budget. A restored key is dirty (Badger does not hold it)
// and not on the clock's second chance (nothing has touched it).

// restoredHot is what Restore put in the hot tier for one table.
type restoredHot struct {
	hot  map[string]*entry
	rows int64
	seq  uint64 // the next sequence number (past the largest restored)
	// objs and plain count the entries with a Map's value and without:
	// one table's entries are all of one kind, the kind of the table
	// that adopts them.
	objs, plain int
}

// hotRoom sets what Restore may take into the hot tier from parts: 7/8 of
// the budget. When the sizes of the parts and their deltas are known, the
// first entries of about 1/256 of those bytes are a sample, not taken: if
// what they would take in memory, scaled to the parts' bytes, does not fit
// the room, nothing is taken. A state larger than the budget is restored
// to Badger alone, as it was before restores filled memory. Taking part of
// it would cost: in a part's order (its keys'), what is taken is not what
// the job touches first; every key taken is dirty and written to Badger a
// second time when the job evicts it; and under a small budget the taken
// keys fill the Go memory limit (derived from the budget) beside the
// restore's buffers. The 4-hour join's checkpoint of 1.7M rows (63 MB a
// partition on disk, 189 MB in memory) under a 64mb budget: the resumed
// run used 61 s of CPU taking nothing, 70 s taking 28 MB a partition
// (medians of 3, docs/performance.md). The sizes on disk alone do not tell: a key's
// entry and records cost the hot tier about 200 bytes beyond their
// encoded size (3 times the bytes in the join's state, 8 in a test's).
func (s *Store) hotRoom(parts []SnapshotPart) {
	s.restoreRoom = math.MaxInt64
	if s.budget != math.MaxInt64 {
		s.restoreRoom = s.budget - s.budget/8
	}
	s.restoreDisk, s.probe = 0, probe{}
	for _, p := range parts {
		for _, q := range append([]SnapshotPart{p}, p.Deltas...) {
			if q.Size <= 0 {
				s.restoreDisk = 0
				return
			}
			s.restoreDisk += q.Size
		}
	}
	if s.restoreRoom != math.MaxInt64 {
		s.probe.left = max(s.restoreDisk/256, 4<<10)
	}
}

// probe is the sample hotRoom decides by: the entries' bytes on disk and
// what they would take in memory, until left is spent.
type probe struct {
	left, disk, mem int64
}

// sample counts an entry of disk bytes that would take mem in the hot
// tier; when the sample is complete it decides (hotRoom).
func (s *Store) sample(disk, mem int64) {
	pr := &s.probe
	pr.disk += disk
	pr.mem += mem
	if pr.left -= disk; pr.left > 0 {
		return
	}
	if float64(pr.mem)/float64(pr.disk)*float64(s.restoreDisk) > float64(s.restoreRoom) {
		s.restoreRoom = 0
	}
}

// hotTaker returns the function mergePart calls before it writes a data
// entry to Badger: it takes the entry (k, v: valid until it returns) into
// the hot tier while the tier has room (s.restoreRoom, shared by the parts
// of one Restore). rn renumbers the records of a store restored from
// several snapshots (nil: one). It is nil when there is no room.
func (s *Store) hotTaker(rn *renumber) func(k, v []byte) (bool, error) {
	if s.restoreRoom <= 0 {
		return nil
	}
	return func(k, v []byte) (bool, error) {
		if s.restoreRoom <= 0 || k[0] != 'd' {
			return false, nil
		}
		table, key, ok := entryKey(k, nil)
		if !ok {
			return false, ErrCorrupt
		}
		if rn != nil {
			var err error
			if _, v, err = rn.entry(k, v); err != nil { // (a data entry's key has no seq)
				return false, err
			}
		}
		recs, raw, hasObj, err := splitEntry(v)
		if err != nil {
			return false, err
		}
		for i := range recs {
			recs[i].indexed = false // Badger has no index entry for it
		}
		e := &entry{key: string(key), recs: recs, dirty: true, slot: -1}
		if hasObj {
			e.obj = bytes.Clone(raw) // v is the reader's buffer
			e.objSize = int64(len(raw))
		}
		size := entrySize(e)
		if s.probe.left > 0 {
			s.sample(int64(len(k)+len(v)), size)
			return false, nil
		}
		if size > s.restoreRoom {
			s.restoreRoom = 0 // the rest goes to Badger, in order
			return false, nil
		}
		s.restoreRoom -= size
		if s.hotRestored == nil {
			s.hotRestored = map[string]*restoredHot{}
		}
		p := s.hotRestored[table]
		if p == nil {
			p = &restoredHot{hot: map[string]*entry{}}
			s.hotRestored[table] = p
		}
		n := len(p.hot)
		if p.hot[e.key] = e; len(p.hot) == n { // one map operation a key
			return false, fmt.Errorf("key %q twice: %w", key, ErrCorrupt)
		}
		p.rows += int64(len(recs))
		p.seq = max(p.seq, recs[len(recs)-1].seq+1)
		if hasObj {
			p.objs++
		} else {
			p.plain++
		}
		s.stats.RestoredHot++
		return true, nil
	}
}

// adoptRestored makes the keys Restore took into the hot tier for t's
// name t's hot keys (see the file's comment).
func (t *Table) adoptRestored() {
	p := t.s.hotRestored[t.name]
	if p == nil {
		return
	}
	delete(t.s.hotRestored, t.name)
	if (t.codec != nil && p.plain > 0) || (t.codec == nil && p.objs > 0) {
		t.s.fail(fmt.Errorf("the restored table %q holds entries of another kind of table: %w", t.name, ErrCorrupt))
		return
	}
	t.hot = p.hot
	for k, e := range p.hot {
		if t.codec != nil {
			obj, err := t.codec.decode(e.obj.([]byte))
			if err != nil {
				// As a value read from Badger that does not decode: the
				// store's error stops the job, the key is not there.
				t.s.fail(fmt.Errorf("the restored value of %q in table %q: %w", e.key, t.name, err))
				delete(t.hot, k)
				p.rows -= int64(len(e.recs))
				continue
			}
			e.obj = obj
			e.objSize = t.codec.size(obj)
		}
		e.tab = t.idx
		t.s.ringAdd(e)
		for i := range e.recs {
			if r := &e.recs[i]; r.expiry != NoExpiry {
				t.bucketAdd(r.expiry, r.seq, e)
			}
		}
		t.grow(e, entrySize(e))
	}
	t.rows += p.rows
	t.seq = max(t.seq, p.seq)
}

// unadopted is an error naming a table Restore took keys into the hot
// tier for that was never opened (nil: none): a snapshot would leave them
// out.
func (s *Store) unadopted() error {
	for name := range s.hotRestored {
		return fmt.Errorf("state: the restored table %q was never opened: its keys would be missing from the snapshot", name)
	}
	return nil
}
