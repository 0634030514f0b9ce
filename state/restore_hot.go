package state

import (
	"bytes"
	"fmt"
	"math"
)

// Restoring into the hot tier: Restore keeps the data entries it reads in
// memory, as hot keys, while their estimated size fits 7/8 of the budget
// (the level an eviction brings the tier down to), and builds Badger's
// tables from the rest. A job whose state fitted its budget before the
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

// hotTaker returns the function mergePart calls before it writes a data
// entry to Badger: it takes the entry (k, v: valid until it returns) into
// the hot tier while the tier has room. rn renumbers the records of a
// store restored from several snapshots (nil: one).
func (s *Store) hotTaker(rn *renumber) func(k, v []byte) (bool, error) {
	room := s.budget - s.budget/8
	if s.budget == math.MaxInt64 {
		room = math.MaxInt64
	}
	return func(k, v []byte) (bool, error) {
		if room <= 0 || k[0] != 'd' {
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
		if size > room {
			room = 0 // the rest goes to Badger, in order
			return false, nil
		}
		room -= size
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
