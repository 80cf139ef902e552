package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/bench/nexmarkbench"
	"github.com/streamdb/streamdb/connector/nexmark"
	"github.com/streamdb/streamdb/tests/testkit"
	"github.com/streamdb/streamdb/types"
)

// kafkaBenchSplits is the partitions of the bid topic and the splits of
// the nexmark source beside it.
const kafkaBenchSplits = 2

// nexmarkBidJSON returns the bids among the first events Nexmark events
// as JSON objects, one per bid, in the order of split 0 of 1.
func nexmarkBidJSON(b *testing.B, events int64) [][]byte {
	cfg, err := nexmark.ParseOptions(map[string]string{"nexmark.table.type": "Bid", "nexmark.event.num": strconv.FormatInt(events, 10)})
	if err != nil {
		b.Fatal(err)
	}
	schema := nexmark.Schema(nexmark.BidEvent)
	s := nexmark.NewSplit(cfg, 0)
	row := make([]types.Datum, s.Width())
	var out [][]byte
	obj := map[string]any{}
	for s.Next([][]types.Datum{row}) == 1 {
		for i, c := range schema {
			switch c.Type.Family {
			case types.Int8:
				obj[c.Name] = row[i].Int()
			default:
				obj[c.Name] = row[i].String()
			}
		}
		v, err := json.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// BenchmarkKafkaNexmark measures Nexmark q0 and q5 over the same bids
// read from the built-in nexmark generator and, as JSON, from a Kafka
// topic of kafkaBenchSplits partitions (kfake in the test process, or
// $STREAMDB_KAFKA_BROKERS): events/s and events/s per core of the server
// process, from the view's creation until every split is committed at its
// end. $STREAMDB_KAFKA_BENCH_EVENTS sets the Nexmark event count (default
// 500000). Run it with -benchtime 1x: each iteration starts a server.
func BenchmarkKafkaNexmark(b *testing.B) {
	events := int64(500_000)
	if v := os.Getenv("STREAMDB_KAFKA_BENCH_EVENTS"); v != "" {
		var err error
		if events, err = strconv.ParseInt(v, 10, 64); err != nil {
			b.Fatalf("STREAMDB_KAFKA_BENCH_EVENTS: %v", err)
		}
	}
	bids := nexmarkBidJSON(b, events)
	k := testkit.StartKafka(b)
	topic := k.Topic(b, kafkaBenchSplits)
	for i := 0; i < len(bids); i += 10_000 {
		k.Produce(b, topic, kafkaBenchSplits, bids[i:min(i+10_000, len(bids))]...)
	}
	schema := nexmark.ColumnDefs(nexmark.BidEvent)
	sources := []struct{ name, ddl string }{
		{"nexmark", fmt.Sprintf("CREATE SOURCE bid (%s) WITH (connector = 'nexmark', nexmark.table.type = 'Bid', nexmark.event.num = '%d', nexmark.min.event.gap.in.ns = '0', nexmark.split.num = '%d')", schema, events, kafkaBenchSplits)},
		{"kafka", fmt.Sprintf("CREATE SOURCE bid (%s) WITH (connector = 'kafka', topic = '%s', properties.bootstrap.server = '%s') FORMAT PLAIN ENCODE JSON", schema, topic, k.Brokers)},
	}
	for _, qname := range []string{"q0", "q5"} {
		q, _ := nexmarkbench.Lookup(qname)
		for _, src := range sources {
			b.Run(qname+"/"+src.name, func(b *testing.B) {
				for range b.N {
					elapsed, cpu := runKafkaBench(b, src.ddl, src.name == "kafka", q, int64(len(bids)))
					b.ReportMetric(float64(len(bids))/elapsed.Seconds(), "events/s")
					b.ReportMetric(float64(len(bids))/cpu.Seconds(), "events/s/core")
				}
			})
		}
	}
}

// runKafkaBench starts a server with source ddl, creates q's view and
// returns the wall and server CPU time until every split of the source
// has committed its share of the bids.
func runKafkaBench(b *testing.B, ddl string, kafka bool, q nexmarkbench.Query, bids int64) (elapsed, cpu time.Duration) {
	b.Helper()
	_, addr, p := startPrepared(b, ddl)
	defer p.kill()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	pid := p.cmd.Process.Pid
	cpu0, err := benchkit.CPUTime(pid)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, q.CreateView()); err != nil {
		b.Fatal(err)
	}
	// A nexmark split is done at its end; a kafka split's offset is the
	// count of its partition's records read (offsets start at 0), where a
	// nexmark split's counts its table's rows of all splits.
	for deadline := start.Add(10 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var read, done int64
		err := conn.QueryRow(ctx, `SELECT coalesce(sum("offset"), 0), count(*) FILTER (WHERE done) FROM streamdb_catalog.source_splits WHERE source = 'bid'`).Scan(&read, &done)
		if err != nil {
			b.Fatal(err)
		}
		if done == kafkaBenchSplits || kafka && read == bids {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d bids read after 10 minutes", read, bids)
		}
	}
	elapsed = time.Since(start)
	cpu1, err := benchkit.CPUTime(pid)
	if err != nil {
		b.Fatal(err)
	}
	return elapsed, cpu1 - cpu0
}
