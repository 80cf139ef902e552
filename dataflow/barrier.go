package dataflow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/streamdb/streamdb/latency"
)

// BarrierManager is a node's half of the epoch protocol (DESIGN.md §4,
// §9): the coordinator (package control, on the Raft leader) decides each
// epoch and its barrier time and has every node inject the barrier into
// its local roots (table DML queues and the root actors of jobs); each
// node counts its own actors through the barrier, and once all have
// passed it and written what they staged, seals the epoch (the rest
// written, the store synced) and reports it sealed. The coordinator
// commits an epoch through meta's Raft log once every node has sealed it;
// each node learns of the commit from its copy of the log (SetCommitted).
// Committed epochs are the only ones readers see and the only recovery
// points.
type BarrierManager struct {
	store *Store
	hooks Hooks

	// injectMu orders barrier injection against source writes: a chunk
	// sent to a source belongs to the epoch of the next barrier.
	injectMu sync.Mutex
	sources  map[sourceKey]chan<- Message

	mu   sync.Mutex
	cond *sync.Cond
	prev uint64 // last injected epoch
	// actors is the number of local actors that will see the next
	// barrier.
	actors    int
	inflight  []*epochState // injected, not yet sealed
	committed uint64
	err       error
	// injected remembers when recent epochs were injected, for latency.
	injected map[uint64]time.Time
	// latency holds the time from each barrier's injection until its
	// epoch was committed, as this node saw them.
	latency latency.Histogram
	// sealLatency holds the time from each barrier's injection until this
	// node sealed its epoch (every local actor passed it, the store
	// synced).
	sealLatency latency.Histogram
	// committedAt is when the newest committed epoch's barrier was
	// injected here.
	committedAt time.Time
	// recent is a moving average of the latest commits' latency.
	recent time.Duration
	// paused holds table writes back (Pause, and a recovery until its
	// Resume).
	paused bool
	// resets counts the recoveries and resetCommitted holds the
	// committed epoch each started from: a write sent before one is lost
	// with the epochs it rolled back, unless its epoch was committed
	// (WaitWritten).
	resets         uint64
	resetCommitted []uint64

	complete chan struct{}
}

// sourceKey names a queue the manager injects barriers into: a table's DML
// queue (fragment 0) or the queue of the root actor with id actor of
// fragment number fragment-1 of a job.
type sourceKey struct {
	job      uint32
	fragment int
	actor    int
}

type epochState struct {
	epoch       uint64
	expect, got int
	complete    bool
}

// Tick is one barrier as the coordinator decided it: its epoch and its
// time (Barrier.Time).
type Tick struct {
	Epoch uint64
	Time  int64
}

// injection is one barrier to inject and what it changes besides its
// mutation: added actors start with it (they count towards it), stopping
// actors pass it and end; holds are copies of state from other nodes that
// its epoch's seal waits for as for actors (each collects the epoch once
// its state is in place); addRoots are queues of new root actors, whose
// first message it is, dropRoots those of dropped ones, whose last it is.
type injection struct {
	mutation               Mutation
	added, stopping, holds int
	addRoots               map[sourceKey]chan<- Message
	dropRoots              []sourceKey
}

// Hooks are how a BarrierManager reaches the coordinator of epochs.
type Hooks struct {
	// Sealed reports, in order, each epoch this node has sealed, and
	// whether its state is durable already (see CommitSyncs).
	Sealed func(epoch uint64, synced bool)
	// Request asks for a barrier soon (group commit).
	Request func()
	// Failed reports the first failure of an actor since the last reset:
	// streaming on this node has stopped until a recovery resets it.
	Failed func(err error)
	// CommitSyncs reports whether the commit of the epoch about to be
	// sealed will be recorded after the seal, synced, in the store's own
	// WAL (this node leads, and its Raft log shares the state store's
	// WAL): the seal then leaves its sync to that record, and an epoch
	// costs one fsync. Sealed learns whether the seal synced. Nil: never.
	CommitSyncs func() bool
}

// NewBarrierManager starts a node's epochs after committed (the last
// committed epoch, from meta), reporting to the coordinator through hooks.
func NewBarrierManager(store *Store, committed uint64, hooks Hooks) *BarrierManager {
	m := &BarrierManager{
		store: store, hooks: hooks, sources: map[sourceKey]chan<- Message{},
		prev: committed, committed: committed, injected: map[uint64]time.Time{},
		complete: make(chan struct{}, 1),
	}
	m.cond = sync.NewCond(&m.mu)
	store.onPressure = m.RequestBarrier
	return m
}

// Run seals complete epochs in order until ctx ends.
func (m *BarrierManager) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			m.fail(ctx.Err())
			return
		case <-m.complete:
		}
		for {
			m.mu.Lock()
			if len(m.inflight) == 0 || !m.inflight[0].complete || m.err != nil {
				m.mu.Unlock()
				break
			}
			es := m.inflight[0]
			m.mu.Unlock()
			synced := m.hooks.CommitSyncs == nil || !m.hooks.CommitSyncs()
			if err := m.store.Seal(es.epoch, nil, synced); err != nil {
				m.Fail(fmt.Errorf("dataflow: sealing epoch %d: %w", es.epoch, err))
				break
			}
			m.mu.Lock()
			m.inflight = m.inflight[1:]
			if t, ok := m.injected[es.epoch]; ok {
				m.sealLatency.Record(time.Since(t))
			}
			m.mu.Unlock()
			m.hooks.Sealed(es.epoch, synced)
		}
	}
}

// RequestBarrier asks for a barrier as soon as possible (group commit:
// concurrent requests share one barrier).
func (m *BarrierManager) RequestBarrier() { m.hooks.Request() }

// errOutOfOrder reports a barrier injected out of the coordinator's order.
var errOutOfOrder = errors.New("dataflow: barrier epochs out of order")

// Inject sends the barrier of tick to every local source queue, with in's
// changes.
func (m *BarrierManager) Inject(ctx context.Context, tick Tick, in injection) error {
	m.injectMu.Lock()
	defer m.injectMu.Unlock()
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return m.err
	}
	if tick.Epoch <= m.prev {
		m.mu.Unlock()
		return fmt.Errorf("%w: epoch %d after %d", errOutOfOrder, tick.Epoch, m.prev)
	}
	m.prev = tick.Epoch
	es := &epochState{epoch: tick.Epoch, expect: m.actors + in.added + in.holds}
	m.actors = es.expect - in.stopping - in.holds
	m.inflight = append(m.inflight, es)
	m.injected[tick.Epoch] = time.Now()
	if es.expect == 0 {
		es.complete = true
		m.signalComplete()
	}
	m.cond.Broadcast()
	m.mu.Unlock()
	b := &Barrier{Epoch: tick.Epoch, Checkpoint: true, Mutation: in.mutation, Time: tick.Time}
	for k, ch := range in.addRoots {
		m.sources[k] = ch
	}
	for _, ch := range m.sources {
		if err := send(ctx, ch, b); err != nil {
			return err
		}
	}
	for _, k := range in.dropRoots {
		delete(m.sources, k)
	}
	return nil
}

// reset forgets every source and epoch in flight (Runtime.Reset): epochs
// resume after prev (or the last one injected here, if later), committed
// is the newest committed one.
func (m *BarrierManager) reset(committed, prev uint64) {
	m.injectMu.Lock()
	defer m.injectMu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sources = map[sourceKey]chan<- Message{}
	// Writes wait for the recovery's Resume: the jobs restart first.
	m.actors, m.inflight, m.err, m.paused = 0, nil, nil, true
	// Epochs never go back, not even to numbers a rolled back epoch had:
	// a late word about one must not be taken for a new epoch's.
	m.prev, m.committed = max(prev, committed, m.prev), max(m.committed, committed)
	m.resets++
	m.resetCommitted = append(m.resetCommitted, m.committed)
	m.injected = map[uint64]time.Time{}
	m.cond.Broadcast()
}

// WaitInjected blocks until the barrier of epoch has been injected here
// (or the manager failed): a barrier that arrives from another node may
// overtake the coordinator's word to this one.
func (m *BarrierManager) WaitInjected(ctx context.Context, epoch uint64) error {
	return m.waitUntil(ctx, func() bool { return m.prev >= epoch })
}

// addSource registers a source queue (a table's DML input or a job's
// root) and its actors, which see barriers from the next injection on.
func (m *BarrierManager) addSource(id sourceKey, ch chan<- Message, actors int) {
	m.injectMu.Lock()
	defer m.injectMu.Unlock()
	m.sources[id] = ch
	m.mu.Lock()
	m.actors += actors
	m.mu.Unlock()
}

// Send puts a chunk into a source queue and returns the epoch it belongs
// to (SendAll with one chunk).
func (m *BarrierManager) Send(ctx context.Context, source uint32, c *Chunk, extra func() []Write) (uint64, error) {
	return m.SendAll(ctx, []SourceChunk{{Source: source, Chunk: c}}, extra)
}

// SourceChunk is a chunk for the DML queue of table Source.
type SourceChunk struct {
	Source uint32
	Chunk  *Chunk
}

// errCutShort fails the node when a SendAll broke off after its first
// chunk: the epoch would carry part of a transaction, so it must never
// commit, and the recovery rolls it back.
var errCutShort = errors.New("dataflow: a transaction's writes were cut short while they entered their epoch")

// SendAll puts chunks into their source queues, all in one epoch, and
// returns that epoch (a transaction's writes to several tables enter one
// epoch together); the writes extra returns (for example id high-water
// marks) are staged with that epoch's checkpoint, extra called in the
// order sends are made. It first waits while checkpoints lag behind
// (backlogged).
//
// While the node is failed or recovering nothing is sent: SendAll waits
// for the recovery's reset and fails with ErrRecovered, and the caller,
// whose write was not applied, may try again: a write sent after the
// reset waits for the recovery's Resume and goes to the restarted jobs. A
// send that breaks after its first chunk fails the node, so that the
// recovery rolls the epoch back, and returns ErrRecovered.
func (m *BarrierManager) SendAll(ctx context.Context, chunks []SourceChunk, extra func() []Write) (uint64, error) {
	resets := m.Resets()
	for {
		// Wait for checkpoints to catch up first, not holding up barriers.
		if err := m.waitCaughtUp(ctx, resets); err != nil {
			return 0, err
		}
		m.injectMu.Lock()
		m.mu.Lock()
		epoch, failed, held := m.prev+1, m.err != nil || m.resets != resets, m.paused
		m.mu.Unlock()
		if held && !failed {
			// Paused since the wait: wait again.
			m.injectMu.Unlock()
			continue
		}
		defer m.injectMu.Unlock()
		if failed {
			return 0, ErrRecovered
		}
		// A recovery since the write began restarts the jobs one by one:
		// a write must not reach a table whose views have not restarted
		// yet. It runs again instead.
		queues := make([]chan<- Message, len(chunks))
		for i, c := range chunks {
			ch, ok := m.sources[sourceKey{job: c.Source}]
			if !ok {
				return 0, fmt.Errorf("dataflow: table %d does not run here now: %w", c.Source, ErrRecovered)
			}
			queues[i] = ch
		}
		if extra != nil {
			m.store.Stage(epoch, extra())
		}
		for i, c := range chunks {
			if err := send(ctx, queues[i], c.Chunk); err != nil {
				if i == 0 {
					return 0, err
				}
				m.Fail(errCutShort)
				return 0, ErrRecovered
			}
		}
		return epoch, nil
	}
}

// maxUncommitted is how many epochs may await their commit before sources
// hold back: checkpoints that fall behind slow the sources down instead of
// letting staged state grow without bound.
const maxUncommitted = 3

// backlogged reports whether more than maxUncommitted epochs await their
// commit. Source actors check it between chunks (they must keep passing
// barriers); table writes wait in waitCaughtUp.
func (m *BarrierManager) backlogged() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prev-m.committed > maxUncommitted
}

// waitCaughtUp blocks while the manager is backlogged, paused or failed
// (until the recovery resumes); it fails with ErrRecovered once a reset
// follows the resets'th.
func (m *BarrierManager) waitCaughtUp(ctx context.Context, resets uint64) error {
	err := m.waitRecovering(ctx, func() bool {
		return m.resets != resets || m.prev-m.committed <= maxUncommitted && !m.paused && m.err == nil
	})
	if err == nil && m.Resets() != resets {
		return ErrRecovered
	}
	return err
}

// setPaused holds table writes back (Send waits) or lets them go.
func (m *BarrierManager) setPaused(p bool) {
	m.mu.Lock()
	m.paused = p
	m.cond.Broadcast()
	m.mu.Unlock()
}

// waitUntil blocks until done (called under mu) holds, the manager failed
// or ctx ended; commits and failures wake it.
func (m *BarrierManager) waitUntil(ctx context.Context, done func() bool) error {
	return m.wait(ctx, done, false)
}

// waitRecovering is waitUntil, except that a failure does not end the wait:
// a recovery comes after it (see Fail), which done must look out for.
func (m *BarrierManager) waitRecovering(ctx context.Context, done func() bool) error {
	return m.wait(ctx, done, true)
}

func (m *BarrierManager) wait(ctx context.Context, done func() bool, throughFailure bool) error {
	stop := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for !done() {
		if m.err != nil && !throughFailure {
			return m.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		m.cond.Wait()
	}
	return nil
}

// collect records that one actor passed the barrier of epoch.
func (m *BarrierManager) collect(epoch uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, es := range m.inflight {
		if es.epoch == epoch {
			es.got++
			if es.got == es.expect {
				es.complete = true
				m.signalComplete()
			}
			return
		}
	}
}

func (m *BarrierManager) signalComplete() {
	select {
	case m.complete <- struct{}{}:
	default:
	}
}

// SetCommitted records that epoch is committed (the coordinator's Raft
// entry reached this node): readers and writers waiting for it go on.
func (m *BarrierManager) SetCommitted(epoch uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if epoch <= m.committed {
		return
	}
	for e := m.committed + 1; e <= epoch; e++ {
		if t, ok := m.injected[e]; ok {
			m.committedAt = t
			d := time.Since(t)
			m.latency.Record(d)
			if m.recent == 0 {
				m.recent = d
			}
			m.recent += (d - m.recent) / recentCommits
			delete(m.injected, e)
		}
	}
	m.committed = epoch
	m.cond.Broadcast()
}

// fail stops the manager: waiters that do not wait for a recovery get
// err. It reports whether err is the first failure since the last reset.
func (m *BarrierManager) fail(err error) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	first := m.err == nil
	if first {
		m.err = err
	}
	m.cond.Broadcast()
	return first
}

// Fail reports a fatal error of an actor or of sealing: streaming stops
// on this node, the coordinator is told (Hooks.Failed) so that it recovers
// the cluster at once, and writes waiting for their epoch learn, after the
// recovery, that it was rolled back.
func (m *BarrierManager) Fail(err error) {
	if m.fail(err) && m.hooks.Failed != nil {
		m.hooks.Failed(err)
	}
}

// CommitLag returns how long ago the oldest epoch injected here and not
// yet committed was injected (0: none is waiting): how far commits lag
// behind the job, which background work yields to.
func (m *BarrierManager) CommitLag() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.injected[m.committed+1]; ok {
		return time.Since(t)
	}
	return 0
}

// recentCommits is about how many of the latest commits RecentLatency
// averages.
const recentCommits = 16

// RecentLatency returns how long the latest commits took from their
// barrier's injection, a moving average: what a commit usually takes now,
// which background work compares CommitLag with.
func (m *BarrierManager) RecentLatency() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recent
}

// Committed returns the newest committed epoch.
func (m *BarrierManager) Committed() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.committed
}

// BarrierLatency summarizes the time from each barrier's injection until
// its epoch was committed, over the manager's life.
func (m *BarrierManager) BarrierLatency() latency.Summary {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.latency.Summary()
}

// Latencies returns copies of the histograms of the time from each
// barrier's injection until this node sealed its epoch (seal) and until
// the epoch was committed (commit), over the manager's life.
func (m *BarrierManager) Latencies() (seal, commit latency.Histogram) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sealLatency, m.latency
}

// CommittedAge returns how long ago the barrier of the newest committed
// epoch was injected here (0: none was since the manager started): how
// far the state readers see lags behind now.
func (m *BarrierManager) CommittedAge() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.committedAt.IsZero() {
		return 0
	}
	return time.Since(m.committedAt)
}

// LastEpoch returns the newest epoch injected here (or reset to).
func (m *BarrierManager) LastEpoch() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prev
}

// CurrentEpoch returns the epoch that changes sent now belong to.
func (m *BarrierManager) CurrentEpoch() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prev + 1
}

// WaitCommitted blocks until epoch, which is being or has been committed
// (another node said so), is committed here, through recoveries.
func (m *BarrierManager) WaitCommitted(ctx context.Context, epoch uint64) error {
	return m.waitRecovering(ctx, func() bool { return m.committed >= epoch })
}

// ErrRecovered fails a write whose epoch a recovery rolled back: it was
// not committed, and the client may retry it.
var ErrRecovered = errors.New("the cluster recovered from a failure before the write's epoch was committed: it was not applied; retry it")

// Resets returns the number of recoveries so far (see WaitWritten).
func (m *BarrierManager) Resets() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.resets
}

// WaitWritten blocks until the epoch of a write sent when Resets returned
// since is committed; it fails with ErrRecovered if a recovery came first
// and started from an earlier epoch (the write's epoch was rolled back,
// even if a later epoch of the same number commits).
func (m *BarrierManager) WaitWritten(ctx context.Context, epoch, since uint64) error {
	var lost bool
	err := m.waitRecovering(ctx, func() bool {
		if m.resets != since {
			lost = m.resetCommitted[since] < epoch
			return true
		}
		return m.committed >= epoch
	})
	if err == nil && lost {
		return ErrRecovered
	}
	return err
}
