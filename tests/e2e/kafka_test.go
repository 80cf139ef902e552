package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/tests/testkit"
)

// The Kafka tests run against an in-process kfake cluster, or against
// the brokers named by $STREAMDB_KAFKA_BROKERS (on fresh topics).

// kafkaRecord is record i of the tests' topics: id i, key i%7, value 3i.
func kafkaRecord(i int) []byte {
	return fmt.Appendf(nil, `{"id": %d, "k": %d, "v": %d}`, i, i%7, 3*i)
}

// kafkaRecords returns records from to to-1.
func kafkaRecords(from, to int) [][]byte {
	out := make([][]byte, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, kafkaRecord(i))
	}
	return out
}

// kafkaSource is the CREATE SOURCE of source name over topic.
func kafkaSource(name, topic string, k *testkit.Kafka) string {
	return fmt.Sprintf("CREATE SOURCE %s (id BIGINT, k INT, v BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON", name, topic, k.Brokers)
}

// checkOnce waits until view per_id (id, count per id) over the records 0
// to n-1 holds n ids, then checks that it holds each exactly once.
func checkOnce(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	ctx := context.Background()
	var ids, dups, sum int64
	waitFor(t, 2*time.Minute, fmt.Sprintf("%d records in per_id", n), func() bool {
		if err := conn.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE c <> 1), coalesce(sum(id), 0) FROM per_id").Scan(&ids, &dups, &sum); err != nil {
			t.Fatal(err)
		}
		return ids >= int64(n)
	})
	if want := int64(n) * int64(n-1) / 2; ids != int64(n) || dups != 0 || sum != want {
		t.Fatalf("per_id has %d ids (%d not counted once), summing to %d; want %d once each, summing to %d", ids, dups, sum, n, want)
	}
}

// TestKafkaSourceView produces JSON records (a few malformed, skipped) to
// 3 partitions, read by a source into views of count and sum per key and
// per id, and CSV records (a header line among them) to 2 partitions
// before a table with a kafka connector reads them, and checks both
// exactly. Bad options fail at CREATE with the right SQLSTATE and a hint.
func TestKafkaSourceView(t *testing.T) {
	const n = 30_000
	k := testkit.StartKafka(t)
	topic := k.Topic(t, 3)
	csvTopic := k.Topic(t, 2)
	csv := [][]byte{[]byte("a,b"), []byte("a,b")}
	for i := range 1000 {
		csv = append(csv, fmt.Appendf(nil, `%d,"x,%d"`, i, i))
	}
	k.Produce(t, csvTopic, 2, csv...)
	n0 := testkit.StartNode(t)
	conn := connect(t, n0.Addr(), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	for _, stmt := range []string{
		kafkaSource("s", topic, k),
		"CREATE MATERIALIZED VIEW per_key AS SELECT k, count(*) AS n, sum(v) AS s FROM s GROUP BY k",
		"CREATE MATERIALIZED VIEW per_id AS SELECT id, count(*) AS c FROM s GROUP BY id",
		fmt.Sprintf("CREATE TABLE t (a INT, b TEXT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE CSV (without_header = 'false')", csvTopic, k.Brokers),
	} {
		mustExec(t, conn, stmt)
	}
	// A source's views see its rows from their creation on: produce now.
	values := kafkaRecords(0, n/2)
	values = append(values, []byte("not json"), []byte(`{"id": "x"}`), nil)
	k.Produce(t, topic, 3, values...)
	k.Produce(t, topic, 3, kafkaRecords(n/2, n)...)
	checkOnce(t, conn, n)
	rows, err := conn.Query(ctx, "SELECT k, n, s FROM per_key ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (g [3]int64, err error) {
		return g, r.Scan(&g[0], &g[1], &g[2])
	})
	if err != nil {
		t.Fatal(err)
	}
	want := make([][3]int64, 7)
	for i := range n {
		w := &want[i%7]
		w[0], w[1], w[2] = int64(i%7), w[1]+1, w[2]+3*int64(i)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("per_key = %v, want %v", got, want)
	}
	var rowsT, sumA int64
	var last string
	waitFor(t, time.Minute, "1000 rows in t", func() bool {
		if err := conn.QueryRow(ctx, "SELECT count(*), coalesce(sum(a), 0), coalesce(max(b), '') FROM t").Scan(&rowsT, &sumA, &last); err != nil {
			t.Fatal(err)
		}
		return rowsT >= 1000
	})
	if rowsT != 1000 || sumA != 999*1000/2 || last != "x,999" {
		t.Fatalf("t has %d rows, sum(a) %d, max(b) %q; want 1000, %d, x,999", rowsT, sumA, last, 999*1000/2)
	}
	for _, c := range []struct{ stmt, code string }{
		{kafkaSource("bad", "no-such-topic", k), "22023"},
		{"CREATE SOURCE bad (a INT) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = '127.0.0.1:1') FORMAT PLAIN ENCODE JSON", "08001"},
		{fmt.Sprintf("CREATE SOURCE bad (a INT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT MAXWELL ENCODE JSON", topic, k.Brokers), "0A000"},
	} {
		_, err := conn.Exec(ctx, c.stmt)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != c.code || pe.Hint == "" {
			t.Errorf("%s: error %v, want SQLSTATE %s with a hint", c.stmt, err, c.code)
		}
	}
}

// produceSlowly produces records 0 to n-1 to topic in batches of about
// batch every 20 ms or so; wait waits until it is done. A test that ends
// first (failing) stops it before its Kafka cluster closes.
func produceSlowly(t *testing.T, k *testkit.Kafka, topic string, n, batch int) (wait func()) {
	var wg sync.WaitGroup
	var stop atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < n && !stop.Load(); i += batch {
			k.Produce(t, topic, 3, kafkaRecords(i, min(i+batch, n))...)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	t.Cleanup(func() {
		stop.Store(true)
		wg.Wait()
	})
	return wg.Wait
}

// TestKill9KafkaSourceExactlyOnce kills the server with SIGKILL at random
// moments while a producer keeps writing to the topic its source reads,
// restarts it, and checks that the view over the source holds every
// record exactly once: offsets are checkpointed with the view's state.
func TestKill9KafkaSourceExactlyOnce(t *testing.T) {
	const n = 60_000
	k := testkit.StartKafka(t)
	topic := k.Topic(t, 3)
	dir, addr, p := startPrepared(t,
		"ALTER SYSTEM SET barrier_interval_ms = 100",
		kafkaSource("s", topic, k),
		"CREATE MATERIALIZED VIEW per_id AS SELECT id, count(*) AS c FROM s GROUP BY id",
	)
	done := produceSlowly(t, k, topic, n, 300)
	rng := rand.New(rand.NewPCG(5, 6))
	seen := int64(0)
	for round := range 3 {
		// Kill while the source reads: after the view has moved on.
		waitFor(t, time.Minute, "progress of per_id", func() bool {
			return count(t, addr, "SELECT count(*) FROM per_id") > seen
		})
		time.Sleep(time.Duration(50+rng.IntN(300)) * time.Millisecond)
		seen = count(t, addr, "SELECT count(*) FROM per_id")
		p.kill()
		t.Logf("kill %d: per_id at %d ids", round+1, seen)
		p = startProcess(t, dir, addr)
	}
	defer p.kill()
	done()
	checkOnce(t, connect(t, addr, pgx.QueryExecModeCacheStatement), n)
}

// TestKafkaSourceRescale rescales a kafka source (and so its partitions'
// splits) up and down while a producer writes to the topic, and checks
// that the view over it holds every record exactly once.
func TestKafkaSourceRescale(t *testing.T) {
	const n = 40_000
	k := testkit.StartKafka(t)
	topic := k.Topic(t, 3)
	n0 := testkit.StartNode(t)
	conn := connect(t, n0.Addr(), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, kafkaSource("s", topic, k))
	mustExec(t, conn, "CREATE MATERIALIZED VIEW per_id AS SELECT id, count(*) AS c FROM s GROUP BY id")
	done := produceSlowly(t, k, topic, n, 200)
	for _, stmt := range []string{
		"ALTER SOURCE s SET PARALLELISM = 3",
		"ALTER SOURCE s SET PARALLELISM = 2 WITH (step = 50)",
		"ALTER SOURCE s SET PARALLELISM = 1 WITH (strategy = 'restart')",
		"ALTER SOURCE s SET PARALLELISM = 3",
	} {
		time.Sleep(200 * time.Millisecond)
		mustExec(t, conn, stmt)
	}
	done()
	checkOnce(t, conn, n)
}

// TestClusterSourceRescale spreads a kafka source's splits over a
// three-node cluster and back (ALTER SOURCE ... SET PARALLELISM, fluid
// and all at once, and a rebalance), then drains the node of the source's
// first actor, while a producer writes to the topic: splits move between
// nodes with their vnodes and offsets, and the view over the source,
// read from every node, holds every record exactly once.
func TestClusterSourceRescale(t *testing.T) {
	const n = 40_000
	k := testkit.StartKafka(t)
	topic := k.Topic(t, 3)
	nodes := startCluster(t, 3)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conns[0], kafkaSource("s", topic, k))
	mustExec(t, conns[1], "CREATE MATERIALIZED VIEW per_id AS SELECT id, count(*) AS c FROM s GROUP BY id")
	done := produceSlowly(t, k, topic, n, 100)
	spreadAndDrain(t, nodes, conns, []string{"s"}, 300*time.Millisecond,
		"ALTER SOURCE s SET PARALLELISM = 3",
		"ALTER SOURCE s SET PARALLELISM = 5 WITH (step = 16)",
		"ALTER SOURCE s SET PARALLELISM = 2 WITH (strategy = 'all_at_once')",
		"ALTER SOURCE s SET PARALLELISM = 6",
		"ALTER SYSTEM REBALANCE")
	done()
	for _, c := range conns {
		checkOnce(t, c, n)
	}
}
