package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// temporalJoinOp is an event-time temporal join (FOR SYSTEM_TIME AS OF):
// each probe (left) row joins the version of the versioned (right) side
// that was valid at the probe row's time. Probe rows wait until the
// watermark reaches their time, so every version up to then is known; then
// they are joined and leave state. Versions older than the one valid at the
// watermark are dropped (when their key is next probed or updated). An
// INNER join emits nothing for a probe row without a valid version, a LEFT
// join emits it padded with NULLs.
//
// Both live in package state, under the memory budget: probes in a table
// keyed by join key whose expiry is the probe's time, so the watermark
// releases them in time order from either tier; versions in a table keyed
// by join key, one record per version (Time = its time, flagDeleted for a
// deletion, placed in time by deletionTime), in arrival order. The
// versioned side is read as an upsert stream (the planner puts no
// changelog normalize there): +I/+U are versions, -U is ignored (its +U
// follows), -D deletes its key.
type temporalJoinOp struct {
	noLifecycle
	name     string
	nl, nr   int
	leftTime int
	ltime    int // time column of the versioned side
	lkey     keyer
	rkey     keyer
	cond     predFunc
	left     bool // LEFT JOIN
	in       inputs
	store    *state.Store
	probes   *state.Table
	versions *state.Table
	due      []probe // probes released by the watermark, being joined
	out      collector
	c        *Counters
	late     *lateWriter
	lcols    []connector.Column
	rlate    *lateWriter // the versioned side's, for versions without time
	rcols    []connector.Column
	buf      row.Batch
}

type probe struct {
	vals []row.Value
	t    int64
	key  string
	null bool
}

const (
	flagNullKey = 1 // a probe whose key or time is NULL: joins nothing
	flagDeleted = 1 // a version that deletes its key
)

// nullProbeExpiry releases probes with a NULL key or time at the next
// watermark, whatever it is (they join nothing, so need no version).
const nullProbeExpiry = -1 << 62

func (o *temporalJoinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	wm := o.in.watermark()
	if port == 0 {
		due := false
		for _, r := range b {
			t, why, timed := eventTime(r.Vals[o.leftTime], colName(o.lcols, o.leftTime))
			kb, null, err := o.lkey.keyBytes(r.Vals)
			if err != nil {
				return err
			}
			if !timed {
				// No version is valid at no time: it joins nothing (a LEFT
				// join emits it padded). Counted; dead-lettered when dropped.
				o.c.NoTime.Add(1)
				if err := o.late.noTime(o.name, why, r, wm, o.lcols, !o.left); err != nil {
					return err
				}
				t = 0
			}
			rec := state.Record{Vals: r.Vals, Time: t, Expiry: t}
			if null || !timed {
				rec.Flags, rec.Expiry = flagNullKey, nullProbeExpiry
			} else if t <= wm {
				// Late: its versions may already be gone. Join with what is
				// left, and count it.
				o.c.Late.Add(1)
				if err := o.late.write(o.name, r, t, wm, o.lcols); err != nil {
					return err
				}
			}
			if rec.Flags&flagNullKey == 0 && t <= wm {
				due = true // a late probe joins now
			}
			o.probes.Append(kb, rec)
		}
		if err := o.store.Err(); err != nil {
			return fmt.Errorf("state: %w", err)
		}
		o.setState()
		if due && wm != MinWatermark {
			return o.fire(wm)
		}
		return nil
	}
	for _, r := range b {
		if r.Kind == changelogmode.UpdateBefore {
			continue // the +U that follows is the new version
		}
		kb, null, err := o.rkey.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		if null {
			continue
		}
		t, why, timed := eventTime(r.Vals[o.ltime], colName(o.rcols, o.ltime))
		if !timed && (r.Kind != changelogmode.Delete || !r.Vals[o.ltime].IsNull()) {
			// A version without time is valid at no time (read as 0 it
			// would be valid from 1970 on): counted and dead-lettered. (A
			// deletion without its own time is placed by deletionTime.)
			o.c.NoTime.Add(1)
			if err := o.rlate.noTime(o.name, why, r, wm, o.rcols, true); err != nil {
				return err
			}
			continue
		}
		rec := state.Record{Vals: r.Vals, Time: t, Expiry: state.NoExpiry}
		if r.Kind == changelogmode.Delete {
			t, ok := o.deletionTime(kb, r.Vals)
			if !ok {
				continue // nothing to delete
			}
			rec.Time, rec.Flags = t, flagDeleted
		}
		o.versions.Append(kb, rec)
		o.prune(kb, wm)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.setState()
	return nil
}

func (o *temporalJoinOp) setState() {
	o.c.setState(o.probes.Len() + o.versions.Len()) // waiting probes and kept versions
	o.c.setStore(o.store)
}

// validAt returns the version of key valid at t: the greatest time <= t,
// of equal times the last to arrive; nil when there is none or it is a
// deletion.
func (o *temporalJoinOp) validAt(key []byte, t int64) []row.Value {
	var best []row.Value
	found, bestT, deleted := false, int64(0), false
	o.versions.Scan(key, func(r *state.Record) (keep, stop bool) {
		if r.Time <= t && (!found || r.Time >= bestT) {
			found, bestT, best, deleted = true, r.Time, r.Vals, r.Flags&flagDeleted != 0
		}
		return true, false
	})
	if deleted {
		return nil
	}
	return best
}

// deletionTime returns when a deletion of key takes effect, and false when
// it deletes nothing. A deletion is placed in event time like a version: at
// its own time (an upsert-kafka tombstone whose time column is the record's
// timestamp). One that does not say when it happened — a tombstone whose
// time is a field of the deleted value (NULL), or a -D that carries the
// deleted version itself (a changelog's before image, with that version's
// time) — takes effect just after both the key's latest version and the
// versioned input's watermark: it came after that version, and no probe at
// or below the watermark may see it change (they may already be joined).
// Such a deletion of a key without a live version deletes nothing.
func (o *temporalJoinOp) deletionTime(key []byte, vals []row.Value) (int64, bool) {
	own := vals[o.ltime]
	if !own.IsNull() && !o.versions.Find(key, vals, func(*state.Record) bool { return true }) {
		return own.Int(), true
	}
	found, latest, deleted := false, int64(0), false
	o.versions.Scan(key, func(r *state.Record) (keep, stop bool) {
		if !found || r.Time >= latest {
			found, latest, deleted = true, r.Time, r.Flags&flagDeleted != 0
		}
		return true, false
	})
	if !found || deleted {
		return 0, false
	}
	return max(latest, o.in.inputWatermark(1)) + 1, true
}

// prune drops the versions of key older than the one valid at wm: no probe
// that is not late can need them.
func (o *temporalJoinOp) prune(key []byte, wm int64) {
	if wm == MinWatermark {
		return
	}
	found, validT := false, int64(0)
	o.versions.Scan(key, func(r *state.Record) (keep, stop bool) {
		if r.Time <= wm && (!found || r.Time > validT) {
			found, validT = true, r.Time
		}
		return true, false
	})
	if !found {
		return
	}
	left, gone := 0, true
	o.versions.Scan(key, func(r *state.Record) (keep, stop bool) {
		if r.Time < validT {
			return false, false
		}
		left++
		gone = gone && r.Flags&flagDeleted != 0
		return true, false
	})
	if left == 1 && gone {
		o.versions.Delete(key) // deleted, and nothing after: forget the key
	}
}

// fire joins every probe row with time <= wm, in time order.
func (o *temporalJoinOp) fire(wm int64) error {
	o.due = o.due[:0]
	o.probes.Expire(wm, func(key []byte, r *state.Record) {
		o.due = append(o.due, probe{vals: r.Vals, t: r.Time, key: string(key), null: r.Flags&flagNullKey != 0})
	})
	o.buf = o.buf[:0]
	for _, p := range o.due {
		var match []row.Value
		if !p.null {
			match = o.validAt([]byte(p.key), p.t)
		}
		if match != nil && o.cond != nil {
			ok, err := o.cond(concat(p.vals, o.nl, match, o.nr))
			if err != nil {
				return err
			}
			if !ok {
				match = nil
			}
		}
		switch {
		case match != nil:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(p.vals, o.nl, match, o.nr)})
		case o.left:
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(p.vals, o.nl, nil, o.nr)})
		}
	}
	for _, p := range o.due {
		if !p.null {
			o.prune([]byte(p.key), wm)
		}
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.setState()
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

func (o *temporalJoinOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

// advance joins the probes the watermark w releases.
func (o *temporalJoinOp) advance(w int64) error { return o.fire(w) }

func (o *temporalJoinOp) counters() *Counters { return o.c }
