package main

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ast"
	"github.com/streamsql/streamsql/expr"
	"github.com/streamsql/streamsql/logical"
	"github.com/streamsql/streamsql/metrics"
	"github.com/streamsql/streamsql/physical"
	"github.com/streamsql/streamsql/planner"
)

// jobGraph is the graph the web UI draws for a job: the operators of the
// physical plans run builds (planner.Lower is deterministic: the ids are
// those of the job's counters), inputs first, an operator shared by
// several statements (a source read once) once. Each has EXPLAIN's
// physical line and, from the optimized logical plan, the changelog mode,
// upsert keys, watermark delay and state retention of the logical node it
// was lowered from, as EXPLAIN prints them. Nil when the plans do not
// lower (the job would not build either).
func jobGraph(plans []*planner.Plan) []metrics.Node {
	var run []*planner.Plan
	for _, p := range plans {
		if p.Explain == nil {
			run = append(run, p)
		}
	}
	phys, err := planner.Lower(run)
	if err != nil {
		return nil
	}
	var out []metrics.Node
	seen := map[string]bool{}
	for k, pp := range phys {
		lg := logicalBySpan(run[k])
		var walk func(n physical.Node)
		walk = func(n physical.Node) {
			o := n.Base()
			if seen[o.ID] {
				return
			}
			seen[o.ID] = true
			var inputs []string
			for _, in := range n.Inputs() {
				walk(in)
				inputs = append(inputs, in.Base().ID)
			}
			line := physical.Describe(n)
			kind, _, _ := strings.Cut(line, "[")
			_, detail, _ := strings.Cut(line, "] ")
			node := metrics.Node{ID: o.ID, Kind: kind, Detail: detail, Inputs: inputs}
			switch x := n.(type) {
			case *physical.Source:
				node.Title = "Source: " + o.Name
			case *physical.Sink:
				node.Title = "Sink: " + o.Name
				if x.Query {
					node.Title = "Sink: " + o.Name + " (SELECT)"
				}
			default:
				node.Title = o.Name
			}
			if ln := lg.match(kind, o.Span); ln != nil {
				node.Notes, node.Unbounded = notes(run[k], ln)
			}
			out = append(out, node)
		}
		walk(pp.Root)
	}
	return out
}

// planTexts are the EXPLAIN texts the web UI shows for a job's plans,
// lowered together as run lowers them: their operator ids are those of the
// job's counters and graph (a plan lowered alone may number the operators
// of a job's second statement otherwise).
func planTexts(plans []*planner.Plan) []string { return planner.ExplainJob(plans) }

// logicalNodes are the nodes of one logical plan by the span of SQL they
// came from, for matching the physical nodes lowered from them.
type logicalNodes map[string][]logical.Node

func logicalBySpan(p *planner.Plan) logicalNodes {
	m := logicalNodes{}
	var walk func(n logical.Node)
	walk = func(n logical.Node) {
		k := fmt.Sprint(n.Span())
		m[k] = append(m[k], n)
		for _, c := range logical.Children(n) {
			walk(c)
		}
	}
	walk(p.Root)
	return m
}

// lowersFrom names the logical node types each physical kind is lowered
// from (planner/lower.go).
var lowersFrom = map[string][]string{
	"Source":             {"*logical.Scan"},
	"Calc":               {"*logical.Filter", "*logical.Project"},
	"UnionAll":           {"*logical.Union"},
	"Window":             {"*logical.Window"},
	"Correlate":          {"*logical.Correlate"},
	"Join":               {"*logical.Join"},
	"IntervalJoin":       {"*logical.IntervalJoin"},
	"WindowJoin":         {"*logical.WindowJoin"},
	"TemporalJoin":       {"*logical.TemporalJoin"},
	"GroupAggregate":     {"*logical.Aggregate"},
	"WindowAggregate":    {"*logical.WindowAggregate"},
	"ChangelogNormalize": {"*logical.ChangelogNormalize"},
	"UpsertMaterialize":  {"*logical.UpsertMaterialize"},
	"Sink":               {"*logical.Sink"},
}

// match is the logical node a physical node of kind was lowered from: the
// one node of a type kind is lowered from with the same span; nil when
// there is none or more than one (the graph then shows EXPLAIN's physical
// line alone rather than another node's properties).
func (m logicalNodes) match(kind string, span any) logical.Node {
	var found logical.Node
	for _, n := range m[fmt.Sprint(span)] {
		for _, t := range lowersFrom[kind] {
			if fmt.Sprintf("%T", n) == t {
				if found != nil && found != n {
					return nil
				}
				found = n
			}
		}
	}
	return found
}

// notes are what EXPLAIN's optimized logical plan says of n: its changelog
// mode and upsert keys, its watermark delay and its state, and whether
// some of its state is never freed.
func notes(p *planner.Plan, n logical.Node) ([]string, bool) {
	props := p.Props[n]
	if props == nil {
		return nil, false
	}
	line := "mode=" + props.Mode.String()
	cols := n.Columns()
	if len(props.Keys) > 0 {
		var ks []string
		for _, k := range props.Keys {
			names := make([]string, len(k))
			for i, c := range k {
				names[i] = colName(cols, c)
			}
			ks = append(ks, "("+strings.Join(names, ", ")+")")
		}
		line += " keys=" + strings.Join(ks, ",")
	}
	out := []string{line}
	if props.WatermarkDelay > 0 {
		out = append(out, "watermark: held back "+expr.FormatMillis(props.WatermarkDelay)+" behind the inputs'")
	}
	for _, s := range props.State {
		out = append(out, "state: "+s)
	}
	return out, props.Unbounded
}

// colName names column i of cols as EXPLAIN does: qualified by its table
// when the name alone is ambiguous.
func colName(cols []logical.Column, i int) string {
	if i < 0 || i >= len(cols) {
		return fmt.Sprintf("$%d", i)
	}
	c, n := cols[i], 0
	for _, o := range cols {
		if o.Name == c.Name {
			n++
		}
	}
	if n > 1 && c.Qualifier != "" {
		return ast.QuoteIdent(c.Qualifier) + "." + ast.QuoteIdent(c.Name)
	}
	return ast.QuoteIdent(c.Name)
}
