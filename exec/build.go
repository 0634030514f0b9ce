package exec

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connector"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/eval"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// Options configure building a job.
type Options struct {
	// Settings are the job's settings (SET and --set).
	Settings map[string]string
	// BaseDir resolves relative file paths (the job file's directory).
	BaseDir string
	// Clock is processing time in ms (state TTL, PROCTIME()); nil: the
	// system clock.
	Clock func() int64
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
	// Source is the job's SQL text, which the plans' spans point into: a
	// runtime error then says where its operator comes from
	// ("job.sql:12:3: runtime error in Join …"). nil: it names the
	// operator only.
	Source *diag.Source
}

type builder struct {
	opts   Options
	stores int
	job    *Job
	evalO  eval.Options
	// groups are the job's watermark alignment groups by name.
	groups map[string]*alignGroup
	// scans are the counters of each scan's source (late rows are counted
	// against the source they came from).
	scans map[*logical.Scan]*Counters
	// reads is the source runner (its index in job.sources) of each table
	// read so far: a table is read once per job (scan).
	reads map[*catalog.Table]int
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
	// props are the derived properties of the plan being built.
	props map[logical.Node]*planner.Props
	// span is the SQL of the node being built, for its operator's
	// runtime errors (drive).
	span diag.Span
	// drifts are the drift warnings of multi-input operators (watchDrift).
	drifts map[operator]*driftCheck
}

// retracts reports whether n may emit -U or -D rows (the planner's
// changelog mode; true when it is not known).
func (b *builder) retracts(n logical.Node) bool {
	if p := b.props[n]; p != nil {
		return !p.Produced.IsInsertOnly()
	}
	return true
}

type lateOf struct {
	w    *lateWriter
	scan *logical.Scan
}

func (b *builder) driftSetting() error {
	b.future = 24 * time.Hour
	if v := b.opts.Settings["table.exec.source.future-time-warning"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("setting 'table.exec.source.future-time-warning': %w", err)
		}
		b.future = d
	}
	b.drift = time.Hour.Milliseconds()
	if v := b.opts.Settings["table.exec.watermark.drift-warning"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("setting 'table.exec.watermark.drift-warning': %w", err)
		}
		b.drift = d.Milliseconds()
	}
	return nil
}

// watchDrift sets the drift warning between the inputs of a multi-input
// operator: it fires when they are more than the drift setting apart
// beyond what the operator itself waits for (bound: an interval join's
// time bound). The operator's driver (drive) checks it.
func (b *builder) watchDrift(op operator, bound int64, inputs ...logical.Node) {
	if b.drift <= 0 {
		return
	}
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = sideName(in)
	}
	b.drifts[op] = &driftCheck{threshold: satAdd(b.drift, bound), names: names, op: op.counters().Name, warn: b.job.warn}
}

// Build turns plans into a job. Every INSERT and SELECT becomes a pipeline;
// they run together, as a statement set. Nothing is opened or started:
// the job's sources, operators and sinks get Run's context when it runs.
func Build(_ context.Context, plans []*planner.Plan, opts Options) (*Job, error) {
	if opts.Clock == nil {
		opts.Clock = func() int64 { return time.Now().UnixMilli() }
	}
	b := &builder{opts: opts, job: &Job{sinksDone: make(chan struct{}, len(plans)), warned: map[string]bool{}},
		evalO: eval.Options{Now: opts.Clock}, groups: map[string]*alignGroup{}, scans: map[*logical.Scan]*Counters{},
		reads: map[*catalog.Table]int{}, drifts: map[operator]*driftCheck{}}
	b.job.warnTo = opts.Warn
	if b.job.warnTo == nil {
		w := opts.Stderr
		if w == nil {
			w = os.Stderr
		}
		b.job.warnTo = func(msg string) { fmt.Fprintf(w, "streamsql: warning: %s\n", msg) }
	}
	if err := b.driftSetting(); err != nil {
		return nil, err
	}
	queries := 0
	for _, p := range plans {
		b.props = p.Props
		var err error
		if s, ok := p.Root.(*logical.Sink); ok {
			err = b.sink(s)
		} else {
			queries++
			err = b.query(queries, p.Root)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, l := range b.late {
		l.w.src = b.scans[l.scan]
	}
	return b.job, nil
}

func (b *builder) counters(name string, list *[]*Counters) *Counters {
	c := newCounters(name)
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

func (b *builder) spec(t *catalog.Table, schema []connector.Column) connector.Spec {
	s := t.ConnectorSpec(schema)
	s.Settings, s.BaseDir, s.Stdout, s.Stderr = b.opts.Settings, b.opts.BaseDir, b.opts.Stdout, b.opts.Stderr
	return s
}

func (b *builder) sink(s *logical.Sink) error {
	conn := s.Table.Connector()
	f, ok := connector.LookupSink(conn)
	if !ok {
		return fmt.Errorf("table %s: connector '%s' cannot be written by this build of streamsql yet", s.Table.Name, conn)
	}
	schema := s.Table.SinkColumns()
	sk, err := f(b.spec(s.Table, schema))
	if err != nil {
		return fmt.Errorf("sink %s: %w", s.Table.Name, err)
	}
	op := &sinkOp{sink: sk, c: b.counters(s.Table.Name, &b.job.Sinks), done: b.job.sinksDone,
		dropBefore: s.Table.Config != nil && s.Table.Config.SinkMode() == connectors.Upsert}
	if op.dropBefore && s.UpdateBefore {
		op.dropBefore, op.beforeAsDelete = false, true
	}
	// Implicit conversions from the query's types to the sink's.
	in := s.Input.Columns()
	for i, col := range schema {
		if i >= len(in) || types.SameIgnoringNull(in[i].Type, col.Type) {
			continue
		}
		if op.casts == nil {
			op.casts = make([]scalarFunc, len(schema))
		}
		cast := &expr.Call{Fn: "CAST", Args: []expr.Expr{&expr.Column{Index: i, Name: in[i].Name, T: in[i].Type}}, T: col.Type}
		if op.casts[i], err = b.compile(cast); err != nil {
			return fmt.Errorf("sink %s: column %s: %w", s.Table.Name, col.Name, err)
		}
	}
	b.span = s.Span()
	return b.node(s.Input, b.driveSink(op, "sink "+s.Table.Name))
}

// query builds the n-th SELECT (from 1) of the job.
func (b *builder) query(n int, root logical.Node) error {
	if b.opts.QuerySink == nil {
		return fmt.Errorf("a SELECT needs somewhere to show its rows")
	}
	var cols []connector.Column
	for _, c := range root.Columns() {
		cols = append(cols, connector.Column{Name: c.Name, Type: c.Type})
	}
	name := fmt.Sprintf("query %d", n)
	sk := b.opts.QuerySink(name, cols)
	op := &sinkOp{sink: sk, c: b.counters(name, &b.job.Sinks), done: b.job.sinksDone}
	b.span = root.Span()
	return b.node(root, b.driveSink(op, name))
}

// node builds the operator for n, sending its output to out, and then its
// inputs.
func (b *builder) node(n logical.Node, out collector) error {
	b.span = n.Span()
	switch x := n.(type) {
	case *logical.Scan:
		return b.scan(x, nil, out)
	case *logical.WatermarkAssigner:
		s, ok := x.Input.(*logical.Scan)
		if !ok {
			return fmt.Errorf("internal: a watermark assigner must sit on a scan, not %T", x.Input)
		}
		return b.scan(s, x, out)
	case *logical.Filter:
		op := &calcOp{out: out, c: b.counters("Filter", &b.job.Operators), wm: MinWatermark}
		f, err := eval.CompilePredicateWith(x.Cond, op.evalOptions(b.evalO))
		if err != nil {
			return fmt.Errorf("WHERE %s: %w", x.Cond, err)
		}
		op.filter = f
		return b.node(x.Input, b.drive(op, 1, out).port(0))
	case *logical.Project:
		op := &calcOp{out: out, c: b.counters("Project", &b.job.Operators), wm: MinWatermark}
		for _, e := range x.Exprs {
			f, err := eval.CompileWith(e, op.evalOptions(b.evalO))
			if err != nil {
				return err
			}
			op.exprs = append(op.exprs, scalarFunc(f))
		}
		return b.node(x.Input, b.drive(op, 1, out).port(0))
	case *logical.Union:
		op := &unionOp{out: out, c: b.counters("UnionAll", &b.job.Operators)}
		return b.fanIn(x.Inputs, op, out)
	case *logical.Join:
		return b.keyed([]logical.Node{x.Left, x.Right}, keySides(x.Keys), out,
			func(out collector) (operator, error) { return b.join(x, out) })
	case *logical.IntervalJoin:
		return b.keyed([]logical.Node{x.Left, x.Right}, keySides(x.Keys), out,
			func(out collector) (operator, error) { return b.intervalJoin(x, out) })
	case *logical.WindowJoin:
		return b.keyed([]logical.Node{x.Left, x.Right}, keySides(x.Keys), out,
			func(out collector) (operator, error) { return b.windowJoin(x, out) })
	case *logical.TemporalJoin:
		return b.keyed([]logical.Node{x.Left, x.Right}, keySides(x.Keys), out,
			func(out collector) (operator, error) { return b.temporalJoin(x, out) })
	case *logical.Window:
		op := &windowOp{fn: x.Func, timeCol: x.TimeCol, size: x.Size, slide: x.Slide, step: x.Step, offset: x.Offset,
			out: out, c: b.counters("Window "+x.Func+"("+sideName(x.Input)+")", &b.job.Operators), late: b.lateFor(x.Input), cols: columnsOf(x.Input.Columns())}
		return b.node(x.Input, b.drive(op, 1, out).port(0))
	case *logical.WindowAggregate:
		return b.keyed([]logical.Node{x.Input}, [][]expr.Expr{x.Keys}, out,
			func(out collector) (operator, error) { return b.windowAgg(x, out) })
	case *logical.Aggregate:
		return b.keyed([]logical.Node{x.Input}, [][]expr.Expr{x.Keys}, out,
			func(out collector) (operator, error) { return b.groupAgg(x, out) })
	case *logical.ChangelogNormalize:
		key := make([]expr.Expr, len(x.Key))
		cols := x.Input.Columns()
		for i, k := range x.Key {
			key[i] = &expr.Column{Index: k, Name: cols[k].Name, T: cols[k].Type}
		}
		return b.keyed([]logical.Node{x.Input}, [][]expr.Expr{key}, out,
			func(out collector) (operator, error) { return b.normalize(x, out) })
	case *logical.UpsertMaterialize:
		key := make([]expr.Expr, len(x.Key))
		cols := x.Input.Columns()
		for i, k := range x.Key {
			key[i] = &expr.Column{Index: k, Name: cols[k].Name, T: cols[k].Type}
		}
		return b.keyed([]logical.Node{x.Input}, [][]expr.Expr{key}, out,
			func(out collector) (operator, error) { return b.materialize(x, out) })
	case *logical.Sink:
		return fmt.Errorf("internal: a sink inside a plan")
	}
	return fmt.Errorf("internal: no operator for %T", n)
}

// scan adds a source runner for a table.
//
// A table is read once per job, however many scans of it the job's
// statements have (Flink's source reuse): the first scan makes the source
// runner, later ones add their consumer to its fan-out, so every statement
// sees the same rows, in the same order, with the same watermarks and
// idleness. The runner decodes every column of the table and computes
// every computed column, so each consumer finds whatever it reads. (Scans
// of one table carry the table's watermark, so they agree on it; should
// two ever differ, each gets its own runner.)
func (b *builder) scan(s *logical.Scan, wm *logical.WatermarkAssigner, out collector) error {
	b.at = nil // sources hand their rows to the task
	t := s.Table
	if i, ok := b.reads[t]; ok {
		r := b.job.sources[i]
		timeCol, delay := -1, int64(0)
		if wm != nil {
			timeCol, delay = wm.TimeCol, wm.DelayMillis
		}
		if r.timeCol == timeCol && r.delay == delay {
			b.scans[s] = r.counters
			f, ok := b.job.entry[i].(*fanOut)
			if !ok {
				f = &fanOut{outs: []collector{b.job.entry[i]}}
				b.job.entry[i] = f
			}
			f.outs = append(f.outs, out)
			return nil
		}
	}
	f, ok := connector.LookupSource(t.Connector())
	if !ok {
		return fmt.Errorf("table %s: connector '%s' cannot be read by this build of streamsql yet", t.Name, t.Connector())
	}
	schema := t.SourceColumns()
	src, err := f(b.spec(t, schema))
	if err != nil {
		return fmt.Errorf("source %s: %w", t.Name, err)
	}
	prep, err := b.prepare(t)
	if err != nil {
		return err
	}
	r := &sourceRunner{idx: len(b.job.sources), name: t.Name, src: src, prepare: prep, timeCol: -1,
		counters: b.counters(t.Name, &b.job.Sources), warn: b.job.warn, future: b.future}
	b.scans[s] = r.counters
	if wm != nil {
		r.timeCol, r.delay = wm.TimeCol, wm.DelayMillis
	}
	if err := b.watermarkOptions(t, r); err != nil {
		return err
	}
	if c := t.Config; c != nil {
		r.bounded = c.Spec != nil && c.Bounded()
		r.skipBad = strings.EqualFold(c.FormatOption("ignore-parse-errors"), "true")
	}
	b.reads[t] = len(b.job.sources)
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

func (f *fanOut) end() error {
	for _, o := range f.outs {
		if err := o.end(); err != nil {
			return err
		}
	}
	return nil
}

// watermarkOptions applies idleness and alignment to a source. The table's
// options were validated with it; the job-wide idle timeout is a setting.
func (b *builder) watermarkOptions(t *catalog.Table, r *sourceRunner) error {
	c := t.Config
	if c != nil && c.Has("scan.watermark.idle-timeout") {
		r.idleTimeout, _ = c.Duration("scan.watermark.idle-timeout")
	} else if v := b.opts.Settings["table.exec.source.idle-timeout"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("setting 'table.exec.source.idle-timeout': %w", err)
		}
		r.idleTimeout = d
	}
	if c == nil || r.timeCol < 0 || !c.Has("scan.watermark.alignment.group") {
		return nil
	}
	group := c.Get("scan.watermark.alignment.group")
	drift, _ := c.Duration("scan.watermark.alignment.max-drift")
	interval, ok := c.Duration("scan.watermark.alignment.update-interval")
	if !ok || interval <= 0 {
		interval = time.Second
	}
	g := b.groups[group]
	if g == nil {
		g = &alignGroup{}
		b.groups[group] = g
	}
	r.align = g.join(drift.Milliseconds(), interval)
	r.counters.Group = group
	return nil
}

// prepare places the columns a source reads at their table positions and
// computes the computed columns.
func (b *builder) prepare(t *catalog.Table) (func(row.Batch) (row.Batch, error), error) {
	var pos []int
	type computed struct {
		at int
		f  scalarFunc
	}
	var comps []computed
	for i, c := range t.Columns {
		if c.Expr == nil {
			pos = append(pos, i)
			continue
		}
		f, err := b.compile(c.Expr)
		if err != nil {
			return nil, fmt.Errorf("table %s, computed column %s: %w", t.Name, c.Name, err)
		}
		comps = append(comps, computed{i, f})
	}
	n := len(t.Columns)
	if len(comps) == 0 {
		return func(b row.Batch) (row.Batch, error) { return b, nil }, nil
	}
	return func(in row.Batch) (row.Batch, error) {
		for k, r := range in {
			vals := make([]row.Value, n)
			for j, p := range pos {
				if j < len(r.Vals) {
					vals[p] = r.Vals[j]
				}
			}
			for _, c := range comps {
				v, err := c.f(vals)
				if err != nil {
					return nil, fmt.Errorf("table %s, computed column %s: %w", t.Name, t.Columns[c.at].Name, err)
				}
				vals[c.at] = v
			}
			in[k] = row.Row{Kind: r.Kind, Vals: vals}
		}
		return in, nil
	}, nil
}

// keySides returns a join's key expressions: the left input's, then the
// right input's. The planner decided them (cast to the type both sides
// compare in); rows are stored, looked up and partitioned by them.
func keySides(keys []logical.JoinKey) [][]expr.Expr {
	l, r := make([]expr.Expr, len(keys)), make([]expr.Expr, len(keys))
	for i, k := range keys {
		l[i], r[i] = k.Left, k.Right
	}
	return [][]expr.Expr{l, r}
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

func joinName(kind ast.JoinKind, what string, l, r logical.Node) string {
	return fmt.Sprintf("%s %s(%s, %s)", what, kind, sideName(l), sideName(r))
}

// baseScan finds the scan under watermark assigners, filters, column
// projections and window TVFs: the table whose rows an operator input sees.
func baseScan(n logical.Node) *logical.Scan {
	for {
		switch x := n.(type) {
		case *logical.Scan:
			return x
		case *logical.Window:
			n = x.Input
		case *logical.WatermarkAssigner:
			n = x.Input
		case *logical.ChangelogNormalize:
			n = x.Input
		case *logical.Filter:
			n = x.Input
		case *logical.Project:
			n = x.Input
		default:
			return nil
		}
	}
}

// sideName names an operator input by its table alias, for counters.
func sideName(n logical.Node) string {
	if s := baseScan(n); s != nil {
		return s.Alias
	}
	return "…"
}

func baseTable(n logical.Node) *catalog.Table {
	if s := baseScan(n); s != nil {
		return s.Table
	}
	return nil
}

// lateFor is the late-row recorder of an operator input n: it counts late
// rows against the source of the table under n and writes them to that
// table's dead-letter file when it has one. It is nil when n is not one
// table's rows.
func (b *builder) lateFor(n logical.Node) *lateWriter {
	s := baseScan(n)
	if s == nil {
		return nil
	}
	w := &lateWriter{}
	// The scan is built after the operator: its counters are set at the end
	// of Build.
	b.late = append(b.late, lateOf{w, s})
	if t := s.Table; t != nil && t.Config != nil && t.Config.Has("scan.late-rows.path") {
		p, err := connectors.LocalPath(t.Config.Get("scan.late-rows.path"))
		if err != nil {
			p = t.Config.Get("scan.late-rows.path") // refused at check; opening it fails with its name
		}
		if !filepath.IsAbs(p) && b.opts.BaseDir != "" {
			p = filepath.Join(b.opts.BaseDir, p)
		}
		w.path = p
		b.job.closers = append(b.job.closers, w.close)
	}
	return w
}

func columnsOf(cols []logical.Column) []connector.Column {
	out := make([]connector.Column, len(cols))
	for i, c := range cols {
		out[i] = connector.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

func (b *builder) ttl(hints map[string]string, side logical.Node) int64 {
	v := ""
	if s := sideName(side); hints != nil && hints[s] != "" {
		v = hints[s]
	} else if t := baseTable(side); t != nil && hints != nil && hints[t.Name] != "" {
		v = hints[t.Name]
	} else {
		v = b.opts.Settings["table.exec.state.ttl"]
	}
	if v == "" {
		return 0
	}
	d, err := connectors.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0
	}
	return d.Milliseconds()
}

func (b *builder) join(x *logical.Join, out collector) (operator, error) {
	nl, nr := len(x.Left.Columns()), len(x.Right.Columns())
	ks := keySides(x.Keys)
	op := &joinOp{name: joinName(x.Kind, "Join", x.Left, x.Right), nl: nl, nr: nr, out: out,
		clock: b.opts.Clock, inner: x.Kind == ast.InnerJoin || x.Kind == ast.CrossJoin}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, 0, x.Left, x.Right)
	var err error
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	js, err := b.joinSides(op.name, x.Kind, ks)
	if err != nil {
		return nil, err
	}
	for i := range op.side {
		op.side[i] = &joinSide{key: js.keys[i], outer: js.outer[i], table: js.tables[i]}
	}
	op.ttl = [2]int64{b.ttl(x.Hints, x.Left), b.ttl(x.Hints, x.Right)}
	op.store = js.store
	return op, nil
}

func (b *builder) intervalJoin(x *logical.IntervalJoin, out collector) (operator, error) {
	nl, nr := len(x.Left.Columns()), len(x.Right.Columns())
	ks := keySides(x.Keys)
	op := &intervalJoinOp{name: joinName(x.Kind, "IntervalJoin", x.Left, x.Right), nl: nl, nr: nr,
		lower: x.Lower, upper: x.Upper, timeCol: [2]int{x.LeftTime, x.RightTime}, out: out,
		delay: max(-x.Lower, x.Upper, 0)}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, op.delay, x.Left, x.Right)
	op.late = [2]*lateWriter{b.lateFor(x.Left), b.lateFor(x.Right)}
	op.lateCols = [2][]connector.Column{columnsOf(x.Left.Columns()), columnsOf(x.Right.Columns())}
	var err error
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	js, err := b.joinSides(op.name, x.Kind, ks)
	if err != nil {
		return nil, err
	}
	for i := range op.side {
		op.side[i] = &ijSide{key: js.keys[i], outer: js.outer[i], table: js.tables[i]}
	}
	op.store = js.store
	return op, nil
}

func (b *builder) windowJoin(x *logical.WindowJoin, out collector) (operator, error) {
	nl, nr := len(x.Left.Columns()), len(x.Right.Columns())
	ks := keySides(x.Keys)
	op := &windowJoinOp{name: joinName(x.Kind, "WindowJoin", x.Left, x.Right), nl: nl, nr: nr, out: out}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, 0, x.Left, x.Right)
	op.late = [2]*lateWriter{b.lateFor(x.Left), b.lateFor(x.Right)}
	op.lcols = [2][]connector.Column{columnsOf(x.Left.Columns()), columnsOf(x.Right.Columns())}
	var err error
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	js, err := b.joinSides(op.name, x.Kind, ks)
	if err != nil {
		return nil, err
	}
	ends := [2]int{x.LeftEnd, x.RightEnd}
	for i := range op.side {
		op.side[i] = &wjSide{key: js.keys[i], end: ends[i], outer: js.outer[i], table: js.tables[i]}
	}
	op.store = js.store
	return op, nil
}

// sides is what the two-sided joins share: each side's key and whether it
// is outer, and one state store with a table per side.
type sides struct {
	keys   [2]keyer
	outer  [2]bool
	store  *state.Store
	tables [2]*state.Table
}

func (b *builder) joinSides(name string, kind ast.JoinKind, keys [][]expr.Expr) (sides, error) {
	var js sides
	for i, ks := range keys {
		k, err := b.keyer(ks)
		if err != nil {
			return js, err
		}
		js.keys[i] = k
	}
	js.outer = [2]bool{kind == ast.LeftJoin || kind == ast.FullJoin, kind == ast.RightJoin || kind == ast.FullJoin}
	st, err := b.openState()
	if err != nil {
		return js, fmt.Errorf("%s: %w", name, err)
	}
	js.store = st
	js.tables = [2]*state.Table{st.Table("left", state.TableOptions{}), st.Table("right", state.TableOptions{})}
	return js, nil
}

// openState opens the state of one operator partition: under
// --state-dir/<n> when one was given, else a temporary store that touches
// the disk only if it has to spill. The memory budget
// ('state.memory-budget', default 1gb) is shared by every partition of
// every stateful operator of the job.
func (b *builder) openState() (*state.Store, error) {
	b.stores++
	dir := ""
	if b.opts.StateDir != "" {
		dir = filepath.Join(b.opts.StateDir, fmt.Sprintf("op%d", b.stores))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	st, err := state.Open(dir, state.Options{MemoryBudget: b.budgetShare()})
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
	total := int64(1 << 30)
	if v := b.opts.Settings["state.memory-budget"]; v != "" {
		if n, err := state.ParseSize(v); err == nil && n > 0 {
			total = n
		}
	}
	return max(total/int64(max(b.opts.Parallelism, 1)), 1)
}

func (b *builder) temporalJoin(x *logical.TemporalJoin, out collector) (operator, error) {
	nl, nr := len(x.Left.Columns()), len(x.Right.Columns())
	ks := keySides(x.Keys)
	op := &temporalJoinOp{name: joinName(x.Kind, "TemporalJoin", x.Left, x.Right), nl: nl, nr: nr,
		leftTime: x.LeftTime, ltime: -1, left: x.Kind == ast.LeftJoin,
		out: out, lcols: columnsOf(x.Left.Columns())}
	op.c = b.counters(op.name, &b.job.Operators)
	b.watchDrift(op, 0, x.Left, x.Right)
	op.late = b.lateFor(x.Left)
	op.rlate, op.rcols = b.lateFor(x.Right), columnsOf(x.Right.Columns())
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.probes = st.Table("probes", state.TableOptions{})
	op.versions = st.Table("versions", state.TableOptions{})
	for i, c := range x.Right.Columns() {
		if c.Time == expr.RowTime {
			op.ltime = i
			break
		}
	}
	if op.ltime < 0 {
		return nil, fmt.Errorf("%s: the versioned side has no event-time column", op.name)
	}
	if op.lkey, err = b.keyer(ks[0]); err != nil {
		return nil, err
	}
	if op.rkey, err = b.keyer(ks[1]); err != nil {
		return nil, err
	}
	if op.cond, err = b.predicate(x.Residual); err != nil {
		return nil, err
	}
	return op, nil
}

func (b *builder) normalize(x *logical.ChangelogNormalize, out collector) (operator, error) {
	op := &normalizeOp{name: "ChangelogNormalize(" + sideName(x) + ")", key: keyer{cols: x.Key}, before: x.UpdateBefore,
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

func (b *builder) materialize(x *logical.UpsertMaterialize, out collector) (operator, error) {
	var names []string
	for _, k := range x.Key {
		names = append(names, x.Cols[k].Name)
	}
	op := &materializeOp{name: "UpsertMaterialize(" + strings.Join(names, ", ") + ")", key: keyer{cols: x.Key},
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

// aggSpecs builds the aggregate calls of an aggregate over input: with
// retractable accumulators when input may retract.
func (b *builder) aggSpecs(aggs []*logical.AggCall, input logical.Node) ([]*aggSpec, error) {
	retract := b.retracts(input)
	var specs []*aggSpec
	for _, a := range aggs {
		var arg scalarFunc
		if len(a.Args) > 0 {
			f, err := b.compile(a.Args[0])
			if err != nil {
				return nil, err
			}
			arg = f
		}
		s, err := newAggSpec(a, arg, retract)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

func (b *builder) groupAgg(x *logical.Aggregate, out collector) (operator, error) {
	specs, err := b.aggSpecs(x.Aggs, x.Input)
	if err != nil {
		return nil, err
	}
	k, err := b.keyer(x.Keys)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, c := range x.Cols[:len(x.Keys)] {
		keys = append(keys, c.Name)
	}
	op := &groupAggOp{name: "GroupAggregate(" + strings.Join(keys, ", ") + ")", key: k, specs: specs,
		pending: map[string]int{}, out: out, clock: b.opts.Clock}
	op.c = b.counters(op.name, &b.job.Operators)
	if v := b.opts.Settings["table.exec.state.ttl"]; v != "" {
		if d, err := connectors.ParseDuration(v); err == nil {
			op.ttl = d.Milliseconds()
		}
	}
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.groups = state.NewMap(st, "groups", groupCodec{specs: specs}, state.TableOptions{})
	return op, nil
}

// windowCols finds window_end, window_time and the rows' own time column
// in n's columns, through filters and column projections above the window
// TVF (-1 for a column a projection dropped).
func windowCols(n logical.Node) (end, wtime, orig int, ok bool) {
	switch x := n.(type) {
	case *logical.Window:
		k := len(x.Cols)
		return k - 2, k - 1, x.TimeCol, true
	case *logical.Filter:
		return windowCols(x.Input)
	case *logical.Project:
		e, t, o, ok := windowCols(x.Input)
		if !ok {
			return 0, 0, 0, false
		}
		ne, nt, no := -1, -1, -1
		for i, ex := range x.Exprs {
			if c, isCol := ex.(*expr.Column); isCol {
				switch c.Index {
				case e:
					ne = i
				case t:
					nt = i
				case o:
					no = i
				}
			}
		}
		return ne, nt, no, ne >= 0
	}
	return 0, 0, 0, false
}

func (b *builder) windowAgg(x *logical.WindowAggregate, out collector) (operator, error) {
	end, wtime, orig, ok := windowCols(x.Input)
	if !ok {
		return nil, fmt.Errorf("internal: window aggregate without window_end")
	}
	if orig >= 0 {
		wtime = orig // late rows are reported with their own time
	} else if wtime < 0 {
		wtime = end
	}
	specs, err := b.aggSpecs(x.Aggs, x.Input)
	if err != nil {
		return nil, err
	}
	k, err := b.keyer(x.Keys)
	if err != nil {
		return nil, err
	}
	op := &windowAggOp{name: "WindowAggregate", key: k, endCol: end, timeCol: wtime, specs: specs,
		wm: MinWatermark, out: out, lateCols: columnsOf(x.Input.Columns())}
	op.c = b.counters(op.name, &b.job.Operators)
	op.late = b.lateFor(x.Input)
	st, err := b.openState()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.name, err)
	}
	op.store = st
	op.groups = state.NewMap(st, "windows", groupCodec{specs: specs}, state.TableOptions{})
	return op, nil
}
