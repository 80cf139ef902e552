package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// clusterNode is one node process of a test cluster; it keeps what it
// was started with, to start again on the same data directory.
type clusterNode struct {
	*process
	dataDir string
	flags   []string
}

// kill kills the node's process with SIGKILL.
func (n *clusterNode) kill() { n.process.kill() }

// stop kills the node at the end of a test, logging the tail of its log
// if the test failed.
func (n *clusterNode) stop(t *testing.T) {
	n.kill()
	if !t.Failed() {
		return
	}
	f, err := os.CreateTemp("", fmt.Sprintf("streamdb-%s-%s-*.log", t.Name(), n.flags[1]))
	if err == nil {
		_, err = f.WriteString(n.output())
		f.Close()
	}
	if err != nil {
		t.Logf("log of %s not kept: %v", n.flags[1], err)
		return
	}
	t.Logf("log of %s: %s", n.flags[1], f.Name())
}

// restart starts the node again after a kill, as the same member.
func (n *clusterNode) restart(t *testing.T) {
	t.Helper()
	n.process = startProcess(t, n.dataDir, n.addr, n.flags...)
}

// startCluster runs n streamdb processes on loopback: the first starts the
// cluster, the others join it; every one gets the flags extra. It returns
// them in order.
func startCluster(t *testing.T, n int, extra ...string) []*clusterNode {
	t.Helper()
	return startClusterWith(t, n, func(int) (string, string) {
		a := freeAddr(t)
		return a, a
	}, extra...)
}

// startClusterWith is startCluster with node i's cluster address and the
// address it advertises from addrs.
func startClusterWith(t *testing.T, n int, addrs func(i int) (cluster, advertise string), extra ...string) []*clusterNode {
	t.Helper()
	var first string
	var nodes []*clusterNode
	for i := range n {
		cluster, advertise := addrs(i)
		flags := []string{"--node-id", fmt.Sprintf("n%d", i+1), "--cluster-addr", cluster}
		if advertise != cluster {
			flags = append(flags, "--advertise-addr", advertise)
		}
		if i == 0 {
			first = advertise
		} else {
			flags = append(flags, "--join", first)
		}
		flags = append(flags, extra...)
		node := &clusterNode{dataDir: t.TempDir(), flags: flags}
		node.process = startProcess(t, node.dataDir, freeAddr(t), flags...)
		t.Cleanup(func() { node.stop(t) })
		nodes = append(nodes, node)
	}
	return nodes
}

// connectCluster connects to every node of a test cluster in mode.
func connectCluster(t *testing.T, nodes []*clusterNode, mode pgx.QueryExecMode) []*pgx.Conn {
	t.Helper()
	conns := make([]*pgx.Conn, len(nodes))
	for i, n := range nodes {
		conns[i] = connect(t, n.addr, mode)
	}
	return conns
}

// mustExec runs a statement on c, failing the test on an error or after
// two minutes.
func mustExec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// clusterViews are views of tables a(id, k, v, s) and b(id, k, w) at
// parallelism 6 over a three-node cluster: aggregates, every join kind
// (over aggregates too), Top-N, and a view of a view.
var clusterViews = map[string]string{
	"agg":      "SELECT k, count(*) AS n, sum(v) AS sv, min(v) AS lo, max(v) AS hi FROM a GROUP BY k",
	"global":   "SELECT count(*) AS n, sum(v) AS sv, max(s) AS ms FROM a",
	"innerj":   "SELECT a.id AS aid, b.id AS bid, v, w FROM a JOIN b ON a.k = b.k",
	"leftj":    "SELECT a.id AS aid, b.id AS bid, v, w FROM a LEFT JOIN b ON a.k = b.k AND w > 1",
	"rightj":   "SELECT a.id AS aid, b.id AS bid FROM a RIGHT JOIN b ON a.k = b.k",
	"fullj":    "SELECT a.id AS aid, b.id AS bid FROM a FULL JOIN b ON a.k = b.k",
	"fullagg":  "SELECT x.k AS xk, y.k AS yk, x.n AS xn, y.n AS yn FROM (SELECT k, count(*) AS n FROM a GROUP BY k) x FULL JOIN (SELECT k, count(*) AS n FROM b GROUP BY k) y ON x.k = y.k",
	"topn":     "SELECT id, v FROM a ORDER BY v DESC, id LIMIT 3",
	"grouptop": "SELECT id, k FROM (SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM a) s WHERE rn <= 2",
	"onview":   "SELECT n % 2 AS parity, count(*) AS groups, sum(sv) AS total FROM agg GROUP BY n % 2",
}

// TestClusterViews runs random INSERT/UPDATE/DELETE sent to each of three
// node processes through views whose actors are spread over the nodes,
// and checks after FLUSH that every view, read from each node, equals its
// query run as a batch query; a windowed aggregation over a table fed by a
// connector is checked likewise once its rows are all in.
func TestClusterViews(t *testing.T) {
	conns := connectCluster(t, startCluster(t, 3), pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	exec := func(c *pgx.Conn, sql string) { t.Helper(); mustExec(t, c, sql) }
	exec(conns[0], "CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT, s TEXT)")
	exec(conns[1], "CREATE TABLE b (id INT PRIMARY KEY, k INT, w INT)")
	exec(conns[2], "CREATE TABLE g (v BIGINT) WITH (connector = 'datagen', fields.v.kind = 'sequence', fields.v.start = '1', fields.v.end = '20000', datagen.rows.per.second = '20000', datagen.split.num = '3')")
	exec(conns[0], "CREATE MATERIALIZED VIEW win WITH (parallelism = 6) AS SELECT v % 10 AS bucket, count(*) AS n, sum(v) AS sv FROM g GROUP BY v % 10")
	rng := rand.New(rand.NewPCG(1, 2))
	live := map[string]map[int]bool{"a": {}, "b": {}}
	created := 0
	order := []string{"agg", "global", "innerj", "leftj", "rightj", "fullj", "fullagg", "topn", "grouptop", "onview"}
	for step := range 60 {
		c := conns[step%len(conns)]
		if step%5 == 0 && created < len(order) {
			name := order[created]
			exec(c, fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = 6) AS %s", name, clusterViews[name]))
			created++
		}
		table := []string{"a", "b"}[rng.IntN(2)]
		clusterMutate(t, rng, c, table, live[table])
	}
	exec(conns[0], "FLUSH")
	for name, q := range clusterViews {
		want := rowsOf(t, conns[0], q)
		for i, c := range conns {
			if got := rowsOf(t, c, "SELECT * FROM "+name); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("view %s read from n%d = %s\n got:\n%s\n want:\n%s", name, i+1, q, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	// The connector's rows all arrive; then the window view matches.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		if err := conns[1].QueryRow(ctx, "SELECT count(*) FROM g").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 20000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the datagen table has %d of 20000 rows after 60 s", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	exec(conns[2], "FLUSH")
	want := rowsOf(t, conns[0], "SELECT v % 10 AS bucket, count(*) AS n, sum(v) AS sv FROM g GROUP BY v % 10")
	for i, c := range conns {
		if got := rowsOf(t, c, "SELECT * FROM win"); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("view win read from n%d:\n got:\n%s\n want:\n%s", i+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	// Every node runs a share of the actors.
	rows := rowsOf(t, conns[0], "SELECT id, actors > 0 FROM streamdb_catalog.nodes")
	if strings.Join(rows, ",") != "n1|t,n2|t,n3|t" {
		t.Errorf("nodes running actors: %v", rows)
	}
	// Each view's six actors are spread over the three nodes, as every
	// node reports them.
	for i, c := range conns {
		rows := rowsOf(t, c, "SELECT node, count(*) FROM streamdb_catalog.fragments WHERE name = 'agg' GROUP BY node ORDER BY node")
		if strings.Join(rows, ",") != "n1|2,n2|2,n3|2" {
			t.Errorf("actors of view agg by node, as n%d reports them: %v", i+1, rows)
		}
	}
}

// clusterMutate applies one random INSERT, UPDATE or DELETE (of several
// rows) to table through c, keeping live (the ids present) in step.
func clusterMutate(t *testing.T, rng *rand.Rand, c *pgx.Conn, table string, live map[int]bool) {
	t.Helper()
	val := func() any {
		if rng.IntN(10) == 0 {
			return nil
		}
		return rng.IntN(7)
	}
	var ids []int
	for id := range live {
		ids = append(ids, id)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(context.Background(), sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	switch op := rng.IntN(4); {
	case op <= 1 || len(ids) == 0:
		var rows []string
		var args []any
		for range 1 + rng.IntN(4) {
			id := rng.IntN(40)
			if live[id] {
				continue
			}
			live[id] = true
			n := len(args)
			if table == "a" {
				rows = append(rows, fmt.Sprintf("($%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4))
				args = append(args, id, val(), val(), []any{"x1", "x2", "y", nil}[rng.IntN(4)])
			} else {
				rows = append(rows, fmt.Sprintf("($%d, $%d, $%d)", n+1, n+2, n+3))
				args = append(args, id, val(), val())
			}
		}
		if len(rows) > 0 {
			exec("INSERT INTO "+table+" VALUES "+strings.Join(rows, ", "), args...)
		}
	case op == 2:
		col := "k"
		if rng.IntN(2) == 0 {
			col = map[string]string{"a": "v", "b": "w"}[table]
		}
		exec(fmt.Sprintf("UPDATE %s SET %s = $1 WHERE id = $2 OR id = $3", table, col), val(), ids[rng.IntN(len(ids))], rng.IntN(40))
	default:
		lo := ids[rng.IntN(len(ids))]
		hi := lo + rng.IntN(4)
		exec(fmt.Sprintf("DELETE FROM %s WHERE id BETWEEN $1 AND $2", table), lo, hi)
		for id := lo; id <= hi; id++ {
			delete(live, id)
		}
	}
}

// TestClusterScanPushdown reads views whose rows are spread over three
// nodes, one over a table and one over an append-only table (stored in
// row blocks), through selective filters from every node, with the scan
// pushdown and without: rows and errors are those of the same query over
// the base table, and with the pushdown the other nodes send a fraction of
// the bytes. It logs the bytes and time of a selective count both ways.
func TestClusterScanPushdown(t *testing.T) {
	conns := connectCluster(t, startCluster(t, 3), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	exec := func(c *pgx.Conn, sql string) { t.Helper(); mustExec(t, c, sql) }
	const rows = 30000
	for _, table := range []string{"src (id INT PRIMARY KEY, k INT, pad TEXT)", "ev (id INT, k INT, pad TEXT) APPEND ONLY"} {
		exec(conns[0], "CREATE TABLE "+table)
	}
	for _, table := range []string{"src", "ev"} {
		exec(conns[0], fmt.Sprintf("INSERT INTO %s SELECT x, x %% 100, repeat('x', 100) || x FROM generate_series(1, %d) x", table, rows))
		exec(conns[0], fmt.Sprintf("CREATE MATERIALIZED VIEW %s_v WITH (parallelism = 6) AS SELECT id, k, pad FROM %s", table, table))
	}
	exec(conns[0], "FLUSH")
	// query runs sql with args and renders its sorted rows, or its error.
	query := func(c *pgx.Conn, sql string, args ...any) string {
		t.Helper()
		rs, err := c.Query(ctx, sql, args...)
		if err != nil {
			return "error: " + err.Error()
		}
		var out []string
		for rs.Next() {
			vals, err := rs.Values()
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			out = append(out, fmt.Sprint(vals...))
		}
		if err := rs.Err(); err != nil {
			return "error: " + err.Error()
		}
		slices.Sort(out)
		return strings.Join(out, "\n")
	}
	queries := []struct {
		sql  string
		args []any
	}{
		{"SELECT count(*), sum(id) FROM %s WHERE k = 7", nil},
		{"SELECT id, length(pad) FROM %s WHERE k = $1 AND id % 7 = 3", []any{42}},
		{"SELECT k, count(*) FROM %s WHERE pad LIKE '%%99' OR id < 5 GROUP BY k", nil},
		{"SELECT * FROM %s WHERE k = 3 AND id > 29000", nil},
		// id % 10 - 5 is 0 in every row where k = 5: an error both ways.
		{"SELECT count(*) FROM %s WHERE k = 5 AND 100 / (id % 10 - 5) > 0", nil},
	}
	for _, q := range queries {
		for _, table := range []string{"src", "ev"} {
			want := query(conns[0], fmt.Sprintf(q.sql, table), q.args...)
			if want == "" {
				t.Fatalf("%s over %s: no rows", q.sql, table)
			}
			for i, c := range conns {
				for _, mode := range []string{"on", "off"} {
					exec(c, "SET scan_pushdown = "+mode)
					if got := query(c, fmt.Sprintf(q.sql, table+"_v"), q.args...); got != want {
						t.Errorf("%s over %s_v from n%d, scan_pushdown %s:\n got:\n%s\n want:\n%s", q.sql, table, i+1, mode, got, want)
					}
				}
			}
		}
	}
	// The bytes n1 receives for a selective count, and its time (the best
	// of five), with the pushdown and without.
	bytes := func() int64 {
		var n int64
		if err := conns[0].QueryRow(ctx, "SELECT bytes FROM streamdb_catalog.remote_reads").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	received := map[string]int64{}
	for _, view := range []string{"src_v", "ev_v"} {
		for _, mode := range []string{"off", "on"} {
			exec(conns[0], "SET scan_pushdown = "+mode)
			sql := "SELECT count(*) FROM " + view + " WHERE k = 7"
			best := time.Duration(1 << 62)
			before := bytes()
			for range 5 {
				start := time.Now()
				if got := query(conns[0], sql); got != fmt.Sprint(rows/100) {
					t.Fatalf("%s: %s", sql, got)
				}
				best = min(best, time.Since(start))
			}
			received[mode] = (bytes() - before) / 5
			t.Logf("%s with scan_pushdown %s: %d bytes received from the other nodes, %v", sql, mode, received[mode], best)
		}
		if received["on"]*10 > received["off"] {
			t.Errorf("%s: %d bytes received with the pushdown, %d without", view, received["on"], received["off"])
		}
	}
	// A view created over a view spread over the nodes backfills from
	// every node's part, in batches that resume at a key: all of them.
	exec(conns[0], "CREATE MATERIALIZED VIEW src_vv WITH (parallelism = 4) AS SELECT k % 10 AS k, count(*) AS n, sum(id) AS s FROM src_v GROUP BY k % 10")
	exec(conns[0], "FLUSH")
	want := query(conns[0], "SELECT k % 10, count(*), sum(id) FROM src GROUP BY k % 10")
	for i, c := range conns {
		if got := query(c, "SELECT * FROM src_vv"); got != want {
			t.Errorf("a view over a view spread over the nodes, read from n%d:\n got:\n%s\n want:\n%s", i+1, got, want)
		}
	}
}
