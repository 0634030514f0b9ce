package web

import (
	"html/template"
	"net/http"

	"github.com/streamsql/streamsql/metrics"
)

type ui struct{ reg *metrics.Registry }

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>streamsql</title></head>
<body>
<h1>streamsql</h1>
<table>
<tr><th>job</th><th>name</th><th>state</th></tr>
{{range .}}<tr><td><a href="api/jobs/{{.ID}}">{{.ID}}</a></td><td>{{.Name}}</td><td>{{.State}}</td></tr>
{{else}}<tr><td colspan="3">No jobs.</td></tr>
{{end}}</table>
<p><a href="metrics">Prometheus metrics</a> · <a href="api/jobs">API</a></p>
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
