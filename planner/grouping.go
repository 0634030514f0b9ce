package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/types"
)

// GROUP BY GROUPING SETS (...), ROLLUP (...) and CUBE (...), as Flink
// plans them: an Expand feeding one aggregate. Expand is a union of one
// projection of the query's input per grouping set: the input's columns,
// then each grouping expression (NULL where the set leaves it out), then
// the set's number and the value of each GROUPING()/GROUPING_ID() call for
// that set. The aggregate groups by the expressions, the set's number (so
// that a set's NULL group and another set's rolled-up NULL stay apart, and
// a set named twice gives its rows twice, as in PostgreSQL) and the
// GROUPING calls; its aggregates read the input's columns, which every
// branch passes through unchanged. The input (FROM and WHERE) is bound
// once per set: each branch is its own subtree, and the job still reads
// each table once.

// maxGroupingSets bounds the cross product (CUBE of 12 is 4096 sets).
const maxGroupingSets = 4096

// groupingPlan is the grouping sets of a query: the distinct grouping
// expressions and, per set, the indexes of those it groups by.
type groupingPlan struct {
	keys []ast.Expr
	sets [][]int
}

// groupingSets expands q's GROUP BY into its grouping sets, or returns nil
// after an error.
func (b *binder) groupingSets(q *ast.Select) *groupingPlan {
	g := &groupingPlan{}
	index := func(e ast.Expr) int {
		text := ast.Format(e)
		for i, k := range g.keys {
			if ast.Format(k) == text {
				return i
			}
		}
		g.keys = append(g.keys, e)
		return len(g.keys) - 1
	}
	var base []int
	for _, e := range q.GroupBy {
		base = append(base, index(e))
	}
	sets := [][]int{base}
	for _, gs := range q.Grouping {
		var own [][]int // this item's sets
		switch gs.Kind {
		case "GROUPING SETS":
			for _, set := range gs.Sets {
				var s []int
				for _, e := range set {
					s = append(s, index(e))
				}
				own = append(own, s)
			}
		case "ROLLUP":
			var all []int
			for _, e := range gs.Exprs {
				all = append(all, index(e))
			}
			for n := len(all); n >= 0; n-- {
				own = append(own, slices.Clone(all[:n]))
			}
		case "CUBE":
			var all []int
			for _, e := range gs.Exprs {
				all = append(all, index(e))
			}
			if len(all) > 12 {
				b.errorf(diag.UnsupportedFeature, gs.S, "CUBE of %d expressions makes %d grouping sets; at most 12 expressions are supported", len(all), 1<<len(all))
				return nil
			}
			for mask := (1 << len(all)) - 1; mask >= 0; mask-- {
				var s []int
				for i, k := range all {
					if mask&(1<<(len(all)-1-i)) != 0 {
						s = append(s, k)
					}
				}
				own = append(own, s)
			}
		}
		var next [][]int
		for _, a := range sets {
			for _, o := range own {
				next = append(next, append(slices.Clone(a), o...))
			}
		}
		if len(next) > maxGroupingSets {
			b.errorf(diag.UnsupportedFeature, gs.S, "the GROUP BY makes %d grouping sets; at most %d are supported", len(next), maxGroupingSets)
			return nil
		}
		sets = next
	}
	g.sets = sets
	return g
}

// groupingCall is a GROUPING(...) or GROUPING_ID(...) of the select list
// or HAVING: the grouping expressions it names, by index.
type groupingCall struct {
	text string
	args []int
}

// value is the call's value for a grouping set: a bit per argument, the
// first the most significant, set where the set leaves the argument out
// (Flink's GROUPING and GROUPING_ID, PostgreSQL's GROUPING).
func (c groupingCall) value(set []int) int64 {
	var v int64
	for _, a := range c.args {
		v <<= 1
		if !slices.Contains(set, a) {
			v |= 1
		}
	}
	return v
}

// isGroupingFn reports whether name is GROUPING or GROUPING_ID.
func isGroupingFn(name string) bool {
	n := strings.ToUpper(name)
	return n == "GROUPING" || n == "GROUPING_ID"
}

// groupingCalls finds the GROUPING and GROUPING_ID calls of q's select list
// and HAVING, each once, with their arguments as GROUP BY keys (keyOf: the
// key an argument is, -1 if none); ok is false after an error.
func (b *binder) groupingCalls(q *ast.Select, keyOf func(ast.Expr) int) (calls []groupingCall, ok bool) {
	ok = true
	seen := map[string]bool{}
	visit := func(e ast.Expr) bool {
		fc, isCall := e.(*ast.FuncCall)
		if !isCall || fc.Over != nil || !isGroupingFn(fc.Name.Name) {
			return true
		}
		text := ast.Format(fc)
		if seen[text] {
			return false
		}
		seen[text] = true
		if len(fc.Args) == 0 || fc.Star || fc.Distinct {
			b.errorf(diag.WrongArguments, fc.S, "%s takes one or more grouping expressions, as in GROUPING(a)", strings.ToUpper(fc.Name.Name))
			ok = false
			return false
		}
		c := groupingCall{text: text}
		for _, a := range fc.Args {
			i := keyOf(a)
			if i < 0 {
				b.errorf(diag.AggregateMisuse, a.Span(), "%s(%s): %s is not an expression of the GROUP BY", strings.ToUpper(fc.Name.Name), ast.Format(a), ast.Format(a))
				ok = false
				return false
			}
			c.args = append(c.args, i)
		}
		calls = append(calls, c)
		return false
	}
	for _, f := range q.Fields {
		if f.Expr != nil {
			ast.Inspect(f.Expr, visit)
		}
	}
	if q.Having != nil {
		ast.Inspect(q.Having, visit)
	}
	return calls, ok
}

// expand makes the Expand of a grouping-sets aggregate: the union of one
// projection of the input per set (rebind binds the input again for every
// set after the first). keys are the grouping expressions bound over the
// input; calls the GROUPING calls. The result's columns are the input's,
// the keys (nullable), $set and the calls' values.
func (b *binder) expand(g *groupingPlan, node logical.Node, rebind func() logical.Node, keys []expr.Expr, calls []groupingCall, s diag.Span) logical.Node {
	bigint := types.New(types.BigInt).NotNull()
	in := node.Columns()
	var ucols []logical.Column
	for _, c := range in {
		c.Time = expr.NoTime
		ucols = append(ucols, c)
	}
	for i, k := range keys {
		ucols = append(ucols, logical.Column{Name: fmt.Sprintf("$key%d", i), Type: k.Type().WithNullable(true)})
	}
	ucols = append(ucols, logical.Column{Name: "$set", Type: bigint})
	for i := range calls {
		ucols = append(ucols, logical.Column{Name: fmt.Sprintf("$grouping%d", i), Type: bigint})
	}
	u := &logical.Union{Cols: ucols, S: s}
	for si, set := range g.sets {
		n := node
		if si > 0 {
			if n = rebind(); n == nil {
				return nil
			}
		}
		p := &logical.Project{Input: n, S: s, Cols: ucols}
		for i, c := range in {
			p.Exprs = append(p.Exprs, &expr.Column{Index: i, Name: c.Name, T: c.Type, Time: c.Time, S: s})
		}
		for i, k := range keys {
			if slices.Contains(set, i) {
				p.Exprs = append(p.Exprs, k)
			} else {
				p.Exprs = append(p.Exprs, &expr.Const{T: ucols[len(in)+i].Type, S: s})
			}
		}
		p.Exprs = append(p.Exprs, &expr.Const{V: int64(si), T: bigint, S: s})
		for _, c := range calls {
			p.Exprs = append(p.Exprs, &expr.Const{V: c.value(set), T: bigint, S: s})
		}
		u.Inputs = append(u.Inputs, p)
	}
	return u
}
