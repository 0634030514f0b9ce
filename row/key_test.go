package row

import (
	"bytes"
	"math"
	"testing"
)

// sqlSame is the reference AppendKey must agree with: SQL's = on values of
// one kind (a float's NaN equal to every NaN, as PostgreSQL compares
// them), NULL the same as NULL.
func sqlSame(a, b Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case Int:
		return a.Int() == b.Int()
	case Float:
		x, y := a.Float(), b.Float()
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	case Str:
		return a.Str() == b.Str()
	case Null:
	}
	return true
}

// TestAppendKeyIsSQLEquality: every pair of keys of two values from a pool
// with the awkward cases (-0.0 and 0.0, NaNs of different bits, strings
// that are prefixes of each other, NULL) encodes alike exactly when the
// reference says each value is the same.
func TestAppendKeyIsSQLEquality(t *testing.T) {
	pool := []Value{
		NullValue, IntValue(0), IntValue(1), IntValue(-1), IntValue(math.MinInt64),
		FloatValue(0), FloatValue(math.Copysign(0, -1)), FloatValue(1.5), FloatValue(math.Inf(-1)),
		FloatValue(math.NaN()), FloatValue(math.Float64frombits(0x7ff8000000000001)), FloatValue(math.Float64frombits(0xfff8000000000000)),
		StrValue(""), StrValue("a"), StrValue("ab"), StrValue("b"), StrValue("\x00"),
	}
	same := 0
	for _, a1 := range pool {
		for _, a2 := range pool {
			ka := AppendKey(nil, a1, a2)
			for _, b1 := range pool {
				for _, b2 := range pool {
					want := sqlSame(a1, b1) && sqlSame(a2, b2)
					if got := bytes.Equal(ka, AppendKey(nil, b1, b2)); got != want {
						t.Fatalf("keys (%v, %v) and (%v, %v): encoded alike %v, want %v", a1, a2, b1, b2, got, want)
					}
					if want {
						same++
					}
				}
			}
		}
	}
	// -0.0 and 0.0, and the three NaNs, are the only values alike but not
	// identical: 12 values alike only to themselves, a class of 2 and one
	// of 3; a class of n gives n*n alike pairs.
	if perValue := 12 + 2*2 + 3*3; same != perValue*perValue {
		t.Errorf("%d pairs of keys alike, want %d", same, perValue*perValue)
	}
}
