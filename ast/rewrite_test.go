package ast

import "testing"

// TestRewriteEveryKind: Rewrite can replace a child of every expression
// kind that Children lists (a kind it missed panicked on user SQL:
// TUMBLE_START inside ARRAY[...] under a legacy group window).
func TestRewriteEveryKind(t *testing.T) {
	col := func() Expr { return &ColumnRef{Name: &Ident{Name: "a"}} }
	one := &Literal{Kind: IntLit, Raw: "1"}
	exprs := []Expr{
		&Unary{Op: "-", X: col()},
		&Binary{Op: "+", L: col(), R: col()},
		&Between{X: col(), Lo: col(), Hi: col()},
		&IsNull{X: col()},
		&In{X: col(), List: []Expr{col()}},
		&Like{X: col(), Pattern: col()},
		&FuncCall{Name: &Ident{Name: "F"}, Args: []Expr{col()}},
		&Cast{X: col(), Type: &TypeName{Name: "INT"}},
		&Index{X: col(), Index: col()},
		&Constructor{Kind: "ARRAY", Args: []Expr{col(), col()}},
		&Case{Whens: []*When{{Cond: col(), Result: col()}}, Else: col()},
		&Paren{X: col()},
	}
	for _, e := range exprs {
		got := Rewrite(e, func(x Expr) Expr {
			if _, ok := x.(*ColumnRef); ok {
				return one
			}
			return x
		})
		for _, k := range Children(got) {
			if _, ok := k.(*ColumnRef); ok {
				t.Errorf("%T: a child was not replaced: %s", e, Format(got))
			}
		}
		if got == e {
			t.Errorf("%T: not copied", e)
		}
	}
}
