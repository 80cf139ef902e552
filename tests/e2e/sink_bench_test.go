package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// BenchmarkPostgresSink measures the PostgreSQL sink beside the plain COPY
// of the same rows into the same PostgreSQL: sinkRows rows are copied
// into a streamdb table whose sink delivers them to PostgreSQL, timed
// until the last has arrived; the baseline copies them straight into
// PostgreSQL. Run it with
//
//	go test ./tests/e2e -run '^$' -bench PostgresSink -benchtime 1x
func BenchmarkPostgresSink(b *testing.B) {
	const sinkRows = 200_000
	ctx := context.Background()
	dsn := testkit.StartPostgres(b)
	pg, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close(ctx)
	for _, tb := range []string{"direct", "sunk"} {
		if _, err := pg.Exec(ctx, "CREATE TABLE "+tb+" (id bigint, k int, name text, v numeric)"); err != nil {
			b.Fatal(err)
		}
	}
	rows := make([][]any, sinkRows)
	for i := range rows {
		rows[i] = []any{int64(i), int32(i % 100), fmt.Sprintf("name-%d", i), fmt.Sprintf("%d.%02d", i, i%100)}
	}
	cols := []string{"id", "k", "name", "v"}
	n := testkit.StartNode(b)
	sd, err := pgx.Connect(ctx, testkit.ConnString(n.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	defer sd.Close(ctx)
	for _, stmt := range []string{
		"CREATE TABLE src (id BIGINT PRIMARY KEY, k INT, name TEXT, v NUMERIC)",
		fmt.Sprintf("CREATE SINK s AS SELECT id, k, name, v FROM src WITH (connector = 'postgres', url = '%s', table = 'sunk', force_append_only = 'true')", dsn),
	} {
		if _, err := sd.Exec(ctx, stmt); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := pg.CopyFrom(ctx, pgx.Identifier{"direct"}, cols, pgx.CopyFromRows(rows)); err != nil {
			b.Fatal(err)
		}
		direct := time.Since(start)

		start = time.Now()
		if _, err := sd.CopyFrom(ctx, pgx.Identifier{"src"}, cols, pgx.CopyFromRows(rows)); err != nil {
			b.Fatal(err)
		}
		copied := time.Since(start)
		for {
			var got int
			if err := pg.QueryRow(ctx, "SELECT count(*) FROM sunk").Scan(&got); err != nil {
				b.Fatal(err)
			}
			if got >= sinkRows {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		sunk := time.Since(start)
		b.ReportMetric(sinkRows/direct.Seconds(), "pg-copy-rows/s")
		b.ReportMetric(sinkRows/copied.Seconds(), "streamdb-copy-rows/s")
		b.ReportMetric(sinkRows/sunk.Seconds(), "sink-rows/s")
		b.Logf("%d rows: PostgreSQL COPY %v; COPY into streamdb %v, delivered into PostgreSQL by the sink after %v", sinkRows, direct.Round(time.Millisecond), copied.Round(time.Millisecond), sunk.Round(time.Millisecond))
		for _, stmt := range []string{"TRUNCATE direct", "TRUNCATE sunk"} {
			if _, err := pg.Exec(ctx, stmt); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := sd.Exec(ctx, "DELETE FROM src"); err != nil {
			b.Fatal(err)
		}
	}
}
