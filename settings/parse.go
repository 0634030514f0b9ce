package settings

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// durationUnits are Flink's time unit labels (org.apache.flink.util.TimeUtils),
// lower case, and 'm' for minutes, which streamsql has always taken.
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
	n, label, err := leadingNumber(t)
	if err != nil {
		if t == "" {
			return 0, fmt.Errorf("empty duration; write a number and a unit, for example '10 s' or '5 min'")
		}
		if errors.Is(err, errNoNumber) {
			return 0, fmt.Errorf("a duration starts with a whole number, as in '10 s' or '5 min'")
		}
		return 0, fmt.Errorf("%s is too large for a duration", t)
	}
	unit := time.Millisecond
	if label != "" {
		u, ok := durationUnits[strings.ToLower(label)]
		if !ok {
			if strings.HasPrefix(label, ".") {
				return 0, fmt.Errorf("a duration is a whole number; write '1500 ms' rather than '1.5 s'")
			}
			return 0, fmt.Errorf("unknown time unit '%s'; use ms, s, min, h or d", label)
		}
		unit = u
	}
	if n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("'%s' is too long for a duration", s)
	}
	return time.Duration(n) * unit, nil
}

// ParseMemorySize parses a memory size the way Flink's MemorySize does: a
// non-negative whole number and an optional unit, b/bytes, k/kb/kibibytes,
// m/mb/mebibytes, g/gb/gibibytes, t/tb/tebibytes, ignoring case,
// optionally separated by spaces. Units are powers of 1024: '256mb' is
// 268435456 bytes. A number without a unit is bytes.
func ParseMemorySize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	n, label, err := leadingNumber(t)
	if err != nil {
		if errors.Is(err, errNoNumber) {
			return 0, fmt.Errorf("a memory size starts with a whole number, as in '256mb'")
		}
		return 0, fmt.Errorf("%s is too large for a memory size", t)
	}
	var shift uint
	switch strings.ToLower(label) {
	case "", "b", "bytes":
	case "k", "kb", "kibibytes":
		shift = 10
	case "m", "mb", "mebibytes":
		shift = 20
	case "g", "gb", "gibibytes":
		shift = 30
	case "t", "tb", "tebibytes":
		shift = 40
	default:
		if strings.HasPrefix(label, ".") {
			return 0, fmt.Errorf("a memory size is a whole number; use a smaller unit, as in '1536mb' rather than '1.5gb'")
		}
		return 0, fmt.Errorf("unknown memory unit '%s'; use b, kb, mb, gb or tb", label)
	}
	if n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("'%s' is too large for a memory size", s)
	}
	return n << shift, nil
}

var errNoNumber = errors.New("no number")

// leadingNumber splits trimmed text into its leading whole number and the
// rest, trimmed.
func leadingNumber(t string) (int64, string, error) {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, "", errNoNumber
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, "", err
	}
	return n, strings.TrimSpace(t[i:]), nil
}
