package planner

import (
	"maps"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
)

// Session applies statements in order: DDL changes the catalog, SET and
// RESET change settings, and queries and INSERTs are bound into logical
// plans against what was declared before them.
type Session struct {
	Catalog  *catalog.Catalog
	Settings map[string]string
	// Plans are the bound INSERTs and queries, in order.
	Plans []*Plan
}

// Plan is one planned statement that produces rows.
type Plan struct {
	Stmt ast.Stmt
	// Root is a *logical.Sink for an INSERT, or the query's top node,
	// after the rewrite rules.
	Root logical.Node
	// Props are the derived properties of every node.
	Props map[logical.Node]*Props
	// Fired lists the rules that rewrote the plan, and why.
	Fired []Firing
	// Explain is set when the statement was an EXPLAIN.
	Explain *ast.Explain
	// Settings are the session's settings when the statement was planned:
	// what Lower resolves the runtime's settings from.
	Settings map[string]string
}

// plan optimises a bound plan and derives its properties, reporting what
// cannot run and what will hurt.
func (s *Session) plan(st ast.Stmt, root logical.Node, l *diag.List) {
	if root == nil {
		return
	}
	if readsInvalidTable(root) {
		// A table whose definition had errors was bound so that the query's
		// own mistakes are still found (unknown columns, types), but what
		// the rules and the properties would say follows from the broken
		// definition (a misspelt watermark column leaves no watermark, so
		// a bounded join "has no time attributes"): an error already
		// reported, not a new one. Nothing of this plan can run either.
		return
	}
	errs := l.Errors()
	p := &Plan{Stmt: st, Settings: maps.Clone(s.Settings)}
	p.Root, p.Fired = optimize(root, l)
	if l.Errors() > errs {
		return
	}
	p.Root, p.Props = derive(p.Root, s.Settings, l)
	checkRunnable(p.Root, l)
	s.Plans = append(s.Plans, p)
}

// readsInvalidTable reports whether a plan scans a table whose definition
// had errors.
func readsInvalidTable(n logical.Node) bool {
	if sc, ok := n.(*logical.Scan); ok && sc.Table.Invalid {
		return true
	}
	for _, c := range logical.Children(n) {
		if readsInvalidTable(c) {
			return true
		}
	}
	return false
}

// NewSession returns a session with an empty catalog and default settings.
func NewSession() *Session {
	return &Session{Catalog: catalog.New(), Settings: map[string]string{}}
}

// settingSpec describes a configuration key SET accepts.
type settingSpec struct {
	validate func(string) string // returns a problem, or ""
	doc      string
}

func durationSetting(v string) string {
	if _, err := connectors.ParseDuration(v); err != nil {
		return "expected a duration such as '24h', '30 min' or '0' (no expiry)"
	}
	return ""
}

func oneOf(vals ...string) func(string) string {
	return func(v string) string {
		for _, x := range vals {
			if strings.EqualFold(v, x) {
				return ""
			}
		}
		return "expected one of " + strings.Join(vals, ", ")
	}
}

func positiveInt(v string) string {
	if n, err := strconv.Atoi(v); err != nil || n < 1 {
		return "expected a whole number of at least 1"
	}
	return ""
}

func anyValue(string) string { return "" }

func portSetting(v string) string {
	if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 65535 {
		return "expected a port number from 0 to 65535"
	}
	return ""
}

// Settings streamsql knows. Unknown keys are accepted with a warning, since
// Flink jobs carry keys for Flink's own runtime.
var settings = map[string]settingSpec{
	"table.exec.state.ttl":                    {durationSetting, "how long idle state of regular joins and aggregates is kept (0: forever)"},
	"parallelism":                             {positiveInt, "partitions for keyed operators (default: number of cores)"},
	"parallelism.default":                     {positiveInt, "Flink's name for parallelism"},
	"table.exec.resource.default-parallelism": {positiveInt, "Flink's name for parallelism"},
	"pipeline.name":                           {anyValue, "the job's name"},
	"execution.runtime-mode":                  {oneOf("streaming", "batch"), "streamsql always runs streaming"},
	"sql-client.execution.result-mode":        {oneOf("table", "changelog", "tableau"), "how the shell shows a SELECT"},
	"table.exec.source.idle-timeout":          {durationSetting, "default scan.watermark.idle-timeout for sources"},
	"table.exec.sink.upsert-materialize":      {oneOf("auto", "force", "none"), "an upsert materializer in front of a keyed sink whose key is not a key of the query: auto (when needed, the default), force, none (refuse instead)"},
	"table.exec.source.cdc-events-duplicate":  {oneOf("true", "false"), "a changelog source with a primary key may repeat events: normalize it by key (default false)"},
	"table.exec.source.future-time-warning":   {durationSetting, "warn when a row's event time is further ahead of the wall clock (default 1 d; 0: never)"},
	"table.exec.watermark.drift-warning":      {durationSetting, "warn when the watermarks of two inputs of one join drift further apart (default 1 h; 0: never)"},
	"table.local-time-zone":                   {anyValue, "time zone for TIMESTAMP_LTZ"},
	"table.exec.mini-batch.enabled":           {oneOf("true", "false"), "accepted for Flink compatibility"},
	"table.exec.mini-batch.allow-latency":     {durationSetting, "accepted for Flink compatibility"},
	"table.exec.mini-batch.size":              {positiveInt, "accepted for Flink compatibility"},
	"state.memory-budget":                     {anyValue, "memory for hot state before it spills to Badger, e.g. '128mb'"},
	"execution.checkpointing.interval":        {durationSetting, "time between checkpoints under --state-dir (default 10 s; 0: none)"},
	"execution.checkpointing.timeout":         {durationSetting, "a checkpoint taking longer fails (default 10 min)"},
	"state.checkpoints.num-retained":          {positiveInt, "complete checkpoints kept under --state-dir (default 1)"},
	"rest.address":                            {anyValue, "serve metrics and the web UI on this host (127.0.0.1 unless given; 0.0.0.0: every interface)"},
	"rest.port":                               {portSetting, "serve metrics and the web UI on this port (default 8081 when rest.address is set; 0: any free port)"},
}

// CheckSetting tells whether key is a setting streamsql knows and, if its
// value is invalid, why.
func CheckSetting(key, value string) (known bool, problem string) {
	spec, ok := settings[key]
	if !ok {
		return false, ""
	}
	return true, spec.validate(value)
}

// Apply runs one statement against the session.
func (s *Session) Apply(st ast.Stmt, l *diag.List) {
	b := &binder{cat: s.Catalog, l: l}
	switch st := st.(type) {
	case *ast.CreateTable:
		s.Catalog.CreateTable(st, l.Source, l)
	case *ast.CreateView:
		errs := l.Errors()
		n := b.query(st.Query)
		invalid := n == nil || l.Errors() > errs
		if !invalid && len(st.Columns) > 0 && len(st.Columns) != len(n.Columns()) {
			l.Errorf(diag.InsertMismatch, st.Name.S, "view %s names %s but its query produces %d", st.Name.Name, columnsWord(len(st.Columns)), len(n.Columns()))
			invalid = true
		}
		s.Catalog.CreateView(st, l.Source, invalid, l)
	case *ast.Drop:
		s.Catalog.Drop(st, l)
	case *ast.Set:
		if st.Key == nil {
			return
		}
		key, val := st.Key.Value, st.Value.Value
		spec, ok := settings[key]
		if !ok {
			var keys []string
			for k := range settings {
				keys = append(keys, k)
			}
			d := l.Warnf(diag.UnknownSetting, st.Key.S, "unknown configuration key '%s' is ignored", key)
			if sg := diag.Suggest(key, keys); sg != "" {
				d.WithHint("did you mean '%s'?", sg)
			}
		} else if msg := spec.validate(val); msg != "" {
			l.Errorf(diag.InvalidSetting, st.Value.S, "invalid value '%s' for '%s': %s", val, key, msg)
			return
		}
		s.Settings[key] = val
	case *ast.Reset:
		if st.Key == nil {
			s.Settings = map[string]string{}
		} else {
			delete(s.Settings, st.Key.Value)
		}
	case *ast.Insert:
		if sink := b.insert(st); sink != nil {
			s.plan(st, sink, l)
		}
	case *ast.QueryStmt:
		if n := b.query(st.Query); n != nil {
			s.plan(st, n, l)
		}
	case *ast.StatementSet:
		for _, ins := range st.Inserts {
			if sink := b.insert(ins); sink != nil {
				s.plan(ins, sink, l)
			}
		}
	case *ast.Explain:
		before := len(s.Plans)
		s.Apply(st.Stmt, l)
		for _, p := range s.Plans[before:] {
			p.Explain = st
		}
	case *ast.Describe:
		if _, ok := s.Catalog.Table(st.Name.Name); ok {
			return
		}
		if _, ok := s.Catalog.View(st.Name.Name); ok {
			return
		}
		s.Catalog.UnknownName(st.Name, diag.UnknownObject, "table or view", l)
	case *ast.Show, *ast.StopJob:
		// Nothing to check in a job file; the shell acts on them.
	default:
		l.Errorf(diag.UnsupportedStatement, st.Span(), "unsupported statement")
	}
}
