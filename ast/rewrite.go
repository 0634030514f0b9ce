package ast

import "fmt"

// Rewrite returns e with f applied bottom-up to every sub-expression and
// then to e itself: f returns its argument unchanged or its replacement.
// Nodes above a replaced one are copied; e itself is never modified.
// Subqueries and OVER windows are left as they are.
func Rewrite(e Expr, f func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	kids := Children(e)
	changed := false
	out := make([]Expr, len(kids))
	for i, k := range kids {
		out[i] = Rewrite(k, f)
		changed = changed || out[i] != k
	}
	if changed {
		e = withChildren(e, out)
	}
	return f(e)
}

// withChildren returns a copy of e with its children (in Children's order)
// replaced.
func withChildren(e Expr, kids []Expr) Expr {
	switch e := e.(type) {
	case *Unary:
		c := *e
		c.X = kids[0]
		return &c
	case *Binary:
		c := *e
		c.L, c.R = kids[0], kids[1]
		return &c
	case *Between:
		c := *e
		c.X, c.Lo, c.Hi = kids[0], kids[1], kids[2]
		return &c
	case *IsNull:
		c := *e
		c.X = kids[0]
		return &c
	case *IsBool:
		c := *e
		c.X = kids[0]
		return &c
	case *In:
		c := *e
		c.X, c.List = kids[0], kids[1:]
		return &c
	case *Like:
		c := *e
		c.X, c.Pattern = kids[0], kids[1]
		return &c
	case *FuncCall:
		c := *e
		if e.Filter != nil {
			c.Args, c.Filter = kids[:len(kids)-1], kids[len(kids)-1]
		} else {
			c.Args = kids
		}
		return &c
	case *Cast:
		c := *e
		c.X = kids[0]
		return &c
	case *JSONConstruct:
		c := *e
		c.Keys, c.Values = kids[:len(e.Keys)], kids[len(e.Keys):]
		return &c
	case *JSONCall:
		c := *e
		c.JSON, c.Path = kids[0], kids[1]
		i := 2
		if e.EmptyDefault != nil {
			c.EmptyDefault = kids[i]
			i++
		}
		if e.ErrorDefault != nil {
			c.ErrorDefault = kids[i]
		}
		return &c
	case *Case:
		c := *e
		i := 0
		if e.Operand != nil {
			c.Operand = kids[0]
			i++
		}
		c.Whens = make([]*When, len(e.Whens))
		for j, w := range e.Whens {
			nw := *w
			nw.Cond, nw.Result = kids[i], kids[i+1]
			i += 2
			c.Whens[j] = &nw
		}
		if e.Else != nil {
			c.Else = kids[i]
		}
		return &c
	case *Paren:
		c := *e
		c.X = kids[0]
		return &c
	case *Index:
		c := *e
		c.X, c.Index = kids[0], kids[1]
		return &c
	case *Constructor:
		c := *e
		c.Args = kids
		return &c
	}
	panic(fmt.Sprintf("ast.Rewrite: unexpected expression %T", e))
}
