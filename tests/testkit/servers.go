package testkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/node"
)

// StartNode runs an in-process node on a free port in a temp dir; it is
// closed when the test ends.
func StartNode(t testing.TB) *node.Node {
	t.Helper()
	n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("close node: %v", err)
		}
	})
	return n
}

// ConnString is a pgx connection string for the streamdb server at addr.
func ConnString(addr string) string {
	return fmt.Sprintf("postgres://tester@%s/streamdb?sslmode=disable", addr)
}

// StartPostgres runs a throwaway PostgreSQL server (the newest installed;
// as the postgres user when the tests run as root, since PostgreSQL
// refuses root) in a temp dir, listening on a free port of 127.0.0.1 with
// trust authentication, in UTC and without fsync, and returns its
// connection string; the server is stopped and its files removed when the
// test ends. Without PostgreSQL's server programs the test fails, saying
// how to install them.
func StartPostgres(t testing.TB) string {
	t.Helper()
	return StartPostgresServer(t).ConnString("postgres")
}

// StartPostgresServer is StartPostgres with extra settings ("name=value",
// such as "wal_level=logical"), returning the server (to restart it).
func StartPostgresServer(t testing.TB, settings ...string) *pgbaseline.Server {
	t.Helper()
	bin := pgbaseline.Binaries()
	if bin == "" {
		t.Fatal("PostgreSQL's server programs (initdb, pg_ctl) are not installed under /usr/lib/postgresql/*/bin: install them with `sudo apt-get install -y postgresql`")
	}
	s, err := pgbaseline.Start(context.Background(), bin, append([]string{"fsync=off", "TimeZone=UTC"}, settings...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}
