package bench

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/node"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/types"
)

// workload is a set of tables, one materialized view v over them and the
// rows streamed into the tables.
type workload struct {
	name   string
	tables []table
	// view is the query of the materialized view v.
	view string
	// rows is the number of rows per run, over all tables.
	rows int
	// viewRows is how many rows v holds after a run (a sanity check).
	viewRows int
}

// table is one input table of a workload.
type table struct {
	name, ddl string
	width     int
	// fill sets the values of the table's row number i.
	fill func(i int, row []types.Datum)
}

// run is one measured run of a workload.
type run struct {
	interval    time.Duration
	parallelism int
	// cacheBytes is the node's state cache (0: the default).
	cacheBytes int64
	// inspect, if set, runs untimed after the run, before its node closes.
	inspect func()
}

// startNode starts an in-process node for r in a temporary directory.
func startNode(b *testing.B, r run) *node.Node {
	b.Helper()
	n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: b.TempDir(), BarrierInterval: r.interval,
		StateCacheBytes: r.cacheBytes, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// query runs one statement on a new session and returns its rows.
func query(ctx context.Context, e *sql.Engine, q string) ([][]types.Datum, error) {
	s, err := e.Connect(ctx, map[string]string{"user": "bench", "database": sql.DatabaseName})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	stmts, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	var out [][]types.Datum
	for _, st := range stmts {
		rows, err := st.Open(ctx, nil)
		if err != nil {
			return nil, err
		}
		out, err = drain(ctx, rows, out)
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func drain(ctx context.Context, rows pgwire.Rows, out [][]types.Datum) ([][]types.Datum, error) {
	for {
		r, err := rows.Next(ctx)
		if err != nil || r == nil {
			return out, err
		}
		out = append(out, append([]types.Datum(nil), r...))
	}
}

// timing is how long one run took.
type timing struct {
	// committed is the time from the first row sent to the commit of the
	// epoch carrying the last one: when the view shows every row.
	committed time.Duration
	// settled adds the time until the state store finished the flushes
	// and compactions the run left owing (work a longer run pays as it
	// goes).
	settled time.Duration
}

// measure runs w once on a fresh node. Only the run itself, until the
// store settled, is on b's timer.
func measure(b *testing.B, w workload, r run) timing {
	b.Helper()
	b.StopTimer()
	ctx := context.Background()
	n := startNode(b, r)
	defer func() {
		if err := n.Close(); err != nil {
			b.Error(err)
		}
	}()
	e := n.Engine()
	for _, t := range w.tables {
		mustQuery(ctx, b, e, t.ddl)
	}
	mustQuery(ctx, b, e, fmt.Sprintf("CREATE MATERIALIZED VIEW v WITH (parallelism = %d) AS %s", r.parallelism, w.view))
	b.StartTimer()
	start := time.Now()
	epoch, err := feed(ctx, e, w)
	if err == nil {
		err = e.WaitCommitted(ctx, epoch)
	}
	var t timing
	t.committed = time.Since(start)
	for idle := 0; idle < 2 && err == nil; {
		// Two idle polls in a row: a finished flush may schedule a
		// compaction.
		if idle++; n.Storage().Busy() {
			idle = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.settled = time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	rows := mustQuery(ctx, b, e, "SELECT count(*) FROM v")
	if got := rows[0][0].Int(); got != int64(w.viewRows) {
		b.Fatalf("%s: view holds %d rows, want %d", w.name, got, w.viewRows)
	}
	if r.inspect != nil {
		r.inspect()
	}
	return t
}

func mustQuery(ctx context.Context, b *testing.B, e *sql.Engine, q string) [][]types.Datum {
	b.Helper()
	rows, err := query(ctx, e, q)
	if err != nil {
		b.Fatalf("%s: %v", q, err)
	}
	return rows
}

// feed streams w's rows into its tables, a full chunk to each table in
// turn, and returns the epoch carrying the last one.
func feed(ctx context.Context, e *sql.Engine, w workload) (epoch uint64, err error) {
	per := w.rows / len(w.tables)
	for start := 0; start < per; start += dataflow.MaxChunkRows {
		n := min(dataflow.MaxChunkRows, per-start)
		for _, t := range w.tables {
			// One backing array per chunk: the chunk keeps its rows.
			backing := make([]types.Datum, n*t.width)
			rows := make([][]types.Datum, n)
			for j := range rows {
				row := backing[j*t.width : (j+1)*t.width : (j+1)*t.width]
				t.fill(start+j, row)
				rows[j] = row
			}
			if epoch, err = e.Ingest(ctx, t.name, rows); err != nil {
				return 0, err
			}
		}
	}
	return epoch, nil
}

// reportRate reports rows per second under unit.
func reportRate(b *testing.B, unit string, rows int, d time.Duration) {
	b.ReportMetric(float64(rows)/d.Seconds(), unit)
}
