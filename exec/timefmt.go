package exec

import (
	"strconv"
	"strings"
	"time"
)

// FormatMillis renders event time (ms since epoch, UTC) for people; the
// extreme watermarks read as -inf and +inf.
func FormatMillis(ms int64) string {
	switch ms {
	case MinWatermark:
		return "-inf"
	case MaxWatermark:
		return "+inf"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// FormatDuration renders a span of event time in ms for people: 3d2h5m,
// 4h, 1m30s, 250ms.
func FormatDuration(ms int64) string {
	if ms < 0 {
		return "-" + FormatDuration(-ms)
	}
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	// Round the whole span before splitting off the days, so that a span a
	// few ms short of a day reads 1d, not 24h.
	d := time.Duration(ms) * time.Millisecond
	if d >= time.Hour {
		d = d.Round(time.Minute)
	} else {
		d = d.Round(time.Second)
	}
	days := int64(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	s := ""
	if days > 0 {
		s = strconv.FormatInt(days, 10) + "d"
	}
	if d == 0 {
		return s
	}
	out := d.String() // 2h5m0s
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return s + out
}
