package types

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/diag"
)

func nestedTN(name string, elems ...*ast.TypeName) *ast.TypeName {
	t := tn(name)
	t.Elems = elems
	return t
}

func rowTN(fields ...any) *ast.TypeName {
	t := tn("ROW")
	for i := 0; i < len(fields); i += 2 {
		t.FieldNames = append(t.FieldNames, &ast.Ident{Loc: ast.Loc{S: typeSpan}, Name: fields[i].(string)})
		t.Elems = append(t.Elems, fields[i+1].(*ast.TypeName))
	}
	return t
}

func notNull(t *ast.TypeName) *ast.TypeName { t.NotNull = true; return t }

func TestFromASTNested(t *testing.T) {
	tests := []struct {
		in   *ast.TypeName
		want string
	}{
		{nestedTN("ARRAY", tn("INT")), "ARRAY<INT>"},
		{nestedTN("ARRAY", notNull(tn("STRING"))), "ARRAY<STRING NOT NULL>"},
		{notNull(nestedTN("ARRAY", tn("INT"))), "ARRAY<INT> NOT NULL"},
		{nestedTN("MAP", tn("STRING"), nestedTN("ARRAY", tn("DECIMAL", 10, 2))), "MAP<STRING, ARRAY<DECIMAL(10, 2)>>"},
		{rowTN("city", tn("STRING"), "zip code", tn("INT")), "ROW<`city` STRING, `zip code` INT>"},
		{nestedTN("ARRAY", rowTN("a`b", tn("TIMESTAMP", 3))), "ARRAY<ROW<`a``b` TIMESTAMP(3)>>"},
	}
	for _, tt := range tests {
		var l diag.List
		got, ok := FromAST(tt.in, &l)
		if !ok || len(l.Items) != 0 {
			t.Fatalf("FromAST(%s): %v", tt.in, l.Err())
		}
		if got.String() != tt.want {
			t.Errorf("FromAST(%s) = %s, want %s", tt.in, got, tt.want)
		}
		// Interning: converting again gives an == type.
		again, _ := FromAST(tt.in, &l)
		if again != got {
			t.Errorf("FromAST(%s) twice gives two types that are not ==", tt.in)
		}
	}
	var l diag.List
	if _, ok := FromAST(rowTN("a", tn("INT"), "a", tn("STRING")), &l); ok || !strings.Contains(l.Err().Error(), "field a appears twice") {
		t.Errorf("a ROW with a repeated field: %v", l.Err())
	}
	l = diag.List{}
	if _, ok := FromAST(nestedTN("ARRAY", tn("TIMESTAMP", 12)), &l); ok || !strings.Contains(l.Err().Error(), "precision must be between 0 and 9") {
		t.Errorf("an element type's error is reported: %v", l.Err())
	}
}

func TestNestedAccessors(t *testing.T) {
	r := RowOf(Field{"a", New(Int)}, Field{"B", StringType().NotNull()})
	if r.NumFields() != 2 || r.FieldIndex("B") != 1 || r.FieldIndex("b") != -1 || r.FieldIndexFold("b") != 1 {
		t.Errorf("field lookup on %s", r)
	}
	if fs := r.Fields(); fs[1].Name != "B" || fs[1].Type != StringType().NotNull() {
		t.Errorf("Fields() = %v", fs)
	}
	m := MapOf(StringType(), ArrayOf(New(BigInt)))
	if m.Key() != StringType() || m.Value() != ArrayOf(New(BigInt)) || m.Elem() != (T{}) {
		t.Errorf("accessors of %s", m)
	}
	if ArrayOf(New(Int)) == ArrayOf(New(Int).NotNull()) {
		t.Error("element nullability is part of the type")
	}
}

func TestNestedRules(t *testing.T) {
	ai, ain := ArrayOf(New(Int)), ArrayOf(New(Int).NotNull())
	ab := ArrayOf(New(BigInt))
	r1 := RowOf(Field{"a", New(Int)}, Field{"b", StringType()})
	r2 := RowOf(Field{"x", New(Int).NotNull()}, Field{"y", StringType()})
	r3 := RowOf(Field{"a", New(Int)})
	for _, c := range []struct {
		a, b       T
		comparable bool
	}{
		{ai, ain, true}, {ai, ab, false}, {r1, r2, true}, {r1, r3, false}, {ai, New(Int), false},
		{ai, New(Null), true}, {MapOf(StringType(), ai), MapOf(StringType(), ain), true}, {ai, MapOf(New(Int), New(Int)), false},
	} {
		if got := Comparable(c.a, c.b); got != c.comparable {
			t.Errorf("Comparable(%s, %s) = %v", c.a, c.b, got)
		}
		if Orderable(c.a, c.b) && (c.a.IsNested() || c.b.IsNested()) {
			t.Errorf("Orderable(%s, %s): nested values have no order", c.a, c.b)
		}
	}
	if ct, ok := CommonType(ain, ai.NotNull()); !ok || ct != ai {
		t.Errorf("CommonType(%s, %s) = %s, %v; want %s", ain, ai.NotNull(), ct, ok, ai)
	}
	if _, ok := CommonType(ai, ab); ok {
		t.Errorf("CommonType(%s, %s): elements of different types have none (their values are encoded differently)", ai, ab)
	}
	for _, c := range []struct {
		from, to T
		ok       bool
	}{
		{ai, StringType(), true}, {StringType(), ai, false}, {ai, ab, true}, {ai, ArrayOf(StringType()), true},
		{r1, r2, true}, {r1, r3, false}, {MapOf(StringType(), New(Int)), MapOf(New(Int), New(Int)), true},
		{ArrayOf(New(Date)), ArrayOf(New(Int)), false}, {ai, MapOf(New(Int), New(Int)), false}, {New(Null), ai, true},
	} {
		if got := CanCast(c.from, c.to); got != c.ok {
			t.Errorf("CanCast(%s, %s) = %v", c.from, c.to, got)
		}
	}
	if !ImplicitCast(ain, ai) || !ImplicitCast(ai, ab) || ImplicitCast(ab, ai) || !ImplicitCast(r1, r2) || ImplicitCast(r1, r3) {
		t.Error("ImplicitCast between nested types goes element by element")
	}
}
