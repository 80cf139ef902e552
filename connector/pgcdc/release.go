package pgcdc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// releaseRetry is how long Release waits before it tries again to drop a
// slot still active (the stopped source's connection is closing).
const releaseRetry = 100 * time.Millisecond

// Release drops the publication and the replication slot of c that are
// streamdb's (Config.DropSlot, DropPublication), if they exist, once the
// source stopped; a slot still active is dropped once it is released, or
// the error is returned when ctx ends. The error says what to drop by
// hand.
func Release(ctx context.Context, c Config) error {
	if !c.DropSlot && !c.DropPublication {
		return nil
	}
	err := release(ctx, c)
	if err == nil {
		return nil
	}
	var what []string
	if c.DropSlot {
		what = append(what, fmt.Sprintf("SELECT pg_drop_replication_slot('%s');", c.Slot))
	}
	if c.DropPublication {
		what = append(what, fmt.Sprintf("DROP PUBLICATION %s;", pgx.Identifier{c.Publication}.Sanitize()))
	}
	return fmt.Errorf("%w; run upstream: %v", err, what)
}

// release does the work of Release.
func release(ctx context.Context, c Config) error {
	conn, err := pgx.Connect(ctx, c.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if c.DropPublication {
		if _, err := conn.Exec(ctx, "DROP PUBLICATION IF EXISTS "+pgx.Identifier{c.Publication}.Sanitize()); err != nil {
			return err
		}
	}
	for c.DropSlot {
		_, err := conn.Exec(ctx, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1", c.Slot)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55006" {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(releaseRetry):
		}
	}
	return nil
}
