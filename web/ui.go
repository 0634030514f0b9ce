package web

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/metrics"
)

type ui struct{ reg *metrics.Registry }

const style = `body{font-family:sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}
td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}td.n{text-align:right}
tr.alert td{background:#fdd;color:#a00;font-weight:bold}pre{background:#f6f6f6;padding:8px;overflow:auto}
.legend span{display:inline-block;width:24px;height:3px;margin:0 4px 3px 12px;vertical-align:middle}`

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>streamsql</title><style>` + style + `</style></head>
<body>
<h1>streamsql</h1>
<table>
<tr><th>job</th><th>name</th><th>state</th></tr>
{{range .}}<tr><td><a href="jobs/{{.ID}}">{{.ID}}</a></td><td>{{.Name}}</td><td>{{.State}}</td></tr>
{{else}}<tr><td colspan="3">No jobs.</td></tr>
{{end}}</table>
<p><a href="metrics">Prometheus metrics</a> · <a href="api/jobs">API</a></p>
</body></html>
`))

type sourceRow struct {
	metrics.Source
	Color             string
	WM, Max, Gap, Lag string
	Alert             bool
}

type jobView struct {
	Job                    *metrics.Job
	State                  string
	Graph                  template.HTML
	Chart                  template.HTML
	StateChart, StateKey   template.HTML
	MemChart               template.HTML
	LateChart, LateKey     template.HTML
	Sources                []sourceRow
	Splits                 []splitRow
	Ops                    []metrics.Operator
	Sinks                  []metrics.Sink
	Checkpoints            *checkpointRow
	Warnings, PlanWarnings []string
	Now                    string
	// Refresh is set unless the URL says ?refresh=0: the page reloads
	// itself every 2 seconds.
	Refresh bool
}

// splitRow is a split of a source with a byte count or a consumer lag.
type splitRow struct {
	Table, Name string
	Bytes, Lag  string
}

type checkpointRow struct {
	Completed, Failed int64
	Last, Age         string
}

var jobPage = template.Must(template.New("job").Funcs(template.FuncMap{"ms": exec.FormatMillis, "bytes": humanBytes}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">{{if .Refresh}}<meta http-equiv="refresh" content="2">{{end}}
<title>{{.Job.Name}} · streamsql</title><style>` + style + `</style></head>
<body>
<p><a href="../">jobs</a></p>
<h1>{{.Job.Name}}</h1>
<p>job {{.Job.ID}} · <b id="state">{{.State}}</b> · {{.Now}} UTC · {{if .Refresh}}refreshes every 2 s (<a href="?refresh=0">stop</a>){{else}}<a href="?">refresh every 2 s</a>{{end}}</p>
<h2>Job graph</h2>
<p class="legend">Each operator as EXPLAIN shows it (its changelog mode, keys and state retention), with its rows per second over the last 5 s; red: a gap alert, orange: state that is never freed.</p>
{{.Graph}}
<h2>Event time per input</h2>
<p class="legend">solid: watermark, dashed: max event time; one colour per input.
{{range .Sources}}<span style="background:{{.Color}}"></span>{{.Table}}{{end}}</p>
{{.Chart}}
<table id="sources">
<tr><th>table</th><th>rows read</th><th>watermark</th><th>max event time</th><th>gap</th><th>lag</th><th>late</th><th>bad</th><th></th></tr>
{{range .Sources}}<tr class="{{if .Alert}}alert{{end}}" data-table="{{.Table}}"><td>{{.Table}}</td><td class="n">{{.RowsRead}}</td><td>{{.WM}}</td><td>{{.Max}}</td><td class="n">{{.Gap}}</td><td class="n">{{.Lag}}</td><td class="n">{{.Late}}</td><td class="n">{{.BadRows}}</td><td>{{if .Alert}}gap alert{{end}}{{if .Idle}} idle{{end}}{{if .Paused}} paused by alignment{{end}}</td></tr>
{{end}}</table>
{{if .Splits}}<h3>Splits</h3>
<table id="splits">
<tr><th>table</th><th>split</th><th>bytes read</th><th>consumer lag (records)</th></tr>
{{range .Splits}}<tr><td>{{.Table}}</td><td>{{.Name}}</td><td class="n">{{.Bytes}}</td><td class="n">{{.Lag}}</td></tr>
{{end}}</table>{{end}}
<h2>State per operator</h2>
<p>Rows held, over the last minutes (subtasks summed).</p>
{{.StateKey}}
{{.StateChart}}
<p>Bytes in memory.</p>
{{.MemChart}}
<h2>Late rows per input</h2>
<p>Rows that arrived at or below an operator's watermark, counted since the job started.</p>
{{.LateKey}}
{{.LateChart}}
<h2>Operators</h2>
<table id="operators">
<tr><th>id</th><th>name</th><th>subtask</th><th>rows in</th><th>rows out</th><th>late</th><th>state rows</th><th>state memory</th><th>state disk</th><th>watermark</th><th>inputs</th></tr>
{{range .Ops}}<tr data-operator="{{.ID}}"><td>{{.ID}}</td><td>{{.Name}}</td><td class="n">{{.Subtask}}</td><td class="n">{{.In}}</td><td class="n">{{.Out}}</td><td class="n">{{.Late}}</td><td class="n">{{.StateRows}}</td><td class="n">{{bytes .StateMem}}</td><td class="n">{{bytes .StateDisk}}</td><td>{{ms .Watermark}}</td><td>{{range .Inputs}}{{.Name}}: {{ms .Watermark}}<br>{{end}}</td></tr>
{{end}}</table>
<h2>Sinks</h2>
<table><tr><th>table</th><th>rows written</th><th>write errors</th></tr>
{{range .Sinks}}<tr><td>{{.Table}}</td><td class="n">{{.Written}}</td><td class="n">{{.WriteErrors}}</td></tr>{{end}}</table>
{{with .Checkpoints}}<h2>Checkpoints</h2>
<table id="checkpoints"><tr><th>completed</th><th>failed</th><th>last</th><th>age</th></tr>
<tr><td class="n">{{.Completed}}</td><td class="n">{{.Failed}}</td><td>{{.Last}}</td><td>{{.Age}}</td></tr></table>{{end}}
<h2>Warnings</h2>
{{range .Warnings}}<p class="warning">{{.}}</p>{{end}}{{range .PlanWarnings}}<p class="warning plan">{{.}}</p>{{end}}{{if not (or .Warnings .PlanWarnings)}}<p>None.</p>{{end}}
<h2>Plan</h2>
{{range .Job.Plans}}<pre class="plan">{{.}}</pre>{{end}}
</body></html>
`))

func (u *ui) index(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = indexPage.Execute(w, u.reg.Jobs())
}

func (u *ui) job(w http.ResponseWriter, r *http.Request) {
	j := u.reg.Find(r.PathValue("id"))
	if j == nil {
		http.Error(w, "no job "+r.PathValue("id"), http.StatusNotFound)
		return
	}
	now := time.Now()
	snap := metrics.Take(j.Exec, now)
	h := j.History()
	if len(h) == 0 || j.End().IsZero() {
		h = append(h, snap)
	}
	state, late := stateSeries(h, false), lateSeries(h)
	v := jobView{Job: j, State: j.State(), Graph: jobGraph(j.Graph, h), Chart: eventTimeChart(h),
		StateChart: historyChart("state-rows", "state rows per operator", state, count), StateKey: legend(state),
		MemChart:  historyChart("state-bytes", "state bytes in memory per operator", stateSeries(h, true), bytesAxis),
		LateChart: historyChart("late-rows", "late rows per input", late, count), LateKey: legend(late),
		Ops: snap.Operators, Sinks: snap.Sinks, Warnings: j.Exec.Warnings(), Now: now.UTC().Format("2006-01-02 15:04:05"),
		Refresh: r.URL.Query().Get("refresh") != "0"}
	for _, n := range j.Graph {
		if !n.Unbounded {
			continue
		}
		var state []string
		for _, note := range n.Notes {
			if s, ok := strings.CutPrefix(note, "state: "); ok {
				state = append(state, s)
			}
		}
		v.PlanWarnings = append(v.PlanWarnings, n.Title+" ["+n.ID+"]: unbounded state, it grows with its keys: "+strings.Join(state, "; "))
	}
	if cp := snap.Checkpoints; cp != nil {
		row := &checkpointRow{Completed: cp.Completed, Failed: cp.Failed, Last: "none yet"}
		since := j.Start
		if !cp.LastEnd.IsZero() {
			row.Last = humanBytes(cp.LastSize) + ", taken in " + cp.LastDuration.Round(time.Millisecond).String()
			since = cp.LastEnd
		}
		row.Age = now.Sub(since).Round(time.Second).String()
		v.Checkpoints = row
	}
	for i, s := range snap.Sources {
		row := sourceRow{Source: s, Color: palette[i%len(palette)], WM: exec.FormatMillis(s.Watermark),
			Max: exec.FormatMillis(s.MaxEventTime), Alert: s.GapAlerting}
		if g, ok := s.Gap(); ok {
			row.Gap = exec.FormatDuration(g)
		}
		if metrics.Known(s.Watermark) {
			row.Lag = exec.FormatDuration(now.UnixMilli() - s.Watermark)
		}
		v.Sources = append(v.Sources, row)
		for _, sp := range s.Splits {
			if !sp.HasBytes && !sp.HasLag {
				continue
			}
			r := splitRow{Table: s.Table, Name: sp.Name}
			if sp.HasBytes {
				r.Bytes = humanBytes(sp.Bytes)
			}
			if sp.HasLag {
				r.Lag = strconv.FormatInt(sp.Lag, 10)
			}
			v.Splits = append(v.Splits, r)
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = jobPage.Execute(w, v)
}
