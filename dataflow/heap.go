package dataflow

import (
	"context"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The state cache's sizes are estimates, and the Go heap holds more than
// the cache: rows in flight, staged writes, and what the collector has not
// reclaimed yet. FollowHeap holds the cache to what the heap really has
// room for, under the runtime's soft memory limit (which the server sets
// from the cache's budget): while the live heap exceeds liveShare of the
// limit, the budget in force drops by the excess, so tables evict at their
// next miss or checkpoint; once the heap is back under, it climbs back
// toward the configured budget. The configured budget stays what
// SetCacheBytes set (CacheBytes).

// liveShare is the part of the memory limit the live heap may fill before
// the cache gives way: the rest is the collector's room between
// collections (at two thirds, a collection comes every half of the live
// heap allocated, as GOGC=50 would).
const liveShare = 2.0 / 3

// FollowHeap adjusts the cache's budget in force every interval until ctx
// ends; it does nothing without a memory limit (debug.SetMemoryLimit).
// One store per process should follow the heap: the heap is the process's.
func (s *Store) FollowHeap(ctx context.Context, every time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		limit := debug.SetMemoryLimit(-1)
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		live := int64(sample[0].Value.Uint64())
		c := &s.cache
		c.budget.Store(heapBudget(c.configured.Load(), c.budget.Load(), c.used.Load(), live, limit))
	}
}

// heapBudget returns the cache's next budget in force, from the configured
// one, the one in force, the cache's estimated use, the live heap and the
// memory limit: lowered by the live heap's excess over liveShare of the
// limit, or raised by half the room left, up to the configured budget. It
// takes at most half the configured budget away: a heap that is over for
// other reasons than the cache (rows in flight, join indexes) is not made
// to fit by emptying the cache, whose misses would then read storage.
func heapBudget(configured, inForce, used, live, limit int64) int64 {
	target := int64(float64(limit) * liveShare)
	if limit <= 0 || limit == math.MaxInt64 || target <= 0 {
		return configured
	}
	floor := configured / 2
	if live > target {
		return max(floor, min(inForce, used)-(live-target))
	}
	return min(configured, max(floor, inForce+(target-live)/2))
}
