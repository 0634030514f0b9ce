package ast

import (
	"github.com/streamsql/streamsql/diag"
)

// Node is any syntax tree node.
type Node interface {
	Span() diag.Span
}

// Loc is embedded in every node to hold its span.
type Loc struct{ S diag.Span }

// Span returns the node's source range.
func (l Loc) Span() diag.Span { return l.S }

// Ident is an identifier as written (backquotes removed), with its span.
type Ident struct {
	Loc
	Name string
	// Quoted is true when the identifier was written in backquotes.
	Quoted bool
}

// Stmt is a top-level statement.
type Stmt interface {
	Node
	stmtNode()
}

// ---- statements ----

// CreateTable is CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (...) WITH (...).
type CreateTable struct {
	Loc
	Name        *Ident
	Temporary   bool
	IfNotExists bool
	Columns     []*ColumnDef
	Watermarks  []*WatermarkDef
	PrimaryKeys []*PrimaryKeyDef // more than one is an error reported by the catalog
	Comment     *StringLit
	PartitionBy []*Ident
	Options     []*Option
	// WithSpan covers the WITH (...) clause, or is invalid without one.
	WithSpan diag.Span
	// Like is Flink's LIKE source_table [(options)] after WITH (...): the
	// table is derived from another one (merged by the catalog).
	Like *TableLike
}

// TableLike is LIKE source [(INCLUDING ALL, EXCLUDING OPTIONS, ...)].
type TableLike struct {
	Loc
	Source  *Ident
	Options []*LikeOption
}

// LikeOption is one merging option of LIKE: a strategy (INCLUDING,
// EXCLUDING or OVERWRITING) for a feature (ALL, CONSTRAINTS, GENERATED,
// METADATA, OPTIONS, PARTITIONS or WATERMARKS), both upper case.
type LikeOption struct {
	Loc
	Strategy string
	Feature  string
}

// ColumnKind says how a column gets its value.
type ColumnKind int

// Column kinds.
const (
	PhysicalColumn ColumnKind = iota // name TYPE
	ComputedColumn                   // name AS expr
	MetadataColumn                   // name TYPE METADATA [FROM 'key'] [VIRTUAL]
)

// ColumnDef is one column of a CREATE TABLE.
type ColumnDef struct {
	Loc
	Name    *Ident
	Kind    ColumnKind
	Type    *TypeName // nil for computed columns
	NotNull bool
	// Expr is the expression of a computed column.
	Expr Expr
	// MetadataKey is the FROM 'key' of a metadata column (nil: the column name).
	MetadataKey *StringLit
	Virtual     bool
	Comment     *StringLit
	// InlinePrimaryKey is set for `col TYPE PRIMARY KEY NOT ENFORCED`.
	InlinePrimaryKey *PrimaryKeyDef
}

// WatermarkDef is WATERMARK FOR col AS expr.
type WatermarkDef struct {
	Loc
	Column *Ident
	Expr   Expr
}

// PrimaryKeyDef is [CONSTRAINT name] PRIMARY KEY (cols) [NOT ENFORCED].
type PrimaryKeyDef struct {
	Loc
	Name        *Ident
	Columns     []*Ident
	NotEnforced bool
}

// Option is one 'key' = 'value' pair of a WITH clause or SET.
type Option struct {
	Loc
	Key   *StringLit
	Value *StringLit
}

// StringLit is a single-quoted literal as a value (quotes removed, ”
// unescaped), used where the grammar takes a literal and not an expression.
type StringLit struct {
	Loc
	Value string
}

// TypeName is a data type as written: a canonical name (STRING, VARCHAR,
// BIGINT, DECIMAL, TIMESTAMP, TIMESTAMP_LTZ, ...) and its parameters; for
// ARRAY, MAP and ROW its element types.
type TypeName struct {
	Loc
	Name   string
	Params []int
	// HasParams distinguishes TIMESTAMP from TIMESTAMP(6).
	HasParams bool
	NotNull   bool
	// Elems are the element types of ARRAY<T> (one), MAP<K, V> (two) and
	// ROW<f T, ...> (one per field, named by FieldNames).
	Elems      []*TypeName
	FieldNames []*Ident
}

// CreateView is CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)] AS query.
type CreateView struct {
	Loc
	Name        *Ident
	Temporary   bool
	IfNotExists bool
	Columns     []*Ident
	Query       Query
}

// Drop is DROP [TEMPORARY] TABLE|VIEW [IF EXISTS] name.
type Drop struct {
	Loc
	View     bool
	IfExists bool
	Name     *Ident
}

// Insert is INSERT INTO|OVERWRITE name [(cols)] query.
type Insert struct {
	Loc
	Table *Ident
	// Hints are the table hints after the name: /*+ OPTIONS('k' = 'v') */.
	Hints     []*Hint
	Overwrite bool
	Columns   []*Ident
	Query     Query
}

// QueryStmt is a query on its own (a SELECT that runs continuously).
type QueryStmt struct {
	Loc
	Query Query
}

// Set is SET 'key' = 'value', or SET alone (Key nil) to list settings.
type Set struct {
	Loc
	Key   *StringLit
	Value *StringLit
}

// Reset is RESET 'key', or RESET alone (Key nil) to reset all.
type Reset struct {
	Loc
	Key *StringLit
}

// Show is SHOW TABLES | VIEWS | JOBS | FUNCTIONS.
type Show struct {
	Loc
	What string
}

// Describe is DESCRIBE | DESC name.
type Describe struct {
	Loc
	Name *Ident
}

// Explain is EXPLAIN [detail, ...] stmt, where stmt is a query, INSERT or
// statement set. Details are upper-cased words such as CHANGELOG_MODE.
type Explain struct {
	Loc
	Details []string
	Stmt    Stmt
}

// StatementSet is EXECUTE STATEMENT SET BEGIN insert; ... END, or the older
// BEGIN STATEMENT SET; ... END.
type StatementSet struct {
	Loc
	Inserts []*Insert
}

// StopJob is STOP JOB 'id' (shell).
type StopJob struct {
	Loc
	ID *StringLit
}

func (*CreateTable) stmtNode()  {}
func (*CreateView) stmtNode()   {}
func (*Drop) stmtNode()         {}
func (*Insert) stmtNode()       {}
func (*QueryStmt) stmtNode()    {}
func (*Set) stmtNode()          {}
func (*Reset) stmtNode()        {}
func (*Show) stmtNode()         {}
func (*Describe) stmtNode()     {}
func (*Explain) stmtNode()      {}
func (*StatementSet) stmtNode() {}
func (*StopJob) stmtNode()      {}

// ---- queries ----

// Query is a SELECT or a set operation.
type Query interface {
	Node
	queryNode()
}

// Select is one SELECT block.
type Select struct {
	Loc
	Distinct bool
	Hints    []*Hint
	Fields   []*SelectItem
	From     TableExpr // nil for SELECT without FROM
	Where    Expr
	GroupBy  []Expr
	// Grouping are the GROUPING SETS, ROLLUP and CUBE items of GROUP BY;
	// the grouping sets are their cross product, each with GroupBy's
	// expressions added.
	Grouping []*GroupingSets
	Having   Expr
	OrderBy  []*OrderItem
	Limit    Expr
	// Windows are the named windows of a WINDOW w AS (...) clause.
	Windows []*NamedWindow
}

// NamedWindow is one w AS (spec) of a WINDOW clause.
type NamedWindow struct {
	Loc
	Name *Ident
	Spec *WindowSpec
}

// WindowSpec is the window of an OVER clause: OVER w, or OVER ([w]
// [PARTITION BY ...] [ORDER BY ...] [frame]).
type WindowSpec struct {
	Loc
	// Ref names a window of the WINDOW clause (OVER w, or OVER (w ...)).
	Ref         *Ident
	PartitionBy []Expr
	OrderBy     []*OrderItem
	// Frame is nil when none is written.
	Frame *Frame
}

// Frame is ROWS|RANGE BETWEEN start AND end (or ROWS|RANGE start, whose
// end is CURRENT ROW).
type Frame struct {
	Loc
	// Rows is set for ROWS, unset for RANGE.
	Rows       bool
	Start, End *FrameBound
}

// BoundKind is the kind of a frame bound.
type BoundKind int

// Frame bound kinds.
const (
	UnboundedPreceding BoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one end of a frame: UNBOUNDED PRECEDING, n PRECEDING,
// CURRENT ROW, n FOLLOWING or UNBOUNDED FOLLOWING.
type FrameBound struct {
	Loc
	Kind BoundKind
	// Offset is n of n PRECEDING|FOLLOWING: a number (ROWS) or an
	// interval (RANGE).
	Offset Expr
}

// SetOp is left UNION [ALL] right (also INTERSECT, EXCEPT).
type SetOp struct {
	Loc
	Op          string // UNION, INTERSECT, EXCEPT
	All         bool
	Left, Right Query
}

// SelectItem is expr [AS alias], or * / t.*.
type SelectItem struct {
	Loc
	Expr  Expr
	Alias *Ident
	// Star is set for * and t.* (then Expr is nil and Qualifier may be set).
	Star      bool
	Qualifier *Ident
}

// OrderItem is expr [ASC|DESC].
type OrderItem struct {
	Loc
	Expr Expr
	Desc bool
}

// Hint is /*+ NAME(args) */, for example STATE_TTL('o' = '1d').
type Hint struct {
	Loc
	Name    *Ident
	Options []*Option // key = value arguments
	Args    []*Ident  // plain identifiers
}

// GroupingSets is GROUPING SETS ((a, b), (a), ()), ROLLUP (a, b) or
// CUBE (a, b) as an item of GROUP BY (Select.Grouping). Kind is "GROUPING SETS", "ROLLUP" or
// "CUBE"; Sets are GROUPING SETS' sets, Exprs ROLLUP's and CUBE's
// expressions.
type GroupingSets struct {
	Loc
	Kind  string
	Sets  [][]Expr
	Exprs []Expr
}

// With is WITH name [(col, ...)] AS (query), ... body: common table
// expressions. Each is visible to the ones after it and to the body, and is
// bound where it is named, as a view is (Flink inlines them too).
type With struct {
	Loc
	CTEs []*CTE
	Body Query
}

// CTE is one name [(col, ...)] AS (query) of a WITH.
type CTE struct {
	Loc
	Name    *Ident
	Columns []*Ident
	Query   Query
}

func (*Select) queryNode() {}
func (*SetOp) queryNode()  {}
func (*With) queryNode()   {}

// TableExpr is something in FROM.
type TableExpr interface {
	Node
	tableNode()
}

// TableRef names a table or view: name [FOR SYSTEM_TIME AS OF expr] [[AS] alias].
type TableRef struct {
	Loc
	Name  *Ident
	Alias *Ident
	// AsOf is the FOR SYSTEM_TIME AS OF expression of a temporal join.
	AsOf Expr
	// Hints are the table hints after the name: /*+ OPTIONS('k' = 'v') */.
	Hints []*Hint
}

// JoinKind is the kind of a join.
type JoinKind int

// Join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	CrossJoin
	// SemiJoin and AntiJoin are never written: the planner makes them of
	// [NOT] IN and [NOT] EXISTS subqueries. Their output is the left
	// input's rows that have a match (semi) or none (anti).
	SemiJoin
	AntiJoin
)

func (k JoinKind) String() string {
	switch k {
	case InnerJoin:
		return "INNER"
	case LeftJoin:
		return "LEFT"
	case RightJoin:
		return "RIGHT"
	case FullJoin:
		return "FULL"
	case CrossJoin:
		return "CROSS"
	case SemiJoin:
		return "SEMI"
	case AntiJoin:
		return "ANTI"
	}
	return "?"
}

// Join is left [kind] JOIN right ON cond | USING (cols), or a comma join.
type Join struct {
	Loc
	Kind        JoinKind
	Left, Right TableExpr
	On          Expr
	Using       []*Ident
	// Keyword covers the join keywords (for example LEFT OUTER JOIN).
	Keyword diag.Span
}

// Subquery is [LATERAL] (query) [AS] alias. A LATERAL subquery may name
// the columns of the FROM items before it.
type Subquery struct {
	Loc
	Query   Query
	Alias   *Ident
	Lateral bool
}

// WindowTVF is TABLE(TUMBLE|HOP|CUMULATE|SESSION(TABLE t [PARTITION BY
// cols], DESCRIPTOR(col), size...)).
type WindowTVF struct {
	Loc
	Func  string // TUMBLE, HOP, CUMULATE, SESSION
	Table *Ident
	// PartitionBy are SESSION's PARTITION BY columns.
	PartitionBy []*Ident
	TimeCol     *Ident
	// Size is the window size (SESSION's gap); Slide is HOP's slide, Step
	// is CUMULATE's step.
	Size, Slide, Step *IntervalLit
	Offset            *IntervalLit
	Alias             *Ident
}

// Values is VALUES (row), (row) … as a table: in FROM as (VALUES …) [AS]
// alias [(columns)], or as the whole query (INSERT INTO t VALUES …, where
// a Select of * over it stands for it).
type Values struct {
	Loc
	Rows    [][]Expr
	Alias   *Ident
	Columns []*Ident
}

// Unnest is UNNEST(expr) [WITH ORDINALITY] [AS] alias [(columns)] in
// FROM, after another FROM item whose columns expr may name
// (CROSS JOIN UNNEST(t.tags) AS u (tag), LEFT JOIN UNNEST(…) … ON TRUE,
// or a comma): one row per element of an ARRAY (one column per field of
// a ROW element), per entry of a MAP (key, value); WITH ORDINALITY adds
// a last column numbering them from 1.
type Unnest struct {
	Loc
	Exprs      []Expr
	Ordinality bool
	Alias      *Ident
	Columns    []*Ident
}

func (*Unnest) tableNode()    {}
func (*Values) tableNode()    {}
func (*TableRef) tableNode()  {}
func (*Join) tableNode()      {}
func (*Subquery) tableNode()  {}
func (*WindowTVF) tableNode() {}

// ---- expressions ----

// Expr is a scalar expression.
type Expr interface {
	Node
	exprNode()
}

// ColumnRef is [qualifier.]name[.field...]. Which name is a table and
// which a ROW field is decided by the binder: r.f is a column r's field f
// when no table is called r; t.r.f is table t's column r's field f.
type ColumnRef struct {
	Loc
	Qualifier *Ident
	Name      *Ident
	// Path are the names after Name (t.r.f has one: f).
	Path []*Ident
}

// Index is x[i]: an ARRAY's element at i (from 1), or a MAP's value for
// the key i.
type Index struct {
	Loc
	X, Index Expr
}

// Constructor is ARRAY[a, ...], MAP[k1, v1, ...] or ROW(a, ...).
type Constructor struct {
	Loc
	Kind string // ARRAY, MAP or ROW
	Args []Expr
}

// LitKind is the kind of a literal.
type LitKind int

// Literal kinds.
const (
	NullLit LitKind = iota
	BoolLit
	IntLit
	DecimalLit
	FloatLit
	StringLitKind
	// SymbolLit is a keyword argument such as HOUR in EXTRACT(HOUR FROM ts).
	SymbolLit
	// TimestampLit, DateLit and TimeLit are typed literals: TIMESTAMP '2026-01-01 00:00:00'.
	TimestampLit
	DateLit
	TimeLit
)

// Literal is a constant as written: Raw holds its text (for strings, the value
// without quotes).
type Literal struct {
	Loc
	Kind LitKind
	Raw  string
}

// IntervalLit is INTERVAL 'n' UNIT [TO UNIT]; Millis is its length.
type IntervalLit struct {
	Loc
	Value  string // the quoted text, e.g. "5" or "1:30"
	Unit   string // canonical singular unit: SECOND, MINUTE, ... or DAY TO SECOND
	Millis int64
	// YearMonth is true for YEAR and MONTH intervals (Millis is then months).
	YearMonth bool
}

// Unary is op x with op one of -, +, NOT.
type Unary struct {
	Loc
	Op string
	X  Expr
}

// Binary is l op r with op one of + - * / % = <> < <= > >= AND OR ||.
type Binary struct {
	Loc
	Op   string
	L, R Expr
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	Loc
	X, Lo, Hi Expr
	Not       bool
}

// IsNull is x IS [NOT] NULL.
type IsNull struct {
	Loc
	X   Expr
	Not bool
}

// IsBool is x IS [NOT] TRUE|FALSE.
type IsBool struct {
	Loc
	X     Expr
	Not   bool
	Value bool
}

// In is x [NOT] IN (list).
//
// x [NOT] IN (SELECT ...) is an In whose List is the one *SubqueryExpr.
type In struct {
	Loc
	X    Expr
	List []Expr
	Not  bool
}

// Like is x [NOT] LIKE pattern, or x [NOT] SIMILAR TO pattern.
type Like struct {
	Loc
	X, Pattern Expr
	Not        bool
	Similar    bool
	// Escape is the ESCAPE character's string literal, nil without one.
	Escape *Literal
}

// FuncCall is name([DISTINCT] args) or name(*).
type FuncCall struct {
	Loc
	Name     *Ident // upper-cased in Name.Name
	Args     []Expr
	Star     bool
	Distinct bool
	// Filter is an aggregate's FILTER (WHERE cond): only the rows where
	// cond is TRUE are aggregated.
	Filter Expr
	// Over is set for a window function call: name(...) OVER (...).
	Over *WindowSpec
	// OnNull is JSON_OBJECTAGG's and JSON_ARRAYAGG's {NULL | ABSENT} ON
	// NULL clause: "NULL", "ABSENT", or "" when omitted.
	OnNull string
}

// JSONCall is one of the SQL/JSON query functions with its clauses:
//
//	JSON_VALUE(json, path [RETURNING type] [{NULL | ERROR | DEFAULT e} ON EMPTY]
//	           [{NULL | ERROR | DEFAULT e} ON ERROR])
//	JSON_QUERY(json, path [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER]
//	           [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [… ON ERROR])
//	JSON_EXISTS(json, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])
//
// An omitted clause is "" (its default).
type JSONCall struct {
	Loc
	Func       string
	JSON, Path Expr
	Returning  *TypeName
	Wrapper    string // WITHOUT, WITH CONDITIONAL, WITH UNCONDITIONAL
	// OnEmpty and OnError are the behaviours: NULL, ERROR, DEFAULT, EMPTY
	// ARRAY, EMPTY OBJECT, TRUE, FALSE, UNKNOWN; EmptyDefault and
	// ErrorDefault are DEFAULT's expressions.
	OnEmpty, OnError           string
	EmptyDefault, ErrorDefault Expr
}

// JSONConstruct is JSON_OBJECT([[KEY] k VALUE v, …] [{NULL | ABSENT} ON
// NULL]) or JSON_ARRAY([v, …] [{NULL | ABSENT} ON NULL]): Keys are
// JSON_OBJECT's (one per value), OnNull the clause ("" when omitted).
type JSONConstruct struct {
	Loc
	Func   string
	Keys   []Expr
	Values []Expr
	OnNull string
}

// Cast is CAST(x AS type) or TRY_CAST(x AS type).
type Cast struct {
	Loc
	X    Expr
	Type *TypeName
	Try  bool
}

// Case is CASE [operand] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	Loc
	Operand Expr
	Whens   []*When
	Else    Expr
}

// When is one WHEN cond THEN result arm.
type When struct {
	Loc
	Cond, Result Expr
}

// Paren is (x); kept so that Format prints what the user grouped.
type Paren struct {
	Loc
	X Expr
}

// SubqueryExpr is a scalar or IN/EXISTS subquery (bound later, if at all).
type SubqueryExpr struct {
	Loc
	Query  Query
	Exists bool
}

func (*ColumnRef) exprNode()     {}
func (*Literal) exprNode()       {}
func (*IntervalLit) exprNode()   {}
func (*Unary) exprNode()         {}
func (*Binary) exprNode()        {}
func (*Between) exprNode()       {}
func (*IsNull) exprNode()        {}
func (*IsBool) exprNode()        {}
func (*In) exprNode()            {}
func (*Like) exprNode()          {}
func (*FuncCall) exprNode()      {}
func (*JSONCall) exprNode()      {}
func (*JSONConstruct) exprNode() {}
func (*Cast) exprNode()          {}
func (*Case) exprNode()          {}
func (*Paren) exprNode()         {}
func (*SubqueryExpr) exprNode()  {}
func (*Index) exprNode()         {}
func (*Constructor) exprNode()   {}
