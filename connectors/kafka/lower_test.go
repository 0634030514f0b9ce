package kafka

import (
	"testing"

	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/planner"
)

// mustLower lowers checked plans to the physical plans Build takes.
func mustLower(tb testing.TB, plans []*planner.Plan) []*physical.Plan {
	tb.Helper()
	ps, err := planner.Lower(plans)
	if err != nil {
		tb.Fatalf("lowering: %v", err)
	}
	return ps
}
