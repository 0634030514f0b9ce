package planner

import (
	"github.com/streamsql/streamsql/ast"
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
		// Flink runs this as a lookup join: each probe row queries the
		// table's connector for the current row by key. No connector here
		// can be looked up (jdbc, the lookup source, does not exist yet).
		return func(l *diag.List) {
			l.Errorf(diag.UnsupportedFeature, j.Keyword, "a processing-time temporal join (FOR SYSTEM_TIME AS OF %s, a PROCTIME() column) is a lookup join, and streamsql has no lookup source yet", asOf.Name).
				WithHint("join the version valid at an event time instead: FOR SYSTEM_TIME AS OF <a column with a WATERMARK>, against a table with a PRIMARY KEY and a WATERMARK")
		}
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
			if j.AsOf != nil || j.Kind == ast.InnerJoin || j.Kind == ast.CrossJoin {
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
