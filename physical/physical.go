package physical

import (
	"time"

	"github.com/streamsql/streamsql/changelogmode"
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/types"
)

// Plan is one INSERT or SELECT of a job, lowered: Root is its Sink.
type Plan struct {
	Root *Sink
	// MaxParallelism is 'pipeline.max-parallelism', the number of key
	// groups of keyed state (EXPLAIN says it).
	MaxParallelism int
}

// Column is an output column of a node.
type Column struct {
	Name string
	Type types.T
}

// Op is what every node has.
type Op struct {
	// ID is the node's stable operator id (see the package comment).
	ID string
	// Name names the operator in counters, warnings and runtime errors:
	// "IntervalJoin INNER(o, s)".
	Name string
	// Span is the SQL the node came from.
	Span diag.Span
	// Cols are the node's output columns.
	Cols []Column
}

// Node is a physical operator.
type Node interface {
	// Base returns the node's Op.
	Base() *Op
	// Inputs returns the node's inputs, in port order.
	Inputs() []Node
}

// Base implements Node.
func (o *Op) Base() *Op { return o }

// LateRows says where the late rows of one operator input go: they are
// counted against the source that read them and written to its table's
// dead-letter file, if it has one.
type LateRows struct {
	// Source is the Source under the input.
	Source *Source
	// Path is the dead-letter file ('scan.late-rows.path') as declared;
	// "" for none. A relative path is relative to the job file.
	Path string
}

// Computed is a computed column of a source's table.
type Computed struct {
	// At is the column's position in the Source's output.
	At   int
	Name string
	// Expr is over the Source's output columns.
	Expr expr.Expr
}

// Watermark is how a source generates watermarks: per split, the largest
// time seen in column Col minus Delay (ms).
type Watermark struct {
	Col   int
	Delay int64
}

// Alignment is a source's watermark alignment group.
type Alignment struct {
	Group string
	// MaxDrift is how far the source's watermark may run ahead of the
	// group's before it stops reading.
	MaxDrift time.Duration
	// Interval is how often the group's watermark is recomputed.
	Interval time.Duration
}

// Source reads a table. Its output columns are the table's columns (all of
// them, in table order): the connector decodes Schema, whose columns go to
// the positions Place says, and the runtime computes Computed; columns
// neither decodes nor computes are NULL.
type Source struct {
	Op
	// Spec is what the connector's factory gets (the runtime adds the
	// job's settings, base directory and console writers). Spec.Schema is
	// what the connector decodes, in order; Place[i] is the output column
	// Spec.Schema[i] goes to.
	Spec  connector.Spec
	Place []int
	// TableName and Alias name the table and how the query calls it.
	TableName, Alias string
	// Decl counts the declarations of TableName in the job before this
	// one (a table dropped and declared again is another table).
	Decl int
	// Format names the connector's formats for EXPLAIN ("kafka, json").
	Format string
	// Hint shows the options of the table hint the table is read with
	// (" OPTIONS('k'='v')", secrets masked), for EXPLAIN; Spec has them
	// already.
	Hint string
	// Computed are the computed columns to compute, in table order.
	Computed []Computed
	// Watermark is nil for a source without one.
	Watermark *Watermark
	// IdleTimeout marks a split idle after that long without a row
	// (processing time); 0: never.
	IdleTimeout time.Duration
	// GapAlert alerts while max event time minus watermark exceeds it
	// ('scan.watermark.gap-alert'); 0: never.
	GapAlert time.Duration
	// Align is nil without an alignment group.
	Align *Alignment
	// Bounded is set when the source ends by itself (files, bounded reads).
	Bounded bool
	// SkipBad is set when rows that cannot be decoded are counted and
	// skipped ('<format>.ignore-parse-errors').
	SkipBad bool
	// TableSpan is where the table is declared, and TableSource the text
	// it is declared in (nil: the job's own), for errors about it.
	TableSpan   diag.Span
	TableSource *diag.Source
	// Invalid is set when the table's declaration had errors (reported):
	// its connector is not asked about it.
	Invalid bool
}

// Calc filters (Cond, nil: keep every row) and then projects (Exprs, nil:
// pass the row through) one row at a time.
type Calc struct {
	Op
	Input Node
	Cond  expr.Expr
	Exprs []expr.Expr
}

// Correlate is UNNEST joined to its input (Flink's Correlate): for each
// input row, one row per element of Expr, an ARRAY or a MAP over the
// input's columns: the input row's columns, then the element's (an
// ARRAY's element, or the fields of a ROW element, NULLs for a NULL one;
// a MAP entry's key and value), then the position from 1 when
// Ordinality. Left keeps an input row whose Expr is NULL or empty once,
// with NULLs for the element's columns; otherwise it gives no row. Every
// output row has its input row's change kind. It keeps no state.
type Correlate struct {
	Op
	Input      Node
	Expr       expr.Expr
	Left       bool
	Ordinality bool
}

// Window is a window table-valued function: it adds window_start,
// window_end and window_time to each row, once per window the row's time
// (column TimeCol) falls in.
type Window struct {
	Op
	Input   Node
	Func    string // TUMBLE, HOP, CUMULATE
	TimeCol int
	// Size, Slide (HOP), Step (CUMULATE) and Offset in milliseconds.
	Size, Slide, Step, Offset int64
	// Late is where rows without a valid time go (nil: counted nowhere).
	Late *LateRows
	// InCols are the input's columns, for dead letters.
	InCols []Column
}

// Join is what the two-sided joins share.
type Join struct {
	// Keys are each side's key expressions, over that side's columns,
	// already cast to the type the two sides compare in: a pair of rows
	// matches when the keys' values are the same (as an encoding that
	// makes -0.0 equal 0.0 and NaN equal NaN) and Residual holds.
	Keys [2][]expr.Expr
	// NullSafe[i] says key i is null-safe (IS NOT DISTINCT FROM): a NULL
	// in it is a value that matches a NULL of the other side; nil: none
	// is. A row with a NULL in any other key matches nothing.
	NullSafe []bool
	// Residual is the rest of the condition, over Left's then Right's
	// columns; nil: true.
	Residual expr.Expr
	// Outer says which sides are padded with NULLs when unmatched.
	Outer [2]bool
	// Semi and Anti make a regular join a semi or anti join (of an IN or
	// EXISTS subquery): it emits the left rows that have a match (Semi) or
	// none (Anti), with the left input's columns only.
	Semi, Anti bool
	// Sides name the inputs (their table aliases) in warnings.
	Sides [2]string
	// Width is the number of columns of each side.
	Width       [2]int
	Left, Right Node
}

// Inputs implements Node.
func (j *Join) Inputs() []Node { return []Node{j.Left, j.Right} }

// RegularJoin is a join without a time bound: it keeps every row of both
// sides (for TTL[i] ms after it was last accessed; 0: forever).
type RegularJoin struct {
	Op
	Join
	TTL [2]int64
}

// IntervalJoin matches a pair when Lower <= left.time - right.time <=
// Upper (ms, times in TimeCol of each side) and the keys and residual
// match.
type IntervalJoin struct {
	Op
	Join
	TimeCol      [2]int
	Lower, Upper int64
	// Delay is how far the output watermark is held back behind the
	// inputs': max(-Lower, Upper, 0).
	Delay int64
	// Late and InCols are each side's late-row destination and columns.
	Late   [2]*LateRows
	InCols [2][]Column
}

// WindowJoin joins the rows of the same window of two windowed inputs
// once the watermark passes the window's end (End[i] indexes window_end in
// side i).
type WindowJoin struct {
	Op
	Join
	End    [2]int
	Late   [2]*LateRows
	InCols [2][]Column
	// Lateness ('table.exec.emit.allow-lateness', ms) keeps each window's
	// rows until window_end - 1 + Lateness: a row that comes after the
	// window was joined meets the other side's rows of it at once; on an
	// outer join it retracts (-D) a partner emitted padded with NULLs,
	// and is emitted padded itself when it meets none. The output
	// watermark is held back by it. FinalOnly ('table.exec.emit.final-
	// only') joins each window once, at window_end - 1 + Lateness, with
	// every row that came before: append-only.
	Lateness  int64
	FinalOnly bool
}

// TemporalJoin joins each probe row (Left) with the version of Right valid
// at the probe row's time (column LeftTime of Left); RightTime indexes the
// versioned side's event time.
type TemporalJoin struct {
	Op
	Join
	LeftTime, RightTime int
	Late                [2]*LateRows
	InCols              [2][]Column
}

// LookupJoin joins each row of Input with the rows of a table looked up
// by key when the row arrives (processing time), as Flink's LookupJoin: a
// row whose keys equal no row of the table (or hold a NULL, which equals
// nothing; the planner refuses a null-safe key that could match NULL with
// NULL) is dropped, or padded with NULLs when Outer; Residual filters
// the rows found. It keeps no state: its output has its input's changelog
// mode (the planner gives it insert-only input only), and its columns are
// Input's followed by the table's.
type LookupJoin struct {
	Op
	Input Node
	// Dim is the table looked up: its connector Spec (Spec.Schema the
	// columns the connector returns), Place and TableName as a Source's.
	// It is not read as a source: it is no input and has no ID.
	Dim *Source
	// Keys are over Input's columns; Keys[i] is looked up in the dim
	// column Spec.Schema[DimKeys[i]], whose type it has.
	Keys    []expr.Expr
	DimKeys []int
	// Residual is the rest of the ON clause, over Input's columns then the
	// table's; nil: true.
	Residual expr.Expr
	Outer    bool
	Cache    LookupCache
	// Side names the probe input (its alias).
	Side string
}

// Inputs implements Node.
func (n *LookupJoin) Inputs() []Node { return []Node{n.Input} }

// LookupCache is what a lookup join keeps of the rows it looked up, per
// key (Flink's DefaultLookupCache). The zero value caches nothing.
type LookupCache struct {
	// MaxRows is how many keys are kept, the least recently used out
	// first; 0: no limit.
	MaxRows int64
	// AfterWrite and AfterAccess drop a key that long after it was looked
	// up, or last used; 0: never.
	AfterWrite, AfterAccess time.Duration
	// Missing caches keys the table does not hold (as no rows).
	Missing bool
	// Reload, for EXPLAIN: the connector holds the whole table and reads
	// it again this long after it last read it (it reads the option
	// itself); the runtime caches nothing.
	Reload time.Duration
}

// Enabled reports whether anything is cached.
func (c LookupCache) Enabled() bool { return c.MaxRows > 0 || c.AfterWrite > 0 || c.AfterAccess > 0 }

// AggCall is one aggregate function call.
type AggCall struct {
	Fn       string
	Args     []expr.Expr
	Distinct bool
	Star     bool
	T        types.T
}

// Aggregate is what the aggregates share: group keys and calls over the
// input's columns, and whether the input may retract rows (then
// accumulators must be able to take values back out).
type Aggregate struct {
	Input   Node
	Keys    []expr.Expr
	Aggs    []*AggCall
	Retract bool
}

// Inputs implements Node.
func (a *Aggregate) Inputs() []Node { return []Node{a.Input} }

// GroupAggregate keeps one row per group and updates it with each input
// row; a group untouched for TTL ms (processing time) is forgotten (0:
// never).
type GroupAggregate struct {
	Op
	Aggregate
	TTL int64
}

// WindowAggregate aggregates each window and emits it once the watermark
// passes its end. EndCol indexes window_end in the input; TimeCol is the
// time a late row is reported with.
//
// Lateness ('table.exec.emit.allow-lateness', ms) keeps a window's state
// until the watermark reaches window_end - 1 + Lateness, its horizon: a
// row that comes after the window fired but before its horizon updates
// the result (-U old, +U new); a row after the horizon is late. FinalOnly
// ('table.exec.emit.final-only') emits each window once, at its horizon,
// and nothing else: append-only. Session windows take both: a late row
// that extends or merges emitted sessions retracts them (-D) and emits
// the merged one. Early and late firing are for the others only.
type WindowAggregate struct {
	Op
	Aggregate
	EndCol, TimeCol int
	Late            *LateRows
	InCols          []Column
	// Session is set for session windows (their window TVF gives each row
	// the window [t, t + gap) of its time, which the aggregate merges).
	Session   *Session
	Lateness  int64
	FinalOnly bool
	// EarlyFire ('table.exec.emit.early-fire.enabled') emits a window's
	// result before the window closes: EarlyFireDelay ms of processing
	// time after a row changed it ('….delay'; 0: after each batch), if it
	// changed. LateFire ('table.exec.emit.late-fire.*') emits the updates
	// of late rows (within Lateness) LateFireDelay ms after the first of
	// them, not with each batch. Neither with FinalOnly or sessions.
	EarlyFire, LateFire           bool
	EarlyFireDelay, LateFireDelay int64
	// ProcTime is set when the window is over a processing-time attribute
	// (a PROCTIME() column): a window also fires when the clock reaches
	// its last millisecond, as Flink's processing-time windows do, not
	// only when the watermark (on such a stream, the end of the input)
	// passes it; a session fires when the clock reaches its end (its last
	// row's time + gap) - 1ms.
	ProcTime bool
}

// Session says how a window aggregate merges session windows: per group
// of Keys (the aggregate's keys without the window's columns, also what
// it is partitioned by), a row's window joins every open session it
// touches. StartKey, EndKey and TimeKey say where window_start,
// window_end and window_time are among the aggregate's keys (TimeKey -1:
// not grouped by); KeyPos where each of Keys goes. StartCol indexes the
// row's own window_start in the input.
type Session struct {
	Keys                      []expr.Expr
	KeyPos                    []int
	StartKey, EndKey, TimeKey int
	StartCol                  int
}

// Normalize turns an upsert stream into a full changelog by keeping the
// last row of each key (Key indexes the input's columns) for TTL ms after
// its last change (0: forever).
type Normalize struct {
	Op
	Input        Node
	Key          []int
	UpdateBefore bool
	TTL          int64
}

// Inputs implements Node.
func (n *Normalize) Inputs() []Node { return []Node{n.Input} }

// UpsertMaterialize keeps, per sink key, the query's live rows and emits
// the last one (Flink's SinkUpsertMaterializer). UpsertKey is nil when
// rows are matched by all their values.
type UpsertMaterialize struct {
	Op
	Input     Node
	Key       []int
	UpsertKey []int
	TTL       int64
}

// Inputs implements Node.
func (n *UpsertMaterialize) Inputs() []Node { return []Node{n.Input} }

// SortKey is one ORDER BY item of a Rank.
type SortKey struct {
	Expr expr.Expr
	Desc bool
}

// Rank kinds (Rank.Kind), as Flink names the operators.
const (
	TopN        = "Rank"
	Deduplicate = "Deduplicate"
	WindowRank  = "WindowRank"
)

// Rank numbers the rows of each partition (Partition, over the input's
// columns) in Order — NULL first ascending, last descending, rows that tie
// in arrival order — and keeps those numbered Start to End, appending the
// number when RankCol is set, and otherwise a constant 0 that nothing reads
// (the plan above indexes the columns after it).
//
//	Rank         emits the changes of each partition's rows Start..End as
//	             rows arrive: with the number, -U/+U of the row at a
//	             number (+I/-D where a number fills or empties); without
//	             it, -D of a row that leaves and +I of one that enters.
//	             KeepAll: the input retracts, so every row is kept (a row
//	             below End may come back up); otherwise the top End rows.
//	             A partition untouched for TTL ms (processing time) is
//	             forgotten (0: never).
//	Deduplicate  End = 1 ordered by one time attribute: the first row of
//	             each partition (KeepLast unset) or the last, replaced as
//	             Flink's deduplication does (by event time unless
//	             ProcTime: an earlier row for the first, a later or equal
//	             one for the last; by arrival with ProcTime); TTL as Rank's.
//	WindowRank   the partition holds the window of a windowed input:
//	             rows are kept per partition until the watermark passes
//	             window_end (EndCol) and the partition's rows Start..End
//	             are then emitted once, insert-only. TieLast: rows that tie
//	             rank the last arrived first (window deduplication keeping
//	             the last row). Late rows go to Late (time TimeCol).
//
// UpdateBefore is set when the consumer needs -U.
type Rank struct {
	Op
	Input        Node
	Kind         string
	Partition    []expr.Expr
	Order        []SortKey
	Start, End   int64
	RankCol      bool
	KeepAll      bool
	KeepLast     bool
	ProcTime     bool
	TieLast      bool
	UpdateBefore bool
	TTL          int64
	EndCol       int
	TimeCol      int
	Late         *LateRows
	InCols       []Column
	// Lateness and FinalOnly are a WindowRank's allowed lateness (ms) and
	// 'table.exec.emit.final-only', over a window TVF only: a fired
	// window's rows stay until window_end - 1 + Lateness, and a late row
	// that changes its rows Start..End updates them (FinalOnly: emitted
	// once, then).
	Lateness  int64
	FinalOnly bool
}

// Inputs implements Node.
func (n *Rank) Inputs() []Node { return []Node{n.Input} }

// OverAggregate computes Aggs OVER each row's partition (Partition, over
// the input's columns) ordered by the event time TimeCol: a frame of the
// Preceding rows (Rows) or ms (RANGE: every row with a time in [t -
// Preceding, t], peers included) before the row and the row itself; -1:
// UNBOUNDED PRECEDING. A row is emitted, with its aggregates after its
// columns, once the watermark passes its time, in time order; a row at or
// below the watermark when it comes is late (Late, with its time).
type OverAggregate struct {
	Op
	Input     Node
	Partition []expr.Expr
	TimeCol   int
	Rows      bool
	Preceding int64
	Aggs      []*AggCall
	Late      *LateRows
	InCols    []Column
	// Sort marks ORDER BY a time attribute (Flink's TemporalSort): no
	// partition, no aggregates, ROWS 0 PRECEDING. SortKeys order the rows
	// of one time (NULL first ascending, last descending), then arrival.
	Sort     bool
	SortKeys []SortKey
	// ProcTime marks TimeCol as a processing-time attribute: each row is
	// emitted as it comes (nothing waits for a watermark, nothing is
	// late), with the aggregates of the rows before it; Rows, or RANGE
	// UNBOUNDED PRECEDING only.
	ProcTime bool
}

// Inputs implements Node.
func (n *OverAggregate) Inputs() []Node { return []Node{n.Input} }

// Union is UNION ALL.
type Union struct {
	Op
	Ins []Node
}

// Inputs implements Node.
func (n *Union) Inputs() []Node { return n.Ins }

// Sink writes its input into a table, or shows a SELECT's rows (Query;
// Name is then "query N", N counting the job's SELECTs from 1).
type Sink struct {
	Op
	Input Node
	Query bool
	// Spec is what the connector's factory gets, as Source's; for a
	// SELECT, only its Schema is set. Spec.Schema is what the sink
	// writes, in order.
	Spec   connector.Spec
	Format string
	// Hint shows the options of the table hint of the INSERT (secrets
	// masked), for EXPLAIN; Spec has them already.
	Hint string
	// Casts convert the input's columns to the sink's types: Casts[i] is
	// over the input's columns; nil (or a nil entry) passes column i as it
	// is.
	Casts []expr.Expr
	// Accepts is the kinds of change the sink takes; Mode what reaches it.
	Accepts, Mode changelogmode.Mode
	// DropBefore drops -U (an upsert sink whose +U overwrites the row);
	// BeforeAsDelete applies a -U as the deletion of its key.
	DropBefore, BeforeAsDelete bool
	// TableSpan, TableSource and Invalid are as Source's.
	TableSpan   diag.Span
	TableSource *diag.Source
	Invalid     bool
}

// Inputs implements Node.
func (n *Sink) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Source) Inputs() []Node { return nil }

// Values emits Rows, each expression over no columns evaluated once when
// the job starts, then ends: VALUES as a table (bounded, insert-only).
type Values struct {
	Op
	Rows [][]expr.Expr
}

// Inputs implements Node.
func (n *Values) Inputs() []Node { return nil }

// Inputs implements Node.
func (n *Calc) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Window) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Correlate) Inputs() []Node { return []Node{n.Input} }

// Walk calls f on n and then on each of its inputs, depth first.
func Walk(n Node, f func(Node)) {
	f(n)
	for _, in := range n.Inputs() {
		Walk(in, f)
	}
}
