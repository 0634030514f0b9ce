package web

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/metrics"
)

// The job graph, drawn on the server as SVG: one box per operator of the
// physical plan (the ids its counters carry), its inputs on its left, each
// box with EXPLAIN's line for the operator and, from the optimized logical
// plan, its changelog mode, upsert keys and state retention, then what it
// does now: rows per second in and out, its state.

// Box geometry, in SVG user units (pixels at 100%).
const (
	boxW, boxGapX, boxGapY = 340.0, 60.0, 24.0
	lineH, padX, padY      = 14.0, 8.0, 6.0
	wrapAt                 = 50 // characters of 11px monospace in a box
)

// rates are an operator's rows per second in and out, over the last
// seconds of its history.
type rates struct {
	in, out float64
	ok      bool
}

// vertexNow is what one graph node does now: summed over its subtasks.
type vertexNow struct {
	in, out            int64
	stateRows          int64
	stateMem, stateDis int64
	stateful           bool
	alert              bool
	rate               rates
}

// rateWindow is how far back throughput is measured.
const rateWindow = 5 * time.Second

// counts sums the rows in and out of each vertex (source, operator, sink)
// of a snapshot, by id.
func counts(s metrics.Snapshot) map[string]*vertexNow {
	out := map[string]*vertexNow{}
	at := func(id string) *vertexNow {
		v := out[id]
		if v == nil {
			v = &vertexNow{}
			out[id] = v
		}
		return v
	}
	for i, src := range s.Sources {
		v := at(vid(src.ID, "source", i))
		v.in += src.RowsRead
		v.out += src.RowsRead
		v.alert = v.alert || src.GapAlerting
	}
	for _, o := range s.Operators {
		v := at(o.ID)
		v.in += o.In
		v.out += o.Out
		v.stateRows += o.StateRows
		v.stateMem += o.StateMem
		v.stateDis += o.StateDisk
		v.stateful = v.stateful || o.PeakState > 0 || o.StateMem > 0
	}
	for i, k := range s.Sinks {
		v := at(vid(k.ID, "sink", i))
		v.in += k.In
		v.out += k.Written
	}
	return out
}

// now is the vertices' state in the last snapshot of h, with their rates
// over the last rateWindow of it (or as much of it as there is).
func now(h []metrics.Snapshot) map[string]*vertexNow {
	if len(h) == 0 {
		return map[string]*vertexNow{}
	}
	last := h[len(h)-1]
	cur := counts(last)
	first := 0
	for first < len(h)-1 && last.At.Sub(h[first].At) > rateWindow {
		first++
	}
	dt := last.At.Sub(h[first].At).Seconds()
	if dt <= 0 {
		return cur
	}
	for id, was := range counts(h[first]) {
		if v := cur[id]; v != nil {
			v.rate = rates{in: float64(v.in-was.in) / dt, out: float64(v.out-was.out) / dt, ok: true}
		}
	}
	return cur
}

// wrap cuts s into lines of at most n characters, at spaces where it can.
func wrap(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := strings.LastIndexByte(s[:n+1], ' ')
		if cut <= 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = strings.TrimLeft(s[cut:], " ")
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func humanRate(r float64) string {
	switch {
	case r >= 1e6:
		return strconv.FormatFloat(r/1e6, 'f', 2, 64) + "M/s"
	case r >= 1e4:
		return strconv.FormatFloat(r/1e3, 'f', 1, 64) + "k/s"
	default:
		return strconv.FormatFloat(r, 'f', 0, 64) + "/s"
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return strconv.FormatInt(n, 10) + " B"
}

type box struct {
	node  metrics.Node
	col   int
	x, y  float64
	lines []boxLine
	h     float64
}

type boxLine struct {
	text, class string
}

// jobGraph draws the graph of a job's operators (nil: an empty drawing
// saying so) with what each does now, from its history h.
func jobGraph(graph []metrics.Node, h []metrics.Snapshot) template.HTML {
	var b strings.Builder
	if len(graph) == 0 {
		return template.HTML(`<p id="graph">No plan.</p>`)
	}
	vs := now(h)
	byID := map[string]int{}
	for i, n := range graph {
		byID[n.ID] = i
	}
	// Columns: a node stands right of all its inputs.
	col := make([]int, len(graph))
	var depth func(i int, seen map[int]bool) int
	depth = func(i int, seen map[int]bool) int {
		if seen[i] {
			return 0 // a cycle cannot happen in a plan; never loop
		}
		seen[i] = true
		d := 0
		for _, in := range graph[i].Inputs {
			if j, ok := byID[in]; ok {
				d = max(d, depth(j, seen)+1)
			}
		}
		delete(seen, i)
		return d
	}
	boxes := make([]*box, len(graph))
	nextY := map[int]float64{}
	width, height := 0.0, 0.0
	for i, n := range graph {
		col[i] = depth(i, map[int]bool{})
		bx := &box{node: n, col: col[i]}
		bx.lines = append(bx.lines, boxLine{n.Title, "title"}, boxLine{n.ID, "id"})
		for _, l := range wrap(n.Detail, wrapAt) {
			bx.lines = append(bx.lines, boxLine{l, "detail"})
		}
		for _, note := range n.Notes {
			for _, l := range wrap(note, wrapAt) {
				bx.lines = append(bx.lines, boxLine{l, "note"})
			}
		}
		if v := vs[n.ID]; v != nil {
			if v.rate.ok {
				bx.lines = append(bx.lines, boxLine{"in " + humanRate(v.rate.in) + " · out " + humanRate(v.rate.out), "rate"})
			}
			bx.lines = append(bx.lines, boxLine{fmt.Sprintf("rows in %d · out %d", v.in, v.out), "rows"})
			if v.stateful {
				bx.lines = append(bx.lines, boxLine{fmt.Sprintf("state %d rows · %s · disk %s", v.stateRows, humanBytes(v.stateMem), humanBytes(v.stateDis)), "state"})
			}
		}
		bx.h = 2*padY + lineH*float64(len(bx.lines))
		bx.x = 10 + float64(bx.col)*(boxW+boxGapX)
		bx.y = 10 + nextY[bx.col]
		nextY[bx.col] += bx.h + boxGapY
		width = max(width, bx.x+boxW+10)
		height = max(height, bx.y+bx.h+10)
		boxes[i] = bx
	}
	fmt.Fprintf(&b, `<svg id="graph" class="graph" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" style="max-width:100%%;height:auto" role="img" aria-label="job graph">`, width, height, width, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#888"/></marker></defs>`)
	for i, bx := range boxes {
		for port, in := range graph[i].Inputs {
			j, ok := byID[in]
			if !ok {
				continue
			}
			from := boxes[j]
			x1, y1 := from.x+boxW, from.y+from.h/2
			x2, y2 := bx.x, bx.y+bx.h/2
			mid := (x1 + x2) / 2
			fmt.Fprintf(&b, `<path class="edge" data-from="%s" data-to="%s" data-port="%d" d="M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f" fill="none" stroke="#888" stroke-width="1.5" marker-end="url(#arrow)"/>`,
				template.HTMLEscapeString(in), template.HTMLEscapeString(bx.node.ID), port, x1, y1, mid, y1, mid, y2, x2, y2)
		}
	}
	for _, bx := range boxes {
		stroke, fill := "#555", "#fff"
		switch v := vs[bx.node.ID]; {
		case v != nil && v.alert:
			stroke, fill = "#c00", "#fdd"
		case bx.node.Unbounded:
			stroke, fill = "#d80", "#fff6e6"
		}
		fmt.Fprintf(&b, `<g class="node" data-id="%s" data-kind="%s">`, template.HTMLEscapeString(bx.node.ID), template.HTMLEscapeString(bx.node.Kind))
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" rx="5" fill="%s" stroke="%s"/>`, bx.x, bx.y, boxW, bx.h, fill, stroke)
		for k, l := range bx.lines {
			attrs := `font-size="11" font-family="monospace"`
			switch l.class {
			case "title":
				attrs = `font-size="12" font-weight="bold" font-family="sans-serif"`
			case "id":
				attrs += ` fill="#888"`
			case "note":
				attrs += ` fill="#245"`
			case "rate", "state":
				attrs += ` fill="#060"`
			}
			fmt.Fprintf(&b, `<text class="%s" x="%g" y="%g" %s>%s</text>`, l.class, bx.x+padX, bx.y+padY+lineH*float64(k+1)-3, attrs, template.HTMLEscapeString(l.text))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped text
}
