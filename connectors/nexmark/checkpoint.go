package nexmark

import (
	"encoding/json"
	"fmt"
	"time"
)

// A Nexmark source's position (connector.Positioner) is the next event id
// it looks at: every event is a function of its id and the configuration,
// so a source resumed from it generates exactly the events a clean run
// generates after it.

const positionVersion = 1

type position struct {
	V    int   `json:"v"`
	Next int64 `json:"next"`
}

// Position returns the event id after the last event Read returned.
func (s *Source) Position() ([]byte, error) {
	return json.Marshal(position{V: positionVersion, Next: s.next})
}

// Seek continues at the position; with 'rate.limited' the wall clock
// continues from that event's time.
func (s *Source) Seek(pos []byte) error {
	var p position
	if err := json.Unmarshal(pos, &p); err != nil || p.V != positionVersion || p.Next < 0 {
		return fmt.Errorf("nexmark: the checkpoint's position %q is not one this streamsql writes", pos)
	}
	s.next = p.Next
	c := s.gen.Config()
	s.start = time.Now().Add(-time.Duration(c.Timestamp(p.Next)-c.BaseTime) * time.Millisecond)
	return nil
}
