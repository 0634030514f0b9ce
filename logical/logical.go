package logical

import (
	"fmt"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/types"
)

// Column is one output column of a node.
type Column struct {
	// Qualifier is the table alias the column is reachable by, if any.
	Qualifier string
	Name      string
	Type      types.T
	Time      expr.TimeAttr
}

// Node is a logical operator.
type Node interface {
	Columns() []Column
	Span() diag.Span
	node()
}

// Scan reads a table. Used, filled by projection pruning, marks the
// columns the plan reads (nil: all).
type Scan struct {
	Table *catalog.Table
	Alias string
	Cols  []Column
	Used  []bool
	S     diag.Span
}

// Values is VALUES (row), …: a bounded, insert-only input whose rows are
// Rows' expressions (over no columns), each already of its column's type.
type Values struct {
	Rows [][]expr.Expr
	Cols []Column
	S    diag.Span
}

// Correlate is UNNEST joined to the FROM item before it (Flink's
// Correlate over its UNNEST table function): for each input row, one row
// per element of Expr, an ARRAY or a MAP computed from that row, made of
// the input row's columns and then the element's: an ARRAY's element (or
// the fields of a ROW element), a MAP entry's key and value, and the
// position from 1 when Ordinality. Left (LEFT JOIN UNNEST … ON TRUE) keeps
// an input row whose Expr is NULL or empty once, with NULLs for the
// element's columns; an inner Correlate drops it. Stateless: every output
// row has its input row's change kind, so the output's changelog mode is
// the input's.
type Correlate struct {
	Input      Node
	Expr       expr.Expr
	Left       bool
	Ordinality bool
	Cols       []Column
	S          diag.Span
}

// WatermarkAssigner generates watermarks from a time column of its input:
// the largest time seen minus DelayMillis, per source split.
type WatermarkAssigner struct {
	Input       Node
	TimeCol     int
	DelayMillis int64
	S           diag.Span
}

// JoinKey is one equality of a join condition between an expression over
// the left input's columns and one over the right input's, each already cast
// to the type the two compare in (types.ComparisonType) wherever that
// changes how its values are represented (numbers of another type or
// scale). Left = Right then holds exactly when their values are the same,
// except that -0.0 equals 0.0 and NaN equals NaN: the runtime stores, looks
// up and partitions rows by the keys' values with an encoding that says the
// same.
type JoinKey struct {
	Left, Right expr.Expr
	// NullSafe is a key of Left IS NOT DISTINCT FROM Right: a NULL on one
	// side matches a NULL on the other (with =, a NULL matches nothing).
	NullSafe bool
	// S is the span of the equality the key came from.
	S diag.Span
}

// IntervalJoin is a join bounded in time: a row pair matches when its Keys
// are equal, Residual holds and Lower <= left.time - right.time <= Upper
// (milliseconds).
type IntervalJoin struct {
	Kind        ast.JoinKind
	Left, Right Node
	// LeftTime and RightTime index the time attributes in Left's and
	// Right's columns.
	LeftTime, RightTime int
	Lower, Upper        int64
	// Keys and Residual are the join condition without its time bounds, as
	// Join's.
	Keys     []JoinKey
	Residual expr.Expr
	Keyword  diag.Span
	Cols     []Column
	S        diag.Span
}

// WindowJoin joins the rows of the same window of two windowed inputs
// (window TVFs, or window aggregates over them, with the same window): the
// join condition equates both inputs' window_start and window_end. Each
// window's rows wait until the watermark passes the window's end, are
// joined once, and leave state; the output is insert-only.
type WindowJoin struct {
	Kind        ast.JoinKind
	Left, Right Node
	// LeftStart, LeftEnd, RightStart and RightEnd index window_start and
	// window_end in Left's and Right's columns.
	LeftStart, LeftEnd, RightStart, RightEnd int
	// Window is the window both inputs share.
	Window *Window
	// Keys and Residual are the whole join condition, as Join's; the keys
	// include the window_start and window_end equalities.
	Keys     []JoinKey
	Residual expr.Expr
	Keyword  diag.Span
	Cols     []Column
	S        diag.Span
}

// TemporalJoin joins each probe row (Left) with the version of Right
// valid at the probe row's time (FOR SYSTEM_TIME AS OF). With Lookup set
// (AS OF a processing-time attribute) it is a lookup join, as Flink plans
// one: Right is a table scan that is never read as a source; each probe
// row looks its keys up in the table's connector when it arrives, and
// every key's Right expression is a column of the table of Left's type.
type TemporalJoin struct {
	Kind        ast.JoinKind
	Left, Right Node
	// AsOf indexes the FOR SYSTEM_TIME AS OF column in Cols: a time
	// attribute of Left, or, for a lookup join, possibly a PROCTIME()
	// column of Right (Join.AsOf).
	AsOf   int
	Lookup bool
	// Keys and Residual are the join condition, as Join's; the keys cover
	// Right's primary key.
	Keys     []JoinKey
	Residual expr.Expr
	Keyword  diag.Span
	Cols     []Column
	S        diag.Span
}

// WindowAggregate aggregates each window of a window TVF (its Input, a
// *Window possibly under a Filter) and emits it once, when the watermark
// passes the window's end. Keys include window_start and window_end.
type WindowAggregate struct {
	Input Node
	Keys  []expr.Expr
	Aggs  []*AggCall
	Cols  []Column
	S     diag.Span
}

// Filter keeps rows where Cond is true.
type Filter struct {
	Input Node
	Cond  expr.Expr
	S     diag.Span
}

// Project computes Exprs over its input.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Cols  []Column
	S     diag.Span
}

// Join joins Left and Right. Cond is the join condition as bound (ON,
// USING, and WHERE predicates pushed into it), over Left's columns followed
// by Right's. Once pushdown is done the planner splits it, once, into Keys
// (its equalities between the two inputs) and Residual (the rest, over
// Left's then Right's columns, evaluated on each pair of rows with equal
// keys); every rule and the runtime read those. AsOf is set for a temporal
// join (FOR SYSTEM_TIME AS OF), a time attribute column over Cols: one of
// Left's, or, only when it is a processing-time attribute, one of Right's
// (a lookup join reads the table when the probe row arrives, whichever
// side's PROCTIME() names that moment).
type Join struct {
	Kind        ast.JoinKind
	Left, Right Node
	Cond        expr.Expr
	Keys        []JoinKey
	Residual    expr.Expr
	AsOf        expr.Expr
	// Hints are the STATE_TTL hint options, by table alias.
	Hints   map[string]string
	Keyword diag.Span
	Cols    []Column
	S       diag.Span
}

// Window is a window table-valued function: it adds window_start,
// window_end and window_time to its input's columns.
type Window struct {
	Input   Node
	Func    string // TUMBLE, HOP, CUMULATE, SESSION
	TimeCol int
	// Partition indexes SESSION's PARTITION BY columns in Input's.
	Partition []int
	// Size (SESSION's gap), Slide (HOP), Step (CUMULATE) and Offset in
	// milliseconds. A SESSION window gives each row the window [t, t +
	// gap) of its own time t; only a window aggregate, which merges them
	// into sessions, may read it.
	Size, Slide, Step, Offset int64
	Cols                      []Column
	S                         diag.Span
}

// AggCall is one aggregate of an Aggregate.
type AggCall struct {
	Fn       string
	Args     []expr.Expr
	Distinct bool
	Star     bool
	T        types.T
	S        diag.Span
}

func (a *AggCall) String() string {
	s := a.Fn + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	if a.Star {
		s += "*"
	}
	for i, x := range a.Args {
		if i > 0 {
			s += ", "
		}
		s += x.String()
	}
	return s + ")"
}

// Aggregate groups by Keys and computes Aggs; its columns are the keys then
// the aggregates.
type Aggregate struct {
	// Origin says what the aggregate was written as: "GROUP BY",
	// "SELECT DISTINCT", "UNION" (distinct) or "" for a global aggregate.
	Origin string
	Input  Node
	Keys   []expr.Expr
	Aggs   []*AggCall
	Cols   []Column
	S      diag.Span
}

// RankKind says how a Rank runs; the rank rule decides it.
type RankKind int

// Rank kinds, as Flink names the operators.
const (
	// TopN keeps each partition's rows in order and emits the changes of
	// its top rows (Flink's Rank): an updating output.
	TopN RankKind = iota
	// Deduplicate is ROW_NUMBER = 1 ordered by a time attribute, without
	// the number in the output: the first (ASC) or last (DESC) row of each
	// partition (Flink's Deduplicate).
	Deduplicate
	// WindowTopN ranks the rows of each window of a windowed input
	// (partitioned by window_start and window_end) once, when the
	// watermark passes the window's end (Flink's WindowRank and
	// WindowDeduplicate): an insert-only output.
	WindowTopN
)

func (k RankKind) String() string {
	switch k {
	case TopN:
		return "Rank"
	case Deduplicate:
		return "Deduplicate"
	case WindowTopN:
		return "WindowRank"
	}
	return "?"
}

// SortKey is one ORDER BY item of a window.
type SortKey struct {
	Expr expr.Expr
	Desc bool
}

// Rank is ROW_NUMBER() OVER (PARTITION BY Partition ORDER BY Order): it
// numbers each partition's rows in order (NULL first ascending, last
// descending; rows that tie keep their arrival order) and keeps those
// numbered Start to End. The binder makes it with no End (0) and the rank
// number as its last column; the rank rule moves the filter on the number
// above it (rn <= N, rn < N, rn = N) into Start and End and decides Kind,
// and pruning unsets RankCol when nothing reads the number: its column
// stays (the nodes above index the columns after it), a constant 0.
type Rank struct {
	Input     Node
	Kind      RankKind
	Func      string // ROW_NUMBER
	Partition []expr.Expr
	Order     []SortKey
	// Start and End are the range of row numbers kept; End 0: unbounded.
	Start, End int64
	// RankCol is set when the row number (the last column) is read.
	RankCol bool
	// FuncSpan is the window function call, for messages.
	FuncSpan diag.Span
	Cols     []Column
	S        diag.Span
}

// OverAggregate computes aggregates OVER a window of each row's partition
// (Flink's OverAggregate): the rows of Partition ordered by the rowtime
// TimeCol, framed ROWS (Rows) or RANGE from Preceding rows or ms before the
// row (-1: UNBOUNDED PRECEDING) to the current row. Each row is emitted
// once, when the watermark passes its time, with its aggregates after its
// columns; insert-only.
//
// With ProcTime set TimeCol is a processing-time attribute (PROCTIME()):
// each row is emitted as it comes, with the aggregates of the rows that
// came before it (Flink's ProcTimeUnboundedPrecedingFunction and
// ProcTimeRowsBoundedPrecedingFunction); no RANGE interval frame.
//
// With Sort set it is ORDER BY a time attribute (Flink's TemporalSort):
// no partition, no aggregates, ROWS 0 PRECEDING: every row leaves once,
// when the watermark passes its time, in time order; the rows of one time
// in the order of SortKeys (the ORDER BY items after the time attribute,
// NULL first ascending and last descending, as Flink orders NULLs), then
// in arrival order.
type OverAggregate struct {
	Input     Node
	Partition []expr.Expr
	TimeCol   int
	Rows      bool
	Preceding int64
	Aggs      []*AggCall
	ProcTime  bool
	Sort      bool
	SortKeys  []SortKey
	Cols      []Column
	S         diag.Span
}

// Union is UNION ALL of inputs with the same columns.
type Union struct {
	Inputs []Node
	Cols   []Column
	S      diag.Span
}

// ChangelogNormalize turns an upsert stream (an upsert-kafka source, or a
// keyed changelog that may repeat events) into a full changelog: it keeps
// the last row of each key and emits +I for a new key, -U (the old row) and
// +U (the new one) for a changed key, nothing for an unchanged one, and for
// a deletion -D carrying the whole last row (nothing for a key it does not
// hold). The planner inserts it above the scan (and its watermark
// assigner) where a consumer needs -U; rows and watermarks keep their time.
type ChangelogNormalize struct {
	Input Node
	// Key indexes the key columns (the table's primary key) in Input's
	// columns.
	Key []int
	// UpdateBefore is set when the consumer needs -U; otherwise an update
	// is a +U alone.
	UpdateBefore bool
	// TTL is how long a key's last row is kept after it was last written
	// (processing time, ms); 0 keeps it forever. TTLText is the setting
	// as written, for EXPLAIN.
	TTL     int64
	TTLText string
	S       diag.Span
}

// UpsertMaterialize sits in front of a keyed sink whose primary key is not
// an upsert key of the query (Flink's SinkUpsertMaterializer): the changes
// of one sink key may then come from different rows of the query, in any
// order. It keeps, per sink key, the query's live rows with that key and
// emits the last one: +I/+U add a row and emit it; -U/-D remove the
// matching row and emit -D when none is left, +U of the new last row when
// the last one went, nothing otherwise. The planner inserts it as
// 'table.exec.sink.upsert-materialize' says.
type UpsertMaterialize struct {
	Input Node
	// Key indexes the sink's primary key in Input's columns.
	Key []int
	// UpsertKey indexes the input's upsert key rows are matched by; nil:
	// rows are matched by all their values.
	UpsertKey []int
	// TTL is how long a key's rows are kept after its last change
	// (processing time, ms); 0 keeps them forever. TTLText is the setting
	// as written.
	TTL     int64
	TTLText string
	// Cols are Input's columns under the sink's names.
	Cols []Column
	S    diag.Span
}

// Sink writes its input into a table. Cols are the sink's persisted columns.
type Sink struct {
	Input Node
	Table *catalog.Table
	Cols  []Column
	// UpdateBefore is set when the input carries -U that an upsert sink
	// must apply as a deletion of the row's key (a filter over an updating
	// input needs it: the -U of a row may pass where its +U does not);
	// otherwise an upsert sink drops -U, since the +U that follows
	// overwrites the row.
	UpdateBefore bool
	S            diag.Span
}

// Columns implements Node.
func (n *Scan) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Values) Columns() []Column { return n.Cols }

// Span implements Node.
func (n *Values) Span() diag.Span { return n.S }

func (*Values) node() {}

// Columns implements Node.
func (n *WatermarkAssigner) Columns() []Column { return n.Input.Columns() }

// Columns implements Node.
func (n *IntervalJoin) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *WindowJoin) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *TemporalJoin) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *WindowAggregate) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Filter) Columns() []Column { return n.Input.Columns() }

// Columns are the input's, then the element's.
func (n *Correlate) Columns() []Column { return n.Cols }

// Span is UNNEST's.
func (n *Correlate) Span() diag.Span { return n.S }

func (*Correlate) node() {}

// Columns implements Node.
func (n *Project) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Join) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Window) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Aggregate) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Union) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Rank) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *OverAggregate) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *Sink) Columns() []Column { return n.Cols }

// Columns implements Node.
func (n *ChangelogNormalize) Columns() []Column { return n.Input.Columns() }

// Columns implements Node.
func (n *UpsertMaterialize) Columns() []Column { return n.Cols }

// Span implements Node.
func (n *Scan) Span() diag.Span { return n.S }

// Span implements Node.
func (n *WatermarkAssigner) Span() diag.Span { return n.S }

// Span implements Node.
func (n *IntervalJoin) Span() diag.Span { return n.S }

// Span implements Node.
func (n *WindowJoin) Span() diag.Span { return n.S }

// Span implements Node.
func (n *TemporalJoin) Span() diag.Span { return n.S }

// Span implements Node.
func (n *WindowAggregate) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Filter) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Project) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Join) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Window) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Aggregate) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Union) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Rank) Span() diag.Span { return n.S }

// Span implements Node.
func (n *OverAggregate) Span() diag.Span { return n.S }

// Span implements Node.
func (n *Sink) Span() diag.Span { return n.S }

// Span implements Node.
func (n *ChangelogNormalize) Span() diag.Span { return n.S }

// Span implements Node.
func (n *UpsertMaterialize) Span() diag.Span { return n.S }

func (*Scan) node()               {}
func (*WatermarkAssigner) node()  {}
func (*IntervalJoin) node()       {}
func (*WindowJoin) node()         {}
func (*TemporalJoin) node()       {}
func (*WindowAggregate) node()    {}
func (*Filter) node()             {}
func (*Project) node()            {}
func (*Join) node()               {}
func (*Window) node()             {}
func (*Aggregate) node()          {}
func (*Union) node()              {}
func (*Rank) node()               {}
func (*OverAggregate) node()      {}
func (*Sink) node()               {}
func (*ChangelogNormalize) node() {}
func (*UpsertMaterialize) node()  {}

// Replace returns n with its inputs replaced by children (in the order
// Children gives them). It mutates and returns n.
func Replace(n Node, children []Node) Node {
	switch n := n.(type) {
	case *Scan, *Values:
	case *Filter:
		n.Input = children[0]
	case *Correlate:
		n.Input = children[0]
	case *Project:
		n.Input = children[0]
	case *Join:
		n.Left, n.Right = children[0], children[1]
	case *Window:
		n.Input = children[0]
	case *Aggregate:
		n.Input = children[0]
	case *Union:
		n.Inputs = children
	case *Rank:
		n.Input = children[0]
	case *OverAggregate:
		n.Input = children[0]
	case *Sink:
		n.Input = children[0]
	case *WatermarkAssigner:
		n.Input = children[0]
	case *IntervalJoin:
		n.Left, n.Right = children[0], children[1]
	case *WindowJoin:
		n.Left, n.Right = children[0], children[1]
	case *TemporalJoin:
		n.Left, n.Right = children[0], children[1]
	case *WindowAggregate:
		n.Input = children[0]
	case *ChangelogNormalize:
		n.Input = children[0]
	case *UpsertMaterialize:
		n.Input = children[0]
	default:
		panic(fmt.Sprintf("logical.Replace: unknown node %T", n))
	}
	return n
}

// Children returns a node's inputs. It panics on a node it does not know,
// so that adding a node fails loudly wherever it must be handled.
func Children(n Node) []Node {
	switch n := n.(type) {
	case *Scan, *Values:
		return nil
	case *Filter:
		return []Node{n.Input}
	case *Correlate:
		return []Node{n.Input}
	case *Project:
		return []Node{n.Input}
	case *Join:
		return []Node{n.Left, n.Right}
	case *Window:
		return []Node{n.Input}
	case *Aggregate:
		return []Node{n.Input}
	case *Union:
		return n.Inputs
	case *Rank:
		return []Node{n.Input}
	case *OverAggregate:
		return []Node{n.Input}
	case *Sink:
		return []Node{n.Input}
	case *WatermarkAssigner:
		return []Node{n.Input}
	case *IntervalJoin:
		return []Node{n.Left, n.Right}
	case *WindowJoin:
		return []Node{n.Left, n.Right}
	case *TemporalJoin:
		return []Node{n.Left, n.Right}
	case *WindowAggregate:
		return []Node{n.Input}
	case *ChangelogNormalize:
		return []Node{n.Input}
	case *UpsertMaterialize:
		return []Node{n.Input}
	}
	panic(fmt.Sprintf("logical.Children: unknown node %T", n))
}
