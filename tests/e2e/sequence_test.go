package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// ids collects values and fails on one seen twice.
type ids struct {
	mu   sync.Mutex
	seen map[int64]bool
}

func (s *ids) add(t *testing.T, what string, v int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[int64]bool{}
	}
	if s.seen[v] {
		t.Errorf("%s: %d handed out twice", what, v)
	}
	s.seen[v] = true
}

// insertIDs runs INSERT INTO table (name) VALUES ... RETURNING id, rows
// values at a time, n times, on c, adding the ids to seen.
func insertIDs(t *testing.T, c *pgx.Conn, table string, n, rows int, seen *ids) {
	sql := "INSERT INTO " + table + " (name) VALUES ('x')"
	for range rows - 1 {
		sql += ", ('x')"
	}
	sql += " RETURNING id"
	for range n {
		res, err := c.Query(context.Background(), sql)
		if err != nil {
			t.Error(err)
			return
		}
		got, err := pgx.CollectRows(res, pgx.RowTo[int64])
		if err != nil || len(got) != rows {
			t.Errorf("%s: %v, %v", sql, got, err)
			return
		}
		for _, v := range got {
			seen.add(t, table+".id", v)
		}
	}
}

// nextvals takes n values of sequence s on c.
func nextvals(t *testing.T, c *pgx.Conn, s string, n int, seen *ids) {
	for range n {
		var v int64
		if err := c.QueryRow(context.Background(), "SELECT nextval('"+s+"')").Scan(&v); err != nil {
			t.Error(err)
			return
		}
		seen.add(t, s, v)
	}
}

// TestSerialReturningConcurrent inserts into a serial table from several
// connections at once, with multi-row VALUES and COPY: every row gets its
// own id, and the table holds them all.
func TestSerialReturningConcurrent(t *testing.T) {
	ctx := context.Background()
	n := testkit.StartNode(t)
	setup := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, "CREATE TABLE ser (id serial PRIMARY KEY, name text)")
	var seen ids
	var wg sync.WaitGroup
	for range 6 {
		c := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
		wg.Go(func() { insertIDs(t, c, "ser", 15, 3, &seen) })
	}
	wg.Wait()
	copied, err := setup.CopyFrom(ctx, pgx.Identifier{"ser"}, []string{"name"}, pgx.CopyFromRows([][]any{{"c1"}, {"c2"}, {"c3"}}))
	if err != nil || copied != 3 {
		t.Fatalf("copy: %d, %v", copied, err)
	}
	var distinct, total int
	if err := setup.QueryRow(ctx, "SELECT count(DISTINCT id), count(*) FROM ser").Scan(&distinct, &total); err != nil || distinct != total || total != 6*15*3+3 {
		t.Fatalf("distinct ids, rows = %d, %d, %v; want %d each", distinct, total, err, 6*15*3+3)
	}
}

// TestKill9SequenceNoRepeats takes values of a sequence and of a serial
// column, kills the server with SIGKILL, restarts it and takes more: none
// of the values handed out before the kill comes again.
func TestKill9SequenceNoRepeats(t *testing.T) {
	dir, addr, p := startPrepared(t, "CREATE SEQUENCE ks CACHE 5", "CREATE TABLE kt (id bigserial PRIMARY KEY, name text)")
	var seq, ser ids
	for round := range 3 {
		c := connect(t, addr, pgx.QueryExecModeCacheStatement)
		nextvals(t, c, "ks", 20, &seq)
		insertIDs(t, c, "kt", 5, 4, &ser)
		if round == 2 {
			break
		}
		p.kill()
		p = startProcess(t, dir, addr)
	}
	t.Cleanup(p.kill)
	if len(seq.seen) != 60 || len(ser.seen) != 60 {
		t.Fatalf("%d sequence values, %d ids; want 60 each", len(seq.seen), len(ser.seen))
	}
}

// TestClusterSequences takes values of one sequence and inserts into one
// serial table from both nodes of a cluster at once: each node takes its
// own blocks of values through the catalog, and none collides.
func TestClusterSequences(t *testing.T) {
	conns := connectCluster(t, startCluster(t, 2), pgx.QueryExecModeCacheStatement)
	mustExec(t, conns[0], "CREATE SEQUENCE cs")
	mustExec(t, conns[0], "CREATE TABLE cst (id serial PRIMARY KEY, name text)")
	var seq, ser ids
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			nextvals(t, c, "cs", 60, &seq)
			insertIDs(t, c, "cst", 10, 2, &ser)
		})
	}
	wg.Wait()
	if len(seq.seen) != 120 || len(ser.seen) != 40 {
		t.Fatalf("%d sequence values, %d ids; want 120 and 40", len(seq.seen), len(ser.seen))
	}
	// setval on one node voids the other node's block.
	mustExec(t, conns[0], "SELECT setval('cs', 1000)")
	waitFor(t, 30*time.Second, "the second node to apply setval", func() bool {
		var above bool
		err := conns[1].QueryRow(context.Background(), "SELECT nextval('cs') > 1000").Scan(&above)
		return err == nil && above
	})
}

// TestPsqlDescribeSequences describes sequences and a table with serial
// and identity columns as psql 15 does (output checked against
// PostgreSQL 15).
func TestPsqlDescribeSequences(t *testing.T) {
	n := testkit.StartNode(t)
	if out, err := psql(t, n.Addr(),
		"CREATE TABLE dt (id serial PRIMARY KEY, g bigint GENERATED ALWAYS AS IDENTITY, v text)",
		"CREATE SEQUENCE dseq INCREMENT 2 OWNED BY dt.v"); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	for _, c := range []struct{ cmd, want string }{
		{`\ds`, "public|dseq|sequence|streamdb\npublic|dt_g_seq|sequence|streamdb\npublic|dt_id_seq|sequence|streamdb\n"},
		{`\d dt`, "id|integer||not null|nextval('dt_id_seq'::regclass)\ng|bigint||not null|generated always as identity\nv|text|||\n"},
		{`\d dseq`, "bigint|1|1|9223372036854775807|2|no|1\n"},
	} {
		out, err := psql(t, n.Addr(), c.cmd)
		if err != nil || out != c.want {
			t.Errorf("%s: err=%v output\n%q\nwant\n%q", c.cmd, err, out, c.want)
		}
	}
	out, err := psql(t, n.Addr(), `\pset tuples_only off`, `\d dt_id_seq`)
	if want := "Owned by: public.dt.id\n"; err != nil || !strings.HasSuffix(out, want) {
		t.Errorf("\\d dt_id_seq: err=%v output\n%q\nwant it to end with\n%q", err, out, want)
	}
}
