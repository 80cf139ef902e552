package e2e

import (
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/tests/testkit"
)

// TestPsycopg2Session runs a Python session with psycopg2 (Debian's
// python3-psycopg2, which .ci/run installs): transactions, errors, a view,
// jsonb, time zones, COPY both ways and pg_stat_activity.
func TestPsycopg2Session(t *testing.T) {
	// Debian's interpreter, which python3-psycopg2 installs into (a
	// python3 earlier in PATH may be another).
	python, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Fatal("python3 not found: install python3-psycopg2 (apt-get install python3-psycopg2); .ci/run does")
	}
	n := testkit.StartNode(t)
	out, err := exec.Command(python, filepath.Join("testdata", "psycopg2_session.py"), testkit.ConnString(n.Addr())).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("psycopg2 session: %v\n%s", err, out)
	}
}

// TestJDBCMetadata runs a Java program with the PostgreSQL JDBC driver
// (Debian's libpostgresql-jdbc-java and a JDK, which .ci/run installs):
// DatabaseMetaData's tables and columns, the primary key and index in the
// catalogs, the driver's startup time zone, and a batch that fails half
// way.
func TestJDBCMetadata(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not found: install a JDK and the driver (apt-get install default-jdk-headless libpostgresql-jdbc-java); .ci/run does")
	}
	const driver = "/usr/share/java/postgresql.jar"
	n := testkit.StartNode(t)
	host, port, _ := net.SplitHostPort(n.Addr())
	url := "jdbc:postgresql://" + host + ":" + port + "/streamdb"
	out, err := exec.Command(java, "-cp", driver, filepath.Join("testdata", "JdbcMetadata.java"), url).CombinedOutput()
	if err != nil {
		t.Fatalf("JDBC: %v\n%s", err, out)
	}
	want := `product PostgreSQL
table jdbc_t_name INDEX
table jdbc_t_pkey INDEX
table jdbc_mv MATERIALIZED VIEW
table jdbc_t TABLE
column id int4 NO
column name text NO
column score float8 YES
pk jdbc_t_pkey id 1
index jdbc_t_pkey id 1 unique=true A
index jdbc_t_name name 1 unique=false A
timezone Europe/Paris
batch failed 23505
row 2
`
	if string(out) != want {
		t.Errorf("JDBC metadata:\n%s\nwant\n%s", out, want)
	}
}
