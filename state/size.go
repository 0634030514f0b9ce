package state

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize parses a memory size the way Flink's MemorySize does: a
// non-negative integer and an optional unit, b/bytes, k/kb/kibibytes,
// m/mb/mebibytes, g/gb/gibibytes, t/tb/tebibytes, case-insensitive,
// optionally separated by spaces. Units are powers of 1024: '256mb' is
// 268435456 bytes. A number without a unit is bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("memory size %q: want a number of bytes with an optional unit, e.g. '256mb'", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("memory size %q: %w", s, err)
	}
	var shift uint
	switch strings.ToLower(strings.TrimSpace(t[i:])) {
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
		return 0, fmt.Errorf("memory size %q: unknown unit %q (use b, kb, mb, gb or tb)", s, strings.TrimSpace(t[i:]))
	}
	if n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("memory size %q is too large", s)
	}
	return n << shift, nil
}
