package pgcdc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/pgerror"
)

// Check connects to the upstream database and verifies that it can feed
// a source of columns cols: logical decoding is on, the table exists and
// has every column.
func Check(ctx context.Context, c Config, cols []string) error {
	conn, err := pgx.Connect(ctx, c.URL)
	if err != nil {
		return pgerror.New(pgerror.CodeUnableToConnect, "cannot connect to the upstream PostgreSQL of a postgres-cdc source: %v", err).
			WithHint("Check the url (or hostname, port, username, password, database.name) and that the server is up.")
	}
	defer conn.Close(ctx)
	var level string
	if err := conn.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil {
		return upstreamError(err)
	}
	if level != "logical" {
		return pgerror.New(pgerror.CodeObjectNotInState, "the upstream PostgreSQL has wal_level = %s, a postgres-cdc source needs logical", level).
			WithHint("Set wal_level = logical and restart PostgreSQL.")
	}
	rows, err := conn.Query(ctx, `SELECT a.attname FROM pg_attribute a JOIN pg_class r ON r.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = r.relnamespace
		WHERE n.nspname = $1 AND r.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`, c.Schema, c.Table)
	if err != nil {
		return upstreamError(err)
	}
	upstream, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return upstreamError(err)
	}
	if len(upstream) == 0 {
		return pgerror.New(pgerror.CodeUndefinedTable, "the upstream table %s.%s of a postgres-cdc source does not exist", c.Schema, c.Table).
			WithHint("Create it upstream first, or fix the option table.")
	}
	for _, col := range cols {
		if !slices.Contains(upstream, col) {
			return pgerror.New(pgerror.CodeUndefinedColumn, "the upstream table %s.%s has no column %s", c.Schema, c.Table, col).
				WithHint("The upstream table's columns are %s; declare a subset of them.", strings.Join(upstream, ", "))
		}
	}
	return nil
}

// upstreamError wraps an error of the upstream server.
func upstreamError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pgerror.New(pe.Code, "upstream PostgreSQL: %s", pe.Message).WithHint("Fix the upstream server or the source's options.")
	}
	return fmt.Errorf("upstream PostgreSQL: %w", err)
}
