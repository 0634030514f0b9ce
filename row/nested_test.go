package row

import (
	"math"
	"math/rand"
	"testing"
)

// randValue is a value of any kind, nested lists included (depth bounded).
func randValue(r *rand.Rand, depth int) Value {
	switch r.Intn(5) {
	case 0:
		return NullValue
	case 1:
		return IntValue([]int64{0, 1, -1, math.MinInt64, math.MaxInt64, r.Int63() - r.Int63()}[r.Intn(6)])
	case 2:
		return FloatValue([]float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), r.NormFloat64()}[r.Intn(5)])
	case 3:
		b := make([]byte, r.Intn(4))
		r.Read(b)
		return StrValue(string(b))
	}
	if depth == 0 {
		return StrValue("")
	}
	return ListValue(randList(r, depth-1))
}

func randList(r *rand.Rand, depth int) []Value {
	vals := make([]Value, r.Intn(5))
	for i := range vals {
		vals[i] = randValue(r, depth)
	}
	return vals
}

// TestListRoundTrip: a list decodes to the values it was encoded from, bit
// for bit (NaN payloads and -0.0 included), and ListAt and ListLen agree
// with the decoded slice.
func TestListRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 5000; n++ {
		vals := randList(r, 2)
		s := ListValue(vals).Str()
		got, err := DecodeList(nil, s)
		if err != nil {
			t.Fatalf("DecodeList(%v): %v", vals, err)
		}
		if len(got) != len(vals) {
			t.Fatalf("DecodeList(%v) = %v", vals, got)
		}
		for i := range vals {
			if !got[i].Equal(vals[i]) {
				t.Fatalf("DecodeList(%v)[%d] = %v", vals, i, got[i])
			}
			at, ok, err := ListAt(s, i)
			if err != nil || !ok || !at.Equal(vals[i]) {
				t.Fatalf("ListAt(%v, %d) = %v, %v, %v", vals, i, at, ok, err)
			}
		}
		if _, ok, err := ListAt(s, len(vals)); ok || err != nil {
			t.Fatalf("ListAt past the end of %v: ok %v, err %v", vals, ok, err)
		}
		if l, err := ListLen(s); err != nil || l != len(vals) {
			t.Fatalf("ListLen(%v) = %d, %v", vals, l, err)
		}
	}
}

// TestMapCanonical: maps built from the same entries in any order, with a
// duplicated key's last value winning, encode alike; MapGet finds each
// key's value as a plain map (the reference) has it.
func TestMapCanonical(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := 0; n < 2000; n++ {
		m := map[int64]Value{}
		var keys, vals []Value
		for i := r.Intn(6); i > 0; i-- {
			k := int64(r.Intn(4))
			v := randValue(r, 1)
			m[k] = v
			keys, vals = append(keys, IntValue(k)), append(vals, v)
		}
		a := MapValue(keys, vals).Str()
		// The same final entries, each given once, reversed.
		var k2, v2 []Value
		for k, v := range m {
			k2, v2 = append([]Value{IntValue(k)}, k2...), append([]Value{v}, v2...)
		}
		if b := MapValue(k2, v2).Str(); a != b {
			t.Fatalf("maps of the same entries encode differently: %v=%v vs %v=%v", keys, vals, k2, v2)
		}
		if l, err := ListLen(a); err != nil || l != len(m) {
			t.Fatalf("ListLen = %d, %v; want %d", l, err, len(m))
		}
		for k := int64(0); k < 4; k++ {
			got, ok, err := MapGet(a, IntValue(k))
			want, wok := m[k]
			if err != nil || ok != wok || ok && !got.Equal(want) {
				t.Fatalf("MapGet(%d) = %v, %v, %v; want %v, %v", k, got, ok, err, want, wok)
			}
		}
		dk, dv, err := DecodeMap(nil, nil, a)
		if err != nil || len(dk) != len(m) || len(dv) != len(m) {
			t.Fatalf("DecodeMap: %v %v %v", dk, dv, err)
		}
		for i := 1; i < len(dk); i++ {
			if dk[i-1].Compare(dk[i]) >= 0 {
				t.Fatalf("keys not sorted: %v", dk)
			}
		}
	}
}

// FuzzDecodeList: arbitrary bytes (state damaged on disk) decode to values
// or to ErrCorrupt, never a panic; what decodes re-encodes to itself.
func FuzzDecodeList(f *testing.F) {
	f.Add(ListValue([]Value{IntValue(1), StrValue("ab"), NullValue, FloatValue(1.5)}).Str())
	f.Add("\x05\x03\xff\xff\xff\xff\x0f")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		vals, err := DecodeList(nil, s)
		_, _, _ = ListAt(s, 3)
		_, _, _ = MapGet(s, IntValue(1))
		_, _, _ = DecodeMap(nil, nil, s)
		if err != nil {
			return
		}
		if back := ListValue(vals).Str(); back != s {
			// Varints have one shortest form; a longer one decodes but is
			// not what the encoder writes, which is fine.
			if again, err := DecodeList(nil, back); err != nil || len(again) != len(vals) {
				t.Fatalf("re-encoding %q gave %q, which decodes to %v, %v", s, back, again, err)
			}
		}
	})
}
