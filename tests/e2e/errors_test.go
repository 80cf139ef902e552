package e2e

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// sqlState returns the SQLSTATE of a server error, or "".
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
