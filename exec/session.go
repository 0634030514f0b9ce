package exec

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// session is one open session of a key: [start, end) and its rows.
type session struct {
	start, end int64
	rows       [][]row.Value
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
	return l, nil
}

// Size estimates l's memory.
func (sessionCodec) Size(l *sessionList) int64 {
	n := int64(64 + 24*len(l.keys))
	for _, s := range l.sessions {
		n += 48
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
// keys without window_start and window_end) keeps its open sessions, and
// a row's window merges with every session it touches (a.start <= b.end
// and a.end >= b.start, as Flink's TimeWindow.intersects), so a session
// spans from its first row to its last row's time + gap. A session is
// emitted once, when the watermark reaches its last millisecond (end - 1),
// with window_start and window_end set to its bounds; its rows are kept
// until then and aggregated when it fires. A row whose own window has
// already passed the watermark is late: counted and dead-lettered.
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
	wm       int64
	out      collector
	c        *Counters
	late     *lateWriter
	lateCols []connector.Column
	buf      row.Batch
	kept     map[string]*sessionList
}

func (o *sessionAggOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	for _, r := range b {
		sv, ev := r.Vals[o.startCol], r.Vals[o.endCol]
		if sv.IsNull() || ev.IsNull() {
			o.c.NoTime.Add(1)
			if err := o.late.noTime(o.name, "no event time: "+colName(o.lateCols, o.endCol)+" is NULL", r, o.wm, o.lateCols, true); err != nil {
				return err
			}
			continue
		}
		start, end := sv.Int(), ev.Int()
		if end-1 <= o.wm {
			o.c.Late.Add(1)
			if err := o.late.write(o.name, r, r.Vals[o.timeCol].Int(), o.wm, o.lateCols); err != nil {
				return err
			}
			continue
		}
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
		var kept []session
		for _, s := range l.sessions {
			if s.start <= end && s.end >= start {
				merged.start, merged.end = min(merged.start, s.start), max(merged.end, s.end)
				merged.rows = append(merged.rows, s.rows...)
				continue
			}
			kept = append(kept, s)
		}
		merged.rows = append(merged.rows, r.Vals)
		i, _ := slices.BinarySearchFunc(kept, merged.start, func(s session, t int64) int { return cmpInt64(s.start, t) })
		l.sessions = slices.Insert(kept, i, merged)
		o.lists.Put(kb, l, firstEnd(l)-1)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.lists.Len())
	o.c.setStore(o.store)
	return nil
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

// firstEnd is the earliest end of a key's sessions: the key's expiry.
func firstEnd(l *sessionList) int64 {
	e := l.sessions[0].end
	for _, s := range l.sessions[1:] {
		e = min(e, s.end)
	}
	return e
}

// advance fires the sessions whose last millisecond wm has reached; a
// key's later sessions go back into state.
func (o *sessionAggOp) advance(wm int64) error {
	o.wm = wm
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
			if s.end-1 > wm {
				rest = append(rest, s)
				continue
			}
			out, err := o.fire(l.keys, s)
			if err != nil {
				perr = err
				return
			}
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: out})
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
		o.lists.Put([]byte(k), l, firstEnd(l)-1)
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
		wm: MinWatermark, out: out, lateCols: columns(x.InCols)}
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
