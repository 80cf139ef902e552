package pgbaseline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Mode is how a system keeps a workload's result fresh.
type Mode string

// The modes compared.
const (
	// Streamdb keeps the result in a materialized view; an INSERT is
	// acknowledged once its epoch is committed, the view fresh with it.
	Streamdb Mode = "streamdb"
	// Trigger keeps it in a table PostgreSQL maintains with a
	// statement-level AFTER INSERT trigger over the transition table,
	// fresh when each INSERT commits.
	Trigger Mode = "postgres-trigger"
	// Refresh keeps it in a PostgreSQL materialized view that another
	// connection refreshes every RefreshInterval.
	Refresh Mode = "postgres-refresh"
)

// Modes are the modes in the order they run.
var Modes = []Mode{Streamdb, Trigger, Refresh}

// Options configure a run.
type Options struct {
	// Events is the number of Nexmark events whose bids are fed.
	Events int64
	// Feed is how the bids are sent.
	Feed Feed
	// Batch is the number of rows per statement.
	Batch int
	// RefreshInterval is the time between refreshes (Refresh).
	RefreshInterval time.Duration
	// Fed, if set, is called with the number of bids fed so far.
	Fed func(int64)
}

// Result is what one run measured.
type Result struct {
	Workload string
	Feed     Feed
	Mode     Mode
	// Bids is the number of bids fed.
	Bids int64
	// Elapsed is the time from the first INSERT until the result held
	// every bid: the last INSERT's acknowledgement (Streamdb, Trigger) or
	// the end of the refresh that followed it (Refresh).
	Elapsed time.Duration
	// Refreshes, MaxRefresh and SlowRefreshes describe the refreshes
	// (Refresh): how many ran, the longest, and how many took longer than
	// RefreshInterval.
	Refreshes     int
	MaxRefresh    time.Duration
	SlowRefreshes int
	// MaxStaleness is the worst age of the result a reader could see:
	// the longest time from a refresh's snapshot until the next refresh
	// ended (Refresh); zero for the other modes, fresh on commit.
	MaxStaleness time.Duration
	// Digest identifies the final result.
	Digest Digest
}

// BidsPerSec is the rate at which bids reached the result.
func (r Result) BidsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Bids) / r.Elapsed.Seconds()
}

// Run feeds w's bids into the empty database at connString (streamdb's
// for Streamdb, PostgreSQL's otherwise) with mode keeping w's result in
// the relation result, and measures.
func Run(ctx context.Context, connString string, mode Mode, w Workload, opts Options) (Result, error) {
	res := Result{Workload: w.Name, Feed: opts.Feed, Mode: mode}
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return res, fmt.Errorf("%s: connect: %w", mode, err)
	}
	defer conn.Close(context.Background())
	setup := []string{createBid()}
	switch mode {
	case Streamdb, Refresh:
		setup = append(setup, "CREATE MATERIALIZED VIEW result AS "+w.Query)
	case Trigger:
		setup = append(setup, w.ResultTable,
			"CREATE FUNCTION maintain_result() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "+w.Maintain+"; RETURN NULL; END $$",
			"CREATE TRIGGER maintain_result AFTER INSERT ON bid REFERENCING NEW TABLE AS new_bids FOR EACH STATEMENT EXECUTE FUNCTION maintain_result()")
	}
	for _, stmt := range setup {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return res, fmt.Errorf("%s: %s: %w", mode, stmt, err)
		}
	}
	fed := opts.Fed
	if fed == nil {
		fed = func(int64) {}
	}
	start := time.Now()
	var ref *refresher
	if mode == Refresh {
		if ref, err = startRefresher(ctx, connString, opts.RefreshInterval, start); err != nil {
			return res, err
		}
	}
	res.Bids, err = feed(ctx, conn, opts.Feed, opts.Events, opts.Batch, fed)
	if ref != nil {
		// The refresh after the last INSERT makes the result whole.
		err = errors.Join(err, ref.stop(ctx))
		res.Refreshes, res.MaxRefresh, res.SlowRefreshes, res.MaxStaleness = ref.summary(opts.RefreshInterval)
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", mode, err)
	}
	res.Elapsed = time.Since(start)
	if res.Digest, err = DigestOf(ctx, conn, "result"); err != nil {
		return res, fmt.Errorf("%s: %w", mode, err)
	}
	return res, nil
}

// refresher runs REFRESH MATERIALIZED VIEW result every interval on a
// connection of its own.
type refresher struct {
	conn     *pgx.Conn
	interval time.Duration
	// snapshots[i] is when refresh i began (its snapshot), ends[i] when it
	// ended; snapshots[0] is the start of the feed, ends[0] unused.
	snapshots, ends []time.Time
	quit            chan struct{}
	done            chan error
}

func startRefresher(ctx context.Context, connString string, interval time.Duration, start time.Time) (*refresher, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("refresher: connect: %w", err)
	}
	r := &refresher{conn: conn, interval: interval, snapshots: []time.Time{start}, ends: []time.Time{start},
		quit: make(chan struct{}), done: make(chan error, 1)}
	go func() { r.done <- r.loop(ctx) }()
	return r, nil
}

// loop refreshes every interval (at once after a refresh that took
// longer) until quit.
func (r *refresher) loop(ctx context.Context) error {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if err := r.refresh(ctx); err != nil {
			return err
		}
	}
}

func (r *refresher) refresh(ctx context.Context) error {
	began := time.Now()
	if _, err := r.conn.Exec(ctx, "REFRESH MATERIALIZED VIEW result"); err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	r.snapshots, r.ends = append(r.snapshots, began), append(r.ends, time.Now())
	return nil
}

// stop ends the loop once a running refresh has ended, then refreshes
// once more, so that the result holds every bid fed.
func (r *refresher) stop(ctx context.Context) error {
	defer r.conn.Close(context.Background())
	close(r.quit)
	if err := <-r.done; err != nil {
		return err
	}
	return r.refresh(ctx)
}

// summary returns the count of refreshes, the longest, how many took
// longer than interval, and the worst staleness: a row committed just
// after refresh i-1 took its snapshot shows once refresh i has ended.
func (r *refresher) summary(interval time.Duration) (n int, longest time.Duration, slow int, staleness time.Duration) {
	for i := 1; i < len(r.ends); i++ {
		d := r.ends[i].Sub(r.snapshots[i])
		longest = max(longest, d)
		if d > interval {
			slow++
		}
		staleness = max(staleness, r.ends[i].Sub(r.snapshots[i-1]))
	}
	return len(r.ends) - 1, longest, slow, staleness
}
