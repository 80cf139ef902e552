package meta

import (
	"cmp"
	"context"
	"slices"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/pgerror"
)

// SharedFile is one object of a durable checkpoint in shared storage: an
// SST of versions of one table's vnodes Lo..Hi (inclusive) that Node
// uploaded for the checkpoint of Epoch.
type SharedFile struct {
	Name  string `json:"name"`
	Node  string `json:"node"`
	Epoch uint64 `json:"epoch"`
	Table uint32 `json:"table"`
	Lo    uint16 `json:"lo"`
	Hi    uint16 `json:"hi"`
	Size  int64  `json:"size"`
}

// Durable is the cluster's last durable checkpoint (DESIGN.md §9): its
// epoch and the files that hold the state as of it in shared storage: a
// base (every node's state as of BaseEpoch) and the deltas of the
// checkpoints since, each the versions written after the one before.
type Durable struct {
	Epoch     uint64       `json:"epoch"`
	BaseEpoch uint64       `json:"base_epoch"`
	Files     []SharedFile `json:"files,omitempty"`
	// BaseBytes and DeltaBytes size the base and the deltas since: a new
	// base is due once the deltas outweigh it.
	BaseBytes  int64 `json:"base_bytes"`
	DeltaBytes int64 `json:"delta_bytes"`
	// At is when the checkpoint was recorded (Unix milliseconds).
	At int64 `json:"at"`
	// RowIDs is above every hidden row id any node had handed out when
	// it uploaded: a node that takes over tables continues after it.
	RowIDs int64 `json:"row_ids,omitempty"`
	// Restores are the latest restores from durable checkpoints (at most
	// maxRestores), oldest first.
	Restores []Restored `json:"restores,omitempty"`
}

// Restored is a restore from a durable checkpoint: the epochs (To, At]
// were committed and rolled back by it.
type Restored struct {
	To uint64 `json:"to"`
	At uint64 `json:"at"`
}

// maxRestores bounds Durable.Restores.
const maxRestores = 16

// RolledBack reports whether a restore rolled committed epoch back.
func (d *Durable) RolledBack(epoch uint64) bool {
	for _, r := range d.Restores {
		if r.To < epoch && epoch <= r.At {
			return true
		}
	}
	return false
}

// RestorePoint is a restore of every job from the durable checkpoint of
// Epoch, after node Node was lost for good: each recovery after Fence
// does it until one of them commits an epoch.
type RestorePoint struct {
	Epoch uint64 `json:"epoch"`
	Fence Fence  `json:"fence"`
	Node  string `json:"node"`
}

type durableCmd struct {
	// Prev is the checkpoint this one follows (0: none): a proposal made
	// against another is refused.
	Prev   uint64       `json:"prev"`
	Epoch  uint64       `json:"epoch"`
	Base   bool         `json:"base,omitempty"`
	Files  []SharedFile `json:"files,omitempty"`
	At     int64        `json:"at"`
	RowIDs int64        `json:"row_ids,omitempty"`
}

type forceRemoveCmd struct {
	ID string `json:"id"`
}

// Durable returns the last durable checkpoint, nil if there is none.
func (m *Meta) Durable() *Durable { return m.fsm.durable.Load() }

// Restore returns the restore the next recovery does, nil if none.
func (m *Meta) Restore() *RestorePoint { return m.fsm.restore.Load() }

// RecordDurable records, on the leader, the durable checkpoint of epoch
// following prev: with base, files replace every file before; else they
// add a delta; rowIDs is the nodes' highest hidden row id high-water
// mark. It returns the names of the files a base replaced (which
// the caller deletes from shared storage). It fails with 55000 if prev
// is no longer the last checkpoint or a restore is pending.
func (m *Meta) RecordDurable(ctx context.Context, prev, epoch uint64, base bool, files []SharedFile, at, rowIDs int64) ([]string, error) {
	data, err := encodeCommand(opDurable, durableCmd{Prev: prev, Epoch: epoch, Base: base, Files: files, At: at, RowIDs: rowIDs}, "")
	if err != nil {
		return nil, err
	}
	_, v, err := m.applyLocal(ctx, data)
	if err != nil {
		return nil, err
	}
	replaced, _ := v.([]string)
	return replaced, nil
}

// applyDurable applies a durable checkpoint's record.
func (f *fsm) applyDurable(p *durableCmd) ([]string, error) {
	cur := f.durable.Load()
	var curEpoch uint64
	if cur != nil {
		curEpoch = cur.Epoch
	}
	switch {
	case f.restore.Load() != nil:
		return nil, pgerror.New(pgerror.CodeObjectNotInState, "durable checkpoint of epoch %d refused: a restore from shared storage is pending", p.Epoch)
	case p.Prev != curEpoch || p.Epoch <= curEpoch:
		return nil, pgerror.New(pgerror.CodeObjectNotInState, "durable checkpoint of epoch %d after %d refused: the last one is of epoch %d", p.Epoch, p.Prev, curEpoch)
	case p.Epoch > f.committed.Load():
		return nil, pgerror.New(pgerror.CodeObjectNotInState, "durable checkpoint of epoch %d refused: epoch %d is the last committed", p.Epoch, f.committed.Load())
	case !p.Base && cur == nil:
		return nil, pgerror.New(pgerror.CodeObjectNotInState, "the first durable checkpoint must be a base")
	}
	var size int64
	for _, fl := range p.Files {
		size += fl.Size
	}
	d := &Durable{Epoch: p.Epoch, At: p.At, RowIDs: p.RowIDs}
	if cur != nil {
		d.Restores = cur.Restores
	}
	var replaced []string
	if p.Base {
		d.BaseEpoch, d.BaseBytes, d.Files = p.Epoch, size, p.Files
		if cur != nil {
			for _, fl := range cur.Files {
				replaced = append(replaced, fl.Name)
			}
		}
	} else {
		d.BaseEpoch, d.BaseBytes, d.DeltaBytes = cur.BaseEpoch, cur.BaseBytes, cur.DeltaBytes+size
		d.Files = append(slices.Clip(cur.Files), p.Files...)
	}
	f.durable.Store(d)
	return replaced, nil
}

// ForceRemoveNode removes node id, lost for good, from the cluster: from
// the catalog and the Raft group, its jobs' actor slots given to the
// other nodes (ReplaceNode), and every job restored from the last durable
// checkpoint by the next recovery. It fails with 55000 while there is no
// durable checkpoint.
func (m *Meta) ForceRemoveNode(ctx context.Context, id string) error {
	_, err := m.onLeader(ctx, func(ctx context.Context) (any, error) {
		return nil, m.removeNodeLocal(ctx, id, opForceRemove, forceRemoveCmd{ID: id})
	}, func(ctx context.Context, leader string) (any, error) {
		return cluster.Call[removeNodeResponse](ctx, m.client, leader, methodRemove, &removeNodeRequest{ID: id, Force: true})
	})
	return err
}

// forceRemove applies the removal of node id, lost for good.
func (f *fsm) forceRemove(cat *Catalog, id string) (*Catalog, error) {
	d := f.durable.Load()
	if d == nil {
		return nil, pgerror.New(pgerror.CodeObjectNotInState, "node %q cannot be replaced: there is no durable checkpoint in shared storage yet", id).
			WithHint("Start every node with --shared-storage and wait for the first durable checkpoint (SHOW DURABLE CHECKPOINT).")
	}
	cat, err := cat.removeNode(id)
	if err != nil {
		return nil, err
	}
	cat = cat.replaceNode(id)
	if r := f.restore.Load(); r == nil || r.Epoch != d.Epoch {
		f.restore.Store(&RestorePoint{Epoch: d.Epoch, Fence: f.fence, Node: id})
	}
	nd := *d
	nd.Restores = append(slices.Clip(d.Restores), Restored{To: d.Epoch, At: f.committed.Load()})
	nd.Restores = nd.Restores[max(0, len(nd.Restores)-maxRestores):]
	f.durable.Store(&nd)
	return cat, nil
}

// replaceNode gives the actor slots on node dead (removed from c) of
// every job to the other nodes, each to the node with the fewest slots
// per core so far, and stops the jobs' rescales that used it.
func (c *Catalog) replaceNode(dead string) *Catalog {
	nodes := c.Nodes()
	if len(nodes) == 0 {
		return c
	}
	load := map[string]int{}
	for _, t := range c.ordered {
		for _, n := range t.Placement {
			load[n]++
		}
	}
	nc := c.clone()
	if nc.origin == dead {
		nc.origin = nodes[0].ID
	}
	tables := slices.Clone(c.ordered)
	slices.SortFunc(tables, func(a, b *Table) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range tables {
		if t.Kind != KindTable && t.Kind != KindSource && t.Kind != KindMaterializedView {
			continue
		}
		placement := t.Placement
		if len(placement) == 0 && c.origin == dead {
			// Recorded without a placement: every slot at the origin.
			placement = make([]string, max(Slots(t.Assignment), t.Parallelism, 1))
			for i := range placement {
				placement[i] = dead
			}
		}
		usesDead := slices.Contains(placement, dead) || t.Rescale != nil && slices.Contains(t.Rescale.Placement, dead)
		if !usesDead {
			continue
		}
		nt := *t
		nt.Placement = slices.Clone(placement)
		for i, n := range nt.Placement {
			if n == dead {
				nt.Placement[i] = PickLeastLoaded(nodes, load)
			}
		}
		nt.Rescale = nil
		nc.put(&nt)
	}
	return nc.seal()
}

// PickLeastLoaded returns the first of nodes (not empty) with the fewest
// load per core, and counts one more on it: where the next actor slot
// goes.
func PickLeastLoaded(nodes []*Node, load map[string]int) string {
	best := nodes[0]
	for _, n := range nodes[1:] {
		// load/cores compared without division.
		if load[n.ID]*max(best.Cores, 1) < load[best.ID]*max(n.Cores, 1) {
			best = n
		}
	}
	load[best.ID]++
	return best.ID
}
