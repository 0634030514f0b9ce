package web

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/metrics"
)

// numSeries is one line of a history chart: a value per snapshot.
type numSeries struct {
	name, color string
	at          []time.Time
	v           []float64
}

// historyChart draws series over wall-clock time, server-side: id names
// the SVG (the tests find it by it), unit formats the axis' values.
func historyChart(id, label string, ss []numSeries, unit func(float64) string) template.HTML {
	const w, hgt, left, right, top, bottom = 900.0, 220.0, 110.0, 20.0, 15.0, 35.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="%s" class="chart" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		id, w, hgt, w, hgt, template.HTMLEscapeString(label))
	var t0, t1 time.Time
	lo, hi, n := 0.0, 0.0, 0
	for _, s := range ss {
		for i, at := range s.at {
			if t0.IsZero() || at.Before(t0) {
				t0 = at
			}
			if at.After(t1) {
				t1 = at
			}
			hi = max(hi, s.v[i])
			n++
		}
	}
	if n == 0 {
		b.WriteString(`<text x="20" y="40">Nothing yet.</text></svg>`)
		return template.HTML(b.String()) //nolint:gosec // fixed text
	}
	if hi-lo < 4 {
		hi = lo + 4 // whole ticks for small counts
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Second
	}
	x := func(at time.Time) float64 { return left + (w-left-right)*float64(at.Sub(t0))/float64(span) }
	y := func(v float64) float64 { return top + (hgt-top-bottom)*(1-(v-lo)/(hi-lo)) }
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`, left, top, left, hgt-bottom)
	fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999"/>`, left, hgt-bottom, w-right, hgt-bottom)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11" text-anchor="end">%s</text>`, left-6, y(v)+4, template.HTMLEscapeString(unit(v)))
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#eee"/>`, left, y(v), w-right, y(v))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11">%s</text>`, left, hgt-bottom+16, t0.UTC().Format("15:04:05"))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="11" text-anchor="end">%s (wall clock, UTC)</text>`, w-right, hgt-bottom+16, t1.UTC().Format("15:04:05"))
	for _, s := range ss {
		var d strings.Builder
		for i, at := range s.at {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, x(at), y(s.v[i]))
		}
		fmt.Fprintf(&b, `<path class="series" data-name="%s" data-points="%d" data-last="%s" d="%s" fill="none" stroke="%s" stroke-width="2"/>`,
			template.HTMLEscapeString(s.name), len(s.at), strconv.FormatFloat(s.v[len(s.v)-1], 'g', -1, 64), strings.TrimSpace(d.String()), s.color)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped names
}

// legend is a chart's legend: a coloured mark and the name of each series.
func legend(ss []numSeries) template.HTML {
	var b strings.Builder
	b.WriteString(`<p class="legend">`)
	for _, s := range ss {
		fmt.Fprintf(&b, `<span style="background:%s"></span>%s `, s.color, template.HTMLEscapeString(s.name))
	}
	b.WriteString(`</p>`)
	return template.HTML(b.String()) //nolint:gosec // escaped names, colours from the palette
}

// stateSeries is the state of each stateful operator over h (rows, or
// bytes in memory when bytes), its subtasks summed: one series per
// operator that has held state.
func stateSeries(h []metrics.Snapshot, bytes bool) []numSeries {
	var ss []numSeries
	idx := map[string]int{}
	for _, snap := range h {
		sum := map[string]float64{}
		var order []string
		for _, o := range snap.Operators {
			if o.PeakState == 0 && o.StateMem == 0 {
				if _, seen := idx[o.ID]; !seen {
					continue
				}
			}
			if _, ok := sum[o.ID]; !ok {
				order = append(order, o.ID)
			}
			v := float64(o.StateRows)
			if bytes {
				v = float64(o.StateMem)
			}
			sum[o.ID] += v
			if _, ok := idx[o.ID]; !ok {
				idx[o.ID] = len(ss)
				ss = append(ss, numSeries{name: o.Name + " [" + o.ID + "]", color: palette[len(ss)%len(palette)]})
			}
		}
		for _, id := range order {
			s := &ss[idx[id]]
			s.at = append(s.at, snap.At)
			s.v = append(s.v, sum[id])
		}
	}
	return ss
}

// lateSeries is the late rows of each table over h (counted since the job
// started), in the colours of the event-time chart.
func lateSeries(h []metrics.Snapshot) []numSeries {
	var ss []numSeries
	idx := map[string]int{}
	for _, snap := range h {
		for _, src := range snap.Sources {
			i, ok := idx[src.Table]
			if !ok {
				i = len(ss)
				idx[src.Table] = i
				ss = append(ss, numSeries{name: src.Table, color: palette[i%len(palette)]})
			}
			ss[i].at = append(ss[i].at, snap.At)
			ss[i].v = append(ss[i].v, float64(src.Late))
		}
	}
	return ss
}

func count(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

func bytesAxis(v float64) string { return humanBytes(int64(v)) }
