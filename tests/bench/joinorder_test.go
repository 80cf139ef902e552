package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/node"
)

var joinTimeout = flag.Duration("bench.jointimeout", 120*time.Second, "BenchmarkJoinOrder: give up on a query after this long")

// joinTables is the number of tables BenchmarkJoinOrder joins.
const joinTables = 30

// joinOrders are the FROM orders BenchmarkJoinOrder times: the chain's own
// order, and the tables of even number then those of odd number, so that no
// two neighbours in the FROM list share a join condition.
var joinOrders = []struct {
	name  string
	order func(n int) []int
}{
	{"chain", func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}},
	{"unlucky", func(n int) []int {
		var out []int
		for start := range 2 {
			for i := start; i < n; i += 2 {
				out = append(out, i)
			}
		}
		return out
	}},
}

// joinSetup creates the chain of tables t00..t29 over conn: 10 to 100
// rows each, a unique in its table, b in 0..9 (every table has those a), so
// that the chain's join conditions t<i>.b = t<i+1>.a keep one row per row
// of t00.
func joinSetup(ctx context.Context, conn *pgx.Conn) error {
	for i := range joinTables {
		var vals []string
		for k := range 10 + i*37%91 {
			vals = append(vals, fmt.Sprintf("(%d, %d)", k, (k*7+i)%10))
		}
		name := fmt.Sprintf("t%02d", i)
		for _, q := range []string{
			"CREATE TABLE " + name + " (a int, b int)",
			"INSERT INTO " + name + " VALUES " + strings.Join(vals, ", "),
		} {
			if _, err := conn.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
	}
	return nil
}

// joinQuery joins the chain with the tables listed in order and the join
// conditions in WHERE, last one first.
func joinQuery(order []int) string {
	from := make([]string, len(order))
	for i, t := range order {
		from[i] = fmt.Sprintf("t%02d", t)
	}
	var where []string
	for i := joinTables - 2; i >= 0; i-- {
		where = append(where, fmt.Sprintf("t%02d.b = t%02d.a", i, i+1))
	}
	return fmt.Sprintf("SELECT count(*), sum(t00.a + t%02d.b) FROM %s WHERE %s",
		joinTables-1, strings.Join(from, ", "), strings.Join(where, " AND "))
}

// timeJoin runs q once over conn and returns its time and result, or an
// error (context.DeadlineExceeded after -bench.jointimeout).
func timeJoin(ctx context.Context, conn *pgx.Conn, q string) (time.Duration, string, error) {
	ctx, cancel := context.WithTimeout(ctx, *joinTimeout)
	defer cancel()
	start := time.Now()
	var count, sum int64
	err := conn.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&count, &sum)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return time.Since(start), fmt.Sprintf("count %d, sum %d", count, sum), err
}

// BenchmarkJoinOrder times a 30-table chain join written in the chain's
// FROM order and in an unlucky one (no two neighbours joined), on streamdb
// and on PostgreSQL (when its server programs are installed) in the same
// run. The FROM order must not decide the plan: both orders should take
// about the same time. A query still running after -bench.jointimeout is
// cancelled and reported as such.
func BenchmarkJoinOrder(b *testing.B) {
	ctx := context.Background()
	n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	// after runs after the tables are filled: PostgreSQL plans
	// unanalyzed tables with a default size far above theirs, and JIT
	// compiles the plan those estimates cost (a second or so).
	type system struct{ name, conn, after string }
	systems := []system{{name: "streamdb", conn: fmt.Sprintf("postgres://bench@%s/streamdb?sslmode=disable", n.Addr())}}
	if bin := pgbaseline.Binaries(); bin == "" {
		b.Log("PostgreSQL's server programs are not installed: timing streamdb alone")
	} else {
		pg, err := pgbaseline.Start(ctx, bin, "fsync=off")
		if err != nil {
			b.Fatal(err)
		}
		defer pg.Stop()
		systems = append(systems, system{name: "PostgreSQL", conn: pg.ConnString("postgres"), after: "ANALYZE"})
	}
	conns := make([]*pgx.Conn, len(systems))
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close(ctx)
			}
		}
	}()
	for i, s := range systems {
		if conns[i], err = pgx.Connect(ctx, s.conn); err != nil {
			b.Fatal(err)
		}
		if err := joinSetup(ctx, conns[i]); err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		if s.after != "" {
			if _, err := conns[i].Exec(ctx, s.after); err != nil {
				b.Fatalf("%s: %v", s.name, err)
			}
		}
	}
	for _, o := range joinOrders {
		q := joinQuery(o.order(joinTables))
		b.Run(o.name, func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				var want string
				for i, s := range systems {
					d, got, err := timeJoin(ctx, conns[i], q)
					switch {
					case errors.Is(err, context.DeadlineExceeded):
						b.Logf("%-10s %-8s > %v (cancelled)", s.name, o.name, *joinTimeout)
						// The cancelled connection is gone.
						if conns[i], err = pgx.Connect(ctx, s.conn); err != nil {
							b.Fatal(err)
						}
						continue
					case err != nil:
						b.Fatalf("%s: %v", s.name, err)
					case want == "":
						want = got
					case got != want:
						b.Errorf("%s: %s, want %s", s.name, got, want)
					}
					b.Logf("%-10s %-8s %10.1f ms  (%s)", s.name, o.name, float64(d.Microseconds())/1000, got)
					b.ReportMetric(float64(d.Microseconds())/1000, s.name+"-ms")
				}
			}
		})
	}
}
