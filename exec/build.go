package exec

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/streamsql/streamsql/checkpoint"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/settings"
	"github.com/streamsql/streamsql/state"
)

// Options configure building a job.
type Options struct {
	// Settings are the job's settings (SET and --set), resolved; the zero
	// value stands for settings.Defaults().
	Settings settings.Settings
	// BaseDir resolves relative file paths (the job file's directory).
	BaseDir string
	// Clock is processing time in ms (state TTL, PROCTIME()); nil: the
	// system clock.
	Clock func() int64
	// Wake returns a channel that is closed once Clock has reached at:
	// how the runtime waits for processing-time timers (proctime.go). nil:
	// a timer of the system clock. Tests give a fake clock both.
	Wake func(at int64) <-chan struct{}
	// Stdout and Stderr are given to console connectors (print).
	Stdout, Stderr io.Writer
	// Parallelism is the number of partitions keyed operators run in (0 or
	// 1: one, in the job's task).
	Parallelism int
	// StateDir keeps operator state (--state-dir); "" means temporary
	// stores, removed when the job ends.
	StateDir string
	// Warn receives warnings found while the job runs (inputs of a join
	// drifting apart); nil: they go to Stderr.
	Warn func(msg string)
	// QuerySink makes the sink of a SELECT (the shell's view, or stdout for
	// `streamsql run`). Required when plans include a SELECT. It is called
	// once per SELECT, in the order of the plans, with the name the job's
	// counters give it: "query 1" for the first SELECT, "query 2" for the
	// second (INSERTs are not counted).
	QuerySink func(name string, cols []connector.Column) connector.Sink
	// Checkpoint configures checkpoints (checkpoint.go); nil: none.
	Checkpoint *Checkpointing
	// Source is the job's SQL text, which the plans' spans point into: a
	// runtime error then says where its operator comes from
	// ("job.sql:12:3: runtime error in Join …"). nil: it names the
	// operator only.
	Source *diag.Source
}

type builder struct {
	opts Options
	// stateDirs are the operator instances that opened a state directory.
	stateDirs map[string]bool
	job       *Job
	evalO     eval.Options
	// groups are the job's watermark alignment groups by name.
	groups map[string]*alignGroup
	// scans are the counters of each source, by ID (late rows are counted
	// against the source they came from).
	scans map[string]*Counters
	// reads is the source runner (its index in job.sources) of each source
	// ID read so far: a table is read once per job (source).
	reads map[string]int
	// late are the late-row recorders, to connect to their sources.
	late []lateOf
	// drift is the gap between two inputs of one operator that is warned
	// about (ms; 0: never).
	drift int64
	// future is how far ahead of the wall clock an event time is warned
	// about.
	future time.Duration
	// at is the stage (nil: the job's task) that runs the output of the
	// node built last: node sets it for its n, so that fanIn can tell
	// whether an operator's inputs come from one goroutine.
	at *stage
	// span is the SQL of the node being built, for its operator's
	// runtime errors (drive), and id its ID (counters).
	span diag.Span
	id   string
	// drifts are the drift warnings of multi-input operators (watchDrift).
	drifts map[operator]*driftCheck
	// sides names the inputs of multi-input operators (their tables), for
	// the metrics of each input's watermark.
	sides map[operator][]string
	// curID and curPart name the operator instance being built (its
	// physical ID and partition), for its driver and state in checkpoints.
	curID   string
	curPart int
	// curParts is the number of partitions of the operator being built.
	curParts int
	// shared is the Badger database the job's temporary stores spill to
	// (made with the first).
	shared *state.Shared
	// maxP is 'pipeline.max-parallelism': the key groups of keyed state.
	maxP int
	// pendingLate are the dead-letter writers of the operator being built,
	// for its driver (drive).
	pendingLate []*lateWriter
	// restoring are the restores of operator partitions' stores, by
	// instance name, started by restoredState.
	restoring map[string]*restoring
}

type lateOf struct {
	w      *lateWriter
	source string
}

// watchDrift sets the drift warning between the inputs of a multi-input
// operator (named as the planner names them): it fires when they are more
// than the drift setting apart beyond what the operator itself waits for
// (bound: an interval join's time bound). The operator's driver (drive)
// checks it.
func (b *builder) watchDrift(op operator, bound int64, names [2]string) {
	b.nameSides(op, names[:])
	if b.drift <= 0 {
		return
	}
	b.drifts[op] = &driftCheck{threshold: satAdd(b.drift, bound), names: names[:], op: op.counters().Name, warn: b.job.warn}
}

// Build turns physical plans (planner.Lower) into a job. Every INSERT and
// SELECT becomes a pipeline; they run together, as a statement set. Build
// constructs the operators the plans describe and decides nothing about
// their meaning. Nothing is opened or started: the job's sources,
// operators and sinks get Run's context when it runs.
func Build(_ context.Context, plans []*physical.Plan, opts Options) (*Job, error) {
	opts.Settings = opts.Settings.EnsureDefaults()
	if opts.Clock == nil {
		opts.Clock = func() int64 { return time.Now().UnixMilli() }
	}
	if opts.Wake == nil {
		opts.Wake = realWake(opts.Clock)
	}
	b := &builder{opts: opts, job: &Job{sinksDone: make(chan struct{}, len(plans)), warned: map[string]bool{}},
		evalO: eval.Options{Now: opts.Clock}, groups: map[string]*alignGroup{}, scans: map[string]*Counters{},
		reads: map[string]int{}, drifts: map[operator]*driftCheck{},
		future: opts.Settings.FutureTimeWarning, drift: opts.Settings.DriftWarning.Milliseconds()}
	b.maxP = opts.Settings.MaxParallelism
	if b.maxP <= 0 {
		b.maxP = settings.DefaultMaxParallelism
	}
	if opts.Parallelism > b.maxP {
		return nil, fmt.Errorf("'parallelism' = %d is more than 'pipeline.max-parallelism' = %d (the key groups keyed state is split into): "+
			"lower 'parallelism' or raise 'pipeline.max-parallelism'", opts.Parallelism, b.maxP)
	}
	b.job.warnTo = opts.Warn
	if b.job.warnTo == nil {
		w := opts.Stderr
		if w == nil {
			w = os.Stderr
		}
		b.job.warnTo = func(msg string) { fmt.Fprintf(w, "streamsql: warning: %s\n", msg) }
	}
	if c := opts.Checkpoint; c != nil && c.Restore != nil {
		// A job whose operators are not the checkpoint's is refused before
		// anything is opened (checkpoint.ComparePlan says what changed).
		if err := checkpoint.ComparePlan(c.Restore, opts.StateDir, checkpointPlan(plans)); err != nil {
			return nil, err
		}
		if m := c.Restore.MaxParallelism; m != 0 && m != b.maxP {
			return nil, fmt.Errorf("checkpoint %d in %s was taken with 'pipeline.max-parallelism' = %d and the job now has %d: "+
				"its keyed state is split into %d key groups, which cannot be split again into %d; "+
				"set 'pipeline.max-parallelism' = '%d' to resume, or start over: remove %s (rm -r %s) or give another --state-dir",
				c.Restore.ID, c.Restore.Dir, m, b.maxP, m, b.maxP, m, opts.StateDir, opts.StateDir)
		}
	}
	for _, p := range plans {
		if err := b.sink(p.Root); err != nil {
			return nil, err
		}
	}
	for _, l := range b.late {
		l.w.src = b.scans[l.source]
	}
	if len(b.pendingLate) > 0 {
		return nil, fmt.Errorf("internal error: %d dead-letter writers belong to no operator", len(b.pendingLate))
	}
	b.job.stateDir = opts.StateDir
	b.job.parallelism = max(opts.Parallelism, 1)
	b.job.maxParallelism = b.maxP
	if c := opts.Checkpoint; c != nil {
		b.job.cp = &cpState{cfg: c, sinkFinished: make(chan struct{}, len(b.job.sinks)), off: b.job.CheckpointsOff(),
			turn: make(chan struct{}, 1)}
		if b.job.cp.off == "" {
			for _, d := range b.job.drivers {
				d.cp = b.job.cp
			}
		}
		b.job.cpOps = checkpointPlan(plans)
		if c.Restore != nil && b.job.cp.off != "" {
			b.job.Close()
			return nil, fmt.Errorf("cannot resume from checkpoint %d in %s: %s", c.Restore.ID, opts.StateDir, b.job.cp.off)
		}
		for _, r := range b.job.sources {
			r.cp.reqs = make(chan *barrier, 2)
		}
	}
	return b.job, nil
}

func (b *builder) counters(name string, list *[]*Counters) *Counters {
	c := newCounters(name)
	c.ID = b.id
	*list = append(*list, c)
	return c
}

func (b *builder) compile(e expr.Expr) (scalarFunc, error) {
	f, err := eval.CompileWith(e, b.evalO)
	if err != nil {
		return nil, err
	}
	return scalarFunc(f), nil
}

func (b *builder) predicate(e expr.Expr) (predFunc, error) {
	if e == nil {
		return nil, nil
	}
	f, err := eval.CompilePredicateWith(e, b.evalO)
	if err != nil {
		return nil, err
	}
	return predFunc(f), nil
}

// spec completes a connector spec the planner made with the job's
// settings, base directory and console writers.
func (b *builder) spec(s connector.Spec) connector.Spec {
	s.BaseDir, s.Stdout, s.Stderr = b.opts.BaseDir, b.opts.Stdout, b.opts.Stderr
	return s
}

// sink builds a plan's sink: a table's connector, or the caller's sink of
// a SELECT.
func (b *builder) sink(s *physical.Sink) error {
	b.id = s.ID
	var sk connector.Sink
	if s.Query {
		if b.opts.QuerySink == nil {
			return fmt.Errorf("a SELECT needs somewhere to show its rows")
		}
		sk = b.opts.QuerySink(s.Name, s.Spec.Schema)
	} else {
		f, ok := connector.LookupSink(s.Spec.Connector)
		if !ok {
			return fmt.Errorf("table %s: connector '%s' cannot be written by this build of streamsql yet", s.Name, s.Spec.Connector)
		}
		var err error
		if sk, err = f(b.spec(s.Spec)); err != nil {
			return fmt.Errorf("sink %s: %w", s.Name, err)
		}
	}
	op := &sinkOp{sink: sk, c: b.counters(s.Name, &b.job.Sinks), done: b.job.sinksDone,
		dropBefore: s.DropBefore, beforeAsDelete: s.BeforeAsDelete}
	for i, c := range s.Casts {
		if c == nil {
			continue
		}
		if op.casts == nil {
			op.casts = make([]scalarFunc, len(s.Casts))
		}
		var err error
		if op.casts[i], err = b.compile(c); err != nil {
			return fmt.Errorf("sink %s: column %s: %w", s.Name, s.Spec.Schema[i].Name, err)
		}
	}
	name := s.Name // "query 1"
	if !s.Query {
		name = "sink " + s.Name
	}
	b.span = s.Span
	b.curID, b.curPart, b.curParts = s.ID, 0, 1
	return b.node(s.Input, b.driveSink(op, name))
}

// columnKeys are key columns as expressions, for partitioning.
func columnKeys(key []int, cols []physical.Column) []expr.Expr {
	out := make([]expr.Expr, len(key))
	for i, k := range key {
		out[i] = &expr.Column{Index: k, Name: cols[k].Name, T: cols[k].Type}
	}
	return out
}

// node builds the operator for n, sending its output to out, and then its
// inputs.
func (b *builder) node(n physical.Node, out collector) error {
	b.span, b.id = n.Base().Span, n.Base().ID
	b.curID, b.curPart, b.curParts = n.Base().ID, 0, 1
	switch x := n.(type) {
	case *physical.Source:
		return b.source(x, out)
	case *physical.Values:
		return b.values(x, out)
	case *physical.Calc:
		op := &calcOp{out: out, c: b.counters(x.Name, &b.job.Operators)}
		if x.Cond != nil {
			f, err := eval.CompilePredicateWith(x.Cond, op.evalOptions(b.evalO))
			if err != nil {
				return fmt.Errorf("WHERE %s: %w", x.Cond, err)
			}
			op.filter = f
		}
		if x.Exprs != nil {
			op.exprs = make([]scalarFunc, 0, len(x.Exprs))
		}
		for _, e := range x.Exprs {
			f, err := eval.CompileWith(e, op.evalOptions(b.evalO))
			if err != nil {
				return err
			}
			op.exprs = append(op.exprs, scalarFunc(f))
		}
		return b.node(x.Input, b.drive(op, 1, out).port(0))
	case *physical.Correlate:
		op, err := b.correlate(x, out)
		if err != nil {
			return err
		}
		return b.node(x.Input, b.drive(op, 1, out).port(0))
	case *physical.Union:
		op := &unionOp{out: out, c: b.counters(x.Name, &b.job.Operators)}
		return b.fanIn(x.Ins, op, out)
	case *physical.RegularJoin:
		return b.keyed(x.Inputs(), x.Keys[:], out, func(out collector) (operator, error) { return b.join(x, out) })
	case *physical.IntervalJoin:
		return b.keyed(x.Inputs(), x.Keys[:], out, func(out collector) (operator, error) { return b.intervalJoin(x, out) })
	case *physical.WindowJoin:
		return b.keyed(x.Inputs(), x.Keys[:], out, func(out collector) (operator, error) { return b.windowJoin(x, out) })
	case *physical.TemporalJoin:
		return b.keyed(x.Inputs(), x.Keys[:], out, func(out collector) (operator, error) { return b.temporalJoin(x, out) })
	case *physical.LookupJoin:
		return b.lookupJoin(x, out)
	case *physical.Window:
		op := &windowOp{fn: x.Func, timeCol: x.TimeCol, size: x.Size, slide: x.Slide, step: x.Step, offset: x.Offset,
			out: out, c: b.counters(x.Name, &b.job.Operators), late: b.lateFor(x.Late), cols: columns(x.InCols)}
		return b.node(x.Input, b.drive(op, 1, out).port(0))
	case *physical.WindowAggregate:
		if x.Session != nil {
			// One group's sessions stay in one partition: partitioned by
			// the keys without the row's own window.
			return b.keyed(x.Inputs(), [][]expr.Expr{x.Session.Keys}, out, func(out collector) (operator, error) { return b.sessionAgg(x, out) })
		}
		return b.keyed(x.Inputs(), [][]expr.Expr{x.Keys}, out, func(out collector) (operator, error) { return b.windowAgg(x, out) })
	case *physical.GroupAggregate:
		return b.keyed(x.Inputs(), [][]expr.Expr{x.Keys}, out, func(out collector) (operator, error) { return b.groupAgg(x, out) })
	case *physical.OverAggregate:
		return b.keyed(x.Inputs(), [][]expr.Expr{x.Partition}, out, func(out collector) (operator, error) { return b.overAgg(x, out) })
	case *physical.Rank:
		return b.keyed(x.Inputs(), [][]expr.Expr{x.Partition}, out, func(out collector) (operator, error) { return b.rank(x, out) })
	case *physical.Normalize:
		return b.keyed(x.Inputs(), [][]expr.Expr{columnKeys(x.Key, x.Input.Base().Cols)}, out,
			func(out collector) (operator, error) { return b.normalize(x, out) })
	case *physical.UpsertMaterialize:
		return b.keyed(x.Inputs(), [][]expr.Expr{columnKeys(x.Key, x.Input.Base().Cols)}, out,
			func(out collector) (operator, error) { return b.materialize(x, out) })
	case *physical.Sink:
		return fmt.Errorf("internal: a sink inside a plan")
	}
	return fmt.Errorf("internal: no operator for %T", n)
}

// source adds a source runner for a Source.
//
// A table is read once per job, however many scans of it the job's
// statements have (Flink's source reuse): the planner gives scans of one
// table with one watermark one Source ID; the first makes the source
// runner, later ones add their consumer to its fan-out, so every statement
// sees the same rows, in the same order, with the same watermarks and
// idleness.
func (b *builder) source(s *physical.Source, out collector) error {
	b.at = nil // sources hand their rows to the task
	if i, ok := b.reads[s.ID]; ok {
		f, ok := b.job.entry[i].(*fanOut)
		if !ok {
			f = &fanOut{outs: []collector{b.job.entry[i]}}
			b.job.entry[i] = f
		}
		f.outs = append(f.outs, out)
		return nil
	}
	f, ok := connector.LookupSource(s.Spec.Connector)
	if !ok {
		return fmt.Errorf("table %s: connector '%s' cannot be read by this build of streamsql yet", s.TableName, s.Spec.Connector)
	}
	src, err := f(b.spec(s.Spec))
	if err != nil {
		return fmt.Errorf("source %s: %w", s.TableName, err)
	}
	prep, err := b.prepare(s)
	if err != nil {
		return err
	}
	r := &sourceRunner{idx: len(b.job.sources), name: s.Name, src: src, prepare: prep, timeCol: -1,
		counters: b.counters(s.Name, &b.job.Sources), warn: b.job.warn, future: b.future,
		idleTimeout: s.IdleTimeout, bounded: s.Bounded, skipBad: s.SkipBad, cp: &srcCP{id: s.ID},
		gapAlert: s.GapAlert.Milliseconds()}
	b.scans[s.ID] = r.counters
	if s.Watermark != nil {
		r.timeCol, r.delay = s.Watermark.Col, s.Watermark.Delay
	}
	if a := s.Align; a != nil {
		g := b.groups[a.Group]
		if g == nil {
			g = &alignGroup{}
			b.groups[a.Group] = g
		}
		r.align = g.join(a.MaxDrift.Milliseconds(), a.Interval)
		r.counters.Group = a.Group
	}
	b.reads[s.ID] = len(b.job.sources)
	b.job.sources = append(b.job.sources, r)
	b.job.entry = append(b.job.entry, out)
	return nil
}

// fanOut hands a shared source's rows, watermarks, idleness and end to
// each of its consumers in turn, in the task. Consumers do not modify the
// batches they are given (collector), so they can share one.
type fanOut struct{ outs []collector }

func (f *fanOut) push(b row.Batch) error {
	for _, o := range f.outs {
		if err := o.push(b); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanOut) watermark(wm int64) error {
	for _, o := range f.outs {
		if err := o.watermark(wm); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanOut) idle(idle bool) error {
	for _, o := range f.outs {
		if err := o.idle(idle); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanOut) barrier(b *barrier) error {
	for _, o := range f.outs {
		if err := o.barrier(b); err != nil {
			return err
		}
	}
	return nil
}

func (f *fanOut) end() error {
	for _, o := range f.outs {
		if err := o.end(); err != nil {
			return err
		}
	}
	return nil
}

// computed is a source table's computed columns, compiled: fill sets
// them in a row of the table's columns, from its other columns.
type computed struct {
	table string
	cols  []physical.Computed
	fs    []scalarFunc
}

func (b *builder) computed(s *physical.Source) (*computed, error) {
	c := &computed{table: s.TableName, cols: s.Computed}
	for _, col := range s.Computed {
		f, err := b.compile(col.Expr)
		if err != nil {
			return nil, fmt.Errorf("table %s, computed column %s: %w", s.TableName, col.Name, err)
		}
		c.fs = append(c.fs, f)
	}
	return c, nil
}

func (c *computed) fill(vals []row.Value) error {
	for i, f := range c.fs {
		v, err := f(vals)
		if err != nil {
			return fmt.Errorf("table %s, computed column %s: %w", c.table, c.cols[i].Name, err)
		}
		vals[c.cols[i].At] = v
	}
	return nil
}

// prepare places the columns a source decodes at their positions in its
// output and computes the computed columns.
func (b *builder) prepare(s *physical.Source) (func(row.Batch) (row.Batch, error), error) {
	comps, err := b.computed(s)
	if err != nil {
		return nil, err
	}
	n := len(s.Cols)
	identity := len(comps.fs) == 0 && len(s.Place) == n
	for j, p := range s.Place {
		identity = identity && p == j
	}
	if identity {
		return func(b row.Batch) (row.Batch, error) { return b, nil }, nil
	}
	pos := s.Place
	return func(in row.Batch) (row.Batch, error) {
		for k, r := range in {
			vals := make([]row.Value, n)
			for j, p := range pos {
				if j < len(r.Vals) {
					vals[p] = r.Vals[j]
				}
			}
			if err := comps.fill(vals); err != nil {
				return nil, err
			}
			in[k] = row.Row{Kind: r.Kind, Vals: vals}
		}
		return in, nil
	}, nil
}

func (b *builder) keyer(es []expr.Expr) (keyer, error) {
	var k keyer
	cols := make([]int, 0, len(es))
	for _, e := range es {
		if c, ok := e.(*expr.Column); ok {
			cols = append(cols, c.Index)
		}
	}
	if len(cols) == len(es) {
		k.cols = cols
		return k, nil
	}
	for _, e := range es {
		f, err := b.compile(e)
		if err != nil {
			return k, err
		}
		k.fns = append(k.fns, f)
	}
	return k, nil
}

// lateFor is the late-row recorder of an operator input: it counts late
// rows against the source the planner found under the input and writes
// them to that table's dead-letter file when it has one. It is nil when
// the input is not one table's rows.
func (b *builder) lateFor(l *physical.LateRows) *lateWriter {
	if l == nil {
		return nil
	}
	w := &lateWriter{}
	// The source is built after the operator: its counters are set at the
	// end of Build.
	b.late = append(b.late, lateOf{w, l.Source.ID})
	if l.Path != "" {
		p := l.Path
		if !filepath.IsAbs(p) && b.opts.BaseDir != "" {
			p = filepath.Join(b.opts.BaseDir, p)
		}
		// Checkpoints record the file by its absolute path: the same from
		// any working directory.
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		f, ok := b.job.dead.files[p]
		if !ok {
			f = b.job.dead.file(p)
			b.job.closers = append(b.job.closers, f.close)
		}
		f.add(w)
		// The operator's driver passes its writers through the barriers.
		b.pendingLate = append(b.pendingLate, w)
	}
	return w
}

func columns(cols []physical.Column) []connector.Column {
	out := make([]connector.Column, len(cols))
	for i, c := range cols {
		out[i] = connector.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

func (b *builder) join(x *physical.RegularJoin, out collector) (operator, error) {
	op := &joinOp{name: x.Name, nl: x.Width[0], nr: x.Width[1], out: out,
		clock: b.opts.Clock, inner: !x.Outer[0] && !x.Outer[1], semi: x.Semi, anti: x.Anti}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, 0, x.Sides)
	var err error
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	js, err := b.joinSides(op.name, &x.Join)
	if err != nil {
		return nil, err
	}
	for i := range op.side {
		op.side[i] = &joinSide{key: js.keys[i], outer: x.Outer[i], table: js.tables[i]}
	}
	op.ttl = x.TTL
	op.store = js.store
	return op, nil
}

func (b *builder) intervalJoin(x *physical.IntervalJoin, out collector) (operator, error) {
	op := &intervalJoinOp{name: x.Name, nl: x.Width[0], nr: x.Width[1],
		lower: x.Lower, upper: x.Upper, timeCol: x.TimeCol, out: out, delay: x.Delay}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, op.delay, x.Sides)
	op.late = [2]*lateWriter{b.lateFor(x.Late[0]), b.lateFor(x.Late[1])}
	op.lateCols = [2][]connector.Column{columns(x.InCols[0]), columns(x.InCols[1])}
	var err error
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	js, err := b.joinSides(op.name, &x.Join)
	if err != nil {
		return nil, err
	}
	for i := range op.side {
		op.side[i] = &ijSide{key: js.keys[i], outer: x.Outer[i], table: js.tables[i]}
	}
	op.store = js.store
	return op, nil
}

func (b *builder) windowJoin(x *physical.WindowJoin, out collector) (operator, error) {
	op := &windowJoinOp{name: x.Name, nl: x.Width[0], nr: x.Width[1], out: out}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, 0, x.Sides)
	op.late = [2]*lateWriter{b.lateFor(x.Late[0]), b.lateFor(x.Late[1])}
	op.lcols = [2][]connector.Column{columns(x.InCols[0]), columns(x.InCols[1])}
	var err error
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	js, err := b.joinSides(op.name, &x.Join)
	if err != nil {
		return nil, err
	}
	for i := range op.side {
		op.side[i] = &wjSide{key: js.keys[i], end: x.End[i], outer: x.Outer[i], table: js.tables[i]}
	}
	if x.Lateness > 0 && x.FinalOnly {
		op.delay = x.Lateness
	} else if x.Lateness > 0 {
		op.lateness = x.Lateness
		op.side[0].fired = js.store.Table("left-fired", state.TableOptions{})
		op.side[1].fired = js.store.Table("right-fired", state.TableOptions{})
	}
	op.store = js.store
	return op, nil
}

// sides is what the two-sided joins share: each side's key, and one state
// store with a table per side.
type sides struct {
	keys   [2]keyer
	store  *state.Store
	tables [2]*state.Table
}

func (b *builder) joinSides(name string, j *physical.Join) (sides, error) {
	var js sides
	for i, ks := range j.Keys {
		k, err := b.keyer(ks)
		if err != nil {
			return js, err
		}
		k.nullSafe = j.NullSafe
		js.keys[i] = k
	}
	st, err := b.openState()
	if err != nil {
		return js, fmt.Errorf("%s: %w", name, err)
	}
	js.store = st
	js.tables = [2]*state.Table{st.Table("left", state.TableOptions{}), st.Table("right", state.TableOptions{})}
	return js, nil
}

// openState opens the state of one operator partition: under
// --state-dir/<operator ID>.p<partition> when one was given (the name of
// its parts in a checkpoint, the same from one run of the plan to the
// next), else a temporary store that touches the disk only if it has to
// spill, in the job's one temporary Badger database. The memory budget ('state.memory-budget', default 1gb) is shared
// by every partition of every stateful operator of the job.
func (b *builder) openState() (*state.Store, error) {
	dir := ""
	if b.opts.StateDir != "" {
		name := instanceName(b.curID, b.curPart)
		if b.stateDirs[name] {
			// An operator instance keeps one store: a second would share
			// its directory (a bug of exec, not of the job).
			return nil, fmt.Errorf("operator %s (partition %d) opened its state twice", b.curID, b.curPart)
		}
		if b.stateDirs == nil {
			b.stateDirs = map[string]bool{}
		}
		b.stateDirs[name] = true
		dir = filepath.Join(b.opts.StateDir, name)
	}
	var st *state.Store
	var err error
	switch c := b.opts.Checkpoint; {
	case c != nil && c.Restore != nil && dir != "":
		st, err = b.restoredState(c.Restore)
	case dir == "":
		// Without --state-dir, the stores of the job spill to one Badger
		// database: its memtables, table builders and compactions are
		// paid once, not once per operator partition.
		if b.shared == nil {
			b.shared = state.NewShared()
		}
		st, err = state.Open("", state.Options{MemoryBudget: b.budgetShare(), Scratch: true, Shared: b.shared})
	default:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		st, err = state.Open(dir, state.Options{MemoryBudget: b.budgetShare(), Scratch: true})
	}
	if err != nil {
		return nil, err
	}
	b.job.closers = append(b.job.closers, st.Close)
	return st, nil
}

// budgetShare is the memory budget of one store. Stores are opened as the
// plan is built, so the share divides by the partitions of one operator;
// the number of stateful operators in a job is small.
func (b *builder) budgetShare() int64 {
	total := b.opts.Settings.MemoryBudget
	if c := state.ContainerBudget(); c > 0 && total > c {
		b.job.warn("memory-budget-container", fmt.Sprintf("'state.memory-budget' = %d MB is more than the container's memory limit leaves for state "+
			"(%d MB: the Go memory limit is capped at three quarters of the container's); the collector will take up to half the CPU, "+
			"and the kernel may kill the job: set 'state.memory-budget' to at most %dmb", total>>20, c>>20, c>>20))
	}
	return max(total/int64(max(b.opts.Parallelism, 1)), 1)
}

func (b *builder) temporalJoin(x *physical.TemporalJoin, out collector) (operator, error) {
	op := &temporalJoinOp{name: x.Name, nl: x.Width[0], nr: x.Width[1],
		leftTime: x.LeftTime, ltime: x.RightTime, left: x.Outer[0],
		out: out, lcols: columns(x.InCols[0])}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, 0, x.Sides)
	op.late = b.lateFor(x.Late[0])
	op.rlate, op.rcols = b.lateFor(x.Late[1]), columns(x.InCols[1])
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.probes = st.Table("probes", state.TableOptions{})
	op.versions = st.Table("versions", state.TableOptions{})
	if op.lkey, err = b.keyer(x.Keys[0]); err != nil {
		return nil, err
	}
	if op.rkey, err = b.keyer(x.Keys[1]); err != nil {
		return nil, err
	}
	op.lkey.nullSafe, op.rkey.nullSafe = x.NullSafe, x.NullSafe
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	return op, nil
}

func (b *builder) normalize(x *physical.Normalize, out collector) (operator, error) {
	op := &normalizeOp{name: x.Name, key: keyer{cols: x.Key}, before: x.UpdateBefore,
		ttl: x.TTL, clock: b.opts.Clock, out: out}
	op.c = b.counters(op.name, &b.job.Operators)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.rows = state.NewMap(st, "rows", state.BytesCodec{}, state.TableOptions{})
	return op, nil
}

func (b *builder) materialize(x *physical.UpsertMaterialize, out collector) (operator, error) {
	op := &materializeOp{name: x.Name, key: keyer{cols: x.Key},
		upsertKey: x.UpsertKey, ttl: x.TTL, clock: b.opts.Clock, out: out}
	op.c = b.counters(op.name, &b.job.Operators)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.lists = state.NewMap(st, "rows", matCodec{}, state.TableOptions{})
	return op, nil
}

// aggSpecs builds the aggregate calls of an aggregate: with retractable
// accumulators when the planner says its input may retract.
func (b *builder) aggSpecs(a *physical.Aggregate) ([]*aggSpec, error) {
	var specs []*aggSpec
	for _, c := range a.Aggs {
		var arg scalarFunc
		if len(c.Args) > 0 {
			f, err := b.compile(c.Args[0])
			if err != nil {
				return nil, err
			}
			arg = f
		}
		var s *aggSpec
		var err error
		if c.Fn == "LAG" {
			s, err = b.lagSpec(c, arg, a.Retract)
		} else {
			s, err = newAggSpec(c, arg, a.Retract)
		}
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

func (b *builder) groupAgg(x *physical.GroupAggregate, out collector) (operator, error) {
	specs, err := b.aggSpecs(&x.Aggregate)
	if err != nil {
		return nil, err
	}
	k, err := b.keyer(x.Keys)
	if err != nil {
		return nil, err
	}
	op := &groupAggOp{name: x.Name, key: k, specs: specs, pending: map[string]int{}, out: out, clock: b.opts.Clock, ttl: x.TTL}
	op.c = b.counters(op.name, &b.job.Operators)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.groups = state.NewMap(st, "groups", groupCodec{specs: specs}, state.TableOptions{})
	return op, nil
}

func (b *builder) windowAgg(x *physical.WindowAggregate, out collector) (operator, error) {
	specs, err := b.aggSpecs(&x.Aggregate)
	if err != nil {
		return nil, err
	}
	k, err := b.keyer(x.Keys)
	if err != nil {
		return nil, err
	}
	op := &windowAggOp{name: x.Name, key: k, endCol: x.EndCol, timeCol: x.TimeCol, specs: specs,
		lateness: x.Lateness, finalOnly: x.FinalOnly, pending: map[string]int{}, finCol: -1, verCol: -1,
		earlyFire: fireDelay{on: x.EarlyFire, delay: x.EarlyFireDelay}, lateFire: fireDelay{on: x.LateFire, delay: x.LateFireDelay},
		clock: b.opts.Clock, procTime: x.ProcTime, procFired: MinWatermark,
		out: out, lateCols: columns(x.InCols)}
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
	op.groups = state.NewMap(st, "windows", groupCodec{specs: specs, window: true}, state.TableOptions{})
	return op, nil
}
