package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// session is one session of a key: [start, end) and its rows. With
// allowed lateness a session stays after it fired, until its horizon
// (end - 1 + lateness): last is the row emitted for it (nil: none yet),
// onTime says that its firing at end - 1 is still to come.
type session struct {
	start, end int64
	rows       [][]row.Value
	last       []row.Value
	onTime     bool
}

// sessionList is a key's open sessions, by start.
type sessionList struct {
	keys     []row.Value // the group's key values (window_start, window_end unset)
	sessions []session
}

// sessionCodec stores a sessionList.
type sessionCodec struct{}

// Append encodes l.
func (sessionCodec) Append(dst []byte, l *sessionList) []byte {
	dst = state.AppendValues(dst, l.keys)
	dst = putVarint(dst, int64(len(l.sessions)))
	for _, s := range l.sessions {
		dst = putVarint(dst, s.start)
		dst = putVarint(dst, s.end)
		dst = putVarint(dst, int64(len(s.rows)))
		for _, r := range s.rows {
			dst = state.AppendValues(dst, r)
		}
	}
	// What was emitted (allowed lateness), after the sessions, so that a
	// list written before it decodes as one without.
	for _, s := range l.sessions {
		flags := int64(0)
		if s.onTime {
			flags |= 1
		}
		if s.last != nil {
			flags |= 2
		}
		dst = putVarint(dst, flags)
		if s.last != nil {
			dst = state.AppendValues(dst, s.last)
		}
	}
	return dst
}

// Decode is the inverse of Append.
func (sessionCodec) Decode(b []byte) (*sessionList, error) {
	l := &sessionList{}
	var err error
	if l.keys, b, err = getValues(b); err != nil {
		return nil, err
	}
	var n int64
	if n, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(b)) {
		return nil, errShort
	}
	l.sessions = make([]session, n)
	for i := range l.sessions {
		s := &l.sessions[i]
		if s.start, b, err = getVarint(b); err != nil {
			return nil, err
		}
		if s.end, b, err = getVarint(b); err != nil {
			return nil, err
		}
		var m int64
		if m, b, err = getVarint(b); err != nil {
			return nil, err
		}
		if m < 0 || m > int64(len(b)) {
			return nil, errShort
		}
		s.rows = make([][]row.Value, m)
		for j := range s.rows {
			if s.rows[j], b, err = getValues(b); err != nil {
				return nil, err
			}
		}
	}
	if len(b) == 0 {
		return l, nil
	}
	for i := range l.sessions {
		s := &l.sessions[i]
		var flags int64
		if flags, b, err = getVarint(b); err != nil {
			return nil, err
		}
		s.onTime = flags&1 != 0
		if flags&2 != 0 {
			if s.last, b, err = getValues(b); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

// Size estimates l's memory.
func (sessionCodec) Size(l *sessionList) int64 {
	n := int64(64 + 24*len(l.keys))
	for _, s := range l.sessions {
		n += 48 + 24*int64(len(s.last))
		for _, r := range s.rows {
			n += 24 + int64(len(r))*24
			for _, v := range r {
				n += int64(len(v.Str()))
			}
		}
	}
	return n
}

// sessionAggOp aggregates session windows (Flink's session window
// aggregate, its MergingWindowAssigner): the window TVF gave each row the
// window [t, t + gap) of its own time t; here each group (the aggregate's
// keys without window_start and window_end) keeps its sessions, and a
// row's window merges with every session it touches (a.start <= b.end
// and a.end >= b.start, as Flink's TimeWindow.intersects), so a session
// spans from its first row to its last row's time + gap. A session is
// emitted when the watermark reaches its last millisecond (end - 1), with
// window_start and window_end set to its bounds; its rows are kept and
// aggregated when it fires.
//
// Without allowed lateness that is its one row (+I) and the session
// goes. With lateness ('table.exec.emit.allow-lateness') a session stays
// until its horizon, end - 1 + lateness. A row is late (counted and
// dead-lettered) when the window it would make has passed its horizon,
// as Flink's WindowOperator decides for merging windows: it touches no
// session in state, and its own window's horizon (without lateness, its
// end - 1) has passed the watermark; a row whose own window has passed
// but that touches a session still in state joins it. A row joins the
// sessions it touches, fired or not (a late update, counted, when one of
// them had fired, or, joining none, its own window had):
//
//   - when it falls inside one session and leaves its bounds as they
//     were, that session's result is updated: -U old, +U new at the end
//     of the batch (UPDATED) if it had fired, else nothing until it does;
//   - when it extends a session or merges several, each of them that was
//     emitted is retracted (-D: its window_start and window_end are no
//     longer a session's), and the merged session is emitted anew (+I):
//     at the end of the batch if its end has passed the watermark, else
//     when the watermark reaches it.
//
// At the horizon a session goes, emitted once more (FINAL) when the
// query selects WINDOW_FINALITY() or WINDOW_VERSION(). Final-only emits
// each session once, at its horizon: append-only. The output watermark is
// held back by the lateness, as the window aggregate's is.
type sessionAggOp struct {
	noLifecycle
	name     string
	key      keyer // the group keys without the window's
	specs    []*aggSpec
	nKeys    int // the aggregate's keys, window_start and window_end among them
	startKey int // where window_start is among the aggregate's keys
	endKey   int
	timeKey  int   // window_time's, or -1
	keyPos   []int // where each of key's values goes among the aggregate's keys
	startCol int   // window_start in the input (the row's own window)
	endCol   int
	timeCol  int
	store    *state.Store
	lists    *state.Map[*sessionList]
	// in is the operator's valve: the combined watermark is read from it,
	// never copied, so that a restored operator has its checkpoint's.
	in       inputs
	out      collector
	c        *Counters
	late     *lateWriter
	lateCols []connector.Column
	buf      row.Batch
	kept     map[string]*sessionList
	// lateness is the allowed lateness in ms; finalOnly emits at the
	// horizon only. finCol and verCol are the output columns of
	// WINDOW_FINALITY() and WINDOW_VERSION() (-1: none).
	lateness       int64
	finalOnly      bool
	finCol, verCol int
	// dirty are the keys whose fired sessions this batch changed, in
	// first-change order, each with the starts of those sessions.
	dirty      map[string][]int64
	dirtyOrder []string
	// procTime: the sessions are over a processing-time attribute; ends
	// holds a timer at each session's last millisecond (keyed by the
	// end), at which the clock fires every session that has ended, as
	// the watermark would (windowAggOp's procTime). procFired is the
	// clock at the last such firing: it counts as the watermark.
	procTime  bool
	ends      procTimers
	procFired int64
	endBytes  []byte
}

// horizon is the last watermark at which a session ending at end still
// takes rows: end - 1 plus the allowed lateness.
func (o *sessionAggOp) horizon(end int64) int64 {
	h := end - 1 + o.lateness
	if h < end-1 {
		return state.NoExpiry - 1
	}
	return min(h, state.NoExpiry-1)
}

// outputWatermark holds the output watermark back by the allowed lateness
// (see windowAggOp.outputWatermark).
func (o *sessionAggOp) outputWatermark(w int64) int64 {
	if o.lateness <= 0 || w == MaxWatermark {
		return w
	}
	if w < MinWatermark+o.lateness {
		return MinWatermark
	}
	return w - o.lateness
}

// updating reports whether a session is emitted before its horizon.
func (o *sessionAggOp) updating() bool { return o.lateness > 0 && !o.finalOnly }

// expiry is when the watermark next has something to do with l: the
// earliest firing still to come or horizon of its sessions.
func (o *sessionAggOp) expiry(l *sessionList) int64 {
	e := int64(state.NoExpiry - 1)
	for _, s := range l.sessions {
		if s.onTime {
			e = min(e, s.end-1)
		} else {
			e = min(e, o.horizon(s.end))
		}
	}
	return e
}

func (o *sessionAggOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *sessionAggOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	wm := o.in.watermark()
	if o.procTime {
		wm = max(wm, o.procFired)
	}
	o.buf = o.buf[:0]
	for _, r := range b {
		sv, ev := r.Vals[o.startCol], r.Vals[o.endCol]
		if sv.IsNull() || ev.IsNull() {
			o.c.NoTime.Add(1)
			if err := o.late.noTime(o.name, "no event time: "+colName(o.lateCols, o.endCol)+" is NULL", r, wm, o.lateCols, true); err != nil {
				return err
			}
			continue
		}
		start, end := sv.Int(), ev.Int()
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		l, ok := o.lists.Get(kb)
		if !ok {
			keys, err := o.key.values(r.Vals)
			if err != nil {
				return err
			}
			l = &sessionList{keys: keys}
		}
		// Merge with every session the row's window touches; their rows
		// keep the sessions' order, the new row last.
		merged := session{start: start, end: end}
		var kept, olds []session
		for _, s := range l.sessions {
			if s.start <= end && s.end >= start {
				merged.start, merged.end = min(merged.start, s.start), max(merged.end, s.end)
				merged.rows = append(merged.rows, s.rows...)
				olds = append(olds, s)
				continue
			}
			kept = append(kept, s)
		}
		if len(olds) == 0 && o.horizon(end) <= wm {
			// Late, as Flink's WindowOperator decides for merging
			// windows: the merged window (here the row's own, as it
			// touches no session in state) has passed its horizon. A row
			// that joins a session still in state is not late.
			o.c.Late.Add(1)
			if err := o.late.write(o.name, r, r.Vals[o.timeCol].Int(), wm, o.lateCols); err != nil {
				return err
			}
			continue
		}
		merged.rows = append(merged.rows, r.Vals)
		// A late update: a session it joins has fired, or, joining none,
		// its own window has (it is emitted at once).
		fired := len(olds) == 0 && end-1 <= wm
		for _, s := range olds {
			fired = fired || s.end-1 <= wm
		}
		if fired {
			o.c.LateUpdates.Add(1)
		}
		if len(olds) == 1 && olds[0].start == merged.start && olds[0].end == merged.end {
			// Inside one session: the same window, an updated result.
			merged.last, merged.onTime = olds[0].last, olds[0].onTime
		} else {
			// New bounds: what the merged sessions emitted is gone.
			for _, s := range olds {
				if s.last != nil {
					o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: s.last})
				}
			}
			merged.onTime = o.updating() && merged.end-1 > wm
		}
		if o.updating() && merged.end-1 <= wm {
			if o.dirty == nil {
				o.dirty = map[string][]int64{}
			}
			if _, ok := o.dirty[string(kb)]; !ok {
				o.dirtyOrder = append(o.dirtyOrder, string(kb))
			}
			o.dirty[string(kb)] = append(o.dirty[string(kb)], merged.start)
		}
		i, _ := slices.BinarySearchFunc(kept, merged.start, func(s session, t int64) int { return cmpInt64(s.start, t) })
		l.sessions = slices.Insert(kept, i, merged)
		o.lists.Put(kb, l, o.expiry(l))
		if o.procTime {
			o.ends.add(binary.BigEndian.AppendUint64(o.endBytes[:0], uint64(merged.end)), merged.end-1)
		}
	}
	if err := o.emitUpdates(wm); err != nil {
		return err
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.lists.Len())
	o.c.setStore(o.store)
	return o.pushFired()
}

// emitUpdates adds to o.buf the results of the fired sessions that late
// rows changed in this batch: +I for a session not emitted yet (a merged
// one), else -U old, +U new when its result changed (UPDATED).
func (o *sessionAggOp) emitUpdates(wm int64) error {
	for _, k := range o.dirtyOrder {
		starts := o.dirty[k]
		l, ok := o.lists.Get([]byte(k))
		if !ok {
			continue
		}
		for i := range l.sessions {
			s := &l.sessions[i]
			if !slices.Contains(starts, s.start) || s.end-1 > wm {
				continue
			}
			if err := o.emit(l.keys, s, finUpdated); err != nil {
				return err
			}
		}
		o.lists.Put([]byte(k), l, o.expiry(l))
	}
	clear(o.dirty)
	o.dirtyOrder = o.dirtyOrder[:0]
	return nil
}

// emit adds s's result to o.buf with finality fin: +I when nothing was
// emitted for it, else -U old, +U new when it changed (or, FINAL, when
// the query selects WINDOW_FINALITY() or WINDOW_VERSION()); s.last
// becomes it.
func (o *sessionAggOp) emit(keys []row.Value, s *session, fin row.Value) error {
	cur, err := o.fire(keys, *s)
	if err != nil {
		return err
	}
	if o.finCol >= 0 {
		cur[o.finCol] = fin
	}
	if o.verCol >= 0 {
		v := int64(1)
		if s.last != nil {
			v = s.last[o.verCol].Int() + 1
		}
		cur[o.verCol] = row.IntValue(v)
	}
	switch {
	case s.last == nil:
		o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: cur})
	case o.changed(s.last, cur) || fin.Equal(finFinal) && (o.finCol >= 0 || o.verCol >= 0):
		o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: s.last},
			row.Row{Kind: changelogmode.UpdateAfter, Vals: cur})
	default:
		return nil
	}
	s.last = cur
	return nil
}

// changed reports whether cur differs from last, WINDOW_FINALITY() and
// WINDOW_VERSION() aside.
func (o *sessionAggOp) changed(last, cur []row.Value) bool {
	for i := range cur {
		if i != o.finCol && i != o.verCol && !cur[i].Equal(last[i]) {
			return true
		}
	}
	return false
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// advance fires the sessions whose last millisecond wm has reached, and
// drops (after their last row) those whose horizon it has; a key's other
// sessions go back into state.
func (o *sessionAggOp) advance(wm int64) error {
	o.buf = o.buf[:0]
	var perr error
	if o.kept == nil {
		o.kept = map[string]*sessionList{}
	}
	o.lists.Expire(wm, func(k []byte, l *sessionList) {
		if perr != nil {
			return
		}
		var rest []session
		for _, s := range l.sessions {
			switch {
			case o.horizon(s.end) <= wm:
				if err := o.emit(l.keys, &s, finFinal); err != nil {
					perr = err
					return
				}
				continue
			case s.onTime && s.end-1 <= wm:
				s.onTime = false
				if err := o.emit(l.keys, &s, finPreliminary); err != nil {
					perr = err
					return
				}
			}
			rest = append(rest, s)
		}
		if len(rest) > 0 {
			o.kept[string(k)] = &sessionList{keys: l.keys, sessions: rest}
		}
		if len(o.buf) >= fireBatch {
			perr = o.pushFired()
		}
	})
	if perr != nil {
		return perr
	}
	for k, l := range o.kept {
		o.lists.Put([]byte(k), l, o.expiry(l))
		delete(o.kept, k)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.lists.Len())
	return o.pushFired()
}

// fire aggregates a session's rows into its output row.
func (o *sessionAggOp) fire(keys []row.Value, s session) ([]row.Value, error) {
	all := make([]row.Value, o.nKeys)
	for i, p := range o.keyPos {
		all[p] = keys[i]
	}
	all[o.startKey], all[o.endKey] = row.IntValue(s.start), row.IntValue(s.end)
	if o.timeKey >= 0 {
		all[o.timeKey] = row.IntValue(s.end - 1)
	}
	g := newGroup(all, o.specs)
	for _, r := range s.rows {
		if err := g.fold(o.specs, row.Row{Kind: changelogmode.Insert, Vals: r}); err != nil {
			return nil, err
		}
	}
	return g.output(), nil
}

func (o *sessionAggOp) pushFired() error { return pushFired(o.c, o.out, &o.buf) }

func (o *sessionAggOp) timed() bool { return o.procTime }

func (o *sessionAggOp) nextTimer() (int64, bool) { return o.ends.next() }

// onTimer fires the sessions over processing time that have ended by now:
// the clock passed the last millisecond of some, and every session up to
// now goes, as the watermark would fire it (so a session restored without
// its timer goes too).
func (o *sessionAggOp) onTimer(now int64) error {
	due := false
	if err := o.ends.due(now, func(string) error { due = true; return nil }); err != nil {
		return err
	}
	if !due {
		return nil
	}
	o.procFired = max(o.procFired, now)
	return o.advance(now)
}

func (o *sessionAggOp) counters() *Counters { return o.c }

func (b *builder) sessionAgg(x *physical.WindowAggregate, out collector) (operator, error) {
	specs, err := b.aggSpecs(&x.Aggregate)
	if err != nil {
		return nil, err
	}
	k, err := b.keyer(x.Session.Keys)
	if err != nil {
		return nil, err
	}
	s := x.Session
	op := &sessionAggOp{name: x.Name, key: k, specs: specs, nKeys: len(x.Keys), startKey: s.StartKey, endKey: s.EndKey,
		timeKey: s.TimeKey, keyPos: s.KeyPos, startCol: s.StartCol, endCol: x.EndCol, timeCol: x.TimeCol,
		out: out, lateCols: columns(x.InCols), lateness: x.Lateness, finalOnly: x.FinalOnly, finCol: -1, verCol: -1,
		procTime: x.ProcTime, procFired: MinWatermark}
	for i, c := range x.Aggs {
		switch c.Fn {
		case "WINDOW_FINALITY":
			op.finCol = len(x.Keys) + i
		case "WINDOW_VERSION":
			op.verCol = len(x.Keys) + i
		}
	}
	op.c = b.counters(op.name, &b.job.Operators)
	op.late = b.lateFor(x.Late)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.lists = state.NewMap(st, "sessions", sessionCodec{}, state.TableOptions{})
	return op, nil
}
