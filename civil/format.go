package civil

import "strconv"

func append2(b []byte, v int64) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// AppendDate appends days since the epoch as 'yyyy-MM-dd' (a year beyond
// 9999 with all its digits, a year before 1 as '0000' or '-0005').
func AppendDate(b []byte, days int64) []byte {
	y, m, d := FromDays(days)
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	switch {
	case y < 10:
		b = append(b, "000"...)
	case y < 100:
		b = append(b, "00"...)
	case y < 1000:
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, y, 10)
	b = append(b, '-')
	b = append2(b, m)
	b = append(b, '-')
	return append2(b, d)
}

// AppendTime appends milliseconds of the day (taken modulo a day) as
// 'HH:mm:ss' with precision fraction digits; digits beyond milliseconds
// are zeros.
func AppendTime(b []byte, ms int64, precision int) []byte {
	ms %= MsPerDay
	if ms < 0 {
		ms += MsPerDay
	}
	b = append2(b, ms/MsPerHour)
	b = append(b, ':')
	b = append2(b, ms/MsPerMinute%60)
	b = append(b, ':')
	b = append2(b, ms/MsPerSecond%60)
	if precision > 0 {
		frac := ms % MsPerSecond
		b = append(b, '.')
		digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for k := 0; k < precision; k++ {
			if k < 3 {
				b = append(b, digits[k])
			} else {
				b = append(b, '0')
			}
		}
	}
	return b
}

// AppendTimestamp appends milliseconds since the epoch as 'yyyy-MM-dd',
// sep (' ', or 'T' for ISO-8601), and AppendTime's time of day. What it
// writes, ParseTimestamp reads back (for years 1..9999).
func AppendTimestamp(b []byte, ms int64, precision int, sep byte) []byte {
	days := floorDiv(ms, MsPerDay)
	b = AppendDate(b, days)
	b = append(b, sep)
	return AppendTime(b, ms-days*MsPerDay, precision)
}
