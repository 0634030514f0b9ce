package datagen

import (
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/conntest"
)

var _ connector.Positioner = (*Source)(nil)

// A source resumed from the position after any Read generates exactly
// the rows the original generated after it, with or without a seed.
func TestSeekResumesTheSequence(t *testing.T) {
	const cols = "id BIGINT, n INT, s STRING, d DECIMAL(10, 2), f DOUBLE, b BOOLEAN, ts TIMESTAMP(3)"
	for _, opts := range []string{
		", 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000', 'fields.n.null-rate' = '0.3', 'seed' = '7'",
		", 'number-of-rows' = '4000', 'fields.s.length' = '5'",
		", 'number-of-rows' = '3000', 'rows-per-second' = '500'",
	} {
		t.Run(opts, func(t *testing.T) {
			cols := cols
			if strings.Contains(opts, "rows-per-second") {
				// A random timestamp is the clock's now, which goes on.
				cols = strings.TrimSuffix(cols, ", ts TIMESTAMP(3)")
			}
			clock := &fakeClock{now: t0}
			batches, pos := conntest.ReadPositions(t, newSource(t, clock, cols, opts))
			if len(batches) < 3 {
				t.Fatalf("only %d batches", len(batches))
			}
			for i, p := range pos {
				c2 := &fakeClock{now: t0}
				s := newSource(t, c2, cols, opts)
				if err := s.Seek(p); err != nil {
					t.Fatal(err)
				}
				rest, _ := conntest.ReadPositions(t, s)
				if got, want := strings.Join(rest, ""), strings.Join(batches[i+1:], ""); got != want {
					t.Fatalf("resumed after Read %d: %d bytes of rows, want %d", i, len(got), len(want))
				}
				if strings.Contains(opts, "rows-per-second") && i == 0 {
					// The rate goes on from where it was, not from zero.
					if want := time.Duration(float64(3000-len(strings.Split(batches[0], "\n"))+1) / 500 * float64(time.Second)); c2.slept < want-time.Second {
						t.Errorf("resumed at the rate: slept %v, want about %v", c2.slept, want)
					}
				}
			}
		})
	}
	s := newSource(t, &fakeClock{now: t0}, cols, "")
	for _, bad := range []string{"", `{"v":2}`, `{"v":1,"seq":[1,2],"rand":""}`, `{"v":1,"seq":[],"rand":"AAAA"}`} {
		if err := s.Seek([]byte(bad)); err == nil {
			t.Errorf("Seek(%q) accepted", bad)
		}
	}
}
