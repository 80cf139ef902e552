package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/scram"
)

// privilegeNode is a secure node (TLS and SCRAM) with a superuser admin,
// a table t and its materialized view mv owned by admin, and the users
// writer (INSERT on t), reader (SELECT on mv, and on the subscription
// sub) and outsider (nothing), each with the password "pw".
func privilegeNode(t *testing.T) *secureNode {
	t.Helper()
	n := startSecureNode(t)
	ctx := context.Background()
	admin := &meta.Role{Name: "admin", Login: true, Superuser: true, Verifier: scram.NewVerifier("pw").String()}
	if err := n.Meta().CreateRole(ctx, admin); err != nil {
		t.Fatal(err)
	}
	a := n.connect(t, "admin")
	for _, s := range []string{
		"CREATE USER writer PASSWORD 'pw'", "CREATE USER reader PASSWORD 'pw'", "CREATE USER outsider PASSWORD 'pw'",
		"CREATE TABLE t (k int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 10)",
		"CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n, sum(v) AS s FROM t",
		"CREATE SUBSCRIPTION sub FROM t",
		"GRANT INSERT ON t TO writer", "GRANT SELECT ON mv, sub TO reader",
	} {
		mustExec(t, a, s)
	}
	return n
}

// connect opens a pgx session of user (password "pw") over TLS.
func (n *secureNode) connect(t *testing.T, user string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), n.conninfo(user, "verify-full", "password=pw"))
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestPrivileges runs every path a privilege guards as each role, with
// pgx, psql and JDBC: what a role may not do fails with 42501 and leaves
// its session usable; what it may do works.
func TestPrivileges(t *testing.T) {
	n := privilegeNode(t)
	ctx := context.Background()
	conns := map[string]*pgx.Conn{}
	for _, u := range []string{"admin", "writer", "reader", "outsider"} {
		conns[u] = n.connect(t, u)
	}
	var pids = map[string]uint32{}
	for u, c := range conns {
		pids[u] = c.PgConn().PID()
	}
	const denied = "42501"
	cases := []struct {
		user, sql, code string
	}{
		{"reader", "SELECT n FROM mv", ""},
		{"reader", "SELECT * FROM t", denied},
		{"reader", "INSERT INTO t VALUES (5, 5)", denied},
		{"reader", "COPY mv TO STDOUT", ""},
		{"reader", "COPY t TO STDOUT", denied},
		{"reader", "DECLARE c1 CURSOR WITH HOLD FOR SUBSCRIBE mv", ""},
		{"reader", "DECLARE c2 CURSOR WITH HOLD FOR SUBSCRIBE t", denied},
		{"reader", "DECLARE c3 SUBSCRIPTION CURSOR FOR sub", ""},
		{"outsider", "DECLARE c4 SUBSCRIPTION CURSOR FOR sub", denied},
		{"writer", "INSERT INTO t VALUES (2, 20)", ""},
		{"writer", "INSERT INTO t VALUES (3, 30) RETURNING k", denied},
		{"writer", "UPDATE t SET v = 0", denied},
		{"writer", "DELETE FROM t", denied},
		{"writer", "INSERT INTO t VALUES (2, 2) ON CONFLICT (k) DO UPDATE SET v = excluded.v", denied},
		{"writer", "SELECT * FROM mv", denied},
		{"outsider", "SELECT * FROM mv", denied},
		{"outsider", "CREATE TABLE o (x int)", denied},
		{"outsider", "CREATE MATERIALIZED VIEW o AS SELECT * FROM t", denied},
		{"outsider", "CREATE SUBSCRIPTION o FROM t", denied},
		{"outsider", "DROP MATERIALIZED VIEW mv", denied},
		{"outsider", "ALTER TABLE t ADD COLUMN w int", denied},
		{"outsider", "CREATE INDEX ti ON t (v)", denied},
		{"outsider", "GRANT SELECT ON t TO outsider", denied},
		{"outsider", "ALTER MATERIALIZED VIEW mv SET PARALLELISM = 2", denied},
		{"outsider", "ALTER SYSTEM SET barrier_interval_ms = 500", denied},
		{"outsider", "ALTER SYSTEM REBALANCE", denied},
		{"outsider", "CREATE USER o", denied},
		{"outsider", "ALTER USER reader PASSWORD 'x'", denied},
		{"outsider", "SET ROLE admin", denied},
		{"outsider", fmt.Sprintf("SELECT pg_cancel_backend(%d)", pids["reader"]), denied},
		{"outsider", fmt.Sprintf("SELECT pg_terminate_backend(%d)", pids["admin"]), denied},
		{"outsider", "ALTER USER outsider PASSWORD 'pw'", ""},
		{"admin", "ALTER MATERIALIZED VIEW mv SET PARALLELISM = 2", ""},
		{"admin", "GRANT CREATE ON SCHEMA public TO outsider", ""},
		{"outsider", "CREATE TABLE o (x int)", ""},
		{"outsider", "DROP TABLE o", ""},
	}
	for _, c := range cases {
		_, err := conns[c.user].Exec(ctx, c.sql)
		if got := sqlState(err); got != c.code {
			t.Errorf("%s: %s: %v; want SQLSTATE %q", c.user, c.sql, err, c.code)
		}
	}
	// Each session still answers after its refusals.
	for u, c := range conns {
		var who string
		if err := c.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != u {
			t.Errorf("%s after the refusals: %q %v", u, who, err)
		}
	}

	// psql: the messages a person reads, and \dp.
	psql := func(user string, commands ...string) (string, error) {
		return psqlAs(t, n.conninfo(user, "verify-full"), "pw", commands...)
	}
	if out, err := psql("reader", "SELECT n FROM mv"); err != nil || strings.TrimSpace(out) != "2" {
		t.Errorf("psql reader reads mv: %v %q", err, out)
	}
	if out, err := psql("reader", "INSERT INTO t VALUES (9, 9)"); err == nil || !strings.Contains(out, "ERROR:  permission denied for table t") {
		t.Errorf("psql reader writes t: %v %q", err, out)
	}
	if out, err := psql("admin", `\dp mv`); err != nil || !strings.Contains(out, "admin=arwdDxt/admin\nreader=r/admin") {
		t.Errorf("psql \\dp mv: %v %q", err, out)
	}

	// JDBC: one session doing what it may and what it may not.
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not found: install a JDK and the driver (apt-get install default-jdk-headless libpostgresql-jdbc-java); .ci/run does")
	}
	url := "jdbc:postgresql://" + n.host + ":" + n.port + "/streamdb"
	out, err := exec.Command(java, "-cp", "/usr/share/java/postgresql.jar", filepath.Join("testdata", "JdbcStatements.java"), url, n.ca.CAFile, "writer", "pw",
		"INSERT INTO t VALUES (7, 70)", "SELECT * FROM t", "DROP TABLE t", "INSERT INTO t VALUES (8, 80)").CombinedOutput()
	if want := "ok\nerror 42501\nerror 42501\nok\n"; err != nil || string(out) != want {
		t.Errorf("JDBC writer: %v %q; want %q", err, out, want)
	}
}

// TestPrivilegeSessions keeps one session per role open while the
// writer inserts, the reader reads the view with a prepared statement and
// the admin revokes and grants the reader's SELECT: each session does
// only what it may at that moment.
func TestPrivilegeSessions(t *testing.T) {
	n := privilegeNode(t)
	ctx := context.Background()
	admin, writer, reader, outsider := n.connect(t, "admin"), n.connect(t, "writer"), n.connect(t, "reader"), n.connect(t, "outsider")
	const rows = 200
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 100; k < 100+rows; k++ {
			if _, err := writer.Exec(ctx, "INSERT INTO t VALUES ($1, 1)", k); err != nil {
				t.Errorf("writer insert %d: %v", k, err)
				return
			}
			if _, err := writer.Exec(ctx, "SELECT count(*) FROM t"); sqlState(err) != "42501" {
				t.Errorf("writer reads t: %v", err)
				return
			}
		}
	}()
	if _, err := reader.Prepare(ctx, "count", "SELECT n FROM mv"); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		var cnt int64
		return reader.QueryRow(ctx, "count").Scan(&cnt)
	}
	for round := 0; round < 5; round++ {
		if err := read(); err != nil {
			t.Fatalf("round %d: reader with SELECT: %v", round, err)
		}
		mustExec(t, admin, "REVOKE SELECT ON mv FROM reader")
		if err := read(); sqlState(err) != "42501" {
			t.Fatalf("round %d: reader after REVOKE: %v", round, err)
		}
		if _, err := outsider.Exec(ctx, "SELECT n FROM mv"); sqlState(err) != "42501" {
			t.Fatalf("round %d: outsider: %v", round, err)
		}
		mustExec(t, admin, "GRANT SELECT ON mv TO reader")
	}
	wg.Wait()
	mustExec(t, admin, "FLUSH")
	var cnt int64
	if err := reader.QueryRow(ctx, "count").Scan(&cnt); err != nil || cnt != rows+1 {
		t.Fatalf("mv counts %d rows, %v; want %d", cnt, err, rows+1)
	}
}
