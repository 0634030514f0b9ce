package row

import (
	"encoding/binary"
	"math"
)

// AppendKey appends to buf an encoding of vals (values of one type each:
// join keys, grouping keys, DISTINCT values, a sink's primary key) that is
// equal exactly when SQL's = says the values are equal, or both are NULL:
// kind, number, string length and bytes, with -0.0 the same as 0.0 and
// every NaN the same NaN, as = compares them (and PostgreSQL). Values of
// different types must be cast to one type before (the planner does it for
// join keys): an INT 1 and a DOUBLE 1.0 encode differently.
func AppendKey(buf []byte, vals ...Value) []byte {
	for _, v := range vals {
		buf = append(buf, byte(v.Kind()))
		switch v.Kind() {
		case Int:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v.Int()))
		case Float:
			f := v.Float()
			switch {
			case f == 0:
				f = 0 // -0.0 = 0.0
			case math.IsNaN(f):
				f = math.NaN() // NaN = NaN
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
		case Str:
			s := v.Str()
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		case Null:
		}
	}
	return buf
}
