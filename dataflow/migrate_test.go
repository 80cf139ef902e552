package dataflow

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// memMigrator moves vnodes between the stores of a test cluster's nodes
// as the control plane does: it waits until the old owner wrote the
// switch's epoch, then copies the moved vnodes' ranges whole. It records
// whether a copy finished before the switch's epoch committed here.
type memMigrator struct {
	c    *testCluster
	self *testNode
	mu   sync.Mutex
	// moved counts the vnodes copied; late the copies that found their
	// epoch committed already.
	moved, late int
	// hot are the hot groups the old owners sent.
	hot []HotGroup
}

func (m *memMigrator) Fetch(ctx context.Context, mg Migration) ([]HotGroup, error) {
	var from *testNode
	for _, n := range m.c.nodes {
		if n.id == mg.From {
			from = n
		}
	}
	if err := from.rt.WaitReleased(ctx, mg.Job, mg.Epoch); err != nil {
		return nil, err
	}
	for _, table := range mg.Tables {
		for _, v := range mg.VNodes {
			r := storage.VNodeRange{Table: table, Lo: uint16(v), Hi: uint16(v + 1)}
			var ssts [][]byte
			if err := from.store.Engine().ExportVNodes(r, 0, mg.Epoch, 1<<20, func(sst []byte) error {
				ssts = append(ssts, slices.Clone(sst))
				return nil
			}); err != nil {
				return nil, err
			}
			if err := m.self.store.Engine().ExciseVNodes(ctx, r); err != nil {
				return nil, err
			}
			if err := m.self.store.Engine().IngestVNodes(ctx, ssts); err != nil {
				return nil, err
			}
		}
	}
	hot := from.rt.HotGroups(mg.Job, mg.Epoch, mg.VNodes, 1<<20)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.moved += len(mg.VNodes)
	m.hot = append(m.hot, hot...)
	if m.self.mgr.Committed() >= mg.Epoch {
		m.late++
	}
	return hot, nil
}

// TestRemoteReassign moves every vnode of a join view to a new actor on
// node b while its tables' rows go on changing: the vnodes node a owned
// travel with their state (both join sides and the view's rows), those b
// owned are handed over in place, the switch's epoch commits only once
// the copy has landed with the groups a had cached, and the view then
// has exactly the join's rows.
func TestRemoteReassign(t *testing.T) {
	c := newTestCluster(t, "a", "b")
	migrators := map[string]*memMigrator{}
	for _, n := range c.nodes {
		migrators[n.id] = &memMigrator{c: c, self: n}
		n.rt.SetMigrator(migrators[n.id])
	}
	ts := []types.T{types.TInt8, types.TText}
	left, right := c.twoTables(ts)
	send := func(node int, table uint32, op Op, lo, hi int) {
		t.Helper()
		ch := &Chunk{}
		for i := lo; i < hi; i++ {
			ch.Append(op, []types.Datum{types.NewInt(int64(i)), types.NewString(fmt.Sprint("x", i))})
		}
		if _, err := c.nodes[node].mgr.Send(c.ctx, table, ch, nil); err != nil {
			t.Fatal(err)
		}
	}
	const view = 1003
	g := joinView(view, left, right, ts)
	c.tick(func(n *testNode, tk Tick) error {
		_, err := n.rt.StartJob(c.ctx, tk, view, g, Contiguous(16, 2), Placement{"a", "b"}, false)
		return err
	})
	// Rows before, at and after the switch: deletes need the moved state.
	send(0, left.ID, Insert, 0, 100)
	send(1, right.ID, Insert, 0, 100)
	c.barrier()
	send(0, left.ID, Insert, 100, 150)
	c.barrier()
	send(0, left.ID, Delete, 0, 50)
	owner := make([]int, 16)
	for v := range owner {
		owner[v] = 2
	}
	switched := c.tick(func(n *testNode, tk Tick) error {
		_, err := n.rt.Reassign(c.ctx, tk, view, owner, Placement{"a", "b", "b"}, ReassignOptions{})
		return err
	})
	send(1, right.ID, Insert, 100, 150)
	send(0, left.ID, Delete, 140, 150)
	epoch := c.barrier()
	b := migrators["b"]
	if b.moved != 8 || b.late != 0 || migrators["a"].moved != 0 {
		t.Fatalf("b copied %d vnodes (%d after the switch's epoch %d committed), a %d; want the 8 a owned, before the commit", b.moved, b.late, switched, migrators["a"].moved)
	}
	// a's cached groups of the moved vnodes came along, and only those.
	if len(b.hot) == 0 {
		t.Fatal("no hot groups came with the moved vnodes")
	}
	for _, h := range b.hot {
		if h.VNode >= 8 {
			t.Fatalf("hot group %+v is of a vnode a did not own", h)
		}
	}
	// Every row of the view is on b now; a keeps its copy until the
	// control plane drops it.
	if got := c.nodes[1].keys(t, view, epoch); got != 90 {
		t.Fatalf("the join view on b has %d rows, want 90", got)
	}
	for _, n := range c.nodes {
		nodes, partitioned, err := n.rt.TableOwners(view, epoch)
		if err != nil || !partitioned || nodes[0] != "b" || nodes[15] != "b" {
			t.Fatalf("owners of the view at epoch %d as %s knows them: %v %v %v", epoch, n.id, nodes, partitioned, err)
		}
		if nodes, _, _ := n.rt.TableOwners(2001, switched-1); nodes[0] != "a" || nodes[15] != "b" {
			t.Fatalf("owners of the left side before the switch as %s knows them: %v", n.id, nodes)
		}
	}
}
