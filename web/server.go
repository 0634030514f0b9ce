package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/streamsql/streamsql/metrics"
	"github.com/streamsql/streamsql/settings"
)

// DefaultPort is the port of 'rest.port' when only 'rest.address' is set
// (Flink's default).
const DefaultPort = 8081

// Address resolves where to serve: flag is --http's value ("" when not
// given), set the job's settings ('rest.address', 'rest.port'). It returns ""
// when nothing asks for a server. A missing host is 127.0.0.1: the server
// listens on every interface only when asked to with 0.0.0.0 or [::].
func Address(flag string, set settings.Settings) (string, error) {
	host, port := "", ""
	switch {
	case flag != "":
		if !strings.Contains(flag, ":") {
			port = flag // a bare port
		} else {
			h, p, err := net.SplitHostPort(flag)
			if err != nil {
				return "", fmt.Errorf("--http %s: expected HOST:PORT, such as 127.0.0.1:8081", flag)
			}
			host, port = h, p
		}
	case set.RestAddress != "" || set.RestPort >= 0:
		host, port = set.RestAddress, strconv.Itoa(set.RestPort)
		if set.RestPort < 0 {
			port = strconv.Itoa(DefaultPort)
		}
	default:
		return "", nil
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("port %q: expected a number from 0 to 65535 (0: any free port)", port)
	}
	return net.JoinHostPort(host, port), nil
}

// Server serves /metrics, the web UI and the JSON API for a registry of
// jobs, and samples the jobs' history while it runs.
type Server struct {
	reg  *metrics.Registry
	srv  *http.Server
	ln   net.Listener
	stop chan struct{}
	done chan struct{}
}

// Options tune a server; the zero value is the default.
type Options struct {
	// Sample is how often the jobs' history is sampled (default 1 s).
	Sample time.Duration
}

// Start listens on addr and serves reg until Close.
func Start(addr string, reg *metrics.Registry, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot serve metrics and the web UI at %s: %w", addr, err)
	}
	if opts.Sample <= 0 {
		opts.Sample = time.Second
	}
	s := &Server{reg: reg, ln: ln, stop: make(chan struct{}), done: make(chan struct{})}
	s.srv = &http.Server{Handler: Handler(reg), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		reg.Run(opts.Sample, s.stop)
	}()
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the address the server listens on, as http://host:port/.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// Close stops serving and sampling.
func (s *Server) Close() error {
	close(s.stop)
	<-s.done
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Handler serves reg: /metrics, the UI under /, the API under /api/, and
// Go's runtime profiles under /debug/pprof/.
func Handler(reg *metrics.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(metrics.NewPrometheusRegistry(reg), promhttp.HandlerOpts{}))
	api := &api{reg: reg}
	mux.HandleFunc("GET /api/jobs", api.jobs)
	mux.HandleFunc("GET /api/jobs/{id}", api.job)
	mux.HandleFunc("GET /api/jobs/{id}/vertices/{vid}/watermarks", api.watermarks)
	ui := &ui{reg: reg}
	mux.HandleFunc("GET /", ui.index)
	mux.HandleFunc("GET /jobs/{id}", ui.job)
	// Go's profiles, for whoever asks where the process's memory or CPU
	// goes (go tool pprof http://ADDR/debug/pprof/heap). Not the command
	// line (pprof.Cmdline): it may carry --set values such as passwords;
	// Index answers /debug/pprof/cmdline with "unknown profile".
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}
