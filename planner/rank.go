package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/physical"
)

// ---- rank ----

// ranks moves a filter on a Rank's row number into the Rank (rn <= N,
// rn < N, rn = N, rn >= M, and the same turned around), as Flink's
// FlinkLogicalRankRule does: the Rank then keeps only the rows numbered
// Start..End. The rest of the filter stays above it.
func (o *optimizer) ranks(n logical.Node) logical.Node {
	n = mapChildren(n, o.ranks)
	f, ok := n.(*logical.Filter)
	if !ok {
		return n
	}
	r, ok := f.Input.(*logical.Rank)
	if !ok || !r.RankCol {
		return n
	}
	r = shallowCopy(r)
	rn := len(r.Cols) - 1
	start, end := r.Start, r.End
	if end == 0 {
		end = math.MaxInt64
	}
	var rest, used []expr.Expr
	for _, c := range expr.Conjuncts(f.Cond) {
		lo, hi, ok := rankBound(c, rn)
		if !ok {
			rest = append(rest, c)
			continue
		}
		start, end = max(start, lo), min(end, hi)
		used = append(used, c)
	}
	if len(used) == 0 {
		return n
	}
	if end < start {
		// Nothing can pass: keep the filter as written (it drops every row)
		// and rank nothing more than one row.
		end = start
		rest = append(rest, used...)
	}
	r.Start, r.End = start, end
	if end == math.MaxInt64 {
		r.End = 0
	}
	if internalName(r.Cols[rn].Name) {
		// The row number of a correlated subquery's LIMIT, which the
		// user never named.
		o.fire("rank", f.S, "the subquery's LIMIT keeps rows %s of each correlation value, in its ORDER BY: a rank that keeps only those", rankRange(r))
	} else {
		var text []string
		for _, u := range used {
			text = append(text, render(u, r.Cols))
		}
		o.fire("rank", f.S, "the filter %s on the row number of %s keeps rows %s of each partition: the rank keeps only those", strings.Join(text, " AND "), r.Func, rankRange(r))
	}
	if len(rest) == 0 {
		return r
	}
	return &logical.Filter{Input: r, Cond: expr.And(rest...), S: f.S}
}

// rankRange renders a Rank's range of row numbers: "1..3", "2..".
func rankRange(r *logical.Rank) string {
	if r.End == 0 {
		return fmt.Sprintf("%d..", r.Start)
	}
	return fmt.Sprintf("%d..%d", r.Start, r.End)
}

// rankBound reads c as a bound on column rn: lo <= rn <= hi.
func rankBound(c expr.Expr, rn int) (lo, hi int64, ok bool) {
	call, isCall := c.(*expr.Call)
	if !isCall || len(call.Args) != 2 {
		return 0, 0, false
	}
	op := call.Fn
	a, b := call.Args[0], call.Args[1]
	if col, isCol := a.(*expr.Column); !isCol || col.Index != rn {
		// n op rn: turn it around.
		a, b = b, a
		switch op {
		case "<":
			op = ">"
		case "<=":
			op = ">="
		case ">":
			op = "<"
		case ">=":
			op = "<="
		}
		if col, isCol := a.(*expr.Column); !isCol || col.Index != rn {
			return 0, 0, false
		}
	}
	v, isInt := constInt(b)
	if !isInt {
		return 0, 0, false
	}
	switch op {
	case "<=":
		return 1, v, true
	case "<":
		return 1, v - 1, true
	case "=":
		return v, v, true
	case ">=":
		return v, math.MaxInt64, true
	case ">":
		return v + 1, math.MaxInt64, true
	}
	return 0, 0, false
}

// constInt is the value of an integer constant, through casts.
func constInt(e expr.Expr) (int64, bool) {
	switch x := e.(type) {
	case *expr.Const:
		v, ok := x.V.(int64)
		return v, ok
	case *expr.Call:
		if x.Fn == "CAST" && len(x.Args) == 1 {
			return constInt(x.Args[0])
		}
	}
	return 0, false
}

// rankKinds decides how each Rank runs, once pruning said whether its row
// number is read (Flink's RankUtil.canConvertToDeduplicate and the window
// rank rule):
//
//	WindowRank   the partition holds window_start and window_end of a
//	             windowed input: each window ranked once, at its end
//	Deduplicate  ROW_NUMBER kept to 1, ordered by one time attribute, the
//	             number not read: the first (ASC) or last (DESC) row
//	Rank         anything else (Top-N): an updating output
func (o *optimizer) rankKinds(n logical.Node) logical.Node {
	n = mapChildren(n, o.rankKinds)
	r, ok := n.(*logical.Rank)
	if !ok {
		return n
	}
	r = shallowCopy(r)
	if w, s, e := windowCols(r.Input); w != nil && s >= 0 && e >= 0 && partitionHas(r, s) && partitionHas(r, e) {
		r.Kind = logical.WindowTopN
		o.fire("rank", r.S, "%s is partitioned by window_start and window_end of %s: each window's rows are ranked once, when the watermark passes its end", r.Func, w.Func)
		return r
	}
	if t, ok := dedupTime(r); ok {
		r.Kind = logical.Deduplicate
		which := "first"
		if r.Order[0].Desc {
			which = "last"
		}
		o.fire("rank", r.S, "%s = 1 ordered by the time attribute %s, the number unused: deduplication keeps the %s row of each partition", r.Func, t, which)
	}
	return r
}

func partitionHas(r *logical.Rank, col int) bool {
	for _, p := range r.Partition {
		if c, ok := p.(*expr.Column); ok && c.Index == col {
			return true
		}
	}
	return false
}

// dedupTime reports whether a Rank is a deduplication: row 1 only, the
// number not output, ordered by one time attribute (which it returns).
func dedupTime(r *logical.Rank) (string, bool) {
	if r.Start != 1 || r.End != 1 || r.RankCol || len(r.Order) != 1 {
		return "", false
	}
	c, ok := r.Order[0].Expr.(*expr.Column)
	if !ok {
		return "", false
	}
	t := timeCols(r.Input)[c.Index]
	if t == expr.NoTime {
		return "", false
	}
	return colName(r.Input.Columns(), c.Index) + " " + t.String(), true
}

// rankKeepsTime reports whether a Rank's rows keep their time attributes:
// those of an insert-only output, emitted as they came (a window rank, a
// deduplication keeping the first row by processing time).
func rankKeepsTime(r *logical.Rank) bool {
	switch r.Kind {
	case logical.WindowTopN:
		return true
	case logical.Deduplicate:
		return !r.Order[0].Desc && dedupOnProcTime(r)
	case logical.TopN:
	}
	return false
}

func dedupOnProcTime(r *logical.Rank) bool {
	c, ok := r.Order[0].Expr.(*expr.Column)
	return ok && timeCols(r.Input)[c.Index] == expr.ProcTime
}

// rankTitle names a Rank in messages.
func rankTitle(r *logical.Rank) string {
	switch r.Kind {
	case logical.Deduplicate:
		return "deduplication (" + r.Func + " = 1)"
	case logical.WindowTopN:
		return "window Top-N (" + r.Func + ")"
	case logical.TopN:
	}
	return "Top-N (" + r.Func + " <= N)"
}

// partitionCols are the columns a Rank is partitioned by, when every key
// is a plain column.
func partitionCols(r *logical.Rank) ([]int, bool) {
	var out []int
	for _, p := range r.Partition {
		c, ok := p.(*expr.Column)
		if !ok {
			return nil, false
		}
		out = append(out, c.Index)
	}
	return out, true
}

// rankProps derives a Rank's changelog mode and upsert keys, as Flink's
// changelog inference and FlinkRelMdUpsertKeys do:
//
//	Rank         [+I,-U,+U,-D]; keys: partition + rn when rn is output,
//	             else the input's keys that hold the partition columns
//	Deduplicate  insert-only keeping the first row by processing time;
//	             otherwise [+I,-U,+U] (a later row, or an earlier time,
//	             replaces the kept one); key: the partition
//	WindowRank   insert-only; keys: partition + rn when rn is output, the
//	             partition when only row 1 is kept
func (d *deriver) rankProps(r *logical.Rank, in *Props, p *Props) {
	part, plain := partitionCols(r)
	rn := len(r.Input.Columns())
	switch r.Kind {
	case logical.TopN:
		p.Produced = changelogmode.All
		if r.RankCol && plain {
			p.Keys = [][]int{append(slices.Clone(part), rn)}
		} else if plain {
			p.Keys = dedupKeys(partitionedKeys(in.Keys, part))
		}
		p.Why = fmt.Sprintf("a Top-N (%s with a filter on its result) keeps each partition's top rows up to date as rows arrive: a row that enters the top retracts the one it pushes out", r.Func)
	case logical.Deduplicate:
		p.Produced = changelogmode.InsertOnly
		if r.Order[0].Desc || !dedupOnProcTime(r) {
			p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.UpdateBefore, changelogmode.UpdateAfter)
			if r.Order[0].Desc {
				p.Why = "deduplication keeping the last row replaces each partition's row with every later one (-U/+U)"
			} else {
				p.Why = "deduplication keeping the first row by event time replaces a partition's row when a row with an earlier time arrives (-U/+U), as Flink does"
			}
		}
		if plain {
			p.Keys = [][]int{slices.Clone(part)}
		}
	case logical.WindowTopN:
		p.Produced = changelogmode.InsertOnly
		if w, _, _ := windowOf(r.Input); w != nil && d.settings.AllowLateness > 0 && !d.settings.FinalOnly {
			s := d.settings
			if r.RankCol {
				p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.UpdateBefore, changelogmode.UpdateAfter, changelogmode.Delete)
				p.Why = fmt.Sprintf("'table.exec.emit.allow-lateness' = '%s' keeps each window's top rows that long after they are emitted: a late row that enters them renumbers the rows after it (-U old, +U new)", s.AllowLatenessText)
			} else {
				p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.Delete)
				p.Why = fmt.Sprintf("'table.exec.emit.allow-lateness' = '%s' keeps each window's top rows that long after they are emitted: a late row that enters them retracts the row it pushes out (-D)", s.AllowLatenessText)
			}
		}
		switch {
		case r.RankCol && plain:
			p.Keys = [][]int{append(slices.Clone(part), rn)}
		case plain && r.End == 1:
			p.Keys = [][]int{slices.Clone(part)}
		}
	}
}

// rankState checks a Rank's input and says what it keeps.
func (d *deriver) rankState(r *logical.Rank, p *Props) {
	in := d.props[r.Input]
	switch r.Kind {
	case logical.WindowTopN:
		if !in.Produced.IsInsertOnly() {
			o := d.origin(r.Input)
			d.l.Errorf(diag.WindowInput, nodeSpan(r), "a window Top-N needs an insert-only input, but its input emits %s", in.Produced).
				WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
				WithHint("a window's top rows are emitted once, when the watermark passes its end, and cannot be corrected later")
		}
		if r.End == 0 {
			d.l.Errorf(diag.OverWindow, nodeSpan(r), "a window Top-N needs a bound on %s's result, as in WHERE rn <= 3", r.Func)
		}
		p.State = []string{fmt.Sprintf("per window and partition: its top %s until watermark >= window_end - 1ms, then emitted once", rowsWord(r.End))}
		s := d.settings
		if w, _, _ := windowOf(r.Input); w != nil {
			switch {
			case s.EarlyFire || s.LateFire:
				d.l.Errorf(diag.UnsupportedFeature, nodeSpan(r), "early and late firing do not apply to a window Top-N: they are emit strategies of window aggregates (allowed lateness applies)").
					WithHint("SET 'table.exec.emit.early-fire.enabled' = 'false' and 'table.exec.emit.late-fire.enabled' = 'false' before this statement: the settings apply to the statements after them")
			case s.AllowLateness > 0 && s.FinalOnly:
				p.State = []string{fmt.Sprintf("per window and partition: its top %s until watermark >= window_end - 1ms + %s (table.exec.emit.allow-lateness), then emitted once (final-only: each window's rows wait %s of event time past its end); the output watermark is held back by %s", rowsWord(r.End), s.AllowLatenessText, s.AllowLatenessText, s.AllowLatenessText)}
			case s.AllowLateness > 0:
				upd := "-D a row pushed out, +I the one that entered"
				if r.RankCol {
					upd = "-U/+U the rows whose number changed, +I where a number fills"
				}
				p.State = []string{fmt.Sprintf("per window and partition: its top %s until watermark >= window_end - 1ms + %s (table.exec.emit.allow-lateness): emitted when watermark >= window_end - 1ms, then a late row that enters them updates them (%s); the output watermark is held back by %s", rowsWord(r.End), s.AllowLatenessText, upd, s.AllowLatenessText)}
			}
		}
		return
	case logical.Deduplicate:
		if !in.Produced.IsInsertOnly() {
			o := d.origin(r.Input)
			d.l.Errorf(diag.OverWindow, nodeSpan(r), "deduplication needs an insert-only input, but its input emits %s", in.Produced).
				WithNote(nodeSpan(o), "the updates come from this %s: %s", nodeTitle(o), d.why(o)).
				WithHint("order by a column that is not a time attribute to rank an updating input (a Top-N keeps every row to take retractions back)")
		}
	case logical.TopN:
		if r.End == 0 {
			d.l.Errorf(diag.OverWindow, nodeSpan(r), "%s without a bound on its result cannot run on a stream: every row would renumber the rows after it", r.Func).
				WithHint("keep the top rows with a filter in the outer query: SELECT * FROM (SELECT *, %s() OVER (...) AS rn FROM t) WHERE rn <= 3", r.Func)
			return
		}
	}
	what := "one row per partition (the one kept)"
	if r.Kind == logical.TopN {
		what = "per partition: its top " + rowsWord(r.End)
		if !in.Produced.IsInsertOnly() {
			what = "per partition: every row (the input retracts, so a row below the top may come back up)"
		}
	}
	if ttl, ok := d.ttl(); ok {
		p.StateTTL[0] = d.settings.StateTTL.Milliseconds()
		p.State = []string{fmt.Sprintf("%s: %s after the partition's last change (table.exec.state.ttl)", what, ttl)}
		return
	}
	p.State = []string{"UNBOUNDED: " + what + ", kept forever"}
	p.Unbounded = true
	if !bounded(r) {
		d.l.Warnf(diag.UnboundedState, nodeSpan(r), "this %s keeps %s forever: state grows with the number of partitions", rankTitle(r), what).
			WithHint("rank within windows (PARTITION BY window_start, window_end, ... over TABLE(TUMBLE(...))): each window's state is freed when it ends").
			WithHint("or SET 'table.exec.state.ttl' = '24h' (a partition idle that long is forgotten: its next row starts it afresh)")
	}
}

// rankText is a Rank's EXPLAIN title:
//
//	Rank ROW_NUMBER rows=1..3 partition=[a] order=[b DESC] rn=rn
//	Deduplicate keep=last partition=[a] order=[ts DESC]
func rankText(r *logical.Rank) string {
	in := r.Input.Columns()
	order := make([]string, len(r.Order))
	for i, k := range r.Order {
		order[i] = render(k.Expr, in)
		if k.Desc {
			order[i] += " DESC"
		}
	}
	s := r.Kind.String()
	if r.Kind == logical.Deduplicate {
		keep := "first"
		if r.Order[0].Desc {
			keep = "last"
		}
		s += " keep=" + keep
	} else {
		s += " " + r.Func + " rows=" + rankRange(r)
	}
	s += " partition=[" + renderList(r.Partition, in) + "] order=[" + strings.Join(order, ", ") + "]"
	if r.RankCol {
		s += " number=" + r.Cols[len(r.Cols)-1].Name
	}
	return s
}

// rank lowers a Rank.
func (l *lowerer) rank(r *logical.Rank) (physical.Node, error) {
	in, err := l.node(r.Input)
	if err != nil {
		return nil, err
	}
	x := &physical.Rank{Op: op(r.Kind.String(), r), Input: in, Kind: r.Kind.String(), Partition: r.Partition,
		Start: r.Start, End: r.End, RankCol: r.RankCol, InCols: physCols(r.Input.Columns())}
	var keys []string
	for _, k := range r.Order {
		x.Order = append(x.Order, physical.SortKey{Expr: k.Expr, Desc: k.Desc})
	}
	for _, p := range r.Partition {
		keys = append(keys, render(p, r.Input.Columns()))
	}
	x.Name = r.Kind.String() + "(" + strings.Join(keys, ", ") + ")"
	if p := l.props[r]; p != nil {
		x.UpdateBefore = p.NeedBefore
		x.TTL = p.StateTTL[0]
	}
	if p := l.props[r.Input]; p != nil {
		x.KeepAll = !p.Produced.IsInsertOnly()
	} else {
		x.KeepAll = true
	}
	switch r.Kind {
	case logical.Deduplicate:
		x.KeepLast = r.Order[0].Desc
		x.ProcTime = dedupOnProcTime(r)
		x.KeepAll = false
	case logical.WindowTopN:
		x.Late = l.late(r.Input)
		x.KeepAll, x.UpdateBefore, x.TTL = false, false, 0
		w, ok := windowColumns(r.Input)
		if !ok {
			// Over a window aggregate: its rows come when their window
			// fires, and a late one is reported with its window_end.
			_, _, end := windowCols(r.Input)
			if end < 0 {
				return nil, fmt.Errorf("internal: window rank without window_end")
			}
			x.EndCol, x.TimeCol = end, end
			break
		}
		if w.end < 0 {
			return nil, fmt.Errorf("internal: window rank without window_end")
		}
		x.EndCol = w.end
		// Over a window TVF the Top-N takes the late rows itself.
		x.Lateness, x.FinalOnly = l.settings.AllowLateness.Milliseconds(), l.settings.FinalOnly
		x.TimeCol = w.orig // late rows are reported with their own time
		if x.TimeCol < 0 {
			x.TimeCol = w.time
		}
		if x.TimeCol < 0 {
			x.TimeCol = w.end
		}
		// Window deduplication keeping the last row: the last of rows
		// that tie wins, as Flink's WindowDeduplicate (>=).
		if c, ok := r.Order[0].Expr.(*expr.Column); ok && r.End == 1 && !r.RankCol && len(r.Order) == 1 && r.Order[0].Desc &&
			(c.Index == w.orig || c.Index == w.time) {
			x.TieLast = true
		}
	case logical.TopN:
	}
	return x, nil
}

func rowsWord(n int64) string {
	if n == 1 {
		return "row"
	}
	return fmt.Sprintf("%d rows", n)
}
