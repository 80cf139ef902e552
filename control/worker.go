package control

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

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
	builder Builder
	meta    *meta.Meta
	log     *slog.Logger
	// up is told that the node's jobs were created (backfills done).
	up upstream

	mu sync.Mutex
	// ready is closed once the controller has started this node's jobs
	// after a recovery.
	ready chan struct{}
	// cacheBytes reports, per job, the cached state its last
	// reassignment moved on this node.
	cacheBytes map[uint32]func() int64
}

// upstream is the controller as a worker reports to it.
type upstream interface {
	// created reports that node finished creating job (its backfills).
	created(ctx context.Context, node string, job uint32)
}

// Apply applies one barrier and its change on this node.
func (w *Worker) Apply(ctx context.Context, tick dataflow.Tick, ch *Change) error {
	switch ch.Kind {
	case changeNone:
		return w.rt.Inject(ctx, tick)
	case changeStartTable:
		ref, err := w.builder.TableRef(ch.Def)
		if err != nil {
			return err
		}
		if err := w.rt.StartTable(ref, placementNode(ch.Nodes, 0)); err != nil {
			return err
		}
		return w.rt.Inject(ctx, tick)
	case changeStartJob:
		g, err := w.builder.Graph(ch.Def)
		if err != nil {
			return err
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
		if err := w.rt.StopJob(ctx, tick, ch.Job); err != nil {
			return err
		}
		if len(ch.Drop) > 0 {
			go w.drop(tick.Epoch, ch.Drop)
		}
		return nil
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

// drop deletes the state of a dropped job's tables once the epoch that
// stopped it is committed (no actor writes them any more).
func (w *Worker) drop(epoch uint64, ids []uint32) {
	if err := w.mgr.WaitCommitted(context.Background(), epoch); err != nil {
		return
	}
	for _, id := range ids {
		if err := w.storage.DropTable(id); err != nil {
			w.log.Error("deleting a dropped relation's state failed", "table", id, "err", err)
		}
	}
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

// placementNode returns the node of slot in nodes ("": this node).
func placementNode(nodes []string, slot int) string {
	if slot < len(nodes) {
		return nodes[slot]
	}
	return ""
}

// Reset readies the node for a recovery from the committed epoch: every
// actor stops, the versions written after committed leave storage, and
// epochs resume after prev.
func (w *Worker) Reset(committed, prev uint64) error {
	w.rt.Reset(committed, prev)
	n, err := w.storage.Rollback(committed)
	if err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	if n > 0 {
		w.log.Info("recovery removed uncommitted state", "versions", n, "committed_epoch", committed)
	}
	w.mu.Lock()
	select {
	case <-w.ready:
		w.ready = make(chan struct{})
	default:
	}
	w.mu.Unlock()
	return nil
}

// Ready returns a channel closed once the controller has started this
// node's jobs after its latest recovery.
func (w *Worker) Ready() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ready
}
