// Package metrics exports a node's figures to Prometheus and serves its
// HTTP endpoints: /metrics, /healthz, /readyz and Go's profiler under
// /debug/pprof/. Figures are read at scrape time from counters the
// runtime keeps anyway (Collector), so the hot paths pay nothing for
// them; statements are counted as they end (OnStatement).
package metrics

import (
	"strconv"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/latency"
)

// Streaming is the node's streaming side (control.Streaming).
type Streaming interface {
	Stats() control.Stats
	RescaleJobs() []control.RescaleProgress
}

// Store is the node's state store (storage.Engine).
type Store interface {
	PebbleMetrics() *pebble.Metrics
}

// Conns counts the node's client connections (pgwire.Server).
type Conns interface {
	Connections() (open int, total uint64)
}

// Splits reads the sources' committed offsets (sql.Engine).
type Splits interface {
	SourceSplits() ([]control.SplitProgress, error)
}

// Sources are what the collector reads at each scrape; a nil one is
// left out.
type Sources struct {
	Streaming Streaming
	Store     Store
	Conns     Conns
	Splits    Splits
}

// latencyBounds are the buckets of the exported latency histograms.
var latencyBounds = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("streamdb_"+name, help, labels, nil)
}

var (
	fragmentRowsIn  = desc("fragment_rows_in_total", "Rows a fragment's actors on this node took in from their inputs, since its job started here.", "job", "fragment")
	fragmentRowsOut = desc("fragment_rows_out_total", "Rows a fragment's actors on this node passed on downstream, since its job started here.", "job", "fragment")
	queueMessages   = desc("exchange_queue_messages", "Messages (chunks of up to 1024 rows, barriers, watermarks) waiting in the exchange queues into a fragment's actors on this node.", "job", "fragment")
	queueCapacity   = desc("exchange_queue_capacity_messages", "Room of the exchange queues into a fragment's actors on this node, in messages.", "job", "fragment")
	barrierLatency  = desc("barrier_latency_seconds", "Time from a barrier's injection until this node sealed its epoch (every local actor passed it, the store synced).")
	commitLatency   = desc("checkpoint_commit_latency_seconds", "Time from a barrier's injection until its epoch was committed through Raft, as this node saw it.")
	commitLag       = desc("epoch_commit_lag_seconds", "How long ago the barrier of the newest committed epoch was injected: how far the state readers see lags behind now.")
	uncommittedAge  = desc("epoch_uncommitted_age_seconds", "How long the oldest epoch injected and not yet committed has waited (0: none waits).")
	committedEpoch  = desc("committed_epoch", "The newest committed epoch.")
	cacheBytes      = desc("state_cache_bytes", "Estimated bytes of cached operator state.")
	cacheBudget     = desc("state_cache_budget_bytes", "The bound on cached operator state (--state-cache-mb).")
	cacheInForce    = desc("state_cache_budget_in_force_bytes", "The bound the state cache evicts down to now: the budget, or less while the Go heap is short of room under its memory limit.")
	cacheHits       = desc("state_cache_hits_total", "Lookups of operator state groups found in the cache.")
	cacheMisses     = desc("state_cache_misses_total", "Lookups of operator state groups read from storage.")
	collected       = desc("state_versions_collected_total", "Obsolete versions of state keys deleted from storage (superseded ones, and tombstones no read needs).")
	collectHorizon  = desc("state_collect_horizon_epoch", "The epoch up to which obsolete state versions were last collected: reads at older epochs are refused.")
	obsoleteQueued  = desc("state_obsolete_queued_bytes", "Bytes of obsolete state versions waiting for the collection horizon to reach them.")
	rescaleSteps    = desc("rescale_steps_total", "Rescale switch steps this node ran.")
	rescaleVNodes   = desc("rescale_vnodes_moved_total", "Vnodes that changed owner in the rescale steps this node ran.")
	rescaleBytes    = desc("rescale_bytes_moved_total", "Estimated bytes of state moved by the rescale steps this node ran.")
	rescalePause    = desc("rescale_step_pause_seconds", "Pause of each rescale step: from its switch until the epoch after it committed.")
	rescaleProgress = desc("rescale_progress_vnodes", "A job's latest rescale: vnodes moved so far (state=moved) of all that move (state=total).", "job", "state")
	rescaleMoving   = desc("rescale_in_progress", "1 while a job's rescale moves vnodes, else 0.", "job")
	splitOffset     = desc("source_split_offset", "A source split's committed offset: the position of its next row (read from the split's owner; left out when it does not answer within a second).", "source", "split")
	splitDone       = desc("source_split_done", "1 once a source split has no rows beyond its committed offset, else 0.", "source", "split")
	connsOpen       = desc("connections", "Open client connections.")
	connsTotal      = desc("connections_total", "Client connections accepted since the node started.")
	pebbleLevelSize = desc("pebble_level_bytes", "Bytes of the state store's tables in an LSM level.", "level")
	pebbleLevelN    = desc("pebble_level_tables", "Tables in an LSM level of the state store.", "level")
	pebbleWritten   = desc("pebble_level_written_bytes_total", "Bytes of tables flushes and compactions wrote into an LSM level of the state store (their sum over the WAL's bytes is the write amplification).", "level")
	pebbleCompact   = desc("pebble_compactions_total", "Compactions of the state store.")
	pebbleDebt      = desc("pebble_compaction_debt_bytes", "Estimated bytes compactions still have to write.")
	pebbleFlushes   = desc("pebble_flushes_total", "Memtable flushes of the state store.")
	pebbleMemtable  = desc("pebble_memtable_bytes", "Bytes of the state store's memtables.")
	pebbleWALBytes  = desc("pebble_wal_bytes_written_total", "Bytes written to the state store's write-ahead log.")
	pebbleBlockHits = desc("pebble_block_cache_hits_total", "Hits of the state store's block cache.")
	pebbleBlockMiss = desc("pebble_block_cache_misses_total", "Misses of the state store's block cache.")
	pebbleBlockSize = desc("pebble_block_cache_bytes", "Bytes in the state store's block cache.")
	pebbleIngests   = desc("pebble_ingests_total", "SST ingestions into the state store (rescale and restore transfers).")
)

// collector reads a node's figures at each scrape.
type collector struct{ src Sources }

// Describe implements prometheus.Collector.
func (c collector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	if c.src.Streaming != nil {
		collectStreaming(ch, c.src.Streaming)
	}
	if c.src.Store != nil {
		collectPebble(ch, c.src.Store.PebbleMetrics())
	}
	if c.src.Conns != nil {
		open, total := c.src.Conns.Connections()
		gauge(ch, connsOpen, float64(open))
		counter(ch, connsTotal, float64(total))
	}
	if c.src.Splits != nil {
		for _, sp := range readSplits(c.src.Splits) {
			split := strconv.Itoa(sp.Split)
			gauge(ch, splitOffset, float64(sp.Offset), sp.Source, split)
			gauge(ch, splitDone, flag(sp.Done), sp.Source, split)
		}
	}
}

// splitsTimeout bounds the read of the sources' offsets in a scrape.
const splitsTimeout = time.Second

// readSplits reads the sources' committed offsets, which may live on
// other nodes; a read that fails (no quorum, say) or takes longer than
// splitsTimeout (an owner does not answer) leaves them out of the scrape.
func readSplits(s Splits) []control.SplitProgress {
	type result struct {
		splits []control.SplitProgress
		err    error
	}
	done := make(chan result, 1)
	go func() {
		splits, err := s.SourceSplits()
		done <- result{splits, err}
	}()
	select {
	case r := <-done:
		if r.err == nil {
			return r.splits
		}
	case <-time.After(splitsTimeout):
	}
	return nil
}

func collectStreaming(ch chan<- prometheus.Metric, s Streaming) {
	st := s.Stats()
	for _, f := range st.Fragments {
		frag := strconv.Itoa(f.Fragment)
		counter(ch, fragmentRowsIn, float64(f.In), f.Name, frag)
		counter(ch, fragmentRowsOut, float64(f.Out), f.Name, frag)
		gauge(ch, queueMessages, float64(f.Queued), f.Name, frag)
		gauge(ch, queueCapacity, float64(f.Capacity), f.Name, frag)
	}
	histogram(ch, barrierLatency, &st.SealLatency)
	histogram(ch, commitLatency, &st.CommitLatency)
	gauge(ch, commitLag, st.CommittedAge.Seconds())
	gauge(ch, uncommittedAge, st.CommitLag.Seconds())
	gauge(ch, committedEpoch, float64(st.Committed))
	gauge(ch, cacheBytes, float64(st.CacheUsed))
	gauge(ch, cacheBudget, float64(st.CacheBudget))
	gauge(ch, cacheInForce, float64(st.CacheInForce))
	counter(ch, cacheHits, float64(st.CacheHits))
	counter(ch, cacheMisses, float64(st.CacheMisses))
	counter(ch, collected, float64(st.VersionsCollected))
	gauge(ch, collectHorizon, float64(st.CollectHorizon))
	gauge(ch, obsoleteQueued, float64(st.ObsoleteQueued))
	counter(ch, rescaleSteps, float64(st.Steps.Steps))
	counter(ch, rescaleVNodes, float64(st.Steps.VNodes))
	counter(ch, rescaleBytes, float64(st.Steps.Bytes))
	histogram(ch, rescalePause, &st.Steps.Pauses)
	for _, r := range s.RescaleJobs() {
		gauge(ch, rescaleProgress, float64(r.VNodesMoved), r.Name, "moved")
		gauge(ch, rescaleProgress, float64(r.VNodesTotal), r.Name, "total")
		gauge(ch, rescaleMoving, flag(r.Phase == "moving"), r.Name)
	}
}

func collectPebble(ch chan<- prometheus.Metric, m *pebble.Metrics) {
	for i, l := range m.Levels {
		level := strconv.Itoa(i)
		gauge(ch, pebbleLevelSize, float64(l.TablesSize), level)
		gauge(ch, pebbleLevelN, float64(l.TablesCount), level)
		counter(ch, pebbleWritten, float64(l.TableBytesFlushed+l.TableBytesCompacted), level)
	}
	counter(ch, pebbleCompact, float64(m.Compact.Count))
	gauge(ch, pebbleDebt, float64(m.Compact.EstimatedDebt))
	counter(ch, pebbleFlushes, float64(m.Flush.Count))
	gauge(ch, pebbleMemtable, float64(m.MemTable.Size))
	counter(ch, pebbleWALBytes, float64(m.WAL.BytesWritten))
	counter(ch, pebbleBlockHits, float64(m.BlockCache.Hits))
	counter(ch, pebbleBlockMiss, float64(m.BlockCache.Misses))
	gauge(ch, pebbleBlockSize, float64(m.BlockCache.Size))
	counter(ch, pebbleIngests, float64(m.Ingest.Count))
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// histogram exports h with the buckets of latencyBounds.
func histogram(ch chan<- prometheus.Metric, d *prometheus.Desc, h *latency.Histogram) {
	n, sum, below := h.Cumulative(latencyBounds)
	buckets := make(map[float64]uint64, len(latencyBounds))
	for i, b := range latencyBounds {
		buckets[b.Seconds()] = uint64(below[i])
	}
	ch <- prometheus.MustNewConstHistogram(d, uint64(n), sum.Seconds(), buckets)
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Registry is a node's metrics: the collector over its Sources, the
// statement counters, and Go's and the process's own.
type Registry struct {
	reg   *prometheus.Registry
	stmts *Statements
}

// NewRegistry returns the registry of a node whose figures src reads and
// whose statements stmts counts.
func NewRegistry(src Sources, stmts *Statements) *Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{src}, stmts.vec,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Registry{reg: reg, stmts: stmts}
}
