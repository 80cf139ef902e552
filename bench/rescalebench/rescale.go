package rescalebench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// viewName is the view the benchmark rescales.
const viewName = "v"

// alterTimeout bounds one rescale.
const alterTimeout = 30 * time.Minute

// alterStatement is the ALTER that rescales the view to parallelism to
// with strategy s (and step, for fluid, unless 0: the server's default).
func alterStatement(s Strategy, to, step int) string {
	with := fmt.Sprintf("strategy = '%s'", s.base())
	if s.base() == Fluid && step > 0 {
		with += fmt.Sprintf(", step = %d", step)
	}
	if c := s.cache(); c != "" {
		with += fmt.Sprintf(", cache = '%s'", c)
	}
	return fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d WITH (%s)", viewName, to, with)
}

// watchEvery is how often the rescale's progress is read while it runs.
const watchEvery = 20 * time.Millisecond

// rescale runs the ALTER on conn and returns when it started and ended,
// and the times, seen on watch meanwhile, that the server counted another
// step done.
func rescale(ctx context.Context, conn, watch *pgx.Conn, s Strategy, to, step int) (span, []time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, alterTimeout)
	defer cancel()
	done := make(chan struct{})
	var steps []time.Time
	var wg sync.WaitGroup
	wg.Go(func() { steps = watchSteps(ctx, watch, done) })
	w := span{from: time.Now()}
	_, err := conn.Exec(ctx, alterStatement(s, to, step))
	w.to = time.Now()
	close(done)
	wg.Wait()
	return w, steps, err
}

// watchSteps reads the view's rescale progress on conn every watchEvery
// until done and returns the times steps_done changed. Reads that fail
// (the rescale not yet listed) are passed over.
func watchSteps(ctx context.Context, conn *pgx.Conn, done <-chan struct{}) []time.Time {
	var changes []time.Time
	last := -1
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		var phase string
		var n int
		err := conn.QueryRow(ctx, "SELECT phase, steps_done FROM streamdb_catalog.rescale_jobs WHERE name = $1", viewName).Scan(&phase, &n)
		if err == nil && phase == "moving" && n != last {
			if last >= 0 {
				changes = append(changes, time.Now())
			}
			last = n
		}
		select {
		case <-done:
			return changes
		case <-tick.C:
		}
	}
}

// readRescaleJob fills r's vnodes, steps, bytes moved, migration rate and elapsed time from the view's
// row of streamdb_catalog.rescale_jobs, and checks that the server says
// the rescale of strategy r.Strategy to r.To is done.
func readRescaleJob(ctx context.Context, conn *pgx.Conn, r *Result) error {
	var strategy, phase, errText string
	var to int
	var elapsedMs int64
	var rate *float64
	err := conn.QueryRow(ctx, `SELECT strategy, phase, to_parallelism, vnodes_moved, vnodes_total, steps_done, bytes_moved, cache_bytes_moved,
		elapsed_ms, coalesce(error, ''), mb_per_s FROM streamdb_catalog.rescale_jobs WHERE name = $1`, viewName).
		Scan(&strategy, &phase, &to, &r.VNodesMoved, &r.VNodesTotal, &r.Steps, &r.BytesMoved, &r.CacheBytesMoved, &elapsedMs, &errText, &rate)
	r.ServerElapsedMs = float64(elapsedMs)
	if rate != nil {
		r.MigrationMBPerS = *rate
	}
	if err != nil {
		return fmt.Errorf("read streamdb_catalog.rescale_jobs: %w", err)
	}
	if strategy != string(r.Strategy.base()) || phase != "done" || to != r.To {
		return fmt.Errorf("streamdb_catalog.rescale_jobs says strategy %s, phase %s, to parallelism %d (error %q) after the ALTER returned; want %s, done, %d",
			strategy, phase, to, errText, r.Strategy, r.To)
	}
	return nil
}

// checkParallelism checks, in streamdb_catalog.fragments, that the view
// was rescaled from parallelism from to to: some fragment runs at to and
// none at from any more (a fragment may run as a single actor at any
// parallelism).
func checkParallelism(ctx context.Context, conn *pgx.Conn, from, to int) error {
	rows, err := conn.Query(ctx, `SELECT DISTINCT parallelism FROM streamdb_catalog.fragments WHERE name = $1`, viewName)
	if err != nil {
		return fmt.Errorf("read streamdb_catalog.fragments: %w", err)
	}
	ps, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("read streamdb_catalog.fragments: %w", err)
	}
	if !slices.Contains(ps, int32(to)) || slices.Contains(ps, int32(from)) && from != 1 {
		return fmt.Errorf("streamdb_catalog.fragments: the fragments of %s run at parallelisms %v after the rescale from %d to %d", viewName, ps, from, to)
	}
	return nil
}
