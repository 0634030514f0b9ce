package web

import (
	"html/template"
	"net/http"
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
	Job      *metrics.Job
	State    string
	Chart    template.HTML
	Sources  []sourceRow
	Ops      []metrics.Operator
	Sinks    []metrics.Sink
	Warnings []string
	Now      string
}

var jobPage = template.Must(template.New("job").Funcs(template.FuncMap{"ms": exec.FormatMillis}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>{{.Job.Name}} · streamsql</title><style>` + style + `</style></head>
<body>
<p><a href="../">jobs</a></p>
<h1>{{.Job.Name}}</h1>
<p>job {{.Job.ID}} · <b id="state">{{.State}}</b> · {{.Now}} UTC · refreshes every 2 s</p>
<h2>Event time per input</h2>
<p class="legend">solid: watermark, dashed: max event time; one colour per input.
{{range .Sources}}<span style="background:{{.Color}}"></span>{{.Table}}{{end}}</p>
{{.Chart}}
<table id="sources">
<tr><th>table</th><th>rows read</th><th>watermark</th><th>max event time</th><th>gap</th><th>lag</th><th>late</th><th>bad</th><th></th></tr>
{{range .Sources}}<tr class="{{if .Alert}}alert{{end}}" data-table="{{.Table}}"><td>{{.Table}}</td><td class="n">{{.RowsRead}}</td><td>{{.WM}}</td><td>{{.Max}}</td><td class="n">{{.Gap}}</td><td class="n">{{.Lag}}</td><td class="n">{{.Late}}</td><td class="n">{{.BadRows}}</td><td>{{if .Alert}}gap alert{{end}}{{if .Idle}} idle{{end}}{{if .Paused}} paused by alignment{{end}}</td></tr>
{{end}}</table>
<h2>Operators</h2>
<table id="operators">
<tr><th>id</th><th>name</th><th>subtask</th><th>rows in</th><th>rows out</th><th>late</th><th>state rows</th><th>watermark</th><th>inputs</th></tr>
{{range .Ops}}<tr data-operator="{{.ID}}"><td>{{.ID}}</td><td>{{.Name}}</td><td class="n">{{.Subtask}}</td><td class="n">{{.In}}</td><td class="n">{{.Out}}</td><td class="n">{{.Late}}</td><td class="n">{{.StateRows}}</td><td>{{ms .Watermark}}</td><td>{{range .Inputs}}{{.Name}}: {{ms .Watermark}}<br>{{end}}</td></tr>
{{end}}</table>
<h2>Sinks</h2>
<table><tr><th>table</th><th>rows written</th><th>write errors</th></tr>
{{range .Sinks}}<tr><td>{{.Table}}</td><td class="n">{{.Written}}</td><td class="n">{{.WriteErrors}}</td></tr>{{end}}</table>
<h2>Warnings</h2>
{{range .Warnings}}<p class="warning">{{.}}</p>{{else}}<p>None.</p>{{end}}
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
	v := jobView{Job: j, State: j.State(), Chart: eventTimeChart(h), Ops: snap.Operators, Sinks: snap.Sinks,
		Warnings: j.Exec.Warnings(), Now: now.UTC().Format("2006-01-02 15:04:05")}
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
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = jobPage.Execute(w, v)
}
