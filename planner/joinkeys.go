package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// Equi-join keys are decided here, once, for every join: after pushdown
// has given each join its final condition, keys splits it into the
// equalities between the two inputs (the keys) and the rest (the
// residual). The join rules that come after (interval, temporal, window
// join) carry them over; EXPLAIN shows them; the runtime stores, looks up
// and partitions rows by the keys and evaluates the residual on each pair,
// deciding nothing itself.
//
// Both sides of a key are cast to the type they compare in
// (types.ComparisonType), so that a join keeps exactly the pairs WHERE
// l.x = r.y would: 1.5 in a DECIMAL(10, 1) joins 1.500 in a DECIMAL(10, 3),
// 5 in an INT joins 5.0 in a DOUBLE.

// keys sets the keys and residual of every regular join under n.
func (o *optimizer) keys(n logical.Node) logical.Node {
	n = mapChildren(n, o.keys)
	j, ok := n.(*logical.Join)
	if !ok {
		return n
	}
	var casts []string
	j = shallowCopy(j)
	j.Keys, j.Residual, casts = splitJoinCond(j.Cond, len(j.Left.Columns()), condCols(j))
	for _, c := range casts {
		o.fire("keys", j.Keyword, "%s", c)
	}
	return j
}

// splitJoinCond splits a join condition over left ++ right columns (the
// first nL are the left input's) into keys and the residual. A conjunct
// a = b or a IS NOT DISTINCT FROM b (a null-safe key) is a key when a
// reads only left columns and b only right ones, or the other way round. casts says, for each key whose sides were cast, what
// they compare as (for the rule firing), naming columns after cols.
func splitJoinCond(cond expr.Expr, nL int, cols []logical.Column) (keys []logical.JoinKey, residual expr.Expr, casts []string) {
	var rest []expr.Expr
	for _, c := range expr.Conjuncts(cond) {
		call, ok := c.(*expr.Call)
		if !ok || call.Fn != "=" && call.Fn != "IS NOT DISTINCT FROM" || len(call.Args) != 2 {
			rest = append(rest, c)
			continue
		}
		l, r := call.Args[0], call.Args[1]
		switch {
		case side(l, nL) == 1 && side(r, nL) == 2:
		case side(l, nL) == 2 && side(r, nL) == 1:
			l, r = r, l
		default:
			rest = append(rest, c)
			continue
		}
		t, ok := types.ComparisonType(l.Type(), r.Type())
		if !ok {
			// The binder refuses such comparisons; leave it to the
			// residual, which reports it if it ever gets here.
			rest = append(rest, c)
			continue
		}
		rs := shiftLeft(r, nL)
		k := logical.JoinKey{Left: keyCast(l, t), Right: keyCast(rs, t), NullSafe: call.Fn == "IS NOT DISTINCT FROM", S: c.Span()}
		if k.Left != l || k.Right != rs {
			casts = append(casts, fmt.Sprintf("%s (%s) and %s (%s) compare as %s, the type the join key is cast to",
				render(l, cols), l.Type().WithNullable(true), render(r, cols), r.Type().WithNullable(true), t.WithNullable(true)))
			if k.NullSafe {
				// A cast key may turn a value into NULL (TRY_CAST of a
				// number too large for the common DECIMAL), which would
				// match a NULL of the other side: the condition itself
				// stays in the residual and decides.
				rest = append(rest, c)
			}
		}
		keys = append(keys, k)
	}
	return keys, expr.And(rest...), casts
}

// keyCast converts one side of a key to the comparison type t (convert).
// A cast to DECIMAL is a TRY_CAST: a value too large for t at t's scale
// (a BIGINT near its limit against a DECIMAL(5, 2)) cannot equal any value
// of the other side, which does fit (t's scale is the larger of the two), so
// it must not fail the job; as NULL it joins nothing, as = says.
func keyCast(e expr.Expr, t types.T) expr.Expr {
	if t.Kind == types.Decimal {
		return convert(e, t, "TRY_CAST")
	}
	return convert(e, t, "CAST")
}

// keyColumn returns the column a key side reads when it is a plain column
// or a cast of one. exact is false for a cast that may map different values
// to one (an exact number to DOUBLE): such a key does not identify rows.
func keyColumn(e expr.Expr) (col *expr.Column, exact bool) {
	exact = true
	if c, ok := e.(*expr.Call); ok && (c.Fn == "CAST" || c.Fn == "TRY_CAST") && len(c.Args) == 1 {
		exact = !c.T.Kind.IsApproximate() || c.Args[0].Type().Kind.IsApproximate()
		e = c.Args[0]
	}
	col, ok := e.(*expr.Column)
	return col, ok && exact
}

// joinCond is a join's condition as the runtime evaluates it: the keys'
// equalities, then the residual, over the join's columns (nL of them the
// left input's).
func joinCond(keys []logical.JoinKey, residual expr.Expr, nL int) expr.Expr {
	var cs []expr.Expr
	for _, k := range keys {
		r := expr.Remap(k.Right, func(i int) int { return i + nL })
		if k.NullSafe {
			cs = append(cs, &expr.Call{Fn: "IS NOT DISTINCT FROM", Args: []expr.Expr{k.Left, r}, T: types.New(types.Boolean).NotNull(), S: k.S})
			continue
		}
		cs = append(cs, &expr.Call{Fn: "=", Args: []expr.Expr{k.Left, r}, T: types.New(types.Boolean), S: k.S})
	}
	return expr.And(append(cs, residual)...)
}
