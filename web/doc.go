// Package web serves running jobs over HTTP: Prometheus metrics at
// /metrics, a web UI at /, and a JSON API under /api/ shaped like Flink's
// REST API (/api/jobs, /api/jobs/{id}, /api/jobs/{id}/vertices/{vid}/watermarks),
// and Go's runtime profiles under /debug/pprof/ (not the command line,
// which may hold --set values).
//
// Promises:
//   - It listens where it is told and nowhere else: Address turns --http or
//     'rest.address'/'rest.port' into an address, 127.0.0.1 when no host is
//     given; every interface only when asked for with 0.0.0.0 or [::].
//   - The UI works offline: HTML and SVG drawn on the server, the stylesheet
//     inline, no script (the page reloads itself); nothing is fetched from
//     anywhere else.
//   - A job's page draws, from the job's history (metrics.Registry samples
//     every second): the job graph (graph.go: one box per operator of the
//     physical plan, with EXPLAIN's changelog mode, keys and state
//     retention and its rows per second over the last 5 s), each input's
//     watermark and max event time (chart.go), and state and late rows
//     over time (history.go).
//   - It only reads: the jobs' numbers come from package metrics, which
//     reads the counters exec keeps; serving costs the jobs nothing on their
//     rows' path.
package web
