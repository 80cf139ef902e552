package control

import (
	"context"
	"time"
)

// Version collection (dataflow.Store.Collect) runs on every node at a
// horizon its reads and deltas cannot be older than:
//   - an epoch committed at least collectLag ago: a read that began at the
//     committed epoch of its time has opened its iterator, or pinned its
//     epoch (storage.Engine.Pin), well before then. Statements pin theirs
//     on their own node for as long as they run, a backfill the epoch its
//     next chunk reads as of; another node's part of a read pins it when
//     it arrives. A read that comes too late fails (storage.ErrCollected),
//     it never misses versions;
//   - with shared storage, no newer than the last durable checkpoint: the
//     next one's delta is every key changed since, deletions included,
//     so a tombstone after it must stay until that delta is taken.
//
// A migration's rounds pin their epochs on the node they copy from (see
// Transfer), since each round's delta starts at the previous round's end.
const (
	collectLag   = 3 * time.Second
	collectEvery = 250 * time.Millisecond
)

// committedAt is the committed epoch seen at a time.
type committedAt struct {
	at    time.Time
	epoch uint64
}

// collectLoop collects versions every collectEvery until ctx ends.
func (s *Streaming) collectLoop(ctx context.Context) {
	t := time.NewTicker(collectEvery)
	defer t.Stop()
	var seen []committedAt
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			seen = append(seen, committedAt{now, s.meta.CommittedEpoch()})
			var horizon uint64
			seen, horizon = collectHorizon(seen, now)
			if s.opts.Shared != nil {
				d := s.meta.Durable()
				if d == nil {
					continue
				}
				horizon = min(horizon, d.Epoch)
			}
			if horizon == 0 {
				continue
			}
			if _, err := s.store.Collect(horizon); err != nil {
				s.opts.Logger.Warn("control: collecting state versions failed; it retries", "horizon", horizon, "err", err)
			}
		}
	}
}

// collectHorizon returns the newest epoch of seen (oldest first) seen at
// least collectLag before now (0: none), and seen without the samples
// older than that one.
func collectHorizon(seen []committedAt, now time.Time) ([]committedAt, uint64) {
	i := -1
	for j, c := range seen {
		if now.Sub(c.at) >= collectLag {
			i = j
		}
	}
	if i < 0 {
		return seen, 0
	}
	return seen[i:], seen[i].epoch
}
