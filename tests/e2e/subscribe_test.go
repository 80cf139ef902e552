package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// subChange is a row of SUBSCRIBE in Materialize's format: its epoch, its
// diff and its values (text, joined by |).
type subChange struct {
	epoch, diff int64
	row         string
}

func (c subChange) String() string { return fmt.Sprintf("%d %+d %s", c.epoch, c.diff, c.row) }

// fetchChanges runs a FETCH on a cursor over SUBSCRIBE (simple protocol:
// every value is text).
func fetchChanges(t *testing.T, conn *pgx.Conn, fetch string) []subChange {
	t.Helper()
	rows, err := conn.Query(context.Background(), fetch)
	if err != nil {
		t.Fatalf("%s: %v", fetch, err)
	}
	defer rows.Close()
	var out []subChange
	for rows.Next() {
		raw := rows.RawValues()
		epoch, err1 := strconv.ParseInt(string(raw[0]), 10, 64)
		diff, err2 := strconv.ParseInt(string(raw[1]), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad row %q", fetch, raw)
		}
		vals := make([]string, 0, len(raw)-2)
		for _, v := range raw[2:] {
			vals = append(vals, string(v))
		}
		out = append(out, subChange{epoch, diff, strings.Join(vals, "|")})
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", fetch, err)
	}
	return out
}

// collectChanges fetches from cursor until it returned n changes; the
// deadline only bounds a hang.
func collectChanges(t *testing.T, conn *pgx.Conn, cursor string, n int) []subChange {
	t.Helper()
	var got []subChange
	for deadline := time.Now().Add(time.Minute); len(got) < n; {
		if time.Now().After(deadline) {
			t.Fatalf("cursor %s: %d changes %v, want %d", cursor, len(got), got, n)
		}
		got = append(got, fetchChanges(t, conn, fmt.Sprintf("FETCH %d %s WITH (timeout = '1s')", n-len(got), cursor))...)
	}
	return got
}

// sameChanges checks got against want ("diff row"), in any order within
// one epoch, all of them at one epoch after the previous.
func sameChanges(t *testing.T, what string, got []subChange, after int64, want ...string) int64 {
	t.Helper()
	var rows []string
	for _, c := range got {
		rows = append(rows, fmt.Sprintf("%+d %s", c.diff, c.row))
		if c.epoch != got[0].epoch || c.epoch <= after {
			t.Fatalf("%s: changes %v, want them at one epoch after %d", what, got, after)
		}
	}
	slices.Sort(rows)
	slices.Sort(want)
	if !slices.Equal(rows, want) {
		t.Fatalf("%s: changes %v, want %v", what, got, want)
	}
	return got[0].epoch
}

// subscribeNode starts an in-process node, runs setup on it and returns a
// writer's and a reader's sessions.
func subscribeNode(t *testing.T, setup ...string) (addr string, w, r *pgx.Conn) {
	t.Helper()
	n := testkit.StartNode(t)
	w = connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	r = connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	for _, stmt := range setup {
		mustExec(t, w, stmt)
	}
	return n.Addr(), w, r
}

// TestSubscribeCursor reads a materialized view through DECLARE ... CURSOR
// FOR SUBSCRIBE with a snapshot, and sees the INSERT, UPDATE and DELETE
// of another session arrive, each once, with their diffs.
func TestSubscribeCursor(t *testing.T) {
	_, w, r := subscribeNode(t, "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		"CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM t WHERE id < 100")
	mustExec(t, r, "BEGIN")
	mustExec(t, r, "DECLARE c CURSOR FOR SUBSCRIBE mv WITH (snapshot)")
	at := sameChanges(t, "snapshot", collectChanges(t, r, "c", 2), 0, "+1 1|a", "+1 2|b")
	if got := fetchChanges(t, r, "FETCH 10 c WITH (timeout = '0')"); len(got) != 0 {
		t.Fatalf("changes without a write: %v", got)
	}
	mustExec(t, w, "INSERT INTO t VALUES (3, 'c')")
	at = sameChanges(t, "insert", collectChanges(t, r, "c", 1), at, "+1 3|c")
	mustExec(t, w, "UPDATE t SET v = 'B' WHERE id = 2")
	at = sameChanges(t, "update", collectChanges(t, r, "c", 2), at, "-1 2|b", "+1 2|B")
	mustExec(t, w, "DELETE FROM t WHERE id = 1")
	at = sameChanges(t, "delete", collectChanges(t, r, "c", 1), at, "-1 1|a")
	mustExec(t, w, "INSERT INTO t VALUES (200, 'filtered')")
	mustExec(t, w, "INSERT INTO t VALUES (4, 'd')")
	sameChanges(t, "insert after a filtered one", collectChanges(t, r, "c", 1), at, "+1 4|d")
	if got := fetchChanges(t, r, "FETCH ALL c WITH (timeout = '200ms')"); len(got) != 0 {
		t.Fatalf("changes read twice: %v", got)
	}
	mustExec(t, r, "COMMIT")
	// The cursor's temporary subscription went with it.
	var jobs int
	if err := w.QueryRow(context.Background(), "SELECT count(*) FROM streamdb_catalog.fragments WHERE name LIKE '_subscribe%'").Scan(&jobs); err != nil || jobs != 0 {
		t.Fatalf("temporary subscription jobs left: %d (%v)", jobs, err)
	}

	for stmt, code := range map[string]string{
		"SUBSCRIBE mv AS OF 1":                                    "0A000",
		"DECLARE x SUBSCRIPTION CURSOR FOR mv":                    "42809",
		"CREATE SUBSCRIPTION s FROM mv WITH (retention = 'soon')": "22023",
	} {
		if _, err := w.Exec(context.Background(), stmt); sqlState(err) != code {
			t.Errorf("%s: %v, want SQLSTATE %s", stmt, err, code)
		}
	}
	mustExec(t, w, "CREATE SUBSCRIPTION s FROM mv")
	if _, err := w.Exec(context.Background(), "SELECT * FROM s"); sqlState(err) != "42809" {
		t.Errorf("SELECT from a subscription: %v, want 42809", err)
	}
	if _, err := w.Exec(context.Background(), "DROP MATERIALIZED VIEW mv"); sqlState(err) != "2BP01" {
		t.Errorf("DROP of a relation a subscription reads: %v, want 2BP01", err)
	}
	mustExec(t, w, "DROP SUBSCRIPTION s")
	mustExec(t, w, "DROP MATERIALIZED VIEW mv")
}

// TestSubscribeCopyLatency streams COPY (SUBSCRIBE t) TO STDOUT, read by
// pgx and by a psql process, while another session inserts 200 rows one
// by one, and prints the time from each INSERT's acknowledgement to its
// row's arrival. psql block-buffers COPY output into a pipe (on a
// terminal it writes each line at once), so it runs under stdbuf -oL.
func TestSubscribeCopyLatency(t *testing.T) {
	for _, client := range []string{"pgx", "psql"} {
		t.Run(client, func(t *testing.T) {
			addr, w, r := subscribeNode(t, "CREATE TABLE t (id INT PRIMARY KEY)")
			const copySQL = "COPY (SUBSCRIBE t) TO STDOUT"
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var out io.Reader
			switch client {
			case "pgx":
				pr, pw := io.Pipe()
				wg.Go(func() {
					_, err := r.PgConn().CopyTo(ctx, pw, copySQL)
					pw.CloseWithError(err)
				})
				out = pr
			case "psql":
				host, port, _ := net.SplitHostPort(addr)
				cmd := exec.CommandContext(ctx, "stdbuf", "-oL", "psql", "-X", "-h", host, "-p", port, "-d", "streamdb", "-c", copySQL)
				var err error
				if out, err = cmd.StdoutPipe(); err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatalf("psql under stdbuf: %v (install postgresql-client and coreutils)", err)
				}
				wg.Go(func() { _ = cmd.Wait() })
			}
			lines := bufio.NewScanner(out)
			// The first row may come in the snapshot, if the COPY starts
			// after its INSERT; every later one as a change.
			const writes = 200
			lat := make([]time.Duration, 0, writes)
			for i := 1; i <= writes; i++ {
				mustExec(t, w, fmt.Sprintf("INSERT INTO t VALUES (%d)", i))
				acked := time.Now()
				if !lines.Scan() {
					t.Fatalf("COPY ended before row %d: %v", i, lines.Err())
				}
				f := strings.Split(lines.Text(), "\t")
				if len(f) != 3 || f[1] != "1" || f[2] != strconv.Itoa(i) {
					t.Fatalf("line %q, want row %d with diff 1", lines.Text(), i)
				}
				lat = append(lat, time.Since(acked))
			}
			cancel()
			go func() {
				for lines.Scan() {
				}
			}()
			wg.Wait()
			slices.Sort(lat)
			t.Logf("commit to arrival over COPY (SUBSCRIBE) read by %s, %d inserts: p50 %v, p99 %v, max %v", client, writes, lat[writes/2], lat[writes*99/100], lat[writes-1])
		})
	}
}

// applyChanges adds changes to a multiset of rows, failing on a count
// out of 0..1 (a row of a keyed view is there once or not at all).
func applyChanges(t *testing.T, set map[string]int64, changes []subChange) {
	t.Helper()
	for _, c := range changes {
		set[c.row] += c.diff
		if v := set[c.row]; v < 0 || v > 1 {
			t.Fatalf("row %s counted %d times after %v", c.row, v, c)
		}
		if set[c.row] == 0 {
			delete(set, c.row)
		}
	}
}

// relationRows returns the rows of a query as "a|b" strings.
func relationRows(t *testing.T, conn *pgx.Conn, query string) map[string]int64 {
	t.Helper()
	rows, err := conn.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var vals []string
		for _, v := range rows.RawValues() {
			vals = append(vals, string(v))
		}
		out[strings.Join(vals, "|")]++
	}
	return out
}

// TestKill9Subscription reads part of a durable subscription's changes,
// kills the server with SIGKILL, restarts it and reads on from the last
// whole epoch read (AS OF): the reader holds every change of the view
// exactly once.
func TestKill9Subscription(t *testing.T) {
	dir, addr, p := startPrepared(t,
		"CREATE TABLE t (id INT PRIMARY KEY, v INT)",
		"CREATE MATERIALIZED VIEW mv AS SELECT id, v FROM t",
		"CREATE SUBSCRIPTION s FROM mv WITH (retention = '1h')",
	)
	w := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	r := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	var since int64
	if err := r.QueryRow(context.Background(), "SELECT since_epoch FROM streamdb_catalog.subscriptions WHERE name = 's'").Scan(&since); err != nil {
		t.Fatal(err)
	}
	write := func(w *pgx.Conn, from, to int) {
		for i := from; i <= to; i++ {
			mustExec(t, w, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i))
		}
		for i := from; i < from+10; i++ {
			mustExec(t, w, fmt.Sprintf("UPDATE t SET v = v + 100 WHERE id = %d", i))
		}
		for i := to - 4; i <= to; i++ {
			mustExec(t, w, fmt.Sprintf("DELETE FROM t WHERE id = %d", i))
		}
	}
	// Each statement commits its own epoch: 40 inserts, 10 updates (two
	// changes each), 5 deletes.
	write(w, 1, 40)
	mustExec(t, r, fmt.Sprintf("DECLARE c CURSOR WITH HOLD FOR SUBSCRIBE s WITH (snapshot = false) AS OF %d", since))
	got := collectChanges(t, r, "c", 30)
	// Only whole epochs count: the last one read may go on.
	last := got[len(got)-1].epoch
	for len(got) > 0 && got[len(got)-1].epoch == last {
		got = got[:len(got)-1]
	}
	r.Close(context.Background())
	w.Close(context.Background())
	p.kill()
	p = startProcess(t, dir, addr)
	t.Cleanup(p.kill)
	w = connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	r = connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	write(w, 41, 60)
	mustExec(t, r, fmt.Sprintf("DECLARE c CURSOR WITH HOLD FOR SUBSCRIBE s WITH (snapshot = false) AS OF %d", last-1))
	const total = 65 + 45
	got = append(got, collectChanges(t, r, "c", total-len(got))...)
	set := map[string]int64{}
	applyChanges(t, set, got)
	if want := relationRows(t, w, "SELECT id, v FROM t"); !maps.Equal(set, want) {
		t.Fatalf("the changes add up to %v, the table holds %v", set, want)
	}
	if more := fetchChanges(t, r, "FETCH ALL c WITH (timeout = '500ms')"); len(more) != 0 {
		t.Fatalf("changes past the writes: %v", more)
	}
}

// TestSlowSubscriberFallsBehind stops reading a subscription kept for 1 s
// while writes go on for 8 s (their epochs commit: the reader holds no
// barrier back), then reads: it is told it fell out of retention.
func TestSlowSubscriberFallsBehind(t *testing.T) {
	_, w, r := subscribeNode(t, "CREATE TABLE t (id INT PRIMARY KEY)", "CREATE SUBSCRIPTION s FROM t WITH (retention = '1s')")
	mustExec(t, r, "DECLARE c CURSOR WITH HOLD FOR SUBSCRIBE s WITH (snapshot = false)")
	mustExec(t, w, "INSERT INTO t VALUES (0)")
	collectChanges(t, r, "c", 1)
	written := 0
	for stop := time.Now().Add(8 * time.Second); time.Now().Before(stop); written++ {
		mustExec(t, w, fmt.Sprintf("INSERT INTO t VALUES (%d)", written+1))
		time.Sleep(20 * time.Millisecond)
	}
	_, err := r.Exec(context.Background(), "FETCH 10 c WITH (timeout = '1s')")
	if sqlState(err) != "55000" {
		t.Fatalf("a reader behind the retention: %v, want SQLSTATE 55000", err)
	}
	t.Logf("%d writes committed while the reader stood still; then: %v", written, err)
}

// TestSubscribeAcrossRescale follows an aggregate view while its rows
// change and it, or the durable subscription read, is rescaled twice: the
// changes add up to the view, no row ever counted twice. On a three-node
// cluster the reader, the writer and the rescales use different nodes and
// the view's key groups (with its changelog) move between them.
func TestSubscribeAcrossRescale(t *testing.T) {
	for _, c := range []struct {
		name, subscription, subscribe, rescale string
		cluster                                bool
	}{
		// The view rescales under a SUBSCRIBE of it.
		{name: "view", subscribe: "SUBSCRIBE mv", rescale: "ALTER MATERIALIZED VIEW mv SET PARALLELISM = %d"},
		// A durable subscription's own job rescales under its reader.
		{name: "subscription", subscription: "CREATE SUBSCRIPTION s FROM mv WITH (retention = '1h')",
			subscribe: "SUBSCRIBE s", rescale: "ALTER SUBSCRIPTION s SET PARALLELISM = %d"},
		{name: "cluster", subscription: "CREATE SUBSCRIPTION s FROM mv WITH (retention = '1h')",
			subscribe: "SUBSCRIBE s", rescale: "ALTER SUBSCRIPTION s SET PARALLELISM = %d", cluster: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			setup := []string{"CREATE TABLE t (id INT PRIMARY KEY, g INT)", "INSERT INTO t SELECT i, i % 7 FROM generate_series(1, 50) AS i",
				"CREATE MATERIALIZED VIEW mv AS SELECT g, count(*) AS n FROM t GROUP BY g"}
			if c.subscription != "" {
				setup = append(setup, c.subscription)
			}
			var a, w, r *pgx.Conn
			pars := []int{3, 1}
			if c.cluster {
				conns := connectCluster(t, startCluster(t, 3), pgx.QueryExecModeSimpleProtocol)
				for _, stmt := range setup {
					mustExec(t, conns[0], stmt)
				}
				a, w, r = conns[0], conns[1], conns[2]
				pars = []int{6, 2}
			} else {
				var addr string
				addr, w, r = subscribeNode(t, setup...)
				a = connect(t, addr, pgx.QueryExecModeSimpleProtocol)
			}
			mustExec(t, r, "BEGIN")
			mustExec(t, r, "DECLARE c CURSOR FOR "+c.subscribe)
			var wg sync.WaitGroup
			wg.Go(func() {
				for _, par := range pars {
					if _, err := a.Exec(context.Background(), fmt.Sprintf(c.rescale, par)); err != nil {
						t.Errorf("rescale to %d: %v", par, err)
					}
				}
			})
			for i := 51; i <= 250; i++ {
				mustExec(t, w, fmt.Sprintf("INSERT INTO t VALUES (%d, %d)", i, i%7))
			}
			wg.Wait()
			want := relationRows(t, w, "SELECT g, n FROM mv")
			set := map[string]int64{}
			for deadline := time.Now().Add(time.Minute); !maps.Equal(set, want); {
				if time.Now().After(deadline) {
					t.Fatalf("the changes add up to %v, the view holds %v", set, want)
				}
				applyChanges(t, set, fetchChanges(t, r, "FETCH 1000 c WITH (timeout = '1s')"))
			}
			if more := fetchChanges(t, r, "FETCH ALL c WITH (timeout = '500ms')"); len(more) != 0 {
				t.Fatalf("changes past the writes: %v", more)
			}
			mustExec(t, r, "COMMIT")
		})
	}
}
