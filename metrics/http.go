package metrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// readyTimeout bounds a /readyz check.
const readyTimeout = 2 * time.Second

// Handler returns the node's HTTP endpoints:
//
//	/metrics       the registry in Prometheus' text format
//	/healthz       200 while the process serves
//	/readyz        200 once ready reports nil, else 503 with its reason
//	/debug/pprof/  Go's profiler (go tool pprof http://addr/debug/pprof/profile),
//	               for clients on this machine only (403 for others)
func (r *Registry) Handler(ready func(context.Context) error) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, req *http.Request) {
		ctx, cancel := context.WithTimeout(req.Context(), readyTimeout)
		defer cancel()
		if err := ready(ctx); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("/debug/pprof/", localOnly(pprof.Index))
	mux.HandleFunc("/debug/pprof/cmdline", localOnly(pprof.Cmdline))
	mux.HandleFunc("/debug/pprof/profile", localOnly(pprof.Profile))
	mux.HandleFunc("/debug/pprof/symbol", localOnly(pprof.Symbol))
	mux.HandleFunc("/debug/pprof/trace", localOnly(pprof.Trace))
	return mux
}

// localOnly serves h to clients on the loopback interface only: the
// profiler, unauthenticated, shows the command line and the goroutines'
// stacks and costs CPU.
func localOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		host, _, err := net.SplitHostPort(req.RemoteAddr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			http.Error(w, "the profiler answers clients on the node's machine only: connect from it (ssh -L)", http.StatusForbidden)
			return
		}
		h(w, req)
	}
}
