package control

import (
	"sync"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/latency"
)

// Stats are a node's streaming figures as they stand, read from counters
// the runtime keeps anyway: what metrics export at each scrape.
type Stats struct {
	// Fragments are the running fragments' rows and queues, by job.
	Fragments []FragmentStats
	// SealLatency holds the time from each barrier's injection until this
	// node sealed its epoch; CommitLatency until the epoch was committed.
	SealLatency, CommitLatency latency.Histogram
	// CommitLag is how long the oldest epoch not yet committed has waited
	// (0: none); CommittedAge how long ago the newest committed epoch's
	// barrier was injected.
	CommitLag, CommittedAge time.Duration
	// Committed is the newest committed epoch.
	Committed uint64
	// CacheUsed and CacheBudget are the bytes of cached operator state
	// and their bound; CacheHits and CacheMisses count lookups of state
	// groups found cached and read from storage.
	CacheUsed, CacheBudget, CacheHits, CacheMisses int64
	// CacheInForce is the budget the cache evicts down to now: CacheBudget,
	// or less while the heap is short of room.
	CacheInForce int64
	// VersionsCollected counts the obsolete state versions deleted;
	// CollectHorizon is the epoch that collection last went up to;
	// ObsoleteQueued the bytes of obsolete versions awaiting it.
	VersionsCollected, ObsoleteQueued int64
	CollectHorizon                    uint64
	// Steps sums the rescale steps this node ran.
	Steps StepTotals
}

// FragmentStats are one running fragment's rows and queues on this node.
type FragmentStats struct {
	dataflow.FragmentRows
	// Name names the fragment's job's relation.
	Name string
}

// StepTotals sums rescale steps: their count, the vnodes and bytes they
// moved and the pause of each (from its switch until the epoch after it
// committed).
type StepTotals struct {
	Steps, VNodes int64
	Bytes         int64
	Pauses        latency.Histogram
}

// stepTotals is StepTotals, safe for concurrent use.
type stepTotals struct {
	mu sync.Mutex
	t  StepTotals
}

// record adds one step that moved vnodes vnodes and bytes bytes and
// paused its job for pause.
func (s *stepTotals) record(vnodes int, bytes int64, pause time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.t.Steps++
	s.t.VNodes += int64(vnodes)
	s.t.Bytes += bytes
	s.t.Pauses.Record(pause)
}

func (s *stepTotals) get() StepTotals {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t
}

// Stats returns the node's streaming figures now.
func (s *Streaming) Stats() Stats {
	names := map[uint32]string{}
	for _, t := range s.meta.Catalog().Tables() {
		names[t.ID] = t.Name
	}
	var st Stats
	for _, f := range s.rt.FragmentRows() {
		st.Fragments = append(st.Fragments, FragmentStats{FragmentRows: f, Name: names[f.Job]})
	}
	st.SealLatency, st.CommitLatency = s.mgr.Latencies()
	st.CommitLag, st.CommittedAge, st.Committed = s.mgr.CommitLag(), s.mgr.CommittedAge(), s.mgr.Committed()
	st.CacheUsed, st.CacheBudget, st.CacheInForce = s.store.CacheUsage(), s.store.CacheBytes(), s.store.CacheBytesInForce()
	st.CacheHits, st.CacheMisses = s.store.CacheLookups()
	st.VersionsCollected, st.CollectHorizon, st.ObsoleteQueued = s.store.CollectTotals()
	st.Steps = s.steps.get()
	return st
}
