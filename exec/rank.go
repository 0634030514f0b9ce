package exec

import (
	"context"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// Ranking: Top-N (rankOp), deduplication (dedupOp) and window Top-N
// (windowRankOp), Flink's Rank, Deduplicate and WindowRank. Each runs
// keyed by the partition, so one partition's rows stay in one partition
// of the operator, in order.

// rankEntry is one row of a partition, with its sort key and its arrival
// number (rows that tie are ordered by it).
type rankEntry struct {
	seq  int64
	keys []row.Value
	vals []row.Value
}

// rankList is a partition's rows in rank order.
type rankList struct {
	next    int64 // the next arrival number
	entries []rankEntry
	// A window Top-N's: its window's end; with allowed lateness, whether
	// the window fired, and the rows it emitted (with their numbers), in
	// rank order.
	end   int64
	fired bool
	shown [][]row.Value
}

// ranker orders a partition's rows.
type ranker struct {
	order   keyer
	desc    []bool
	tieLast bool // rows that tie: the last arrived first
}

// less reports whether a ranks before b.
func (k *ranker) less(a, b *rankEntry) bool {
	for i, d := range k.desc {
		c := a.keys[i].Compare(b.keys[i])
		if d {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	if k.tieLast {
		return a.seq > b.seq
	}
	return a.seq < b.seq
}

// insert adds e at its place.
func (k *ranker) insert(l *rankList, e rankEntry) int {
	i, _ := slices.BinarySearchFunc(l.entries, &e, func(x rankEntry, y *rankEntry) int {
		if k.less(&x, y) {
			return -1
		}
		return 1
	})
	l.entries = slices.Insert(l.entries, i, e)
	return i
}

// entry makes the entry of a new row.
func (k *ranker) entry(l *rankList, vals []row.Value) (rankEntry, error) {
	keys, err := k.order.values(vals)
	if err != nil {
		return rankEntry{}, err
	}
	e := rankEntry{seq: l.next, keys: keys, vals: vals}
	l.next++
	return e, nil
}

// rankCodec stores a rankList: the next arrival number, then each entry's
// number, sort key and row.
type rankCodec struct{}

// Append encodes l.
func (rankCodec) Append(dst []byte, l *rankList) []byte {
	dst = putVarint(dst, l.next)
	dst = putVarint(dst, int64(len(l.entries)))
	for _, e := range l.entries {
		dst = putVarint(dst, e.seq)
		dst = state.AppendValues(dst, e.keys)
		dst = state.AppendValues(dst, e.vals)
	}
	if l.end != 0 || l.fired {
		// A window Top-N's, after the rows: a list written before it
		// decodes as one without.
		flags := int64(0)
		if l.fired {
			flags = 1
		}
		dst = putVarint(dst, flags)
		dst = putVarint(dst, l.end)
		dst = putVarint(dst, int64(len(l.shown)))
		for _, r := range l.shown {
			dst = state.AppendValues(dst, r)
		}
	}
	return dst
}

// Decode is the inverse of Append.
func (rankCodec) Decode(b []byte) (*rankList, error) {
	l := &rankList{}
	var n int64
	var err error
	if l.next, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if n, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(b)) {
		return nil, errShort
	}
	l.entries = make([]rankEntry, n)
	for i := range l.entries {
		e := &l.entries[i]
		if e.seq, b, err = getVarint(b); err != nil {
			return nil, err
		}
		if e.keys, b, err = getValues(b); err != nil {
			return nil, err
		}
		if e.vals, b, err = getValues(b); err != nil {
			return nil, err
		}
	}
	if len(b) == 0 {
		return l, nil
	}
	var flags int64
	if flags, b, err = getVarint(b); err != nil {
		return nil, err
	}
	l.fired = flags&1 != 0
	if l.end, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if n, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(b)) {
		return nil, errShort
	}
	l.shown = make([][]row.Value, n)
	for i := range l.shown {
		if l.shown[i], b, err = getValues(b); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Size estimates l's memory.
func (rankCodec) Size(l *rankList) int64 {
	n := int64(72 + 24*len(l.shown))
	for _, r := range l.shown {
		n += int64(len(r)) * 24
	}
	for _, e := range l.entries {
		n += 40 + int64(len(e.keys)+len(e.vals))*24
		for _, v := range e.vals {
			n += int64(len(v.Str()))
		}
	}
	return n
}

// withNumber returns vals with the row number appended (0 where the plan
// reads no number: the column only keeps the places of those after it).
func withNumber(vals []row.Value, n int64) []row.Value {
	out := make([]row.Value, len(vals)+1)
	copy(out, vals)
	out[len(vals)] = row.IntValue(n)
	return out
}

// rankOp is a Top-N (Flink's Rank with ROW_NUMBER): per partition it keeps
// the rows in rank order — the top End when the input is insert-only (a
// row pushed out can never come back), every row when it retracts — and
// after each input row emits how rows Start..End changed:
//
//	with the number   per number, -U(old row, n) +U(new row, n) when the
//	                  row at n changed; +I(row, n) when n filled; -D when it
//	                  emptied (Flink's RetractableTopNFunction)
//	without it        -D of each row that left the range, +I of each that
//	                  entered it
//
// A retraction takes out the first kept row equal to it; one that matches
// nothing (its partition expired) changes nothing. With a TTL a partition
// untouched that long (processing time) is forgotten.
type rankOp struct {
	noLifecycle
	name       string
	key        keyer
	rk         ranker
	start, end int64
	rankCol    bool
	keepAll    bool
	before     bool
	ttl        int64
	clock      func() int64
	store      *state.Store
	lists      *state.Map[*rankList]
	out        collector
	c          *Counters
	buf        row.Batch
	old        []rankEntry
}

func (o *rankOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	expiry := int64(state.NoExpiry)
	if o.ttl > 0 {
		now := o.clock()
		o.lists.Expire(now, nil)
		expiry = min(now+o.ttl, state.NoExpiry-1)
	}
	o.buf = o.buf[:0]
	for _, r := range b {
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		l, ok := o.lists.Get(kb)
		if !ok {
			if !isAccumulate(r.Kind) {
				continue // nothing to retract
			}
			l = &rankList{}
		}
		o.old = append(o.old[:0], o.window(l)...)
		if isAccumulate(r.Kind) {
			e, err := o.rk.entry(l, r.Vals)
			if err != nil {
				return err
			}
			if i := o.rk.insert(l, e); !o.keepAll && int64(i) >= o.end {
				l.entries = l.entries[:o.end] // below the top: it can never rise
				continue
			}
			if !o.keepAll && int64(len(l.entries)) > o.end {
				l.entries = l.entries[:o.end]
			}
		} else {
			i := slices.IndexFunc(l.entries, func(e rankEntry) bool { return sameValues(e.vals, r.Vals) })
			if i < 0 {
				continue
			}
			l.entries = slices.Delete(l.entries, i, i+1)
		}
		o.emit(o.old, o.window(l))
		if len(l.entries) == 0 {
			o.lists.Delete(kb)
		} else {
			o.lists.Put(kb, l, expiry)
		}
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.lists.Len())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// window is the entries numbered start..end.
func (o *rankOp) window(l *rankList) []rankEntry {
	lo, hi := o.start-1, min(o.end, int64(len(l.entries)))
	if lo >= hi {
		return nil
	}
	return l.entries[lo:hi]
}

// emit writes the changes from the range's rows before to after.
func (o *rankOp) emit(before, after []rankEntry) {
	if o.rankCol {
		for i := 0; i < max(len(before), len(after)); i++ {
			n := o.start + int64(i)
			switch {
			case i >= len(before):
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: withNumber(after[i].vals, n)})
			case i >= len(after):
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: withNumber(before[i].vals, n)})
			case before[i].seq != after[i].seq:
				if o.before {
					o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: withNumber(before[i].vals, n)})
				}
				o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateAfter, Vals: withNumber(after[i].vals, n)})
			}
		}
		return
	}
	for _, e := range before {
		if !slices.ContainsFunc(after, func(x rankEntry) bool { return x.seq == e.seq }) {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: withNumber(e.vals, 0)})
		}
	}
	for _, e := range after {
		if !slices.ContainsFunc(before, func(x rankEntry) bool { return x.seq == e.seq }) {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: withNumber(e.vals, 0)})
		}
	}
}

// sameValues reports whether two rows hold the same values.
func sameValues(a, b []row.Value) bool {
	return slices.EqualFunc(a, b, func(x, y row.Value) bool { return x.Equal(y) })
}

// advance has nothing to fire: watermarks pass through.
func (o *rankOp) advance(int64) error { return nil }

func (o *rankOp) counters() *Counters { return o.c }

// dedupOp keeps one row per partition (Flink's Deduplicate): the first or
// the last by the order's time attribute, as Flink's
// RowTimeDeduplicateFunction decides — keeping the first, a row replaces
// the kept one when its time is earlier; keeping the last, when its time is
// not earlier — or by arrival on processing time (the first row only;
// every row). A replacement is -U(old) +U(new); the first row +I.
type dedupOp struct {
	noLifecycle
	name     string
	key      keyer
	timeCol  keyer
	keepLast bool
	procTime bool
	before   bool
	ttl      int64
	clock    func() int64
	store    *state.Store
	rows     *state.Map[[]byte]
	out      collector
	c        *Counters
	buf      row.Batch
	enc      []byte
}

func (o *dedupOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	expiry := int64(state.NoExpiry)
	if o.ttl > 0 {
		now := o.clock()
		o.rows.Expire(now, nil)
		expiry = min(now+o.ttl, state.NoExpiry-1)
	}
	o.buf = o.buf[:0]
	for _, r := range b {
		if !isAccumulate(r.Kind) {
			return fmt.Errorf("deduplication got a %s row: its input must be insert-only", r.Kind)
		}
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		last, held := o.rows.Get(kb)
		if held {
			if !o.keepLast && o.procTime {
				continue // the first row stays
			}
			prev, _, err := state.DecodeValues(nil, last)
			if err != nil {
				return fmt.Errorf("state: %w", err)
			}
			if !o.procTime {
				pt, err := o.timeCol.values(prev)
				if err != nil {
					return err
				}
				ct, err := o.timeCol.values(r.Vals)
				if err != nil {
					return err
				}
				c := ct[0].Compare(pt[0])
				if o.keepLast && c < 0 || !o.keepLast && c >= 0 {
					continue
				}
			}
			if o.before {
				o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: withNumber(prev, 0)})
			}
			o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateAfter, Vals: withNumber(r.Vals, 0)})
		} else {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: withNumber(r.Vals, 0)})
		}
		o.enc = state.AppendValues(o.enc[:0], r.Vals)
		o.rows.Put(kb, slices.Clone(o.enc), expiry)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.rows.Len())
	o.c.setStore(o.store)
	if len(o.buf) == 0 {
		return nil
	}
	o.c.Out.Add(int64(len(o.buf)))
	return o.out.push(o.buf)
}

// advance has nothing to fire: watermarks pass through.
func (o *dedupOp) advance(int64) error { return nil }

func (o *dedupOp) counters() *Counters { return o.c }

// windowRankOp is a window Top-N (Flink's WindowRank, and its
// WindowDeduplicate): it keeps each partition's top End rows — the
// partition holds the window — until the watermark passes window_end,
// then emits rows Start..End once, insert-only, in rank order. A row whose
// window has already fired is late: counted and dead-lettered.
//
// With allowed lateness ('table.exec.emit.allow-lateness') a fired
// window's rows stay until its horizon, window_end - 1 + lateness, with
// the rows it emitted; a row that comes in between (a late update,
// counted) takes its place among them, and at the end of the batch each
// partition it changed emits the difference: with the row number, -U the
// row that was at a number and +U the one there now (+I where a number
// fills); without it, -D each row pushed out of Start..End and +I each
// row that entered. Only a row after the horizon is late. Final-only
// emits each window once, at its horizon. The output watermark is held
// back by the lateness.
type windowRankOp struct {
	noLifecycle
	name       string
	key        keyer
	rk         ranker
	start, end int64
	rankCol    bool
	endCol     int
	timeCol    int
	store      *state.Store
	lists      *state.Map[*rankList]
	in         inputs // the valve: the combined watermark, read, never copied
	out        collector
	c          *Counters
	late       *lateWriter
	lateCols   []connector.Column
	buf        row.Batch
	lateness   int64
	finalOnly  bool
	// kept holds the fired lists that stay until their horizon (advance);
	// dirty the fired partitions this batch changed, in order.
	kept       map[string]*rankList
	dirty      map[string]bool
	dirtyOrder []string
}

// horizon is the last watermark at which the window ending at end still
// takes rows.
func (o *windowRankOp) horizon(end int64) int64 {
	h := end - 1 + o.lateness
	if h < end-1 {
		return state.NoExpiry - 1
	}
	return min(h, state.NoExpiry-1)
}

// updating reports whether a window's rows are updated after it fired.
func (o *windowRankOp) updating() bool { return o.lateness > 0 && !o.finalOnly }

// expiry is when the watermark next has something to do with l: its
// firing, or once fired (or final-only) its horizon.
func (o *windowRankOp) expiry(l *rankList) int64 {
	if l.fired || !o.updating() {
		return o.horizon(l.end)
	}
	return l.end - 1
}

// outputWatermark holds the output watermark back by the allowed lateness
// (see windowAggOp.outputWatermark).
func (o *windowRankOp) outputWatermark(w int64) int64 {
	if o.lateness <= 0 || w == MaxWatermark {
		return w
	}
	if w < MinWatermark+o.lateness {
		return MinWatermark
	}
	return w - o.lateness
}

func (o *windowRankOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *windowRankOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	wm := o.in.watermark()
	for _, r := range b {
		ev := r.Vals[o.endCol]
		if ev.IsNull() {
			o.c.NoTime.Add(1)
			if err := o.late.noTime(o.name, "no event time: "+colName(o.lateCols, o.endCol)+" is NULL", r, wm, o.lateCols, true); err != nil {
				return err
			}
			continue
		}
		end := ev.Int()
		if o.horizon(end) <= wm {
			o.c.Late.Add(1)
			if err := o.late.write(o.name, r, r.Vals[o.timeCol].Int(), wm, o.lateCols); err != nil {
				return err
			}
			continue
		}
		if end-1 <= wm {
			o.c.LateUpdates.Add(1) // within the lateness
		}
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		l, ok := o.lists.Get(kb)
		if !ok {
			l = &rankList{end: end}
		}
		e, err := o.rk.entry(l, r.Vals)
		if err != nil {
			return err
		}
		o.rk.insert(l, e)
		if int64(len(l.entries)) > o.end {
			l.entries = l.entries[:o.end]
		}
		if end-1 <= wm && o.updating() && !o.dirty[string(kb)] {
			if o.dirty == nil {
				o.dirty = map[string]bool{}
			}
			o.dirty[string(kb)] = true
			o.dirtyOrder = append(o.dirtyOrder, string(kb))
		}
		o.lists.Put(kb, l, o.expiry(l))
	}
	o.buf = o.buf[:0]
	for _, k := range o.dirtyOrder {
		l, ok := o.lists.Get([]byte(k))
		if !ok {
			continue
		}
		// A partition whose first row came late has not fired: it
		// emits all its rows now (+I), as its firing would have.
		now := o.rows(l)
		o.diff(l.shown, now)
		l.shown, l.fired = now, true
		o.lists.Put([]byte(k), l, o.expiry(l))
	}
	clear(o.dirty)
	o.dirtyOrder = o.dirtyOrder[:0]
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.lists.Len())
	o.c.setStore(o.store)
	return o.pushFired()
}

// rows are the rows Start..End of l as they are emitted.
func (o *windowRankOp) rows(l *rankList) [][]row.Value {
	var out [][]row.Value
	for i := o.start - 1; i < min(o.end, int64(len(l.entries))); i++ {
		n := i + 1
		if !o.rankCol {
			n = 0
		}
		out = append(out, withNumber(l.entries[i].vals, n))
	}
	return out
}

// diff adds to o.buf what turns the rows emitted, old, into now: by
// number (-U/+U, +I where a number fills, -D where one empties) when the
// number is output, else as sets (-D the rows that left, +I those that
// came).
func (o *windowRankOp) diff(old, now [][]row.Value) {
	if o.rankCol {
		for i := 0; i < max(len(old), len(now)); i++ {
			switch {
			case i >= len(old):
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: now[i]})
			case i >= len(now):
				o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: old[i]})
			case !valuesEqual(old[i], now[i]):
				o.buf = append(o.buf, row.Row{Kind: changelogmode.UpdateBefore, Vals: old[i]},
					row.Row{Kind: changelogmode.UpdateAfter, Vals: now[i]})
			}
		}
		return
	}
	used := make([]bool, len(now))
	for _, r := range old {
		found := false
		for j, n := range now {
			if !used[j] && valuesEqual(r, n) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Delete, Vals: r})
		}
	}
	for j, n := range now {
		if !used[j] {
			o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: n})
		}
	}
}

// advance fires the windows whose last millisecond wm has reached (with
// final-only, whose horizon it has), and drops those past their horizon.
func (o *windowRankOp) advance(wm int64) error {
	o.buf = o.buf[:0]
	if o.kept == nil {
		o.kept = map[string]*rankList{}
	}
	var perr error
	o.lists.Expire(wm, func(k []byte, l *rankList) {
		if perr != nil {
			return
		}
		if !l.fired {
			now := o.rows(l)
			o.diff(nil, now)
			if o.updating() && o.horizon(l.end) > wm {
				// Kept for late rows until the horizon.
				l.fired, l.shown = true, now
				o.kept[string(k)] = l
			}
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

func (o *windowRankOp) pushFired() error { return pushFired(o.c, o.out, &o.buf) }

func (o *windowRankOp) counters() *Counters { return o.c }

// rank builds a Rank's operator.
func (b *builder) rank(x *physical.Rank, out collector) (operator, error) {
	k, err := b.keyer(x.Partition)
	if err != nil {
		return nil, err
	}
	var rk ranker
	for _, s := range x.Order {
		rk.desc = append(rk.desc, s.Desc)
	}
	if rk.order, err = b.keyer(sortExprs(x.Order)); err != nil {
		return nil, err
	}
	rk.tieLast = x.TieLast
	c := b.counters(x.Name, &b.job.Operators)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.Name, err)
	}
	switch x.Kind {
	case physical.Deduplicate:
		op := &dedupOp{name: x.Name, key: k, timeCol: rk.order, keepLast: x.KeepLast, procTime: x.ProcTime,
			before: x.UpdateBefore, ttl: x.TTL, clock: b.opts.Clock, store: st, out: out, c: c}
		op.rows = state.NewMap(st, "rows", state.BytesCodec{}, state.TableOptions{})
		return op, nil
	case physical.WindowRank:
		op := &windowRankOp{name: x.Name, key: k, rk: rk, start: x.Start, end: x.End, rankCol: x.RankCol,
			endCol: x.EndCol, timeCol: x.TimeCol, store: st, out: out, c: c,
			late: b.lateFor(x.Late), lateCols: columns(x.InCols), lateness: x.Lateness, finalOnly: x.FinalOnly}
		op.lists = state.NewMap(st, "windows", rankCodec{}, state.TableOptions{})
		return op, nil
	case physical.TopN:
		op := &rankOp{name: x.Name, key: k, rk: rk, start: x.Start, end: x.End, rankCol: x.RankCol,
			keepAll: x.KeepAll, before: x.UpdateBefore, ttl: x.TTL, clock: b.opts.Clock, store: st, out: out, c: c}
		op.lists = state.NewMap(st, "partitions", rankCodec{}, state.TableOptions{})
		return op, nil
	}
	return nil, fmt.Errorf("internal: unknown rank kind %q", x.Kind)
}

func sortExprs(keys []physical.SortKey) []expr.Expr {
	out := make([]expr.Expr, len(keys))
	for i, k := range keys {
		out[i] = k.Expr
	}
	return out
}

// valuesEqual reports whether two rows hold the same values.
func valuesEqual(a, b []row.Value) bool {
	return slices.EqualFunc(a, b, row.Value.Equal)
}
