package kafka

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/types"
)

// bufferBytes bounds the record values an actor's reader holds fetched
// but not yet read: fetching waits while they exceed it.
const bufferBytes = 8 << 20

// pollWait is how soon a split with nothing buffered asks to be read
// again (its Pace is -pollWait).
const pollWait = 5 * time.Millisecond

// logEvery is the least time between two log lines of one kind of
// trouble (malformed records, fetch errors) of a reader.
const logEvery = 10 * time.Second

// reader reads the partitions of one actor's splits with one client,
// created at the first read, once every split is positioned.
type reader struct {
	cfg    *Config
	dec    *decoder
	splits []*Split
	index  map[int32]int // partition → its split's index

	mu   sync.Mutex
	cond *sync.Cond
	// queues hold each split's fetched records, qbytes their value bytes,
	// buffered the sum.
	queues   [][]*kgo.Record
	qbytes   []int
	buffered int
	closed   bool

	client *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}

	malformed, fetchErrs limiter
}

// NewSplits returns the splits of partitions, read together: with one
// client, fetching into one bounded buffer. cols are the columns a
// record's value is decoded into.
func NewSplits(cfg *Config, cols []Column, partitions []int) []*Split {
	r := &reader{cfg: cfg, dec: newDecoder(cols, cfg), index: map[int32]int{},
		queues: make([][]*kgo.Record, len(partitions)), qbytes: make([]int, len(partitions))}
	r.cond = sync.NewCond(&r.mu)
	for i, p := range partitions {
		r.splits = append(r.splits, &Split{r: r, idx: i, partition: int32(p), next: -1})
		r.index[int32(p)] = i
	}
	return r.splits
}

// Split reads one partition of the topic. Its offset is the partition's
// next offset to read, -1 until it has read a record without having been
// positioned (it starts where the startup mode says). A Split is not
// safe for concurrent use; the splits of one reader are read by one
// goroutine.
type Split struct {
	r         *reader
	idx       int
	partition int32
	next      int64
	// pending are fetched records taken from the reader's queue, read
	// from pos on.
	pending []*kgo.Record
	pos     int
}

// Offset returns the offset to checkpoint: the next one to read.
func (s *Split) Offset() int64 { return s.next }

// SetOffset positions the split at a checkpointed offset, before its
// reader's first read.
func (s *Split) SetOffset(offset int64) { s.next = offset }

// Done is false: a topic has no end.
func (s *Split) Done() bool { return false }

// Pace marks the split as live (dataflow.SplitReader): ask again after
// pollWait when Next has nothing.
func (s *Split) Pace() time.Duration { return -pollWait }

// Next decodes buffered records into rows and returns how many it
// wrote: 0 when none are buffered. Records that do not decode are
// skipped (and counted).
func (s *Split) Next(rows [][]types.Datum) int { return s.read(rows, nil) }

// NextChanges is Next for a keyed format (dataflow.ChangeReader): it also
// says which changes are deletes by key.
func (s *Split) NextChanges(rows [][]types.Datum, deletes []bool) int {
	return s.read(rows, deletes)
}

// Open implements dataflow.ChangeReader: the reader starts at the first
// read.
func (s *Split) Open(context.Context) {}

// Committed implements dataflow.ChangeReader: the offsets are in
// streamdb's checkpoints, so the topic needs no word of them.
func (s *Split) Committed(int64) {}

// read decodes buffered records into rows, and whether each is a delete
// into deletes if the format is keyed, and returns how many.
func (s *Split) read(rows [][]types.Datum, deletes []bool) int {
	dec := s.r.dec
	n := 0
	for n < len(rows) {
		if s.pos == len(s.pending) && !s.refill() {
			break
		}
		rec := s.pending[s.pos]
		s.pending[s.pos] = nil
		s.pos++
		s.next = rec.Offset + 1
		var err error
		if dec.cfg.Format.Keyed() {
			deletes[n], err = dec.decodeChange(rec.Key, rec.Value, rows[n])
		} else {
			err = dec.decode(rec.Value, rows[n])
		}
		if err != nil {
			if err != errHeader && err != errTombstone {
				s.r.malformed.warn("skipped malformed kafka records", "topic", s.r.cfg.Topic,
					"partition", s.partition, "offset", rec.Offset, "err", err)
			}
			continue
		}
		n++
	}
	return n
}

// refill takes the split's queued records, starting the reader first if
// needed; false if there are none.
func (s *Split) refill() bool {
	r := s.r
	if r.client == nil && !r.start() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queues[s.idx]
	if len(q) == 0 {
		return false
	}
	r.queues[s.idx], s.pending, s.pos = s.pending[:0], q, 0
	r.buffered -= r.qbytes[s.idx]
	r.qbytes[s.idx] = 0
	r.cond.Signal()
	return true
}

// Close closes the split's reader, with the other splits of its actor.
func (s *Split) Close() error {
	s.r.close()
	return nil
}

// start creates the client, consuming every split's partition from its
// offset, and the goroutine that fetches; false if it cannot.
func (r *reader) start() bool {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return false
	}
	offsets := map[int32]kgo.Offset{}
	for _, s := range r.splits {
		offsets[s.partition] = r.startOffset(s.next)
	}
	client, err := kgo.NewClient(
		kgo.SeedBrokers(r.cfg.Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{r.cfg.Topic: offsets}),
		// A checkpointed offset gone with retention resumes at the
		// partition's start.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxBytes(4<<20),
		kgo.FetchMaxPartitionBytes(1<<20),
	)
	if err != nil {
		r.fetchErrs.warn("cannot create a kafka client", "topic", r.cfg.Topic, "err", err)
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.client, r.cancel, r.done = client, cancel, make(chan struct{})
	go r.fetch(ctx)
	return true
}

// startOffset is where a split at offset next starts consuming.
func (r *reader) startOffset(next int64) kgo.Offset {
	switch {
	case next >= 0:
		return kgo.NewOffset().At(next)
	case r.cfg.Latest:
		return kgo.NewOffset().AtEnd()
	case r.cfg.StartMillis > 0:
		return kgo.NewOffset().AfterMilli(r.cfg.StartMillis)
	}
	return kgo.NewOffset().AtStart()
}

// fetch polls records into the splits' queues while the buffer has room,
// until the reader closes.
func (r *reader) fetch(ctx context.Context) {
	defer close(r.done)
	for {
		r.mu.Lock()
		for r.buffered >= bufferBytes && !r.closed {
			r.cond.Wait()
		}
		closed := r.closed
		r.mu.Unlock()
		if closed {
			return
		}
		fetches := r.client.PollRecords(ctx, 0)
		if fetches.IsClientClosed() || ctx.Err() != nil {
			return
		}
		fetches.EachError(func(topic string, p int32, err error) {
			r.fetchErrs.warn("kafka fetch error", "topic", topic, "partition", p, "err", err)
		})
		r.mu.Lock()
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			i, ok := r.index[p.Partition]
			if !ok || len(p.Records) == 0 {
				return
			}
			r.queues[i] = append(r.queues[i], p.Records...)
			for _, rec := range p.Records {
				r.qbytes[i] += len(rec.Value)
				r.buffered += len(rec.Value)
			}
		})
		r.mu.Unlock()
	}
}

// close stops fetching and closes the client; later calls do nothing.
func (r *reader) close() {
	r.mu.Lock()
	closed := r.closed
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
	if closed || r.client == nil {
		return
	}
	r.cancel()
	r.client.Close()
	<-r.done
}

// limiter logs one kind of trouble at most every logEvery, with how many
// times it happened since the last line.
type limiter struct {
	mu     sync.Mutex
	count  int64
	logged time.Time
}

// warn counts one occurrence and logs msg with args if it is time.
func (l *limiter) warn(msg string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	if now := time.Now(); now.Sub(l.logged) >= logEvery {
		slog.Warn(msg, append(args, "count", l.count)...)
		l.count, l.logged = 0, now
	}
}
