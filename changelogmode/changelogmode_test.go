package changelogmode

import (
	"slices"
	"strings"
	"testing"
)

func TestKindString(t *testing.T) {
	for _, tc := range []struct {
		k    Kind
		want string
	}{
		{Insert, "+I"},
		{UpdateBefore, "-U"},
		{UpdateAfter, "+U"},
		{Delete, "-D"},
		{Kind(4), "Kind(4)"},
		{Kind(255), "Kind(255)"},
	} {
		if got := tc.k.String(); got != tc.want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(tc.k), got, tc.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Kind
		wantErr bool
	}{
		{in: "+I", want: Insert},
		{in: "-U", want: UpdateBefore},
		{in: "+U", want: UpdateAfter},
		{in: "-D", want: Delete},
		{in: " -D ", want: Delete},
		{in: "", wantErr: true},
		{in: "I", wantErr: true},
		{in: "+i", wantErr: true},
		{in: "-I", wantErr: true},
		{in: "+D", wantErr: true},
		{in: "UB", wantErr: true},
		{in: "+I,", wantErr: true},
	} {
		got, err := ParseKind(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseKind(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
		}
	}
}

func TestKindRoundTrip(t *testing.T) {
	for k := Kind(0); k < numKinds; k++ {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", k.String(), got, err, k)
		}
	}
}

func TestNamedModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Mode
		want Mode
		str  string
	}{
		{"InsertOnly", InsertOnly, Of(Insert), "[+I]"},
		{"Upsert", Upsert, Of(Insert, UpdateAfter, Delete), "[+I,+U,-D]"},
		{"All", All, Of(Insert, UpdateBefore, UpdateAfter, Delete), "[+I,-U,+U,-D]"},
	} {
		if tc.m != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.m, tc.want)
		}
		if got := tc.m.String(); got != tc.str {
			t.Errorf("%s.String() = %q, want %q", tc.name, got, tc.str)
		}
	}
	if Upsert.Has(UpdateBefore) {
		t.Error("Upsert must not contain -U")
	}
}

func TestModeString(t *testing.T) {
	for _, tc := range []struct {
		m    Mode
		want string
	}{
		{Mode(0), "[]"},
		{Of(Delete), "[-D]"},
		// Order is fixed regardless of the order given to Of.
		{Of(Delete, UpdateAfter, UpdateBefore, Insert), "[+I,-U,+U,-D]"},
		{Of(UpdateAfter, Insert), "[+I,+U]"},
		{Of(Delete, Insert, Delete), "[+I,-D]"},
		{Of(UpdateBefore, UpdateAfter), "[-U,+U]"},
		// Stray bits are shown, not hidden.
		{Mode(0x10), "Mode(0x10)"},
		{All | Mode(0x80), "Mode(0x8f)"},
	} {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("Mode(%#x).String() = %q, want %q", uint8(tc.m), got, tc.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Mode
		wantErr string // substring of the error; empty means no error
	}{
		{in: "[]", want: 0},
		{in: " [ ] ", want: 0},
		{in: "[+I]", want: InsertOnly},
		{in: "[+I,+U,-D]", want: Upsert},
		{in: "[+I,-U,+U,-D]", want: All},
		{in: "[ +I , -D ]", want: Of(Insert, Delete)},
		{in: "[-D,+I]", want: Of(Insert, Delete)},
		{in: "", wantErr: "bracketed"},
		{in: "+I", wantErr: "bracketed"},
		{in: "[+I", wantErr: "bracketed"},
		{in: "+I]", wantErr: "bracketed"},
		{in: "[", wantErr: "bracketed"},
		{in: "[+I,+I]", wantErr: "twice"},
		{in: "[+I,]", wantErr: `unknown change kind ""`},
		{in: "[,]", wantErr: "unknown change kind"},
		{in: "[+I;+U]", wantErr: `unknown change kind "+I;+U"`},
		{in: "[I,UB,UA,D]", wantErr: `unknown change kind "I"`},
	} {
		got, err := ParseMode(tc.in)
		if tc.wantErr != "" {
			if err == nil {
				t.Errorf("ParseMode(%q) = %v, want error containing %q", tc.in, got, tc.wantErr)
			} else if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseMode(%q) error = %q, want it to contain %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
		}
	}
}

// Every one of the 16 modes round-trips through String and ParseMode.
func TestModeRoundTrip(t *testing.T) {
	for m := Mode(0); m <= All; m++ {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
}

func TestHas(t *testing.T) {
	for _, tc := range []struct {
		m    Mode
		k    Kind
		want bool
	}{
		{InsertOnly, Insert, true},
		{InsertOnly, Delete, false},
		{Upsert, UpdateAfter, true},
		{Upsert, UpdateBefore, false},
		{All, UpdateBefore, true},
		{Mode(0), Insert, false},
		{All, Kind(4), false},
		{Mode(0xff), Kind(7), false},
	} {
		if got := tc.m.Has(tc.k); got != tc.want {
			t.Errorf("%v.Has(%v) = %v, want %v", tc.m, tc.k, got, tc.want)
		}
	}
}

func TestOfPanicsOnInvalidKind(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Of(Kind(4)) did not panic")
		}
	}()
	_ = Of(Insert, Kind(4))
}

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		m, other Mode
		want     bool
	}{
		{All, Upsert, true},
		{All, InsertOnly, true},
		{Upsert, InsertOnly, true},
		{Upsert, All, false}, // an upsert sink cannot take -U
		{InsertOnly, Upsert, false},
		{InsertOnly, Of(Insert, Delete), false}, // the LEFT JOIN into an append-only table
		{InsertOnly, InsertOnly, true},
		{InsertOnly, Mode(0), true},
		{Mode(0), Mode(0), true},
		{Mode(0), InsertOnly, false},
		{Of(UpdateBefore), Of(UpdateAfter), false},
	} {
		if got := tc.m.Contains(tc.other); got != tc.want {
			t.Errorf("%v.Contains(%v) = %v, want %v", tc.m, tc.other, got, tc.want)
		}
	}
}

func TestUnionMinus(t *testing.T) {
	for _, tc := range []struct {
		a, b         Mode
		union, minus Mode
	}{
		{InsertOnly, Of(Delete), Of(Insert, Delete), InsertOnly},
		{Upsert, Of(UpdateBefore), All, Upsert},
		{All, Upsert, All, Of(UpdateBefore)},
		{All, All, All, 0},
		{Upsert, All, All, 0},
		{Mode(0), Upsert, Upsert, 0},
		{Upsert, Mode(0), Upsert, Upsert},
		{Of(UpdateBefore, UpdateAfter), Of(UpdateAfter, Delete), Of(UpdateBefore, UpdateAfter, Delete), Of(UpdateBefore)},
	} {
		if got := tc.a.Union(tc.b); got != tc.union {
			t.Errorf("%v.Union(%v) = %v, want %v", tc.a, tc.b, got, tc.union)
		}
		if got := tc.a.Minus(tc.b); got != tc.minus {
			t.Errorf("%v.Minus(%v) = %v, want %v", tc.a, tc.b, got, tc.minus)
		}
	}
}

// Set-algebra laws over all 16 modes, checked against a per-kind reference.
func TestAlgebraLaws(t *testing.T) {
	for a := Mode(0); a <= All; a++ {
		for b := Mode(0); b <= All; b++ {
			u, d := a.Union(b), a.Minus(b)
			for k := Kind(0); k < numKinds; k++ {
				if u.Has(k) != (a.Has(k) || b.Has(k)) {
					t.Fatalf("%v.Union(%v) = %v: wrong for %v", a, b, u, k)
				}
				if d.Has(k) != (a.Has(k) && !b.Has(k)) {
					t.Fatalf("%v.Minus(%v) = %v: wrong for %v", a, b, d, k)
				}
			}
			wantContains := true
			for _, k := range b.Kinds() {
				wantContains = wantContains && a.Has(k)
			}
			if a.Contains(b) != wantContains {
				t.Fatalf("%v.Contains(%v) = %v, want %v", a, b, a.Contains(b), wantContains)
			}
			if !u.Contains(a) || !u.Contains(b) || !a.Contains(d) {
				t.Fatalf("union/minus bounds broken for %v, %v", a, b)
			}
		}
	}
}

func TestIsInsertOnly(t *testing.T) {
	for _, tc := range []struct {
		m    Mode
		want bool
	}{
		{InsertOnly, true},
		{Of(Insert), true},
		{Mode(0), false},
		{Upsert, false},
		{All, false},
		{Of(UpdateAfter), false},
		{Of(Insert, Delete), false},
	} {
		if got := tc.m.IsInsertOnly(); got != tc.want {
			t.Errorf("%v.IsInsertOnly() = %v, want %v", tc.m, got, tc.want)
		}
	}
	if !Mode(0).IsEmpty() || InsertOnly.IsEmpty() {
		t.Error("IsEmpty is wrong")
	}
}

func TestKinds(t *testing.T) {
	for _, tc := range []struct {
		m    Mode
		want []Kind
	}{
		{Mode(0), nil},
		{InsertOnly, []Kind{Insert}},
		{Upsert, []Kind{Insert, UpdateAfter, Delete}},
		{All, []Kind{Insert, UpdateBefore, UpdateAfter, Delete}},
		{Of(Delete, UpdateBefore), []Kind{UpdateBefore, Delete}},
	} {
		got := tc.m.Kinds()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v.Kinds() = %v, want %v", tc.m, got, tc.want)
		}
		if Of(got...) != tc.m {
			t.Errorf("Of(%v.Kinds()...) = %v, want %v", tc.m, Of(got...), tc.m)
		}
	}
}
