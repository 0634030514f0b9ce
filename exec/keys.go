package exec

import (
	"encoding/binary"

	"github.com/streamsql/streamsql/row"
)

// appendExact encodes a value exactly (-0.0 apart from 0.0): the identity
// of a value kept in a multiset, such as MIN and MAX keep.
func appendExact(buf []byte, v row.Value) []byte {
	buf = append(buf, byte(v.Kind()))
	switch v.Kind() {
	case row.Int, row.Float:
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v.Int()))
	case row.Str:
		s := v.Str()
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	case row.Null:
	}
	return buf
}

// keyer computes an equi-join or grouping key from a row.
type keyer struct {
	fns []scalarFunc
	// cols is used instead of fns when every key is a plain column.
	cols []int
	// nullSafe[i] says a NULL in part i is a value, not a NULL key (a
	// null-safe join key); nil: every NULL makes the key NULL.
	nullSafe []bool
	buf      []byte
}

// keyBytes returns the encoded key, and whether some part of it is NULL (a
// NULL key never joins): the bytes are valid until the next
// call.
func (k *keyer) keyBytes(r []row.Value) ([]byte, bool, error) {
	if _, null, err := k.encode(r); err != nil || null {
		return k.buf, null, err
	}
	return k.buf, false, nil
}

// encode fills k.buf with the key of r.
func (k *keyer) encode(r []row.Value) ([]byte, bool, error) {
	k.buf = k.buf[:0]
	hasNull := false
	if k.cols != nil {
		for i, c := range k.cols {
			v := r[c]
			hasNull = hasNull || v.IsNull() && (k.nullSafe == nil || !k.nullSafe[i])
			k.buf = row.AppendKey(k.buf, v)
		}
		return k.buf, hasNull, nil
	}
	for i, f := range k.fns {
		v, err := f(r)
		if err != nil {
			return nil, false, err
		}
		hasNull = hasNull || v.IsNull() && (k.nullSafe == nil || !k.nullSafe[i])
		k.buf = row.AppendKey(k.buf, v)
	}
	return k.buf, hasNull, nil
}

// values returns the key's values (for group keys in output rows).
func (k *keyer) values(r []row.Value) ([]row.Value, error) {
	if k.cols != nil {
		out := make([]row.Value, len(k.cols))
		for i, c := range k.cols {
			out[i] = r[c]
		}
		return out, nil
	}
	out := make([]row.Value, len(k.fns))
	for i, f := range k.fns {
		v, err := f(r)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

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

// concat joins a left and a right row (either may be nil: padded with
// NULLs to its width).
func concat(l []row.Value, nl int, r []row.Value, nr int) []row.Value {
	out := make([]row.Value, nl+nr)
	copy(out, l)
	copy(out[nl:], r)
	return out
}
