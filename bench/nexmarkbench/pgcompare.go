package nexmarkbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/bench/pgbaseline"
)

// pgBatch is the number of rows per INSERT or COPY in the comparison, for
// every system.
const pgBatch = 1000

// feedName names each feed in the comparison's headings.
var feedName = map[pgbaseline.Feed]string{pgbaseline.Insert: "INSERTs", pgbaseline.Copy: "COPYs (binary)"}

// pgRefreshInterval is how often PostgreSQL's materialized view is
// refreshed.
const pgRefreshInterval = time.Second

// comparePostgres runs each pgbaseline workload on a fresh streamdb server
// (at the first parallelism) and in fresh databases of one PostgreSQL
// server, prints the rates side by side to out and checks that the
// results agree.
func comparePostgres(ctx context.Context, cfg Config, out io.Writer) (results []Result, err error) {
	bin, err := pgbaseline.Locate(cfg.Postgres, cfg.Err)
	if bin == "" || err != nil {
		return nil, err
	}
	pg, err := pgbaseline.Start(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	defer func() { err = errors.Join(err, pg.Stop()) }()
	version, err := pg.Version(ctx)
	if err != nil {
		return nil, err
	}
	p := cfg.Parallelism[0]
	bids := pgbaseline.Bids(cfg.Events)
	var errs []error
	for _, how := range pgbaseline.Feeds {
		fmt.Fprintf(out, "\nstreamdb and PostgreSQL %s side by side: the %s bids of %s events, %s of %d rows from one client, streamdb at parallelism %d\n",
			version, benchkit.Thousands(bids), benchkit.Thousands(cfg.Events), feedName[how], pgBatch, p)
		for _, w := range pgbaseline.Workloads {
			var runs []pgbaseline.Result
			for _, mode := range pgbaseline.Modes {
				r, res, err := runCompared(ctx, cfg, pg, w, how, mode, p, bids)
				if err != nil {
					errs = append(errs, fmt.Errorf("workload %s fed by %s: %w", w.Name, how, err))
					break
				}
				runs = append(runs, r)
				results = append(results, res)
			}
			if len(runs) == len(pgbaseline.Modes) {
				printComparison(out, cfg, runs)
				if err := pgbaseline.Check(runs); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return results, errors.Join(errs...)
}

// runCompared runs workload w fed by how in one mode: on a fresh streamdb
// server for pgbaseline.Streamdb (measuring it as the queries are), in a
// fresh PostgreSQL database otherwise.
func runCompared(ctx context.Context, cfg Config, pg *pgbaseline.Server, w pgbaseline.Workload, how pgbaseline.Feed, mode pgbaseline.Mode, p int, bids int64) (_ pgbaseline.Result, res Result, err error) {
	res = Result{Query: fmt.Sprintf("pg-compare:%s:%s:%s", w.Name, how, mode)}
	bar := benchkit.NewProgress(cfg.Err, fmt.Sprintf("%s by %s %s", w.Name, how, mode), "events")
	start := time.Now()
	opts := pgbaseline.Options{Events: cfg.Events, Feed: how, Batch: pgBatch, RefreshInterval: pgRefreshInterval,
		Fed: func(n int64) { bar.Update(n, bids, time.Since(start)) }}
	defer bar.Finish()
	if mode != pgbaseline.Streamdb {
		conn, err := pg.CreateDatabase(ctx, fmt.Sprintf("%s_%s_%s", w.Name, how, mode))
		if err != nil {
			return pgbaseline.Result{}, res, err
		}
		r, err := pgbaseline.Run(ctx, conn, mode, w, opts)
		fillCompared(&res, r)
		return r, res, err
	}
	srv, err := benchkit.StartServer(ctx, cfg.Binary, p, cfg.BarrierIntervalMS)
	if err != nil {
		return pgbaseline.Result{}, res, err
	}
	defer func() { err = errors.Join(err, srv.Stop()) }()
	cpu0, err := benchkit.CPUTime(srv.PID())
	if err != nil {
		return pgbaseline.Result{}, res, err
	}
	r, err := pgbaseline.Run(ctx, srv.ConnString(), mode, w, opts)
	if err != nil {
		return r, res, err
	}
	fillCompared(&res, r)
	res.Parallelism = p
	cpu1, err := benchkit.CPUTime(srv.PID())
	if err != nil {
		return r, res, err
	}
	res.EventsPerSecPerCore = benchkit.PerSecond(r.Bids, cpu1-cpu0)
	if res.PeakRSSBytes, err = benchkit.PeakRSS(srv.PID()); err != nil {
		return r, res, err
	}
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return r, res, err
	}
	defer conn.Close(context.Background())
	return r, res, readBarrierLatency(ctx, conn, &res)
}

// fillCompared sets res's figures from a comparison run.
func fillCompared(res *Result, r pgbaseline.Result) {
	res.Events, res.Seconds, res.EventsPerSec, res.Rows = r.Bids, r.Elapsed.Seconds(), r.BidsPerSec(), r.Digest.Rows
	res.MaxStalenessMs = float64(r.MaxStaleness) / float64(time.Millisecond)
	res.SlowRefreshes = r.SlowRefreshes
}

// printComparison prints one workload's rates, streamdb's first.
func printComparison(out io.Writer, cfg Config, runs []pgbaseline.Result) {
	ours := runs[0].BidsPerSec()
	for _, r := range runs {
		var note string
		switch r.Mode {
		case pgbaseline.Streamdb:
			note = fmt.Sprintf("fresh on acknowledgement (commit within a barrier interval, %d ms)", cfg.BarrierIntervalMS)
		case pgbaseline.Trigger:
			note = "fresh on commit"
		case pgbaseline.Refresh:
			note = fmt.Sprintf("worst staleness %.2f s (%d refreshes, longest %.2f s, %d over %v)",
				r.MaxStaleness.Seconds(), r.Refreshes, r.MaxRefresh.Seconds(), r.SlowRefreshes, pgRefreshInterval)
		}
		ratio := ""
		if r.Mode != pgbaseline.Streamdb && r.BidsPerSec() > 0 {
			ratio = fmt.Sprintf("streamdb/PG %.2fx", ours/r.BidsPerSec())
		}
		fmt.Fprintf(out, "  %-4s %-17s %12s bids/s  %-18s %s\n", r.Workload, r.Mode, benchkit.Thousands(int64(r.BidsPerSec())), ratio, note)
	}
	if err := pgbaseline.Check(runs); err == nil {
		fmt.Fprintf(out, "  %-4s results agree: %s rows in each\n", runs[0].Workload, benchkit.Thousands(runs[0].Digest.Rows))
	}
}
