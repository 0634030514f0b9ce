package exec

import "testing"

// TestFormatDuration: spans are rounded before the days are split off, so
// 3 days less a few ms reads 3d (it read 2d24h, and TestFutureTimeWarning,
// whose span is 3 days less the few ms between its two clock readings,
// failed now and then).
func TestFormatDuration(t *testing.T) {
	const sec, minute, hour, day = 1000, 60 * 1000, 3600 * 1000, 24 * 3600 * 1000
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{0, "0ms"},
		{250, "250ms"},
		{-250, "-250ms"},
		{90 * sec, "1m30s"},
		{hour - 400, "1h"},
		{4 * hour, "4h"},
		{3*day + 2*hour + 5*minute, "3d2h5m"},
		{3*day - 7, "3d"},
		{day - 20*sec, "1d"},
		{day + 29*sec, "1d"},
		{day + 31*sec, "1d1m"},
		{2*day + hour, "2d1h"},
	} {
		if got := FormatDuration(c.ms); got != c.want {
			t.Errorf("FormatDuration(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
}
