package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/settings"
)

// derive computes the properties of a plan, its state retention, and
// reports what cannot run (errors) or will hurt (warnings). It returns the
// plan with the upsert materializer and the changelog normalize steps the
// modes call for (two rewrites, traced to tr).
func derive(root logical.Node, set settings.Settings, l *diag.List, tr *tracer) (logical.Node, map[logical.Node]*Props) {
	d := &deriver{props: map[logical.Node]*Props{}, settings: set, l: l}
	d.produce(root)
	if n, ok := d.materialize(root); ok {
		root = n
		d.props = map[logical.Node]*Props{}
		tr.step("materialize", root, nil)
	}
	d.modes(root)
	if n, changed := d.normalize(root); changed {
		root = n
		d.props = map[logical.Node]*Props{}
		d.modes(root)
		tr.step("normalize", root, nil)
	}
	d.walk(root)
	d.checkSessions(root)
	if s, ok := root.(*logical.Sink); ok {
		d.checkSink(s)
	}
	return root, d.props
}

// modes runs the two passes of the changelog mode inference.
func (d *deriver) modes(root logical.Node) {
	d.produce(root)
	needBefore := true
	if s, ok := root.(*logical.Sink); ok {
		needBefore = !isUpsertSink(s)
	}
	d.require(root, needBefore)
}

// materialize puts an UpsertMaterialize in front of a keyed sink, as
// Flink's 'table.exec.sink.upsert-materialize' says: with 'auto' (the
// default) when the query emits updates and none of its upsert keys is a
// part of the sink's primary key (so the changes of one sink key may come
// from different rows, in any order); with 'force' whenever the query
// emits updates; with 'none' never (checkSink then refuses what needed
// one). It reports whether it changed the plan.
func (d *deriver) materialize(root logical.Node) (logical.Node, bool) {
	s, ok := root.(*logical.Sink)
	if !ok || !isUpsertSink(s) || len(s.Table.PrimaryKey) == 0 {
		return root, false
	}
	in := d.props[s.Input]
	if in.Produced.IsInsertOnly() {
		return root, false
	}
	pk := s.Table.PrimaryKey
	switch d.settings.UpsertMaterialize {
	case settings.MaterializeNone:
		return root, false
	case settings.MaterializeForce:
	default: // settings.MaterializeAuto
		if coveredBy(in.Keys, pk) {
			return root, false
		}
	}
	m := &logical.UpsertMaterialize{Input: s.Input, Key: slices.Clone(pk), S: s.S}
	for i, c := range s.Input.Columns() {
		if i < len(s.Cols) {
			c.Name, c.Qualifier = s.Cols[i].Name, ""
		}
		m.Cols = append(m.Cols, c)
	}
	for _, k := range in.Keys {
		if len(k) > 0 {
			m.UpsertKey = slices.Clone(k) // the smallest: keys are sorted by size
			break
		}
	}
	if ttl, ok := d.ttl(); ok {
		m.TTL, m.TTLText = d.settings.StateTTL.Milliseconds(), ttl
	}
	s = shallowCopy(s)
	s.Input = m
	return s, true
}

// normalize puts a ChangelogNormalize above the scan (and watermark
// assigner) of each source that needs one, as Flink does: an upsert source
// whose consumer needs -U (an upsert stream has no -U, and its deletions
// may carry only the key), and, with 'table.exec.source.cdc-events-duplicate'
// = 'true', a changelog source with a primary key (whose events may come
// twice). It reports whether it changed the plan.
func (d *deriver) normalize(n logical.Node) (logical.Node, bool) {
	scan, _ := n.(*logical.Scan)
	if w, ok := n.(*logical.WatermarkAssigner); ok {
		scan, _ = w.Input.(*logical.Scan)
	}
	if scan != nil {
		p := d.props[n]
		pk := scan.Table.PrimaryKey
		upsert := p.Produced == changelogmode.Upsert && p.NeedBefore
		dup := p.Produced == changelogmode.All && len(pk) > 0 && d.settings.CDCEventsDuplicate
		if len(pk) == 0 || !upsert && !dup {
			return n, false
		}
		cn := &logical.ChangelogNormalize{Input: n, Key: slices.Clone(pk), UpdateBefore: p.NeedBefore, S: scan.S}
		if ttl, ok := d.ttl(); ok {
			cn.TTL, cn.TTLText = d.settings.StateTTL.Milliseconds(), ttl
		}
		return cn, true
	}
	cs := logical.Children(n)
	out := make([]logical.Node, len(cs))
	changed := false
	for i, c := range cs {
		var ch bool
		out[i], ch = d.normalize(c)
		changed = changed || ch
	}
	if changed {
		n = withChildren(n, out)
	}
	return n, changed
}

// intervalDelay is how far an interval join holds its output watermark
// back behind its inputs': a row can still match rows that far behind the
// watermark.
func intervalDelay(j *logical.IntervalJoin) int64 { return max(-j.Lower, j.Upper, 0) }

// ttl is 'table.exec.state.ttl' as written, when it expires state.
func (d *deriver) ttl() (string, bool) {
	if d.settings.StateTTL <= 0 {
		return "", false
	}
	return d.settings.StateTTLText, true
}

// bounded reports whether every source under n ends (files, bounded reads):
// then state is bounded by the input, however it is kept.
func bounded(n logical.Node) bool {
	if s, ok := n.(*logical.Scan); ok {
		return s.Table.Config != nil && s.Table.Config.Spec != nil && s.Table.Config.Bounded()
	}
	for _, c := range logical.Children(n) {
		if !bounded(c) {
			return false
		}
	}
	return true
}

// plus renders "col + 4h", "col - 1s" or "col".
func plus(col string, ms int64) string {
	switch {
	case ms > 0:
		return col + " + " + expr.FormatMillis(ms)
	case ms < 0:
		return col + " - " + expr.FormatMillis(-ms)
	}
	return col
}

func (d *deriver) walk(n logical.Node) {
	for _, c := range logical.Children(n) {
		d.walk(c)
	}
	p := d.props[n]
	switch x := n.(type) {
	case *logical.ChangelogNormalize:
		if x.TTL > 0 {
			p.State = []string{fmt.Sprintf("the last row of each key: %s after the key's last change (table.exec.state.ttl)", x.TTLText)}
		} else {
			p.State = []string{"UNBOUNDED: the last row of each key, kept forever (one row per key of the table)"}
			p.Unbounded = true
		}
	case *logical.UpsertMaterialize:
		if x.TTL > 0 {
			p.State = []string{fmt.Sprintf("the live rows of each sink key: %s after the key's last change (table.exec.state.ttl)", x.TTLText)}
		} else {
			p.State = []string{"UNBOUNDED: the live rows of each sink key, kept forever"}
			p.Unbounded = true
			if !bounded(x) {
				d.l.Warnf(diag.UnboundedState, x.S, "the upsert materializer in front of this sink keeps every live row of each sink key forever: state grows with the number of keys").
					WithHint("SET 'table.exec.state.ttl' = '24h' (a key idle that long is forgotten: a later retraction of its rows then finds nothing)")
			}
		}
	case *logical.Join:
		d.regularJoin(x, p)
	case *logical.IntervalJoin:
		d.intervalJoin(x, p)
	case *logical.WindowJoin:
		for i, side := range []logical.Node{x.Left, x.Right} {
			if in := d.props[side]; !in.Produced.IsInsertOnly() {
				o := d.origin(side)
				d.l.Errorf(diag.WindowInput, nodeSpan(x), "a window join needs insert-only inputs, but its %s input emits %s", []string{"left", "right"}[i], in.Produced).
					WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
					WithHint("a window's join result is emitted once, when the watermark passes its end, and cannot be corrected later")
			}
		}
		p.State = []string{"both sides: each window's rows until watermark >= window_end - 1ms, then joined once and freed"}
		s := d.settings
		if s.AllowLateness > 0 && s.FinalOnly {
			p.State = []string{fmt.Sprintf("both sides: each window's rows until watermark >= window_end - 1ms + %s (table.exec.emit.allow-lateness), then joined once and freed (final-only: each window's rows wait %s of event time past its end); the output watermark is held back by %s", s.AllowLatenessText, s.AllowLatenessText, s.AllowLatenessText)}
		} else if s.AllowLateness > 0 {
			outer := ""
			if x.Kind != ast.InnerJoin {
				outer = " (a row emitted padded with NULLs is retracted, -D, when its first late partner comes; a late row that meets none is emitted padded at once)"
			}
			p.State = []string{fmt.Sprintf("both sides: each window's rows until watermark >= window_end - 1ms + %s (table.exec.emit.allow-lateness): joined when watermark >= window_end - 1ms, then a late row joins the other side's rows of its window as it comes%s; the output watermark is held back by %s", s.AllowLatenessText, outer, s.AllowLatenessText)}
		}
		lw, _, _ := windowOf(x.Left)
		rw, _, _ := windowOf(x.Right)
		switch {
		case lw == nil && rw == nil:
		case s.EarlyFire || s.LateFire:
			d.l.Errorf(diag.UnsupportedFeature, nodeSpan(x), "early and late firing do not apply to a window join: it emits each pair once (they are emit strategies of window aggregates)").
				WithHint("SET 'table.exec.emit.early-fire.enabled' = 'false' and 'table.exec.emit.late-fire.enabled' = 'false' before this statement: the settings apply to the statements after them")
		}
	case *logical.TemporalJoin:
		lt := x.Cols[x.AsOf].Name
		if !d.props[x.Left].Produced.IsInsertOnly() {
			o := d.origin(x.Left)
			d.l.Errorf(diag.TemporalProbe, nodeSpan(x), "a temporal join needs an insert-only probe side, but %s emits updates", tableName(x.Left)).
				WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
				WithHint("a probe row is joined once, with the version valid at its time, and cannot be retracted; probe with an insert-only stream, or use a regular join with a state TTL")
		}
		if x.Lookup {
			p.State = []string{"none: each probe row queries " + tableName(x.Right) + " by key when it arrives (" + lookupCacheText(x.Right) + ")"}
			break
		}
		p.State = []string{
			"versioned side: each key's versions until the watermark passes the next version",
			fmt.Sprintf("probe side: rows until watermark >= %s, then joined with the version valid at %s", lt, lt),
		}
	case *logical.WindowAggregate:
		if in := d.props[x.Input]; !in.Produced.IsInsertOnly() {
			o := d.origin(x.Input)
			d.l.Errorf(diag.WindowInput, nodeSpan(x), "a window aggregate needs an insert-only input, but its input emits %s", in.Produced).
				WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
				WithHint("a window is emitted once, when the watermark passes its end, and cannot be corrected later; aggregate an insert-only stream, or use a GROUP BY without a window (an updating result)")
		}
		w, _, _ := windowOf(x.Input)
		state := "per window and group: accumulators until watermark >= window_end - 1ms, then emitted once"
		if s := d.settings; w != nil && w.Func == "SESSION" {
			state = "per group: the rows of each open session until watermark >= its end (last row + gap) - 1ms, then aggregated and emitted once"
			if s.AllowLateness > 0 {
				horizon := "session_end - 1ms + " + s.AllowLatenessText
				if s.FinalOnly {
					state = fmt.Sprintf("per group: the rows of each session until watermark >= %s (table.exec.emit.allow-lateness), then aggregated and emitted once (final-only: each result waits %s of event time past its session's end)", horizon, s.AllowLatenessText)
				} else {
					state = fmt.Sprintf("per group: the rows of each session until watermark >= %s (table.exec.emit.allow-lateness): emitted when watermark >= session_end - 1ms, then a late row that falls inside it updates it (-U, +U), and one that extends or merges sessions retracts them (-D) and emits the merged session (+I)", horizon)
				}
				state += fmt.Sprintf("; the output watermark is held back by %s, so that no result is late for a windowed operator after this one", s.AllowLatenessText)
			}
		} else if s.AllowLateness > 0 {
			horizon := "window_end - 1ms + " + s.AllowLatenessText
			if s.FinalOnly {
				state = fmt.Sprintf("per window and group: accumulators until watermark >= %s (table.exec.emit.allow-lateness), then emitted once (final-only: each result waits %s of event time past its window's end)", horizon, s.AllowLatenessText)
			} else {
				state = fmt.Sprintf("per window and group: accumulators until watermark >= %s (table.exec.emit.allow-lateness): emitted when watermark >= window_end - 1ms, then updated by each late row until then", horizon)
			}
			state += fmt.Sprintf("; the output watermark is held back by %s, so that no result is late for a windowed operator after this one", s.AllowLatenessText)
		} else if d.settings.FinalOnly {
			state += " (final-only: no allowed lateness, so no added latency)"
		} else if d.settings.EarlyFire {
			state = "per window and group: accumulators until watermark >= window_end - 1ms, then emitted FINAL (if early firings did not emit that result already) and freed"
		}
		if w != nil && w.Func == "HOP" {
			state += fmt.Sprintf(" (each row is in %d windows)", w.Size/w.Slide)
		}
		p.State = []string{state}
		if w == nil || w.Func != "SESSION" {
			if e := d.emitStrategy(x); e != "" {
				p.State = append(p.State, e)
			}
		} else {
			d.sessionEmit(x)
		}
	case *logical.Rank:
		d.rankState(x, p)
	case *logical.OverAggregate:
		d.overState(x, p)
	case *logical.Aggregate:
		for _, c := range x.Aggs {
			if expr.IsWindowMeta(c.Fn) {
				d.l.Errorf(diag.AggregateMisuse, c.S, "%s() says how final a window's result is, so it needs a window aggregate: GROUP BY window_start, window_end of TUMBLE, HOP, CUMULATE or SESSION", c.Fn).
					WithHint("a GROUP BY without a window updates its results for ever: no row of it is final")
			}
		}
		if ttl, ok := d.ttl(); ok {
			p.StateTTL[0] = d.settings.StateTTL.Milliseconds()
			p.State = []string{fmt.Sprintf("one row per group: %s after last access (table.exec.state.ttl)", ttl)}
		} else {
			p.State = []string{"UNBOUNDED: one row per group key, kept forever"}
			p.Unbounded = true
			if !bounded(x) {
				d.l.Warnf(diag.UnboundedState, x.S, "this aggregate keeps one row per group forever: state grows with the number of distinct keys").
					WithHint("aggregate over a window (GROUP BY window_start, window_end over TABLE(TUMBLE(...))), or SET 'table.exec.state.ttl' = '24h'")
			}
		}
	}
}

// stateTTL returns the retention of one side of a regular join, as
// written and in milliseconds: the STATE_TTL hint for its alias (or table
// name), or table.exec.state.ttl; ok is false when the side is kept
// forever.
func (d *deriver) stateTTL(j *logical.Join, side logical.Node) (text string, ms int64, src string, ok bool) {
	if s := baseScan(side); s != nil && j.Hints != nil {
		v, ok := j.Hints[s.Alias]
		if !ok {
			v, ok = j.Hints[s.Table.Name]
		}
		if ok {
			// A hint overrides the setting, '0' too: that side is then kept
			// forever (Flink's StateTtlHint takes any duration the hint
			// parses to). A hint that does not parse is refused at check.
			if dur, err := connectors.ParseDuration(v); err == nil {
				return v, dur.Milliseconds(), "STATE_TTL hint", dur > 0
			}
		}
	}
	if ttl, ok := d.ttl(); ok {
		return ttl, d.settings.StateTTL.Milliseconds(), "table.exec.state.ttl", true
	}
	return "", 0, "", false
}

func (d *deriver) regularJoin(j *logical.Join, p *Props) {
	lttl, lms, lsrc, lok := d.stateTTL(j, j.Left)
	rttl, rms, rsrc, rok := d.stateTTL(j, j.Right)
	if lok {
		p.StateTTL[0] = lms
	}
	if rok {
		p.StateTTL[1] = rms
	}
	switch {
	case lok && rok && lttl == rttl && lsrc == rsrc:
		p.State = []string{fmt.Sprintf("both sides: %s after last access (%s)", lttl, lsrc)}
	case lok || rok:
		side := func(name string, ttl, src string, ok bool) string {
			if !ok {
				p.Unbounded = true
				if src != "" {
					return fmt.Sprintf("%s rows: UNBOUNDED, kept forever (%s '%s')", name, src, ttl)
				}
				return name + " rows: UNBOUNDED, kept forever"
			}
			return fmt.Sprintf("%s rows: %s after last access (%s)", name, ttl, src)
		}
		p.State = []string{side("left", lttl, lsrc, lok), side("right", rttl, rsrc, rok)}
	case bounded(j):
		p.State = []string{"every row of both inputs, until the inputs end (they are bounded)"}
	default:
		p.State = []string{"UNBOUNDED: every row of both inputs is kept forever"}
		p.Unbounded = true
	}
	if p.Unbounded && !bounded(j) && isSemi(j.Kind) {
		d.l.Warnf(diag.UnboundedState, nodeSpan(j), "this %s JOIN (of a subquery) keeps every row of both inputs forever, so state grows at the full input rate until the job runs out of memory", j.Kind).
			WithHint("SET 'table.exec.state.ttl' = '24h' (rows idle that long are forgotten: a late match then finds nothing)")
	} else if p.Unbounded && !bounded(j) {
		d.l.Warnf(diag.UnboundedState, nodeSpan(j), "this %s JOIN has no time bound and no state TTL: it keeps every row of both inputs forever, so state grows at the full input rate until the job runs out of memory", j.Kind).
			WithHint("bound it in time (AND l.t BETWEEN r.t - INTERVAL '1' HOUR AND r.t): an interval join frees rows once no partner can arrive").
			WithHint("or SET 'table.exec.state.ttl' = '24h' (rows idle that long are forgotten: a late partner then finds nothing)")
	}
	// One side keyed and versioned: a temporal join has no state to misalign.
	for _, side := range []logical.Node{j.Right, j.Left} {
		if s := baseScan(side); s != nil && len(s.Table.PrimaryKey) > 0 && s.Table.Watermark != nil && j.AsOf == nil && !isSemi(j.Kind) {
			other := j.Left
			if side == j.Left {
				other = j.Right
			}
			if tc := timeCols(other); hasRowTime(tc) {
				d.l.Warnf(diag.PreferTemporalJoin, nodeSpan(j), "%s has a primary key and a watermark: it is a versioned table, and a temporal join fits better", s.Table.Name).
					WithHint("JOIN %s FOR SYSTEM_TIME AS OF <probe time> AS ...: each row joins the version valid at its time, and only the versions are kept", s.Table.Name)
				break
			}
		}
	}
	d.startupMismatch(j.Left, j.Right, nodeSpan(j))
}

func hasRowTime(ts []expr.TimeAttr) bool {
	for _, t := range ts {
		if t == expr.RowTime {
			return true
		}
	}
	return false
}

func (d *deriver) intervalJoin(j *logical.IntervalJoin, p *Props) {
	l, r := d.props[j.Left], d.props[j.Right]
	for i, in := range []*Props{l, r} {
		if in.Produced.IsInsertOnly() {
			continue
		}
		side := []logical.Node{j.Left, j.Right}[i]
		o := d.origin(side)
		d.l.Errorf(diag.IntervalJoinInput, nodeSpan(j), "an interval join needs insert-only inputs, but its %s input emits %s", []string{"left", "right"}[i], in.Produced).
			WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
			WithHint("an interval join cannot retract a match it already emitted; join the insert-only tables first, or use a regular join with a state TTL")
	}
	nL := len(j.Left.Columns())
	lt, rt := colName(j.Cols, j.LeftTime), colName(j.Cols, nL+j.RightTime)
	// A left row with time tl meets right rows with tr in [tl-Upper, tl-Lower]:
	// it leaves once the watermark passes tl - Lower (Flink's cleanup time);
	// a right row once it passes tr + Upper.
	p.State = []string{
		fmt.Sprintf("left rows: until watermark > %s", plus(lt, -j.Lower)),
		fmt.Sprintf("right rows: until watermark > %s", plus(rt, j.Upper)),
	}
	p.WatermarkDelay = intervalDelay(j)
	// The bound against the inputs' watermark delays.
	width := j.Upper - j.Lower
	for _, side := range []logical.Node{j.Left, j.Right} {
		s := baseScan(side)
		if s == nil || s.Table.Watermark == nil {
			continue
		}
		if delay := s.Table.Watermark.DelayMillis; width >= 0 && width < delay {
			d.l.Warnf(diag.IntervalTooShort, nodeSpan(j), "the join's time bound (%s wide) is shorter than the watermark delay of %s (%s): state is sized by the %s delay, not the bound, and a row more than %s out of order is late and misses its partners",
				expr.FormatMillis(width), s.Table.Name, expr.FormatMillis(delay), expr.FormatMillis(delay), expr.FormatMillis(delay)).
				WithHint("make sure the bound reflects the real gap between the two events, and the watermark delay the real disorder of %s", s.Table.Name)
			break
		}
	}
	d.startupMismatch(j.Left, j.Right, nodeSpan(j))
}

// startupMismatch warns when the two inputs of a join start reading from
// different points in time.
func (d *deriver) startupMismatch(l, r logical.Node, at diag.Span) {
	ls, rs := baseScan(l), baseScan(r)
	if ls == nil || rs == nil || ls.Table.Config == nil || rs.Table.Config == nil {
		return
	}
	start := func(t *catalog.Table) string {
		c := t.Config
		if c.Spec == nil || c.Spec.Name != "kafka" {
			return ""
		}
		m := c.Get("scan.startup.mode")
		if m == "timestamp" {
			m += " " + c.Get("scan.startup.timestamp-millis")
		}
		return m
	}
	a, b := start(ls.Table), start(rs.Table)
	if a != "" && b != "" && a != b {
		d.l.Warnf(diag.StartupMismatch, at, "the inputs of this join start from different points in time: %s from %s, %s from %s", ls.Table.Name, a, rs.Table.Name, b).
			WithHint("replaying one side of a join drags the join's watermark back: nothing is evicted and state grows at full rate; start both sides from the same point")
	}
}

// checkSink refuses a plan whose sink cannot take what it emits.
func (d *deriver) checkSink(s *logical.Sink) {
	t := s.Table
	if t.Config == nil || t.Config.Spec == nil {
		return
	}
	in := d.props[s.Input]
	emitted := in.Mode
	if emitted.IsInsertOnly() {
		return
	}
	accepts := t.Config.SinkMode()
	where := fmt.Sprintf("%s (%s)", t.Name, connectorText(t.Config))
	o := d.origin(s.Input)
	keys := d.keyNames(s, in.Keys)
	switch accepts {
	case connectors.InsertOnly, "":
		diagn := d.l.Errorf(diag.SinkMode, s.S, "sink %s is append-only, but the query emits %s: it would load retractions as rows", where, emitted).
			WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o))
		d.fixes(diagn, s, o, keys)
	case connectors.Upsert:
		sinkKey := append([]int(nil), t.PrimaryKey...)
		if !coveredBy(in.Keys, sinkKey) {
			var pk []string
			for _, i := range sinkKey {
				pk = append(pk, t.Columns[i].Name)
			}
			diagn := d.l.Errorf(diag.UpsertKeyMismatch, s.S, "upsert sink %s is keyed on (%s), but (%s) is not a key of the query's rows: updates of different rows would overwrite each other", where, strings.Join(pk, ", "), strings.Join(pk, ", "))
			if j := d.keyDroppingJoin(s.Input); j != nil {
				diagn.WithNote(nodeSpan(j), "this %s JOIN runs partitioned by its equi-join columns, and a key of its input that does not contain them is no key of its output: an update that changes them retracts the old row in one partition and adds the new one in another, and the sink could see the two in either order", j.Kind)
			}
			if len(keys) > 0 {
				diagn.WithHint("declare the sink's PRIMARY KEY as one the query can upsert on: %s", strings.Join(keys, " or "))
			} else {
				diagn.WithHint("the query has no key to upsert on: write it with a changelog format ('format' = 'debezium-json')")
			}
			diagn.WithHint("or SET 'table.exec.sink.upsert-materialize' = 'auto' (the default; 'none' is set): an upsert materializer in front of the sink keeps the live rows of each key and writes the last one")
		}
	}
}

// keyDroppingJoin finds a regular join under n that drops an upsert key of
// its inputs because the key does not contain its equi-join columns.
func (d *deriver) keyDroppingJoin(n logical.Node) *logical.Join {
	if j, ok := n.(*logical.Join); ok {
		l, r := d.props[j.Left], d.props[j.Right]
		all := joinKeysOf(j.Kind, l.Keys, r.Keys, len(j.Left.Columns()), j.Keys, false)
		if len(all) > len(d.props[j].Keys) {
			return j
		}
	}
	for _, c := range logical.Children(n) {
		if j := d.keyDroppingJoin(c); j != nil {
			return j
		}
	}
	return nil
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	return containsAll(a, b)
}

// keyNames renders the query's upsert keys with the sink's column names.
func (d *deriver) keyNames(s *logical.Sink, keys [][]int) []string {
	var out []string
	for _, k := range keys {
		if len(k) == 0 {
			continue
		}
		var names []string
		for _, i := range k {
			if i < len(s.Cols) {
				names = append(names, s.Cols[i].Name)
			}
		}
		out = append(out, "("+strings.Join(names, ", ")+")")
	}
	return out
}

// fixes lists what would make the plan acceptable.
func (d *deriver) fixes(diagn *diag.Diagnostic, s *logical.Sink, o logical.Node, keys []string) {
	if c := s.Table.Config; c.Spec.KeyedSinkAccepts != "" {
		// jdbc: the same connector takes updates once the table has a key.
		key := "(" + s.Table.Columns[0].Name + ")"
		if len(keys) > 0 {
			key = keys[0]
		}
		diagn.WithHint("declare the key to keep the rows by, e.g. PRIMARY KEY %s NOT ENFORCED: a keyed '%s' table takes updates and deletes by key (with an upsert materializer in front of it when the query has no such key)", key, c.Spec.Name)
		if j, ok := o.(*logical.Join); ok {
			diagn.WithHint("or bound the join in time, e.g. AND %s: an interval join emits each row once, when no partner can arrive any more (append-only)", exampleBound(j))
		}
		return
	}
	or := ""
	if len(keys) > 0 {
		diagn.WithHint("write to a keyed upsert sink: 'connector' = 'upsert-kafka' with PRIMARY KEY %s NOT ENFORCED (the query can upsert on %s)", keys[0], strings.Join(keys, " or "))
		or = "or "
	}
	diagn.WithHint("%swrite a changelog: 'format' = 'debezium-json' keeps every -U/+U/-D, and its readers must read it as debezium-json", or)
	switch x := o.(type) {
	case *logical.Join:
		if isSemi(x.Kind) {
			break
		}
		diagn.WithHint("or bound the join in time, e.g. AND %s: an interval join emits each row once, when no partner can arrive any more (append-only)", exampleBound(x))
	case *logical.Aggregate:
		diagn.WithHint("or aggregate over a window (GROUP BY window_start, window_end over TABLE(TUMBLE(...))): each window is emitted once")
	case *logical.Rank:
		diagn.WithHint("or rank within windows (PARTITION BY window_start, window_end, ... over TABLE(TUMBLE(...))): a window Top-N emits each window's top rows once, when it ends (append-only)")
	case *logical.WindowJoin:
		diagn.WithHint("or SET 'table.exec.emit.final-only' = 'true': each window is joined once, when the watermark passes its end plus the allowed lateness (append-only, %s later); or 'table.exec.emit.allow-lateness' = '0': joined when the window ends, and the rows after that are late", d.settings.AllowLatenessText)
	case *logical.WindowAggregate:
		if d.settings.EarlyFire {
			diagn.WithHint("or SET 'table.exec.emit.early-fire.enabled' = 'false': without preliminary results (and without allowed lateness) each window is emitted once")
			break
		}
		diagn.WithHint("or SET 'table.exec.emit.final-only' = 'true': each window is emitted once, when the watermark passes its end plus the allowed lateness (append-only, %s later)", d.settings.AllowLatenessText)
	}
	if len(keys) == 0 && len(s.Table.Columns) > 0 {
		diagn.WithHint("or write to a keyed sink ('upsert-kafka', or a 'jdbc' table) with the key its readers look rows up by, e.g. PRIMARY KEY (%s) NOT ENFORCED: no PRIMARY KEY of the inputs survives this query, so an upsert materializer in front of the sink keeps each key's live rows and turns the changes into upserts and deletes of that key (state that grows without 'table.exec.state.ttl')", s.Table.Columns[0].Name)
	}
}

// exampleBound writes an interval bound for a join, using its inputs' time
// attributes when they have them.
func exampleBound(j *logical.Join) string {
	lt, rt := "l.t", "r.t"
	nL := len(j.Left.Columns())
	ltc, rtc := timeCols(j.Left), timeCols(j.Right)
	for i, t := range ltc {
		if t == expr.RowTime {
			lt = qualified(j.Cols[i])
			break
		}
	}
	for i, t := range rtc {
		if t == expr.RowTime {
			rt = qualified(j.Cols[nL+i])
			break
		}
	}
	return fmt.Sprintf("%s BETWEEN %s - INTERVAL '1' HOUR AND %s", lt, rt, rt)
}

func qualified(c logical.Column) string {
	if c.Qualifier != "" {
		return ast.QuoteIdent(c.Qualifier) + "." + ast.QuoteIdent(c.Name)
	}
	return ast.QuoteIdent(c.Name)
}

// lookupCacheText says what a lookup join caches of its dim table.
func lookupCacheText(dim logical.Node) string {
	s := baseScan(dim)
	if s == nil || s.Table.Config == nil {
		return "no cache"
	}
	return cacheText(s.Table.Config.LookupCache())
}

func cacheText(c connectors.LookupCache) string {
	if c.Reload > 0 {
		return "the whole table in memory, read again " + expr.FormatMillis(c.Reload.Milliseconds()) + " after it was read"
	}
	if !c.Enabled() {
		return "no cache"
	}
	var parts []string
	if c.MaxRows > 0 {
		parts = append(parts, fmt.Sprintf("up to %d keys", c.MaxRows))
	}
	if c.AfterWrite > 0 {
		parts = append(parts, "each for "+expr.FormatMillis(c.AfterWrite.Milliseconds())+" after it was read")
	}
	if c.AfterAccess > 0 {
		parts = append(parts, "each for "+expr.FormatMillis(c.AfterAccess.Milliseconds())+" after it was last used")
	}
	if c.Missing {
		parts = append(parts, "missing keys too")
	}
	return "cache: " + strings.Join(parts, ", ")
}

// emitStrategy checks the early and late firing settings of a TUMBLE, HOP
// or CUMULATE window aggregate (Flink's WindowEmitStrategy rules) and
// says what they emit, for EXPLAIN's state lines ("": neither is on).
func (d *deriver) emitStrategy(x *logical.WindowAggregate) string {
	s := d.settings
	if !s.EarlyFire && !s.LateFire {
		return ""
	}
	bad := false
	if s.FinalOnly {
		d.l.Errorf(diag.InvalidSetting, nodeSpan(x), "'table.exec.emit.final-only' cannot be combined with early or late firing: final-only emits each window once, at its horizon, and early and late firing emit it before").
			WithHint("SET 'table.exec.emit.final-only' = 'false' for preliminary results and updates (an updating plan), or turn 'table.exec.emit.early-fire.enabled' and 'table.exec.emit.late-fire.enabled' off")
		bad = true
	}
	if s.EarlyFire && s.EarlyFireDelayText == "" {
		d.l.Errorf(diag.InvalidSetting, nodeSpan(x), "'table.exec.emit.early-fire.enabled' needs 'table.exec.emit.early-fire.delay' (as in Flink): how long after a row a preliminary result is emitted").
			WithHint("SET 'table.exec.emit.early-fire.delay' = '10 s' (processing time), or '0' to emit with each batch of rows")
		bad = true
	}
	if s.LateFire {
		switch {
		case s.AllowLateness <= 0:
			d.l.Errorf(diag.InvalidSetting, nodeSpan(x), "'table.exec.emit.late-fire.enabled' needs 'table.exec.emit.allow-lateness' (as in Flink): without allowed lateness no row updates a window after it fired").
				WithHint("SET 'table.exec.emit.allow-lateness' = '5 min' (event time): a window's state is then kept that long after its end")
			bad = true
		case s.LateFireDelayText == "":
			d.l.Errorf(diag.InvalidSetting, nodeSpan(x), "'table.exec.emit.late-fire.enabled' needs 'table.exec.emit.late-fire.delay' (as in Flink): how long after a late row the update is emitted").
				WithHint("SET 'table.exec.emit.late-fire.delay' = '1 min' (processing time), or '0' to emit with each batch of late rows")
			bad = true
		case s.LateFireDelay > s.AllowLateness:
			d.l.Errorf(diag.InvalidSetting, nodeSpan(x), "'table.exec.emit.late-fire.delay' = '%s' is longer than 'table.exec.emit.allow-lateness' = '%s' (Flink refuses it too)", s.LateFireDelayText, s.AllowLatenessText).
				WithHint("shorten the late-fire delay, or allow more lateness")
			bad = true
		}
	}
	if bad {
		return ""
	}
	var parts []string
	if s.EarlyFire {
		parts = append(parts, fmt.Sprintf("early firing: while a window is open, its result is emitted %s after a row changed it (processing time; PRELIMINARY), and again when the watermark passes window_end - 1ms if it changed since", afterDelay(s.EarlyFireDelayText)))
	}
	if s.LateFire {
		parts = append(parts, fmt.Sprintf("late firing: a late row's update is emitted %s after it came (processing time; UPDATED), and at the horizon at the latest", afterDelay(s.LateFireDelayText)))
	}
	return "emit strategy: " + strings.Join(parts, "; ")
}

func afterDelay(text string) string {
	if t := delayText(text); t != "each batch" {
		return t
	}
	return "with the batch"
}

// sessionEmit refuses what session windows cannot take: early or late
// firing (Flink refuses an emit strategy for them too). Allowed lateness
// and final-only they take (sessionAggOp).
func (d *deriver) sessionEmit(x *logical.WindowAggregate) {
	if s := d.settings; s.EarlyFire || s.LateFire {
		d.l.Errorf(diag.UnsupportedFeature, nodeSpan(x), "early and late firing ('table.exec.emit.early-fire.enabled', '….late-fire.enabled') do not apply to SESSION windows (Flink refuses them too): a session has no end to fire before until its gap has passed").
			WithHint("turn them off (SET 'table.exec.emit.early-fire.enabled' = 'false') before this statement; they apply to TUMBLE, HOP and CUMULATE windows; 'table.exec.emit.allow-lateness' applies to sessions too")
	}
}
