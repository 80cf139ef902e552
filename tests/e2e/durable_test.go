package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestClusterPermanentLoss loses nodes for good (kill -9, then the data
// directory deleted) in a four-node cluster with shared storage while
// writers run: the first is removed with ALTER SYSTEM REMOVE NODE ...
// FORCE, the second by node_dead_timeout. Each time the survivors take
// its work over from the last durable checkpoint: every row acknowledged
// with synchronous_commit = 'remote' is there, no row whose write was
// told 40001 is, none twice, every view read from every survivor equals
// its query, every vnode has one owner, and rows written afterwards
// (hidden row ids too) add up. It logs the time until the views advance
// again and the rows by outcome (rows acknowledged without 'remote' may
// be lost, as the documented guarantee allows).
func TestClusterPermanentLoss(t *testing.T) {
	shared := t.TempDir()
	nodes := startCluster(t, 4, "--shared-storage", "file://"+shared)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	c := conns[0]
	mustExec(t, c, "ALTER SYSTEM SET durable_checkpoint_interval = '500ms'")
	mustExec(t, c, "CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT)")
	mustExec(t, c, "CREATE TABLE h (k INT, v INT)")
	mustExec(t, c, "INSERT INTO a SELECT g, g % 97, g FROM generate_series(1, 20000) g")
	mustExec(t, c, "INSERT INTO h SELECT g % 7, g FROM generate_series(1, 1000) g")
	views := map[string]string{
		"agg":  "SELECT k, count(*) AS n, sum(v) AS sv, max(v) AS hi FROM a GROUP BY k",
		"ids":  "SELECT id, v FROM a WHERE v % 3 = 0",
		"hagg": "SELECT k, count(*) AS n, sum(v) AS sv FROM h GROUP BY k",
	}
	for name, q := range views {
		mustExec(t, c, fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = 4) AS %s", name, q))
	}
	// query and retry give the rows of one-column queries, comma-separated.
	query := func(c *pgx.Conn, sql string) (string, error) {
		rows, err := queryRows(c, sql)
		return strings.Join(rows, ","), err
	}
	retry := func(c *pgx.Conn, sql string) string {
		t.Helper()
		return strings.Join(retryRows(t, c, 2*time.Minute, sql), ",")
	}
	waitFor(t, time.Minute, "a durable checkpoint", func() bool {
		got, err := query(c, "SELECT epoch FROM streamdb_catalog.durable_checkpoint")
		return err == nil && got != "" && got != "0"
	})

	// Writers on the first node, which survives: one acknowledged only
	// once its rows are in shared storage, one as usual. Every row is
	// told by its value v (its id in a): each statement's outcome is
	// recorded, and a row whose write failed with 40001 ("rolled back,
	// nothing applied") must be absent; one that failed otherwise (58030
	// "committed, not yet durable", a timeout) may be either.
	var rows outcomes
	stop := make(chan struct{})
	var wg sync.WaitGroup
	writer := func(base int, remote bool) {
		defer wg.Done()
		w := connect(t, nodes[0].addr, pgx.QueryExecModeSimpleProtocol)
		if remote {
			mustExec(t, w, "SET synchronous_commit = 'remote'")
		}
		for i := base; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			sql := fmt.Sprintf("INSERT INTO a VALUES (%d, %d, %d)", i, i%97, i)
			if remote && i%2 == 0 {
				sql = fmt.Sprintf("INSERT INTO h VALUES (%d, %d)", i%7, i)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, err := w.Exec(ctx, sql)
			cancel()
			rows.record(i, remote, err)
			if err != nil {
				time.Sleep(50 * time.Millisecond) // the cluster recovers
			}
		}
	}
	wg.Add(2)
	go writer(1_000_000, true)
	go writer(2_000_000, false)
	hBase := 1000 // rows of h written before the writers, v < 1,000,000

	check := func(stage string, alive []int) {
		t.Helper()
		present := map[int]int{}
		for _, q := range []string{"SELECT id FROM a WHERE id >= 1000000", "SELECT v FROM h WHERE v >= 1000000"} {
			for _, v := range strings.Split(retry(c, q), ",") {
				if n, err := strconv.Atoi(v); err == nil {
					present[n]++
				}
			}
		}
		if err := rows.check(present); err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		t.Logf("%s: %s", stage, rows.summary(present))
		if got := retry(c, "SELECT count(*) FROM h WHERE v < 1000000"); got != strconv.Itoa(hBase) {
			t.Fatalf("%s: table h has %s rows written before the writers, want %d", stage, got, hBase)
		}
		for _, i := range alive {
			for view, q := range views {
				owners := retry(conns[i], fmt.Sprintf("SELECT sum(vnodes) FROM streamdb_catalog.fragments WHERE name = '%s'", view))
				if owners != "256" {
					t.Fatalf("%s: view %s as n%d reports it: %s vnodes owned, want 256", stage, view, i+1, owners)
				}
				diff := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM %s EXCEPT ALL SELECT * FROM (%s) q) UNION ALL (SELECT * FROM (%s) q EXCEPT ALL SELECT * FROM %s)) d", view, q, q, view)
				if got := retry(conns[i], diff); got != "0" {
					t.Fatalf("%s: view %s read from n%d differs from its query in %s rows", stage, view, i+1, got)
				}
			}
		}
	}
	// lose kills node i and deletes its data, waits until views advance
	// on the first node again, and returns how long that took.
	lose := func(i int, remove func()) time.Duration {
		time.Sleep(1500 * time.Millisecond)
		nodes[i].kill()
		if err := os.RemoveAll(nodes[i].dataDir); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		remove()
		before := retry(c, "SELECT coalesce(sum(n), 0) FROM agg")
		waitFor(t, 2*time.Minute, "views advancing", func() bool {
			got, err := query(c, "SELECT coalesce(sum(n), 0) FROM agg")
			return err == nil && got != before
		})
		return time.Since(began)
	}

	took := lose(2, func() { retry(c, "ALTER SYSTEM REMOVE NODE 'n3' FORCE") })
	t.Logf("n3 lost and removed with FORCE: views advance again after %v", took)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	retry(c, "FLUSH")
	check("after n3", []int{0, 1, 3})
	if got := retry(c, "SELECT id FROM streamdb_catalog.nodes ORDER BY id"); got != "n1,n2,n4" {
		t.Fatalf("nodes after removing n3: %s", got)
	}

	// The second loss is found by node_dead_timeout; rows of h written
	// after the restore take new hidden row ids.
	mustExec(t, c, "ALTER SYSTEM SET node_dead_timeout = '2s'")
	stop = make(chan struct{})
	wg.Add(2)
	go writer(3_000_000, true)
	go writer(4_000_000, false)
	took = lose(3, func() {})
	t.Logf("n4 lost and removed after node_dead_timeout (2s): views advance again after %v", took)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	retry(c, "FLUSH")
	check("after n4", []int{0, 1})
	if got := retry(c, "SELECT id FROM streamdb_catalog.nodes ORDER BY id"); got != "n1,n2" {
		t.Fatalf("nodes after n4's timeout: %s", got)
	}
	retry(c, "INSERT INTO h SELECT g % 7, g FROM generate_series(1, 1000) g")
	hBase += 1000
	retry(c, "FLUSH")
	check("after new rows", []int{0, 1})
}

// TestClusterSharedS3 keeps durable checkpoints in an S3-compatible store
// (an in-process fake S3 server): a node lost for good is replaced from
// it, with every write acknowledged with synchronous_commit = 'remote' and
// a view equal to its query afterwards.
func TestClusterSharedS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("streamdb"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	url := fmt.Sprintf("s3://streamdb/cluster-1?endpoint=%s&secure=false&access_key=test&secret_key=test", strings.TrimPrefix(srv.URL, "http://"))
	nodes := startCluster(t, 3, "--shared-storage", url)
	c := connect(t, nodes[0].addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c, "CREATE TABLE a (id INT PRIMARY KEY, k INT, v INT)")
	mustExec(t, c, "INSERT INTO a SELECT g, g % 31, g FROM generate_series(1, 5000) g")
	const view = "SELECT k, count(*) AS n, sum(v) AS sv FROM a GROUP BY k"
	mustExec(t, c, "CREATE MATERIALIZED VIEW agg WITH (parallelism = 3) AS "+view)
	mustExec(t, c, "SET synchronous_commit = 'remote'")
	mustExec(t, c, "INSERT INTO a SELECT g, g % 31, g FROM generate_series(5001, 6000) g")
	var files int
	if err := c.QueryRow(context.Background(), "SELECT files FROM streamdb_catalog.durable_checkpoint").Scan(&files); err != nil || files == 0 {
		t.Fatalf("durable checkpoint files: %d, %v", files, err)
	}
	objects, err := backend.ListBucket("streamdb", &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil || len(objects.Contents) == 0 {
		t.Fatalf("objects in the bucket: %v, %v", objects, err)
	}
	if _, err := c.Exec(context.Background(), "ALTER SYSTEM REMOVE NODE 'n2' FORCE"); sqlState(err) != "55006" {
		t.Fatalf("FORCE removal of a node that is up: %v, want 55006", err)
	}
	nodes[2].kill()
	if err := os.RemoveAll(nodes[2].dataDir); err != nil {
		t.Fatal(err)
	}
	// Refused while the node still answers (until the kill has taken).
	waitFor(t, time.Minute, "the removal of n3", func() bool {
		_, err := c.Exec(context.Background(), "ALTER SYSTEM REMOVE NODE 'n3' FORCE")
		return err == nil
	})
	mustExec(t, c, "INSERT INTO a VALUES (6001, 1, 1)")
	mustExec(t, c, "FLUSH")
	var rows, diff int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM a").Scan(&rows); err != nil || rows != 6001 {
		t.Fatalf("table a has %d rows (%v), want 6001 acknowledged with 'remote'", rows, err)
	}
	q := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM agg EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL SELECT * FROM agg)) d", view, view)
	if err := c.QueryRow(context.Background(), q).Scan(&diff); err != nil || diff != 0 {
		t.Fatalf("view agg differs from its query in %d rows (%v)", diff, err)
	}

	// Shared storage gone: a write waiting for a durable checkpoint is
	// told so after three checkpoint intervals, and is committed.
	mustExec(t, c, "ALTER SYSTEM SET durable_checkpoint_interval = '300ms'")
	srv.Close()
	_, err = c.Exec(context.Background(), "INSERT INTO a VALUES (6002, 2, 2)")
	if code := sqlState(err); code != "58030" {
		t.Fatalf("a 'remote' write with shared storage unreachable: %v (SQLSTATE %q), want 58030", err, code)
	}
	t.Logf("with shared storage unreachable: %v", err)
	mustExec(t, c, "SET synchronous_commit = 'on'")
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM a WHERE id = 6002").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("the write told 58030 is not committed: %d rows (%v)", rows, err)
	}
}

// outcomes records what the writers of TestClusterPermanentLoss were told
// of each row they wrote, by the row's value.
type outcomes struct {
	mu   sync.Mutex
	rows map[int]outcome
}

// outcome is what a writer was told of one row: nil error, or the
// SQLSTATE it failed with ("" for an error without one, such as a
// timeout).
type outcome struct {
	remote bool
	failed bool
	code   string
}

func (o *outcomes) record(v int, remote bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rows == nil {
		o.rows = map[int]outcome{}
	}
	o.rows[v] = outcome{remote: remote, failed: err != nil, code: sqlState(err)}
}

// check compares the rows present (how many times each value is there)
// with what the writers were told: no row twice, none that nobody wrote;
// every row acknowledged with 'remote' there; none told 40001 (rolled
// back, nothing applied) there. Rows acknowledged without 'remote' may
// be lost with a node, and rows whose write failed otherwise (58030:
// committed but not yet durable; a timeout) may be either.
func (o *outcomes) check(present map[int]int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for v, n := range present {
		r, ok := o.rows[v]
		switch {
		case !ok:
			return fmt.Errorf("row %d is there, but no writer wrote it", v)
		case n > 1:
			return fmt.Errorf("row %d is there %d times", v, n)
		case r.failed && r.code == "40001":
			return fmt.Errorf("row %d is there, though its write failed with 40001 (rolled back, nothing applied)", v)
		}
	}
	var missing []int
	for v, r := range o.rows {
		if r.remote && !r.failed && present[v] == 0 {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%d rows acknowledged with synchronous_commit = 'remote' are missing, e.g. %v", len(missing), missing[:min(5, len(missing))])
	}
	return nil
}

// summary counts the rows by what their writer was told and whether
// they are there.
func (o *outcomes) summary(present map[int]int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	counts := map[string]int{}
	for v, r := range o.rows {
		kind := "acknowledged"
		if !r.remote {
			kind += " without 'remote'"
		}
		if r.failed {
			kind = fmt.Sprintf("failed (SQLSTATE %q)", r.code)
		}
		if present[v] > 0 {
			kind += ", there"
		} else {
			kind += ", absent"
		}
		counts[kind]++
	}
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return strings.Join(parts, "; ")
}
