package e2e

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/connector/nexmark"
	"github.com/streamdb/streamdb/tests/testkit"
	"github.com/streamdb/streamdb/types"
)

// sourceRows is the length of the sequences the sources generate.
const sourceRows = 300_000

// TestKill9SourcesExactlyOnce runs a datagen source, a table with a
// datagen connector and a nexmark source, each with a view of count and
// sum, kills the server with SIGKILL at random moments while they
// produce, restarts it several times, and checks at the end that every
// view holds exactly the whole sequence: sources resume from the offsets
// of the last committed epoch, so nothing is lost and nothing is counted
// twice.
func TestKill9SourcesExactlyOnce(t *testing.T) {
	dir, addr, p := startPrepared(t,
		// Frequent checkpoints: each kill lands between committed epochs.
		"ALTER SYSTEM SET barrier_interval_ms = 100",
		"CREATE SOURCE seq (v BIGINT) WITH (connector = 'datagen', fields.v.kind = 'sequence', fields.v.start = '1', fields.v.end = '300000', datagen.rows.per.second = '60000', datagen.split.num = '3')",
		"CREATE MATERIALIZED VIEW seq_totals AS SELECT count(*) AS n, sum(v) AS s FROM seq",
		"CREATE TABLE tseq (v BIGINT) WITH (connector = 'datagen', fields.v.kind = 'sequence', fields.v.start = '1', fields.v.end = '300000', datagen.rows.per.second = '60000', datagen.split.num = '2')",
		"CREATE MATERIALIZED VIEW tseq_totals WITH (parallelism = 2) AS SELECT count(*) AS n, sum(v) AS s FROM tseq",
		"CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR) WITH (connector = 'nexmark', nexmark.table.type = 'Bid', nexmark.event.num = '300000', nexmark.min.event.gap.in.ns = '10000', nexmark.split.num = '2')",
		"CREATE MATERIALIZED VIEW bid_totals AS SELECT count(*) AS n, sum(price) AS s FROM bid",
	)
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 4; round++ {
		time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
		p.kill()
		p = startProcess(t, dir, addr)
		t.Logf("kill %d: seq_totals at %d rows", round+1, count(t, addr, "SELECT n FROM seq_totals"))
	}
	defer p.kill()
	wantBids, wantPrice := nexmarkBids(t, 300_000)
	want := map[string][2]int64{
		"SELECT n, s FROM seq_totals":       {sourceRows, sourceRows * (sourceRows + 1) / 2},
		"SELECT n, s FROM tseq_totals":      {sourceRows, sourceRows * (sourceRows + 1) / 2},
		"SELECT count(*), sum(v) FROM tseq": {sourceRows, sourceRows * (sourceRows + 1) / 2},
		"SELECT n, s FROM bid_totals":       {wantBids, wantPrice},
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for query, w := range want {
		var n, s int64
		// The sources finish in seconds; the deadline only bounds a hang.
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if err := conn.QueryRow(ctx, query).Scan(&n, &s); err != nil {
				t.Fatal(err)
			}
			if n >= w[0] || time.Now().After(deadline) {
				break
			}
		}
		if n != w[0] || s != w[1] {
			t.Errorf("%s = (%d, %d), want (%d, %d)", query, n, s, w[0], w[1])
		}
	}
}

// count runs a query returning one integer on a new connection.
func count(t *testing.T, addr, query string) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// nexmarkBids returns the number of bids among the first events events
// and the sum of their prices, generated in process.
func nexmarkBids(t *testing.T, events int64) (n, price int64) {
	t.Helper()
	cfg, err := nexmark.ParseOptions(map[string]string{"nexmark.table.type": "Bid", "nexmark.event.num": "300000"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EventNum != events {
		t.Fatalf("event count %d", cfg.EventNum)
	}
	s := nexmark.NewSplit(cfg, 0)
	row := make([]types.Datum, s.Width())
	for s.Next([][]types.Datum{row}) == 1 {
		n++
		price += row[2].Int()
	}
	return n, price
}
