package state

import (
	"encoding/binary"
	"errors"
	"math"
	"unsafe"

	"github.com/streamsql/streamsql/row"
)

// The encoding of a value list (used for spilled state, and usable by the
// operators for their own blobs) is
//
//	uvarint(n) value*n
//	value = 0                          NULL
//	      | 1 varint(i)                Int (zig-zag)
//	      | 2 uint64le(bits)           Float (the exact bits)
//	      | 3 uvarint(len) bytes       Str
//
// A record is a header followed by its values:
//
//	mask byte, then varint fields present in mask order:
//	  bit0 Expiry (absent: NoExpiry), bit1 Count, bit2 Matches, bit3 Time,
//	  bit4 Flags (uvarint)
//
// Absent fields are zero, so a plain row costs one byte of header.

const (
	tagNull  = 0
	tagInt   = 1
	tagFloat = 2
	tagStr   = 3
)

// ErrCorrupt is returned when encoded state cannot be decoded.
var ErrCorrupt = errors.New("state: corrupt encoding")

// AppendValue appends the encoding of one value to dst.
func AppendValue(dst []byte, v row.Value) []byte {
	switch v.Kind() {
	case row.Int:
		dst = append(dst, tagInt)
		return binary.AppendVarint(dst, v.Int())
	case row.Float:
		dst = append(dst, tagFloat)
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Int()))
	case row.Str:
		s := v.Str()
		dst = append(dst, tagStr)
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		return append(dst, s...)
	default:
		return append(dst, tagNull)
	}
}

// AppendValues appends the encoding of a value list to dst.
func AppendValues(dst []byte, vals []row.Value) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(vals)))
	for _, v := range vals {
		dst = AppendValue(dst, v)
	}
	return dst
}

// valuesLen checks the value list at the start of b and returns its value
// count, the bytes it takes and the total length of its strings.
func valuesLen(b []byte) (n int, size int, strBytes int, err error) {
	cnt, w := binary.Uvarint(b)
	if w <= 0 || cnt > uint64(len(b)) { // every value takes at least a byte
		return 0, 0, 0, ErrCorrupt
	}
	p := w
	for i := uint64(0); i < cnt; i++ {
		if p >= len(b) {
			return 0, 0, 0, ErrCorrupt
		}
		tag := b[p]
		p++
		switch tag {
		case tagNull:
		case tagInt:
			_, w := binary.Varint(b[p:])
			if w <= 0 {
				return 0, 0, 0, ErrCorrupt
			}
			p += w
		case tagFloat:
			if len(b)-p < 8 {
				return 0, 0, 0, ErrCorrupt
			}
			p += 8
		case tagStr:
			l, w := binary.Uvarint(b[p:])
			if w <= 0 || l > uint64(len(b)-p-w) {
				return 0, 0, 0, ErrCorrupt
			}
			p += w + int(l)
			strBytes += int(l)
		default:
			return 0, 0, 0, ErrCorrupt
		}
	}
	return int(cnt), p, strBytes, nil
}

// DecodeValues decodes the value list at the start of b, appending the
// values to dst[:0], and returns them with the number of bytes read. The
// strings of the list share one new allocation (none when the list has no
// strings), so the result does not alias b. Garbage gives ErrCorrupt, never
// a panic.
func DecodeValues(dst []row.Value, b []byte) ([]row.Value, int, error) {
	n, size, strBytes, err := valuesLen(b)
	if err != nil {
		return dst[:0], 0, err
	}
	var arena []byte
	if strBytes > 0 {
		arena = make([]byte, 0, strBytes)
	}
	return decodeChecked(dst, b[:size], n, arena, false), size, nil
}

// DecodeValuesNoCopy is DecodeValues whose strings alias b: no allocation
// at all when dst has the capacity, but the values are valid only while b
// is unchanged.
func DecodeValuesNoCopy(dst []row.Value, b []byte) ([]row.Value, int, error) {
	n, size, _, err := valuesLen(b)
	if err != nil {
		return dst[:0], 0, err
	}
	return decodeChecked(dst, b[:size], n, nil, true), size, nil
}

// decodeChecked decodes a list valuesLen accepted.
func decodeChecked(dst []row.Value, b []byte, n int, arena []byte, alias bool) []row.Value {
	dst = dst[:0]
	if cap(dst) < n {
		dst = make([]row.Value, 0, n)
	}
	var arenaStr string
	if len(arena) == 0 && cap(arena) > 0 {
		// One string for every string of the row; each value slices it.
		arenaStr = unsafe.String(unsafe.SliceData(arena[:cap(arena)]), cap(arena))
	}
	_, p := binary.Uvarint(b)
	off := 0
	for i := 0; i < n; i++ {
		tag := b[p]
		p++
		switch tag {
		case tagNull:
			dst = append(dst, row.NullValue)
		case tagInt:
			x, w := binary.Varint(b[p:])
			p += w
			dst = append(dst, row.IntValue(x))
		case tagFloat:
			bits := binary.LittleEndian.Uint64(b[p:])
			p += 8
			dst = append(dst, row.FloatValue(math.Float64frombits(bits)))
		case tagStr:
			l, w := binary.Uvarint(b[p:])
			p += w
			s := b[p : p+int(l)]
			p += int(l)
			switch {
			case l == 0:
				dst = append(dst, row.StrValue(""))
			case alias:
				dst = append(dst, row.StrValue(unsafe.String(unsafe.SliceData(s), len(s))))
			default:
				arena = append(arena, s...)
				dst = append(dst, row.StrValue(arenaStr[off:off+len(s)]))
				off += len(s)
			}
		}
	}
	return dst
}

// Header bits saying which fields follow the mask byte.
const (
	hasExpiry = 1 << iota
	hasCount
	hasMatches
	hasTime
	hasFlags
	hasMax = hasFlags<<1 - 1
)

// AppendHeader appends the encoding of r's header (Count, Matches, Time,
// Flags, Expiry; not its values).
func AppendHeader(dst []byte, r *Record) []byte {
	return appendHeader(dst, r.Expiry, r.Count, r.Matches, r.Time, r.Flags)
}

func appendHeader(dst []byte, expiry, count, matches, time int64, flags uint32) []byte {
	var mask byte
	if expiry != NoExpiry {
		mask |= hasExpiry
	}
	if count != 0 {
		mask |= hasCount
	}
	if matches != 0 {
		mask |= hasMatches
	}
	if time != 0 {
		mask |= hasTime
	}
	if flags != 0 {
		mask |= hasFlags
	}
	dst = append(dst, mask)
	if mask&hasExpiry != 0 {
		dst = binary.AppendVarint(dst, expiry)
	}
	if mask&hasCount != 0 {
		dst = binary.AppendVarint(dst, count)
	}
	if mask&hasMatches != 0 {
		dst = binary.AppendVarint(dst, matches)
	}
	if mask&hasTime != 0 {
		dst = binary.AppendVarint(dst, time)
	}
	if mask&hasFlags != 0 {
		dst = binary.AppendUvarint(dst, uint64(flags))
	}
	return dst
}

// DecodeHeader decodes a header into r (leaving r.Vals alone) and returns
// the bytes read.
func DecodeHeader(b []byte, r *Record) (int, error) {
	if len(b) == 0 || b[0] > hasMax {
		return 0, ErrCorrupt
	}
	mask := b[0]
	p := 1
	next := func(bit byte) (int64, bool) {
		if mask&bit == 0 {
			return 0, true
		}
		x, w := binary.Varint(b[p:])
		if w <= 0 {
			return 0, false
		}
		p += w
		return x, true
	}
	var ok bool
	r.Expiry = NoExpiry
	if mask&hasExpiry != 0 {
		if r.Expiry, ok = next(hasExpiry); !ok {
			return 0, ErrCorrupt
		}
	}
	if r.Count, ok = next(hasCount); !ok {
		return 0, ErrCorrupt
	}
	if r.Matches, ok = next(hasMatches); !ok {
		return 0, ErrCorrupt
	}
	if r.Time, ok = next(hasTime); !ok {
		return 0, ErrCorrupt
	}
	r.Flags = 0
	if mask&hasFlags != 0 {
		f, w := binary.Uvarint(b[p:])
		if w <= 0 || f > math.MaxUint32 {
			return 0, ErrCorrupt
		}
		p += w
		r.Flags = uint32(f)
	}
	return p, nil
}

// AppendRecord appends r's header and values.
func AppendRecord(dst []byte, r *Record) []byte {
	return AppendValues(AppendHeader(dst, r), r.Vals)
}

// DecodeRecord decodes a record into r, reusing r.Vals' backing array (so
// the caller must not hold on to the previous r.Vals), and returns the bytes
// read. Strings are copied as in DecodeValues.
func DecodeRecord(b []byte, r *Record) (int, error) {
	n, err := DecodeHeader(b, r)
	if err != nil {
		return 0, err
	}
	vals, m, err := DecodeValues(r.Vals, b[n:])
	if err != nil {
		return 0, err
	}
	r.Vals = vals
	return n + m, nil
}
