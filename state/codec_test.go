package state

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/row"
)

func sameVals(a, b []row.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

func TestValuesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][]row.Value{
		nil,
		{row.NullValue},
		{row.IntValue(0), row.IntValue(math.MinInt64), row.IntValue(math.MaxInt64)},
		{row.FloatValue(math.NaN()), row.FloatValue(math.Inf(-1)), row.FloatValue(math.Copysign(0, -1)), row.FloatValue(1.5)},
		{row.StrValue(""), row.StrValue("héllo"), row.StrValue(string([]byte{0, 255}))},
	}
	for i := 0; i < 500; i++ {
		cases = append(cases, randVals(rng))
	}
	var dst []row.Value
	for _, vals := range cases {
		b := AppendValues([]byte{0xAA}, vals)[1:]
		got, n, err := DecodeValues(dst, append(b, 0x77))
		if err != nil || n != len(b) || !sameVals(got, vals) {
			t.Fatalf("%v: got %v n=%d/%d err=%v", vals, got, n, len(b), err)
		}
		got2, n2, err := DecodeValuesNoCopy(nil, b)
		if err != nil || n2 != len(b) || !sameVals(got2, vals) {
			t.Fatalf("NoCopy %v: got %v err=%v", vals, got2, err)
		}
		dst = got
	}
	// Decoded strings do not alias the input.
	b := AppendValues(nil, []row.Value{row.StrValue("abc"), row.StrValue("de")})
	got, _, _ := DecodeValues(nil, b)
	for i := range b {
		b[i] = 'x'
	}
	if got[0].Str() != "abc" || got[1].Str() != "de" {
		t.Fatalf("decoded strings alias the input: %v", got)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var r2 Record
	for i := 0; i < 1000; i++ {
		r := Record{Vals: randVals(rng), Expiry: NoExpiry}
		if rng.IntN(2) == 0 {
			r.Expiry = int64(rng.Uint64())
		}
		if rng.IntN(2) == 0 {
			r.Count = rng.Int64N(10) - 3
		}
		if rng.IntN(2) == 0 {
			r.Matches = int64(rng.Uint64())
		}
		if rng.IntN(2) == 0 {
			r.Time = int64(rng.Uint64())
		}
		if rng.IntN(2) == 0 {
			r.Flags = rng.Uint32()
		}
		b := AppendRecord(nil, &r)
		n, err := DecodeRecord(b, &r2)
		if err != nil || n != len(b) || !sameRecord(&r, &r2) {
			t.Fatalf("%s: got %s n=%d/%d err=%v", fmtRec(&r), fmtRec(&r2), n, len(b), err)
		}
	}
	if n := len(AppendRecord(nil, &Record{Vals: []row.Value{row.IntValue(5)}, Expiry: NoExpiry})); n != 4 {
		t.Errorf("a plain one-int record takes %d bytes, want 4", n)
	}
}

func TestDecodeAllocations(t *testing.T) {
	vals := []row.Value{row.IntValue(1), row.FloatValue(2), row.NullValue, row.IntValue(-7)}
	b := AppendValues(nil, vals)
	dst := make([]row.Value, 0, 8)
	if a := testing.AllocsPerRun(100, func() { dst, _, _ = DecodeValues(dst, b) }); a != 0 {
		t.Errorf("DecodeValues of a row without strings: %v allocations, want 0", a)
	}
	sb := AppendValues(nil, []row.Value{row.StrValue("abc"), row.StrValue("defg"), row.IntValue(3)})
	if a := testing.AllocsPerRun(100, func() { dst, _, _ = DecodeValues(dst, sb) }); a != 1 {
		t.Errorf("DecodeValues of a row with strings: %v allocations, want 1", a)
	}
	if a := testing.AllocsPerRun(100, func() { dst, _, _ = DecodeValuesNoCopy(dst, sb) }); a != 0 {
		t.Errorf("DecodeValuesNoCopy: %v allocations, want 0", a)
	}
	var r Record
	rb := AppendRecord(nil, &Record{Vals: vals, Count: 3, Expiry: 99})
	r.Vals = make([]row.Value, 0, 8)
	if a := testing.AllocsPerRun(100, func() { _, _ = DecodeRecord(rb, &r) }); a != 0 {
		t.Errorf("DecodeRecord: %v allocations, want 0", a)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(AppendValues(nil, []row.Value{row.IntValue(1), row.StrValue("x"), row.FloatValue(1), row.NullValue}))
	f.Add(AppendRecord(nil, &Record{Vals: []row.Value{row.StrValue("abc")}, Count: 2, Expiry: 5, Flags: 1}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{3, 3, 0x80})
	tab := &Table{}
	mapTab := &Table{codec: &anyCodec{decode: func(b []byte) (any, error) { return string(b), nil }}}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Garbage must give errors, never panics: the results are not used.
		_, _, _ = DecodeValues(nil, b)
		_, _, _ = DecodeValuesNoCopy(make([]row.Value, 0, 4), b)
		var r Record
		_, _ = DecodeRecord(b, &r)
		_, _ = DecodeHeader(b, &r)
		_, _, _ = tab.decodeEntry(b)
		_, _, _ = mapTab.decodeEntry(b)
		_, _, _ = scanEntry(b)
		// What decodes re-encodes to the same bytes prefix.
		if vals, n, err := DecodeValues(nil, b); err == nil {
			if again := AppendValues(nil, vals); len(again) > n {
				t.Fatalf("re-encoding %x gave %x", b[:n], again)
			}
		}
	})
}
