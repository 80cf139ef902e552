package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/node"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/scram"
	"github.com/streamdb/streamdb/tests/testcerts"
)

// secureNode is an in-process node that requires TLS and a password of
// every client, with the user alice (password "wonder").
type secureNode struct {
	*node.Node
	host, port string
	ca         *testcerts.CA
}

func startSecureNode(t *testing.T) *secureNode {
	t.Helper()
	ca := testcerts.New(t)
	cert, key := ca.Issue("streamdb")
	n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler),
		Security: node.Security{TLSCert: cert, TLSKey: key, TLSRequired: true, Auth: pgwire.AuthSCRAM}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("close node: %v", err)
		}
	})
	// Nobody can log in yet: the user is made in the catalog directly.
	alice := &meta.Role{Name: "alice", Login: true, Verifier: scram.NewVerifier("wonder").String()}
	if err := n.Meta().CreateRole(context.Background(), alice); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(n.Addr())
	return &secureNode{Node: n, host: host, port: port, ca: ca}
}

// conninfo returns a libpq connection string for user with sslmode and
// more settings.
func (n *secureNode) conninfo(user, sslmode string, more ...string) string {
	return strings.Join(append([]string{"host=" + n.host, "port=" + n.port, "dbname=streamdb", "user=" + user,
		"sslmode=" + sslmode, "sslrootcert=" + n.ca.CAFile}, more...), " ")
}

// psqlAs runs psql with conninfo and password and returns its output.
func psqlAs(t *testing.T, conninfo, password string, commands ...string) (string, error) {
	t.Helper()
	args := []string{"-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", conninfo}
	for _, c := range commands {
		args = append(args, "-c", c)
	}
	cmd := exec.Command("psql", args...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPsqlPasswordsAndTLS logs in with psql: SCRAM-SHA-256 with the right
// and a wrong password, over TLS verified against the CA (verify-full) with
// channel binding, plain text refused, and a password changed with the
// verifier psql's \password sends; \du lists the roles.
func TestPsqlPasswordsAndTLS(t *testing.T) {
	n := startSecureNode(t)
	for _, tc := range []struct {
		name, conninfo, password, want string
		fails                          bool
	}{
		{"verify-full, channel binding", n.conninfo("alice", "verify-full", "channel_binding=require"), "wonder", "alice\n", false},
		{"require", n.conninfo("alice", "require"), "wonder", "alice\n", false},
		{"wrong password", n.conninfo("alice", "verify-full"), "wrong", `FATAL:  password authentication failed for user "alice"`, true},
		{"unknown user", n.conninfo("mallory", "verify-full"), "wonder", `FATAL:  password authentication failed for user "mallory"`, true},
		{"plain text", n.conninfo("alice", "disable"), "wonder", `this server requires TLS`, true},
	} {
		out, err := psqlAs(t, tc.conninfo, tc.password, "SELECT current_user")
		if (err != nil) != tc.fails || !strings.Contains(out, tc.want) {
			t.Errorf("%s: err=%v output %q; want %q", tc.name, err, out, tc.want)
		}
	}
	// \du lists the roles with their attributes.
	if err := n.Meta().CreateRole(context.Background(), &meta.Role{Name: "readers"}); err != nil {
		t.Fatal(err)
	}
	out, err := psqlAs(t, n.conninfo("alice", "verify-full"), "wonder", `\du`)
	want := "alice||{}\nreaders|Cannot login|{}\nstreamdb|Superuser, Create role, Create DB, Replication, Bypass RLS|{}\n"
	if err != nil || out != want {
		t.Errorf("\\du: %v\n%s\nwant\n%s", err, out, want)
	}
	// psql's \password sends ALTER USER with a verifier it computed.
	v := scram.NewVerifier("changed").String()
	if out, err := psqlAs(t, n.conninfo("alice", "verify-full"), "wonder", "ALTER USER alice PASSWORD '"+v+"'"); err != nil {
		t.Fatalf("ALTER USER with a verifier: %v %s", err, out)
	}
	if out, err := psqlAs(t, n.conninfo("alice", "verify-full"), "changed", "SELECT current_user"); err != nil || out != "alice\n" {
		t.Fatalf("new password: %v %q", err, out)
	}
	if _, err := psqlAs(t, n.conninfo("alice", "verify-full"), "wonder", "SELECT 1"); err == nil {
		t.Fatal("the old password still works")
	}
}

// TestPsqlBackslashPassword types \password into an interactive psql on a
// pseudo-terminal, as a person would, and logs in with the new password.
func TestPsqlBackslashPassword(t *testing.T) {
	n := startSecureNode(t)
	cmd := exec.Command("psql", "-X", "-P", "pager=off", n.conninfo("alice", "verify-full"))
	cmd.Env = append(os.Environ(), "PGPASSWORD=wonder", "PSQL_HISTORY="+filepath.Join(t.TempDir(), "history"))
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	screen := &terminal{}
	go func() { _, _ = io.Copy(screen, tty) }()
	// Each step waits for what psql shows (the prompt counted, as it
	// comes back), then types.
	for _, step := range []struct {
		expect string
		times  int
		send   string
	}{
		{"streamdb=>", 1, `\password` + "\n"},
		{`Enter new password for user "alice":`, 1, "typed-secret\n"},
		{"Enter it again:", 1, "typed-secret\n"},
		{"streamdb=>", 2, "SELECT 'after' || 'password';\n"},
		{"afterpassword", 1, `\q` + "\n"},
	} {
		screen.waitFor(t, step.expect, step.times)
		if _, err := tty.Write([]byte(step.send)); err != nil {
			t.Fatal(err)
		}
	}
	err = cmd.Wait()
	exited = true
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, screen.String())
	}
	if strings.Contains(screen.String(), "ERROR") {
		t.Fatalf("\\password failed:\n%s", screen.String())
	}
	if out, err := psqlAs(t, n.conninfo("alice", "verify-full"), "typed-secret", "SELECT current_user"); err != nil || out != "alice\n" {
		t.Fatalf("login with the password typed into \\password: %v %q", err, out)
	}
}

// terminal collects what a program writes to its pseudo-terminal.
type terminal struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *terminal) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *terminal) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows text times (failing after a
// minute: the program is stuck).
func (s *terminal) waitFor(t *testing.T, text string, times int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); strings.Count(s.String(), text) < times; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q:\n%s", text, s.String())
		}
	}
}

// TestPgxPasswordsAndTLS logs in with pgx: TLS verified against the CA
// with channel binding required, a wrong password, and plain text refused.
func TestPgxPasswordsAndTLS(t *testing.T) {
	n := startSecureNode(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, conninfo string
		code           string // "" for success
	}{
		{"verify-full, channel binding", n.conninfo("alice", "verify-full", "password=wonder", "channel_binding=require"), ""},
		{"wrong password", n.conninfo("alice", "verify-full", "password=wrong"), "28P01"},
		{"plain text", n.conninfo("alice", "disable", "password=wonder"), "28000"},
	} {
		conn, err := pgx.Connect(ctx, tc.conninfo)
		var pe *pgconn.PgError
		switch {
		case tc.code != "":
			if !errors.As(err, &pe) || pe.Code != tc.code {
				t.Errorf("%s: %v; want %s", tc.name, err, tc.code)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		default:
			var user string
			if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil || user != "alice" {
				t.Errorf("%s: current_user %q, %v", tc.name, user, err)
			}
			if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
				t.Errorf("%s: not TLS", tc.name)
			}
			conn.Close(ctx)
		}
	}
}

// TestJDBCPasswordsAndTLS logs in with Debian's JDBC driver over TLS with
// verify-full: the right password, then a wrong one.
func TestJDBCPasswordsAndTLS(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not found: install a JDK and the driver (apt-get install default-jdk-headless libpostgresql-jdbc-java); .ci/run does")
	}
	n := startSecureNode(t)
	url := "jdbc:postgresql://" + n.host + ":" + n.port + "/streamdb"
	for _, tc := range []struct{ ca, password, want string }{
		{n.ca.CAFile, "wonder", "user alice\n"},
		{n.ca.CAFile, "wrong", "error 28P01\n"},
		{"", "wonder", "error 28000\n"},
	} {
		out, err := exec.Command(java, "-cp", "/usr/share/java/postgresql.jar", filepath.Join("testdata", "JdbcAuth.java"), url, tc.ca, "alice", tc.password).CombinedOutput()
		if err != nil || string(out) != tc.want {
			t.Errorf("JDBC with password %q (CA %q): %v %q; want %q", tc.password, tc.ca, err, out, tc.want)
		}
	}
}

// TestStartRefusesPlainTextBeyondLoopback starts the server on every
// interface without TLS: it refuses, naming what to set, before it
// listens.
func TestStartRefusesPlainTextBeyondLoopback(t *testing.T) {
	_, port, _ := net.SplitHostPort(freeAddr(t))
	out, err := exec.Command(binary(t), "start", "--listen", "0.0.0.0:"+port, "--cluster-addr", "127.0.0.1:0", "--data-dir", t.TempDir()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "set --tls-cert and --tls-key") {
		t.Fatalf("err=%v output %q", err, out)
	}
}

// TestClusterMutualTLS runs a three-node cluster whose nodes talk over
// mutual TLS (one CA): joining, DDL, writes and a materialized view spread
// over the nodes all cross it.
func TestClusterMutualTLS(t *testing.T) {
	ca := testcerts.New(t)
	cert, key := ca.Issue("node")
	nodes := startCluster(t, 3, "--cluster-tls-cert", cert, "--cluster-tls-key", key, "--cluster-ca", ca.CAFile)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conns[0], "CREATE TABLE tls_t (id INT PRIMARY KEY, v INT)")
	mustExec(t, conns[1], "INSERT INTO tls_t SELECT g, g % 7 FROM generate_series(1, 1000) g")
	mustExec(t, conns[2], "CREATE MATERIALIZED VIEW tls_mv AS SELECT v, count(*) AS n FROM tls_t GROUP BY v")
	mustExec(t, conns[0], "FLUSH")
	var groups, total int
	if err := conns[2].QueryRow(context.Background(), "SELECT count(*), sum(n) FROM tls_mv").Scan(&groups, &total); err != nil || groups != 7 || total != 1000 {
		t.Fatalf("view over the TLS cluster: %d groups, %d rows, %v", groups, total, err)
	}
}
