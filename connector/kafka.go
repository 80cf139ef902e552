package connector

import (
	"strconv"

	"github.com/streamdb/streamdb/connector/kafka"
	"github.com/streamdb/streamdb/pgerror"
)

// openKafka opens a kafka source: one split per partition of its topic,
// counted from the brokers at creation and recorded in the options.
func openKafka(cols []Column, opts map[string]string) (*Source, error) {
	if err := checkKeys("kafka", opts, kafka.Topic, "properties.", "scan.", kafka.FormatOption, kafka.Encode); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "a kafka source needs a column list").
			WithHint("Declare the columns that records hold, e.g. (id BIGINT, name TEXT).")
	}
	cfg, err := kafka.ParseOptions(opts)
	if err != nil {
		return nil, err
	}
	if cfg.Partitions == 0 {
		if cfg.Partitions, err = kafka.CountPartitions(&cfg); err != nil {
			return nil, err
		}
		opts[kafka.Partitions] = strconv.Itoa(cfg.Partitions)
	}
	kcols := make([]kafka.Column, len(cols))
	for i, c := range cols {
		kcols[i] = kafka.Column{Name: c.Name, Type: c.Type, Key: c.Key}
	}
	return &Source{Options: opts, Splits: cfg.Partitions, Width: len(cols), Keyed: cfg.Format.Keyed(),
		newSplits: func(ids []int) []Split {
			splits := kafka.NewSplits(&cfg, kcols, ids)
			out := make([]Split, len(splits))
			for i, s := range splits {
				out[i] = s
			}
			return out
		}}, nil
}
