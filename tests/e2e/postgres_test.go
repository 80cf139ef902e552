package e2e

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/bench/pgbaseline"
)

// startPostgres runs a throwaway PostgreSQL server (the newest installed;
// as the postgres user when the tests run as root, since PostgreSQL
// refuses root) in a temp dir, listening on a free port of 127.0.0.1 with
// trust authentication, in UTC and without fsync, and returns its
// connection string; the server is stopped and its files removed when the
// test ends.
func startPostgres(t *testing.T) string {
	t.Helper()
	bin := pgbaseline.Binaries()
	if bin == "" {
		t.Fatal("PostgreSQL's server programs (initdb, pg_ctl) are not installed under /usr/lib/postgresql/*/bin: install them with `sudo apt-get install -y postgresql`")
	}
	s, err := pgbaseline.Start(context.Background(), bin, "fsync=off", "TimeZone=UTC")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s.ConnString("postgres")
}
