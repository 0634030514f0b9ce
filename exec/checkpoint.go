package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// Checkpoints (#13): consistent cuts of a running job, as Flink takes them
// (Chandy–Lamport with aligned barriers).
//
//	coordinator ──request──► source runner: Position, split watermarks ─► part <id>.src
//	                          │ barrier, in order with its rows
//	                          ▼
//	task / stages ──► driver: aligns the barrier over its inputs (an input that
//	                  delivered it is held, its messages queued, until every
//	                  input has), then snapshots: valve and sink state ─► <id>.p<n>.meta,
//	                  state store (a read view, written in the background) ─► <id>.p<n>.state;
//	                  forwards the barrier; replays what it queued
//	sink drivers ──ack──► coordinator: when every sink has acknowledged and every
//	                  background write is done, the manifest is written (complete)
//
// Finished parts of a job take part too (as Flink's FLIP-147): a source
// that has ended records its final position, and an operator or sink all
// of whose inputs have ended records its final valve (and a sink its final
// output state) when it finishes. Such a part no longer sees barriers; the
// coordinator writes its final record into every later checkpoint, and
// waits for a sink either to acknowledge the barrier or to finish. On
// resume, an ended source sends its end again without reading, and a
// finished operator starts with no state and passes the end on: a job
// whose bounded input has ended keeps checkpointing while its other inputs
// run, and a crash does not read the ended input again. The job's output
// is exactly-once for sinks that implement connector.SinkCheckpointer (the
// filesystem sink truncates to its length at the checkpoint on resume).

// Checkpointing configures the checkpoints of a job (Options.Checkpoint).
type Checkpointing struct {
	// Dir is where checkpoints are written.
	Dir *checkpoint.Dir
	// Interval is the time between checkpoints
	// ('execution.checkpointing.interval').
	Interval time.Duration
	// Timeout fails a checkpoint that takes longer
	// ('execution.checkpointing.timeout'; 0: 10 minutes).
	Timeout time.Duration
	// Job names the job file in manifests.
	Job string
	// Restore is the checkpoint the job resumes from; nil: from the start.
	Restore *checkpoint.Checkpoint
	// Completed is called after each checkpoint completes; Failed when one
	// fails (the job goes on). Both may be nil.
	Completed func(c *checkpoint.Checkpoint)
	Failed    func(id int64, err error)
}

// snapshotLayout is the version of what exec writes into a checkpoint for
// each operator (the meta part and the state store's snapshot format);
// operatorLayout says where one kind's own state moved on.
const snapshotLayout = 1

// operatorLayout is the layout of n's checkpoints: snapshotLayout, but 2
// for a window aggregate, whose groups have a flags byte since allowed
// lateness (#17; groupCodec).
func operatorLayout(n physical.Node) int {
	if _, ok := n.(*physical.WindowAggregate); ok {
		return 2
	}
	return snapshotLayout
}

// checkpointable is implemented by the operators whose whole state between
// two calls is their state store (if any) and their valve (whose combined
// watermark they read, never copy): those can be snapshotted by the driver.
type checkpointable interface {
	// stateStore is the operator's store, nil for none.
	stateStore() *state.Store
}

func (o *calcOp) stateStore() *state.Store         { return nil }
func (o *unionOp) stateStore() *state.Store        { return nil }
func (o *windowOp) stateStore() *state.Store       { return nil }
func (o *sinkOp) stateStore() *state.Store         { return nil }
func (o *intervalJoinOp) stateStore() *state.Store { return o.store }
func (o *joinOp) stateStore() *state.Store         { return o.store }
func (o *windowJoinOp) stateStore() *state.Store   { return o.store }
func (o *temporalJoinOp) stateStore() *state.Store { return o.store }
func (o *normalizeOp) stateStore() *state.Store    { return o.store }
func (o *materializeOp) stateStore() *state.Store  { return o.store }
func (o *groupAggOp) stateStore() *state.Store     { return o.store }
func (o *windowAggOp) stateStore() *state.Store    { return o.store }

// Top-N and deduplication keep everything in their store (their advance
// does nothing: no watermark, no timer outside it).
func (o *rankOp) stateStore() *state.Store  { return o.store }
func (o *dedupOp) stateStore() *state.Store { return o.store }

// Session windows, window Top-N and OVER aggregates keep each key's
// sessions, window or partition in their store, with what was emitted for
// it (the rows a late update retracts) and when the watermark next has
// something to do with it (its expiry: a firing, a horizon, a pending
// row's time); they read the combined watermark from their valve. What
// else they hold lives within one call (the keys a batch changed).
func (o *sessionAggOp) stateStore() *state.Store { return o.store }
func (o *windowRankOp) stateStore() *state.Store { return o.store }
func (o *overAggOp) stateStore() *state.Store    { return o.store }

// barrier is checkpoint id flowing through the job.
type barrier struct {
	id  int64
	run *cpRun
	// final: the job stops after this checkpoint (Ctrl-C); sources read
	// nothing after it, so the next run has nothing to read again.
	final bool
}

// cpRun is one checkpoint being taken.
type cpRun struct {
	id    int64
	w     *checkpoint.Writer
	acks  chan *driver // each sink driver the barrier reaches
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error
	small map[string][]byte // parts written by the coordinator at the end
	begun time.Time
}

func (r *cpRun) fail(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

func (r *cpRun) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// writePart keeps a small part for the coordinator to write once the
// barrier has passed everywhere: no file is written, let alone synced, on
// the pipeline's path.
func (r *cpRun) writePart(name string, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.small == nil {
		r.small = map[string][]byte{}
	}
	r.small[name] = b
}

// has reports whether a small part called name was kept.
func (r *cpRun) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.small[name]
	return ok
}

// flushSmall writes the small parts.
func (r *cpRun) flushSmall() {
	r.mu.Lock()
	small := r.small
	r.small = nil
	r.mu.Unlock()
	var wg sync.WaitGroup
	for name, b := range small {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.writeNow(name, b)
		}()
	}
	wg.Wait()
}

func (r *cpRun) writeNow(name string, b []byte) {
	p, err := r.w.Part(name)
	if err != nil {
		r.fail(err)
		return
	}
	if _, err := p.Write(b); err != nil {
		r.fail(err)
	}
	r.fail(p.Close())
}

// srcState is a source runner's part: the connector's position, and the
// runner's watermarks at the barrier.
type srcState struct {
	Pos  json.RawMessage `json:"pos"`
	WM   []int64         `json:"wm"`
	Done []bool          `json:"done"`
	Cur  int64           `json:"cur"`
	// Ended: the source had read its end (a bounded source); a resumed
	// run sends its end without reading.
	Ended bool `json:"ended,omitempty"`
}

// driverState is a driver's part: its valve and, for a sink, what the
// connector's Checkpoint returned.
type driverState struct {
	In    []int64         `json:"in"`
	Ended []bool          `json:"ended"`
	Cur   int64           `json:"cur"`
	Sink  json.RawMessage `json:"sink,omitempty"`
	Store bool            `json:"store"`
	// Finished: every input had ended and the operator had finished (its
	// state is not kept: nothing more comes).
	Finished bool `json:"finished,omitempty"`
	// Counts are the operator's late-row counts at the barrier.
	Counts lateCounts `json:"counts"`
}

// lateCounts are an operator instance's counts of the rows it could not
// take in time (Counters.Late, LateUpdates, NoTime): they are part of its
// checkpoint, so that a resumed job's go on from the checkpoint's, as if
// it had not stopped (rows in and out count the run's own).
type lateCounts struct {
	Late        int64 `json:"late,omitempty"`
	LateUpdates int64 `json:"late_updates,omitempty"`
	NoTime      int64 `json:"no_time,omitempty"`
}

func countsOf(c *Counters) lateCounts {
	return lateCounts{Late: c.Late.Load(), LateUpdates: c.LateUpdates.Load(), NoTime: c.NoTime.Load()}
}

func (l *lateCounts) add(o lateCounts) {
	l.Late += o.Late
	l.LateUpdates += o.LateUpdates
	l.NoTime += o.NoTime
}

// restore sets c's counts to l.
func (l lateCounts) restore(c *Counters) {
	c.Late.Store(l.Late)
	c.LateUpdates.Store(l.LateUpdates)
	c.NoTime.Store(l.NoTime)
}

// srcCP is a source runner's side of checkpoints.
type srcCP struct {
	id      string
	reqs    chan *barrier
	mu      sync.Mutex
	cancel  context.CancelCauseFunc // the Read in progress
	restore *srcState
	// final is the source's part once it has ended (nil before), or
	// finalErr why it has none.
	final    []byte
	finalErr error
}

// ended records the source's final part; requests still queued are
// dropped (the coordinator writes the final part for them).
func (c *srcCP) ended(part []byte, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.final, c.finalErr = part, err
	for len(c.reqs) > 0 {
		<-c.reqs
	}
}

// finalPart is the source's part once it has ended (ok false before).
func (c *srcCP) finalPart() (part []byte, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.final, c.final != nil || c.finalErr != nil, c.finalErr
}

var errBarrier = errors.New("checkpoint barrier")

// request asks the runner to inject b before its next Read, waking a Read
// that waits for input. A source that has ended is not asked: the
// coordinator writes its final part (and one that ends before it injects
// b drops the request). It gives up, returning false, when ctx ends: a
// runner that has stopped (after a final checkpoint, say) no longer takes
// requests, and a full queue must not hold the coordinator, and with it the
// job's end, forever.
func (c *srcCP) request(ctx context.Context, b *barrier) bool {
	if _, ok, _ := c.finalPart(); ok {
		return true
	}
	select {
	case c.reqs <- b:
	case <-ctx.Done():
		return false
	}
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel(errBarrier)
	}
	c.mu.Unlock()
	return true
}

// readCtx is the context of one Read: cancelled by a barrier request.
func (c *srcCP) readCtx(ctx context.Context) (context.Context, func()) {
	rctx, cancel := context.WithCancelCause(ctx)
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
	if len(c.reqs) > 0 {
		cancel(errBarrier)
	}
	return rctx, func() {
		c.mu.Lock()
		c.cancel = nil
		c.mu.Unlock()
		cancel(nil)
	}
}

// inject writes the source's part of b and sends b on with its rows.
func (r *sourceRunner) inject(b *barrier, w *splitWatermarks, cur int64, send func(msg) bool) bool {
	st := srcState{WM: w.wm, Done: w.done, Cur: cur}
	pos, err := r.src.(connector.Positioner).Position()
	if err != nil {
		b.run.fail(fmt.Errorf("source %s: %w", r.name, err))
	} else {
		st.Pos = pos
		data, _ := json.Marshal(st)
		b.run.writePart(r.cp.id+".src", data)
	}
	return send(msg{src: r.idx, kind: msgBarrier, bar: b})
}

// finishCP records the runner's final part, at its end: its position after
// the last row, every split done, the watermark at +inf.
func (r *sourceRunner) finishCP(w *splitWatermarks) {
	if r.cp.reqs == nil {
		return // no checkpoints
	}
	st := srcState{WM: append([]int64(nil), w.wm...), Done: make([]bool, w.n()), Cur: MaxWatermark, Ended: true}
	for i := range st.Done {
		st.Done[i] = true
	}
	pos, err := r.src.(connector.Positioner).Position()
	if err != nil {
		r.cp.ended(nil, fmt.Errorf("source %s: at its end: %w", r.name, err))
		return
	}
	st.Pos = pos
	data, _ := json.Marshal(st)
	r.cp.ended(data, nil)
}

// seek restores the runner and its connector after Open.
func (r *sourceRunner) seek(w *splitWatermarks, cur *int64) error {
	st := r.cp.restore
	if err := r.src.(connector.Positioner).Seek(st.Pos); err != nil {
		return err
	}
	if len(st.WM) == w.n() {
		copy(w.wm, st.WM)
		copy(w.done, st.Done)
	}
	*cur = st.Cur
	r.counters.Watermark.Store(st.Cur)
	return nil
}

// aligner holds a driver's inputs while a barrier is aligned.
type aligner struct {
	cur   *barrier
	got   []bool
	queue []queued
}

type queued struct {
	port  int
	kind  msgKind
	batch row.Batch
	wm    int64
	idle  bool
	bar   *barrier
}

// holds reports whether port's messages wait for the alignment.
func (a *aligner) holds(port int) bool { return a.cur != nil && a.got[port] }

func (a *aligner) enqueue(q queued) error {
	if q.kind == msgBatch {
		q.batch = append(row.Batch(nil), q.batch...) // lent for the call only
	}
	a.queue = append(a.queue, q)
	return nil
}

// barrier takes barrier b on port.
func (d *driver) barrier(port int, b *barrier) (err error) {
	if d.failed {
		return d.wrap(errFailed)
	}
	if d.al.holds(port) {
		return d.al.enqueue(queued{port: port, kind: msgBarrier, bar: b})
	}
	defer d.recovered(&err)
	if d.al.cur == nil {
		d.al.cur, d.al.got = b, make([]bool, len(d.v.in))
	}
	d.al.got[port] = true
	return d.aligned()
}

// aligned completes the alignment when every input that has not ended has
// delivered the barrier: snapshot, forward, replay what was held.
func (d *driver) aligned() error {
	a := &d.al
	if a.cur == nil {
		return nil
	}
	for i, g := range a.got {
		if !g && !d.v.ended[i] {
			return nil
		}
	}
	b := a.cur
	a.cur, a.got = nil, nil
	d.snapshot(b)
	// The operator's late rows from now on are after the checkpoint.
	d.passBarrier(b.id)
	if d.out != nil {
		if err := d.out.barrier(b); err != nil {
			return d.wrap(err)
		}
	} else {
		b.run.acks <- d
	}
	q := a.queue
	a.queue = nil
	for _, m := range q {
		var err error
		switch m.kind {
		case msgBatch:
			err = d.process(m.port, m.batch)
		case msgWatermark:
			err = d.watermark(m.port, m.wm)
		case msgIdle:
			err = d.idle(m.port, m.idle)
		case msgEnd:
			err = d.end(m.port)
		case msgBarrier:
			err = d.barrier(m.port, m.bar)
		case msgErr:
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// instanceName names one partition of an operator: its parts in a
// checkpoint (<name>.meta, <name>.state) and its directory under
// --state-dir. It is made of the operator's physical ID, so it is the same
// in every run of one plan.
func instanceName(id string, part int) string { return fmt.Sprintf("%s.p%d", id, part) }

// recordFinal keeps the driver's part for the checkpoints taken after it
// finishes (its inputs have all ended: no barrier reaches it any more): its
// valve, and for a sink the state of its output, made durable now. It is
// called before the operator's finish, so that a sink's state is taken
// before the job can end and close it (a sink's finish only flushes).
func (d *driver) recordFinal() error {
	if d.cp == nil {
		return nil
	}
	st := driverState{In: d.v.in, Ended: d.v.ended, Cur: d.v.cur, Finished: true, Counts: countsOf(d.op.counters())}
	if so, ok := d.op.(*sinkOp); ok {
		s, err := so.sink.(connector.SinkCheckpointer).Checkpoint(so.ctx)
		if err != nil {
			return err
		}
		st.Sink = s
	}
	data, _ := json.Marshal(st)
	d.final.Store(&data)
	if d.sink {
		select {
		case d.cp.sinkFinished <- struct{}{}:
		default:
		}
	}
	return nil
}

// replayEnd takes an end on port that the checkpoint the job resumed from
// had already seen: the upstream sends it again. A finished operator (all
// its inputs had ended) passes it on once every input's has come, a sink
// signals its end; the operator is not asked again (it has no state).
func (d *driver) replayEnd(port int) error {
	d.replay[port] = false
	if !d.restoredFinished {
		return nil
	}
	for _, r := range d.replay {
		if r {
			return nil
		}
	}
	if so, ok := d.op.(*sinkOp); ok {
		return d.wrap(so.finish())
	}
	if d.out == nil {
		return nil
	}
	return d.wrap(d.out.end())
}

// partName is the prefix of the driver's parts.
func (d *driver) partName() string { return instanceName(d.id, d.part) }

// snapshot writes the driver's parts of checkpoint b: its valve and sink
// state now, its store's view in the background. A failure fails the
// checkpoint, not the job (the store's own errors stop the job when the
// operator next checks them).
func (d *driver) snapshot(b *barrier) {
	cp, ok := d.op.(checkpointable)
	if !ok {
		b.run.fail(fmt.Errorf("%s cannot be checkpointed", d.name))
		return
	}
	st := driverState{In: d.v.in, Ended: d.v.ended, Cur: d.v.cur, Counts: countsOf(d.op.counters())}
	if so, ok := d.op.(*sinkOp); ok {
		sc, ok := so.sink.(connector.SinkCheckpointer)
		if !ok {
			b.run.fail(fmt.Errorf("%s cannot be checkpointed", d.name))
			return
		}
		s, err := sc.Checkpoint(so.ctx)
		if err != nil {
			b.run.fail(fmt.Errorf("%s: %w", d.name, err))
			return
		}
		st.Sink = s
	}
	if store := cp.stateStore(); store != nil {
		ch := d.chain.Load()
		var sn *state.Snapshot
		var err error
		if ch.extend(store.Rows()) {
			sn, err = store.SnapshotChanges()
		} else {
			sn, err = store.Snapshot()
		}
		if err != nil {
			b.run.fail(fmt.Errorf("%s: %w", d.name, err))
			return
		}
		st.Store = true
		name := d.partName() + ".state"
		if sn.Delta() {
			// The parts of the chain so far, unchanged, and the changes.
			for _, p := range append([]checkpoint.PartInfo{ch.base}, ch.deltas...) {
				if err := b.run.w.Reuse(p); err != nil {
					sn.Release()
					b.run.fail(err)
					return
				}
			}
			name = deltaName(d.partName(), len(ch.deltas)+1)
		}
		b.run.wg.Add(1)
		go func() {
			defer b.run.wg.Done()
			p, err := b.run.w.SharedPart(name)
			if err != nil {
				sn.Release()
				b.run.fail(err)
				return
			}
			if _, err := sn.WriteTo(p); err != nil {
				b.run.fail(fmt.Errorf("%s: %w", d.name, err))
			}
			p.SetRecords(sn.Records())
			b.run.fail(p.Close())
		}()
	}
	data, _ := json.Marshal(st)
	b.run.writePart(d.partName()+".meta", data)
}

// Incremental checkpoints: an operator partition's store is in a chain of
// shared parts, <name>.state (a whole snapshot, the base) and
// <name>.delta.1, .2, ... (what changed since the part before; see
// state.SnapshotChanges). A checkpoint lists the whole chain: the parts it
// did not write are those of the checkpoint before, unchanged (the
// checkpoint package keeps a shared part while a kept checkpoint lists
// it). A chain grows by one delta per checkpoint until it holds twice the
// records the store holds (the records its parts wrote, a key rewritten
// counting in every part that has it, against state.Store.Rows), or
// maxDeltas; then the next checkpoint writes a base again, which bounds
// what a restore reads to about twice the state. A state that only grows
// (every key written once) is therefore never rewritten whole but every
// maxDeltas checkpoints; one whose keys change again and again is, once
// the chain has written them twice. Parts whose records were not counted
// (a checkpoint of an older streamsql) fall back to sizes: the deltas
// against their base. The first checkpoint of a run, and the one after a
// checkpoint failed (its snapshot's changes were never written), are
// whole.

// maxDeltas bounds the number of deltas in a chain: the files a restore
// opens, and the parts every checkpoint's manifest lists. It is large
// because the interval is wall time: a loaded machine takes a checkpoint
// every few thousand rows, and a growing state would otherwise be
// rewritten whole every maxDeltas of them.
const maxDeltas = 128

// stateChain is a store's chain in the last checkpoint that completed.
type stateChain struct {
	base   checkpoint.PartInfo
	deltas []checkpoint.PartInfo
}

// extend reports whether the next snapshot of a store holding rows
// records may be a delta on c.
func (c *stateChain) extend(rows int64) bool {
	if c == nil || len(c.deltas) >= maxDeltas {
		return false
	}
	var size, recs int64
	counted := c.base.Records != nil
	if counted {
		recs = *c.base.Records
	}
	for _, p := range c.deltas {
		size += p.Size
		if p.Records == nil {
			counted = false
		} else {
			recs += *p.Records
		}
	}
	if counted {
		return recs < 2*rows
	}
	return size < c.base.Size
}

// deltaName is the name of the n-th delta of instance name's chain.
func deltaName(name string, n int) string { return fmt.Sprintf("%s.delta.%d", name, n) }

// chainOf is the chain of instance name in c (nil: c has none).
func chainOf(c *checkpoint.Checkpoint, name string) *stateChain {
	base, ok := c.Part(name + ".state")
	if !ok || base.File == "" {
		return nil
	}
	ch := &stateChain{base: base}
	for n := 1; ; n++ {
		p, ok := c.Part(deltaName(name, n))
		if !ok {
			return ch
		}
		ch.deltas = append(ch.deltas, p)
	}
}

// restoreMeta reads the driver's meta part from c and applies the valve;
// it returns the sink state, if any.
//
// When the job restarts at another parallelism, a partition's valve is
// the combination of the old partitions' (every input's watermark the
// least of theirs, an input ended where it had ended in all): the
// exchange broadcasts watermarks and ends, so at a consistent cut every
// partition has seen the same ones and the combination is each of them.
// The merge behind the partitions has as many inputs as partitions: each
// gets the least watermark of the old merge's inputs (which are equal for
// the same reason), or, when the operator ran unpartitioned, no watermark
// until the partitions send one, which the operators downstream, restored
// with theirs, do not go back for. The old partitions' late-row counts go
// on, added up, in partition 0.
func (d *driver) restoreMeta(c *checkpoint.Checkpoint) (*driverState, error) {
	name := d.partName() + ".meta"
	old := oldPartitions(c, d.id)
	if !d.merge && old == d.parts || d.merge && c.HasPart(name) {
		st, err := readMeta(c, name)
		if err != nil {
			return nil, err
		}
		if len(st.In) == len(d.v.in) && len(st.Ended) == len(d.v.ended) {
			d.applyMeta(st)
			return st, nil
		}
		if !d.merge {
			return nil, fmt.Errorf("checkpoint file %s: %d inputs, the operator has %d", c.File(name), len(st.In), len(d.v.in))
		}
	}
	var metas []*driverState
	switch {
	case d.merge && c.HasPart(name):
		st, err := readMeta(c, name)
		if err != nil {
			return nil, err
		}
		metas = append(metas, st)
	case d.merge:
		// The operator ran unpartitioned: no merge. Its inputs ended
		// where the operator's had all ended.
		base := strings.TrimSuffix(d.id, ".merge")
		st, err := readMeta(c, base+".p0.meta")
		if err != nil {
			return nil, err
		}
		all := len(st.Ended) > 0
		for _, e := range st.Ended {
			all = all && e
		}
		wm := MinWatermark
		if all {
			wm = MaxWatermark
		}
		metas = append(metas, &driverState{In: []int64{wm}, Ended: []bool{all}, Cur: wm, Finished: all})
	default:
		for i := range old {
			st, err := readMeta(c, fmt.Sprintf("%s.p%d.meta", d.id, i))
			if err != nil {
				return nil, err
			}
			if len(st.In) != len(d.v.in) || len(st.Ended) != len(d.v.ended) {
				return nil, fmt.Errorf("checkpoint file %s: %d inputs, the operator has %d",
					c.File(fmt.Sprintf("%s.p%d.meta", d.id, i)), len(st.In), len(d.v.in))
			}
			metas = append(metas, st)
		}
		if len(metas) == 0 {
			return nil, fmt.Errorf("checkpoint %d has no state for operator %s", c.ID, d.id)
		}
	}
	st := &driverState{In: make([]int64, len(d.v.in)), Ended: make([]bool, len(d.v.ended)), Cur: MaxWatermark}
	for i := range st.In {
		st.In[i], st.Ended[i] = MaxWatermark, true
		for _, m := range metas {
			j := i
			if d.merge {
				j = -1 // every old input stands for every new one
			}
			for k := range m.In {
				if j >= 0 && k != j {
					continue
				}
				st.In[i] = min(st.In[i], m.In[k])
				st.Ended[i] = st.Ended[i] && m.Ended[k]
			}
		}
	}
	st.Finished = true
	for _, m := range metas {
		st.Cur = min(st.Cur, m.Cur)
		st.Store = st.Store || m.Store
		st.Finished = st.Finished && m.Finished
		if d.part == 0 {
			// The old partitions' counts go on in the first partition:
			// the operator's total is theirs.
			st.Counts.add(m.Counts)
		}
	}
	d.applyMeta(st)
	return st, nil
}

func readMeta(c *checkpoint.Checkpoint, name string) (*driverState, error) {
	data, err := c.ReadPart(name)
	if err != nil {
		return nil, err
	}
	var st driverState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("checkpoint file %s: %w", c.File(name), err)
	}
	return &st, nil
}

// applyMeta restores the driver's valve (and the operator's copy of the
// combined watermark) and the operator's late-row counts from st.
func (d *driver) applyMeta(st *driverState) {
	copy(d.v.in, st.In)
	copy(d.v.ended, st.Ended)
	d.v.cur = st.Cur
	d.replay = append([]bool(nil), st.Ended...)
	d.restoredFinished = st.Finished
	if st.Finished {
		data, _ := json.Marshal(st)
		d.final.Store(&data)
	}
	if st.Finished {
		// It writes no late rows: its input had all come.
		d.lateFinished()
	}
	if st.Cur != MinWatermark {
		d.op.counters().Watermark.Store(st.Cur)
	}
	st.Counts.restore(d.op.counters())
}

// checkpointPlan lists the operators of plans as a checkpoint's manifest
// records them (checkpoint.ComparePlan): every node, by its stable ID (its
// kind, name and place in the plan), its kind, and a digest of the column
// types of its inputs and output, which its state holds: a join whose
// bounds changed resumes (as in Flink, state matches by ID), one whose rows
// changed type is refused.
func checkpointPlan(plans []*physical.Plan) []checkpoint.Operator {
	seen := map[string]bool{}
	var ops []checkpoint.Operator
	var walk func(n physical.Node)
	walk = func(n physical.Node) {
		o := n.Base()
		if !seen[o.ID] {
			seen[o.ID] = true
			h := fnv.New64a()
			for _, in := range append([]physical.Node{n}, n.Inputs()...) {
				for _, c := range in.Base().Cols {
					fmt.Fprintf(h, "%s %s,", c.Name, c.Type)
				}
				fmt.Fprint(h, ";")
			}
			ops = append(ops, checkpoint.Operator{ID: o.ID, Kind: reflect.TypeOf(n).Elem().Name(), Layout: operatorLayout(n),
				State: fmt.Sprintf("%016x", h.Sum64()), Describe: o.Name})
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	for _, p := range plans {
		walk(p.Root)
	}
	sort.Slice(ops, func(a, b int) bool { return ops[a].ID < ops[b].ID })
	return ops
}

// CheckpointsOff says why the job cannot be checkpointed ("" when it can):
// a source that cannot resume from a position, an operator or a sink that
// cannot be snapshotted.
func (j *Job) CheckpointsOff() string {
	var not []string
	for _, r := range j.sources {
		if _, ok := r.src.(connector.Positioner); !ok {
			not = append(not, fmt.Sprintf("source %s cannot resume from a position", r.name))
		}
	}
	for _, d := range j.drivers {
		if _, ok := d.op.(checkpointable); !ok {
			not = append(not, d.name+" cannot be checkpointed")
		}
		if so, ok := d.op.(*sinkOp); ok {
			if _, ok := so.sink.(connector.SinkCheckpointer); !ok {
				not = append(not, d.name+" cannot cut its output back to a checkpoint")
			}
		}
	}
	return strings.Join(not, "; ")
}

// LastCheckpoint is the last checkpoint that completed in this run (nil
// before the first).
func (j *Job) LastCheckpoint() *checkpoint.Checkpoint { return j.lastCP.Load() }

// TakesCheckpoints reports whether the job takes checkpoints: it was
// given Options.Checkpoint and every source, operator and sink can be
// checkpointed (CheckpointsOff).
func (j *Job) TakesCheckpoints() bool { return j.cp != nil && j.cp.off == "" }

// cpState is the job's checkpoint bookkeeping.
type cpState struct {
	// turn is held by the checkpoint being taken: one at a time, the
	// periodic ones and CheckpointNow's, which waits for its turn no longer
	// than its context allows.
	turn chan struct{}
	// stopping: CheckpointNow was called; the periodic checkpoints stop,
	// so that none starts before the last one.
	stopping atomic.Bool
	cfg      *Checkpointing
	off      string // why the job takes none ("" when it does)
	running  atomic.Pointer[cpRun]
	// sinkFinished is signalled when a sink finishes (its input ended):
	// a checkpoint waiting for its acknowledgement counts it instead.
	sinkFinished chan struct{}
}

// restoreAll applies the checkpoint to the drivers and source runners
// before anything opens.
func (j *Job) restoreAll() error {
	c := j.cp.cfg.Restore
	for _, d := range j.drivers {
		st, err := d.restoreMeta(c)
		if err != nil {
			return err
		}
		if so, ok := d.op.(*sinkOp); ok {
			so.resume = st.Sink
			if so.resume == nil {
				return fmt.Errorf("checkpoint %d has no state for %s", c.ID, d.name)
			}
		}
	}
	for _, r := range j.sources {
		data, err := c.ReadPart(r.cp.id + ".src")
		if err != nil {
			return err
		}
		var st srcState
		if err := json.Unmarshal(data, &st); err != nil {
			return fmt.Errorf("checkpoint file %s: %w", c.File(r.cp.id+".src"), err)
		}
		r.cp.restore = &st
	}
	return nil
}

// coordinate takes a checkpoint every interval until ctx ends.
func (j *Job) coordinate(ctx context.Context) {
	cfg := j.cp.cfg
	t := time.NewTicker(cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ctx.Err() != nil || j.cp.stopping.Load() {
			return // the tick and the end were ready together; or the last one comes
		}
		if err := j.takeCheckpoint(ctx, false); err != nil && ctx.Err() == nil && cfg.Failed != nil {
			cfg.Failed(cfg.Dir.NextID()-1, err)
		}
	}
}

// CheckpointNow takes the job's last checkpoint and waits for it: Ctrl-C's.
// The sources read nothing after its barrier, and no periodic checkpoint
// starts after it is called. A periodic checkpoint being taken is finished
// first (its barrier has passed the sources: the last one cannot take its
// place), which with incremental checkpoints is short: the changes of one
// interval; both waits end when ctx does. It returns nil, nil when the job
// takes no checkpoints.
func (j *Job) CheckpointNow(ctx context.Context) (*checkpoint.Checkpoint, error) {
	if j.cp == nil || j.cp.off != "" {
		return nil, nil
	}
	j.cp.stopping.Store(true)
	if err := j.takeCheckpoint(ctx, true); err != nil {
		return nil, err
	}
	return j.LastCheckpoint(), nil
}

// takeCheckpoint takes one checkpoint and waits for it, and counts it
// completed or failed (a checkpoint given up because the job is ending is
// neither).
func (j *Job) takeCheckpoint(ctx context.Context, final bool) error {
	select {
	case j.cp.turn <- struct{}{}:
	case <-ctx.Done():
		if r := j.cp.running.Load(); r != nil {
			return fmt.Errorf("checkpoint %d was still being taken: %w", r.id, context.Cause(ctx))
		}
		return context.Cause(ctx)
	}
	defer func() { <-j.cp.turn }()
	before := j.lastCP.Load()
	err := j.take(ctx, final)
	c := j.lastCP.Load()
	// The stores' next snapshots extend the chains of the checkpoint that
	// completed; after one that did not, they are whole (the changes the
	// stores gave it were not all written).
	for _, d := range j.drivers {
		if c != before {
			d.chain.Store(chainOf(c, d.partName()))
		} else {
			d.chain.Store(nil)
		}
	}
	switch {
	case c != before:
		j.CheckpointsDone.Add(1)
	case err != nil && ctx.Err() == nil:
		j.CheckpointsFailed.Add(1)
	}
	return err
}

// take is takeCheckpoint's work, in its turn.
func (j *Job) take(ctx context.Context, final bool) error {
	cfg := j.cp.cfg
	w, err := cfg.Dir.Begin()
	if err != nil {
		return err
	}
	run := &cpRun{id: w.ID(), w: w, acks: make(chan *driver, len(j.sinks)), begun: time.Now()}
	j.cp.running.Store(run)
	defer j.cp.running.Store(nil)
	b := &barrier{id: run.id, run: run, final: final}
	for _, r := range j.sources {
		if !r.cp.request(ctx, b) {
			w.Abort()
			return ctx.Err()
		}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	// Every sink acknowledges the barrier or finishes.
	acked := map[*driver]bool{}
	for {
		waiting := false
		for _, d := range j.drivers {
			waiting = waiting || d.sink && !acked[d] && d.final.Load() == nil
		}
		if !waiting {
			break
		}
		select {
		case d := <-run.acks:
			acked[d] = true
		case <-j.cp.sinkFinished:
		case <-tm.C:
			w.Abort()
			return fmt.Errorf("checkpoint %d timed out after %s ('execution.checkpointing.timeout')", run.id, timeout)
		case <-ctx.Done():
			w.Abort()
			return ctx.Err()
		}
	}
	// What has finished took no barrier: its final part stands for it.
	for _, r := range j.sources {
		name := r.cp.id + ".src"
		if run.has(name) {
			continue
		}
		part, ok, err := r.cp.finalPart()
		switch {
		case !ok:
			run.fail(fmt.Errorf("source %s took no part", r.name))
		case err != nil:
			run.fail(err)
		default:
			run.writePart(name, part)
		}
	}
	for _, d := range j.drivers {
		name := d.partName() + ".meta"
		if run.has(name) {
			continue
		}
		if f := d.final.Load(); f != nil {
			run.writePart(name, *f)
		} else {
			run.fail(fmt.Errorf("%s took no part", d.name))
		}
	}
	// The dead-letter files' lengths at the barrier: every operator has
	// passed it or finished by now, or soon (one that finished took no
	// barrier and may still be finishing).
	if len(j.dead.files) > 0 {
		part, err := j.deadLetterCuts(ctx, run.id, tm.C)
		if err != nil {
			w.Abort()
			return fmt.Errorf("checkpoint %d: %w", run.id, err)
		}
		run.writePart(deadLettersPart, part)
	}
	run.flushSmall()
	run.wg.Wait()
	if err := run.failed(); err != nil {
		w.Abort()
		return fmt.Errorf("checkpoint %d: %w", run.id, err)
	}
	c, err := w.Commit(checkpoint.Meta{Job: cfg.Job, Operators: j.cpOps, Parallelism: j.parallelism,
		MaxParallelism: j.maxParallelism})
	if c != nil {
		j.lastCP.Store(c)
		if cfg.Completed != nil {
			cfg.Completed(c)
		}
		j.notifySources(ctx, c)
		j.notifySinks(ctx, c)
	}
	return err
}

// notifySinks tells sinks that commit in two phases (Kafka transactions)
// that c, holding their pre-committed output, is complete.
func (j *Job) notifySinks(ctx context.Context, c *checkpoint.Checkpoint) {
	for _, d := range j.drivers {
		so, ok := d.op.(*sinkOp)
		if !ok {
			continue
		}
		n, ok := so.sink.(connector.SinkCommitter)
		if !ok {
			continue
		}
		data, err := c.ReadPart(d.partName() + ".meta")
		var st driverState
		if err == nil {
			err = json.Unmarshal(data, &st)
		}
		if err == nil {
			err = n.CheckpointComplete(ctx, st.Sink)
		}
		if err != nil {
			j.warn("commit:"+d.name, fmt.Sprintf("%s: after checkpoint %d: %v", d.name, c.ID, err))
		}
	}
}

// tellCheckpointing tells the sinks that want to know
// (connector.SinkCheckpointing) whether the job takes checkpoints.
func (j *Job) tellCheckpointing(on bool) {
	for _, d := range j.drivers {
		if so, ok := d.op.(*sinkOp); ok {
			if c, ok := so.sink.(connector.SinkCheckpointing); ok {
				c.Checkpointing(on)
			}
		}
	}
}

// needCheckpoints says why a job that takes no checkpoints cannot run
// ("" when it can): a sink that commits only when one completes.
func (j *Job) needCheckpoints() string {
	for _, d := range j.drivers {
		if so, ok := d.op.(*sinkOp); ok {
			if r, ok := so.sink.(connector.CheckpointRequirer); ok {
				if why := r.NeedsCheckpoints(); why != "" {
					return fmt.Sprintf("%s: %s, and this job takes no checkpoints: run it with --state-dir DIR "+
						"and a positive 'execution.checkpointing.interval'", d.name, why)
				}
			}
		}
	}
	return ""
}

// notifySources tells sources that want to know (Kafka) that their
// position in c is durable.
func (j *Job) notifySources(ctx context.Context, c *checkpoint.Checkpoint) {
	for _, r := range j.sources {
		n, ok := r.src.(connector.CheckpointNotifier)
		if !ok {
			continue
		}
		data, err := c.ReadPart(r.cp.id + ".src")
		if err != nil {
			continue
		}
		var st srcState
		if json.Unmarshal(data, &st) == nil {
			if err := n.CheckpointComplete(ctx, st.Pos); err != nil {
				j.warn("notify:"+r.name, fmt.Sprintf("source %s: after checkpoint %d: %v", r.name, c.ID, err))
			}
		}
	}
}

// restoring is the restore of one operator partition's store, started by
// restoredState.
type restoring struct {
	done    chan struct{}
	st      *state.Store
	err     error
	claimed bool // its operator took the store (and closes it)
}

// restoredState is the store of the operator instance being built,
// restored from c. The first partition of an operator built starts the
// restores of all its partitions at once, each on a goroutine of its own
// (restoring is mostly CPU: reading, sorting and building Badger tables),
// and each partition takes its store when it is built. A store no
// partition took (the build failed first) is closed with the job.
func (b *builder) restoredState(c *checkpoint.Checkpoint) (*state.Store, error) {
	id, part, parts := b.curID, b.curPart, max(b.curParts, 1)
	budget := b.budgetShare()
	if parts == 1 {
		return b.restoreState(c, filepath.Join(b.opts.StateDir, instanceName(id, 0)), id, 0, 1, budget)
	}
	if b.restoring == nil {
		b.restoring = map[string]*restoring{}
	}
	r := b.restoring[instanceName(id, part)]
	if r == nil {
		var all []*restoring
		for p := range parts {
			name := instanceName(id, p)
			if b.restoring[name] != nil {
				continue
			}
			rp := &restoring{done: make(chan struct{})}
			b.restoring[name] = rp
			all = append(all, rp)
			dir := filepath.Join(b.opts.StateDir, name)
			go func() {
				defer close(rp.done)
				rp.st, rp.err = b.restoreState(c, dir, id, p, parts, budget)
			}()
		}
		b.job.closers = append(b.job.closers, func() error {
			var err error
			for _, rp := range all {
				<-rp.done
				if !rp.claimed && rp.st != nil {
					if cerr := rp.st.Close(); err == nil {
						err = cerr
					}
				}
			}
			return err
		})
		r = b.restoring[instanceName(id, part)]
	}
	<-r.done
	r.claimed = r.err == nil
	return r.st, r.err
}

// restoreState makes the store of operator id's partition part of parts
// from c, in dir (emptied first: it holds the state of the run that
// stopped, newer than the checkpoint). It reads nothing of b but settings
// (restoredState calls it on several goroutines at once).
//
// At the checkpoint's parallelism, partition i restores the part its
// namesake wrote. At another one, it restores the entries of its key
// groups (state.KeyGroupFilter) from every old partition whose key group
// range overlaps its own: from one or two old parts when the parallelism
// grows, from several when it shrinks. A checkpoint written before key
// groups (no max parallelism in its manifest) partitioned keys by a hash
// modulo the parallelism: every old part is read, and filtered.
func (b *builder) restoreState(c *checkpoint.Checkpoint, dir, id string, part, parts int, budget int64) (*state.Store, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	old := oldPartitions(c, id)
	if old == 0 {
		return nil, fmt.Errorf("checkpoint %d has no state for operator %s", c.ID, id)
	}
	// A finished operator (its inputs had all ended) kept no state: its
	// partitions finish together, so partition 0's meta says.
	meta := fmt.Sprintf("%s.p%d.meta", id, part)
	if old != parts {
		meta = id + ".p0.meta"
	}
	if st, err := readMeta(c, meta); err != nil {
		return nil, err
	} else if st.Finished {
		return state.Open(dir, state.Options{MemoryBudget: budget, Scratch: true})
	}
	var from []int
	var keep func(string, []byte) bool
	switch m := c.MaxParallelism; {
	case old == parts && m == b.maxP:
		from = []int{part}
	case m == 0:
		for i := range old {
			from = append(from, i)
		}
		keep = state.KeyGroupFilter(part, parts, b.maxP, nil)
	default:
		from = overlapping(part, parts, old, m)
		keep = state.KeyGroupFilter(part, parts, m, nil)
	}
	var srcs []state.SnapshotPart
	var open []io.Closer
	defer func() {
		for _, r := range open {
			_ = r.Close()
		}
	}()
	openPart := func(name string) (state.SnapshotPart, error) {
		r, err := c.Open(name)
		if err != nil {
			return state.SnapshotPart{}, err
		}
		open = append(open, r)
		info, _ := c.Part(name)
		return state.SnapshotPart{Name: c.File(name), R: r, Size: info.Size}, nil
	}
	for _, i := range from {
		name := fmt.Sprintf("%s.p%d", id, i)
		if !c.HasPart(name + ".state") {
			return nil, fmt.Errorf("checkpoint %d has no state for operator %s (partition %d)", c.ID, id, i)
		}
		p, err := openPart(name + ".state")
		if err != nil {
			return nil, err
		}
		for n := 1; c.HasPart(deltaName(name, n)); n++ {
			dp, err := openPart(deltaName(name, n))
			if err != nil {
				return nil, err
			}
			p.Deltas = append(p.Deltas, dp)
		}
		srcs = append(srcs, p)
	}
	return state.Restore(dir, state.Options{MemoryBudget: budget, Scratch: true}, srcs, keep)
}

// oldPartitions is the number of partitions operator id ran in when c was
// taken (0: it has no part in c).
func oldPartitions(c *checkpoint.Checkpoint, id string) int {
	n := 0
	for c.HasPart(fmt.Sprintf("%s.p%d.meta", id, n)) {
		n++
	}
	return n
}

// overlapping lists the partitions of old whose key groups (of maxP)
// partition part of parts owns some of.
func overlapping(part, parts, old, maxP int) []int {
	var from []int
	for kg := range maxP {
		if state.KeyGroupPartition(kg, parts, maxP) != part {
			continue
		}
		o := state.KeyGroupPartition(kg, old, maxP)
		if len(from) == 0 || from[len(from)-1] != o {
			from = append(from, o)
		}
	}
	return from
}
