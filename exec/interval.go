package exec

import (
	"container/heap"
	"fmt"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// intervalJoinOp joins rows whose times lie within a bound, with Flink's
// TimeIntervalJoin semantics: a pair matches when Lower <= tl - tr <= Upper
// (inclusive) and the condition holds. A row waits in state only while a
// partner can still arrive: a left row until the watermark passes
// tl - Lower, a right row until it passes tr + Upper. An outer side's row
// that never matched is emitted padded with NULLs exactly once, when it
// leaves state, or at once when it arrives already past that point. The
// output is insert-only; the output watermark is held back by the bound.
type intervalJoinOp struct {
	name         string
	nl, nr       int
	lower, upper int64
	timeCol      [2]int // in each side's row
	side         [2]*ijSide
	cond         predFunc
	wm           *wmTracker
	delay        int64
	out          collector
	c            *Counters
	late         *lateWriter
	lateCols     [2][]Column
	expiry       ijHeap
	buf          row.Batch
	live         int64
}

type ijSide struct {
	key   keyer
	outer bool
	recs  map[string][]*ijRec
}

type ijRec struct {
	vals    []row.Value
	t       int64
	key     string
	side    int
	matched bool
	dead    bool
	expire  int64 // leaves state once the watermark reaches this
}

type ijHeap []*ijRec

func (h ijHeap) Len() int           { return len(h) }
func (h ijHeap) Less(i, j int) bool { return h[i].expire < h[j].expire }
func (h ijHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }

// Push implements heap.Interface; use heap.Push.
func (h *ijHeap) Push(x any) { *h = append(*h, x.(*ijRec)) }

// Pop implements heap.Interface; use heap.Pop.
func (h *ijHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return x
}

// expiryOf is the watermark at which a row of side s with time t can have
// no more partners: for a left row tl - Lower, for a right row tr + Upper.
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

func (o *intervalJoinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	me, other := o.side[port], o.side[1-port]
	wm := o.wm.cur
	o.buf = o.buf[:0]
	for _, r := range b {
		if r.Kind != changelogmode.Insert {
			return fmt.Errorf("%s: an interval join takes insert-only input, got a %s row", o.name, r.Kind)
		}
		tv := r.Vals[o.timeCol[port]]
		if tv.IsNull() {
			// A row without time can never be in a time bound: it joins
			// nothing, and an outer side emits it padded.
			if me.outer {
				l, rr := pair(port, r.Vals, nil)
				o.emit(changelogmode.Insert, l, rr)
			}
			continue
		}
		t := tv.Int()
		late := t <= wm
		key, null, err := me.key.key(r.Vals)
		if err != nil {
			return fmt.Errorf("%s: %w", o.name, err)
		}
		matched := false
		if !null {
			for _, m := range other.recs[key] {
				if m.dead {
					continue
				}
				var d int64 // tl - tr
				if port == 0 {
					d = t - m.t
				} else {
					d = m.t - t
				}
				if d < o.lower || d > o.upper {
					continue
				}
				l, rr := pair(port, r.Vals, m.vals)
				if o.cond != nil {
					ok, err := o.cond(concat(l, o.nl, rr, o.nr))
					if err != nil {
						return fmt.Errorf("%s: %w", o.name, err)
					}
					if !ok {
						continue
					}
				}
				o.emit(changelogmode.Insert, l, rr)
				matched = true
				m.matched = true
			}
		}
		exp := o.expiryOf(port, t)
		if late {
			o.c.Late.Add(1)
			if err := o.late.write(o.name, r, t, wm, o.lateCols[port]); err != nil {
				return err
			}
		}
		if exp > wm && !null {
			rec := &ijRec{vals: r.Vals, t: t, key: key, side: port, matched: matched, expire: exp}
			me.recs[key] = append(me.recs[key], rec)
			heap.Push(&o.expiry, rec)
			o.live++
		} else if !matched && me.outer {
			// No partner can arrive any more: padded at once.
			l, rr := pair(port, r.Vals, nil)
			o.emit(changelogmode.Insert, l, rr)
		}
	}
	o.c.setState(o.live)
	return o.flush()
}

func (o *intervalJoinOp) flush() error {
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

func (o *intervalJoinOp) watermark(port int, wm int64) error {
	w, ok := o.wm.update(port, wm)
	if !ok {
		return nil
	}
	o.c.Watermark.Store(w)
	o.buf = o.buf[:0]
	for o.expiry.Len() > 0 && o.expiry[0].expire <= w {
		rec := heap.Pop(&o.expiry).(*ijRec)
		s := o.side[rec.side]
		if !rec.matched && s.outer {
			l, rr := pair(rec.side, rec.vals, nil)
			o.emit(changelogmode.Insert, l, rr)
		}
		rec.dead = true
		o.live--
		recs := s.recs[rec.key]
		kept := recs[:0]
		for _, r := range recs {
			if !r.dead {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			delete(s.recs, rec.key)
		} else {
			s.recs[rec.key] = kept
		}
	}
	o.c.setState(o.live)
	if err := o.flush(); err != nil {
		return err
	}
	out := w
	if w != MaxWatermark {
		out = satAdd(w, -o.delay)
	}
	return o.out.watermark(out)
}

func (o *intervalJoinOp) end(port int) error {
	if !o.wm.finish(port) {
		return o.watermark(port, MaxWatermark)
	}
	if err := o.watermark(port, MaxWatermark); err != nil {
		return err
	}
	return o.out.end()
}
