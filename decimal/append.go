package decimal

import "strconv"

// Append appends the unscaled value u at scale as a plain decimal
// number: 1230 at scale 2 is "12.30".
func Append(b []byte, u int64, scale int) []byte {
	if u < 0 {
		b = append(b, '-')
	}
	mag := uint64(u)
	if u < 0 {
		mag = uint64(-(u + 1)) + 1
	}
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], mag, 10)
	if scale <= 0 {
		return append(b, digits...)
	}
	if len(digits) <= scale {
		b = append(b, '0', '.')
		for k := len(digits); k < scale; k++ {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[:len(digits)-scale]...)
	b = append(b, '.')
	return append(b, digits[len(digits)-scale:]...)
}
