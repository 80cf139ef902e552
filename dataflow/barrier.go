package dataflow

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/streamdb/streamdb/latency"
)

// BarrierManager drives epochs on a node. It injects each barrier into
// every source queue (table DML) at once, so that one epoch spans all jobs;
// every actor writes the state it staged behind the barrier (Store.
// WriteBehind) and reports when it has passed it; once all have, the
// epoch's state is sealed (the rest written, the store synced) and
// committed through the committer (meta's Raft log). Committed epochs are the only
// ones readers see and the only recovery points.
type BarrierManager struct {
	store  *Store
	commit func(ctx context.Context, epoch uint64, record any) error

	// injectMu orders barrier injection against source writes: a chunk
	// sent to a source belongs to the epoch of the next barrier.
	injectMu sync.Mutex
	sources  map[sourceKey]chan<- Message

	mu        sync.Mutex
	cond      *sync.Cond
	prev      uint64 // last injected epoch
	prevTime  int64  // Time of the last injected barrier
	actors    int    // actors that will see the next barrier
	inflight  []*epochState
	committed uint64
	err       error
	// latency holds the time from each barrier's injection until its
	// epoch was committed.
	latency latency.Histogram
	// paused holds table writes back (Pause).
	paused bool

	kick     chan struct{}
	sealed   chan struct{}
	interval chan time.Duration
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
	injected    time.Time
	expect, got int
	stopping    int
	complete    bool
	// record goes into the epoch's commit (injection.record).
	record any
}

// injection is one barrier to inject and what it changes besides its
// mutation: added actors start with it (they count towards it), stopping
// actors pass it and end; addRoots are queues of new root actors, whose
// first message it is, dropRoots those of dropped ones, whose last it is;
// record is handed to the commit of its epoch (nil: nothing), so that a
// change of the graph is recorded in the same Raft entry as the
// checkpoint that makes it durable.
type injection struct {
	mutation        Mutation
	added, stopping int
	addRoots        map[sourceKey]chan<- Message
	dropRoots       []sourceKey
	record          any
}

// NewBarrierManager starts epochs after committed (the last committed
// epoch, from meta). commit records an epoch as committed (durably),
// together with what the epoch's barrier changed (nil: nothing; see
// Runtime.Reassign).
func NewBarrierManager(store *Store, committed uint64, commit func(ctx context.Context, epoch uint64, record any) error) *BarrierManager {
	m := &BarrierManager{
		store: store, commit: commit, sources: map[sourceKey]chan<- Message{},
		prev: committed, committed: committed,
		kick: make(chan struct{}, 1), sealed: make(chan struct{}, 1), interval: make(chan time.Duration),
	}
	m.cond = sync.NewCond(&m.mu)
	store.onPressure = m.RequestBarrier
	return m
}

// Run injects a checkpoint barrier every interval, and at once when asked
// (RequestBarrier), and commits collected epochs in order, until ctx ends.
func (m *BarrierManager) Run(ctx context.Context, interval time.Duration) {
	go m.committer(ctx)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			m.fail(ctx.Err())
			return
		case d := <-m.interval:
			t.Reset(d)
			continue
		case <-t.C:
		case <-m.kick:
		}
		if _, err := m.inject(ctx, injection{}); err != nil {
			m.fail(err)
		}
	}
}

// SetInterval changes the time between periodic barriers of a running
// manager.
func (m *BarrierManager) SetInterval(ctx context.Context, d time.Duration) {
	select {
	case m.interval <- d:
	case <-ctx.Done():
	}
}

// RequestBarrier asks for a barrier as soon as possible (group commit:
// concurrent requests share one barrier).
func (m *BarrierManager) RequestBarrier() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// inject sends one checkpoint barrier to every source queue.
func (m *BarrierManager) inject(ctx context.Context, in injection) (uint64, error) {
	m.injectMu.Lock()
	defer m.injectMu.Unlock()
	m.mu.Lock()
	if m.err != nil {
		m.mu.Unlock()
		return 0, m.err
	}
	m.prev++
	es := &epochState{epoch: m.prev, injected: time.Now(), expect: m.actors + in.added, record: in.record}
	m.actors = es.expect - in.stopping
	m.inflight = append(m.inflight, es)
	m.prevTime = max(es.injected.UnixMicro(), m.prevTime+1)
	b := &Barrier{Epoch: es.epoch, Checkpoint: true, Mutation: in.mutation, Time: m.prevTime}
	if es.expect == 0 {
		es.complete = true
		m.signalSealed()
	}
	m.mu.Unlock()
	for k, ch := range in.addRoots {
		m.sources[k] = ch
	}
	for _, ch := range m.sources {
		if err := send(ctx, ch, b); err != nil {
			return 0, err
		}
	}
	for _, k := range in.dropRoots {
		delete(m.sources, k)
	}
	return b.Epoch, nil
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
// to; extra writes (for example id high-water marks) are staged with that
// epoch's checkpoint. It first waits while checkpoints lag behind
// (backlogged).
func (m *BarrierManager) Send(ctx context.Context, source uint32, c *Chunk, extra []Write) (uint64, error) {
	// Wait for checkpoints to catch up first, not holding up barriers.
	if err := m.waitCaughtUp(ctx); err != nil {
		return 0, err
	}
	m.injectMu.Lock()
	defer m.injectMu.Unlock()
	ch, ok := m.sources[sourceKey{job: source}]
	if !ok {
		return 0, errors.New("dataflow: no such source")
	}
	m.mu.Lock()
	epoch, err := m.prev+1, m.err
	m.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if len(extra) > 0 {
		m.store.Stage(epoch, extra)
	}
	return epoch, send(ctx, ch, c)
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
	return len(m.inflight) > maxUncommitted
}

// waitCaughtUp blocks while the manager is backlogged or paused.
func (m *BarrierManager) waitCaughtUp(ctx context.Context) error {
	return m.waitUntil(ctx, func() bool { return len(m.inflight) <= maxUncommitted && !m.paused })
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
	stop := context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for !done() {
		if m.err != nil {
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
				m.signalSealed()
			}
			return
		}
	}
}

func (m *BarrierManager) signalSealed() {
	select {
	case m.sealed <- struct{}{}:
	default:
	}
}

// committer seals and commits complete epochs in order.
func (m *BarrierManager) committer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.sealed:
		}
		for {
			m.mu.Lock()
			if len(m.inflight) == 0 || !m.inflight[0].complete || m.err != nil {
				m.mu.Unlock()
				break
			}
			es := m.inflight[0]
			m.mu.Unlock()
			err := m.store.Seal(es.epoch, nil)
			if err == nil {
				err = m.commit(ctx, es.epoch, es.record)
			}
			m.mu.Lock()
			if err != nil {
				m.err = err
			} else {
				m.inflight = m.inflight[1:]
				m.committed = es.epoch
				m.latency.Record(time.Since(es.injected))
			}
			m.cond.Broadcast()
			m.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// fail stops the manager: waiters get err.
func (m *BarrierManager) fail(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.cond.Broadcast()
	m.mu.Unlock()
}

// Fail reports a fatal error of an actor: streaming stops and every waiter
// gets err (the node must recover).
func (m *BarrierManager) Fail(err error) { m.fail(err) }

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

// CurrentEpoch returns the epoch that changes sent now belong to.
func (m *BarrierManager) CurrentEpoch() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.prev + 1
}

// WaitCommitted blocks until epoch is committed (or the manager failed).
func (m *BarrierManager) WaitCommitted(ctx context.Context, epoch uint64) error {
	return m.waitUntil(ctx, func() bool { return m.committed >= epoch })
}
