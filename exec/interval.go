package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// intervalJoinOp joins rows whose times lie within a bound, with Flink's
// TimeIntervalJoin semantics: a pair matches when Lower <= tl - tr <= Upper
// (inclusive) and the condition holds. A row's bound is the last time a
// partner can have: tl - Lower for a left row, tr + Upper for a right row.
// A row is kept only when it arrives below its bound (the watermark W <
// bound), and then waits in state until the watermark passes its bound
// (W > bound, Flink's cleanup time bound + allowedLateness(0) + 1), so a
// late partner that arrives while W = bound still finds it. An outer side's
// row that never matched is emitted padded with NULLs exactly once, when it
// leaves state, or at once when it is not kept. The output is insert-only;
// the output watermark is held back by the bound and 1 ms, so that a
// padded row is never behind a watermark already sent.
//
// Rows wait in a state.Table per side: hot keys in memory, the rest
// spilled to Badger under the job's memory budget, expired by time bucket.
type intervalJoinOp struct {
	noLifecycle
	name         string
	nl, nr       int
	lower, upper int64
	timeCol      [2]int // in each side's row
	side         [2]*ijSide
	cond         predFunc
	in           inputs
	delay        int64
	out          collector
	c            *Counters
	late         [2]*lateWriter // per input
	lateCols     [2][]connector.Column
	store        *state.Store
	buf          row.Batch
	probeErr     error
}

type ijSide struct {
	key   keyer
	outer bool
	table *state.Table
}

// flagMatched marks a waiting row that has met a partner.
const flagMatched = 1

// expiryOf is a row's bound, the last time a partner can have: for a left
// row of time tl, tl - Lower; for a right row, tr + Upper. A row arriving
// when the watermark is at or past it is not kept; a kept row leaves when
// the watermark passes it.
func (o *intervalJoinOp) expiryOf(s int, t int64) int64 {
	if s == 0 {
		return satAdd(t, -o.lower)
	}
	return satAdd(t, o.upper)
}

// satAdd adds without wrapping around.
func satAdd(a, b int64) int64 {
	c := a + b
	if b > 0 && c < a {
		return MaxWatermark
	}
	if b < 0 && c > a {
		return MinWatermark
	}
	return c
}

func (o *intervalJoinOp) emit(kind changelogmode.Kind, l, r []row.Value) {
	o.buf = append(o.buf, row.Row{Kind: kind, Vals: concat(l, o.nl, r, o.nr)})
}

func (o *intervalJoinOp) live() int64 { return o.side[0].table.Len() + o.side[1].table.Len() }

func (o *intervalJoinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	me, other := o.side[port], o.side[1-port]
	wm := o.in.watermark()
	o.buf = o.buf[:0]
	for _, r := range b {
		if r.Kind != changelogmode.Insert {
			return fmt.Errorf("an interval join takes insert-only input, got a %s row", r.Kind)
		}
		t, why, ok := eventTime(r.Vals[o.timeCol[port]], colName(o.lateCols[port], o.timeCol[port]))
		if !ok {
			// A row without a time can never be in a time bound: it joins
			// nothing, and an outer side emits it padded. Counted either
			// way; dead-lettered when dropped.
			o.c.NoTime.Add(1)
			if err := o.late[port].noTime(o.name, why, r, wm, o.lateCols[port], !me.outer); err != nil {
				return err
			}
			if me.outer {
				l, rr := pair(port, r.Vals, nil)
				o.emit(changelogmode.Insert, l, rr)
			}
			continue
		}
		late := t <= wm
		key, null, err := me.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		matched := false
		if !null {
			other.table.Scan(key, func(m *state.Record) (keep, stop bool) {
				var d int64 // tl - tr
				if port == 0 {
					d = t - m.Time
				} else {
					d = m.Time - t
				}
				if d < o.lower || d > o.upper {
					return true, false
				}
				l, rr := pair(port, r.Vals, m.Vals)
				if o.cond != nil {
					ok, err := o.cond(concat(l, o.nl, rr, o.nr))
					if err != nil {
						o.probeErr = err
						return true, true
					}
					if !ok {
						return true, false
					}
				}
				o.emit(changelogmode.Insert, l, rr)
				matched = true
				if other.outer {
					// Only an outer side needs the bit; leaving an inner
					// side's record unchanged keeps it clean, so a key read
					// back from Badger is dropped again without a write.
					m.Flags |= flagMatched
				}
				return true, false
			})
			if o.probeErr != nil {
				return o.probeErr
			}
		}
		exp := o.expiryOf(port, t)
		if late {
			o.c.Late.Add(1)
			if err := o.late[port].write(o.name, r, t, wm, o.lateCols[port]); err != nil {
				return err
			}
		}
		if exp > wm && !null {
			// Expire(w) frees Expiry <= w: this one when w > exp.
			rec := state.Record{Vals: r.Vals, Time: t, Expiry: min(satAdd(exp, 1), state.NoExpiry-1)}
			if matched && me.outer {
				rec.Flags = flagMatched
			}
			me.table.Append(key, rec)
		} else if !matched && me.outer {
			// No partner can arrive any more: padded at once.
			l, rr := pair(port, r.Vals, nil)
			o.emit(changelogmode.Insert, l, rr)
		}
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.live())
	o.c.setStore(o.store)
	return o.flush()
}

func (o *intervalJoinOp) flush() error {
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

func (o *intervalJoinOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *intervalJoinOp) counters() *Counters { return o.c }

// advance fires what the operator's new watermark w releases.
func (o *intervalJoinOp) advance(w int64) error {
	o.buf = o.buf[:0]
	var perr error
	for i, s := range o.side {
		if !s.outer {
			// An inner side's rows just leave: no callback, so the store
			// need not decode them.
			s.table.Expire(w, nil)
			continue
		}
		// Padded rows go downstream a batch at a time from inside the
		// expiry (downstream operators have stores of their own), so
		// expiring a large spilled side never holds its output whole.
		s.table.Expire(w, func(_ []byte, r *state.Record) {
			if r.Flags&flagMatched == 0 && perr == nil {
				l, rr := pair(i, r.Vals, nil)
				o.emit(changelogmode.Insert, l, rr)
				if len(o.buf) >= fireBatch {
					perr = o.flush()
					clear(o.buf)
					o.buf = o.buf[:0]
				}
			}
		})
	}
	if perr != nil {
		return perr
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.live())
	o.c.setStore(o.store)
	return o.flush()
}

// outputWatermark holds the output watermark back by the time bound (as
// Flink's KeyedCoProcessOperatorWithWatermarkDelay): a row at its bound b
// leaves (padded) at w = b + 1, so the watermark sent at w = b must be
// below every such row's time.
func (o *intervalJoinOp) outputWatermark(w int64) int64 {
	if w == MaxWatermark {
		return w
	}
	return satAdd(w, -o.delay-1)
}
