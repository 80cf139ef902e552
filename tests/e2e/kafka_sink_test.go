package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaSinkExactlyOnce sinks a grouped view (FORMAT UPSERT: the last
// record of each key is its row, a tombstone once deleted; and FORMAT
// DEBEZIUM, read back by a FORMAT DEBEZIUM table) and a stream of events
// (FORMAT PLAIN, where a change delivered twice would show) into Kafka
// topics, while a writer keeps changing their tables, the server is
// killed with SIGKILL twice and the sinks rescale. The brokers are kfake,
// franz-go's in-process cluster speaking the Kafka protocol, or those of
// $STREAMDB_KAFKA_BROKERS. Once the
// writer stops, the committed records hold exactly the view's rows and
// each acknowledged event once.
func TestKafkaSinkExactlyOnce(t *testing.T) {
	ctx := context.Background()
	kafka := testkit.StartKafka(t)
	aggOut, evOut, dbzOut := kafka.Topic(t, 3), kafka.Topic(t, 3), kafka.Topic(t, 2)
	brokers := kafka.Brokers
	dir, addr, p := startPrepared(t,
		"CREATE TABLE t (id BIGINT PRIMARY KEY, k INT, v BIGINT)",
		"CREATE TABLE ev (id BIGINT PRIMARY KEY, v BIGINT)",
		"INSERT INTO t VALUES (1, 1, 10), (2, 2, 20)",
		"CREATE MATERIALIZED VIEW mv AS SELECT k, count(*) AS n, sum(v)::bigint AS s FROM t GROUP BY k",
		fmt.Sprintf("CREATE SINK agg_k FROM mv WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', primary_key = 'k') FORMAT UPSERT ENCODE JSON", aggOut, brokers),
		fmt.Sprintf("CREATE SINK dbz_k FROM mv WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s', primary_key = 'k') FORMAT DEBEZIUM ENCODE JSON", dbzOut, brokers),
		fmt.Sprintf("CREATE SINK ev_k AS SELECT id, v FROM ev WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON (force_append_only = 'true')", evOut, brokers),
	)
	events, p := sinkWorkload(t, dir, addr, p, "agg_k", "ev_k")
	t.Cleanup(p.kill)
	c := connect(t, addr, pgx.QueryExecModeCacheStatement)
	want := queryStrings(t, c, "SELECT k, n, s FROM mv ORDER BY k")
	mustExec(t, c, fmt.Sprintf("CREATE TABLE mv_back (k INT PRIMARY KEY, n BIGINT, s BIGINT) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT DEBEZIUM ENCODE JSON", dbzOut, brokers))

	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.ConsumeTopics(aggOut, evOut),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	agg := map[string]string{}
	var got []int64
	var rows []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		pollCtx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pollCtx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) {
			if r.Topic == aggOut {
				if r.Value == nil {
					delete(agg, string(r.Key))
				} else {
					agg[string(r.Key)] = string(r.Value)
				}
				return
			}
			var e struct{ ID int64 }
			if err := json.Unmarshal(r.Value, &e); err != nil {
				t.Fatalf("event record %q: %v", r.Value, err)
			}
			got = append(got, e.ID)
		})
		rows = rows[:0]
		for _, v := range agg {
			var r struct{ K, N, S int64 }
			if err := json.Unmarshal([]byte(v), &r); err != nil {
				t.Fatalf("view record %q: %v", v, err)
			}
			rows = append(rows, fmt.Sprint(r.K, r.N, r.S))
		}
		slices.Sort(rows)
		if slices.Equal(rows, want) && len(got) >= len(events) {
			break
		}
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("topic %s's keys:\n%v\nwant the view's rows:\n%v", aggOut, rows, want)
	}
	slices.Sort(got)
	if !slices.Equal(got, events) {
		t.Fatalf("topic %s: %d events, want the %d acknowledged each once (%s)", evOut, len(got), len(events), firstDiff(got, events))
	}
	var back []string
	waitFor(t, time.Minute, "the Debezium topic read back equal to the view", func() bool {
		back = queryStrings(t, c, "SELECT k, n, s FROM mv_back ORDER BY k")
		return slices.Equal(back, want)
	})
	t.Logf("%d view rows and %d events delivered exactly once across 2 kills and 6 rescales", len(want), len(events))
}
