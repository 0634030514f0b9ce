package physical

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/expr"
)

// Text renders a plan as a tree, one operator a line: its kind, its ID in
// brackets, and the facts the runtime builds it from.
//
//	Sink[sink-8d1c0f2a] out (filesystem, json) accepts=[+I]
//	└── IntervalJoin[intervaljoin-5b7e…] INNER(o, s) o.t - s.t in [0, 4h] delay=4h keys=(o.id = s.id)
//	    ├── Source[source-…] orders AS o (filesystem, json) watermark=t - 5s
//	    ...
//
// A stateful operator's line ends with what its checkpoints snapshot
// (snapshot=...: its state tables and what they hold by which key), and a
// plan with one ends with a line on the key groups that state is kept in.
func Text(p *Plan) string {
	var b strings.Builder
	stateful := false
	var node func(n Node, first, rest string)
	node = func(n Node, first, rest string) {
		snap := Snapshots(n)
		if snap != "" {
			snap = " snapshot=(" + snap + ")"
			stateful = true
		}
		fmt.Fprintf(&b, "%s%s%s\n", first, Describe(n), snap)
		ins := n.Inputs()
		for i, in := range ins {
			if i == len(ins)-1 {
				node(in, rest+"└── ", rest+"    ")
			} else {
				node(in, rest+"├── ", rest+"│   ")
			}
		}
	}
	node(p.Root, "", "")
	if stateful {
		kg := p.MaxParallelism
		if kg <= 0 {
			kg = 128
		}
		fmt.Fprintf(&b, "Checkpoints: keyed state in %d key groups ('pipeline.max-parallelism')\n", kg)
	}
	return b.String()
}

// Snapshots says what a checkpoint of n snapshots of its state: its
// state tables (the names exec opens in the operator's store) and what
// they hold; "" for an operator without keyed state.
func Snapshots(n Node) string {
	switch x := n.(type) {
	case *RegularJoin:
		return "left, right: each side's rows by join key"
	case *IntervalJoin:
		return "left, right: each side's rows by join key, until the watermark passes their time bound"
	case *WindowJoin:
		return "left, right: each side's rows by join key, until their window ends"
	case *TemporalJoin:
		return "probes, versions: the rows waiting for the watermark and the versions, by join key"
	case *GroupAggregate:
		return "groups: the accumulators by group key"
	case *WindowAggregate:
		if x.Session != nil {
			return "sessions: each key's sessions with their rows (and, with allowed lateness, the row each emitted) until their horizon"
		}
		return "windows: the accumulators by window and group key"
	case *Normalize:
		return "rows: the last row by key"
	case *UpsertMaterialize:
		return "rows: the live rows by sink key"
	case *Rank:
		switch x.Kind {
		case Deduplicate:
			return "rows: the row kept by key"
		case WindowRank:
			return "windows: the top rows by window and partition (and, with allowed lateness, what a fired window emitted) until its horizon"
		}
		return "partitions: the top rows by partition"
	case *OverAggregate:
		return "partitions: the pending rows, their history and the running accumulators by partition"
	}
	return ""
}

// Describe renders one node on one line, with its ID.
func Describe(n Node) string {
	o := n.Base()
	return kindOf(n) + "[" + o.ID + "] " + detail(n)
}

func kindOf(n Node) string {
	switch x := n.(type) {
	case *Source:
		return "Source"
	case *Values:
		return "Values"
	case *Calc:
		return "Calc"
	case *Window:
		return "Window"
	case *Correlate:
		return "Correlate"
	case *RegularJoin:
		return "Join"
	case *IntervalJoin:
		return "IntervalJoin"
	case *WindowJoin:
		return "WindowJoin"
	case *TemporalJoin:
		return "TemporalJoin"
	case *LookupJoin:
		return "LookupJoin"
	case *GroupAggregate:
		return "GroupAggregate"
	case *WindowAggregate:
		return "WindowAggregate"
	case *Normalize:
		return "ChangelogNormalize"
	case *UpsertMaterialize:
		return "UpsertMaterialize"
	case *Union:
		return "UnionAll"
	case *Rank:
		return x.Kind
	case *OverAggregate:
		if x.Sort {
			return "TemporalSort"
		}
		return "OverAggregate"
	case *Sink:
		return "Sink"
	}
	return fmt.Sprintf("%T", n)
}

func names(cols []Column) func(*expr.Column) string {
	return func(c *expr.Column) string {
		if c.Index >= 0 && c.Index < len(cols) {
			return cols[c.Index].Name
		}
		return fmt.Sprintf("$%d", c.Index)
	}
}

func render(e expr.Expr, cols []Column) string {
	if e == nil {
		return "true"
	}
	return expr.FormatBare(e, names(cols))
}

func renderList(es []expr.Expr, cols []Column) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = render(e, cols)
	}
	return strings.Join(out, ", ")
}

func colList(cols []Column, idx []int) string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = fmt.Sprintf("$%d", k)
		if k >= 0 && k < len(cols) {
			out[i] = cols[k].Name
		}
	}
	return strings.Join(out, ", ")
}

func ttl(ms int64) string {
	if ms <= 0 {
		return "forever"
	}
	return expr.FormatMillis(ms)
}

func dur(d time.Duration) string { return expr.FormatMillis(d.Milliseconds()) }

func late(l *LateRows) string {
	if l == nil || l.Path == "" {
		return ""
	}
	return " late-rows=" + l.Path
}

func lates(j *Join, l [2]*LateRows) string {
	var parts []string
	for i, x := range l {
		if x != nil && x.Path != "" {
			parts = append(parts, j.Sides[i]+": "+x.Path)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " late-rows=[" + strings.Join(parts, ", ") + "]"
}

// qualified are a join side's columns named after the side.
func qualified(cols []Column, side string) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		out[i] = Column{Name: side + "." + c.Name, Type: c.Type}
	}
	return out
}

func (j *Join) cols() (l, r []Column) {
	return qualified(j.Left.Base().Cols, j.Sides[0]), qualified(j.Right.Base().Cols, j.Sides[1])
}

func (j *Join) keys() string {
	l, r := j.cols()
	parts := make([]string, len(j.Keys[0]))
	for i := range j.Keys[0] {
		op := " = "
		if i < len(j.NullSafe) && j.NullSafe[i] {
			op = " IS NOT DISTINCT FROM "
		}
		parts[i] = render(j.Keys[0][i], l) + op + render(j.Keys[1][i], r)
	}
	s := " keys=(" + strings.Join(parts, ", ") + ")"
	if j.Residual != nil {
		s += " residual=" + render(j.Residual, append(append([]Column{}, l...), r...))
	}
	return s
}

func (j *Join) kind() string {
	switch {
	case j.Semi:
		return "SEMI"
	case j.Anti:
		return "ANTI"
	}
	switch j.Outer {
	case [2]bool{true, false}:
		return "LEFT"
	case [2]bool{false, true}:
		return "RIGHT"
	case [2]bool{true, true}:
		return "FULL"
	}
	return "INNER"
}

func aggs(a *Aggregate) string {
	in := a.Input.Base().Cols
	var parts []string
	for _, c := range a.Aggs {
		s := c.Fn + "("
		if c.Distinct {
			s += "DISTINCT "
		}
		if c.Star {
			s += "*"
		}
		parts = append(parts, s+renderList(c.Args, in)+")")
	}
	s := "group=[" + renderList(a.Keys, in) + "]"
	if len(parts) > 0 {
		s += " " + strings.Join(parts, ", ")
	}
	if a.Retract {
		s += " retract"
	}
	return s
}

// detail is everything a node is built from, but its inputs.
func detail(n Node) string {
	switch x := n.(type) {
	case *Values:
		rows := make([]string, len(x.Rows))
		for i, r := range x.Rows {
			rows[i] = "(" + renderList(r, nil) + ")"
		}
		if len(rows) > 3 {
			rows = append(rows[:3:3], fmt.Sprintf("… %d rows", len(x.Rows)))
		}
		return strings.Join(rows, ", ") + " bounded"
	case *Source:
		s := x.TableName
		if x.Alias != "" && x.Alias != x.TableName {
			s += " AS " + x.Alias
		}
		s += " (" + x.Format + ")" + x.Hint
		var dec []string
		for _, f := range x.Spec.Schema {
			if !f.Unused {
				dec = append(dec, f.Name)
			}
		}
		s += " decode=[" + strings.Join(dec, ", ") + "]"
		if len(x.Computed) > 0 {
			var cs []string
			for _, c := range x.Computed {
				cs = append(cs, c.Name+" := "+render(c.Expr, x.Cols))
			}
			s += " compute=[" + strings.Join(cs, ", ") + "]"
		}
		if w := x.Watermark; w != nil {
			s += " watermark=" + x.Cols[w.Col].Name
			if w.Delay != 0 {
				s += " - " + expr.FormatMillis(w.Delay)
			}
		}
		if x.IdleTimeout > 0 {
			s += " idle-timeout=" + dur(x.IdleTimeout)
		}
		if a := x.Align; a != nil {
			s += fmt.Sprintf(" align=%s max-drift=%s every %s", a.Group, dur(a.MaxDrift), dur(a.Interval))
		}
		if x.Bounded {
			s += " bounded"
		}
		if x.SkipBad {
			s += " skip-bad-rows"
		}
		return s
	case *Calc:
		in := x.Input.Base().Cols
		var parts []string
		if x.Cond != nil {
			parts = append(parts, "where="+render(x.Cond, in))
		}
		if x.Exprs != nil {
			ps := make([]string, len(x.Exprs))
			for i, e := range x.Exprs {
				ps[i] = render(e, in)
				if c, ok := e.(*expr.Column); !ok || in[c.Index].Name != x.Cols[i].Name {
					ps[i] += " AS " + x.Cols[i].Name
				}
			}
			parts = append(parts, "select=["+strings.Join(ps, ", ")+"]")
		}
		return strings.Join(parts, " ")
	case *Correlate:
		in := x.Input.Base().Cols
		kind := "INNER"
		if x.Left {
			kind = "LEFT"
		}
		s := kind + " UNNEST(" + render(x.Expr, in) + ")"
		if x.Ordinality {
			s += " WITH ORDINALITY"
		}
		var names []string
		for _, c := range x.Cols[len(in):] {
			names = append(names, c.Name)
		}
		return s + " AS (" + strings.Join(names, ", ") + ") state=none"
	case *Window:
		in := x.Input.Base().Cols
		s := x.Func + "(" + in[x.TimeCol].Name
		for _, v := range []int64{x.Slide, x.Step, x.Size} {
			if v > 0 {
				s += ", " + expr.FormatMillis(v)
			}
		}
		if x.Offset != 0 {
			s += ", offset " + expr.FormatMillis(x.Offset)
		}
		return s + ")" + late(x.Late)
	case *RegularJoin:
		return fmt.Sprintf("%s(%s, %s)%s ttl=[%s, %s]", x.kind(), x.Sides[0], x.Sides[1], x.keys(), ttl(x.TTL[0]), ttl(x.TTL[1]))
	case *IntervalJoin:
		l, r := x.cols()
		return fmt.Sprintf("%s(%s, %s) %s - %s in [%s, %s] delay=%s%s%s", x.kind(), x.Sides[0], x.Sides[1],
			l[x.TimeCol[0]].Name, r[x.TimeCol[1]].Name, expr.FormatMillis(x.Lower), expr.FormatMillis(x.Upper),
			expr.FormatMillis(x.Delay), x.keys(), lates(&x.Join, x.Late))
	case *WindowJoin:
		l, r := x.cols()
		lateness := ""
		if x.Lateness > 0 {
			lateness = " lateness=" + expr.FormatMillis(x.Lateness)
		}
		return fmt.Sprintf("%s(%s, %s) end=[%s, %s]%s%s%s", x.kind(), x.Sides[0], x.Sides[1],
			l[x.End[0]].Name, r[x.End[1]].Name, lateness, x.keys(), lates(&x.Join, x.Late))
	case *TemporalJoin:
		l, r := x.cols()
		return fmt.Sprintf("%s(%s, %s) AS OF %s versions by %s%s%s", x.kind(), x.Sides[0], x.Sides[1],
			l[x.LeftTime].Name, r[x.RightTime].Name, x.keys(), lates(&x.Join, x.Late))
	case *LookupJoin:
		kind := "INNER"
		if x.Outer {
			kind = "LEFT"
		}
		in := x.Input.Base().Cols
		dim := x.Cols[len(in):]
		keys := make([]string, len(x.Keys))
		for i, k := range x.Keys {
			keys[i] = render(k, in) + " = " + x.Dim.Alias + "." + x.Dim.Spec.Schema[x.DimKeys[i]].Name
		}
		s := fmt.Sprintf("%s(%s, %s) table=%s (%s) keys=(%s)", kind, x.Side, x.Dim.Alias, x.Dim.TableName, x.Dim.Format, strings.Join(keys, ", "))
		if x.Residual != nil {
			s += " where=" + render(x.Residual, append(append([]Column(nil), in...), dim...))
		}
		return s + " " + cacheText(x.Cache)
	case *GroupAggregate:
		return aggs(&x.Aggregate) + " ttl=" + ttl(x.TTL)
	case *WindowAggregate:
		in := x.Input.Base().Cols
		s := aggs(&x.Aggregate) + " end=" + in[x.EndCol].Name + " time=" + in[x.TimeCol].Name
		if x.Session != nil {
			s += " sessions per [" + renderList(x.Session.Keys, in) + "]"
		}
		if x.ProcTime {
			s += " fires=clock" // at each window's end, besides the watermark
		}
		if x.Lateness > 0 {
			s += " lateness=" + expr.FormatMillis(x.Lateness)
		}
		if x.FinalOnly {
			s += " final-only"
		}
		if x.EarlyFire {
			s += " early-fire=" + fireText(x.EarlyFireDelay)
		}
		if x.LateFire {
			s += " late-fire=" + fireText(x.LateFireDelay)
		}
		return s + late(x.Late)
	case *Normalize:
		s := "key=(" + colList(x.Input.Base().Cols, x.Key) + ")"
		if x.UpdateBefore {
			s += " with -U"
		}
		return s + " ttl=" + ttl(x.TTL)
	case *UpsertMaterialize:
		s := "key=(" + colList(x.Cols, x.Key) + ")"
		if x.UpsertKey != nil {
			s += " rows by (" + colList(x.Cols, x.UpsertKey) + ")"
		} else {
			s += " rows by all columns"
		}
		return s + " ttl=" + ttl(x.TTL)
	case *Union:
		return fmt.Sprintf("inputs=%d", len(x.Ins))
	case *Rank:
		return rankDetail(x)
	case *OverAggregate:
		if x.Sort {
			order := []string{x.InCols[x.TimeCol].Name}
			for _, k := range x.SortKeys {
				s := render(k.Expr, x.Input.Base().Cols)
				if k.Desc {
					s += " DESC"
				}
				order = append(order, s)
			}
			return "order=[" + strings.Join(order, ", ") + "]" + late(x.Late)
		}
		return overDetail(x)
	case *Sink:
		s := x.Name
		if !x.Query {
			s += " (" + x.Format + ")" + x.Hint
		}
		s += " accepts=" + x.Accepts.String() + " gets=" + x.Mode.String()
		if x.DropBefore {
			s += " drops -U"
		}
		if x.BeforeAsDelete {
			s += " -U deletes"
		}
		var casts []string
		in := x.Input.Base().Cols
		for i, c := range x.Casts {
			if c != nil {
				casts = append(casts, render(c, in)+" AS "+x.Spec.Schema[i].Name)
			}
		}
		if len(casts) > 0 {
			s += " casts=[" + strings.Join(casts, ", ") + "]"
		}
		return s
	}
	return ""
}

// AssignIDs gives every node of a job's plans its ID: the node's kind and
// a hash of its name and its inputs' IDs, as Flink hashes an operator's
// place in the topology rather than its parameters: a job edited without
// changing its shape (a filter's constant, a TTL) keeps its IDs, and
// whether its state still fits is the checkpoint's to judge (its digest of
// types and options). A Source's hash is its table, connector, options and
// watermark: scans of one table with one watermark are one source, shared
// (the runtime reads a table once per job), and a table dropped and
// declared again is another (Decl). Two other nodes that would get
// the same ID are told apart by a suffix, in the order the plans and their
// inputs come.
func AssignIDs(plans []*Plan) {
	taken := map[string]string{} // what each ID was given to
	var assign func(n Node)
	assign = func(n Node) {
		for _, in := range n.Inputs() {
			assign(in)
		}
		o := n.Base()
		var what strings.Builder // what the ID hashes
		fmt.Fprintf(&what, "%s\x00%s", kindOf(n), o.Name)
		src, isSrc := n.(*Source)
		if isSrc {
			// Options are left out: they may hold secrets, which a short
			// hash in EXPLAIN would let one confirm by guessing.
			fmt.Fprintf(&what, "\x00%s\x00%s\x00%s\x00%d", src.TableName, src.Spec.Connector, src.Format, src.Decl)
			if w := src.Watermark; w != nil {
				fmt.Fprintf(&what, "\x00watermark %d %d", w.Col, w.Delay)
			}
		}
		for _, in := range n.Inputs() {
			fmt.Fprintf(&what, "\x00%s", in.Base().ID)
		}
		h := fnv.New32a()
		h.Write([]byte(what.String()))
		id := fmt.Sprintf("%s-%08x", strings.ToLower(kindOf(n)), h.Sum32())
		for k, base := 2, id; ; k++ {
			prev, ok := taken[id]
			if !ok || isSrc && prev == what.String() {
				break
			}
			id = fmt.Sprintf("%s-%d", base, k)
		}
		taken[id] = what.String()
		o.ID = id
	}
	for _, p := range plans {
		assign(p.Root)
	}
}

// rankDetail renders a Rank: its partition, order, range and what it keeps.
func rankDetail(x *Rank) string {
	in := x.Input.Base().Cols
	order := make([]string, len(x.Order))
	for i, k := range x.Order {
		order[i] = render(k.Expr, in)
		if k.Desc {
			order[i] += " DESC"
		}
	}
	s := "partition=[" + renderList(x.Partition, in) + "] order=[" + strings.Join(order, ", ") + "]"
	switch x.Kind {
	case Deduplicate:
		keep := "first"
		if x.KeepLast {
			keep = "last"
		}
		s += " keep=" + keep
		if x.ProcTime {
			s += " by arrival"
		}
	default:
		s += fmt.Sprintf(" rows=%d..%d", x.Start, x.End)
		if x.RankCol {
			s += " number=" + x.Cols[len(x.Cols)-1].Name
		}
	}
	if x.KeepAll {
		s += " keeps every row"
	}
	if x.TieLast {
		s += " ties: last first"
	}
	if x.UpdateBefore && x.Kind != WindowRank {
		s += " with -U"
	}
	if x.Kind == WindowRank {
		return s + " end=" + in[x.EndCol].Name + " time=" + in[x.TimeCol].Name + late(x.Late)
	}
	return s + " ttl=" + ttl(x.TTL)
}

// overDetail renders an OverAggregate: its partition, order, frame and
// aggregates.
func overDetail(x *OverAggregate) string {
	in := x.Input.Base().Cols
	frame := "RANGE"
	if x.Rows {
		frame = "ROWS"
	}
	switch {
	case x.Preceding < 0:
		frame += " UNBOUNDED PRECEDING"
	case x.Rows:
		frame += fmt.Sprintf(" %d PRECEDING", x.Preceding)
	default:
		frame += " " + expr.FormatMillis(x.Preceding) + " PRECEDING"
	}
	var aggs []string
	for _, a := range x.Aggs {
		s := a.Fn + "("
		if a.Star {
			s += "*"
		}
		s += renderList(a.Args, in) + ")"
		aggs = append(aggs, s)
	}
	if x.ProcTime {
		return "partition=[" + renderList(x.Partition, in) + "] order=[" + in[x.TimeCol].Name + " PROCTIME] " + frame + " " + strings.Join(aggs, ", ")
	}
	return "partition=[" + renderList(x.Partition, in) + "] order=[" + in[x.TimeCol].Name + "] " + frame + " " + strings.Join(aggs, ", ") + late(x.Late)
}

func cacheText(c LookupCache) string {
	if c.Reload > 0 {
		return "cache=(whole table, reload-after=" + dur(c.Reload) + ")"
	}
	if !c.Enabled() {
		return "cache=none"
	}
	s := "cache=("
	var parts []string
	if c.MaxRows > 0 {
		parts = append(parts, fmt.Sprintf("max-rows=%d", c.MaxRows))
	}
	if c.AfterWrite > 0 {
		parts = append(parts, "expire-after-write="+dur(c.AfterWrite))
	}
	if c.AfterAccess > 0 {
		parts = append(parts, "expire-after-access="+dur(c.AfterAccess))
	}
	parts = append(parts, fmt.Sprintf("missing-keys=%t", c.Missing))
	return s + strings.Join(parts, " ") + ")"
}

// fireText is an early or late firing's delay: "each-batch" for 0.
func fireText(ms int64) string {
	if ms == 0 {
		return "each-batch"
	}
	return expr.FormatMillis(ms)
}
