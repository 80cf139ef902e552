// Package tpchbench is `streamdb bench tpch`: TPC-H q1-q22 as materialized
// views over tables loaded at a scale factor, beside PostgreSQL 15 running
// the same views on the same data in the same run. For each query it
// times the view's creation over the loaded tables and the absorption of
// one round of the refresh functions (RF1 inserts a thousandth of the
// orders with their lineitems, RF2 deletes as many), against PostgreSQL's
// CREATE MATERIALIZED VIEW and the same round followed by REFRESH
// MATERIALIZED VIEW; and it checks that both systems hold the same rows
// after each step. A round with no view at all measures what the refresh
// functions cost the tables alone.
package tpchbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/bench/tpch"
)

// seed is the generator's seed of every run: runs are comparable.
const seed = 1

// Config configures a run.
type Config struct {
	// Binary is the streamdb binary to start the server from.
	Binary string
	// Scale is TPC-H's scale factor (0.1: 600,000 lineitems).
	Scale float64
	// Queries are the queries to run (nil: q1-q22).
	Queries []string
	// Parallelism is the actors per fragment of each view (0: the cores).
	Parallelism int
	// BarrierIntervalMS is the server's time between barriers.
	BarrierIntervalMS int
	// Postgres runs PostgreSQL beside streamdb when its server is
	// installed.
	Postgres bool
	// JSON, if set, receives the results.
	JSON     string
	Out, Err io.Writer
}

// Result is one query's figures (Query "refresh-only" for the round with
// no view).
type Result struct {
	Query string `json:"query"`
	// Rows is the number of rows of the view after the load.
	Rows int64 `json:"rows"`
	// CreateMS is the time CREATE MATERIALIZED VIEW took over the loaded
	// tables; RefreshMS the time from the round's first statement until
	// FLUSH returned, the view having absorbed it.
	CreateMS  float64 `json:"create_ms"`
	RefreshMS float64 `json:"refresh_ms"`
	// PGCreateMS is PostgreSQL's CREATE MATERIALIZED VIEW; PGRefreshMS
	// the round's statements plus REFRESH MATERIALIZED VIEW, of which
	// PGRecomputeMS is the REFRESH.
	PGCreateMS    float64 `json:"pg_create_ms,omitempty"`
	PGRefreshMS   float64 `json:"pg_refresh_ms,omitempty"`
	PGRecomputeMS float64 `json:"pg_recompute_ms,omitempty"`
	// Same reports that the view and PostgreSQL's held the same rows after
	// the load and after the round (always true without PostgreSQL).
	Same bool `json:"same"`
	// Skipped says why the query did not run.
	Skipped string `json:"skipped,omitempty"`
}

// Run starts streamdb (and PostgreSQL), loads the data into both and
// measures each query.
func Run(ctx context.Context, cfg Config) (results []Result, err error) {
	srv, err := benchkit.StartServer(ctx, cfg.Binary, cfg.Parallelism, cfg.BarrierIntervalMS)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, srv.Stop()) }()
	sd, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return nil, err
	}
	defer sd.Close(context.Background())
	systems := []*system{{name: "streamdb", conn: sd}}
	use := pgbaseline.UseOff
	if cfg.Postgres {
		use = pgbaseline.UseAuto
	}
	bin, err := pgbaseline.Locate(use, cfg.Err)
	if err != nil {
		return nil, err
	}
	if bin != "" {
		pg, err := pgbaseline.Start(ctx, bin)
		if err != nil {
			return nil, err
		}
		defer func() { err = errors.Join(err, pg.Stop()) }()
		url, err := pg.CreateDatabase(ctx, "tpch")
		if err != nil {
			return nil, err
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		systems = append(systems, &system{name: "PostgreSQL", conn: conn})
	}
	for _, s := range systems {
		start := time.Now()
		if err := tpch.Load(ctx, s.conn, cfg.Scale, seed); err != nil {
			return nil, fmt.Errorf("load into %s: %w", s.name, err)
		}
		fmt.Fprintf(cfg.Err, "loaded TPC-H at scale factor %g into %s in %.1f s\n", cfg.Scale, s.name, time.Since(start).Seconds())
	}
	b := &bench{cfg: cfg, systems: systems}
	results = append(results, b.refreshOnly(ctx))
	for _, q := range tpch.Queries(cfg.Scale) {
		if len(cfg.Queries) > 0 && !slices.Contains(cfg.Queries, q.Name) {
			continue
		}
		r, err := b.query(ctx, q)
		if err != nil {
			return results, fmt.Errorf("%s: %w", q.Name, err)
		}
		fmt.Fprintf(cfg.Err, "%s: created in %.0f ms, refresh absorbed in %.0f ms\n", q.Name, r.CreateMS, r.RefreshMS)
		results = append(results, r)
	}
	writeTable(cfg.Out, results, len(systems) > 1)
	if cfg.JSON != "" {
		err = benchkit.WriteJSON(cfg.JSON, results)
	}
	for _, r := range results {
		if !r.Same && r.Skipped == "" {
			err = errors.Join(err, fmt.Errorf("%s: streamdb's view and PostgreSQL's differ", r.Query))
		}
	}
	return results, err
}

// system is one database of the run.
type system struct {
	name string
	conn *pgx.Conn
}

// bench holds a run's state: the refresh rounds done so far.
type bench struct {
	cfg     Config
	systems []*system
	rounds  int
}

// refreshOnly measures one round of the refresh functions with no view.
func (b *bench) refreshOnly(ctx context.Context) Result {
	r := Result{Query: "refresh-only", Same: true}
	times, err := b.refresh(ctx, func(*system) string { return "" })
	if err != nil {
		r.Skipped = err.Error()
		return r
	}
	r.RefreshMS = ms(times[0].total)
	if len(times) > 1 {
		r.PGRefreshMS = ms(times[1].total)
	}
	return r
}

// query measures q: creation, the rows after the load, a refresh round,
// the rows after it; then it drops the views.
func (b *bench) query(ctx context.Context, q tpch.Query) (Result, error) {
	r := Result{Query: q.Name}
	view := "tpch_" + q.Name
	for i, s := range b.systems {
		start := time.Now()
		if _, err := s.conn.Exec(ctx, "CREATE MATERIALIZED VIEW "+view+" AS "+q.SQL); err != nil {
			if i == 0 {
				r.Skipped = err.Error()
				return r, nil
			}
			return r, fmt.Errorf("%s: %w", s.name, err)
		}
		if i == 0 {
			r.CreateMS = ms(time.Since(start))
		} else {
			r.PGCreateMS = ms(time.Since(start))
		}
	}
	same, rows, err := b.same(ctx, view)
	if err != nil {
		return r, err
	}
	r.Rows = rows
	times, err := b.refresh(ctx, func(s *system) string {
		if s.name == "streamdb" {
			return ""
		}
		return "REFRESH MATERIALIZED VIEW " + view
	})
	if err != nil {
		return r, err
	}
	r.RefreshMS = ms(times[0].total)
	if len(times) > 1 {
		r.PGRefreshMS, r.PGRecomputeMS = ms(times[1].total), ms(times[1].after)
	}
	sameAfter, _, err := b.same(ctx, view)
	if err != nil {
		return r, err
	}
	r.Same = same && sameAfter
	for _, s := range b.systems {
		if _, err := s.conn.Exec(ctx, "DROP MATERIALIZED VIEW "+view); err != nil {
			return r, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return r, nil
}

// roundTimes are a refresh round's times on one system: the whole round,
// and the part after its statements (FLUSH, REFRESH MATERIALIZED VIEW).
type roundTimes struct{ total, after time.Duration }

// refresh runs the next refresh round on every system, then the statement
// after(system) ("" for FLUSH) that brings its views up to date.
func (b *bench) refresh(ctx context.Context, after func(*system) string) ([]roundTimes, error) {
	rf := tpch.NewRefresh(b.cfg.Scale, seed, b.rounds)
	b.rounds++
	var out []roundTimes
	for _, s := range b.systems {
		start := time.Now()
		if err := rf.Apply(ctx, s.conn); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		applied := time.Now()
		stmt := after(s)
		if stmt == "" && s.name == "streamdb" {
			stmt = "FLUSH"
		}
		if stmt != "" {
			if _, err := s.conn.Exec(ctx, stmt); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", s.name, stmt, err)
			}
		}
		out = append(out, roundTimes{total: time.Since(start), after: time.Since(applied)})
	}
	return out, nil
}

// same reports whether every system's view holds the same rows, and how
// many streamdb's has.
func (b *bench) same(ctx context.Context, view string) (bool, int64, error) {
	var first pgbaseline.Digest
	for i, s := range b.systems {
		d, err := pgbaseline.DigestOf(ctx, s.conn, view)
		if err != nil {
			return false, 0, fmt.Errorf("%s: %w", s.name, err)
		}
		if i == 0 {
			first = d
		} else if d != first {
			fmt.Fprintf(b.cfg.Err, "%s: streamdb has %v, %s %v\n", view, first, s.name, d)
			return false, first.Rows, nil
		}
	}
	return true, first.Rows, nil
}

// writeTable prints results as an aligned table.
func writeTable(w io.Writer, results []Result, postgres bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if postgres {
		fmt.Fprintln(tw, "query\trows\tcreate ms\tPG create ms\trefresh ms\tPG refresh ms\t(PG REFRESH ms)\tsame\t")
	} else {
		fmt.Fprintln(tw, "query\trows\tcreate ms\trefresh ms\t")
	}
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\tskipped: %s\t\n", r.Query, r.Skipped)
			continue
		}
		if postgres {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%v\t\n", r.Query, r.Rows, r.CreateMS, r.PGCreateMS,
				r.RefreshMS, r.PGRefreshMS, r.PGRecomputeMS, r.Same)
		} else {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t\n", r.Query, r.Rows, r.CreateMS, r.RefreshMS)
		}
	}
	tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
