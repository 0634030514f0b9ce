package exec

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// Keyed operators run in P partitions, each in its own goroutine (a
// stage), hash-partitioned on the operator's key:
//
//	upstream ──► exchange ──batch──► stage 1: operator copy 1 ──┐
//	            (by key group) ...  stage P: operator copy P ──┴─► merge stage: union ─► downstream
//
// Batches, never single rows, cross goroutines, in order on one channel per
// stage; watermarks and ends are broadcast to every partition, and the merge
// takes the minimum of the partitions' watermarks. One key's changes stay in
// one partition, in order.

// stage is a goroutine that runs the operators messages are addressed to.
type stage struct {
	ch chan stageMsg
	// ctx is the running job's context (set by Run before any stage
	// starts): a send to the stage gives up when it ends.
	ctx context.Context
	// timers are those of the operators the stage runs (nil: none).
	timers *timerLoop
}

type stageMsg struct {
	dest  collector
	kind  msgKind
	batch row.Batch
	wm    int64
	idle  bool
	bar   *barrier
}

func (s *stage) run(ctx context.Context, errc chan<- error) {
	defer func() {
		if r := recover(); r != nil {
			select {
			case errc <- fmt.Errorf("internal error: %v (please report it with the job file)", r):
			case <-ctx.Done():
			}
		}
	}()
	for {
		select {
		case m := <-s.ch:
			var err error
			switch m.kind {
			case msgBatch:
				err = m.dest.push(m.batch)
			case msgWatermark:
				err = m.dest.watermark(m.wm)
			case msgIdle:
				err = m.dest.idle(m.idle)
			case msgEnd:
				err = m.dest.end()
			case msgBarrier:
				err = m.dest.barrier(m.bar)
			case msgErr:
			}
			if err != nil {
				select {
				case errc <- err:
				case <-ctx.Done():
				}
				return
			}
		case <-s.timers.wait():
			if err := s.timers.fire(); err != nil {
				select {
				case errc <- err:
				case <-ctx.Done():
				}
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// chanCollector hands calls to a collector running in another stage.
type chanCollector struct {
	st   *stage
	dest collector
}

func (c chanCollector) send(m stageMsg) error {
	select {
	case c.st.ch <- m:
		return nil
	case <-c.st.ctx.Done():
		return c.st.ctx.Err()
	}
}

func (c chanCollector) push(b row.Batch) error {
	// The sender may reuse its slice once push returns: copy it.
	cp := make(row.Batch, len(b))
	copy(cp, b)
	return c.send(stageMsg{dest: c.dest, kind: msgBatch, batch: cp})
}
func (c chanCollector) watermark(wm int64) error {
	return c.send(stageMsg{dest: c.dest, kind: msgWatermark, wm: wm})
}
func (c chanCollector) idle(idle bool) error {
	return c.send(stageMsg{dest: c.dest, kind: msgIdle, idle: idle})
}
func (c chanCollector) end() error { return c.send(stageMsg{dest: c.dest, kind: msgEnd}) }
func (c chanCollector) barrier(b *barrier) error {
	return c.send(stageMsg{dest: c.dest, kind: msgBarrier, bar: b})
}

// exchange splits batches among partitions by key group: a key's bytes
// hash to one of maxParallelism key groups (state.KeyGroup), and partition
// i of P owns a contiguous range of them (state.KeyGroupPartition, Flink's
// KeyGroupRangeAssignment). A checkpoint's state can then be split again
// by key group when the job restarts at another parallelism: each
// partition restores the key groups of its range (restoreState).
type exchange struct {
	parts []collector
	key   keyer
	bufs  []row.Batch
	// route is the partition of each key group.
	route []int32
	maxP  int
}

// newExchange makes the exchange of an input of a keyed operator in
// parts partitions, whose key is k.
func newExchange(k keyer, parts, maxP int) *exchange {
	e := &exchange{key: k, bufs: make([]row.Batch, parts), route: make([]int32, maxP), maxP: maxP}
	for kg := range e.route {
		e.route[kg] = int32(state.KeyGroupPartition(kg, parts, maxP))
	}
	return e
}

func (e *exchange) push(b row.Batch) error {
	for _, r := range b {
		k, _, err := e.key.keyBytes(r.Vals)
		if err != nil {
			return err
		}
		i := e.route[state.KeyGroup(k, e.maxP)]
		e.bufs[i] = append(e.bufs[i], r)
	}
	for i, buf := range e.bufs {
		if len(buf) == 0 {
			continue
		}
		if err := e.parts[i].push(buf); err != nil {
			return err
		}
		e.bufs[i] = buf[:0]
	}
	return nil
}

func (e *exchange) watermark(wm int64) error {
	for _, p := range e.parts {
		if err := p.watermark(wm); err != nil {
			return err
		}
	}
	return nil
}

func (e *exchange) idle(idle bool) error {
	for _, p := range e.parts {
		if err := p.idle(idle); err != nil {
			return err
		}
	}
	return nil
}

func (e *exchange) barrier(b *barrier) error {
	for _, p := range e.parts {
		if err := p.barrier(b); err != nil {
			return err
		}
	}
	return nil
}

func (e *exchange) end() error {
	for _, p := range e.parts {
		if err := p.end(); err != nil {
			return err
		}
	}
	return nil
}

// drive puts op under a driver with ports inputs, whose output (the
// operator's) is out: the runtime feeds it through the driver's ports.
// Its runtime errors point at the SQL of the node being built.
func (b *builder) drive(op operator, ports int, out collector) *driver {
	d := newDriver(op, ports, out)
	d.id, d.part, d.parts = b.curID, b.curPart, max(b.curParts, 1)
	d.v.drift = b.drifts[op]
	d.late, b.pendingLate = b.pendingLate, nil
	if ports > 1 {
		op.counters().Inputs = d.v.publish(b.sides[op], ports)
	}
	d.span, d.src = b.span, b.opts.Source
	b.job.drivers = append(b.job.drivers, d)
	return d
}

// driveSink puts a sink under a driver, named in errors as name.
func (b *builder) driveSink(op *sinkOp, name string) collector {
	d := b.drive(op, 1, nil)
	d.sink, d.name = true, name
	b.job.sinks = append(b.job.sinks, op)
	return d.port(0)
}

func (b *builder) newStage() *stage {
	s := &stage{ch: make(chan stageMsg, 16)}
	b.job.stages = append(b.job.stages, s)
	return s
}

// keyed builds a keyed operator with the given inputs and their keys: one
// instance, or P partitioned instances when parallelism allows and every
// input has a key.
func (b *builder) keyed(inputs []physical.Node, keys [][]expr.Expr, out collector, mk func(out collector) (operator, error)) error {
	p := b.opts.Parallelism
	for _, k := range keys {
		if len(k) == 0 {
			p = 1 // nothing to partition on (a global aggregate, a cross join)
		}
	}
	if p <= 1 {
		op, err := mk(out)
		if err != nil {
			return err
		}
		return b.fanIn(inputs, op, out)
	}
	id := b.curID
	b.curID = id + ".merge"
	merge := b.drive(&unionOp{out: out, c: newCounters("merge")}, p, out)
	merge.merge = true
	b.curID = id
	mergeStage := b.newStage()
	exchanges := make([]*exchange, len(inputs))
	for i := range inputs {
		k, err := b.keyer(keys[i])
		if err != nil {
			return err
		}
		exchanges[i] = newExchange(k, p, b.maxP)
	}
	for part := 0; part < p; part++ {
		st := b.newStage()
		toMerge := chanCollector{st: mergeStage, dest: merge.port(part)}
		first := len(b.job.Operators)
		b.curPart, b.curParts = part, p
		op, err := mk(toMerge)
		if err != nil {
			return err
		}
		for _, c := range b.job.Operators[first:] {
			c.Subtask = part
		}
		d := b.drive(op, len(inputs), toMerge)
		b.timedAt(d, st)
		b.curPart, b.curParts = 0, 1
		for i := range inputs {
			exchanges[i].parts = append(exchanges[i].parts, chanCollector{st: st, dest: d.port(i)})
		}
	}
	for i, in := range inputs {
		if err := b.node(in, exchanges[i]); err != nil {
			return fmt.Errorf("%w", err)
		}
	}
	// Downstream of the merge runs in the merge's stage.
	b.at = mergeStage
	return nil
}

// fanIn builds the inputs of an operator that runs unpartitioned (a union,
// a join without keys), whose output is out: input i reaches port i of op. When the inputs come
// from different goroutines (the task, the merge stages of partitioned
// operators), op gets a stage of its own and every input reaches it
// through that stage's channel: op, and everything downstream of it up to
// the next exchange, is then called from one goroutine only, whatever its
// inputs are. That is what keeps a sink's writes from interleaving (#11.7).
//
// The stages form a DAG, so the bounded channels between them cannot
// deadlock: a stage made here only receives from stages made while
// building its inputs.
func (b *builder) fanIn(inputs []physical.Node, op operator, out collector) error {
	d := b.drive(op, len(inputs), out)
	relays := make([]*relay, len(inputs))
	at := make([]*stage, len(inputs))
	for i, in := range inputs {
		relays[i] = &relay{to: d.port(i)}
		if err := b.node(in, relays[i]); err != nil {
			return err
		}
		at[i] = b.at
	}
	same := true
	for _, s := range at[1:] {
		same = same && s == at[0]
	}
	if same {
		if len(at) > 0 {
			b.at = at[0]
		}
		b.timedAt(d, b.at)
		return nil
	}
	st := b.newStage()
	for _, r := range relays {
		r.to = chanCollector{st: st, dest: r.to}
	}
	b.at = st
	b.timedAt(d, st)
	return nil
}

// relay forwards to a collector chosen after the input behind it was
// built (see fanIn).
type relay struct{ to collector }

func (r *relay) push(b row.Batch) error   { return r.to.push(b) }
func (r *relay) watermark(wm int64) error { return r.to.watermark(wm) }
func (r *relay) idle(idle bool) error     { return r.to.idle(idle) }
func (r *relay) end() error               { return r.to.end() }
func (r *relay) barrier(b *barrier) error { return r.to.barrier(b) }
