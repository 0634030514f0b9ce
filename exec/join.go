package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/row"
)

// joinOp is a regular (unbounded) stream-stream join with Flink's
// semantics: every row of both inputs is kept (until its state TTL), each
// new row is joined with the other side's, and outer sides count their
// matches: +I(row, NULLs) first, then -D(row, NULLs) and +I(row, match) when
// a partner arrives, and the reverse when the last partner is retracted.
// Inputs may be changelogs: -U/-D retract what +I/+U added.
type joinOp struct {
	name       string
	nl, nr     int
	side       [2]*joinSide
	cond       predFunc // residual condition over left ++ right; nil: true
	inner      bool
	wm         *wmTracker
	out        collector
	c          *Counters
	clock      func() int64
	ttl        [2]int64 // ms; 0: forever
	lastSweep  int64
	buf        row.Batch
	stateCount int64
}

type joinSide struct {
	key   keyer
	outer bool // rows of this side are emitted padded when unmatched
	recs  map[string][]*joinRec
}

type joinRec struct {
	vals    []row.Value
	count   int // how many times this exact row is held
	matches int // partner row instances currently joined with it (outer sides)
	access  int64
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

func (o *joinOp) matches(s int, vals []row.Value, recs []*joinRec, now int64) ([]*joinRec, error) {
	ttl := o.ttl[1-s]
	if o.cond == nil && ttl == 0 {
		return recs, nil
	}
	var out []*joinRec
	for _, m := range recs {
		if ttl > 0 && now-m.access >= ttl {
			continue // expired: as good as gone, even before the sweep frees it
		}
		if o.cond == nil {
			out = append(out, m)
			continue
		}
		l, r := pair(s, vals, m.vals)
		ok, err := o.cond(concat(l, o.nl, r, o.nr))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

func (o *joinOp) process(port int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	now := o.clock()
	me, other := o.side[port], o.side[1-port]
	o.buf = o.buf[:0]
	for _, r := range b {
		key, null, err := me.key.key(r.Vals)
		if err != nil {
			return fmt.Errorf("%s: %w", o.name, err)
		}
		acc := isAccumulate(r.Kind)
		var ms []*joinRec
		if !null {
			ms, err = o.matches(port, r.Vals, other.recs[key], now)
			if err != nil {
				return fmt.Errorf("%s: %w", o.name, err)
			}
		}
		for _, m := range ms {
			m.access = now
		}
		kindOut := changelogmode.Insert
		if !acc {
			kindOut = changelogmode.Delete
		}
		if o.inner {
			// An inner join keeps the kind of the change that caused it.
			kindOut = r.Kind
		}
		if acc {
			if len(ms) == 0 && me.outer {
				l, rr := pair(port, r.Vals, nil)
				o.emit(changelogmode.Insert, l, rr)
			}
			for _, m := range ms {
				if other.outer && m.matches == 0 {
					l, rr := pair(port, nil, m.vals)
					for i := 0; i < m.count; i++ {
						o.emit(changelogmode.Delete, l, rr)
					}
				}
				m.matches++
				l, rr := pair(port, r.Vals, m.vals)
				for i := 0; i < m.count; i++ {
					o.emit(kindOut, l, rr)
				}
			}
			if !null {
				n := 0
				for _, m := range ms {
					n += m.count
				}
				o.store(me, key, r.Vals, n, now)
			}
			continue
		}
		// Retraction.
		if !null && !o.remove(me, key, r.Vals, now) {
			// Retracting a row we do not hold (expired by TTL, or never
			// seen): Flink emits nothing for it either.
			continue
		}
		if len(ms) == 0 && me.outer {
			l, rr := pair(port, r.Vals, nil)
			o.emit(changelogmode.Delete, l, rr)
		}
		for _, m := range ms {
			l, rr := pair(port, r.Vals, m.vals)
			for i := 0; i < m.count; i++ {
				o.emit(kindOut, l, rr)
			}
			m.matches--
			if other.outer && m.matches <= 0 {
				m.matches = 0
				l, rr := pair(port, nil, m.vals)
				for i := 0; i < m.count; i++ {
					o.emit(changelogmode.Insert, l, rr)
				}
			}
		}
	}
	o.sweep(now)
	o.c.setState(o.stateCount)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// expired reports whether a record of side i outlived its TTL: it is as
// good as gone even before a sweep frees it.
func (o *joinOp) expired(i int, r *joinRec, now int64) bool {
	return o.ttl[i] > 0 && now-r.access >= o.ttl[i]
}

func (o *joinOp) store(s *joinSide, key string, vals []row.Value, matches int, now int64) {
	for _, r := range s.recs[key] {
		if sameVals(r.vals, vals) {
			if o.expired(o.sideIndex(s), r, now) {
				// The old copies expired: this row starts afresh.
				r.count, r.matches = 0, matches
			}
			r.count++
			r.access = now
			return
		}
	}
	s.recs[key] = append(s.recs[key], &joinRec{vals: vals, count: 1, matches: matches, access: now})
	o.stateCount++
}

func (o *joinOp) sideIndex(s *joinSide) int {
	if s == o.side[0] {
		return 0
	}
	return 1
}

func (o *joinOp) remove(s *joinSide, key string, vals []row.Value, now int64) bool {
	recs := s.recs[key]
	for i, r := range recs {
		if !sameVals(r.vals, vals) {
			continue
		}
		if o.expired(o.sideIndex(s), r, now) {
			// Retracting a row that expired: it is gone already, and so are
			// its results as far as this join is concerned. Free it now.
			recs = append(recs[:i], recs[i+1:]...)
			o.stateCount--
			if len(recs) == 0 {
				delete(s.recs, key)
			} else {
				s.recs[key] = recs
			}
			return false
		}
		r.count--
		if r.count == 0 {
			recs = append(recs[:i], recs[i+1:]...)
			o.stateCount--
			if len(recs) == 0 {
				delete(s.recs, key)
			} else {
				s.recs[key] = recs
			}
		}
		return true
	}
	return false
}

// sweep frees rows not accessed for their side's TTL. It scans the state at
// most ten times per TTL.
func (o *joinOp) sweep(now int64) {
	minTTL := int64(0)
	for _, t := range o.ttl {
		if t > 0 && (minTTL == 0 || t < minTTL) {
			minTTL = t
		}
	}
	if minTTL == 0 || now-o.lastSweep < max(minTTL/10, 1) {
		return
	}
	o.lastSweep = now
	for i, s := range o.side {
		ttl := o.ttl[i]
		if ttl == 0 {
			continue
		}
		for k, recs := range s.recs {
			kept := recs[:0]
			for _, r := range recs {
				if now-r.access < ttl {
					kept = append(kept, r)
				} else {
					o.stateCount--
				}
			}
			if len(kept) == 0 {
				delete(s.recs, k)
			} else {
				s.recs[k] = kept
			}
		}
	}
}

func (o *joinOp) watermark(port int, wm int64) error {
	// A regular join's output has no time attribute: watermarks pass on
	// only so that downstream operators and the progress line see time.
	if w, ok := o.wm.update(port, wm); ok {
		o.c.Watermark.Store(w)
		return o.out.watermark(w)
	}
	return nil
}

func (o *joinOp) end(port int) error {
	if !o.wm.finish(port) {
		return o.watermark(port, MaxWatermark)
	}
	return o.out.end()
}
