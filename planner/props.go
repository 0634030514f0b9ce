package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/settings"
)

// Props are the derived properties of one plan node, computed once.
type Props struct {
	// Produced is what the node can emit (the bottom-up pass).
	Produced changelogmode.Mode
	// NeedBefore is set when a consumer needs -U (the top-down pass).
	NeedBefore bool
	// Mode is what the node emits given its consumers.
	Mode changelogmode.Mode
	// Keys are the upsert keys: sets of output columns that identify a row.
	// An empty key means the node emits at most one row (a global aggregate).
	Keys [][]int
	// Time is the time attribute of each output column.
	Time []expr.TimeAttr
	// State says, for a stateful operator, what it keeps and when a row
	// leaves; nil for stateless operators.
	State []string
	// Unbounded is set when some state is never freed.
	Unbounded bool
	// WatermarkDelay is how far the node's output watermark is held back
	// behind its inputs' (interval joins).
	WatermarkDelay int64
	// StateTTL is how long a regular join keeps each side's rows, or an
	// aggregate its groups ([0]), after they were last accessed
	// (processing time, ms; 0: forever).
	StateTTL [2]int64
	// Why explains in words why the node produces updates, for the node
	// that introduces them.
	Why string
}

// timeCols derives the time attribute of each output column of n.
func timeCols(n logical.Node) []expr.TimeAttr {
	none := func(k int) []expr.TimeAttr { return make([]expr.TimeAttr, k) }
	switch x := n.(type) {
	case *logical.Scan:
		out := none(len(x.Cols))
		for i, c := range x.Table.Columns {
			out[i] = c.Time
		}
		return out
	case *logical.WatermarkAssigner:
		return timeCols(x.Input)
	case *logical.Values:
		return none(len(x.Cols))
	case *logical.Filter:
		return timeCols(x.Input)
	case *logical.Correlate:
		// Each row leaves when its input row does: the input's time
		// attributes stay (as Flink's correlate keeps them).
		return append(timeCols(x.Input), none(len(x.Cols)-len(x.Input.Columns()))...)
	case *logical.Project:
		in := timeCols(x.Input)
		out := none(len(x.Exprs))
		for i, e := range x.Exprs {
			if c, ok := e.(*expr.Column); ok {
				out[i] = in[c.Index]
			}
		}
		return out
	case *logical.Join, *logical.Aggregate:
		// A regular join or aggregate emits rows at any time: its time
		// columns are plain timestamps from here on, as in Flink.
		return none(len(n.Columns()))
	case *logical.IntervalJoin:
		return append(timeCols(x.Left), timeCols(x.Right)...)
	case *logical.WindowJoin:
		// window_start and window_end stay plain columns, as a window
		// aggregate leaves them.
		return none(len(x.Cols))
	case *logical.TemporalJoin:
		return append(timeCols(x.Left), none(len(x.Right.Columns()))...)
	case *logical.Window:
		in := timeCols(x.Input)
		out := none(len(x.Cols))
		out[len(out)-1] = in[x.TimeCol] // window_time; the original column becomes plain
		return out
	case *logical.WindowAggregate:
		in := timeCols(x.Input)
		out := none(len(x.Cols))
		for i, k := range x.Keys {
			if c, ok := k.(*expr.Column); ok {
				out[i] = in[c.Index]
			}
		}
		return out
	case *logical.Union:
		out := timeCols(x.Inputs[0])
		for _, in := range x.Inputs[1:] {
			t := timeCols(in)
			for i := range out {
				if t[i] != out[i] {
					out[i] = expr.NoTime
				}
			}
		}
		return out
	case *logical.OverAggregate:
		// Rows leave in time order, once the watermark passed them: they
		// keep their time attributes (as Flink's over aggregate does).
		return append(timeCols(x.Input), make([]expr.TimeAttr, len(x.Aggs))...)
	case *logical.Rank:
		out := none(len(x.Cols))
		if rankKeepsTime(x) {
			copy(out, timeCols(x.Input))
		}
		return out
	case *logical.Sink:
		return timeCols(x.Input)
	case *logical.ChangelogNormalize:
		return timeCols(x.Input)
	case *logical.UpsertMaterialize:
		return timeCols(x.Input)
	}
	panic(fmt.Sprintf("timeCols: unknown node %T", n))
}

func modeByName(name string) changelogmode.Mode {
	switch name {
	case connectors.Upsert:
		return changelogmode.Upsert
	case connectors.AllKinds:
		return changelogmode.All
	}
	return changelogmode.InsertOnly
}

// deriver computes Props for a plan and checks it.
type deriver struct {
	props    map[logical.Node]*Props
	settings settings.Settings
	l        *diag.List
}

// produce is the bottom-up pass: what each node can emit, its keys and
// time attributes.
func (d *deriver) produce(n logical.Node) *Props {
	for _, c := range logical.Children(n) {
		d.produce(c)
	}
	p := &Props{Time: timeCols(n)}
	d.props[n] = p
	child := func(i int) *Props { return d.props[logical.Children(n)[i]] }
	switch x := n.(type) {
	case *logical.Scan:
		p.Produced = changelogmode.InsertOnly
		if x.Table.Config != nil && x.Table.Config.Spec != nil {
			p.Produced = modeByName(x.Table.Config.SourceMode())
		}
		if len(x.Table.PrimaryKey) > 0 {
			p.Keys = [][]int{slices.Clone(x.Table.PrimaryKey)}
		}
	case *logical.Values:
		p.Produced = changelogmode.InsertOnly
	case *logical.WatermarkAssigner, *logical.Filter:
		p.Produced, p.Keys = child(0).Produced, child(0).Keys
	case *logical.Project:
		in := child(0)
		p.Produced = in.Produced
		p.Keys = projectKeys(in.Keys, x.Exprs)
	case *logical.Window:
		p.Produced = child(0).Produced
	case *logical.Correlate:
		// Each input row's kind goes to each of its rows; no key survives
		// (a row is repeated once per element).
		p.Produced = child(0).Produced
	case *logical.Join:
		l, r := child(0), child(1)
		if isSemi(x.Kind) {
			d.semiProps(x, l, r, p)
			break
		}
		if (x.Kind == ast.InnerJoin || x.Kind == ast.CrossJoin) && l.Produced.IsInsertOnly() && r.Produced.IsInsertOnly() {
			p.Produced = changelogmode.InsertOnly
		} else if x.Kind == ast.InnerJoin || x.Kind == ast.CrossJoin {
			p.Produced = l.Produced.Union(r.Produced)
		} else {
			p.Produced = changelogmode.All
		}
		p.Keys = joinKeys(x.Kind, l.Keys, r.Keys, len(x.Left.Columns()), x.Keys)
		p.Why = d.joinWhy(x, l, r)
	case *logical.WindowJoin:
		p.Produced = changelogmode.InsertOnly
		if s := d.settings; s.AllowLateness > 0 && !s.FinalOnly && x.Kind != ast.InnerJoin {
			p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.Delete)
			p.Why = fmt.Sprintf("'table.exec.emit.allow-lateness' = '%s' keeps each window's rows that long after the %s window join fired: a row emitted padded with NULLs is retracted (-D) when a late partner comes, and the pair emitted", s.AllowLatenessText, x.Kind)
		}
		if x.Kind == ast.InnerJoin {
			p.Keys = joinKeys(x.Kind, child(0).Keys, child(1).Keys, len(x.Left.Columns()), x.Keys)
		}
	case *logical.IntervalJoin, *logical.TemporalJoin:
		p.Produced = changelogmode.InsertOnly
	case *logical.WindowAggregate:
		p.Produced = changelogmode.InsertOnly
		p.Keys = [][]int{seq(len(x.Keys))}
		if w, _, _ := windowOf(x.Input); w != nil && w.Func == "SESSION" {
			if s := d.settings; s.AllowLateness > 0 && !s.FinalOnly {
				// A late row updates a session already emitted, or
				// extends or merges sessions: their rows' window_start
				// and window_end change, so the old rows are deleted.
				p.Produced = changelogmode.All
				p.Why = fmt.Sprintf("'table.exec.emit.allow-lateness' = '%s' keeps each session that long after it is emitted: a late row then updates its result (-U old, +U new), or extends or merges sessions, which retracts them (-D) and emits the merged one (+I)", s.AllowLatenessText)
			}
		} else if !d.settings.FinalOnly {
			s := d.settings
			// A late row, or a row after an early firing, updates a
			// result already emitted: keyed by the window and the group
			// keys, the key the result is upserted on.
			switch {
			case s.EarlyFire:
				p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.UpdateBefore, changelogmode.UpdateAfter)
				p.Why = fmt.Sprintf("'table.exec.emit.early-fire.enabled' emits each window's result before it closes (every %s of processing time), and a later row then updates it (-U old, +U new)", delayText(s.EarlyFireDelayText))
			case s.AllowLateness > 0:
				p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.UpdateBefore, changelogmode.UpdateAfter)
				p.Why = fmt.Sprintf("'table.exec.emit.allow-lateness' = '%s' keeps each window open that long after it is emitted, and a late row then updates its result (-U old, +U new)", s.AllowLatenessText)
			}
		}
	case *logical.Aggregate:
		in := child(0)
		p.Produced = changelogmode.Of(changelogmode.Insert, changelogmode.UpdateBefore, changelogmode.UpdateAfter)
		if !in.Produced.IsInsertOnly() {
			p.Produced = changelogmode.All
		}
		p.Keys = [][]int{seq(len(x.Keys))}
		switch x.Origin {
		case "GROUP BY":
			p.Why = "a GROUP BY without a window updates each group's result as rows arrive"
		case "GROUP BY GROUPING SETS", "GROUP BY ROLLUP", "GROUP BY CUBE":
			p.Why = fmt.Sprintf("a %s without a window updates each group's result, in every grouping set, as rows arrive", x.Origin)
		case "SELECT DISTINCT", "UNION":
			p.Why = fmt.Sprintf("%s removes duplicates by remembering every distinct row, and retracts a row when its last copy is retracted", x.Origin)
		case "INTERSECT":
			p.Why = "INTERSECT remembers every distinct row of both inputs, and retracts a row when either input loses its last copy"
		case "EXCEPT":
			p.Why = "EXCEPT remembers every distinct row of both inputs, and retracts a row of the left one when the right one gets it"
		default:
			p.Why = "an aggregate without GROUP BY or window updates its single result row with every input row"
		}
	case *logical.Union:
		for i := range x.Inputs {
			p.Produced = p.Produced.Union(child(i).Produced)
		}
	case *logical.Rank:
		d.rankProps(x, child(0), p)
	case *logical.OverAggregate:
		p.Produced = changelogmode.InsertOnly
		p.Keys = child(0).Keys
	case *logical.Sink:
		p.Produced, p.Keys = child(0).Produced, child(0).Keys
	case *logical.ChangelogNormalize:
		p.Produced = changelogmode.All
		p.Keys = [][]int{slices.Clone(x.Key)}
	case *logical.UpsertMaterialize:
		p.Produced = changelogmode.Upsert
		p.Keys = [][]int{slices.Clone(x.Key)}
	default:
		panic(fmt.Sprintf("produce: unknown node %T", n))
	}
	return p
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// projectKeys maps keys through a projection: a key survives when all its
// columns are passed through unchanged.
func projectKeys(keys [][]int, exprs []expr.Expr) [][]int {
	var out [][]int
	for _, k := range keys {
		var nk []int
		for _, col := range k {
			found := -1
			for i, e := range exprs {
				if c, ok := e.(*expr.Column); ok && c.Index == col {
					found = i
					break
				}
			}
			if found < 0 {
				nk = nil
				break
			}
			nk = append(nk, found)
		}
		if nk != nil || len(k) == 0 {
			out = append(out, nk)
		}
	}
	return out
}

// equiPairs returns the column pairs (left, right, in the join's columns)
// a join's keys equate exactly: a column on each side, cast at most to a
// type that keeps different values apart.
func equiPairs(keys []logical.JoinKey, nL int) [][2]int {
	var out [][2]int
	for _, k := range keys {
		a, okA := keyColumn(k.Left)
		b, okB := keyColumn(k.Right)
		if okA && okB {
			out = append(out, [2]int{a.Index, nL + b.Index})
		}
	}
	return out
}

func containsAll(set []int, sub []int) bool {
	for _, s := range sub {
		if !slices.Contains(set, s) {
			return false
		}
	}
	return true
}

// joinKeys derives a join's upsert keys, as Flink's FlinkRelMdUpsertKeys: a
// left key with a right key identifies a row; when the equi-join covers one
// side's key, the other side's key alone does. A side that is padded with
// nulls (the right of a LEFT JOIN) cannot identify rows on its own. And a
// key survives only if it contains the join's equi-join columns of its
// side (filterKeys): the join runs partitioned by those, so an update that
// changes them retracts the old row in one partition and adds the new one
// in another, and the two reach the consumer in either order. Keyed by a
// key that contains them, one key's changes stay in one partition, in
// order.
func joinKeys(kind ast.JoinKind, lk, rk [][]int, nL int, keys []logical.JoinKey) [][]int {
	return joinKeysOf(kind, lk, rk, nL, keys, true)
}

// joinKeysOf is joinKeys, with the keys that do not contain the equi-join
// columns kept when partitioned is false (to tell which keys a join drops).
func joinKeysOf(kind ast.JoinKind, lk, rk [][]int, nL int, keys []logical.JoinKey, partitioned bool) [][]int {
	var out [][]int
	pairs := equiPairs(keys, nL)
	var lEq, rEq []int
	for _, p := range pairs {
		lEq = append(lEq, p[0])
		rEq = append(rEq, p[1]-nL)
	}
	leftPadded := kind == ast.RightJoin || kind == ast.FullJoin
	rightPadded := kind == ast.LeftJoin || kind == ast.FullJoin
	// Whether each row of a side meets at most one row of the other is
	// decided on the unfiltered keys (Flink's isSideUnique).
	leftUnique, rightUnique := false, false
	for _, k := range rk {
		rightUnique = rightUnique || len(k) > 0 && containsAll(rEq, k)
	}
	for _, k := range lk {
		leftUnique = leftUnique || len(k) > 0 && containsAll(lEq, k)
	}
	if partitioned {
		// The join runs partitioned by its key expressions: a key that
		// holds every column they read keeps its rows in one partition.
		var lDist, rDist []int
		for _, k := range keys {
			lDist = append(lDist, expr.Columns(k.Left)...)
			rDist = append(rDist, expr.Columns(k.Right)...)
		}
		lk, rk = partitionedKeys(lk, lDist), partitionedKeys(rk, rDist)
	}
	if rightUnique && !leftPadded {
		// Each left row meets at most one right row: left keys hold.
		for _, l := range lk {
			out = append(out, slices.Clone(l))
		}
	}
	if leftUnique && !rightPadded {
		for _, r := range rk {
			out = append(out, shift(r, nL))
		}
	}
	if kind != ast.FullJoin {
		for _, l := range lk {
			for _, r := range rk {
				out = append(out, append(slices.Clone(l), shift(r, nL)...))
			}
		}
	}
	return dedupKeys(out)
}

// partitionedKeys keeps the keys that contain every column of dist, the
// columns a keyed operator partitions its input by (Flink's filterKeys).
func partitionedKeys(keys [][]int, dist []int) [][]int {
	var out [][]int
	for _, k := range keys {
		if containsAll(k, dist) {
			out = append(out, k)
		}
	}
	return out
}

func shift(k []int, n int) []int {
	out := make([]int, len(k))
	for i, c := range k {
		out[i] = c + n
	}
	return out
}

func dedupKeys(keys [][]int) [][]int {
	var out [][]int
	seen := map[string]bool{}
	for _, k := range keys {
		s := slices.Clone(k)
		sort.Ints(s)
		id := fmt.Sprint(s)
		if !seen[id] {
			seen[id] = true
			out = append(out, s)
		}
	}
	// Keep the smallest keys first: they are the most useful to show.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}

// tableName names the table a join input reads, for messages.
func tableName(n logical.Node) string {
	if s := baseScan(n); s != nil {
		return s.Table.Name
	}
	return "its input"
}

func (d *deriver) joinWhy(j *logical.Join, l, r *Props) string {
	left, right := tableName(j.Left), tableName(j.Right)
	switch j.Kind {
	case ast.LeftJoin:
		return fmt.Sprintf("a LEFT JOIN without a time bound emits each %s row padded with nulls at once, then retracts it (-D) and emits the joined row when a matching %s row arrives", left, right)
	case ast.RightJoin:
		return fmt.Sprintf("a RIGHT JOIN without a time bound emits each %s row padded with nulls at once, then retracts it (-D) and emits the joined row when a matching %s row arrives", right, left)
	case ast.FullJoin:
		return fmt.Sprintf("a FULL JOIN without a time bound emits every %s and %s row padded with nulls at once, then retracts it (-D) when a partner arrives", left, right)
	case ast.InnerJoin, ast.CrossJoin, ast.SemiJoin, ast.AntiJoin:
	}
	if !l.Produced.IsInsertOnly() || !r.Produced.IsInsertOnly() {
		return "the join passes on the updates and deletes of its input"
	}
	return ""
}

// semiProps derives what a semi or anti join emits, as Flink's
// StreamingSemiAntiJoinOperator: a left row goes out when it arrives with
// a match (semi) or without one (anti), keeping its kind; a right row that
// gives a left row its first match emits that row +I (semi) or retracts it
// -D (anti), and the retraction of its last match the reverse. A semi join
// of insert-only inputs is insert-only (a left row, once out, keeps its
// match); an anti join retracts a row when its first match arrives.
// Each left row goes out at most once: the left input's keys survive
// (those that hold its equi-join columns, as for any partitioned join).
func (d *deriver) semiProps(x *logical.Join, l, r *Props, p *Props) {
	p.Produced = l.Produced
	if x.Kind == ast.AntiJoin || !r.Produced.IsInsertOnly() {
		p.Produced = p.Produced.Union(changelogmode.Of(changelogmode.Insert, changelogmode.Delete))
	}
	var dist []int
	for _, k := range x.Keys {
		dist = append(dist, expr.Columns(k.Left)...)
	}
	p.Keys = dedupKeys(partitionedKeys(l.Keys, dist))
	left, right := tableName(x.Left), tableName(x.Right)
	switch {
	case x.Kind == ast.AntiJoin:
		p.Why = fmt.Sprintf("NOT IN / NOT EXISTS emits each %s row that has no match yet, and retracts it (-D) when a matching %s row arrives", left, right)
	case !r.Produced.IsInsertOnly():
		p.Why = fmt.Sprintf("IN / EXISTS retracts (-D) a %s row when its last matching %s row is retracted", left, right)
	case !l.Produced.IsInsertOnly():
		p.Why = "the semi join passes on the updates and deletes of its input"
	}
}

// require is the top-down pass: which nodes must emit -U.
func (d *deriver) require(n logical.Node, needBefore bool) {
	p := d.props[n]
	p.NeedBefore = needBefore
	p.Mode = p.Produced
	if p.Mode.Has(changelogmode.UpdateAfter) {
		if needBefore {
			p.Mode = p.Mode.Union(changelogmode.Of(changelogmode.UpdateBefore))
		} else {
			p.Mode = p.Mode.Minus(changelogmode.Of(changelogmode.UpdateBefore))
		}
	}
	switch x := n.(type) {
	case *logical.TemporalJoin:
		// The versioned side is read by key: an upsert stream is enough.
		d.require(x.Left, true)
		d.require(x.Right, false)
	case *logical.Join, *logical.Aggregate, *logical.WindowAggregate, *logical.IntervalJoin, *logical.WindowJoin, *logical.Rank, *logical.OverAggregate:
		// Stateful operators retract what they stored: they need full
		// updates from their inputs.
		for _, c := range logical.Children(n) {
			d.require(c, true)
		}
	case *logical.ChangelogNormalize:
		// It reads its input by key: an upsert stream is what it takes.
		d.require(x.Input, false)
	case *logical.UpsertMaterialize:
		// It removes the row a -U retracts.
		d.require(x.Input, true)
	case *logical.Sink:
		// An upsert sink needs no -U when its key is an upsert key of its
		// input: the +U overwrites the row. When only a part of its key is
		// one (Flink's rule), an update may change the rest of the key:
		// the -U then deletes the old key.
		d.require(x.Input, !isUpsertSink(x) || !hasKey(d.props[x.Input].Keys, x.Table.PrimaryKey))
		// What reaches the sink is what its input emits: -U when a filter
		// below needs it, which an upsert sink then applies as a deletion.
		p.Mode = d.props[x.Input].Mode
		x.UpdateBefore = isUpsertSink(x) && p.Mode.Has(changelogmode.UpdateBefore)
	case *logical.Correlate:
		// As a filter: the new row of an update may have other elements
		// than the old one, and only the -U takes the old ones out.
		in := d.props[x.Input]
		d.require(x.Input, needBefore || in.Produced.Has(changelogmode.UpdateAfter))
		p.Mode = d.props[x.Input].Mode
	case *logical.Filter:
		// A filter over updates needs -U even when its consumer does not
		// (as Flink's changelog inference, FLINK-9528): the new row of an
		// update may fail the condition where the old one passed, and only
		// the -U then takes the old row out. So it passes -U on.
		in := d.props[x.Input]
		d.require(x.Input, needBefore || in.Produced.Has(changelogmode.UpdateAfter))
		p.Mode = d.props[x.Input].Mode
	default:
		// Stateless nodes pass on what their inputs emit.
		cs := logical.Children(n)
		for _, c := range cs {
			d.require(c, needBefore)
		}
		if len(cs) > 0 {
			p.Mode = 0
			for _, c := range cs {
				p.Mode = p.Mode.Union(d.props[c].Mode)
			}
		}
	}
}

// hasKey reports whether key is one of keys.
func hasKey(keys [][]int, key []int) bool {
	for _, k := range keys {
		if sameSet(k, key) {
			return true
		}
	}
	return false
}

// coveredBy reports whether some upsert key is a part of key (then key
// identifies the rows too).
func coveredBy(keys [][]int, key []int) bool {
	for _, k := range keys {
		if containsAll(key, k) {
			return true
		}
	}
	return false
}

func isUpsertSink(s *logical.Sink) bool {
	return s.Table.Config != nil && s.Table.Config.Spec != nil && s.Table.Config.SinkMode() == connectors.Upsert
}

// origin finds the node that introduces updates under n: the topmost node
// that emits updates while its inputs do not (or a scan of a changelog).
func (d *deriver) origin(n logical.Node) logical.Node {
	for _, c := range logical.Children(n) {
		if !d.props[c].Produced.IsInsertOnly() {
			return d.origin(c)
		}
	}
	return n
}

// nodeSpan is where to point at a node in the user's text.
func nodeSpan(n logical.Node) diag.Span {
	kw := diag.NoSpan
	switch x := n.(type) {
	case *logical.Join:
		kw = x.Keyword
	case *logical.IntervalJoin:
		kw = x.Keyword
	case *logical.WindowJoin:
		kw = x.Keyword
	case *logical.TemporalJoin:
		kw = x.Keyword
	case *logical.WindowAggregate:
		if w, _, _ := windowOf(x.Input); w != nil {
			kw = w.S
		}
	case *logical.Rank:
		kw = x.FuncSpan
	}
	if kw.IsValid() {
		return kw
	}
	return n.Span()
}

// nodeTitle names a node in messages.
func nodeTitle(n logical.Node) string {
	switch x := n.(type) {
	case *logical.Join:
		return x.Kind.String() + " JOIN"
	case *logical.Aggregate:
		switch x.Origin {
		case "":
			return "global aggregate"
		case "GROUP BY":
			return "GROUP BY aggregate"
		}
		return x.Origin
	case *logical.Scan:
		return "scan of " + x.Table.Name
	case *logical.Rank:
		return rankTitle(x)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n), "*logical.")
}

// why returns the reason the origin of updates emits them.
func (d *deriver) why(n logical.Node) string {
	if p := d.props[n]; p.Why != "" {
		return p.Why
	}
	if s, ok := n.(*logical.Scan); ok && s.Table.Config != nil {
		return fmt.Sprintf("table %s is read as a changelog (%s)", s.Table.Name, connectorText(s.Table.Config))
	}
	return "it emits updates"
}

// delayText is an early or late firing's delay as EXPLAIN and messages
// say it: "each batch" for 0.
func delayText(text string) string {
	if strings.TrimSpace(text) == "" || strings.TrimSpace(text) == "0" {
		return "each batch"
	}
	return text
}
