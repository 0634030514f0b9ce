package connectors

import (
	"time"

	"github.com/streamsql/streamsql/settings"
)

// ParseDuration parses a duration option the way Flink's options take
// them; it is settings.ParseDuration, so that options and settings accept
// the same text.
func ParseDuration(s string) (time.Duration, error) { return settings.ParseDuration(s) }
