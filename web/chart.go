package web

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/metrics"
)

// palette colours one input per line; an input keeps its colour in every
// chart of the page.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

type point struct {
	at time.Time
	v  int64 // ms since the epoch
	ok bool
}

type series struct {
	name   string
	kind   string // "watermark" or "max-event-time"
	color  string
	dashed bool
	pts    []point
}

// eventTimeChart draws, server-side, one solid line per input for its
// watermark and one dashed line for its max event time, over the history:
// an input rewound or stuck stands apart from the others at a glance.
func eventTimeChart(h []metrics.Snapshot) template.HTML {
	var ss []series
	idx := map[string]int{}
	for _, snap := range h {
		for _, src := range snap.Sources {
			i, ok := idx[src.Table]
			if !ok {
				i = len(ss)
				idx[src.Table] = i
				c := palette[(i/2)%len(palette)]
				ss = append(ss, series{name: src.Table, kind: "watermark", color: c},
					series{name: src.Table, kind: "max-event-time", color: c, dashed: true})
			}
			ss[i].pts = append(ss[i].pts, point{snap.At, src.Watermark, metrics.Known(src.Watermark)})
			ss[i+1].pts = append(ss[i+1].pts, point{snap.At, src.MaxEventTime, metrics.Known(src.MaxEventTime)})
		}
	}
	const w, hgt, left, right, top, bottom = 900.0, 320.0, 170.0, 20.0, 20.0, 40.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="event-time" class="chart" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="watermark and max event time per input">`, w, hgt, w, hgt)
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var t0, t1 time.Time
	for _, s := range ss {
		for _, p := range s.pts {
			if p.ok {
				lo, hi = min(lo, p.v), max(hi, p.v)
			}
			if t0.IsZero() || p.at.Before(t0) {
				t0 = p.at
			}
			if p.at.After(t1) {
				t1 = p.at
			}
		}
	}
	if lo > hi {
		b.WriteString(`<text x="20" y="40">No event time yet.</text></svg>`)
		return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped names
	}
	if hi == lo {
		lo, hi = lo-1000, hi+1000
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Second
	}
	x := func(at time.Time) float64 { return left + (w-left-right)*float64(at.Sub(t0))/float64(span) }
	y := func(v int64) float64 { return top + (hgt-top-bottom)*(1-float64(v-lo)/float64(hi-lo)) }
	// Axes: event time on the left (5 ticks), wall clock below.
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`, left, top, left, hgt-bottom)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`, left, hgt-bottom, w-right, hgt-bottom)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*int64(i)/4
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11" text-anchor="end">%s</text>`, left-6, y(v)+4, template.HTMLEscapeString(exec.FormatMillis(v)))
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#eee"/>`, left, y(v), w-right, y(v))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11">%s</text>`, left, hgt-bottom+16, t0.UTC().Format("15:04:05"))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11" text-anchor="end">%s (wall clock, UTC)</text>`, w-right, hgt-bottom+16, t1.UTC().Format("15:04:05"))
	for _, s := range ss {
		var d strings.Builder
		pen, n := false, 0
		for _, p := range s.pts {
			if !p.ok {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, x(p.at), y(p.v))
			pen = true
			n++
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<path class="series" data-input="%s" data-kind="%s" data-points="%d" d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`,
			template.HTMLEscapeString(s.name), s.kind, n, strings.TrimSpace(d.String()), s.color, dash)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped names
}
