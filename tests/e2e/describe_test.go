package e2e

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/tests/testkit"
)

// TestPsqlDescribe runs psql's describe commands, which query pg_catalog,
// and the information_schema views tools read.
func TestPsqlDescribe(t *testing.T) {
	n := testkit.StartNode(t)
	if out, err := psql(t, n.Addr(),
		"CREATE TABLE t (a INT PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x', c DOUBLE PRECISION, d VARCHAR(10), e INT[], f VARCHAR(3) ARRAY)",
		"CREATE VIEW v AS SELECT b, d FROM t",
		"CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM t"); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	// \l+ shows the database's size, its relations' bytes in the store.
	dbSize, err := psql(t, n.Addr(), "SELECT pg_size_pretty(pg_database_size('streamdb'))")
	if err != nil || !strings.HasSuffix(dbSize, "bytes\n") {
		t.Fatalf("database size: %q, %v", dbSize, err)
	}
	for _, c := range []struct{ cmd, want string }{
		{`\dt`, "public|t|table|streamdb\n"},
		{`\dv`, "public|v|view|streamdb\n"},
		{`\dm`, "public|m|materialized view|streamdb\n"},
		{`\d`, "public|m|materialized view|streamdb\npublic|t|table|streamdb\npublic|v|view|streamdb\n"},
		{`\d v`, "b|text|||\nd|character varying(10)|||\n"},
		// The column listing \d t runs (its later footer queries use arrays).
		{`SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
		  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) FROM pg_catalog.pg_attrdef d
		   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef), a.attnotnull
		 FROM pg_catalog.pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		 WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default
		   AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
			"a|integer||t\nb|text|'x'|t\nc|double precision||f\nd|character varying(10)||f\ne|integer[]||f\nf|character varying(3)[]||f\n"},
		{`SELECT c.relkind, c.reloftype = 0, c.reloftype::pg_catalog.regtype FROM pg_catalog.pg_class c WHERE c.relname = 'm'`, "m|t|0\n"},
		{"SELECT table_schema, table_name, table_type FROM information_schema.tables ORDER BY table_name",
			"public|m|MATERIALIZED VIEW\npublic|t|BASE TABLE\npublic|v|VIEW\n"},
		{"SELECT table_name, column_name, ordinal_position, is_nullable, data_type, character_maximum_length, udt_name FROM information_schema.columns WHERE table_name IN ('t', 'm') ORDER BY 1, 3",
			"m|n|1|YES|bigint||int8\nt|a|1|NO|integer||int4\nt|b|2|NO|text||text\nt|c|3|YES|double precision||float8\nt|d|4|YES|character varying|10|varchar\nt|e|5|YES|ARRAY||_int4\nt|f|6|YES|ARRAY||_varchar\n"},
		{"SELECT t.typname, e.typname, e.typarray = t.oid FROM pg_type t JOIN pg_type e ON e.oid = t.typelem WHERE t.typname IN ('_int4', '_text') ORDER BY 1",
			"_int4|int4|t\n_text|text|t\n"},
		// Every query of psql's describe commands succeeds (ON_ERROR_STOP),
		// catalogs of objects streamdb lacks being empty.
		{`\d t`, "a|integer||not null|\nb|text||not null|'x'\nc|double precision|||\nd|character varying(10)|||\ne|integer[]|||\nf|character varying(3)[]|||\n"},
		{`\d+ t`, "a|integer||not null||plain|||\nb|text||not null|'x'|extended|||\nc|double precision||||plain|||\n" +
			"d|character varying(10)||||extended|||\ne|integer[]||||extended|||\nf|character varying(3)[]||||extended|||\n"},
		{`\d m`, "n|bigint|||\n"},
		{`\dt+`, "public|t|table|streamdb|permanent|heap|0 bytes|\n"},
		{`\l`, "streamdb|streamdb|UTF8|C|C||libc|\n"},
		{`\l+`, "streamdb|streamdb|UTF8|C|C||libc||" + strings.TrimSuffix(dbSize, "\n") + "|pg_default|\n"},
		// streamdb_catalog is listed, as RisingWave lists rw_catalog.
		{`\dn`, "public|streamdb\nstreamdb_catalog|streamdb\n"},
		{`\dn+`, "public|streamdb|streamdb=UC/streamdb\n=U/streamdb|\nstreamdb_catalog|streamdb||\n"},
		{`\df`, ""},
		{`\du`, "streamdb|Superuser, Create role, Create DB, Replication, Bypass RLS|{}\n"},
		{`\dp t`, "public|t|table|||\n"},
		{`\dx`, ""},
	} {
		out, err := psql(t, n.Addr(), c.cmd)
		if err != nil || out != c.want {
			t.Errorf("%s: err=%v output\n%q\nwant\n%q", c.cmd, err, out, c.want)
		}
	}
	// The footers, which tuples-only output leaves out.
	out, err := psql(t, n.Addr(), `\pset tuples_only off`, `\d+ m`)
	if want := "View definition:\n SELECT count(*) AS n FROM t;\nAccess method: heap\n"; err != nil || !strings.HasSuffix(out, want) {
		t.Errorf("\\d+ m: err=%v output\n%q\nwant it to end with\n%q", err, out, want)
	}
}

// describeCommands are psql 15's describe commands (\? lists them), with
// patterns where they take one.
var describeCommands = []string{
	`\d`, `\d t`, `\d+ t`, `\d m`, `\d+ m`, `\d v`, `\d+ v`, `\d ti`, `\d+ ti`, `\da`, `\dA`, `\dAc`, `\dAf`, `\dAo`, `\dAp`,
	`\db`, `\db+`, `\dc`, `\dconfig`, `\dconfig *zone*`, `\dC`, `\dd`, `\dD`, `\ddp`, `\dE`, `\des`, `\det`, `\deu`,
	`\dew`, `\df`, `\df+`, `\dF`, `\dFd`, `\dFp`, `\dFt`, `\dg`, `\di`, `\di+`, `\dl`, `\dL`, `\dm`, `\dm+`,
	`\dn`, `\dn+`, `\do`, `\dO`, `\dp`, `\dP`, `\drds`, `\dRp`, `\dRs`, `\ds`, `\dt`, `\dt+`, `\dT`, `\dT+`,
	`\du`, `\du+`, `\dv`, `\dv+`, `\dx`, `\dX`, `\dy`, `\l`, `\l+`, `\lo_list`, `\sv v`, `\z`, `\dS`, `\dtS`,
}

// TestPsqlEveryDescribeCommand runs every describe command of psql 15
// (ON_ERROR_STOP): each answers, listing what streamdb has (catalogs of
// objects it lacks are empty).
func TestPsqlEveryDescribeCommand(t *testing.T) {
	n := testkit.StartNode(t)
	if out, err := psql(t, n.Addr(),
		"CREATE TABLE t (a INT PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x')",
		"CREATE VIEW v AS SELECT b FROM t",
		"CREATE MATERIALIZED VIEW m AS SELECT b, count(*) AS n FROM t GROUP BY b",
		"CREATE INDEX ti ON t (b)"); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	var failed []string
	for _, cmd := range describeCommands {
		if out, err := psql(t, n.Addr(), cmd); err != nil {
			failed = append(failed, cmd+": "+strings.TrimSpace(out))
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d of %d describe commands fail:\n%s", len(failed), len(describeCommands), strings.Join(failed, "\n"))
	}
}
