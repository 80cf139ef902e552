package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// startCluster starts an in-process Kafka cluster with topic "t" of
// partitions partitions and produces records to them, record i (a JSON
// object {"id": i}, or values[i] if given) to partition i % partitions.
func startCluster(t *testing.T, partitions int, values []string) *Config {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(int32(partitions), "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i, v := range values {
		recs = append(recs, &kgo.Record{Topic: "t", Partition: int32(i % partitions), Value: []byte(v)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return &Config{Topic: "t", Brokers: c.ListenAddrs(), Partitions: partitions, Encoding: JSON}
}

// readAll reads the splits until want rows arrived, returning the ids read
// from each split.
func readAll(t *testing.T, splits []*Split, want int) [][]int64 {
	t.Helper()
	got := make([][]int64, len(splits))
	row := make([]types.Datum, 2)
	rows := [][]types.Datum{row}
	for n := 0; n < want; {
		for i, s := range splits {
			for s.Next(rows) == 1 {
				got[i] = append(got[i], row[0].Int())
				n++
			}
		}
	}
	return got
}

// TestSplitsReadPartitions reads a topic of 3 partitions with two
// readers (as two actors would), stops one mid-way, resumes its splits
// from their offsets in a new reader and checks that every record but the
// malformed ones arrives once, in partition order.
func TestSplitsReadPartitions(t *testing.T) {
	const n = 3000
	values := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprintf(`{"id": %d}`, i)
		if i%500 == 7 {
			values[i] = "not json"
		}
	}
	cfg := startCluster(t, 3, values)
	cols := []Column{{Name: "id", Type: types.TInt8}}
	a, b := NewSplits(cfg, cols, []int{0, 2}), NewSplits(cfg, cols, []int{1})
	defer b[0].Close()
	first := readAll(t, a, 10)
	offsets := []int64{a[0].Offset(), a[1].Offset()}
	if err := a[0].Close(); err != nil {
		t.Fatal(err)
	}
	resumed := NewSplits(cfg, cols, []int{0, 2})
	for i, s := range resumed {
		s.SetOffset(offsets[i])
	}
	defer resumed[0].Close()
	good := n - n/500
	rest := readAll(t, append(resumed, b[0]), good-len(first[0])-len(first[1]))
	// Splits 0 and 2 read before and after the restart, split 1 all along.
	parts := [][]int64{append(first[0][:0:0], first[0]...), rest[2], first[1]}
	parts[0] = append(parts[0], rest[0]...)
	parts[2] = append(parts[2], rest[1]...)
	for p, ids := range parts {
		var want []int64
		for i := p; i < n; i += 3 {
			if i%500 != 7 {
				want = append(want, int64(i))
			}
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("partition %d: read %d records %v..., want %d", p, len(ids), ids[:min(5, len(ids))], len(want))
		}
	}
	if got := resumed[0].Offset(); got != n/3 {
		t.Fatalf("split 0 offset %d, want %d", got, n/3)
	}
}

func TestCountPartitions(t *testing.T) {
	cfg := startCluster(t, 4, nil)
	if n, err := CountPartitions(cfg); err != nil || n != 4 {
		t.Fatalf("CountPartitions = %d, %v; want 4", n, err)
	}
	missing := *cfg
	missing.Topic = "nope"
	if _, err := CountPartitions(&missing); pgerror.Code(err) != pgerror.CodeInvalidParameterValue {
		t.Fatalf("unknown topic: %v", err)
	}
	down := *cfg
	down.Brokers = []string{"127.0.0.1:1"}
	if _, err := CountPartitions(&down); pgerror.Code(err) != pgerror.CodeUnableToConnect {
		t.Fatalf("unreachable broker: %v", err)
	}
}

func TestParseOptions(t *testing.T) {
	base := func(kv ...string) map[string]string {
		m := map[string]string{Topic: "t", Brokers: "a:1, b:2", FormatOption: "plain", Encode: "json"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	for _, c := range []struct {
		opts map[string]string
		want string // the config, or the error
	}{
		{base(), "t [a:1 b:2] latest=false ms=0 parts=0 enc=0 delim=, header=false"},
		{base(StartupMode, "Latest", Partitions, "3"), "t [a:1 b:2] latest=true ms=0 parts=3 enc=0 delim=, header=false"},
		{base(StartupMillis, "1700000000000"), "t [a:1 b:2] latest=false ms=1700000000000 parts=0 enc=0 delim=, header=false"},
		{base(Encode, "csv", "encode.delimiter", ";", "encode.without_header", "false"), "t [a:1 b:2] latest=false ms=0 parts=0 enc=1 delim=; header=true"},
		{base(Topic, ""), "a kafka source needs the option topic"},
		{base(Brokers, " , "), "a kafka source needs the option properties.bootstrap.server"},
		{base(StartupMode, "middle"), `invalid value "middle" for option scan.startup.mode`},
		{base(StartupMillis, "soon"), `invalid value "soon" for option scan.startup.timestamp.millis`},
		{base(StartupMillis, "1", StartupMode, "latest"), "options scan.startup.timestamp.millis and scan.startup.mode = 'latest' conflict"},
		{base(Partitions, "0"), `invalid value "0" for option topic.partitions`},
		{base(FormatOption, ""), "a kafka source needs a FORMAT clause"},
		{base(FormatOption, "native"), "FORMAT NATIVE is not supported by the kafka connector"},
		{base(Encode, "avro"), "ENCODE AVRO is not supported by the kafka connector"},
		{base("encode.delimiter", ";"), "unrecognized ENCODE JSON option delimiter"},
		{base(Encode, "csv", "encode.delimiter", ";;"), `invalid value ";;" for option delimiter`},
		{base(Encode, "csv", "encode.without_header", "maybe"), `invalid value "maybe" for option without_header`},
	} {
		cfg, err := ParseOptions(c.opts)
		got := fmt.Sprintf("%s %v latest=%v ms=%d parts=%d enc=%d delim=%c header=%v", cfg.Topic, cfg.Brokers, cfg.Latest,
			cfg.StartMillis, cfg.Partitions, cfg.Encoding, cfg.Delimiter, cfg.Header)
		if err != nil {
			got = pgerror.From(err).Message
			if pgerror.Code(err) == "" {
				t.Errorf("%v: %v is not a pgerror", c.opts, err)
			}
		}
		if got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.opts, got, c.want)
		}
	}
}
