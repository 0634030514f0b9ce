package exec

import (
	"testing"

	"github.com/streamsql/streamsql/row"
)

// TestLagAccState checks LAG's accumulator against the values it was
// given (the value offset rows before the last one, or the default) and
// that its state, written and read back as a spilled or checkpointed group
// is, goes on giving the same results.
func TestLagAccState(t *testing.T) {
	for offset := 0; offset <= 3; offset++ {
		def := row.IntValue(-1)
		a := &lagAcc{offset: offset, def: def}
		var seen []row.Value
		for i := int64(0); i < 8; i++ {
			v := row.IntValue(i * 10)
			if i == 3 {
				v = row.NullValue // a NULL value is a value, not the default
			}
			if err := a.add(v, false); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, v)
			want := def
			if len(seen) > offset {
				want = seen[len(seen)-1-offset]
			}
			if got := a.result(); !sameValue(got, want) {
				t.Fatalf("offset %d, after %d values: got %v, want %v", offset, len(seen), got, want)
			}
			// Round trip through the state encoding, and keep going with
			// the decoded accumulator.
			b := a.appendState(nil)
			d := &lagAcc{offset: offset, def: def}
			rest, err := d.decodeState(b)
			if err != nil || len(rest) != 0 {
				t.Fatalf("offset %d: decode: %v, %d bytes left", offset, err, len(rest))
			}
			if got := d.result(); !sameValue(got, want) {
				t.Fatalf("offset %d, after %d values, decoded: got %v, want %v", offset, len(seen), got, want)
			}
			if len(d.buf) > offset+1 {
				t.Fatalf("offset %d: keeps %d values, more than offset+1", offset, len(d.buf))
			}
			a = d
		}
	}
	if err := (&lagAcc{offset: 1}).add(row.IntValue(1), true); err == nil {
		t.Fatal("LAG took a retraction")
	}
}

func sameValue(a, b row.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return a.Int() == b.Int()
}
