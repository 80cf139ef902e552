package main

import (
	"log/slog"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof/ on http.DefaultServeMux
)

// serveProfiler serves Go's profiler on addr in the background, so that
// `go tool pprof http://addr/debug/pprof/profile` profiles a running node.
// A failure to listen is logged, not fatal: profiling is a diagnostic.
func serveProfiler(addr string, logger *slog.Logger) {
	go func() {
		logger.Info("profiler listening", "addr", "http://"+addr+"/debug/pprof/")
		if err := http.ListenAndServe(addr, nil); err != nil {
			logger.Error("profiler stopped", "addr", addr, "err", err)
		}
	}()
}
