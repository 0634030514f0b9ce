package exec

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/streamsql/streamsql/connector"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// windowJoinOp is a window join (Flink's): both inputs carry the same
// window (window_start, window_end) and the join keys include both, so a
// row only ever meets rows of its own window. Each row waits in state
// until the watermark reaches its window's last millisecond (window_end -
// 1); then the window is joined once: pairs that satisfy the rest of the
// condition, and, on an outer side, each row that met none, padded with
// NULLs. Then the window's rows leave state. A row whose window has
// already been joined is late: counted, written to the dead-letter file
// when there is one, and not joined. The output is insert-only.
//
// With allowed lateness a window's rows move at its firing from the
// side's table to its fired table, where they stay until the horizon,
// window_end - 1 + lateness; a row that comes in between joins the other
// side's fired rows of its window at once (each pair is emitted once: at
// the firing when both came before it, else when the later of the two
// comes), and stays for the partners that come later still. On an outer
// side a fired row remembers whether it met a partner (flagMatched): one
// that did not was emitted padded with NULLs, and the first late partner
// retracts that row (-D) before its pair (+I); a late row of an outer
// side that meets no partner is emitted padded at once, as the firing
// would have. So an outer window join with lateness emits [+I,-D]. The
// output watermark is held back by the lateness, so the late pairs are
// not late for the next operator.
type windowJoinOp struct {
	noLifecycle
	name   string
	nl, nr int
	side   [2]*wjSide
	cond   predFunc // the condition's non-equality rest; nil: none
	in     inputs
	out    collector
	c      *Counters
	store  *state.Store
	late   [2]*lateWriter
	lcols  [2][]connector.Column
	buf    row.Batch
	fired  []firedRow
	err    error
	// lateness is the allowed lateness in ms (0: none; then fired is
	// nil); moved collects a fired window's right rows for their fired
	// table.
	lateness int64
	// delay is final-only's ('table.exec.emit.final-only' with allowed
	// lateness; then lateness is 0): each window is joined once, delay ms
	// after its end, with every row that came before.
	delay     int64
	moved     []state.Record
	movedKeys [][]byte
}

type wjSide struct {
	table *state.Table
	// fired holds the rows of windows that fired until their horizon
	// (with lateness only).
	fired *state.Table
	key   keyer
	end   int // window_end's column
	outer bool
}

// firedRow is a left row of a window being joined.
type firedRow struct {
	key     []byte
	vals    []row.Value
	null    bool
	last    int64 // window_end - 1
	matched bool
}

// horizon is the last watermark at which a window whose last millisecond
// is last still takes rows.
func (o *windowJoinOp) horizon(last int64) int64 {
	if h := last + o.lateness + o.delay; h >= last {
		return h
	}
	return math.MaxInt64 - 1
}

// due is when a window whose last millisecond is last is joined: then,
// or final-only, at its horizon.
func (o *windowJoinOp) due(last int64) int64 {
	if o.delay > 0 {
		return o.horizon(last)
	}
	return last
}

// outputWatermark holds the output back by the lateness (see the type).
func (o *windowJoinOp) outputWatermark(w int64) int64 {
	hold := o.lateness + o.delay
	if hold <= 0 || w == MaxWatermark {
		return w
	}
	if w < MinWatermark+hold {
		return MinWatermark
	}
	return w - hold
}

// padded is a row of side port joined with NULLs for the other side.
func (o *windowJoinOp) padded(port int, vals []row.Value) []row.Value {
	if port == 0 {
		return concat(vals, o.nl, nil, o.nr)
	}
	return concat(nil, o.nl, vals, o.nr)
}

// flagNoKey marks a row whose join key has a NULL: it meets nothing.
const flagNoKey = 2

func (o *windowJoinOp) live() int64 {
	n := o.side[0].table.Len() + o.side[1].table.Len()
	if o.lateness > 0 {
		n += o.side[0].fired.Len() + o.side[1].fired.Len()
	}
	return n
}

func (o *windowJoinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	me := o.side[port]
	wm := o.in.watermark()
	o.buf = o.buf[:0]
	for _, r := range b {
		if r.Kind != changelogmode.Insert {
			return fmt.Errorf("a window join takes insert-only input, got a %s row", r.Kind)
		}
		ev := r.Vals[me.end]
		if ev.IsNull() {
			// No window (a window TVF never emits one, it counts the rows
			// without time itself): counted and dead-lettered.
			o.c.NoTime.Add(1)
			why := "no event time: " + colName(o.lcols[port], me.end) + " is NULL"
			if err := o.late[port].noTime(o.name, why, r, wm, o.lcols[port], true); err != nil {
				return err
			}
			continue
		}
		last := ev.Int() - 1
		if o.horizon(last) <= wm {
			o.c.Late.Add(1)
			if err := o.late[port].write(o.name, r, last, wm, o.lcols[port]); err != nil {
				return err
			}
			continue
		}
		key, null, err := me.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		if last <= wm && o.delay > 0 {
			// Final-only: within the lateness, joined at the horizon.
			o.c.LateUpdates.Add(1)
		}
		if last <= wm && o.lateness > 0 {
			// Within the lateness: it meets the other side's rows of its
			// fired window now, and waits for later ones.
			o.c.LateUpdates.Add(1)
			if null {
				if me.outer {
					o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: o.padded(port, r.Vals)})
				}
				continue
			}
			other := o.side[1-port]
			matched := false
			other.fired.Scan(key, func(m *state.Record) (keep, stop bool) {
				l, rt := r.Vals, m.Vals
				if port == 1 {
					l, rt = m.Vals, r.Vals
				}
				out := concat(l, o.nl, rt, o.nr)
				if o.cond != nil {
					ok, err := o.cond(out)
					if err != nil {
						o.err = err
						return true, true
					}
					if !ok {
						return true, false
					}
				}
				if other.outer && m.Flags&flagMatched == 0 {
					// It was emitted padded: that row is wrong now.
					o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: o.padded(1-port, m.Vals)})
					m.Flags |= flagMatched
				}
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: out})
				matched = true
				return true, false
			})
			if o.err != nil {
				return o.err
			}
			rec := state.Record{Vals: r.Vals, Time: last, Expiry: o.horizon(last)}
			if matched {
				rec.Flags = flagMatched
			} else if me.outer {
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: o.padded(port, r.Vals)})
			}
			me.fired.Append(key, rec)
			continue
		}
		rec := state.Record{Vals: r.Vals, Time: last, Expiry: o.due(last)}
		if null {
			if !me.outer {
				continue // it can meet nothing and is not emitted alone
			}
			rec.Flags = flagNoKey
		}
		me.table.Append(key, rec)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.live())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

func (o *windowJoinOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *windowJoinOp) counters() *Counters { return o.c }

// advance joins every window whose last millisecond the watermark w has
// reached.
func (o *windowJoinOp) advance(w int64) error {
	o.buf = o.buf[:0]
	left, right := o.side[0], o.side[1]
	// The left rows of the windows that end: the right side is probed for
	// each once they have all left the left table (Expire's key is only
	// valid in the callback; the decoded Vals are the callback's to keep).
	o.fired = o.fired[:0]
	left.table.Expire(w, func(key []byte, r *state.Record) {
		o.fired = append(o.fired, firedRow{key: slices.Clone(key), vals: r.Vals, null: r.Flags&flagNoKey != 0, last: r.Time})
	})
	for i := range o.fired {
		f := &o.fired[i]
		matched := false
		if !f.null {
			right.table.Scan(f.key, func(m *state.Record) (keep, stop bool) {
				if m.Flags&flagNoKey != 0 {
					return true, false
				}
				out := concat(f.vals, o.nl, m.Vals, o.nr)
				if o.cond != nil {
					ok, err := o.cond(out)
					if err != nil {
						o.err = err
						return true, true
					}
					if !ok {
						return true, false
					}
				}
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: out})
				matched = true
				if right.outer {
					m.Flags |= flagMatched
				}
				return true, false
			})
			if o.err != nil {
				return o.err
			}
		}
		if !matched && left.outer {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(f.vals, o.nl, nil, o.nr)})
		}
		f.matched = matched
	}
	right.table.Expire(w, func(key []byte, r *state.Record) {
		if right.outer && r.Flags&flagMatched == 0 {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(nil, o.nl, r.Vals, o.nr)})
		}
		if o.lateness > 0 && r.Flags&flagNoKey == 0 {
			// Kept for the late left rows (moved after Expire: no table
			// is written from inside another's callback).
			o.moved = append(o.moved, state.Record{Vals: r.Vals, Time: r.Time, Expiry: o.horizon(r.Time), Flags: r.Flags & flagMatched})
			o.movedKeys = append(o.movedKeys, slices.Clone(key))
		}
	})
	if o.lateness > 0 {
		// The fired windows' rows wait for late partners until their
		// horizon; those past it go.
		for i, m := range o.moved {
			right.fired.Append(o.movedKeys[i], m)
		}
		for _, f := range o.fired {
			if !f.null {
				rec := state.Record{Vals: f.vals, Time: f.last, Expiry: o.horizon(f.last)}
				if f.matched {
					rec.Flags = flagMatched
				}
				left.fired.Append(f.key, rec)
			}
		}
		clear(o.moved)
		o.moved = o.moved[:0]
		o.movedKeys = o.movedKeys[:0]
		left.fired.Expire(w, func([]byte, *state.Record) {})
		right.fired.Expire(w, func([]byte, *state.Record) {})
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.live())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}
