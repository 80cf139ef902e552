package main

import (
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof/ on http.DefaultServeMux
	"os"
	"runtime/pprof"
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

// profileCPU starts a CPU profile written to path; the returned function
// ends it (at shutdown).
func profileCPU(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
