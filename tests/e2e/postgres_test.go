package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// errNoPostgres tells how to get the PostgreSQL server the comparisons
// with PostgreSQL need.
const errNoPostgres = "PostgreSQL's server programs (initdb, pg_ctl) are not installed under /usr/lib/postgresql/*/bin: install them with `sudo apt-get install -y postgresql`"

// startPostgres runs a throwaway PostgreSQL server (the newest installed)
// in a temp dir, listening on a free port of 127.0.0.1 with trust
// authentication, in UTC, and returns its connection string; the server is
// stopped and its files removed when the test ends. As root it runs as the
// postgres user, since initdb and pg_ctl refuse to run as root.
func startPostgres(t *testing.T) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Fatal(errNoPostgres)
	}
	slices.SortFunc(bins, func(a, b string) int { return pgVersion(a) - pgVersion(b) })
	bin := filepath.Dir(bins[len(bins)-1])
	dir, err := os.MkdirTemp("", "streamdb-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var asUser []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running PostgreSQL as root needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	run := func(name string, args ...string) {
		t.Helper()
		argv := append(append(slices.Clone(asUser), filepath.Join(bin, name)), args...)
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	data := filepath.Join(dir, "data")
	run("initdb", "--pgdata", data, "--username", "postgres", "--auth", "trust", "--encoding", "UTF8", "--locale", "C", "--no-sync")
	_, port, _ := net.SplitHostPort(freeAddr(t))
	run("pg_ctl", "start", "--pgdata", data, "--wait", "--log", filepath.Join(dir, "log"), "--options",
		fmt.Sprintf("-p %s -c listen_addresses=127.0.0.1 -k %s -c fsync=off -c TimeZone=UTC", port, dir))
	t.Cleanup(func() { run("pg_ctl", "stop", "--pgdata", data, "--mode", "immediate") })
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", port)
}

// pgVersion is the major version in a path /usr/lib/postgresql/V/bin/x.
func pgVersion(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}
