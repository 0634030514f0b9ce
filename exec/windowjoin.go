package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"slices"

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
}

type wjSide struct {
	table *state.Table
	key   keyer
	end   int // window_end's column
	outer bool
}

// firedRow is a left row of a window being joined.
type firedRow struct {
	key  []byte
	vals []row.Value
	null bool
}

// flagNoKey marks a row whose join key has a NULL: it meets nothing.
const flagNoKey = 2

func (o *windowJoinOp) live() int64 { return o.side[0].table.Len() + o.side[1].table.Len() }

func (o *windowJoinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	me := o.side[port]
	wm := o.in.watermark()
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
		if last <= wm {
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
		rec := state.Record{Vals: r.Vals, Time: last, Expiry: last}
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
	return nil
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
		o.fired = append(o.fired, firedRow{key: slices.Clone(key), vals: r.Vals, null: r.Flags&flagNoKey != 0})
	})
	for _, f := range o.fired {
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
	}
	right.table.Expire(w, func(_ []byte, r *state.Record) {
		if right.outer && r.Flags&flagMatched == 0 {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: concat(nil, o.nl, r.Vals, o.nr)})
		}
	})
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
