package exec

import (
	"context"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// overRow is a row of an OVER partition with its time and arrival number.
type overRow struct {
	t, seq int64
	vals   []row.Value
}

// overPartition is an OVER aggregate's state for one partition: the rows
// the watermark has not passed yet (pending, by time then arrival), the
// rows already emitted that later frames still need (history), and for an
// UNBOUNDED PRECEDING frame the running aggregates.
type overPartition struct {
	next    int64
	pending []overRow
	history []overRow
	running *group
}

// overCodec stores an overPartition.
type overCodec struct{ groups groupCodec }

func appendOverRows(dst []byte, rows []overRow) []byte {
	dst = putVarint(dst, int64(len(rows)))
	for _, r := range rows {
		dst = putVarint(dst, r.t)
		dst = putVarint(dst, r.seq)
		dst = state.AppendValues(dst, r.vals)
	}
	return dst
}

func getOverRows(b []byte) ([]overRow, []byte, error) {
	n, b, err := getVarint(b)
	if err != nil {
		return nil, nil, err
	}
	if n < 0 || n > int64(len(b)) {
		return nil, nil, errShort
	}
	rows := make([]overRow, n)
	for i := range rows {
		if rows[i].t, b, err = getVarint(b); err != nil {
			return nil, nil, err
		}
		if rows[i].seq, b, err = getVarint(b); err != nil {
			return nil, nil, err
		}
		if rows[i].vals, b, err = getValues(b); err != nil {
			return nil, nil, err
		}
	}
	return rows, b, nil
}

// Append encodes p.
func (c overCodec) Append(dst []byte, p *overPartition) []byte {
	dst = putVarint(dst, p.next)
	dst = appendOverRows(dst, p.pending)
	dst = appendOverRows(dst, p.history)
	if p.running == nil {
		return append(dst, 0)
	}
	return c.groups.Append(append(dst, 1), p.running)
}

// Decode is the inverse of Append.
func (c overCodec) Decode(b []byte) (*overPartition, error) {
	p := &overPartition{}
	var err error
	if p.next, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if p.pending, b, err = getOverRows(b); err != nil {
		return nil, err
	}
	if p.history, b, err = getOverRows(b); err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errShort
	}
	if b[0] == 1 {
		if p.running, err = c.groups.Decode(b[1:]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Size estimates p's memory.
func (c overCodec) Size(p *overPartition) int64 {
	n := int64(96)
	for _, rows := range [][]overRow{p.pending, p.history} {
		for _, r := range rows {
			n += 40 + int64(len(r.vals))*24
			for _, v := range r.vals {
				n += int64(len(v.Str()))
			}
		}
	}
	return n
}

// overAggOp is an OVER aggregate on event time (Flink's
// RowTimeRowsBoundedPrecedingFunction, RowTimeRangeBoundedPrecedingFunction
// and their unbounded forms): rows wait per partition until the watermark
// passes their time, then leave in time order (arrival order among equal
// times), each with the aggregates of its frame:
//
//	ROWS n PRECEDING     the n rows before it and itself
//	RANGE d PRECEDING    every row with a time in [t - d, t], the rows of
//	                     the same time (peers) included: peers get the same
//	                     aggregates
//	UNBOUNDED PRECEDING  every row before it (ROWS) or up to its time
//	                     (RANGE), as running aggregates
//
// A row whose time is at or below the watermark when it comes is late:
// counted and dead-lettered, as Flink drops it.
//
// As a temporal sort (ORDER BY a time attribute, then maybe more keys: no
// partition, no aggregates, ROWS 0 PRECEDING) it emits every row once, when
// the watermark passes its time, the rows of one time sorted by the other
// keys (sortPeers); a row leaves the state as it is emitted.
//
// Ordered by a processing-time attribute (procTime), a row is emitted as
// it comes, after the rows that came before it in its partition (Flink's
// ProcTimeUnboundedPrecedingFunction and ProcTimeRowsBoundedPrecedingFunction);
// the watermark plays no part and nothing waits.
type overAggOp struct {
	noLifecycle
	name      string
	key       keyer
	specs     []*aggSpec
	timeCol   int
	rows      bool
	preceding int64
	procTime  bool
	store     *state.Store
	parts     *state.Map[*overPartition]
	in        inputs // the valve: the combined watermark, read, never copied
	out       collector
	c         *Counters
	late      *lateWriter
	lateCols  []connector.Column
	buf       row.Batch
	due       []dueOver
	// sortKey and sortDesc are a temporal sort's keys after the time
	// (sortDesc nil: none).
	sortKey  keyer
	sortDesc []bool
}

type dueOver struct {
	key []byte
	p   *overPartition
}

// expiryOf is when a partition next has rows to emit: its earliest
// pending time (NoExpiry: none).
func expiryOf(p *overPartition) int64 {
	if len(p.pending) == 0 {
		return state.NoExpiry
	}
	return p.pending[0].t
}

func (o *overAggOp) open(_ context.Context, in inputs) error {
	o.in = in
	return nil
}

func (o *overAggOp) process(_ int, b row.Batch) error {
	o.c.In.Add(int64(len(b)))
	if o.procTime {
		return o.processProcTime(b)
	}
	wm := o.in.watermark()
	for _, r := range b {
		t, why, ok := eventTime(r.Vals[o.timeCol], colName(o.lateCols, o.timeCol))
		if !ok {
			o.c.NoTime.Add(1)
			if err := o.late.noTime(o.name, why, r, wm, o.lateCols, true); err != nil {
				return err
			}
			continue
		}
		if t <= wm {
			o.c.Late.Add(1)
			if err := o.late.write(o.name, r, t, wm, o.lateCols); err != nil {
				return err
			}
			continue
		}
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		p, ok := o.parts.Get(kb)
		if !ok {
			p = &overPartition{}
		}
		x := overRow{t: t, seq: p.next, vals: r.Vals}
		p.next++
		i, _ := slices.BinarySearchFunc(p.pending, x, func(a, b overRow) int {
			if a.t != b.t {
				return cmpInt64(a.t, b.t)
			}
			return cmpInt64(a.seq, b.seq)
		})
		p.pending = slices.Insert(p.pending, i, x)
		o.parts.Put(kb, p, expiryOf(p))
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.parts.Len())
	o.c.setStore(o.store)
	return nil
}

// advance emits the rows whose time wm has reached, partition by
// partition, each partition's in time order.
func (o *overAggOp) advance(wm int64) error {
	o.due = o.due[:0]
	o.parts.Expire(wm, func(k []byte, p *overPartition) {
		o.due = append(o.due, dueOver{key: slices.Clone(k), p: p})
	})
	o.buf = o.buf[:0]
	for _, d := range o.due {
		if err := o.emit(d.p, wm); err != nil {
			return err
		}
		o.parts.Put(d.key, d.p, expiryOf(d.p))
		if len(o.buf) >= fireBatch {
			if err := o.pushFired(); err != nil {
				return err
			}
		}
	}
	clear(o.due)
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.parts.Len())
	return o.pushFired()
}

// emit emits a partition's pending rows up to wm.
func (o *overAggOp) emit(p *overPartition, wm int64) error {
	n := 0
	for n < len(p.pending) && p.pending[n].t <= wm {
		n++
	}
	ready := p.pending[:n]
	if o.sortDesc != nil {
		if err := o.sortPeers(ready); err != nil {
			return err
		}
	}
	for i := 0; i < len(ready); {
		// The rows of one time: each alone (ROWS), or together (RANGE).
		j := i + 1
		if !o.rows {
			for j < len(ready) && ready[j].t == ready[i].t {
				j++
			}
		}
		if err := o.emitPeers(p, ready[i:j]); err != nil {
			return err
		}
		i = j
	}
	p.pending = append(p.pending[:0:0], p.pending[n:]...)
	return nil
}

// sortPeers orders the rows of each time of ready (which is in time, then
// arrival order) by the ORDER BY keys after the time attribute, NULL first
// ascending and last descending; rows that tie keep their arrival order.
func (o *overAggOp) sortPeers(ready []overRow) error {
	for i := 0; i < len(ready); {
		j := i + 1
		for j < len(ready) && ready[j].t == ready[i].t {
			j++
		}
		if j-i > 1 {
			keys := make([][]row.Value, j-i)
			idx := make([]int, j-i)
			for k := range keys {
				v, err := o.sortKey.values(ready[i+k].vals)
				if err != nil {
					return err
				}
				keys[k], idx[k] = v, k
			}
			slices.SortStableFunc(idx, func(a, b int) int {
				for c, desc := range o.sortDesc {
					x := keys[a][c].Compare(keys[b][c])
					if desc {
						x = -x
					}
					if x != 0 {
						return x
					}
				}
				return 0
			})
			peers := slices.Clone(ready[i:j])
			for k, from := range idx {
				ready[i+k] = peers[from]
			}
		}
		i = j
	}
	return nil
}

// emitPeers emits rows of one partition that share their frame (one row,
// or the rows of one time over RANGE), after the rows before them, with
// the aggregates of that frame; it keeps what later frames need.
func (o *overAggOp) emitPeers(p *overPartition, peers []overRow) error {
	var res []row.Value
	if o.preceding < 0 {
		if p.running == nil {
			p.running = newGroup(nil, o.specs)
		}
		for _, r := range peers {
			if err := p.running.fold(o.specs, row.Row{Kind: changelogmode.Insert, Vals: r.vals}); err != nil {
				return err
			}
		}
		res = p.running.output()
	} else {
		p.history = append(p.history, peers...)
		frame := p.history
		if o.rows {
			frame = frame[max(0, len(frame)-int(o.preceding)-1):]
		} else {
			from := peers[0].t - o.preceding
			k := 0
			for k < len(frame) && frame[k].t < from {
				k++
			}
			frame = frame[k:]
		}
		p.history = append(p.history[:0:0], frame...)
		if o.rows && len(p.history) > int(o.preceding) {
			p.history = p.history[len(p.history)-int(o.preceding):]
		}
		g := newGroup(nil, o.specs)
		for _, r := range frame {
			if err := g.fold(o.specs, row.Row{Kind: changelogmode.Insert, Vals: r.vals}); err != nil {
				return err
			}
		}
		res = g.output()
	}
	for _, r := range peers {
		vals := make([]row.Value, 0, len(r.vals)+len(res))
		vals = append(append(vals, r.vals...), res...)
		o.buf = append(o.buf, row.Row{Kind: changelogmode.Insert, Vals: vals})
	}
	return nil
}

// processProcTime emits each row of b as it comes, ordered by processing
// time: arrival order, each row its own frame.
func (o *overAggOp) processProcTime(b row.Batch) error {
	o.buf = o.buf[:0]
	for _, r := range b {
		kb, _, err := o.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		p, ok := o.parts.Get(kb)
		if !ok {
			p = &overPartition{}
		}
		x := overRow{seq: p.next, vals: r.Vals}
		p.next++
		if err := o.emitPeers(p, []overRow{x}); err != nil {
			return err
		}
		o.parts.Put(kb, p, state.NoExpiry)
	}
	if err := o.store.Err(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	o.c.setState(o.parts.Len())
	o.c.setStore(o.store)
	return o.pushFired()
}

func (o *overAggOp) pushFired() error { return pushFired(o.c, o.out, &o.buf) }

func (o *overAggOp) counters() *Counters { return o.c }

func (b *builder) overAgg(x *physical.OverAggregate, out collector) (operator, error) {
	specs, err := b.aggSpecs(&physical.Aggregate{Aggs: x.Aggs})
	if err != nil {
		return nil, err
	}
	k, err := b.keyer(x.Partition)
	if err != nil {
		return nil, err
	}
	op := &overAggOp{name: x.Name, key: k, specs: specs, timeCol: x.TimeCol, rows: x.Rows, preceding: x.Preceding,
		procTime: x.ProcTime, out: out, lateCols: columns(x.InCols)}
	if len(x.SortKeys) > 0 {
		if op.sortKey, err = b.keyer(sortExprs(x.SortKeys)); err != nil {
			return nil, err
		}
		for _, k := range x.SortKeys {
			op.sortDesc = append(op.sortDesc, k.Desc)
		}
	}
	op.c = b.counters(op.name, &b.job.Operators)
	op.late = b.lateFor(x.Late)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.parts = state.NewMap(st, "partitions", overCodec{groups: groupCodec{specs: specs}}, state.TableOptions{})
	return op, nil
}
