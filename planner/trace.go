package planner

import (
	"strings"

	"github.com/streamsql/streamsql/logical"
)

// A Step is a plan as one rewrite pass left it: the bound plan ("bound"),
// then each pass of the rules that changed it or fired (rules.go), then the
// rewrites that follow from the derived properties ("materialize",
// "normalize"). Tree is the plan as EXPLAIN draws it, without properties.
type Step struct {
	Rule  string
	Fired []Firing
	Tree  string
	root  logical.Node // the plan Tree draws (TestRewritesLeaveTheirInput)
}

// tracer records the steps of one plan; a nil tracer records nothing.
type tracer struct {
	steps []Step
	last  string
}

func (t *tracer) step(rule string, root logical.Node, fired []Firing) {
	if t == nil {
		return
	}
	tree := treeText(root)
	if tree == t.last && len(fired) == 0 {
		return
	}
	t.last = tree
	t.steps = append(t.steps, Step{Rule: rule, Fired: append([]Firing(nil), fired...), Tree: tree, root: root})
}

// treeText draws a plan as EXPLAIN does, without properties: what a plan
// is before they are derived.
func treeText(root logical.Node) string {
	var b strings.Builder
	(&explainer{b: &b}).node(root, "", "")
	return b.String()
}
