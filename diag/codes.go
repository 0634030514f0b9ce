package diag

import "sort"

// Code is a stable identifier for a kind of diagnostic. Codes never change
// meaning once released; each one is documented in docs/errors.md (a test
// keeps the two in step).
type Code string

// CodeInfo describes a code for documentation and tooling.
type CodeInfo struct {
	Code  Code
	Title string
}

var registry = map[Code]string{}

func def(c Code, title string) Code {
	if _, dup := registry[c]; dup {
		panic("diag: duplicate code " + string(c))
	}
	registry[c] = title
	return c
}

// Codes returns every registered code in order.
func Codes() []CodeInfo {
	out := make([]CodeInfo, 0, len(registry))
	for c, t := range registry {
		out = append(out, CodeInfo{c, t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// Syntax: the text is not a statement streamsql understands.
var (
	SyntaxError          = def("SQL100", "syntax error")
	UnterminatedLiteral  = def("SQL101", "unterminated string, identifier or comment")
	UnbalancedParen      = def("SQL102", "unbalanced parentheses")
	UnexpectedEnd        = def("SQL103", "statement ends too early")
	UnsupportedStatement = def("SQL104", "unsupported statement")
	UnsupportedSyntax    = def("SQL105", "unsupported query syntax")
	InvalidType          = def("SQL106", "invalid data type")
	InvalidInterval      = def("SQL107", "invalid interval literal")
	InvalidLiteral       = def("SQL108", "invalid literal")
)

// Catalog: tables, views, connector options.
var (
	DuplicateTable        = def("SQL200", "duplicate table or view")
	DuplicateColumn       = def("SQL201", "duplicate column")
	UnknownConnector      = def("SQL202", "unknown connector")
	MissingOption         = def("SQL203", "missing required option")
	UnknownOption         = def("SQL204", "unknown option")
	InvalidOptionValue    = def("SQL205", "invalid option value")
	PrimaryKeyColumn      = def("SQL206", "primary key names an unknown column")
	WatermarkColumn       = def("SQL207", "watermark names an unknown column")
	WatermarkType         = def("SQL208", "watermark column is not a timestamp")
	WatermarkExpr         = def("SQL209", "watermark expression has an unsupported form")
	UnknownObject         = def("SQL210", "unknown table or view")
	PrimaryKeyEnforced    = def("SQL211", "primary key must be NOT ENFORCED")
	DuplicateConstraint   = def("SQL212", "more than one watermark or primary key")
	UnknownFormat         = def("SQL213", "unknown format")
	PrimaryKeyRequired    = def("SQL214", "connector needs a primary key")
	DuplicateOption       = def("SQL215", "option given twice")
	ComputedColumnInvalid = def("SQL216", "invalid computed or metadata column")
	WrongObjectKind       = def("SQL217", "table used as view or view used as table")
	PrimaryKeyFormat      = def("SQL218", "primary key on an insert-only Kafka table")
	UnresolvedReference   = def("SQL219", "environment variable or secret file that cannot be read")
	InsecureOption        = def("SQL220", "connection setting that weakens security")
	FakerExpression       = def("SQL221", "faker expression that is not supported")
	DeprecatedOption      = def("SQL222", "Flink's legacy (pre-1.11) option")
)

// Binding and types.
var (
	UnknownTable       = def("SQL300", "unknown table in query")
	UnknownColumn      = def("SQL301", "unknown column")
	AmbiguousColumn    = def("SQL302", "ambiguous column")
	TypeMismatch       = def("SQL303", "type mismatch")
	UnknownFunction    = def("SQL304", "unknown function")
	WrongArguments     = def("SQL305", "wrong function arguments")
	AggregateMisuse    = def("SQL306", "aggregate misuse")
	DuplicateAlias     = def("SQL307", "duplicate table alias")
	InsertMismatch     = def("SQL308", "INSERT does not match the sink's columns")
	TimeAttribute      = def("SQL309", "not a time attribute")
	UnknownSetting     = def("SQL310", "unknown configuration key")
	InvalidSetting     = def("SQL311", "invalid configuration value")
	NotAQuery          = def("SQL312", "statement cannot be used here")
	UnknownHint        = def("SQL313", "unknown or malformed hint")
	SetOpMismatch      = def("SQL314", "UNION inputs do not match")
	UnsupportedFeature = def("SQL315", "feature not supported yet")
)

// Planning: changelog modes, sinks, state.
var (
	SinkMode           = def("SQL400", "sink cannot take the changes the query emits")
	UpsertKeyMismatch  = def("SQL401", "upsert sink key is not a key of the query")
	IntervalJoinInput  = def("SQL402", "interval join over an updating input")
	OuterJoinWatermark = def("SQL403", "outer join bounded in time without watermarks")
	NotVersioned       = def("SQL404", "temporal join against a table that is not versioned")
	WindowInput        = def("SQL405", "window aggregate over an updating input")
	TemporalProbe      = def("SQL406", "temporal join with an updating probe side")
	SinkNotWritable    = def("SQL407", "connector cannot be read or written this way")
	LookupJoin         = def("SQL408", "lookup join that cannot be run")
	FileConflict       = def("SQL410", "job writes a file it reads, or one file twice")
	OverWindow         = def("SQL411", "OVER window that a stream cannot run")
)

// Planning warnings: plans that will hurt in production.
var (
	UnboundedState     = def("SQL450", "state grows without bound")
	IntervalTooShort   = def("SQL451", "interval bound shorter than the watermark delay")
	PreferTemporalJoin = def("SQL452", "join against a versioned table: a temporal join fits")
	StartupMismatch    = def("SQL453", "join inputs start from different points in time")
	EmptyInterval      = def("SQL454", "interval join bounds can never hold")
)

// Contracts across jobs.
var (
	ChangelogNotInterpreted = def("SQL500", "reader does not interpret the writer's changelog")
	EncodingMismatch        = def("SQL501", "reader and writer encode the topic or file differently")
	ContractMissingColumn   = def("SQL502", "reader declares a column the writer does not write")
	ContractColumnType      = def("SQL503", "reader and writer disagree on a column's type")
	ContractKeyMismatch     = def("SQL504", "upsert reader keyed differently from the writer")
)
