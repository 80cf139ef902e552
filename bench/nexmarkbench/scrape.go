package nexmarkbench

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Metrics modes of a run (Config.Metrics).
const (
	metricsOn  = "on"
	metricsOff = "off"
)

// scrapeInterval is how often a run with metrics on scrapes /metrics: a
// harsher load than Prometheus' usual 15 s.
const scrapeInterval = time.Second

// scrapeEvery scrapes http://addr/metrics every scrapeInterval until the
// returned function is called, writing each scrape into dir (if set) as
// name-NNN.prom; that function returns the first failure.
func scrapeEvery(addr, dir, name string) (stop func() error) {
	quit, done := make(chan struct{}), make(chan error, 1)
	go func() {
		var first error
		t := time.NewTicker(scrapeInterval)
		defer t.Stop()
		for i := 1; ; i++ {
			select {
			case <-quit:
				done <- first
				return
			case <-t.C:
			}
			if err := scrape(addr, dir, fmt.Sprintf("%s-%03d.prom", name, i)); err != nil && first == nil {
				first = err
			}
		}
	}()
	return func() error {
		close(quit)
		return <-done
	}
}

// scrape reads http://addr/metrics once into dir/file (dir "": nowhere).
func scrape(addr, dir, file string) error {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return fmt.Errorf("scrape /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("scrape /metrics: %s", resp.Status)
	}
	out := io.Discard
	if dir != "" {
		f, err := os.Create(filepath.Join(dir, file))
		if err != nil {
			return fmt.Errorf("write a scrape: %w", err)
		}
		defer f.Close()
		out = f
	}
	if _, err := io.Copy(out, resp.Body); err != nil {
		return fmt.Errorf("read a scrape: %w", err)
	}
	return nil
}
