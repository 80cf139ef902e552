package kafka

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamdb/streamdb/pgerror"
)

// metadataTimeout bounds how long CREATE waits for the brokers.
const metadataTimeout = 5 * time.Second

// CountPartitions asks the brokers how many partitions the topic has.
// Errors are *pgerror.Error: 08001 if no broker answers in time, 22023 if
// the topic does not exist.
func CountPartitions(cfg *Config) (int, error) {
	client, err := kgo.NewClient(kgo.SeedBrokers(cfg.Brokers...), kgo.DialTimeout(metadataTimeout))
	if err != nil {
		return 0, invalid(Brokers, strings.Join(cfg.Brokers, ","), "Give host:port of the brokers, comma-separated.")
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), metadataTimeout)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	topic := kmsg.NewMetadataRequestTopic()
	topic.Topic = kmsg.StringPtr(cfg.Topic)
	req.Topics = append(req.Topics, topic)
	req.AllowAutoTopicCreation = false
	resp, err := req.RequestWith(ctx, client)
	if err != nil {
		return 0, pgerror.New(pgerror.CodeUnableToConnect, "cannot reach the kafka brokers %s: %v", strings.Join(cfg.Brokers, ","), err).
			WithHint("Check option %s and that the brokers are up.", Brokers)
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != cfg.Topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "kafka topic %q does not exist", cfg.Topic).
					WithHint("Create the topic first, or check option %s.", Topic)
			}
			return 0, pgerror.New(pgerror.CodeUnableToConnect, "kafka topic %q: %v", cfg.Topic, err).
				WithHint("Check the topic's state on the brokers, then retry.")
		}
		return len(t.Partitions), nil
	}
	return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "kafka topic %q does not exist", cfg.Topic).
		WithHint("Create the topic first, or check option %s.", Topic)
}
