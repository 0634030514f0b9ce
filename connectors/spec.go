package connectors

import (
	"slices"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/types"
)

// Changelog modes, by name. A source emits, and a sink accepts, one of them.
// They stand for changelogmode.Mode values until that package is used here.
const (
	// InsertOnly is [+I]: rows are only ever added.
	InsertOnly = "insert-only"
	// Upsert is [+I,+U,-D] keyed by the primary key: an update carries only
	// the new row, a delete only the key.
	Upsert = "upsert"
	// AllKinds is [+I,-U,+U,-D]: a full changelog with retractions.
	AllKinds = "all"
)

// OptionSpec describes one option of a connector or a format.
type OptionSpec struct {
	// Key is the option's name as written in WITH, for example
	// 'scan.startup.mode'. With Prefix set it ends in "." and stands for
	// every key under it. A key may hold one '#' segment that stands for a
	// column name, as in Flink's 'fields.#.kind' (datagen).
	Key string
	// Required options must be given.
	Required bool
	// Default is the value used when the option is not given ("" for none).
	Default string
	// Doc says what the option does, for SHOW and the docs.
	Doc string
	// Example is a value shown in the hint when a required option is
	// missing ("" shows '...').
	Example string
	// Choices, when set, are the only values allowed. They are matched
	// ignoring case, as Flink does for enumerations, and stored in the
	// spelling given here.
	Choices []string
	// Validate checks a value; nil accepts any. Its error says what is
	// allowed, and is shown after "invalid value 'v' for option 'k': ".
	Validate func(v string) error
	// Prefix marks a pass-through family such as 'properties.': any key
	// that starts with Key is accepted and handed to the connector as is.
	Prefix bool
}

// matches reports whether the spec covers key.
func (o *OptionSpec) matches(key string) bool {
	switch {
	case o.Prefix:
		return len(key) > len(o.Key) && strings.HasPrefix(key, o.Key)
	case strings.Contains(o.Key, "#"):
		pre, suf, _ := strings.Cut(o.Key, "#")
		return len(key) > len(pre)+len(suf) && strings.HasPrefix(key, pre) && strings.HasSuffix(key, suf)
	default:
		return key == o.Key
	}
}

// display is how the option shows in a list of valid options.
func (o *OptionSpec) display() string {
	if o.Prefix {
		return o.Key + "*"
	}
	return o.Key
}

// ConnectorSpec declares a connector: which options it takes, whether it
// reads (Source), writes (Sink) or both, and which changelog kinds it emits
// and accepts. The runtime readers and writers attach to a spec by Name.
type ConnectorSpec struct {
	// Name is the value of 'connector', e.g. "kafka".
	Name string
	// Doc says what the connector is for.
	Doc string
	// Options are the options the connector takes, 'connector' and format
	// options excluded.
	Options []OptionSpec
	// FormatOptions are the options whose value names a format: "format",
	// or "key.format" and "value.format" ('format' is Flink's short form of
	// 'value.format'). Options of a format named by "format" are written
	// "<format>.<option>"; by "key.format", "key.<format>.<option>"; by
	// "value.format", "value.<format>.<option>". Empty for connectors that
	// take no format (datagen, print, blackhole, nexmark).
	FormatOptions []string
	// NeedsPrimaryKey is set when the table must declare PRIMARY KEY (...)
	// NOT ENFORCED (upsert-kafka). The catalog checks it.
	NeedsPrimaryKey bool
	// KeyNeedsChangelogFormat is set when a PRIMARY KEY is refused with an
	// insert-only format (kafka: the records of a key cannot be told apart
	// as updates; Flink refuses it too).
	KeyNeedsChangelogFormat bool
	// Source and Sink say whether the connector can be read and written.
	Source, Sink bool
	// Lookup says whether the connector can be looked up by key: the dim
	// side of a lookup join (FOR SYSTEM_TIME AS OF a PROCTIME() column).
	Lookup bool
	// SourceEmits is the changelog mode the connector emits as a source with
	// an insert-only format (or with none); a changelog format makes it
	// AllKinds. See SourceModeName.
	SourceEmits string
	// SinkAccepts is the changelog mode the connector accepts as a sink with
	// an insert-only format (or with none); a changelog format makes it
	// AllKinds. See SinkModeName.
	SinkAccepts string
	// KeyedSinkAccepts, when set, is what the sink accepts instead of
	// SinkAccepts when its table declares a PRIMARY KEY (jdbc: a keyed
	// table takes upserts and deletes by key, a table without one only
	// inserts). See Config.SinkMode.
	KeyedSinkAccepts string
	// Bounded reports whether a source with these options ends. Nil means
	// never.
	Bounded func(c *Config) bool
	// Check applies rules across options (one option requiring another,
	// two that exclude each other) after every option was checked on its
	// own. It reports with l and may be nil.
	Check func(c *Config, l *diag.List)
	// CheckSource and CheckSink apply the rules that hold only when the
	// table is read, or only when it is written: a Kafka source starting
	// from 'group-offsets' needs a consumer group, a Kafka sink needs a
	// single 'topic'. The planner runs them through Config.ValidateSource
	// and Config.ValidateSink once it knows how a table is used. Either may
	// be nil.
	CheckSource, CheckSink func(c *Config, l *diag.List)
	// CheckColumns applies the rules that need the table's columns (faker:
	// every 'fields.<col>.' option names a column, and every physical
	// column has an expression). The catalog runs it after Validate, with
	// the columns in declaration order. It may be nil.
	CheckColumns func(c *Config, cols []TableColumn, l *diag.List)
}

// TableColumn is a column of the table whose options are checked, as
// CheckColumns sees it.
type TableColumn struct {
	Name string
	Type types.T
	// Physical is false for computed and metadata columns; Computed is
	// set for computed ones.
	Physical, Computed bool
}

// option returns the spec that covers key, or nil. Exact keys win over
// patterns, patterns over prefixes.
func (s *ConnectorSpec) option(key string) *OptionSpec {
	return findOption(s.Options, key)
}

func findOption(opts []OptionSpec, key string) *OptionSpec {
	var pattern, prefix *OptionSpec
	for i := range opts {
		o := &opts[i]
		switch {
		case !o.matches(key):
		case o.Prefix:
			prefix = cmpOr(prefix, o)
		case strings.Contains(o.Key, "#"):
			pattern = cmpOr(pattern, o)
		default:
			return o
		}
	}
	return cmpOr(pattern, prefix)
}

func cmpOr(a, b *OptionSpec) *OptionSpec {
	if a != nil {
		return a
	}
	return b
}

// FormatSpec declares a format: how rows are encoded in a file line or a
// Kafka record, and its options.
type FormatSpec struct {
	// Name is the value of 'format', e.g. "json".
	Name string
	// Doc says what the format is for.
	Doc string
	// Options are the format's options, with the format's name as prefix:
	// 'json.ignore-parse-errors'.
	Options []OptionSpec
	// Changelog is set for formats that carry the change kind of each row
	// (debezium-json): a source using one emits AllKinds, a sink using one
	// accepts AllKinds. Other formats are insert-only.
	Changelog bool
}

var (
	connectorRegistry = map[string]*ConnectorSpec{}
	formatRegistry    = map[string]*FormatSpec{}
)

// Register adds a connector spec. It panics if the name is taken: names are
// global, and a second registration is a programming error.
func Register(s *ConnectorSpec) {
	if _, dup := connectorRegistry[s.Name]; dup {
		panic("connectors: connector " + s.Name + " registered twice")
	}
	connectorRegistry[s.Name] = s
}

// RegisterFormat adds a format spec. It panics if the name is taken.
func RegisterFormat(f *FormatSpec) {
	if _, dup := formatRegistry[f.Name]; dup {
		panic("connectors: format " + f.Name + " registered twice")
	}
	formatRegistry[f.Name] = f
}

// Lookup returns the connector named name. Names are case-sensitive, as in
// Flink.
func Lookup(name string) (*ConnectorSpec, bool) {
	s, ok := connectorRegistry[name]
	return s, ok
}

// LookupFormat returns the format named name. Names are case-sensitive.
func LookupFormat(name string) (*FormatSpec, bool) {
	f, ok := formatRegistry[name]
	return f, ok
}

// Names returns the names of all connectors, sorted.
func Names() []string { return sortedKeys(connectorRegistry) }

// LookupNames returns the names of the connectors that can be looked up
// (the dim side of a lookup join), sorted.
func LookupNames() []string {
	var out []string
	for _, n := range Names() {
		if connectorRegistry[n].Lookup {
			out = append(out, n)
		}
	}
	return out
}

// FormatNames returns the names of all formats, sorted.
func FormatNames() []string { return sortedKeys(formatRegistry) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SourceModeName returns the changelog mode a source of the given connector
// emits when it reads the given format ("" for connectors without one):
// InsertOnly, Upsert or AllKinds. It returns "" when the connector is
// unknown or cannot be read.
func SourceModeName(connector, format string) string {
	s, ok := Lookup(connector)
	if !ok || !s.Source {
		return ""
	}
	return withFormat(s, s.SourceEmits, format)
}

// SinkModeName returns the changelog mode a sink of the given connector
// accepts when it writes the given format: InsertOnly, Upsert or AllKinds.
// It returns "" when the connector is unknown or cannot be written.
func SinkModeName(connector, format string) string {
	s, ok := Lookup(connector)
	if !ok || !s.Sink {
		return ""
	}
	return withFormat(s, s.SinkAccepts, format)
}

// withFormat widens an insert-only mode to AllKinds when the connector
// passes a changelog format's row kinds through.
func withFormat(s *ConnectorSpec, mode, format string) string {
	f, ok := LookupFormat(format)
	if ok && f.Changelog && mode == InsertOnly && len(s.FormatOptions) > 0 {
		return AllKinds
	}
	return mode
}

// optionKeys lists the keys of opts as they show in a hint.
func optionKeys(opts []OptionSpec) []string {
	out := make([]string, 0, len(opts))
	for i := range opts {
		out = append(out, opts[i].display())
	}
	return out
}

// quoteList renders a list as 'a', 'b', 'c'.
func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	return strings.Join(q, ", ")
}

// hasString reports whether xs holds x.
func hasString(xs []string, x string) bool { return slices.Contains(xs, x) }
