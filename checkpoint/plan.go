package checkpoint

import (
	"fmt"
	"sort"
	"strings"
)

// Operator identifies one stateful operator of a job (a source, a join, an
// aggregate, a sink with pending output, ...) in a checkpoint's manifest.
type Operator struct {
	// ID is the operator's id in the physical plan, stable across runs of
	// the same job.
	ID string `json:"id"`
	// Kind names the operator, e.g. "IntervalJoin".
	Kind string `json:"kind"`
	// Layout is the version of the kind's state layout; it changes when
	// the bytes the kind snapshots change meaning.
	Layout int `json:"layout"`
	// State digests what the state's bytes depend on besides the layout:
	// the types of its keys and rows, the connector and its options.
	State string `json:"state"`
	// Describe says what the operator is, for messages ("interval join
	// orders ⋈ payments on id").
	Describe string `json:"describe,omitempty"`
}

// ComparePlan returns nil when now has exactly the operators of the
// checkpoint c, and otherwise an error that lists what changed and how to
// start over. Both a new operator and a vanished one are refused: a new
// join would start empty while its inputs resume in the middle, and a
// vanished one's state would be dropped unseen.
func ComparePlan(c *Checkpoint, stateDir string, now []Operator) error {
	old := map[string]Operator{}
	for _, o := range c.Operators {
		old[o.ID] = o
	}
	cur := map[string]Operator{}
	for _, o := range now {
		cur[o.ID] = o
	}
	var diffs []string
	for _, o := range now {
		p, ok := old[o.ID]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is new (%s)", o.ID, o.label()))
		case p.Kind != o.Kind:
			diffs = append(diffs, fmt.Sprintf("%s was %s and is now %s", o.ID, p.label(), o.label()))
		case p.Layout != o.Layout:
			diffs = append(diffs, fmt.Sprintf("%s (%s) keeps its state in layout %d now, and the checkpoint has layout %d", o.ID, o.label(), o.Layout, p.Layout))
		case p.State != o.State:
			diffs = append(diffs, fmt.Sprintf("%s (%s) holds other types or options than the checkpoint's (was: %s)", o.ID, o.label(), p.label()))
		}
	}
	for _, o := range c.Operators {
		if _, ok := cur[o.ID]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s (%s) is no longer in the job", o.ID, o.label()))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	return fmt.Errorf("the job no longer matches checkpoint %d in %s:\n  %s\nits state cannot be resumed by this job; to start over, remove %s (rm -r %s) or give another --state-dir",
		c.ID, c.Dir, strings.Join(diffs, "\n  "), stateDir, stateDir)
}

func (o Operator) label() string {
	if o.Describe != "" {
		return o.Kind + ": " + o.Describe
	}
	return o.Kind
}
