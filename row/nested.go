package row

import (
	"encoding/binary"
	"errors"
	"math"
	"sort"
)

// Nested values (ARRAY, MAP, ROW) are kept as a Str Value holding a list of
// values in a compact binary form, the way Flink keeps them as binary
// sections: whatever moves, hashes, compares for equality or is written to
// state and checkpoints moves a string, and needs no case of its own.
//
//	list   = uvarint(count) value*
//	value  = 0                         NULL
//	       | 1 varint(int)             Int (zig-zag)
//	       | 2 uint64le(bits)          Float
//	       | 3 uvarint(len) bytes      Str (a nested list is a Str)
//
// ARRAY:  its elements in order.
// MAP:    key, value, key, value ...: entries sorted by key (Value.Compare)
//
//	with one entry per key (the last one given wins), so that two equal
//	maps have the same encoding, whatever the order they were built in.
//
// ROW:    its fields in order.
//
// The encoding of a given list is unique, so two nested values of one type
// are equal (SQL =, with NULL elements equal to each other as in Flink's
// ARRAY equality) exactly when their strings are; floats compare by their
// bits here (-0.0 and 0.0 inside an array differ).
const (
	tagNull  = 0
	tagInt   = 1
	tagFloat = 2
	tagStr   = 3
)

// ErrCorrupt is returned when a nested value's bytes are not a list in the
// encoding above (state bytes damaged on disk; never the case for lists
// this package encoded).
var ErrCorrupt = errors.New("corrupt nested value")

// AppendList appends the encoding of vals to b.
func AppendList(b []byte, vals []Value) []byte {
	b = binary.AppendUvarint(b, uint64(len(vals)))
	for _, v := range vals {
		b = appendElem(b, v)
	}
	return b
}

func appendElem(b []byte, v Value) []byte {
	switch v.k {
	case Int:
		b = append(b, tagInt)
		return binary.AppendVarint(b, v.i)
	case Float:
		b = append(b, tagFloat)
		return binary.LittleEndian.AppendUint64(b, uint64(v.i))
	case Str:
		b = append(b, tagStr)
		b = binary.AppendUvarint(b, uint64(len(v.s)))
		return append(b, v.s...)
	case Null:
	}
	return append(b, tagNull)
}

// ListValue returns the ARRAY or ROW value holding vals.
func ListValue(vals []Value) Value { return StrValue(string(AppendList(nil, vals))) }

// MapValue returns the MAP value of the entries keys[i] -> vals[i]: sorted
// by key, and of two entries with the same key the later one kept (as
// Flink's MAP[...] constructor and STR_TO_MAP do). keys and vals must have
// the same length; they are not changed.
func MapValue(keys, vals []Value) Value {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]].Compare(keys[idx[b]]) < 0 })
	out := make([]Value, 0, 2*len(keys))
	for n, i := range idx {
		// Of a run of equal keys keep the last given (the largest index,
		// since the sort is stable: the last of the run).
		if n+1 < len(idx) && keys[idx[n+1]].Equal(keys[i]) {
			continue
		}
		out = append(out, keys[i], vals[i])
	}
	b := binary.AppendUvarint(nil, uint64(len(out)/2))
	for _, v := range out {
		b = appendElem(b, v)
	}
	return StrValue(string(b))
}

// ListReader reads a list's values one by one, without allocating.
type ListReader struct {
	s   string
	off int
}

// NewListReader starts reading the list s; n is its number of values (of
// entries, for a MAP: twice as many values follow).
func NewListReader(s string) (r ListReader, n int, err error) {
	u, k := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
	if k <= 0 || u > uint64(len(s)) {
		return ListReader{}, 0, ErrCorrupt
	}
	return ListReader{s: s, off: k}, int(u), nil
}

// Next returns the next value. It fails with ErrCorrupt on malformed bytes
// or when the list has no more values.
func (r *ListReader) Next() (Value, error) {
	if r.off >= len(r.s) {
		return NullValue, ErrCorrupt
	}
	tag := r.s[r.off]
	r.off++
	switch tag {
	case tagNull:
		return NullValue, nil
	case tagInt:
		i, k := binary.Varint([]byte(r.s[r.off:min(len(r.s), r.off+binary.MaxVarintLen64)]))
		if k <= 0 {
			return NullValue, ErrCorrupt
		}
		r.off += k
		return IntValue(i), nil
	case tagFloat:
		if r.off+8 > len(r.s) {
			return NullValue, ErrCorrupt
		}
		bits := binary.LittleEndian.Uint64([]byte(r.s[r.off : r.off+8]))
		r.off += 8
		return FloatValue(math.Float64frombits(bits)), nil
	case tagStr:
		u, k := binary.Uvarint([]byte(r.s[r.off:min(len(r.s), r.off+binary.MaxVarintLen64)]))
		if k <= 0 || u > uint64(len(r.s)-r.off-k) {
			return NullValue, ErrCorrupt
		}
		r.off += k
		v := StrValue(r.s[r.off : r.off+int(u)])
		r.off += int(u)
		return v, nil
	}
	return NullValue, ErrCorrupt
}

// DecodeList appends the values of the ARRAY or ROW list s to dst.
func DecodeList(dst []Value, s string) ([]Value, error) {
	r, n, err := NewListReader(s)
	if err != nil {
		return dst, err
	}
	return r.appendN(dst, n)
}

// DecodeMap appends the keys and values of the MAP s to keys and vals.
func DecodeMap(keys, vals []Value, s string) ([]Value, []Value, error) {
	r, n, err := NewListReader(s)
	if err != nil {
		return keys, vals, err
	}
	for i := 0; i < n; i++ {
		k, err := r.Next()
		if err != nil {
			return keys, vals, err
		}
		v, err := r.Next()
		if err != nil {
			return keys, vals, err
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	if r.off != len(r.s) {
		return keys, vals, ErrCorrupt
	}
	return keys, vals, nil
}

func (r *ListReader) appendN(dst []Value, n int) ([]Value, error) {
	for i := 0; i < n; i++ {
		v, err := r.Next()
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
	}
	if r.off != len(r.s) {
		return dst, ErrCorrupt
	}
	return dst, nil
}

// ListLen returns the number of values of the ARRAY or ROW list s, or of
// entries of the MAP s.
func ListLen(s string) (int, error) {
	_, n, err := NewListReader(s)
	return n, err
}

// ListAt returns the value at index i (0-based) of the ARRAY or ROW list
// s; ok is false when i is out of range.
func ListAt(s string, i int) (v Value, ok bool, err error) {
	r, n, err := NewListReader(s)
	if err != nil || i < 0 || i >= n {
		return NullValue, false, err
	}
	for k := 0; k <= i; k++ {
		if v, err = r.Next(); err != nil {
			return NullValue, false, err
		}
	}
	return v, true, nil
}

// MapGet returns the value for key k of the MAP s (keys compared with
// Value.Equal: the caller casts k to the key type first); ok is false when
// there is no such key.
func MapGet(s string, k Value) (v Value, ok bool, err error) {
	r, n, err := NewListReader(s)
	if err != nil {
		return NullValue, false, err
	}
	for i := 0; i < n; i++ {
		key, err := r.Next()
		if err != nil {
			return NullValue, false, err
		}
		val, err := r.Next()
		if err != nil {
			return NullValue, false, err
		}
		if key.Equal(k) {
			return val, true, nil
		}
	}
	return NullValue, false, nil
}
