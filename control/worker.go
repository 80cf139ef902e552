package control

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/storage"
)

// Worker is a node's side of the control plane: it applies the
// controller's barriers and changes to the node's runtime (the actors
// placed here, the ends of queues to other nodes) and reports back. Every
// node runs one; the controller reaches its own node's directly and the
// others' through the worker service.
type Worker struct {
	node    string
	rt      *dataflow.Runtime
	mgr     *dataflow.BarrierManager
	storage *storage.Engine
	shared  *SharedStore
	builder Builder
	meta    *meta.Meta
	log     *slog.Logger
	// up is told that the node's jobs were created (backfills done).
	up upstream
	// transfer moves vnodes' state to and from this node.
	transfer *Transfer

	mu sync.Mutex
	// ready is closed once the controller has started this node's jobs
	// after a recovery.
	ready chan struct{}
	// cacheBytes reports, per job, the cached state its last
	// reassignment moved on this node.
	cacheBytes map[uint32]func() int64
	// fence is the recovery this node follows: a request of another comes
	// from a former leader, or a recovery since replaced, and is refused.
	fence meta.Fence
	// commitIndex is the Raft index of the newest commit record the
	// leader announced: the catalog shows the rescale steps of the
	// epochs committed so far once it has applied it.
	commitIndex atomic.Uint64
}

// errStale refuses a request of another recovery than this node's.
func errStale(got, have meta.Fence) error {
	return fmt.Errorf("control: a request of recovery %s, and this node follows %s: another recovery or leader took over", got, have)
}

// checkFence refuses f unless it is this node's recovery's.
func (w *Worker) checkFence(f meta.Fence) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f != w.fence {
		return errStale(f, w.fence)
	}
	return nil
}

// upstream is the controller as a worker reports to it.
type upstream interface {
	// created reports that node finished creating job (its backfills).
	created(ctx context.Context, node string, job uint32)
}

// Apply applies one barrier and its change on this node, for the
// recovery f.
func (w *Worker) Apply(ctx context.Context, f meta.Fence, tick dataflow.Tick, ch *Change) error {
	if err := w.checkFence(f); err != nil {
		return err
	}
	if err := w.meta.WaitApplied(ctx, ch.CatalogIndex); err != nil {
		return err
	}
	switch ch.Kind {
	case changeNone:
		return w.rt.Inject(ctx, tick)
	case changeStartTable:
		ref, err := w.builder.TableRef(ch.Def)
		if err != nil {
			return err
		}
		mine := w.tableHoldings(ref, ch.Nodes)
		if err := w.dropStray(ctx, w.tableHoldings(ref, nil), mine); err != nil {
			return err
		}
		if ch.Restore > 0 && len(mine) > 0 {
			if err := w.shared.restore(ctx, ch.Restore, mine); err != nil {
				return err
			}
		}
		if err := w.rt.StartTable(ref, placementNode(ch.Nodes, 0)); err != nil {
			return err
		}
		return w.rt.Inject(ctx, tick)
	case changeStartJob:
		g, err := w.graph(ch.Def)
		if err != nil {
			return err
		}
		mine := g.Holdings(ch.Owner, ch.Nodes, w.node)
		if err := w.dropStray(ctx, g.Holdings(ch.Owner, nil, w.node), mine); err != nil {
			return err
		}
		if ch.Restore > 0 {
			if err := w.shared.restore(ctx, ch.Restore, mine); err != nil {
				return err
			}
		}
		created, err := w.rt.StartJob(ctx, tick, ch.Def.ID, g, ch.Owner, ch.Nodes, ch.Backfill)
		if err != nil {
			return err
		}
		go func() {
			select {
			case <-created:
				w.up.created(context.Background(), w.node, ch.Def.ID)
			case <-ctx.Done():
			}
		}()
		return nil
	case changeStopJob:
		return w.rt.StopJob(ctx, tick, ch.Job)
	case changeDrop:
		for _, id := range ch.Drop {
			if err := w.storage.DropTable(id); err != nil {
				return err
			}
		}
		return w.rt.Inject(ctx, tick)
	case changeReassign:
		res, err := w.rt.Reassign(ctx, tick, ch.Job, ch.Owner, ch.Nodes, dataflow.ReassignOptions{Replace: ch.Replace, Cache: cacheModes[ch.Cache]})
		if err == nil {
			w.mu.Lock()
			w.cacheBytes[ch.Job] = res.CacheBytes
			w.mu.Unlock()
		}
		return err
	case changePause:
		return w.rt.Pause(ctx, tick)
	case changeResume:
		if err := w.rt.Resume(ctx, tick); err != nil {
			return err
		}
		w.mu.Lock()
		select {
		case <-w.ready:
		default:
			close(w.ready)
		}
		w.mu.Unlock()
		return nil
	}
	return fmt.Errorf("control: unknown change %q", ch.Kind)
}

// graph returns the job graph of t: the plan of a materialized view, a
// subscription or a sink, or the job of a source or a table with a
// connector.
func (w *Worker) graph(t *meta.Table) (*dataflow.GraphSpec, error) {
	if t.Kind.Planned() {
		g, err := w.builder.ViewGraph(t)
		if err == nil && t.Kind == meta.KindSink {
			err = attachSink(t, g)
		}
		return g, err
	}
	ref, err := w.builder.TableRef(t)
	if err != nil {
		return nil, err
	}
	return sourceGraph(t, ref)
}

// CacheBytes returns the cached state bytes that the last reassignment of
// job moved to new owners on this node (final once its epoch committed).
func (w *Worker) CacheBytes(job uint32) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f := w.cacheBytes[job]; f != nil {
		return f()
	}
	return 0
}

// Committed records that the leader of recovery f committed epoch, by
// the Raft entry at index.
func (w *Worker) Committed(f meta.Fence, epoch, index uint64) error {
	if err := w.checkFence(f); err != nil {
		return err
	}
	// Before the epoch: whoever sees it committed finds its index.
	for old := w.commitIndex.Load(); index > old && !w.commitIndex.CompareAndSwap(old, index); old = w.commitIndex.Load() {
	}
	w.mgr.SetCommitted(epoch)
	return nil
}

// placementNode returns the node of slot in nodes ("": this node).
func placementNode(nodes []string, slot int) string {
	if slot < len(nodes) {
		return nodes[slot]
	}
	return ""
}

// Reset readies the node for the recovery f from the committed epoch:
// every actor stops, the versions written after committed leave storage,
// and epochs resume after prev or after the last one injected here, which
// it returns. An older recovery's is refused. With restore, committed is
// the durable checkpoint that the catalog's restore goes back to, and the
// jobs' restarts then restore their state from shared storage.
func (w *Worker) Reset(f meta.Fence, committed, prev uint64, restore bool) (uint64, error) {
	w.mu.Lock()
	if f.Before(w.fence) {
		have := w.fence
		w.mu.Unlock()
		return 0, errStale(f, have)
	}
	if r := w.meta.Restore(); restore && (r == nil || r.Epoch != committed) {
		w.mu.Unlock()
		return 0, fmt.Errorf("recovery from durable checkpoint %d refused: this node's catalog records no such restore", committed)
	}
	if known := w.meta.CommittedEpoch(); committed < known && !restore {
		// A leader behind this node's catalog: rolling back to its epoch
		// would discard committed state. Its next recovery gets it right.
		w.mu.Unlock()
		return 0, fmt.Errorf("recovery from epoch %d refused: epoch %d is committed", committed, known)
	}
	w.fence = f
	// Not ready before the reset wakes the writers it rolls back: they
	// wait for the jobs' restart to write again.
	select {
	case <-w.ready:
		w.ready = make(chan struct{})
	default:
	}
	w.mu.Unlock()
	if restore {
		// Tables this node takes over go on after every id handed out.
		w.shared.rowIDs.advance(w.meta.Durable().RowIDs)
	}
	w.rt.Reset(committed, prev, f.String())
	w.transfer.forget()
	n, err := w.storage.Rollback(committed)
	if err != nil {
		return 0, fmt.Errorf("recovery: %w", err)
	}
	w.log.Info("recovery reset this node", "recovery", f.String(), "committed_epoch", committed, "removed_versions", n)
	return w.mgr.LastEpoch(), nil
}

// currentFence returns the recovery this node follows.
func (w *Worker) currentFence() meta.Fence {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fence
}

// Ready returns a channel closed once the controller has started this
// node's jobs after its latest recovery.
func (w *Worker) Ready() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ready
}
