package nexmark

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
)

var _ connector.Positioner = (*Source)(nil)

// A source resumed from the position after any Read generates exactly
// the events the original generated after it.
func TestSeekResumes(t *testing.T) {
	// Events enough for a few batches of each kind (1, 3 and 46 in 50).
	for table, events := range map[string]string{"person": "200000", "auction": "60000", "bid": "5000"} {
		t.Run(table, func(t *testing.T) {
			opts := ", 'nexmark.table' = '" + table + "', 'events.num' = '" + events + "'"
			batches, pos := conntest.ReadPositions(t, newSource(t, colsOf(table), opts))
			if len(batches) < 2 {
				t.Fatalf("%d batches", len(batches))
			}
			for i, p := range pos {
				s := newSource(t, colsOf(table), opts)
				if err := s.Seek(p); err != nil {
					t.Fatal(err)
				}
				rest, _ := conntest.ReadPositions(t, s)
				if strings.Join(rest, "") != strings.Join(batches[i+1:], "") {
					t.Fatalf("resumed after Read %d (%s): other events", i, p)
				}
			}
			if err := newSource(t, colsOf(table), opts).Seek([]byte(`{"v":1,"next":-4}`)); err == nil {
				t.Error("a negative position was accepted")
			}
		})
	}
}
