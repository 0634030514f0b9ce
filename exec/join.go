package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// joinOp is a regular (unbounded) stream-stream join with Flink's
// semantics: every row of both inputs is kept (until its state TTL), each
// new row is joined with the other side's, and outer sides count their
// matches: +I(row, NULLs) first, then -D(row, NULLs) and +I(row, match) when
// a partner arrives, and the reverse when the last partner is retracted.
// Inputs may be changelogs: -U/-D retract what +I/+U added.
//
// Each side's rows live in a state.Table keyed by the join key: a record is
// a distinct row with Count (identical copies), Matches (partner row
// instances joined with it, for outer sides), Time (last write) and, with
// a TTL, Expiry (last write + TTL). As Flink's state TTL (OnCreateAndWrite),
// a record's TTL starts again when it is written: created, its Count
// changed, or, on an outer side, its Matches; being read by a probe of the
// other side does not count. Rows not written for the TTL are expired at
// the start of each batch, by time bucket: they are gone for good.
//
// A row whose key has a NULL never matches (NULL = NULL is not true), and
// never probes the other side; a NULL in a null-safe key (IS NOT DISTINCT
// FROM, physical.Join.NullSafe) is a value like any other, and matches a
// NULL of the other side. An outer side keeps it all the same, under
// its key (whose encoding marks the NULL, so no probe of a non-NULL key
// finds it), as Flink does: retracting it must retract its padded row.
type joinOp struct {
	noLifecycle
	name   string
	nl, nr int
	side   [2]*joinSide
	cond   predFunc // residual condition over left ++ right; nil: true
	inner  bool
	// semi and anti make it a semi or anti join: it emits left rows only
	// (semiProcess).
	semi, anti bool
	out        collector
	c          *Counters
	clock      func() int64
	ttl        [2]int64 // ms; 0: forever
	store      *state.Store
	buf        row.Batch
	err        error
}

type joinSide struct {
	key   keyer
	outer bool // rows of this side are emitted padded when unmatched
	table *state.Table
}

func isAccumulate(k changelogmode.Kind) bool {
	return k == changelogmode.Insert || k == changelogmode.UpdateAfter
}

func (o *joinOp) emit(kind changelogmode.Kind, l, r []row.Value) {
	o.buf = append(o.buf, row.Row{Kind: kind, Vals: concat(l, o.nl, r, o.nr)})
}

// pair orders a row of side s and a row of the other side as left, right.
func pair(s int, mine, other []row.Value) ([]row.Value, []row.Value) {
	if s == 0 {
		return mine, other
	}
	return other, mine
}

func (o *joinOp) expiry(side int, now int64) int64 {
	if o.ttl[side] <= 0 {
		return state.NoExpiry
	}
	return min(now+o.ttl[side], state.NoExpiry-1)
}

// matches reports whether a partner record joins row vals of side s.
func (o *joinOp) matches(s int, vals []row.Value, m *state.Record) bool {
	if o.cond == nil {
		return true
	}
	l, r := pair(s, vals, m.Vals)
	ok, err := o.cond(concat(l, o.nl, r, o.nr))
	if err != nil && o.err == nil {
		o.err = err
	}
	return ok
}

func (o *joinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	now := o.clock()
	for i, s := range o.side {
		if o.ttl[i] > 0 {
			s.table.Expire(now, nil)
		}
	}
	me, other := o.side[port], o.side[1-port]
	o.buf = o.buf[:0]
	if o.semi || o.anti {
		if err := o.semiProcess(port, b, now); err != nil {
			return err
		}
		b = nil
	}
	for _, r := range b {
		key, null, err := me.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		kindOut := changelogmode.Insert
		if !isAccumulate(r.Kind) {
			kindOut = changelogmode.Delete
		}
		if o.inner {
			// An inner join keeps the kind of the change that caused it.
			kindOut = r.Kind
		}
		if isAccumulate(r.Kind) {
			partners := int64(0)
			if !null {
				other.table.Scan(key, func(m *state.Record) (keep, stop bool) {
					if !o.matches(port, r.Vals, m) {
						return true, false
					}
					if other.outer {
						// Its match count is written: its TTL starts again.
						m.Time, m.Expiry = now, o.expiry(1-port, now)
					}
					if other.outer && m.Matches == 0 {
						l, rr := pair(port, nil, m.Vals)
						for i := int64(0); i < m.Count; i++ {
							o.emit(changelogmode.Delete, l, rr)
						}
					}
					m.Matches++
					l, rr := pair(port, r.Vals, m.Vals)
					for i := int64(0); i < m.Count; i++ {
						o.emit(kindOut, l, rr)
					}
					partners += m.Count
					return true, false
				})
			}
			if partners == 0 && me.outer {
				l, rr := pair(port, r.Vals, nil)
				o.emit(changelogmode.Insert, l, rr)
			}
			// A row with a NULL key meets nothing, but an outer side keeps
			// it all the same: its padded row must be retracted with it.
			if !null || me.outer {
				o.keep(port, key, r.Vals, partners, now)
			}
			continue
		}
		// Retraction. As Flink's StreamingJoinOperator, what it emits does
		// not depend on whether this side still holds the row (its state may
		// have expired): the rows it makes with its partners, or its padded
		// row, are retracted all the same. One refinement: an outer partner
		// with no matches at all was never joined with this row (its padded
		// row is out instead), so it is left alone, where Flink would
		// retract a pair it never emitted and count the partner's matches
		// below zero.
		o.remove(port, key, r.Vals, now)
		partners := int64(0)
		if !null {
			other.table.Scan(key, func(m *state.Record) (keep, stop bool) {
				if !o.matches(port, r.Vals, m) || other.outer && m.Matches <= 0 {
					return true, false
				}
				if other.outer {
					m.Time, m.Expiry = now, o.expiry(1-port, now)
				}
				partners += m.Count
				l, rr := pair(port, r.Vals, m.Vals)
				for i := int64(0); i < m.Count; i++ {
					o.emit(kindOut, l, rr)
				}
				m.Matches--
				if other.outer && m.Matches == 0 {
					l, rr := pair(port, nil, m.Vals)
					for i := int64(0); i < m.Count; i++ {
						o.emit(changelogmode.Insert, l, rr)
					}
				}
				return true, false
			})
		}
		if partners == 0 && me.outer {
			l, rr := pair(port, r.Vals, nil)
			o.emit(changelogmode.Delete, l, rr)
		}
	}
	if o.err != nil {
		return o.err
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.side[0].table.Len() + o.side[1].table.Len())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// semiProcess is process for a semi or anti join, as Flink's
// StreamingSemiAntiJoinOperator. The left side's records count their
// matches (Matches, partner row instances, as an outer side's do); the
// right side's rows are kept to count them.
//
//   - a left row that arrives (+I/+U) is emitted, with its kind, when it
//     has a match (semi) or none (anti), and kept with its match count; its
//     retraction (-U/-D) is emitted when the row was out.
//   - a right row that arrives gives each matching left record one more
//     match; a record that had none is emitted +I (semi) or retracted -D
//     (anti), once per copy. A right retraction takes a match away; a
//     record left with none is retracted -D (semi) or emitted +I (anti).
//
// A row with a NULL key (outside a null-safe key) matches nothing: a left one is emitted by an anti
// join at once and never kept (its retraction needs no state either), a
// right one is dropped.
func (o *joinOp) semiProcess(port int, b row.Batch, now int64) error {
	me, other := o.side[port], o.side[1-port]
	emitLeft := func(kind changelogmode.Kind, vals []row.Value, n int64) {
		for i := int64(0); i < n; i++ {
			o.buf = append(o.buf, row.Row{Kind: kind, Vals: vals})
		}
	}
	for _, r := range b {
		key, null, err := me.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		acc := isAccumulate(r.Kind)
		if port == 0 {
			partners := int64(0)
			if !null {
				other.table.Scan(key, func(m *state.Record) (keep, stop bool) {
					if o.matches(0, r.Vals, m) {
						partners += m.Count
					}
					return true, false
				})
			}
			if (partners > 0) == o.semi {
				emitLeft(r.Kind, r.Vals, 1)
			}
			switch {
			case null:
			case acc:
				o.keep(0, key, r.Vals, partners, now)
			default:
				o.remove(0, key, r.Vals, now)
			}
			continue
		}
		if null {
			continue
		}
		if acc {
			o.keep(1, key, r.Vals, 0, now)
		} else {
			o.remove(1, key, r.Vals, now)
		}
		other.table.Scan(key, func(m *state.Record) (keep, stop bool) {
			if !o.matches(1, r.Vals, m) {
				return true, false
			}
			// Its match count is written: its TTL starts again.
			m.Time, m.Expiry = now, o.expiry(0, now)
			switch {
			case acc:
				if m.Matches == 0 {
					if o.semi {
						emitLeft(changelogmode.Insert, m.Vals, m.Count)
					} else {
						emitLeft(changelogmode.Delete, m.Vals, m.Count)
					}
				}
				m.Matches++
			case m.Matches > 0:
				m.Matches--
				if m.Matches == 0 {
					if o.semi {
						emitLeft(changelogmode.Delete, m.Vals, m.Count)
					} else {
						emitLeft(changelogmode.Insert, m.Vals, m.Count)
					}
				}
			}
			return true, false
		})
	}
	return nil
}

// keep adds one copy of a row of side s: to its record when it holds the
// same values, else as a new record.
func (o *joinOp) keep(s int, key []byte, vals []row.Value, matches, now int64) {
	t := o.side[s].table
	found := t.Find(key, vals, func(r *state.Record) bool {
		r.Count++
		r.Time, r.Expiry = now, o.expiry(s, now)
		return true
	})
	if !found {
		t.Append(key, state.Record{Vals: vals, Count: 1, Matches: matches, Time: now, Expiry: o.expiry(s, now)})
	}
}

// remove takes one copy of a row of side s out, if a record holds it (a
// record that keeps other copies is written: its TTL starts again).
func (o *joinOp) remove(s int, key []byte, vals []row.Value, now int64) {
	o.side[s].table.Find(key, vals, func(r *state.Record) bool {
		r.Count--
		r.Time, r.Expiry = now, o.expiry(s, now)
		return r.Count > 0
	})
}

// advance has nothing to fire: a regular join's output has no time
// attribute, and watermarks pass on only so that downstream operators and
// the progress line see time.
func (o *joinOp) advance(int64) error { return nil }

func (o *joinOp) counters() *Counters { return o.c }
