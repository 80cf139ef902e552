package e2e

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/tests/testkit"
)

// cdcRows is the table size of TestPostgresCDCThroughput.
var cdcRows = flag.Int("cdc.rows", 20000, "rows of the upstream table TestPostgresCDCThroughput updates in bulk")

// TestPostgresCDCThroughput measures, and logs, how fast a bulk UPDATE of
// every row of an upstream table reaches a view over its postgres-cdc
// table (rows/s from the upstream commit until the view shows the new
// sum), beside how fast pg_recvlogical receives the same transaction from
// a slot of the same publication (rows/s from its start until it reaches
// the commit's LSN). Run it with -cdc.rows=1000000 -v for the figures;
// it checks only that the view is right.
func TestPostgresCDCThroughput(t *testing.T) {
	ctx := context.Background()
	n := int64(*cdcRows)
	up := testkit.StartPostgresServer(t, cdcSettings...)
	url := up.ConnString("postgres")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{
		"CREATE TABLE items (id BIGINT PRIMARY KEY, g INT NOT NULL, v BIGINT NOT NULL)",
		fmt.Sprintf("INSERT INTO items SELECT i, i %% 100, 0 FROM generate_series(1, %d) i", n),
		"CREATE PUBLICATION bench_pub FOR TABLE items",
		"SELECT pg_create_logical_replication_slot('bench_recv', 'pgoutput')",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	_, addr, p := startPrepared(t,
		fmt.Sprintf("CREATE TABLE items (id BIGINT PRIMARY KEY, g INT, v BIGINT) WITH (connector = 'postgres-cdc', url = '%s', table = 'public.items', publication = 'bench_pub')", url),
		"CREATE MATERIALIZED VIEW items_sum AS SELECT count(*) AS n, sum(v) AS s FROM items",
	)
	defer p.kill()
	sd := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	waitSum := func(want int64) time.Time {
		for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
			var rows, sum int64
			if err := sd.QueryRow(ctx, "SELECT n, coalesce(s, 0) FROM items_sum").Scan(&rows, &sum); err != nil {
				t.Fatal(err)
			}
			if rows == n && sum == want || time.Now().After(deadline) {
				if rows != n || sum != want {
					t.Fatalf("items_sum = (%d, %d), want (%d, %d)", rows, sum, n, want)
				}
				return time.Now()
			}
		}
	}
	waitSum(0)
	start := time.Now()
	if _, err := conn.Exec(ctx, "UPDATE items SET v = v + 1"); err != nil {
		t.Fatal(err)
	}
	committed := time.Now()
	streamdb := waitSum(n).Sub(committed)

	var end string
	if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&end); err != nil {
		t.Fatal(err)
	}
	recv := exec.Command(filepath.Join(pgbaseline.Binaries(), "pg_recvlogical"), "-d", url, "--slot", "bench_recv", "--start",
		"--endpos", end, "-o", "proto_version=1", "-o", "publication_names=bench_pub", "-f", "/dev/null")
	began := time.Now()
	if out, err := recv.CombinedOutput(); err != nil {
		t.Fatalf("pg_recvlogical: %v\n%s", err, out)
	}
	recvlogical := time.Since(began)
	t.Logf("bulk UPDATE of %d rows: upstream %v; streamdb view %v after the commit (%.0f rows/s); pg_recvlogical %v (%.0f rows/s)",
		n, committed.Sub(start), streamdb, float64(n)/streamdb.Seconds(), recvlogical, float64(n)/recvlogical.Seconds())
}
