package e2e

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// rescaleViews are the views the rescale tests move while writers change
// their inputs: aggregates, joins and Top-N, over tables a(id, k, v, s)
// and b(id, k, w).
var rescaleViews = map[string]string{
	"agg": "SELECT k, count(*) AS n, sum(v) AS sv, min(v) AS lo, max(v) AS hi FROM a GROUP BY k",
	// A view over a view: its input's actors change under it.
	"agg_of_agg": "SELECT count(*) AS groups, sum(n) AS n, max(hi) AS hi FROM agg",
	"total":      "SELECT count(*) AS n, sum(v) AS sv, count(DISTINCT k) AS dk FROM a",
	"joined":     "SELECT a.id AS aid, b.id AS bid, v, w FROM a JOIN b ON a.k = b.k",
	"fullj":      "SELECT a.id AS aid, b.id AS bid FROM a FULL JOIN b ON a.k = b.k",
	"jagg":       "SELECT a.k, count(*) AS n, sum(w) AS sw FROM a JOIN b ON a.k = b.k GROUP BY a.k",
	"top":        "SELECT id, v FROM a ORDER BY v DESC, id LIMIT 5",
	"ranked":     "SELECT id, k FROM (SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM a) s WHERE rn <= 2",
}

// createRescaleViews creates tables a and b and every rescale view at
// parallelism 2.
func createRescaleViews(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	stmts := []string{
		"CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT, s TEXT)",
		"CREATE TABLE b (id INT PRIMARY KEY, k INT, w INT)",
	}
	for _, name := range slices.Sorted(maps.Keys(rescaleViews)) {
		stmts = append(stmts, fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = 2) AS %s", name, rescaleViews[name]))
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// writer inserts, updates and deletes rows of table (a or b) until stop
// is closed or a statement fails, counting its statements in done.
func writer(ctx context.Context, addr, table string, seed uint64, stop <-chan struct{}, done *int) error {
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	rng := rand.New(rand.NewPCG(seed, 7))
	live := map[int]bool{}
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		var err error
		id := rng.IntN(200)
		switch op := rng.IntN(4); {
		case op <= 1 && !live[id]:
			if table == "a" {
				_, err = conn.Exec(ctx, "INSERT INTO a VALUES ($1, $2, $3, $4)", id, rng.IntN(12), rng.IntN(100), fmt.Sprint("s", rng.IntN(3)))
			} else {
				_, err = conn.Exec(ctx, "INSERT INTO b VALUES ($1, $2, $3)", id, rng.IntN(12), rng.IntN(100))
			}
			live[id] = err == nil
		case op == 2:
			col := map[string]string{"a": "v", "b": "w"}[table]
			if rng.IntN(3) == 0 {
				col = "k"
			}
			_, err = conn.Exec(ctx, fmt.Sprintf("UPDATE %s SET %s = $1 WHERE id BETWEEN $2 AND $2 + 5", table, col), rng.IntN(12), id)
		default:
			_, err = conn.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id BETWEEN $1 AND $1 + 2", table), id)
			for i := id; i <= id+2; i++ {
				delete(live, i)
			}
		}
		if err != nil {
			return fmt.Errorf("writer of %s: %w", table, err)
		}
		*done++
	}
}

// checkRescaleViews checks after FLUSH that each view equals its query run
// as a batch query.
func checkRescaleViews(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), "FLUSH"); err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(rescaleViews)) {
		got := rowsOf(t, conn, "SELECT * FROM "+name)
		want := rowsOf(t, conn, rescaleViews[name])
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("view %s = %s after rescales\n got:\n%s\n want:\n%s", name, rescaleViews[name], strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// actorsOf returns the actor count of each parallel fragment of view name
// and checks that its vnodes have exactly one owner each.
func actorsOf(t *testing.T, conn *pgx.Conn, name string) []int {
	t.Helper()
	rows, err := conn.Query(context.Background(), "SELECT fragment_id, count(*), sum(vnodes) FROM streamdb_catalog.fragments WHERE name = $1 GROUP BY fragment_id ORDER BY fragment_id", name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var frag, actors, vnodes int
		if err := rows.Scan(&frag, &actors, &vnodes); err != nil {
			t.Fatal(err)
		}
		if vnodes != 256 {
			t.Fatalf("fragment %d of %s: its actors own %d vnodes, want each of the 256 owned once", frag, name, vnodes)
		}
		out = append(out, actors)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rescaleTargets returns n parallelisms to rescale to: 1, a prime and the
// key-group count first, then random ones, mostly small.
func rescaleTargets(rng *rand.Rand, n int) []int {
	out := []int{1, 7, 256}
	for len(out) < n {
		if rng.IntN(10) == 0 {
			out = append(out, 1+rng.IntN(256))
		} else {
			out = append(out, 1+rng.IntN(9))
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestRescaleUnderLoad rescales views with aggregates, joins and Top-N 24
// times (up and down, to 1, a prime and 256, with every strategy and cache
// mode) while
// writers insert, update and delete their inputs; afterwards every view
// equals its batch query and runs at the parallelism last asked for.
func TestRescaleUnderLoad(t *testing.T) {
	n := testkit.StartNode(t)
	conn := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	createRescaleViews(t, conn)
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	writes := make([]int, 2)
	for i, table := range []string{"a", "b"} {
		wg.Go(func() { errs[i] = writer(ctx, n.Addr(), table, seed+uint64(i), stop, &writes[i]) })
	}
	last := map[string]int{}
	names := slices.Sorted(maps.Keys(rescaleViews))
	for _, p := range rescaleTargets(rng, 24) {
		// The writers go on between rescales too.
		time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
		name := names[rng.IntN(len(names))]
		strategy := []string{"fluid", "fluid", "all_at_once", "restart"}[rng.IntN(4)]
		cache := []string{"lazy", "handover", "eager"}[rng.IntN(3)]
		stmt := fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d WITH (strategy = '%s', step = %d, cache = '%s')", name, p, strategy, 8+rng.IntN(57), cache)
		start := time.Now()
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Logf("%s took %v", stmt, took.Round(time.Millisecond))
		}
		last[name] = p
	}
	close(stop)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if writes[i] == 0 {
			t.Fatal("a writer wrote nothing while the views rescaled")
		}
	}
	t.Logf("writers ran %d and %d statements during the rescales", writes[0], writes[1])
	checkRescaleViews(t, conn)
	for name, p := range last {
		for _, got := range actorsOf(t, conn, name) {
			if got != p && got != 1 {
				t.Errorf("view %s has a fragment of %d actors after SET PARALLELISM = %d", name, got, p)
			}
		}
	}
}

// TestKill9DuringRescale kills the server with SIGKILL while fluid
// rescales run under writers, restarts it, and checks that each
// interrupted rescale finished from its last committed step (every vnode
// owned once, the target parallelism reached) and that every view equals
// its batch query: nothing was lost or applied twice.
func TestKill9DuringRescale(t *testing.T) {
	ctx := context.Background()
	dir, addr, p := startPrepared(t)
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	createRescaleViews(t, conn)
	conn.Close(ctx)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	want := map[string]int{}
	names := slices.Sorted(maps.Keys(rescaleViews))
	var resumed int64
	writes := make([]int, 2)
	for round := 0; round < 3; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i, table := range []string{"a", "b"} {
			// The writers stop with an error when the server dies.
			wg.Go(func() { _ = writer(ctx, addr, table, seed+uint64(10*round+i), stop, &writes[i]) })
		}
		c, err := pgx.Connect(ctx, testkit.ConnString(addr))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			name, par := names[rng.IntN(len(names))], 1+rng.IntN(12)
			stmt := fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d WITH (strategy = 'fluid', step = 2, wait = false)", name, par)
			if _, err := c.Exec(ctx, stmt); err != nil {
				// Another rescale of the view is still running.
				if !strings.Contains(err.Error(), "already being rescaled") {
					t.Fatalf("%s: %v", stmt, err)
				}
				continue
			}
			want[name] = par
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		p.kill()
		close(stop)
		wg.Wait()
		c.Close(ctx)
		p = startProcess(t, dir, addr)
		resumed += count(t, addr, "SELECT count(*) FROM streamdb_catalog.rescale_jobs")
	}
	t.Logf("%d rescales were interrupted and resumed; the writers ran %d statements", resumed, writes[0]+writes[1])
	if resumed == 0 {
		t.Fatal("no kill -9 hit a rescale in progress")
	}
	defer p.kill()
	conn, err = pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The interrupted rescales go on after the restart.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var moving int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM streamdb_catalog.rescale_jobs WHERE phase = 'moving'").Scan(&moving); err != nil {
			t.Fatal(err)
		}
		if moving == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rescales still moving a minute after the restart", moving)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if failed := rowsOf(t, conn, "SELECT name, error FROM streamdb_catalog.rescale_jobs WHERE phase = 'failed'"); len(failed) > 0 {
		t.Fatalf("%d resumed rescales failed: %v", len(failed), failed)
	}
	checkRescaleViews(t, conn)
	for name, par := range want {
		for _, got := range actorsOf(t, conn, name) {
			if got != par && got != 1 {
				t.Errorf("view %s has a fragment of %d actors, want %d after the resumed rescale", name, got, par)
			}
		}
	}
}
