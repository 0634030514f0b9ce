package exec

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/state"
)

// Encoding of accumulators and groups for state that spills. Each
// accumulator appends its own state; a group is its key values, its row
// count, its last emitted result and its accumulators, in the order of the
// operator's aggregate calls (the codec knows the calls).

var errShort = errors.New("exec: truncated aggregate state")

func putVarint(dst []byte, x int64) []byte { return binary.AppendVarint(dst, x) }

func getVarint(b []byte) (int64, []byte, error) {
	x, n := binary.Varint(b)
	if n <= 0 {
		return 0, nil, errShort
	}
	return x, b[n:], nil
}

func getValues(b []byte) ([]row.Value, []byte, error) {
	vals, n, err := state.DecodeValues(nil, b)
	if err != nil {
		return nil, nil, err
	}
	return vals, b[n:], nil
}

func (a *countAcc) appendState(dst []byte) []byte { return putVarint(dst, a.n) }
func (a *countAcc) decodeState(b []byte) ([]byte, error) {
	var err error
	a.n, b, err = getVarint(b)
	return b, err
}

// appendCounts writes a value multiset: n, then (value, count) pairs.
func appendCounts(dst []byte, vals []row.Value, counts []int64) []byte {
	dst = putVarint(dst, int64(len(vals)))
	for i, v := range vals {
		dst = state.AppendValues(dst, []row.Value{v})
		dst = putVarint(dst, counts[i])
	}
	return dst
}

func decodeCounts(b []byte, each func(v row.Value, n int64)) ([]byte, error) {
	n, b, err := getVarint(b)
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < n; i++ {
		var vals []row.Value
		if vals, b, err = getValues(b); err != nil {
			return nil, err
		}
		var c int64
		if c, b, err = getVarint(b); err != nil {
			return nil, err
		}
		if len(vals) != 1 {
			return nil, errShort
		}
		each(vals[0], c)
	}
	return b, nil
}

func (a *distinctCount) appendState(dst []byte) []byte { return appendSeen(dst, a.seen) }
func (a *distinctCount) decodeState(b []byte) ([]byte, error) {
	return decodeSeen(b, a.seen)
}

func (a *sumInt) appendState(dst []byte) []byte { return putVarint(putVarint(dst, a.sum), a.n) }
func (a *sumInt) decodeState(b []byte) (rest []byte, err error) {
	if a.sum, b, err = getVarint(b); err != nil {
		return nil, err
	}
	a.n, b, err = getVarint(b)
	return b, err
}

func (a *sumFloat) appendState(dst []byte) []byte {
	return putVarint(binary.LittleEndian.AppendUint64(dst, math.Float64bits(a.sum)), a.n)
}
func (a *sumFloat) decodeState(b []byte) (rest []byte, err error) {
	if len(b) < 8 {
		return nil, errShort
	}
	a.sum = math.Float64frombits(binary.LittleEndian.Uint64(b))
	a.n, b, err = getVarint(b[8:])
	return b, err
}

func (a *minMax) appendState(dst []byte) []byte {
	vals := make([]row.Value, 0, len(a.vals))
	counts := make([]int64, 0, len(a.vals))
	for _, e := range a.vals {
		vals = append(vals, e.v)
		counts = append(counts, e.n)
	}
	return appendCounts(dst, vals, counts)
}

func (a *minMax) decodeState(b []byte) ([]byte, error) {
	a.cur = nil
	return decodeCounts(b, func(v row.Value, n int64) {
		a.buf = appendExact(a.buf[:0], v)
		a.vals[string(a.buf)] = &mmEntry{v: v, n: n}
	})
}

func (a *firstLast) appendState(dst []byte) []byte {
	if !a.set {
		return append(dst, 0)
	}
	return state.AppendValues(append(dst, 1), []row.Value{a.v})
}

func (a *firstLast) decodeState(b []byte) ([]byte, error) {
	if len(b) < 1 {
		return nil, errShort
	}
	a.set = b[0] == 1
	b = b[1:]
	if !a.set {
		return b, nil
	}
	vals, rest, err := getValues(b)
	if err != nil || len(vals) != 1 {
		return nil, errShort
	}
	a.v = vals[0]
	return rest, nil
}

func (a *firstLastRetract) appendState(dst []byte) []byte { return state.AppendValues(dst, a.vals) }

func (a *firstLastRetract) decodeState(b []byte) ([]byte, error) {
	vals, rest, err := getValues(b)
	if err != nil {
		return nil, err
	}
	a.vals = vals
	return rest, nil
}

// appendSeen writes a count per encoded value: n, then (key, count) pairs.
func appendSeen(dst []byte, seen map[string]int64) []byte {
	dst = putVarint(dst, int64(len(seen)))
	for k, n := range seen {
		dst = putVarint(dst, int64(len(k)))
		dst = append(dst, k...)
		dst = putVarint(dst, n)
	}
	return dst
}

func decodeSeen(b []byte, seen map[string]int64) ([]byte, error) {
	n, b, err := getVarint(b)
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < n; i++ {
		var l int64
		if l, b, err = getVarint(b); err != nil || int64(len(b)) < l || l < 0 {
			return nil, errShort
		}
		k := string(b[:l])
		b = b[l:]
		var c int64
		if c, b, err = getVarint(b); err != nil {
			return nil, err
		}
		seen[k] = c
	}
	return b, nil
}

func (a *distinctAcc) appendState(dst []byte) []byte {
	return a.inner.appendState(appendSeen(dst, a.seen))
}

func (a *distinctAcc) decodeState(b []byte) ([]byte, error) {
	b, err := decodeSeen(b, a.seen)
	if err != nil {
		return nil, err
	}
	return a.inner.decodeState(b)
}

func (a *listAgg) appendState(dst []byte) []byte {
	dst = putVarint(dst, int64(len(a.parts)))
	for _, p := range a.parts {
		dst = putVarint(dst, int64(len(p)))
		dst = append(dst, p...)
	}
	return dst
}

func (a *listAgg) decodeState(b []byte) ([]byte, error) {
	n, b, err := getVarint(b)
	if err != nil {
		return nil, err
	}
	a.parts = a.parts[:0]
	for i := int64(0); i < n; i++ {
		var l int64
		if l, b, err = getVarint(b); err != nil || l < 0 || int64(len(b)) < l {
			return nil, errShort
		}
		a.parts = append(a.parts, string(b[:l]))
		b = b[l:]
	}
	return b, nil
}

// groupCodec encodes the groups of one aggregate operator; a window
// aggregate's (window) have a flags byte after the window end (layout 2 of
// its checkpoints: see operatorLayout).
type groupCodec struct {
	specs  []*aggSpec
	window bool
}

// Group flags, a window aggregate's.
const groupOnTime = 1 // group.onTime

// Append encodes g: keys, count, window end, (window: flags,) last result,
// accumulators.
func (c groupCodec) Append(dst []byte, g *group) []byte {
	dst = state.AppendValues(dst, g.keys)
	dst = putVarint(dst, g.count)
	dst = putVarint(dst, g.end)
	if c.window {
		var f byte
		if g.onTime {
			f |= groupOnTime
		}
		dst = append(dst, f)
	}
	if g.last == nil {
		dst = append(dst, 0)
	} else {
		dst = state.AppendValues(append(dst, 1), g.last)
	}
	for _, a := range g.accs {
		dst = a.appendState(dst)
	}
	return dst
}

// Decode is the inverse of Append.
func (c groupCodec) Decode(b []byte) (*group, error) {
	keys, b, err := getValues(b)
	if err != nil {
		return nil, err
	}
	g := newGroup(keys, c.specs)
	if g.count, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if g.end, b, err = getVarint(b); err != nil {
		return nil, err
	}
	if c.window {
		if len(b) < 1 {
			return nil, errShort
		}
		g.onTime = b[0]&groupOnTime != 0
		b = b[1:]
	}
	if len(b) < 1 {
		return nil, errShort
	}
	has := b[0] == 1
	b = b[1:]
	if has {
		if g.last, b, err = getValues(b); err != nil {
			return nil, err
		}
	}
	for _, a := range g.accs {
		if b, err = a.decodeState(b); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Size is a rough estimate of a group's memory, for the budget.
func (c groupCodec) Size(g *group) int64 {
	n := int64(96 + 24*(len(g.keys)+len(g.last)) + 48*len(g.accs))
	for _, a := range g.accs {
		n += accSize(a)
	}
	return n
}

// accSize is what an accumulator holds beyond its fixed part.
func accSize(a accumulator) int64 {
	n := int64(0)
	switch x := a.(type) {
	case *distinctCount:
		n += int64(len(x.seen)) * 64
	case *distinctAcc:
		n += int64(len(x.seen))*64 + accSize(x.inner)
	case *minMax:
		n += int64(len(x.vals)) * 96
	case *firstLastRetract:
		n += int64(len(x.vals)) * 24
		for _, v := range x.vals {
			if v.Kind() == row.Str {
				n += int64(len(v.Str()))
			}
		}
	case *lagAcc:
		n += int64(len(x.buf)) * 24
		for _, v := range x.buf {
			if v.Kind() == row.Str {
				n += int64(len(v.Str()))
			}
		}
	case *listAgg:
		for _, p := range x.parts {
			n += int64(len(p)) + 16
		}
	}
	return n
}
