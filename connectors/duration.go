package connectors

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// durationUnits are Flink's time unit labels (org.apache.flink.util.TimeUtils),
// lower case. A bare number is milliseconds.
var durationUnits = map[string]time.Duration{
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"min": time.Minute, "m": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond,
	"millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"µs": time.Microsecond, "micro": time.Microsecond, "micros": time.Microsecond,
	"microsecond": time.Microsecond, "microseconds": time.Microsecond,
	"ns": time.Nanosecond, "nano": time.Nanosecond, "nanos": time.Nanosecond,
	"nanosecond": time.Nanosecond, "nanoseconds": time.Nanosecond,
}

// ParseDuration parses a duration written the way Flink's options take
// them: a non-negative whole number, optional spaces, and an optional unit,
// as in "10s", "5 min", "1h", "100ms", "24h" or "1 d". Units are ms, s (sec,
// second), min (m, minute), h (hour) and d (day), with Flink's plurals
// (seconds, minutes, hours, days, millis ...), ignoring case; µs and ns are
// accepted too. A bare number is milliseconds, as in Flink.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		if t == "" {
			return 0, fmt.Errorf("empty duration; write a number and a unit, for example '10 s' or '5 min'")
		}
		return 0, fmt.Errorf("a duration starts with a whole number, as in '10 s' or '5 min'")
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is too large for a duration", t[:i])
	}
	label := strings.ToLower(strings.TrimSpace(t[i:]))
	unit := time.Millisecond
	if label != "" {
		u, ok := durationUnits[label]
		if !ok {
			msg := fmt.Sprintf("unknown time unit '%s'; use ms, s, min, h or d", strings.TrimSpace(t[i:]))
			if strings.HasPrefix(label, ".") {
				msg = "a duration is a whole number; write '1500 ms' rather than '1.5 s'"
			}
			return 0, fmt.Errorf("%s", msg)
		}
		unit = u
	}
	if n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("'%s' is too long for a duration", s)
	}
	return time.Duration(n) * unit, nil
}
