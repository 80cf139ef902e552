// Package writebench is `streamdb bench writers`: concurrent clients doing
// single-row INSERTs into a table that a materialized view aggregates, on
// one node or a cluster, each INSERT acknowledged once its epoch is
// committed. It reports rows per second and the acknowledgement latency,
// the figures that show whether concurrent writers share commits (group
// commit) or queue behind each other.
package writebench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/latency"
)

// Config configures a run.
type Config struct {
	// Binary is the streamdb binary to start servers from.
	Binary string
	// Writers is the number of concurrent clients, spread over the nodes.
	Writers int
	// Nodes is the number of node processes (one cluster).
	Nodes int
	// Duration is how long the writers write.
	Duration time.Duration
	// BarrierMS is the barrier interval of the servers.
	BarrierMS int
	// JSON, if set, receives the result.
	JSON     string
	Out, Err io.Writer
}

// Result is a run's figures.
type Result struct {
	Writers    int     `json:"writers"`
	Nodes      int     `json:"nodes"`
	Rows       int64   `json:"rows"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	MaxMS      float64 `json:"max_ms"`
	Errors     int64   `json:"errors"`
}

// Run starts the servers, runs the writers and reports.
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{Writers: cfg.Writers, Nodes: cfg.Nodes}
	servers, err := benchkit.StartCluster(ctx, cfg.Binary, cfg.Nodes, 0, cfg.BarrierMS, nil)
	if err != nil {
		return res, err
	}
	defer func() {
		for _, s := range servers {
			_ = s.Stop()
		}
	}()
	setup, err := pgx.Connect(ctx, servers[0].ConnString())
	if err != nil {
		return res, err
	}
	defer setup.Close(context.Background())
	for _, q := range []string{
		"CREATE TABLE w (id BIGINT PRIMARY KEY, g INT, v INT)",
		"CREATE MATERIALIZED VIEW wv AS SELECT g, count(*) AS n, sum(v) AS s FROM w GROUP BY g",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			return res, fmt.Errorf("%s: %w", q, err)
		}
	}
	conns := make([]*pgx.Conn, cfg.Writers)
	for i := range conns {
		if conns[i], err = pgx.Connect(ctx, servers[i%len(servers)].ConnString()); err != nil {
			return res, err
		}
		defer conns[i].Close(context.Background())
	}
	var (
		hist     latency.Histogram
		mu       sync.Mutex
		rows     atomic.Int64
		failures atomic.Int64
		firstErr atomic.Pointer[error]
		wg       sync.WaitGroup
	)
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := int64(i); runCtx.Err() == nil; id += int64(cfg.Writers) {
				t0 := time.Now()
				_, err := c.Exec(runCtx, "INSERT INTO w VALUES ($1, $2, $3)", id, id%100, 1)
				if runCtx.Err() != nil {
					return
				}
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, &err)
					continue
				}
				d := time.Since(t0)
				mu.Lock()
				hist.Record(d)
				mu.Unlock()
				rows.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sum := hist.Summary()
	res.Rows, res.Errors, res.Seconds = rows.Load(), failures.Load(), elapsed.Seconds()
	res.RowsPerSec = float64(res.Rows) / elapsed.Seconds()
	res.P50MS, res.P99MS, res.MaxMS = ms(sum.P50), ms(sum.P99), ms(sum.Max)
	var viewRows int64
	if _, err := setup.Exec(ctx, "FLUSH"); err != nil {
		return res, err
	}
	if err := setup.QueryRow(ctx, "SELECT coalesce(sum(n), 0) FROM wv").Scan(&viewRows); err != nil {
		return res, err
	}
	fmt.Fprintf(cfg.Out, "writers=%d nodes=%d rows=%d rows/s=%.0f ack p50=%.1fms p99=%.1fms max=%.1fms errors=%d (view counts %d rows)\n",
		res.Writers, res.Nodes, res.Rows, res.RowsPerSec, res.P50MS, res.P99MS, res.MaxMS, res.Errors, viewRows)
	if e := firstErr.Load(); e != nil {
		fmt.Fprintf(cfg.Err, "the first failed INSERT: %v\n", *e)
	}
	if viewRows < res.Rows {
		return res, fmt.Errorf("the view counts %d rows but %d INSERTs were acknowledged", viewRows, res.Rows)
	}
	if cfg.JSON != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return res, err
		}
		if err := os.WriteFile(cfg.JSON, append(b, '\n'), 0o644); err != nil {
			return res, err
		}
	}
	if res.Rows == 0 {
		return res, errors.New("no INSERT was acknowledged")
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
