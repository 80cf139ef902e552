// Package writebench is `streamdb bench writers`: concurrent clients doing
// single-row INSERTs into a table that a materialized view aggregates, on
// one node or a cluster, each INSERT acknowledged once its epoch is
// committed. It reports rows per second and the acknowledgement latency,
// the figures that show whether concurrent writers share commits (group
// commit) or queue behind each other, beside the node's barrier round trip
// (injection to commit), which bounds the latency from below. Side by
// side, PostgreSQL runs the same writers against a table whose row-level
// trigger upserts the same aggregate into another table, each INSERT
// committed (and synced) on its own.
package writebench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/latency"
)

// Config configures a run.
type Config struct {
	// Binary is the streamdb binary to start servers from.
	Binary string
	// Writers are the numbers of concurrent clients to run, each on a
	// fresh server (spread over the nodes) and a fresh PostgreSQL
	// database.
	Writers []int
	// Nodes is the number of node processes (one cluster).
	Nodes int
	// Duration is how long the writers write.
	Duration time.Duration
	// BarrierMS is the barrier interval of the servers.
	BarrierMS int
	// Postgres says whether to compare with PostgreSQL.
	Postgres pgbaseline.Use
	// JSON, if set, receives the results.
	JSON     string
	Out, Err io.Writer
}

// The systems measured.
const (
	Streamdb = "streamdb"
	Postgres = "postgres-trigger"
)

// Result is one run's figures.
type Result struct {
	// System is Streamdb or Postgres.
	System     string  `json:"system"`
	Writers    int     `json:"writers"`
	Nodes      int     `json:"nodes"`
	Rows       int64   `json:"rows"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	MaxMS      float64 `json:"max_ms"`
	Errors     int64   `json:"errors"`
	// BarrierP50MS and BarrierP99MS are streamdb's barrier round trip,
	// from injection to commit, over the server's life.
	BarrierP50MS float64 `json:"barrier_p50_ms,omitempty"`
	BarrierP99MS float64 `json:"barrier_p99_ms,omitempty"`
}

// insert is every writer's statement, on either system.
const insert = "INSERT INTO w VALUES ($1, $2, $3)"

// table is the written table, on either system.
const table = "CREATE TABLE w (id BIGINT PRIMARY KEY, g INT, v INT)"

// pgSetup makes PostgreSQL keep wv, the view's result, with a row-level
// trigger.
var pgSetup = []string{
	table,
	"CREATE TABLE wv (g INT PRIMARY KEY, n BIGINT NOT NULL, s BIGINT)",
	`CREATE FUNCTION wv_maintain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO wv VALUES (NEW.g, 1, NEW.v) ON CONFLICT (g) DO UPDATE SET n = wv.n + 1, s = wv.s + excluded.s;
	RETURN NULL;
END $$`,
	"CREATE TRIGGER wv_maintain AFTER INSERT ON w FOR EACH ROW EXECUTE FUNCTION wv_maintain()",
}

// Run runs each number of writers on streamdb, then on PostgreSQL when
// it compares, and reports them side by side.
func Run(ctx context.Context, cfg Config) (results []Result, err error) {
	bin, err := pgbaseline.Locate(cfg.Postgres, cfg.Err)
	if err != nil {
		return nil, err
	}
	var pg *pgbaseline.Server
	version := ""
	if bin != "" {
		if pg, err = pgbaseline.Start(ctx, bin); err != nil {
			return nil, fmt.Errorf("start PostgreSQL: %w", err)
		}
		defer func() { err = errors.Join(err, pg.Stop()) }()
		if version, err = pg.Version(ctx); err != nil {
			return nil, err
		}
		version = strings.Fields(version)[0] // "15.18 (Debian ...)"
	}
	for _, n := range cfg.Writers {
		ours, err := runStreamdb(ctx, cfg, n)
		if err != nil {
			return results, err
		}
		results = append(results, ours)
		var theirs *Result
		if pg != nil {
			r, err := runPostgres(ctx, cfg, pg, n)
			if err != nil {
				return results, err
			}
			results = append(results, r)
			theirs = &r
		}
		report(cfg.Out, ours, theirs, version)
	}
	if cfg.JSON != "" {
		return results, benchkit.WriteJSON(cfg.JSON, results)
	}
	return results, nil
}

// report prints one number of writers' figures, PostgreSQL's (if any)
// beside streamdb's as ratios.
func report(out io.Writer, ours Result, theirs *Result, version string) {
	fmt.Fprintf(out, "%d writers, single-row INSERTs, %d node(s):\n", ours.Writers, ours.Nodes)
	fmt.Fprintf(out, "  %-16s %9s rows/s  ack p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms  errors %d\n  %-16s barrier round trip p50 %.2f ms p99 %.2f ms: ack p99 = %.1fx its p50, %.1fx its p99\n",
		"streamdb", benchkit.Thousands(int64(ours.RowsPerSec)), ours.P50MS, ours.P99MS, ours.MaxMS, ours.Errors,
		"", ours.BarrierP50MS, ours.BarrierP99MS, ours.P99MS/ours.BarrierP50MS, ours.P99MS/ours.BarrierP99MS)
	if theirs == nil {
		return
	}
	fmt.Fprintf(out, "  %-16s %9s rows/s  ack p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms  errors %d (a row trigger upserts the aggregate)\n",
		"PostgreSQL "+version, benchkit.Thousands(int64(theirs.RowsPerSec)), theirs.P50MS, theirs.P99MS, theirs.MaxMS, theirs.Errors)
	fmt.Fprintf(out, "  streamdb/PostgreSQL: rows/s %.2fx, ack p50 %.2fx, p99 %.2fx\n",
		ours.RowsPerSec/theirs.RowsPerSec, ours.P50MS/theirs.P50MS, ours.P99MS/theirs.P99MS)
}

// runStreamdb runs n writers on a fresh streamdb server (or cluster).
func runStreamdb(ctx context.Context, cfg Config, n int) (res Result, err error) {
	servers, err := benchkit.StartCluster(ctx, cfg.Binary, cfg.Nodes, 0, cfg.BarrierMS, nil)
	if err != nil {
		return res, err
	}
	defer func() {
		for _, s := range servers {
			err = errors.Join(err, s.Stop())
		}
	}()
	setup, err := pgx.Connect(ctx, servers[0].ConnString())
	if err != nil {
		return res, err
	}
	defer setup.Close(context.Background())
	if err := exec(ctx, setup, table, "CREATE MATERIALIZED VIEW wv AS SELECT g, count(*) AS n, sum(v) AS s FROM w GROUP BY g"); err != nil {
		return res, err
	}
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.ConnString()
	}
	res, err = write(ctx, cfg, addrs, n)
	res.System, res.Nodes = Streamdb, cfg.Nodes
	if err != nil {
		return res, err
	}
	if _, err := setup.Exec(ctx, "FLUSH"); err != nil {
		return res, err
	}
	if err := checkCounted(ctx, setup, res); err != nil {
		return res, err
	}
	err = setup.QueryRow(ctx, "SELECT p50_ms, p99_ms FROM streamdb_catalog.barrier_latency").Scan(&res.BarrierP50MS, &res.BarrierP99MS)
	if err != nil {
		return res, fmt.Errorf("read the barrier latency: %w", err)
	}
	return res, nil
}

// runPostgres runs n writers in a fresh database of pg.
func runPostgres(ctx context.Context, cfg Config, pg *pgbaseline.Server, n int) (res Result, err error) {
	addr, err := pg.CreateDatabase(ctx, fmt.Sprintf("writers_%d", n))
	if err != nil {
		return res, err
	}
	setup, err := pgx.Connect(ctx, addr)
	if err != nil {
		return res, err
	}
	defer setup.Close(context.Background())
	if err := exec(ctx, setup, pgSetup...); err != nil {
		return res, err
	}
	res, err = write(ctx, cfg, []string{addr}, n)
	res.System, res.Nodes = Postgres, 1
	if err != nil {
		return res, err
	}
	return res, checkCounted(ctx, setup, res)
}

// exec runs the statements on conn.
func exec(ctx context.Context, conn *pgx.Conn, stmts ...string) error {
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// checkCounted checks that the aggregate wv counts every acknowledged row.
func checkCounted(ctx context.Context, conn *pgx.Conn, res Result) error {
	var counted int64
	if err := conn.QueryRow(ctx, "SELECT coalesce(sum(n), 0) FROM wv").Scan(&counted); err != nil {
		return err
	}
	if counted < res.Rows {
		return fmt.Errorf("%s: the aggregate counts %d rows but %d INSERTs were acknowledged", res.System, counted, res.Rows)
	}
	return nil
}

// write runs n writers, spread over the servers at addrs, for
// cfg.Duration, and measures them.
func write(ctx context.Context, cfg Config, addrs []string, n int) (Result, error) {
	res := Result{Writers: n}
	conns := make([]*pgx.Conn, n)
	for i := range conns {
		c, err := pgx.Connect(ctx, addrs[i%len(addrs)])
		if err != nil {
			return res, err
		}
		defer c.Close(context.Background())
		conns[i] = c
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
			for id := int64(i); runCtx.Err() == nil; id += int64(n) {
				t0 := time.Now()
				_, err := c.Exec(runCtx, insert, id, id%100, 1)
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
	if e := firstErr.Load(); e != nil {
		fmt.Fprintf(cfg.Err, "%d writers: the first failed INSERT: %v\n", n, *e)
	}
	if res.Rows == 0 {
		return res, errors.New("no INSERT was acknowledged")
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
