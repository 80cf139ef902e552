package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// TestTransactionsAtomicInViews runs transactions that each write two
// tables, from several sessions at once, while a reader polls a view over
// both: every epoch it reads holds all of a transaction's rows or none.
// Half of the transactions end with ROLLBACK, and a pgx.Batch that fails
// half way must leave nothing either.
func TestTransactionsAtomicInViews(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	admin := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	for _, sql := range []string{
		"CREATE TABLE credit (id int PRIMARY KEY, amount int)",
		"CREATE TABLE debit (id int PRIMARY KEY, amount int)",
		"CREATE MATERIALIZED VIEW balance AS SELECT coalesce(sum(a), 0) AS total, count(*) AS n FROM (SELECT amount AS a FROM credit UNION ALL SELECT -amount FROM debit) x",
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	const writers, perWriter = 4, 30
	var writing, reading sync.WaitGroup
	errs := make(chan error, writers+2)
	done := make(chan struct{})
	reading.Go(func() {
		reader := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
		for reads := 0; ; reads++ {
			var total, rows int64
			if err := reader.QueryRow(ctx, "SELECT total, n FROM balance").Scan(&total, &rows); err != nil && err != pgx.ErrNoRows {
				errs <- err
				return
			}
			if total != 0 || rows%2 != 0 {
				errs <- fmt.Errorf("read %d: the view shows half a transaction: total %d over %d rows", reads, total, rows)
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	for w := range writers {
		writing.Go(func() {
			conn := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
			for i := range perWriter {
				if err := transfer(ctx, conn, w*perWriter+i, i%2 == 1); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	writing.Wait()
	close(done)
	reading.Wait()
	// A batch whose third statement fails leaves nothing of the first two.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO credit VALUES (1000, 5)")
	b.Queue("INSERT INTO debit VALUES (1000, 5)")
	b.Queue("INSERT INTO credit VALUES (0, 1)")
	if err := admin.SendBatch(ctx, b).Close(); sqlState(err) != "23505" {
		errs <- fmt.Errorf("the failing batch: %v, want 23505", err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var total, rows int64
	if _, err := admin.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRow(ctx, "SELECT total, n FROM balance").Scan(&total, &rows); err != nil {
		t.Fatal(err)
	}
	if want := int64(writers * perWriter); total != 0 || rows != want {
		t.Errorf("after the writers: total %d over %d rows, want 0 over %d (the committed half)", total, rows, want)
	}
}

// transfer writes a credit and its debit in one transaction, which ends
// with ROLLBACK if rollback is set.
func transfer(ctx context.Context, conn *pgx.Conn, id int, rollback bool) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	_, err1 := tx.Exec(ctx, "INSERT INTO credit VALUES ($1, $2)", id, id+1)
	_, err2 := tx.Exec(ctx, "INSERT INTO debit VALUES ($1, $2)", id, id+1)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	if rollback {
		return tx.Rollback(ctx)
	}
	return tx.Commit(ctx)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
