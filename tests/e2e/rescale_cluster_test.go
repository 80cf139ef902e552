package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
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
// (pre-copied, then the switch's delta); then a fourth node joins with
// auto_rebalance on and gets a share of every view, is drained and
// removed; then the node of table a's writer (which may run views'
// singleton fragments too) is drained (they move at one pause) and
// removed. Every view,
// read from every node, equals its query run as a batch query (in one
// statement, while the writers go on) after each step, and SHOW JOBS
// reports vnodes and bytes moved between nodes.
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
	// Each writer stops on its own: the one of a node about to be
	// drained and removed first.
	var stops [3]context.CancelFunc
	var wg sync.WaitGroup
	var mu sync.Mutex
	var writeErr error
	var retried int
	for i, n := range nodes {
		wg.Add(1)
		ctx, stop := context.WithCancel(ctx)
		stops[i] = stop
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
				switch sqlState(err) {
				case "40001", "57P03":
					// Rolled back by the recovery that moves first
					// actors, or refused during the election that
					// follows the leader's removal: not acknowledged,
					// written again.
					mu.Lock()
					retried++
					mu.Unlock()
					time.Sleep(50 * time.Millisecond)
					continue
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
	for round := range 20 {
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
		check(fmt.Sprintf("after rescaling %s to %d", name, n))
		t.Logf("round %d: %s to parallelism %d (%s) in %v", round, name, n, strategy, time.Since(start).Round(time.Millisecond))
	}
	// Rescales of one view from two nodes at once, and a rebalance from
	// the third: one node at a time moves the job's vnodes; the other
	// ALTER is refused as busy (55006) unless the first had ended, and
	// the rebalance waits its turn.
	name := rescaledViews[0]
	var alters sync.WaitGroup
	errs := make([]error, 3)
	for i, sql := range []string{
		fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = 5 WITH (step = 8)", name),
		fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = 2 WITH (step = 8)", name),
		"ALTER SYSTEM REBALANCE WITH (step = 8)",
	} {
		alters.Add(1)
		go func() {
			defer alters.Done()
			_, errs[i] = conns[i].Exec(context.Background(), sql)
		}()
	}
	alters.Wait()
	for i, err := range errs {
		if err != nil && (i == 2 || sqlState(err) != "55006") {
			t.Fatalf("concurrent rescale %d from n%d: %v", i, i+1, err)
		}
	}
	t.Logf("concurrent rescales of %s: %v", name, errs)
	check("after concurrent rescales")
	// A fourth node joins; with auto_rebalance every view spreads to it.
	mustExec(t, conns[0], "ALTER SYSTEM SET auto_rebalance = on")
	n4 := joinNode(t, nodes, "n4")
	waitFor(t, 2*time.Minute, "views' actors on n4", func() bool {
		return strings.Join(rowsOf(t, conns[0], "SELECT actors > 0 FROM streamdb_catalog.nodes WHERE id = 'n4'"), "") == "t"
	})
	conns = append(conns, connect(t, n4.addr, pgx.QueryExecModeSimpleProtocol))
	check("after n4 joined")
	// Drained, n4 runs nothing and can be removed.
	mustExec(t, conns[1], "ALTER SYSTEM DRAIN NODE 'n4'")
	if rows := rowsOf(t, conns[0], "SELECT actors, vnodes FROM streamdb_catalog.nodes WHERE id = 'n4'"); strings.Join(rows, "") != "0|0" {
		t.Fatalf("n4 after draining runs actors|vnodes %v", rows)
	}
	conns = conns[:3]
	check("after n4 was drained")
	mustExec(t, conns[2], "ALTER SYSTEM REMOVE NODE 'n4'")
	n4.kill()
	// The node of table a's writer runs first actors (tables' writers,
	// maybe views' singleton fragments, which hold whole tables, not
	// vnodes): drained, the views leave it online and the first actors
	// move at one pause; then it runs nothing and can be removed.
	var home string
	waitFor(t, time.Minute, "table a's writer in SHOW PARALLELISM", func() bool {
		home = strings.Join(rowsOf(t, conns[0], "SELECT node FROM streamdb_catalog.fragments WHERE name = 'a' AND actor = 0"), "")
		return home != ""
	})
	h := slices.IndexFunc(nodes, func(n *clusterNode) bool { return n.flags[1] == home })
	if h < 0 {
		t.Fatalf("table a's writer runs on %q, not one of the nodes", home)
	}
	other, third := (h+1)%3, (h+2)%3
	stops[h]()
	start := time.Now()
	mustExec(t, conns[other], fmt.Sprintf("ALTER SYSTEM DRAIN NODE '%s'", home))
	t.Logf("drained %s in %v", home, time.Since(start).Round(time.Millisecond))
	pattern := fmt.Sprintf(`moved jobs' first actors" from=%s jobs=([1-9][0-9]*) bytes=([0-9]+) took=(\S+) paused=(\S+)`, home)
	var m []string
	// The log is read as the node writes it: the line may come a moment
	// after the statement returned.
	waitFor(t, 10*time.Second, "a line of the log of "+nodes[other].flags[1]+" on moving first actors off "+home, func() bool {
		m = regexp.MustCompile(pattern).FindStringSubmatch(nodes[other].output())
		return m != nil
	})
	t.Logf("first actors moved off %s: %s jobs, %s bytes in %s, writes held %s", home, m[1], m[2], m[3], m[4])
	if rows := rowsOf(t, conns[other], fmt.Sprintf("SELECT actors, vnodes FROM streamdb_catalog.nodes WHERE id = '%s'", home)); strings.Join(rows, "") != "0|0" {
		t.Fatalf("%s after draining runs actors|vnodes %v", home, rows)
	}
	check("after the writer's node was drained")
	mustExec(t, conns[third], fmt.Sprintf("ALTER SYSTEM REMOVE NODE '%s'", home))
	nodes[h].kill()
	conns = []*pgx.Conn{conns[other], conns[third]}
	stop()
	wg.Wait()
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	t.Logf("writes refused or rolled back and written again: %d", retried)
	check("at the end")
	moves := rowsOf(t, conns[0], "SELECT name, moves FROM streamdb_catalog.rescale_jobs WHERE moves <> ''")
	if len(moves) == 0 {
		t.Errorf("no rescale reports vnodes moved between nodes")
	}
	t.Logf("moves: %s", strings.Join(moves, "\n"))
}

// joinNode starts a node with id that joins the cluster of nodes.
func joinNode(t *testing.T, nodes []*clusterNode, id string) *clusterNode {
	t.Helper()
	addr := freeAddr(t)
	first := nodes[0].flags[3]
	n := &clusterNode{dataDir: t.TempDir(), flags: []string{"--node-id", id, "--cluster-addr", addr, "--join", first}}
	n.process = startProcess(t, n.dataDir, freeAddr(t), n.flags...)
	t.Cleanup(func() { n.stop(t) })
	return n
}

// queryRows runs sql on c (for at most 30 s) and returns its rows, each
// row's values in text separated by "|".
func queryRows(c *pgx.Conn, sql string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var parts []string
		for _, raw := range rows.RawValues() {
			parts = append(parts, string(raw))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, rows.Err()
}

// retryRows runs sql on c until it succeeds (while the cluster recovers)
// and returns its rows as queryRows does, failing the test after timeout.
func retryRows(t *testing.T, c *pgx.Conn, timeout time.Duration, sql string) []string {
	t.Helper()
	var out []string
	waitFor(t, timeout, "success of "+sql, func() bool {
		var err error
		out, err = queryRows(c, sql)
		return err == nil
	})
	return out
}

// waitFor polls done until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// spreadAndDrain runs the rescales stmts a pause apart, from the nodes in
// turn, and fails unless the actors of the jobs named ran on all three
// nodes at some point; then it drains the node of jobs[0]'s first actor
// and checks that the node runs nothing. It returns that node's index.
func spreadAndDrain(t *testing.T, nodes []*clusterNode, conns []*pgx.Conn, jobs []string, pause time.Duration, stmts ...string) int {
	t.Helper()
	names := "'" + strings.Join(jobs, "', '") + "'"
	spread := 0
	for i, stmt := range stmts {
		time.Sleep(pause)
		mustExec(t, conns[i%len(conns)], stmt)
		on := rowsOf(t, conns[0], "SELECT count(DISTINCT node) FROM streamdb_catalog.fragments WHERE name IN ("+names+")")
		t.Logf("%s: %s run on %s nodes", stmt, names, on[0])
		if v, _ := strconv.Atoi(on[0]); v > spread {
			spread = v
		}
	}
	if spread < 3 {
		t.Fatalf("the actors of %s ran on at most %d nodes", names, spread)
	}
	home := rowsOf(t, conns[0], fmt.Sprintf("SELECT node FROM streamdb_catalog.fragments WHERE name = '%s' AND actor = 0", jobs[0]))[0]
	h := slices.IndexFunc(nodes, func(n *clusterNode) bool { return n.flags[1] == home })
	other := conns[(h+1)%len(conns)]
	mustExec(t, other, fmt.Sprintf("ALTER SYSTEM DRAIN NODE '%s'", home))
	if rows := rowsOf(t, other, fmt.Sprintf("SELECT actors, vnodes FROM streamdb_catalog.nodes WHERE id = '%s'", home)); strings.Join(rows, "") != "0|0" {
		t.Fatalf("%s after draining runs actors|vnodes %v: %v", home, rows,
			rowsOf(t, other, fmt.Sprintf("SELECT name, fragment_id, actor FROM streamdb_catalog.fragments WHERE node = '%s'", home)))
	}
	return h
}

// TestClusterRescaleKill kills the source or the target node of vnodes
// moving between nodes (kill -9, at a random moment of a fluid rescale in
// small steps) and restarts it, STREAMDB_KILL_RUNS times (3 by default):
// afterwards every vnode of each view's parallel fragments has one owner,
// as every node reports, and every view, read from every node, equals its
// query; rows acknowledged before each kill are all there.
func TestClusterRescaleKill(t *testing.T) {
	runs := 3
	if v, err := strconv.Atoi(os.Getenv("STREAMDB_KILL_RUNS")); err == nil && v > 0 {
		runs = v
	}
	nodes := startCluster(t, 3)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conns[0], "CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT)")
	mustExec(t, conns[0], "INSERT INTO a SELECT g, g % 97, g FROM generate_series(1, 20000) g")
	views := map[string]string{
		"agg": "SELECT k, count(*) AS n, sum(v) AS sv, max(v) AS hi FROM a GROUP BY k",
		"ids": "SELECT id, v FROM a WHERE v % 3 = 0",
	}
	for name, q := range views {
		mustExec(t, conns[0], fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = 3) AS %s", name, q))
	}
	// retry runs sql on c until it succeeds, while the cluster recovers.
	retry := func(c *pgx.Conn, sql string) []string {
		t.Helper()
		return retryRows(t, c, time.Minute, sql)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	next := 20001
	for run := range runs {
		// Rows acknowledged before the kill must survive it.
		retry(conns[0], fmt.Sprintf("INSERT INTO a SELECT g, g %% 97, g FROM generate_series(%d, %d) g", next, next+499))
		next += 500
		name := []string{"agg", "ids"}[rng.IntN(2)]
		n := 1 + rng.IntN(6)
		victim := 1 + rng.IntN(2)
		retry(conns[0], fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d WITH (step = 4, wait = false)", name, n))
		delay := time.Duration(rng.IntN(1500)) * time.Millisecond
		time.Sleep(delay)
		nodes[victim].kill()
		time.Sleep(200 * time.Millisecond)
		nodes[victim].restart(t)
		conns[victim] = connect(t, nodes[victim].addr, pgx.QueryExecModeSimpleProtocol)
		waitFor(t, time.Minute, "the rescale to end", func() bool {
			return len(retry(conns[0], "SELECT 1 FROM streamdb_catalog.rescale_jobs WHERE phase = 'moving'")) == 0
		})
		retry(conns[0], "FLUSH")
		t.Logf("run %d: %s to %d, n%d killed after %v: %s", run, name, n, victim+1, delay,
			strings.Join(retry(conns[0], "SELECT phase, vnodes_moved, coalesce(error, '') FROM streamdb_catalog.rescale_jobs WHERE name = '"+name+"'"), ","))
		for i, c := range conns {
			for view, q := range views {
				owners := retry(c, fmt.Sprintf("SELECT fragment_id, sum(vnodes) FROM streamdb_catalog.fragments WHERE name = '%s' GROUP BY fragment_id", view))
				for _, o := range owners {
					if !strings.HasSuffix(o, "|256") {
						t.Fatalf("run %d: view %s as n%d reports it: fragment|vnodes owned %s, want every vnode owned once", run, view, i+1, o)
					}
				}
				diff := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM %s EXCEPT ALL SELECT * FROM (%s) q) UNION ALL (SELECT * FROM (%s) q EXCEPT ALL SELECT * FROM %s)) d", view, q, q, view)
				if got := retry(c, diff); strings.Join(got, "") != "0" {
					t.Fatalf("run %d: view %s read from n%d differs from its query in %s rows", run, view, i+1, strings.Join(got, ""))
				}
			}
		}
		if got := retry(conns[0], "SELECT count(*) FROM a"); strings.Join(got, "") != strconv.Itoa(next-1) {
			t.Fatalf("run %d: table a has %s rows, want %d acknowledged", run, strings.Join(got, ""), next-1)
		}
	}
}
