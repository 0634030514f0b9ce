package metrics

import (
	"io"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/streamsql/streamsql/exec"
)

// BenchmarkScrape is the CPU of one scrape of /metrics for a job of 4
// sources, 10 operators in 4 subtasks each (two inputs apiece) and 4
// sinks, Go's runtime metrics included. A scrape reads atomics only: the
// job's rows pay nothing for it, and the process pays this much per scrape
// (Prometheus scrapes every 15 s by default).
func BenchmarkScrape(b *testing.B) {
	job := &exec.Job{}
	for i := range 4 {
		job.Sources = append(job.Sources, counters("t"+strconv.Itoa(i), 0))
		job.Sinks = append(job.Sinks, counters("s"+strconv.Itoa(i), 0))
	}
	for op := range 10 {
		for sub := range 4 {
			c := counters("Join"+strconv.Itoa(op), sub)
			c.Inputs = []*exec.InputWatermark{{Name: "a"}, {Name: "b"}}
			job.Operators = append(job.Operators, c)
		}
	}
	r := &Registry{}
	r.Add(&Job{Name: "bench", Exec: job})
	h := promhttp.HandlerFor(NewPrometheusRegistry(r), promhttp.HandlerOpts{})
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		_, _ = io.Copy(io.Discard, w.Body)
	}
}
