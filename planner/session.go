package planner

import (
	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/settings"
)

// Session applies statements in order: DDL changes the catalog, SET and
// RESET change settings, and queries and INSERTs are bound into logical
// plans against what was declared before them.
type Session struct {
	Catalog *catalog.Catalog
	// Settings are the settings in effect, resolved once each time a SET
	// or RESET changes them; each Plan keeps those of its statement.
	Settings settings.Settings
	// values are the settings as written; base are those given before
	// the job's own statements (--set), which RESET goes back to.
	values, base settings.Values
	// Plans are the bound INSERTs and queries, in order.
	Plans []*Plan
	// Trace makes each Plan keep its Steps: the tree after each rewrite.
	Trace bool
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
	// Settings are the session's settings when the statement was planned:
	// what Lower resolves the runtime's settings from.
	Settings settings.Settings
	// Explain is set when the statement was an EXPLAIN.
	Explain *ast.Explain
	// Steps are the plan after each rewrite that changed it, when the
	// session traces (Session.Trace).
	Steps []Step
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
	p := &Plan{Stmt: st, Settings: s.Settings}
	var tr *tracer
	if s.Trace {
		tr = &tracer{}
	}
	p.Root, p.Fired = optimize(root, l, tr)
	if l.Errors() > errs {
		return
	}
	p.Root, p.Props = derive(p.Root, s.Settings, l, tr)
	if tr != nil {
		p.Steps = tr.steps
	}
	checkRunnable(p.Root, p.Props, l)
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
func NewSession() *Session { return NewSessionWith(settings.Values{}) }

// NewSessionWith returns a session with an empty catalog and the given
// settings (--set), which RESET goes back to. They must have been checked
// (CheckSetting).
func NewSessionWith(base settings.Values) *Session {
	s := &Session{Catalog: catalog.New(), values: base.Clone(), base: base.Clone(), Settings: settings.Defaults()}
	if r, err := settings.Resolve(base); err == nil {
		s.Settings = r
	}
	return s
}

// CheckSetting checks one setting where it is written (a SET statement,
// or a --set flag given as a source of its own) and reports what is wrong
// with it: an unknown key is a warning (SQL310, with a did-you-mean hint),
// since Flink jobs carry keys for Flink's own runtime; a value the key
// does not take is an error that names the key, the value and what is
// accepted (SQL311), or, for a value streamsql cannot honour yet (a time
// zone other than UTC), SQL315. It reports whether the value may be used.
func CheckSetting(key string, keySpan diag.Span, value string, valueSpan diag.Span, l *diag.List) bool {
	if !settings.Known(key) {
		d := l.Warnf(diag.UnknownSetting, keySpan, "unknown configuration key '%s' is ignored", key)
		if sg := diag.Suggest(key, settings.Names()); sg != "" {
			d.WithHint("did you mean '%s'?", sg)
		}
		return true
	}
	e := settings.Check(key, value)
	if e == nil {
		return true
	}
	if e.Unsupported {
		l.Errorf(diag.UnsupportedFeature, valueSpan, "'%s' = '%s' is not supported yet: %s", key, value, e.Problem).
			WithHint("'%s' takes %s", key, e.Accepts)
		return false
	}
	if e.Problem == "" {
		l.Errorf(diag.InvalidSetting, valueSpan, "invalid value '%s' for '%s': expected %s", value, key, e.Accepts)
		return false
	}
	l.Errorf(diag.InvalidSetting, valueSpan, "invalid value '%s' for '%s': %s", value, key, e.Problem).
		WithHint("'%s' takes %s", key, e.Accepts)
	return false
}

// resolve recomputes the typed settings from the values set.
func (s *Session) resolve(sp diag.Span, l *diag.List) {
	r, err := settings.Resolve(s.values)
	if err != nil {
		// Values are checked before they are kept; this is a bug, but
		// one reported, not a panic.
		l.Errorf(diag.InvalidSetting, sp, "%v", err)
		return
	}
	s.Settings = r
}

// Values are the settings set so far, as written: the base values (--set),
// then the file's SET statements.
func (s *Session) Values() settings.Values { return s.values.Clone() }

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
		if !CheckSetting(key, st.Key.S, val, st.Value.S, l) {
			return
		}
		s.values.Set(key, val)
		s.resolve(st.Span(), l)
	case *ast.Reset:
		// As Flink's SQL client does, RESET goes back to the values the
		// session started with (--set), not past them.
		if st.Key == nil {
			s.values = s.base.Clone()
		} else if v, ok := s.base.Get(st.Key.Value); ok {
			s.values.Set(st.Key.Value, v)
		} else {
			s.values.Delete(st.Key.Value)
		}
		s.resolve(st.Span(), l)
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
