package eval

import (
	"fmt"

	"github.com/streamsql/streamsql/civil"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/row"
	"github.com/streamsql/streamsql/types"
)

// floorCeilTo is FLOOR(t TO unit) and CEIL(t TO unit) (the binder's
// expr.Binder.floorCeilTo): t rounded down (up) to a whole unit, in t's
// type. A TIMESTAMP_LTZ rounds in the session time zone, UTC. Weeks start
// on Sunday, as Flink's (Calcite's) do; a decade starts at a year divisible
// by 10, a century at year 1 of it (2001), a millennium likewise. CEIL is
// the least boundary at or after t: t itself when t is on one.
func floorCeilTo(ceil bool, e *expr.Call, args []node) (Func, error) {
	x := args[0]
	if !args[1].konst || args[1].v.Kind() != row.Str {
		return nil, fmt.Errorf("eval: %s needs a constant time unit", e.Fn)
	}
	unit := args[1].v.Str()
	if x.t.Kind == types.Null {
		return nullFunc, nil
	}
	var ms int64 // a unit of fixed length, in milliseconds
	switch unit {
	case "MILLISECOND":
		ms = 1
	case "SECOND":
		ms = msPerSecond
	case "MINUTE":
		ms = msPerMinute
	case "HOUR":
		ms = msPerHour
	case "DAY":
		ms = msPerDay
	case "WEEK", "MONTH", "QUARTER", "YEAR", "DECADE", "CENTURY", "MILLENNIUM":
	default:
		return nil, fmt.Errorf("eval: %s does not support the unit %s", e.Fn, unit)
	}
	if x.t.Kind == types.Time {
		if ms == 0 || ms > msPerHour {
			return nil, fmt.Errorf("eval: %s of a TIME does not support the unit %s", e.Fn, unit)
		}
		// CEIL(TIME '23:30:00' TO HOUR) wraps to 00:00:00.
		return un(x, func(v row.Value) (row.Value, error) {
			return row.IntValue(floorMod(roundMs(v.Int(), ms, ceil), msPerDay)), nil
		}), nil
	}
	if x.t.Kind == types.Date {
		if ms != 0 && ms < msPerDay {
			return nil, fmt.Errorf("eval: %s of a DATE does not support the unit %s", e.Fn, unit)
		}
		return un(x, func(v row.Value) (row.Value, error) {
			return row.IntValue(roundDays(v.Int(), unit, ceil)), nil
		}), nil
	}
	if !x.t.Kind.IsTimestamp() {
		return nil, fmt.Errorf("eval: %s(... TO %s) of %s", e.Fn, unit, x.t)
	}
	if ms != 0 {
		return un(x, func(v row.Value) (row.Value, error) { return row.IntValue(roundMs(v.Int(), ms, ceil)), nil }), nil
	}
	return un(x, func(v row.Value) (row.Value, error) {
		t := v.Int()
		d := floorDiv(t, msPerDay)
		f := roundDays(d, unit, false)
		if ceil && (f != d || t != d*msPerDay) {
			f = nextBoundary(f, unit)
		}
		return row.IntValue(f * msPerDay), nil
	}), nil
}

// roundMs rounds t down (up) to a multiple of ms.
func roundMs(t, ms int64, ceil bool) int64 {
	f := floorDiv(t, ms) * ms
	if ceil && f != t {
		f += ms
	}
	return f
}

// roundDays rounds the day d (since 1970-01-01) down (up) to the first day
// of its unit.
func roundDays(d int64, unit string, ceil bool) int64 {
	var f int64
	y, m, _ := civil.FromDays(d)
	switch unit {
	case "DAY":
		return d
	case "WEEK":
		f = d - floorMod(d+4, 7) // 1970-01-01 was a Thursday; weeks start on Sunday
	case "MONTH":
		f = civil.DaysFromCivil(y, m, 1)
	case "QUARTER":
		f = civil.DaysFromCivil(y, (m-1)/3*3+1, 1)
	case "YEAR":
		f = civil.DaysFromCivil(y, 1, 1)
	case "DECADE":
		f = civil.DaysFromCivil(floorDiv(y, 10)*10, 1, 1)
	case "CENTURY":
		f = civil.DaysFromCivil(floorDiv(y-1, 100)*100+1, 1, 1)
	case "MILLENNIUM":
		f = civil.DaysFromCivil(floorDiv(y-1, 1000)*1000+1, 1, 1)
	}
	if ceil && f != d {
		f = nextBoundary(f, unit)
	}
	return f
}

// nextBoundary is the first day of the unit after the one that starts on
// day f.
func nextBoundary(f int64, unit string) int64 {
	y, m, _ := civil.FromDays(f)
	switch unit {
	case "DAY":
		return f + 1
	case "WEEK":
		return f + 7
	case "MONTH":
		return civil.DaysFromCivil(y+m/12, m%12+1, 1)
	case "QUARTER":
		return civil.DaysFromCivil(y+(m+2)/12, (m+2)%12+1, 1)
	case "YEAR":
		return civil.DaysFromCivil(y+1, 1, 1)
	case "DECADE":
		return civil.DaysFromCivil(y+10, 1, 1)
	case "CENTURY":
		return civil.DaysFromCivil(y+100, 1, 1)
	}
	return civil.DaysFromCivil(y+1000, 1, 1)
}
