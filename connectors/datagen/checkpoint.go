package datagen

import (
	"encoding/json"
	"fmt"
	"time"
)

// A datagen source's position (connector.Positioner) is its place in the
// sequence: rows generated, rows left, every sequence column's next value
// and the random generator's state. A source resumed from it generates the
// rows the original would have generated next (with a 'seed', the very
// rows of a clean run).

const positionVersion = 1

type position struct {
	V       int     `json:"v"`
	Emitted int64   `json:"emitted"`
	Left    int64   `json:"left"`
	Seq     []int64 `json:"seq"`
	Rand    []byte  `json:"rand"`
}

// Position returns the state after the last row Read returned.
func (s *Source) Position() ([]byte, error) {
	p := position{V: positionVersion, Emitted: s.emitted, Left: s.left, Seq: []int64{}}
	for _, f := range s.fields {
		if f.seq {
			p.Seq = append(p.Seq, f.cur)
		}
	}
	r, err := s.pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("datagen: %w", err)
	}
	p.Rand = r
	return json.Marshal(p)
}

// Seek continues after the position; the rate limit continues from there.
func (s *Source) Seek(pos []byte) error {
	var p position
	if err := json.Unmarshal(pos, &p); err != nil || p.V != positionVersion || p.Emitted < 0 {
		return fmt.Errorf("datagen: the checkpoint's position %q is not one this streamsql writes", pos)
	}
	n := 0
	for _, f := range s.fields {
		if f.seq {
			n++
		}
	}
	if len(p.Seq) != n {
		return fmt.Errorf("datagen: the checkpoint's position has %d sequence columns, the table %d", len(p.Seq), n)
	}
	if err := s.pcg.UnmarshalBinary(p.Rand); err != nil {
		return fmt.Errorf("datagen: the checkpoint's position: %w", err)
	}
	i := 0
	for k := range s.fields {
		if f := &s.fields[k]; f.seq {
			f.cur = p.Seq[i]
			i++
		}
	}
	s.emitted, s.left = p.Emitted, p.Left
	if s.rate > 0 {
		s.start = s.clock.Now().Add(-time.Duration(float64(s.emitted) / s.rate * float64(time.Second)))
	}
	return nil
}
