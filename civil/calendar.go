package civil

// Milliseconds in a unit of time.
const (
	MsPerSecond = 1000
	MsPerMinute = 60 * MsPerSecond
	MsPerHour   = 60 * MsPerMinute
	MsPerDay    = 24 * MsPerHour
)

// DaysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's days_from_civil). m is 1..12 and d 1..31; y may be
// any year whose result fits an int64.
func DaysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400                     // [0, 399]
	doy := (153*((m+9)%12)+2)/5 + d - 1    // [0, 365], from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - 719468
}

// FromDays is the inverse of DaysFromCivil: the year, month (1..12) and day
// (1..31) of a day since 1970-01-01.
func FromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100) // [0, 365]
	mp := (5*doy + 2) / 153                  // [0, 11], from March
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// IsLeap reports whether y is a leap year.
func IsLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// DaysIn returns the number of days of month m (1..12) of year y.
func DaysIn(y, m int64) int64 {
	switch m {
	case 2:
		if IsLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// floorDiv is a/b rounded toward negative infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
