// Package kafkasink delivers a sink's changes into a Kafka topic with
// franz-go, exactly once: each delivery is one Kafka transaction holding
// the changes and, in the compacted topic streamdb_sink_progress, the
// last epoch delivered per vnode, so a delivery replayed after a recovery
// skips what the topic already holds (consumers reading committed
// records see each change once). FORMAT PLAIN ENCODE JSON writes each
// added row as a JSON object; FORMAT UPSERT ENCODE JSON writes the key's
// columns as the record key and the row (or a tombstone for a delete) as
// its value, each key's last change of a delivery; FORMAT DEBEZIUM ENCODE
// JSON writes each change as a Debezium change event keyed like UPSERT
// (a delete and an insert of one key in one epoch make an update, op u;
// a delete, op d, is followed by a tombstone), which FORMAT DEBEZIUM
// sources, streamdb's included, read back.
package kafkasink

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProgressTopic is the default topic where sinks record, per vnode, the
// last epoch delivered.
const ProgressTopic = "streamdb_sink_progress"

// Config is a validated Kafka sink.
type Config struct {
	brokers  []string
	topic    string
	progress string
	cols     []changes.Column
	// key indexes cols: the record key of an upsert or Debezium sink,
	// nil for plain.
	key      []int
	debezium bool
}

// knownOptions are the sink's options; format and encode come from its
// FORMAT ... ENCODE ... clause.
var knownOptions = []string{"connector", "topic", "properties.bootstrap.server", "primary_key", "format", "encode",
	"encode.force_append_only", "force_append_only", "progress.topic"}

// Parse validates a sink's options for rows cols; appendOnly tells
// whether the sink's stream only inserts.
func Parse(opts map[string]string, cols []changes.Column, appendOnly bool) (*Config, error) {
	if err := changes.CheckOptions("kafka", opts, knownOptions); err != nil {
		return nil, err
	}
	c := &Config{cols: cols, topic: strings.TrimSpace(opts["topic"]), progress: opts["progress.topic"]}
	if c.progress == "" {
		c.progress = ProgressTopic
	}
	for _, b := range strings.Split(opts["properties.bootstrap.server"], ",") {
		if b = strings.TrimSpace(b); b != "" {
			c.brokers = append(c.brokers, b)
		}
	}
	switch {
	case c.topic == "":
		return nil, pgerror.New(pgerror.CodeSyntaxError, "the kafka sink needs the option topic")
	case len(c.brokers) == 0:
		return nil, pgerror.New(pgerror.CodeSyntaxError, "the kafka sink needs the option properties.bootstrap.server").
			WithHint("Add properties.bootstrap.server = 'host:9092' (several: comma-separated).")
	}
	if e := strings.ToLower(opts["encode"]); e != "" && e != "json" {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "the kafka sink cannot ENCODE %s yet", strings.ToUpper(e)).
			WithHint("Use ENCODE JSON.")
	}
	force := strings.EqualFold(opts["force_append_only"], "true") || strings.EqualFold(opts["encode.force_append_only"], "true")
	switch f := strings.ToLower(opts["format"]); f {
	case "", "plain":
		if !appendOnly && !force {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "the sink's query updates and deletes rows, which FORMAT PLAIN cannot deliver").
				WithHint("Use FORMAT UPSERT with primary_key = '...', or ENCODE JSON (force_append_only = 'true') to drop the deletes.")
		}
	case "upsert", "debezium":
		if opts["primary_key"] == "" {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "FORMAT %s needs the option primary_key", strings.ToUpper(f)).
				WithHint("Add primary_key = 'col1,col2': the columns of the record key.")
		}
		var err error
		if c.key, err = changes.KeyColumns(cols, opts["primary_key"]); err != nil {
			return nil, err
		}
		c.debezium = f == "debezium"
	default:
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "the kafka sink cannot write FORMAT %s yet", strings.ToUpper(f)).
			WithHint("Use FORMAT PLAIN, UPSERT or DEBEZIUM.")
	}
	return c, nil
}

// Check connects to the brokers, checks that the topic exists and
// creates the progress topic (compacted) if it does not.
func (c *Config) Check(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...))
	if err != nil {
		return pgerror.New(pgerror.CodeInvalidParameterValue, "kafka sink: %v", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	topics, err := adm.ListTopics(ctx, c.topic)
	if err != nil {
		return pgerror.New(pgerror.CodeConnectionFailure, "kafka sink: cannot reach the brokers %s: %v", strings.Join(c.brokers, ","), err).
			WithHint("Check properties.bootstrap.server and that the brokers accept connections from streamdb's nodes.")
	}
	if !topics.Has(c.topic) {
		return pgerror.New(pgerror.CodeUndefinedObject, "kafka sink: the topic %q does not exist", c.topic).
			WithHint("Create it on the brokers first.")
	}
	compact := "compact"
	if _, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": &compact}, c.progress); err != nil && !strings.Contains(err.Error(), "TOPIC_ALREADY_EXISTS") {
		return fmt.Errorf("kafka sink: creating the progress topic %s: %w", c.progress, err)
	}
	return nil
}

// NewWriter returns a writer for the sink known as ident; it connects at
// its first write.
func (c *Config) NewWriter(ident string) *Writer { return &Writer{c: c, ident: ident} }

// Writer delivers changes to the topic (connector.SinkWriter).
type Writer struct {
	c     *Config
	ident string
	cl    *kgo.Client
	// done is the last epoch delivered per vnode, read from the progress
	// topic when the writer connects.
	done map[uint16]uint64
}

// Write implements connector.SinkWriter.
func (w *Writer) Write(ctx context.Context, vnodes []uint16, upto uint64, cs []changes.Change) error {
	if w.cl == nil {
		if err := w.connect(ctx, vnodes); err != nil {
			return err
		}
	}
	err := w.write(ctx, vnodes, upto, cs)
	if err != nil {
		// A failed transaction is aborted; the next write starts afresh
		// (and reads the progress again).
		w.Close()
	}
	return err
}

// txnTimeout is how long the brokers keep a transaction of a writer open
// before they abort it: a writer that died mid-delivery holds back the
// progress readers of other writers (readProgress) at most this long.
const txnTimeout = 30 * time.Second

// connect opens the transactional producer of the writer's vnodes (one
// transactional id per first vnode), fences the writer that had its id
// before (after a crash: its open transaction is aborted) and reads what
// was delivered.
func (w *Writer) connect(ctx context.Context, vnodes []uint16) error {
	id := fmt.Sprintf("streamdb-%s-%d", w.ident, vnodes[0])
	cl, err := kgo.NewClient(kgo.SeedBrokers(w.c.brokers...), kgo.TransactionalID(id), kgo.DefaultProduceTopic(w.c.topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.TransactionTimeout(txnTimeout))
	if err != nil {
		return err
	}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		cl.Close()
		return fmt.Errorf("kafka sink: initializing transactional producer %s: %w", id, err)
	}
	done, err := readProgress(ctx, w.c, w.ident)
	if err != nil {
		cl.Close()
		return err
	}
	w.cl, w.done = cl, done
	return nil
}

// readProgress returns the last epoch delivered of each vnode of sink
// ident. Deliveries of other sinks and of these vnodes' previous writers
// share the progress topic, so it first waits until every transaction
// written to it before the call is decided (the topic's last stable
// offset reaches the end offset seen first): a previous writer's delivery
// still open, or committed with its marker not yet written, would else be
// missed and its changes delivered twice. It then reads the committed
// records past that end; control records are kept, since markers take
// offsets too and may end the topic.
func readProgress(ctx context.Context, c *Config, ident string) (map[uint16]uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*txnTimeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.ConsumeTopics(c.progress),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords())
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	left, err := waitStable(ctx, kadm.NewClient(cl), c.progress)
	if err != nil {
		return nil, fmt.Errorf("kafka sink: reading %s: %w", c.progress, err)
	}
	done := map[uint16]uint64{}
	prefix := ident + "/"
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			return nil, fmt.Errorf("kafka sink: reading %s: %w", c.progress, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := left[r.Partition]; ok && r.Offset+1 >= end {
				delete(left, r.Partition)
			}
			k, ok := strings.CutPrefix(string(r.Key), prefix)
			if !ok || r.Attrs.IsControl() {
				return
			}
			v, err1 := strconv.Atoi(k)
			e, err2 := strconv.ParseUint(string(r.Value), 10, 64)
			if err1 == nil && err2 == nil {
				done[uint16(v)] = e
			}
		})
	}
	return done, nil
}

// waitStable returns the end offsets of topic's non-empty partitions once
// no transaction that wrote below them is still undecided.
func waitStable(ctx context.Context, adm *kadm.Client, topic string) (map[int32]int64, error) {
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, err
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		stable, err := adm.ListCommittedOffsets(ctx, topic)
		if err == nil {
			err = stable.Error()
		}
		if err != nil {
			return nil, err
		}
		behind := false
		stable.Each(func(o kadm.ListedOffset) {
			behind = behind || o.Offset < left[o.Partition]
		})
		if !behind {
			return left, nil
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("a transaction is still open after %v: %w", 2*txnTimeout, ctx.Err())
		}
	}
}

// write delivers the changes not yet in the topic in one transaction.
func (w *Writer) write(ctx context.Context, vnodes []uint16, upto uint64, cs []changes.Change) error {
	var recs []*kgo.Record
	switch {
	case w.c.debezium:
		recs = w.events(cs)
	case w.c.key != nil:
		recs = w.upserts(cs)
	default:
		for _, c := range cs {
			if c.Insert && c.Epoch > w.done[c.VNode] {
				recs = append(recs, &kgo.Record{Value: w.object(c.Row, nil)})
			}
		}
	}
	for _, v := range vnodes {
		recs = append(recs, &kgo.Record{Topic: w.c.progress, Key: []byte(w.ident + "/" + strconv.Itoa(int(v))), Value: strconv.AppendUint(nil, upto, 10)})
	}
	if err := w.cl.BeginTransaction(); err != nil {
		return err
	}
	err := w.cl.ProduceSync(ctx, recs...).FirstErr()
	// The transaction ends even when ctx has (the delivery stopping at a
	// rescale): one left open holds back the progress readers of the
	// vnodes' next writers until the brokers abort it.
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), txnTimeout)
	defer cancel()
	commit := kgo.TryCommit
	if err != nil {
		commit = kgo.TryAbort
		_ = w.cl.AbortBufferedRecords(endCtx)
	}
	if end := w.cl.EndTransaction(endCtx, commit); err == nil {
		err = end
	}
	if err != nil {
		return fmt.Errorf("kafka sink: writing %s: %w", w.c.topic, err)
	}
	for _, v := range vnodes {
		w.done[v] = upto
	}
	return nil
}

// upserts returns the records of each key's last change not yet in the
// topic: the row, or a tombstone.
func (w *Writer) upserts(cs []changes.Change) []*kgo.Record {
	last := map[string]int{}
	var order []string
	for i, c := range cs {
		if c.Epoch <= w.done[c.VNode] {
			continue
		}
		k := string(w.object(c.Row, w.c.key))
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	recs := make([]*kgo.Record, 0, len(order))
	for _, k := range order {
		r := &kgo.Record{Key: []byte(k)}
		if c := cs[last[k]]; c.Insert {
			r.Value = w.object(c.Row, nil)
		}
		recs = append(recs, r)
	}
	return recs
}

// events returns the Debezium change events of the changes not yet in
// the topic, in order per key: a delete followed by an insert of its key
// is an update (op u, with both images), other inserts are creates (op
// c), other deletes are deletes (op d) followed by a tombstone.
func (w *Writer) events(cs []changes.Change) []*kgo.Record {
	var recs []*kgo.Record
	// deleted holds the index of each key's delete not yet paired.
	deleted := map[string]int{}
	event := func(key string, before, after []types.Datum, op string) {
		v := []byte(`{"before":`)
		v = w.image(v, before)
		v = append(v, `,"after":`...)
		v = w.image(v, after)
		v = fmt.Appendf(v, `,"op":%q,"ts_ms":%d}`, op, time.Now().UnixMilli())
		recs = append(recs, &kgo.Record{Key: []byte(key), Value: v})
		if op == "d" {
			recs = append(recs, &kgo.Record{Key: []byte(key)})
		}
	}
	var order []string
	for i, c := range cs {
		if c.Epoch <= w.done[c.VNode] {
			continue
		}
		k := string(w.object(c.Row, w.c.key))
		j, paired := deleted[k]
		switch {
		case !c.Insert && paired:
			event(k, cs[j].Row, nil, "d")
			deleted[k] = i
		case !c.Insert:
			deleted[k] = i
			order = append(order, k)
		case paired:
			event(k, cs[j].Row, c.Row, "u")
			delete(deleted, k)
		default:
			event(k, nil, c.Row, "c")
		}
	}
	for _, k := range order {
		if j, ok := deleted[k]; ok {
			event(k, cs[j].Row, nil, "d")
			delete(deleted, k)
		}
	}
	return recs
}

// image appends row as a JSON object to b, null for nil.
func (w *Writer) image(b []byte, row []types.Datum) []byte {
	if row == nil {
		return append(b, "null"...)
	}
	return append(b, w.object(row, nil)...)
}

// object encodes the columns cols (nil: all) of row as a JSON object.
func (w *Writer) object(row []types.Datum, cols []int) []byte {
	var keys []string
	var vals []types.JSON
	for i, col := range w.c.cols {
		if cols != nil && !slices.Contains(cols, i) {
			continue
		}
		j, err := types.ToJSON(row[i], col.Type)
		if err != nil {
			j = types.JSONNull()
		}
		keys, vals = append(keys, col.Name), append(vals, j)
	}
	return types.FormatText(nil, types.TJsonb, types.JSONObject(keys, vals).Datum())
}

// Close implements connector.SinkWriter.
func (w *Writer) Close() {
	if w.cl != nil {
		w.cl.Close()
		w.cl = nil
	}
}
