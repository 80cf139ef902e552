package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// rescaledViews are views of tables a and b that TestClusterRescale moves
// between nodes: aggregates, joins, a per-group Top-N, a view of a view,
// and a global aggregate (a singleton, which stays on its node).
var rescaledViews = []string{"agg", "innerj", "leftj", "grouptop", "onview", "global"}

// TestClusterRescale rescales views of a three-node cluster to random
// parallelisms with random strategies while writers on every node change
// their tables, so that key groups move between nodes with their state
// (pre-copied, then the switch's delta): every view, read from every node,
// equals its query run as a batch query after each rescale and at the end,
// and SHOW JOBS reports vnodes and bytes moved between nodes.
func TestClusterRescale(t *testing.T) {
	nodes := startCluster(t, 3)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	exec := func(c *pgx.Conn, sql string) { t.Helper(); mustExec(t, c, sql) }
	exec(conns[0], "CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT, s TEXT)")
	exec(conns[1], "CREATE TABLE b (id INT PRIMARY KEY, k INT, w INT)")
	for _, name := range rescaledViews {
		exec(conns[0], fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = 3) AS %s", name, clusterViews[name]))
	}
	// Writers on every node, each on ids of its own.
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var writeErr error
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := connect(t, n.addr, pgx.QueryExecModeSimpleProtocol)
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for ctx.Err() == nil {
				id := 1000*(i+1) + rng.IntN(200)
				var err error
				switch rng.IntN(3) {
				case 0:
					_, err = c.Exec(ctx, "INSERT INTO a VALUES ($1, $2, $3, 'w') ON CONFLICT (id) DO UPDATE SET v = excluded.v", id, rng.IntN(9), rng.IntN(100))
				case 1:
					_, err = c.Exec(ctx, "INSERT INTO b VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET w = excluded.w", id, rng.IntN(9), rng.IntN(5))
				default:
					_, err = c.Exec(ctx, "DELETE FROM a WHERE id = $1", id)
				}
				if err != nil && ctx.Err() == nil {
					mu.Lock()
					writeErr = fmt.Errorf("writer on n%d: %w", i+1, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	// check compares every view, from every node, with its query in one
	// statement (one epoch: the writers go on meanwhile).
	check := func(when string) {
		t.Helper()
		for _, name := range rescaledViews {
			q := clusterViews[name]
			diff := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM %s EXCEPT ALL SELECT * FROM (%s) q) UNION ALL (SELECT * FROM (%s) q EXCEPT ALL SELECT * FROM %s)) d", name, q, q, name)
			for i, c := range conns {
				if got := rowsOf(t, c, diff); strings.Join(got, "") != "0" {
					t.Fatalf("%s: view %s read from n%d differs from its query in %s rows", when, name, i+1, strings.Join(got, ""))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	strategies := []string{"fluid", "all_at_once", "fluid"}
	for round := range 8 {
		// Batch rows, so that the views hold state to move.
		var rows []string
		for range 50 {
			rows = append(rows, fmt.Sprintf("(%d, %d, %d, 'x')", rng.IntN(900), rng.IntN(9), rng.IntN(100)))
		}
		mustExec(t, conns[round%3], "INSERT INTO a VALUES "+strings.Join(rows, ", ")+" ON CONFLICT (id) DO NOTHING")
		name := rescaledViews[rng.IntN(len(rescaledViews)-1)]
		n := 1 + rng.IntN(7)
		strategy := strategies[rng.IntN(len(strategies))]
		start := time.Now()
		mustExec(t, conns[rng.IntN(3)], fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d WITH (strategy = '%s')", name, n, strategy))
		t.Logf("round %d: %s to parallelism %d (%s) in %v", round, name, n, strategy, time.Since(start).Round(time.Millisecond))
		check(fmt.Sprintf("after rescaling %s to %d", name, n))
	}
	stop()
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	check("at the end")
	moves := rowsOf(t, conns[0], "SELECT name, moves FROM streamdb_catalog.rescale_jobs WHERE moves <> ''")
	if len(moves) == 0 {
		t.Errorf("no rescale reports vnodes moved between nodes")
	}
	t.Logf("moves: %s", strings.Join(moves, "\n"))
}
