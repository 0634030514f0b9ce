package planner

import (
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
)

// The checks between the rewrite rules (rules.go): what a rule's input is
// refused for, or warned about, reported from the same functions the rule
// reads, so that the rules themselves stay pure rewrites.

// walkPost calls f on every node of n, children first (the order in which
// the bottom-up rules visit them).
func walkPost(n logical.Node, f func(logical.Node)) {
	for _, c := range logical.Children(n) {
		walkPost(c, f)
	}
	f(n)
}

// checkTemporalJoins refuses each FOR SYSTEM_TIME AS OF join whose right
// input is not a versioned table the join can run against. It runs after
// the keys rule (the primary key must be among the keys) and before the
// temporal rule.
func checkTemporalJoins(root logical.Node, l *diag.List) {
	walkPost(root, func(n logical.Node) {
		if j, ok := n.(*logical.Join); ok && j.AsOf != nil {
			if report := versionedProblem(j); report != nil {
				report(l)
			}
		}
	})
}

// versionedProblem says why a join FOR SYSTEM_TIME AS OF cannot run as a
// temporal join, as a function that reports it, or returns nil when it can.
func versionedProblem(j *logical.Join) func(*diag.List) {
	asOf := j.AsOf.(*expr.Column)
	scan := baseScan(j.Right)
	if scan == nil {
		return func(l *diag.List) {
			l.Errorf(diag.NotVersioned, j.Right.Span(), "FOR SYSTEM_TIME AS OF needs a table, not a query")
		}
	}
	t := scan.Table
	if asOf.Time == expr.ProcTime {
		return lookupProblem(j, t)
	}
	if len(t.PrimaryKey) == 0 || asOf.Time == expr.RowTime && t.Watermark == nil {
		return func(l *diag.List) {
			d := l.Errorf(diag.NotVersioned, j.Right.Span(), "%s is not a versioned table: a temporal join needs a PRIMARY KEY and a WATERMARK on it", t.Name)
			if len(t.PrimaryKey) == 0 {
				d.WithHint("declare PRIMARY KEY (...) NOT ENFORCED on %s", t.Name)
			}
			if t.Watermark == nil {
				d.WithHint("declare WATERMARK FOR <update time> AS <update time> on %s", t.Name)
			}
			if canLookup(t) {
				d.WithHint("%s can be looked up ('connector' = '%s'): join it FOR SYSTEM_TIME AS OF a PROCTIME() column of the probe side, a lookup join that reads its current rows", t.Name, t.Connector())
			}
		}
	}
	// The keys must cover every primary key column of the versioned side.
	eq := map[int]bool{}
	for _, k := range j.Keys {
		if col, _ := keyColumn(k.Right); col != nil {
			eq[col.Index] = true
		}
	}
	for _, k := range t.PrimaryKey {
		if !eq[k] {
			return func(l *diag.List) {
				l.Errorf(diag.NotVersioned, j.Keyword, "a temporal join must match the versioned table's primary key: the ON clause has no equality on %s.%s", t.Name, t.Columns[k].Name)
			}
		}
	}
	return nil
}

// checkIntervalJoins runs after the interval rule. It refuses an outer
// join that the interval rule kept although its condition bounds the time
// between its inputs, because the times it compares are not event-time
// attributes, and warns of an interval join whose bounds cannot both hold.
func checkIntervalJoins(root logical.Node, l *diag.List) {
	walkPost(root, func(n logical.Node) {
		switch j := n.(type) {
		case *logical.Join:
			if j.AsOf != nil || j.Kind == ast.InnerJoin || j.Kind == ast.CrossJoin || isSemi(j.Kind) {
				return
			}
			// The rule kept j: its bounds are not both set.
			if b := intervalBounds(j); b != nil && len(b.plain) > 0 {
				l.Errorf(diag.OuterJoinWatermark, b.plain[0].Span(),
					"this %s JOIN is bounded in time, but the columns it compares are not event-time attributes", j.Kind).
					WithNote(nodeSpan(j), "the outer join").
					WithHint("declare WATERMARK FOR <col> AS <col> - INTERVAL '5' SECOND on both tables: without watermarks the null-padded rows could never be emitted and state would grow forever (Spark refuses the same)")
			}
		case *logical.IntervalJoin:
			if j.Lower > j.Upper {
				lcol, rcol := colName(j.Cols, j.LeftTime), colName(j.Cols, len(j.Left.Columns())+j.RightTime)
				l.Warnf(diag.EmptyInterval, nodeSpan(j), "the time bounds of this join cannot both hold: %s - %s must be at least %s and at most %s, so no row pair can ever match",
					lcol, rcol, expr.FormatMillis(j.Lower), expr.FormatMillis(j.Upper)).
					WithHint("check the order of the BETWEEN bounds (lower bound first)")
			}
		}
	})
}

// canLookup reports whether t's connector can be looked up by key.
func canLookup(t *catalog.Table) bool {
	return t.Config != nil && t.Config.Spec != nil && t.Config.Spec.Lookup
}

// lookupProblem says why a join FOR SYSTEM_TIME AS OF a processing-time
// attribute cannot run as a lookup join (Flink's LookupJoin), or returns
// nil when it can: the right input must be a table (t) whose connector can
// be looked up, and the ON clause must equate stored columns of it with
// values of the probe side of the same type (the lookup keys, as Flink
// requires). Computed columns of the table are computed on each row found,
// as Flink computes them in a Calc over the lookup (so a PROCTIME() column
// is the time of the join).
func lookupProblem(j *logical.Join, t *catalog.Table) func(*diag.List) {
	right := j.Right
	if w, ok := right.(*logical.WatermarkAssigner); ok {
		right = w.Input
	}
	if _, ok := right.(*logical.Scan); !ok {
		return func(l *diag.List) {
			l.Errorf(diag.LookupJoin, j.Right.Span(), "a lookup join (FOR SYSTEM_TIME AS OF a processing-time attribute) needs a table, not a view or a query")
		}
	}
	asOf := j.AsOf.(*expr.Column)
	if !canLookup(t) {
		return func(l *diag.List) {
			l.Errorf(diag.LookupJoin, j.Right.Span(), "%s cannot be looked up: a lookup join (FOR SYSTEM_TIME AS OF %s, a PROCTIME() column) queries the table's connector by key, and '%s' cannot be queried (only %s can)",
				t.Name, asOf.Name, t.Connector(), "'"+strings.Join(connectors.LookupNames(), "', '")+"'").
				WithHint("declare %s with 'connector' = 'jdbc' (or a 'filesystem' file), or join the version valid at an event time: FOR SYSTEM_TIME AS OF <a column with a WATERMARK>, against a table with a PRIMARY KEY and a WATERMARK", t.Name)
		}
	}
	if len(j.Keys) == 0 {
		return func(l *diag.List) {
			l.Errorf(diag.LookupJoin, j.Keyword, "a lookup join needs an equality between a column of %s and the probe side (ON probe.k = %s.k): the table is queried by key, and without one every probe would read it all",
				t.Name, t.Name)
		}
	}
	var reports []func(*diag.List)
	nL := len(j.Left.Columns())
	for _, k := range j.Keys {
		if c, isCol := lookupKeyColumn(k.Right); isCol && k.NullSafe && c.T.Nullable && k.Left.Type().Nullable {
			// A NULL probe value would have to find the table's rows
			// whose key is NULL, and the connector queries key = value.
			reports = append(reports, func(l *diag.List) {
				l.Errorf(diag.LookupJoin, k.S, "a lookup join cannot match NULL with NULL: %s.%s and the probe side's %s may both be NULL, and the table is queried by key = value, which no NULL key satisfies",
					t.Name, c.Name, render(k.Left, j.Left.Columns())).
					WithHint("write = if a NULL should match nothing (for values it is the same join), or declare %s NOT NULL in %s's DDL if the table holds no NULL there", c.Name, t.Name)
			})
			continue
		}
		if c, isCol := lookupKeyColumn(k.Right); isCol {
			if c.Index < len(t.Columns) && t.Columns[c.Index].Expr != nil {
				reports = append(reports, func(l *diag.List) {
					l.Errorf(diag.LookupJoin, k.S, "the lookup key %s.%s is a computed column: a lookup join queries the table by the columns it stores", t.Name, c.Name).
						WithHint("join on a stored column of %s, or compare with the computed column's expression in a WHERE clause", t.Name)
				})
			}
			continue
		}
		col := k.Right
		if c, isCast := col.(*expr.Call); isCast && c.Fn == "CAST" && len(c.Args) == 1 {
			col = c.Args[0]
		}
		if c, isCol := col.(*expr.Column); isCol {
			lt := k.Left.Type()
			if c2, isCast := k.Left.(*expr.Call); isCast && c2.Fn == "CAST" && len(c2.Args) == 1 {
				lt = c2.Args[0].Type()
			}
			reports = append(reports, func(l *diag.List) {
				l.Errorf(diag.LookupJoin, k.S, "the lookup key %s.%s is %s, but the probe side's value is %s: a lookup join compares keys of one type, as Flink requires",
					t.Name, c.Name, c.T, lt).
					WithHint("CAST the probe side's value: ON %s.%s = CAST(... AS %s)", j.Cols[nL+c.Index].Qualifier, c.Name, c.T)
			})
			continue
		}
		reports = append(reports, func(l *diag.List) {
			l.Errorf(diag.LookupJoin, k.S, "a lookup join looks rows up by columns of %s, but this equality compares %s with %s",
				t.Name, render(k.Left, j.Left.Columns()), render(k.Right, j.Right.Columns())).
				WithHint("write the condition as <dim column> = <expression of the probe side>")
		})
	}
	if len(reports) == 0 {
		return nil
	}
	return func(l *diag.List) {
		for _, r := range reports {
			r(l)
		}
	}
}

// lookupKeyColumn is the dim column a lookup key's Right expression
// reads: a column, or a column cast between string types (VARCHAR(n) to
// STRING), whose value the database compares as it is.
func lookupKeyColumn(e expr.Expr) (*expr.Column, bool) {
	if c, ok := e.(*expr.Call); ok && c.Fn == "CAST" && len(c.Args) == 1 && c.T.Kind.IsString() && c.Args[0].Type().Kind.IsString() {
		e = c.Args[0]
	}
	col, ok := e.(*expr.Column)
	return col, ok
}
