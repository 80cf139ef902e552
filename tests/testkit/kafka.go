package testkit

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// KafkaBrokersEnv names the environment variable that points the tests at
// a real Kafka cluster (host:port, comma-separated) instead of kfake.
const KafkaBrokersEnv = "STREAMDB_KAFKA_BROKERS"

// Kafka is a Kafka cluster for a test and a producer to it.
type Kafka struct {
	// Brokers are the brokers' addresses, comma-separated, as option
	// properties.bootstrap.server takes them.
	Brokers string
	client  *kgo.Client
}

// topicSeq numbers the topics a test process creates.
var topicSeq atomic.Int64

// StartKafka returns the cluster of $STREAMDB_KAFKA_BROKERS if set, else
// an in-process kfake cluster (franz-go's fake broker speaking the Kafka
// protocol), closed when the test ends.
func StartKafka(t testing.TB) *Kafka {
	t.Helper()
	brokers := os.Getenv(KafkaBrokersEnv)
	if brokers == "" {
		c, err := kfake.NewCluster(kfake.NumBrokers(1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		brokers = strings.Join(c.ListenAddrs(), ",")
	}
	client, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return &Kafka{Brokers: brokers, client: client}
}

// Topic creates a topic of partitions partitions, named uniquely after
// the test, and returns its name.
func (k *Kafka) Topic(t testing.TB, partitions int) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d-%d", strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()), time.Now().UnixNano(), topicSeq.Add(1))
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, int32(partitions), -1
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 10_000
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, k.client)
	if err == nil {
		err = kerr.ErrorForCode(resp.Topics[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
	return name
}

// Produce writes values to topic, value i to partition i % partitions,
// and waits until the brokers have them.
func (k *Kafka) Produce(t testing.TB, topic string, partitions int, values ...[]byte) {
	t.Helper()
	recs := make([]*kgo.Record, len(values))
	for i, v := range values {
		recs[i] = &kgo.Record{Partition: int32(i % partitions), Value: v}
	}
	k.ProduceRecords(t, topic, recs...)
}

// ProduceRecords writes recs (with their keys and partitions) to topic
// and waits until the brokers have them.
func (k *Kafka) ProduceRecords(t testing.TB, topic string, recs ...*kgo.Record) {
	t.Helper()
	for _, r := range recs {
		r.Topic = topic
	}
	if err := k.client.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}
