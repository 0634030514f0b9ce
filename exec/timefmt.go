package exec

import "time"

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
