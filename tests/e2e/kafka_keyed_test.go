package e2e

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/tests/testkit"
)

// keyedModel is what a table fed by FORMAT UPSERT or DEBEZIUM should hold:
// v by id.
type keyedModel map[int64]int64

// upsertRecords returns n random changes of ids below keys for a FORMAT
// UPSERT topic of partitions partitions (a key's records in one
// partition), applying them to m: upserts with the whole row in the
// value, upserts whose value leaves the key to the record's key, and
// tombstones (of present and absent keys).
func upsertRecords(rng *rand.Rand, m keyedModel, n, keys, partitions int) []*kgo.Record {
	recs := make([]*kgo.Record, n)
	for i := range recs {
		id := int64(rng.IntN(keys))
		r := &kgo.Record{Key: fmt.Appendf(nil, "%d", id), Partition: int32(id % int64(partitions))}
		switch v := rng.Int64N(1000); rng.IntN(5) {
		case 0:
			delete(m, id)
		case 1:
			r.Value, m[id] = fmt.Appendf(nil, `{"v": %d}`, v), v
		default:
			r.Key = fmt.Appendf(nil, `{"id": %d}`, id)
			r.Value, m[id] = fmt.Appendf(nil, `{"id": %d, "v": %d}`, id, v), v
		}
		recs[i] = r
	}
	return recs
}

// debeziumRecords returns n random Debezium events (with the schema
// envelope or without, deletes followed by tombstones) of ids below keys
// for a topic of partitions partitions, applying them to m.
func debeziumRecords(rng *rand.Rand, m keyedModel, n, keys, partitions int) []*kgo.Record {
	var recs []*kgo.Record
	for range n {
		id := int64(rng.IntN(keys))
		key := fmt.Appendf(nil, `{"id": %d}`, id)
		part := int32(id % int64(partitions))
		old, had := m[id]
		var event string
		if had && rng.IntN(4) == 0 {
			event = fmt.Sprintf(`{"before": {"id": %d, "v": %d}, "after": null, "op": "d", "ts_ms": 1}`, id, old)
			delete(m, id)
		} else {
			v := rng.Int64N(1000)
			op := map[bool]string{false: "c", true: "u"}[had]
			event = fmt.Sprintf(`{"before": null, "after": {"id": %d, "v": %d}, "op": "%s", "ts_ms": 1}`, id, v, op)
			m[id] = v
		}
		if rng.IntN(2) == 0 {
			event = `{"schema": {"type": "struct", "optional": false}, "payload": ` + event + `}`
		}
		recs = append(recs, &kgo.Record{Key: key, Value: []byte(event), Partition: part})
		if _, has := m[id]; !has {
			recs = append(recs, &kgo.Record{Key: key, Partition: part})
		}
	}
	return recs
}

// checkKeyedTable waits until table (id, v) equals m and its view
// table_sum (count(*), sum(v)) agrees.
func checkKeyedTable(t *testing.T, conn *pgx.Conn, table string, m keyedModel) {
	t.Helper()
	ctx := context.Background()
	want := ""
	var sum int64
	for _, id := range slices.Sorted(maps.Keys(m)) {
		want += fmt.Sprintf("%d=%d ", id, m[id])
		sum += m[id]
	}
	wantAgg := fmt.Sprintf("%d %d", len(m), sum)
	got, gotAgg := "", ""
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rows, err := conn.Query(ctx, "SELECT id, v FROM "+table+" ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		got = ""
		for rows.Next() {
			var id, v int64
			if err := rows.Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			got += fmt.Sprintf("%d=%d ", id, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		var n, s int64
		if err := conn.QueryRow(ctx, "SELECT n, coalesce(s, 0) FROM "+table+"_sum").Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		gotAgg = fmt.Sprintf("%d %d", n, s)
		if got == want && gotAgg == wantAgg {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds\n%s\nwant\n%s\n%s_sum = %s, want %s", table, got, want, table, gotAgg, wantAgg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestKafkaKeyedFormats feeds one table from a FORMAT UPSERT topic and one
// from a FORMAT DEBEZIUM topic with random upserts and deletes, kills the
// server with SIGKILL and rescales the tables between rounds, and checks
// that each table (and an aggregate view over it) equals the model.
func TestKafkaKeyedFormats(t *testing.T) {
	k := testkit.StartKafka(t)
	upTopic, dbzTopic := k.Topic(t, 3), k.Topic(t, 2)
	dir, addr, p := startPrepared(t,
		"ALTER SYSTEM SET barrier_interval_ms = 100",
		fmt.Sprintf("CREATE TABLE up (id BIGINT PRIMARY KEY, v BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT UPSERT ENCODE JSON", upTopic, k.Brokers),
		fmt.Sprintf("CREATE TABLE dbz (id BIGINT PRIMARY KEY, v BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT DEBEZIUM ENCODE JSON", dbzTopic, k.Brokers),
		"CREATE MATERIALIZED VIEW up_sum AS SELECT count(*) AS n, sum(v) AS s FROM up",
		"CREATE MATERIALIZED VIEW dbz_sum AS SELECT count(*) AS n, sum(v) AS s FROM dbz",
	)
	rng := rand.New(rand.NewPCG(16, 17))
	up, dbz := keyedModel{}, keyedModel{}
	for round := range 3 {
		k.ProduceRecords(t, upTopic, upsertRecords(rng, up, 3000, 500, 3)...)
		k.ProduceRecords(t, dbzTopic, debeziumRecords(rng, dbz, 3000, 500, 2)...)
		time.Sleep(time.Duration(50+rng.IntN(200)) * time.Millisecond)
		switch round {
		case 0:
			p.kill()
			p = startProcess(t, dir, addr)
		case 1:
			conn := connect(t, addr, pgx.QueryExecModeCacheStatement)
			mustExec(t, conn, "ALTER TABLE up SET PARALLELISM = 3")
			mustExec(t, conn, "ALTER TABLE dbz SET PARALLELISM = 1")
		}
	}
	defer p.kill()
	conn := connect(t, addr, pgx.QueryExecModeCacheStatement)
	checkKeyedTable(t, conn, "up", up)
	checkKeyedTable(t, conn, "dbz", dbz)
	// A keyed format needs a table with a primary key.
	for _, c := range []struct{ stmt, code string }{
		{fmt.Sprintf("CREATE SOURCE bad (id BIGINT, v BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT UPSERT ENCODE JSON", upTopic, k.Brokers), "0A000"},
		{fmt.Sprintf("CREATE TABLE bad (id BIGINT, v BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT DEBEZIUM ENCODE JSON", dbzTopic, k.Brokers), "42P16"},
		{fmt.Sprintf("CREATE TABLE bad (id BIGINT PRIMARY KEY, v BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON", dbzTopic, k.Brokers), "0A000"},
	} {
		if _, err := conn.Exec(context.Background(), c.stmt); sqlState(err) != c.code {
			t.Errorf("%s: error %v, want SQLSTATE %s", c.stmt, err, c.code)
		}
	}
}
