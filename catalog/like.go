package catalog

import (
	"slices"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

// Flink's CREATE TABLE ... LIKE source (options): the new table is the
// source table's definition merged with its own, feature by feature, by
// the rules of Flink's MergeTableLikeUtil:
//
//	physical columns  always the source's, then the new ones; a name twice is an error
//	GENERATED         computed columns  INCLUDING: the source's, a new one of the same name an error;
//	METADATA          metadata columns  OVERWRITING: a new one replaces the source's, in its place;
//	                                    EXCLUDING: none of the source's
//	WATERMARKS        watermarks        the same three, by rowtime column
//	CONSTRAINTS       the primary key   INCLUDING: the source's (a new one too is an error); EXCLUDING: not
//	PARTITIONS        PARTITIONED BY    INCLUDING: the source's (new ones too is an error); EXCLUDING: not
//	OPTIONS           the WITH options  INCLUDING: both (a key in both is an error);
//	                                    OVERWRITING: both, the new value wins; EXCLUDING: the new ones
//
// The defaults are INCLUDING, and OVERWRITING for OPTIONS; INCLUDING ALL or
// EXCLUDING ALL sets every feature, and the features named after it change
// theirs. The merged definition is then checked as a CREATE TABLE is.
// (Flink keeps the source's partitions under EXCLUDING PARTITIONS when the
// new table names none, which contradicts its documentation; streamsql
// follows the documentation.)

// likeStrategies are the merging strategies of lk by feature.
func likeStrategies(lk *ast.TableLike) map[string]string {
	out := map[string]string{"CONSTRAINTS": "INCLUDING", "GENERATED": "INCLUDING", "METADATA": "INCLUDING",
		"OPTIONS": "OVERWRITING", "PARTITIONS": "INCLUDING", "WATERMARKS": "INCLUDING"}
	for _, o := range lk.Options {
		if o.Feature == "ALL" {
			for k := range out {
				out[k] = o.Strategy
			}
		}
	}
	for _, o := range lk.Options {
		if o.Feature != "ALL" {
			out[o.Feature] = o.Strategy
		}
	}
	return out
}

// mergeLike returns ct merged with the table its LIKE names, and whether
// the merge went without errors (reported to l); nil when there is no such
// table to merge with.
func (c *Catalog) mergeLike(ct *ast.CreateTable, l *diag.List) (*ast.CreateTable, bool) {
	lk := ct.Like
	src, ok := c.tables[lk.Source.Name]
	if !ok {
		if _, isView := c.views[lk.Source.Name]; isView {
			l.Errorf(diag.WrongObjectKind, lk.Source.S, "LIKE %s: %s is a view; LIKE copies a table", lk.Source.Name, lk.Source.Name)
			return nil, false
		}
		c.UnknownName(lk.Source, diag.UnknownObject, "table", l)
		return nil, false
	}
	if src.Invalid {
		return nil, false // reported where it is defined
	}
	st := likeStrategies(lk)
	def := src.Def
	out := *ct
	out.Columns, out.Watermarks, out.PrimaryKeys, out.Options = nil, nil, nil, nil
	good := true
	fail := func(code diag.Code, at diag.Span, format string, args ...any) *diag.Diagnostic {
		good = false
		return l.Errorf(code, at, format, args...).WithNote(lk.S, "merged with %s here", lk.Source.Name)
	}
	// Columns: the source's in their order, then the new ones.
	feature := map[ast.ColumnKind]string{ast.ComputedColumn: "GENERATED", ast.MetadataColumn: "METADATA"}
	for _, cd := range def.Columns {
		if cd.Kind != ast.PhysicalColumn && st[feature[cd.Kind]] == "EXCLUDING" {
			continue
		}
		cp := *cd
		cp.InlinePrimaryKey = nil // the key is merged below
		out.Columns = append(out.Columns, &cp)
	}
	for _, cd := range ct.Columns {
		at := slices.IndexFunc(out.Columns, func(x *ast.ColumnDef) bool { return x.Name.Name == cd.Name.Name })
		switch {
		case at < 0:
			out.Columns = append(out.Columns, cd)
		case cd.Kind == ast.PhysicalColumn:
			_ = fail(diag.DuplicateColumn, cd.Name.S, "a column named %s already exists in the base table %s", cd.Name.Name, lk.Source.Name)
		case out.Columns[at].Kind != cd.Kind:
			what := map[ast.ColumnKind]string{ast.ComputedColumn: "computed", ast.MetadataColumn: "metadata"}[cd.Kind]
			_ = fail(diag.DuplicateColumn, cd.Name.S, "a column named %s already exists in the base table %s: %s columns can only overwrite other %s columns", cd.Name.Name, lk.Source.Name, what, what)
		case st[feature[cd.Kind]] != "OVERWRITING":
			f := feature[cd.Kind]
			fail(diag.DuplicateColumn, cd.Name.S, "a %s column named %s already exists in the base table %s", map[string]string{"GENERATED": "generated", "METADATA": "metadata"}[f], cd.Name.Name, lk.Source.Name).
				WithHint("specify EXCLUDING %s or OVERWRITING %s", f, f)
		default:
			out.Columns[at] = cd
		}
	}
	// Watermarks, by rowtime column.
	if st["WATERMARKS"] != "EXCLUDING" {
		out.Watermarks = append(out.Watermarks, def.Watermarks...)
	}
	for _, wm := range ct.Watermarks {
		at := slices.IndexFunc(out.Watermarks, func(x *ast.WatermarkDef) bool { return x.Column.Name == wm.Column.Name })
		switch {
		case at < 0:
			out.Watermarks = append(out.Watermarks, wm)
		case st["WATERMARKS"] != "OVERWRITING":
			fail(diag.DuplicateConstraint, wm.S, "there already is a watermark for column %s in the base table %s", wm.Column.Name, lk.Source.Name).
				WithHint("specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS")
		default:
			out.Watermarks[at] = wm
		}
	}
	// The primary key.
	if st["CONSTRAINTS"] == "INCLUDING" {
		out.PrimaryKeys = append(out.PrimaryKeys, def.PrimaryKeys...)
	}
	for _, pk := range ct.PrimaryKeys {
		if len(out.PrimaryKeys) > 0 && st["CONSTRAINTS"] == "INCLUDING" && len(def.PrimaryKeys) > 0 {
			fail(diag.DuplicateConstraint, pk.S, "the base table %s already has a primary key", lk.Source.Name).
				WithHint("specify EXCLUDING CONSTRAINTS")
			continue
		}
		out.PrimaryKeys = append(out.PrimaryKeys, pk)
	}
	// Partitions.
	switch {
	case len(ct.PartitionBy) > 0 && len(def.PartitionBy) > 0 && st["PARTITIONS"] != "EXCLUDING":
		fail(diag.DuplicateConstraint, ct.PartitionBy[0].S, "the base table %s is already PARTITIONED BY", lk.Source.Name).
			WithHint("specify EXCLUDING PARTITIONS")
	case len(ct.PartitionBy) == 0 && st["PARTITIONS"] == "INCLUDING":
		out.PartitionBy = def.PartitionBy
	}
	// Options.
	if st["OPTIONS"] != "EXCLUDING" {
		out.Options = append(out.Options, def.Options...)
	}
	for _, o := range ct.Options {
		at := slices.IndexFunc(out.Options, func(x *ast.Option) bool { return x.Key.Value == o.Key.Value })
		switch {
		case at < 0:
			out.Options = append(out.Options, o)
		case st["OPTIONS"] != "OVERWRITING":
			fail(diag.DuplicateOption, o.Key.S, "option '%s' is already given by the base table %s", o.Key.Value, lk.Source.Name).
				WithHint("specify EXCLUDING OPTIONS or OVERWRITING OPTIONS")
		default:
			out.Options[at] = o
		}
	}
	if !out.WithSpan.IsValid() {
		out.WithSpan = lk.S // missing options are reported at the LIKE
	}
	// The merged definition stands for itself: what a later LIKE of this
	// table copies, and what EXPLAIN and contracts read.
	out.Like = nil
	return &out, good
}
