package planner

import (
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// convert returns e as a value of type t, a type e's type widens to (a
// common or comparison type): a cast (fn is CAST or TRY_CAST) where t
// represents the values differently, which is between numbers of different
// types or scales (an INT 3 is 3.00 in a DECIMAL(12, 2), whose value is 300
// hundredths). Everything else is left as it is: strings and byte strings
// keep their values whatever the length (a cast to VARCHAR(n) would cut
// them), times of any precision are kept in milliseconds, NULL is NULL.
func convert(e expr.Expr, t types.T, fn string) expr.Expr {
	from := e.Type()
	if !from.IsNumeric() || !t.IsNumeric() || types.SameIgnoringNull(from, t) {
		return e
	}
	return &expr.Call{Fn: fn, Args: []expr.Expr{e}, T: t.WithNullable(from.Nullable || fn == "TRY_CAST"), S: e.Span()}
}

// convertColumns puts a projection above n that converts its columns to
// the types of cols (n's own columns widened, as a UNION's), or returns n
// when none needs converting.
func convertColumns(n logical.Node, cols []logical.Column) logical.Node {
	in := n.Columns()
	exprs := make([]expr.Expr, len(in))
	out := make([]logical.Column, len(in))
	changed := false
	for i, c := range in {
		col := &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: n.Span()}
		exprs[i], out[i] = convert(col, cols[i].Type, "CAST"), c
		if exprs[i] != expr.Expr(col) {
			changed = true
			out[i].Type, out[i].Time = exprs[i].Type(), expr.NoTime
		}
	}
	if !changed {
		return n
	}
	return &logical.Project{Input: n, Exprs: exprs, Cols: out, S: n.Span()}
}
