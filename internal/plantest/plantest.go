// Package plantest holds what the tests of several packages need of the
// planner: the physical plans of checked plans, as exec.Build takes them.
// Only tests import it (exec itself depends on no planner).
package plantest

import (
	"testing"

	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/planner"
)

// Lower lowers checked plans to the physical plans exec.Build takes,
// failing the test when they cannot be.
func Lower(tb testing.TB, plans []*planner.Plan) []*physical.Plan {
	tb.Helper()
	ps, err := planner.Lower(plans)
	if err != nil {
		tb.Fatalf("lowering: %v", err)
	}
	return ps
}
