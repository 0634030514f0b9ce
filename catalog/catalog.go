package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/types"
)

// Column is one column of a table.
type Column struct {
	Name string
	Type types.T
	Kind ast.ColumnKind
	// Expr is a computed column's expression, over the table's columns.
	Expr expr.Expr
	// MetadataKey is the metadata a metadata column reads.
	MetadataKey string
	Virtual     bool
	Time        expr.TimeAttr
	Span        diag.Span
}

// Persisted reports whether the column is written by a sink: physical
// columns and metadata columns that are not VIRTUAL.
func (c *Column) Persisted() bool {
	return c.Kind == ast.PhysicalColumn || c.Kind == ast.MetadataColumn && !c.Virtual
}

// Watermark is a table's WATERMARK FOR col AS col [- INTERVAL ...].
type Watermark struct {
	Column int
	Expr   expr.Expr
	// DelayMillis is the bounded out-of-orderness: the interval subtracted.
	DelayMillis int64
	Span        diag.Span
}

// Table is a checked CREATE TABLE.
type Table struct {
	Name       string
	Columns    []Column
	Watermark  *Watermark
	PrimaryKey []int
	// PartitionKeys are the PARTITIONED BY columns, in order.
	PartitionKeys []string
	Config        *connectors.Config
	Def           *ast.CreateTable
	Source        *diag.Source
	// Invalid is set when the definition had errors.
	Invalid bool
	// Hinted are the options of the table hint this table was read with
	// (Catalog.WithOptions), over those of its definition.
	Hinted []*ast.Option
}

// Column returns the index of the named column, or -1.
func (t *Table) Column(name string) int {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// Connector is the connector name (” when unknown).
func (t *Table) Connector() string {
	if t.Config == nil || t.Config.Spec == nil {
		return ""
	}
	return t.Config.Spec.Name
}

// View is a CREATE VIEW: its query is bound where it is used.
type View struct {
	Name    string
	Def     *ast.CreateView
	Source  *diag.Source
	Invalid bool
}

// Catalog is the set of tables and views of a session.
type Catalog struct {
	// hinted are the tables read with table hints (WithOptions), by the
	// table and the hint's options.
	hinted map[*Table]map[string]*Table
	tables map[string]*Table
	views  map[string]*View
	order  []string
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{tables: map[string]*Table{}, views: map[string]*View{}}
}

// Table returns the named table.
func (c *Catalog) Table(name string) (*Table, bool) { t, ok := c.tables[name]; return t, ok }

// View returns the named view.
func (c *Catalog) View(name string) (*View, bool) { v, ok := c.views[name]; return v, ok }

// Names lists tables and views in creation order.
func (c *Catalog) Names() []string { return slices.Clone(c.order) }

// Tables lists the tables in creation order.
func (c *Catalog) Tables() []*Table {
	var out []*Table
	for _, n := range c.order {
		if t, ok := c.tables[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// Views lists the views in creation order.
func (c *Catalog) Views() []*View {
	var out []*View
	for _, n := range c.order {
		if v, ok := c.views[n]; ok {
			out = append(out, v)
		}
	}
	return out
}

func (c *Catalog) defSpan(name string) diag.Span {
	if t, ok := c.tables[name]; ok {
		return t.Def.Name.S
	}
	if v, ok := c.views[name]; ok {
		return v.Def.Name.S
	}
	return diag.NoSpan
}

func (c *Catalog) exists(name string) bool {
	_, t := c.tables[name]
	_, v := c.views[name]
	return t || v
}

// UnknownName reports a name that is neither a table nor a view, with a
// suggestion.
func (c *Catalog) UnknownName(id *ast.Ident, code diag.Code, what string, l *diag.List) {
	d := l.Errorf(code, id.S, "unknown %s %s", what, id.Name)
	for _, n := range c.order {
		if strings.EqualFold(n, id.Name) {
			d.WithHint("names are case-sensitive: did you mean %s?", n)
			return
		}
	}
	if sg := diag.Suggest(id.Name, c.order); sg != "" {
		d.WithHint("did you mean %s?", sg)
	} else if len(c.order) > 0 && len(c.order) <= 12 {
		d.WithHint("known tables and views: %s", strings.Join(c.order, ", "))
	} else if len(c.order) == 0 {
		d.WithHint("declare it first with CREATE TABLE %s (...) WITH (...)", id.Name)
	}
}

// CreateView registers a view. The caller binds its query first and passes
// invalid=true when that failed.
func (c *Catalog) CreateView(cv *ast.CreateView, src *diag.Source, invalid bool, l *diag.List) *View {
	if c.exists(cv.Name.Name) {
		if cv.IfNotExists {
			return nil
		}
		l.Errorf(diag.DuplicateTable, cv.Name.S, "%s is already defined", cv.Name.Name).
			WithNote(c.defSpan(cv.Name.Name), "first defined here").
			WithHint("use another name, DROP it first, or write CREATE VIEW IF NOT EXISTS")
		return nil
	}
	v := &View{Name: cv.Name.Name, Def: cv, Source: src, Invalid: invalid}
	c.views[v.Name] = v
	c.order = append(c.order, v.Name)
	return v
}

// Drop removes a table or view.
func (c *Catalog) Drop(d *ast.Drop, l *diag.List) {
	name := d.Name.Name
	_, isT := c.tables[name]
	_, isV := c.views[name]
	switch {
	case d.View && isT:
		l.Errorf(diag.WrongObjectKind, d.Name.S, "%s is a table, not a view: use DROP TABLE %s", name, name)
		return
	case !d.View && isV:
		l.Errorf(diag.WrongObjectKind, d.Name.S, "%s is a view, not a table: use DROP VIEW %s", name, name)
		return
	case !isT && !isV:
		if !d.IfExists {
			what := "table"
			if d.View {
				what = "view"
			}
			c.UnknownName(d.Name, diag.UnknownObject, what, l)
		}
		return
	}
	delete(c.tables, name)
	delete(c.views, name)
	c.order = slices.DeleteFunc(c.order, func(n string) bool { return n == name })
}

// CreateTable checks and registers a table. It returns nil when the name is
// taken (and IF NOT EXISTS was not given).
func (c *Catalog) CreateTable(ct *ast.CreateTable, src *diag.Source, l *diag.List) *Table {
	if c.exists(ct.Name.Name) {
		if ct.IfNotExists {
			return nil
		}
		l.Errorf(diag.DuplicateTable, ct.Name.S, "table %s is already defined", ct.Name.Name).
			WithNote(c.defSpan(ct.Name.Name), "first defined here").
			WithHint("use another name, DROP TABLE %s first, or write CREATE TABLE IF NOT EXISTS", ct.Name.Name)
		return nil
	}
	t := &Table{Name: ct.Name.Name, Def: ct, Source: src}
	merged := true
	if ct.Like != nil {
		var m *ast.CreateTable
		if m, merged = c.mergeLike(ct, l); m != nil {
			t.Def, ct = m, m
		}
	}
	if ct.Like == nil {
		c.check(t, ct, l)
	}
	t.Invalid = t.Invalid || !merged
	c.tables[t.Name] = t
	c.order = append(c.order, t.Name)
	return t
}

// check checks the definition ct of t and fills t in.
func (c *Catalog) check(t *Table, ct *ast.CreateTable, l *diag.List) {
	errs := l.Errors()
	c.columns(t, ct, l)
	c.watermark(t, ct, l)
	c.primaryKey(t, ct, l)
	// Missing options are reported at the WITH keyword (or the table name).
	with := ct.Name.S
	if ct.WithSpan.IsValid() {
		with = diag.Span{Start: ct.WithSpan.Start, End: ct.WithSpan.Start + 4}
	}
	cfg, _ := connectors.Validate(ct.Options, with, l)
	t.Config = cfg
	if cfg != nil && cfg.Spec != nil {
		cfg.Keyed = len(ct.PrimaryKeys) > 0
		if cfg.Spec.NeedsPrimaryKey && len(ct.PrimaryKeys) == 0 {
			l.Errorf(diag.PrimaryKeyRequired, ct.Name.S, "connector '%s' needs a primary key: it writes and reads rows by key", cfg.Spec.Name).
				WithHint("declare one, e.g. PRIMARY KEY (%s) NOT ENFORCED", firstColumn(t))
		}
		if cfg.Spec.KeyNeedsChangelogFormat && len(ct.PrimaryKeys) > 0 && cfg.Format != nil && !cfg.Format.Changelog {
			l.Errorf(diag.PrimaryKeyFormat, ct.PrimaryKeys[0].S,
				"a '%s' table with format '%s' cannot have a PRIMARY KEY: its records are appended, and nothing in them says that one updates another with the same key",
				cfg.Spec.Name, cfg.Format.Name).
				WithHint("to keep the latest row per key use 'connector' = 'upsert-kafka' with 'key.format' and 'value.format'; for a changelog use 'format' = 'debezium-json'; otherwise drop the PRIMARY KEY")
		}
		if cfg.Spec.CheckColumns != nil {
			cols := make([]connectors.TableColumn, len(t.Columns))
			for i, col := range t.Columns {
				cols[i] = connectors.TableColumn{Name: col.Name, Type: col.Type, Physical: col.Kind == ast.PhysicalColumn, Computed: col.Kind == ast.ComputedColumn}
			}
			cfg.Spec.CheckColumns(cfg, cols, l)
		}
		c.metadataKeys(t, cfg.Spec.Name, l)
		c.partitions(t, ct, cfg.Spec.Name, l)
	}
	t.Invalid = l.Errors() > errs
}

// WithOptions returns t with the options of a table hint
// (/*+ OPTIONS('k' = 'v') */) over its own: a key of the hint replaces the
// table's, a new key is added, and the result is checked as a WITH clause
// is, so an unknown key or a bad value is the same error, at the hint.
// Diagnostics about the table's own definition were reported where it was
// created and are not repeated; an error that only the merged options make
// (a required option that a new 'connector' needs) is reported, with a
// note at the hint. The same hint on the same table gives the same Table,
// so that a job reads it once.
func (c *Catalog) WithOptions(t *Table, h *ast.Hint, l *diag.List) *Table {
	var key strings.Builder
	key.WriteString(t.Name)
	for _, o := range h.Options {
		fmt.Fprintf(&key, "\x00%s\x00%s", o.Key.Value, o.Value.Value)
	}
	if c.hinted == nil {
		c.hinted = map[*Table]map[string]*Table{}
	}
	if ht, ok := c.hinted[t][key.String()]; ok {
		return ht
	}
	ct := *t.Def
	ct.Options = slices.Clone(t.Def.Options)
	for _, o := range h.Options {
		i := slices.IndexFunc(ct.Options, func(x *ast.Option) bool { return x.Key.Value == o.Key.Value })
		if i >= 0 {
			ct.Options[i] = o
		} else {
			ct.Options = append(ct.Options, o)
		}
	}
	scratch := &diag.List{Source: l.Source}
	ht := &Table{Name: t.Name, Def: &ct, Source: t.Source, Hinted: h.Options}
	c.check(ht, &ct, scratch)
	for _, d := range scratch.Items {
		inHint := d.Span.Start >= h.S.Start && d.Span.End <= h.S.End
		switch {
		case inHint:
			l.Append(d)
		case d.Severity == diag.Error:
			d.Source = t.Source
			d.Notes = append(d.Notes, diag.Note{Span: h.S, Msg: "with the options of this hint"})
			l.Append(d)
		}
	}
	if c.hinted[t] == nil {
		c.hinted[t] = map[string]*Table{}
	}
	c.hinted[t][key.String()] = ht
	return ht
}

// partitionConnectors are the connectors that take PARTITIONED BY, as in
// Flink: the filesystem connector writes and reads key=value/ directories;
// print and blackhole accept and ignore it.
var partitionConnectors = map[string]bool{"filesystem": true, "print": true, "blackhole": true}

// partitions checks PARTITIONED BY: physical columns, each once, of a
// connector that takes partitions.
func (c *Catalog) partitions(t *Table, ct *ast.CreateTable, connector string, l *diag.List) {
	if len(ct.PartitionBy) == 0 {
		return
	}
	if !partitionConnectors[connector] {
		l.Errorf(diag.UnsupportedFeature, ct.PartitionBy[0].S, "PARTITIONED BY: connector '%s' has no partitions (Flink refuses it too)", connector).
			WithHint("remove PARTITIONED BY; partitions are for 'filesystem' tables")
		return
	}
	seen := map[string]bool{}
	for _, id := range ct.PartitionBy {
		i := t.Column(id.Name)
		switch {
		case i < 0:
			d := l.Errorf(diag.UnknownColumn, id.S, "PARTITIONED BY %s: table %s has no column %s", id.Name, t.Name, id.Name)
			var names []string
			for _, col := range t.Columns {
				names = append(names, col.Name)
			}
			if sg := diag.Suggest(id.Name, names); sg != "" {
				d.WithHint("did you mean %s?", sg)
			}
		case !t.Columns[i].Persisted() || t.Columns[i].MetadataKey != "":
			l.Errorf(diag.UnsupportedFeature, id.S, "PARTITIONED BY %s: a partition column must be a physical column, not a computed or metadata one", id.Name)
		case seen[id.Name]:
			l.Errorf(diag.DuplicateColumn, id.S, "PARTITIONED BY names %s twice", id.Name)
		default:
			seen[id.Name] = true
			t.PartitionKeys = append(t.PartitionKeys, id.Name)
		}
	}
	if len(t.PartitionKeys) == len(t.SinkColumns()) && len(t.PartitionKeys) > 0 && connector == "filesystem" {
		l.Errorf(diag.UnsupportedFeature, ct.PartitionBy[0].S, "PARTITIONED BY every column leaves nothing to write in the files")
	}
}

func firstColumn(t *Table) string {
	if len(t.Columns) > 0 {
		return t.Columns[0].Name
	}
	return "id"
}

func (c *Catalog) columns(t *Table, ct *ast.CreateTable, l *diag.List) {
	seen := map[string]*ast.ColumnDef{}
	for _, cd := range ct.Columns {
		if first, dup := seen[cd.Name.Name]; dup {
			l.Errorf(diag.DuplicateColumn, cd.Name.S, "column %s is declared twice", cd.Name.Name).
				WithNote(first.Name.S, "first declared here")
			continue
		}
		seen[cd.Name.Name] = cd
		col := Column{Name: cd.Name.Name, Kind: cd.Kind, Virtual: cd.Virtual, Span: cd.S}
		if cd.Type != nil {
			if tt, ok := types.FromAST(cd.Type, l); ok {
				col.Type = tt
			}
		}
		if cd.Kind == ast.MetadataColumn {
			col.MetadataKey = cd.Name.Name
			if cd.MetadataKey != nil {
				col.MetadataKey = cd.MetadataKey.Value
			}
		}
		t.Columns = append(t.Columns, col)
	}
	// Computed columns see the physical and metadata columns (as in Flink,
	// not other computed columns).
	scope := &expr.Scope{}
	for _, col := range t.Columns {
		sc := expr.ScopeColumn{Name: col.Name, T: col.Type}
		if col.Kind == ast.ComputedColumn {
			sc.Name = "" // invisible
		}
		scope.Cols = append(scope.Cols, sc)
	}
	for i := range t.Columns {
		col := &t.Columns[i]
		if col.Kind != ast.ComputedColumn {
			continue
		}
		cd := seen[col.Name]
		b := &expr.Binder{Scope: scope, L: l, Clause: "computed column " + col.Name}
		e := b.Bind(cd.Expr)
		if e == nil {
			continue
		}
		col.Expr, col.Type = e, e.Type()
		if call, ok := e.(*expr.Call); ok && call.Fn == "PROCTIME" {
			col.Time = expr.ProcTime
		}
	}
}

func (c *Catalog) watermark(t *Table, ct *ast.CreateTable, l *diag.List) {
	if len(ct.Watermarks) > 1 {
		l.Errorf(diag.DuplicateConstraint, ct.Watermarks[1].S, "a table can have only one WATERMARK").
			WithNote(ct.Watermarks[0].S, "the first one is here")
	}
	if len(ct.Watermarks) == 0 {
		return
	}
	wm := ct.Watermarks[0]
	idx := t.Column(wm.Column.Name)
	if idx < 0 {
		d := l.Errorf(diag.WatermarkColumn, wm.Column.S, "WATERMARK FOR %s: table %s has no column %s", wm.Column.Name, t.Name, wm.Column.Name)
		if sg := diag.Suggest(wm.Column.Name, columnNames(t)); sg != "" {
			d.WithHint("did you mean %s?", sg)
		} else {
			d.WithHint("the columns are: %s", strings.Join(columnNames(t), ", "))
		}
		return
	}
	col := &t.Columns[idx]
	if col.Type.Kind != types.Invalid && (!col.Type.Kind.IsTimestamp() || col.Type.Precision > 3) {
		d := l.Errorf(diag.WatermarkType, wm.Column.S, "WATERMARK FOR %s: the column is %s, but a watermark needs TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p <= 3", col.Name, col.Type)
		switch {
		case col.Type.Kind.IsIntegral():
			d.WithHint("for epoch numbers add a computed column with an explicit unit, e.g. ts AS TO_TIMESTAMP_LTZ(%s, 3) (milliseconds) or TO_TIMESTAMP_LTZ(%s, 0) (seconds), and put the watermark on ts", col.Name, col.Name)
		case col.Type.Kind.IsString():
			d.WithHint("parse it in a computed column, e.g. ts AS TO_TIMESTAMP(%s), and put the watermark on ts", col.Name)
		case col.Type.Kind.IsTimestamp():
			d.WithHint("declare it as %s(3)", strings.SplitN(col.Type.String(), "(", 2)[0])
		}
		return
	}
	// The expression sees every column.
	scope := &expr.Scope{}
	for _, cc := range t.Columns {
		scope.Cols = append(scope.Cols, expr.ScopeColumn{Name: cc.Name, T: cc.Type})
	}
	b := &expr.Binder{Scope: scope, L: l, Clause: "the watermark"}
	e := b.Bind(wm.Expr)
	if e == nil {
		return
	}
	delay, ok := watermarkDelay(e, idx)
	if !ok {
		l.Errorf(diag.WatermarkExpr, wm.Expr.Span(), "unsupported watermark expression %s", ast.Format(wm.Expr)).
			WithHint("streamsql supports bounded out-of-orderness: WATERMARK FOR %s AS %s - INTERVAL '5' SECOND (or AS %s for ordered input)", col.Name, col.Name, col.Name)
		return
	}
	if delay < 0 {
		l.Errorf(diag.WatermarkExpr, wm.Expr.Span(), "the watermark delay must not be negative: a watermark ahead of the data would mark every row late")
		return
	}
	col.Time = expr.RowTime
	t.Watermark = &Watermark{Column: idx, Expr: e, DelayMillis: delay, Span: wm.S}
}

// watermarkDelay recognises col and col - INTERVAL 'n' unit.
func watermarkDelay(e expr.Expr, idx int) (int64, bool) {
	if c, ok := e.(*expr.Column); ok && c.Index == idx {
		return 0, true
	}
	call, ok := e.(*expr.Call)
	if !ok || call.Fn != "-" || len(call.Args) != 2 {
		return 0, false
	}
	c, ok := call.Args[0].(*expr.Column)
	k, ok2 := call.Args[1].(*expr.Const)
	if !ok || !ok2 || c.Index != idx || k.T.Kind != types.Interval {
		return 0, false
	}
	ms, ok := k.V.(int64)
	return ms, ok
}

func columnNames(t *Table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func (c *Catalog) primaryKey(t *Table, ct *ast.CreateTable, l *diag.List) {
	if len(ct.PrimaryKeys) > 1 {
		l.Errorf(diag.DuplicateConstraint, ct.PrimaryKeys[1].S, "a table can have only one PRIMARY KEY").
			WithNote(ct.PrimaryKeys[0].S, "the first one is here")
	}
	if len(ct.PrimaryKeys) == 0 {
		return
	}
	pk := ct.PrimaryKeys[0]
	if !pk.NotEnforced {
		l.Errorf(diag.PrimaryKeyEnforced, pk.S, "PRIMARY KEY must be declared NOT ENFORCED: streamsql, like Flink, does not check uniqueness, it trusts the key").
			WithHint("write PRIMARY KEY (%s) NOT ENFORCED", joinIdents(pk.Columns))
	}
	for _, id := range pk.Columns {
		i := t.Column(id.Name)
		if i < 0 {
			d := l.Errorf(diag.PrimaryKeyColumn, id.S, "PRIMARY KEY names %s, which is not a column of %s", id.Name, t.Name)
			if sg := diag.Suggest(id.Name, columnNames(t)); sg != "" {
				d.WithHint("did you mean %s?", sg)
			}
			continue
		}
		if t.Columns[i].Kind != ast.PhysicalColumn {
			l.Errorf(diag.PrimaryKeyColumn, id.S, "PRIMARY KEY column %s must be a physical column, not a computed or metadata column", id.Name)
			continue
		}
		if slices.Contains(t.PrimaryKey, i) {
			l.Errorf(diag.PrimaryKeyColumn, id.S, "PRIMARY KEY names %s twice", id.Name)
			continue
		}
		t.PrimaryKey = append(t.PrimaryKey, i)
		t.Columns[i].Type = t.Columns[i].Type.NotNull()
	}
}

func joinIdents(ids []*ast.Ident) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.Name
	}
	return strings.Join(s, ", ")
}

// metadataKeys lists what each connector exposes as metadata.
var metadataKeys = map[string][]string{
	"kafka":        {"topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch", "key"},
	"upsert-kafka": {"topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch"},
	"filesystem":   {"file.path", "file.name", "file.size", "file.modification-time", "line"},
}

func (c *Catalog) metadataKeys(t *Table, connector string, l *diag.List) {
	keys := metadataKeys[connector]
	for _, col := range t.Columns {
		if col.Kind != ast.MetadataColumn {
			continue
		}
		if !slices.Contains(keys, col.MetadataKey) {
			d := l.Errorf(diag.ComputedColumnInvalid, col.Span, "connector '%s' has no metadata '%s'", connector, col.MetadataKey)
			if len(keys) == 0 {
				d.WithHint("connector '%s' exposes no metadata", connector)
			} else if sg := diag.Suggest(col.MetadataKey, keys); sg != "" {
				d.WithHint("did you mean '%s'?", sg)
			} else {
				d.WithHint("available: %s", strings.Join(keys, ", "))
			}
		}
	}
}

// String describes a table in one line (for DESCRIBE and tests).
func (t *Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
		if c.Time != expr.NoTime {
			fmt.Fprintf(&b, " *%s*", c.Time)
		}
	}
	b.WriteString(")")
	return b.String()
}
