package e2e

import (
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/tests/testkit"
)

// psql runs the psql binary against addr with the given -c commands and
// returns its output (unaligned, tuples only).
func psql(t *testing.T, addr string, commands ...string) (string, error) {
	t.Helper()
	path, err := exec.LookPath("psql")
	if err != nil {
		t.Fatal("psql not found: install it (Debian: apt-get install postgresql-client); .ci/run does")
	}
	host, port, _ := net.SplitHostPort(addr)
	args := []string{"-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "tester", "-d", "streamdb"}
	for _, c := range commands {
		args = append(args, "-c", c)
	}
	out, err := exec.Command(path, args...).CombinedOutput()
	return string(out), err
}

func TestPsqlSession(t *testing.T) {
	n := testkit.StartNode(t)
	out, err := psql(t, n.Addr(),
		"CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT)",
		"INSERT INTO t VALUES (1, 'a'), (2, NULL)",
		"SELECT * FROM t ORDER BY id")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	want := "CREATE TABLE\nINSERT 0 2\n1|a\n2|\n"
	if out != want {
		t.Fatalf("psql output:\n%q\nwant\n%q", out, want)
	}

	// Errors reach psql with their message and the server keeps serving.
	out, err = psql(t, n.Addr(), "SELECT * FROM missing")
	if err == nil || !strings.Contains(out, `ERROR:  relation "missing" does not exist`) {
		t.Fatalf("missing table: err=%v output %q", err, out)
	}
	out, err = psql(t, n.Addr(), "SELECT count(*) FROM t")
	if err != nil || out != "2\n" {
		t.Fatalf("after error: err=%v output %q", err, out)
	}
}

func TestPsqlUnknownDatabase(t *testing.T) {
	n := testkit.StartNode(t)
	host, port, _ := net.SplitHostPort(n.Addr())
	out, err := exec.Command("psql", "-X", "-h", host, "-p", port, "-d", "nope", "-c", "SELECT 1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `database "nope" does not exist`) {
		t.Fatalf("unknown database: err=%v output %q", err, out)
	}
}
