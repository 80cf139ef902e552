package dataflow

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// memNet connects the transports of in-process test nodes: a frame sent
// is delivered at once by the sender's goroutine (so a slow receiver
// holds the sender back, as flow control does).
type memNet struct {
	mu        sync.Mutex
	cond      *sync.Cond
	listeners map[string]func(context.Context, []byte) error // node|key
}

func newMemNet() *memNet {
	n := &memNet{listeners: map[string]func(context.Context, []byte) error{}}
	n.cond = sync.NewCond(&n.mu)
	return n
}

type memTransport struct {
	net  *memNet
	node string
}

func (t memTransport) Open(ctx context.Context, node, key string) (FrameSender, error) {
	return &memSender{net: t.net, id: node + "|" + key, ctx: ctx}, nil
}

func (t memTransport) Listen(key string, deliver func(context.Context, []byte) error) func() {
	id := t.node + "|" + key
	t.net.mu.Lock()
	t.net.listeners[id] = deliver
	t.net.cond.Broadcast()
	t.net.mu.Unlock()
	return func() {
		t.net.mu.Lock()
		delete(t.net.listeners, id)
		t.net.mu.Unlock()
	}
}

type memSender struct {
	net  *memNet
	id   string
	ctx  context.Context
	done bool
}

func (s *memSender) Send(frame []byte) error {
	if s.done {
		return io.ErrClosedPipe
	}
	s.net.mu.Lock()
	deliver := s.net.listeners[s.id]
	for deliver == nil {
		s.net.cond.Wait()
		deliver = s.net.listeners[s.id]
	}
	s.net.mu.Unlock()
	err := deliver(s.ctx, slices.Clone(frame))
	if err == ErrLastFrame {
		s.done = true
		return nil
	}
	return err
}

func (s *memSender) Close() error { return nil }

// clusterReader reads every test node's store, as a cluster's reader
// reads every node holding part of a relation.
type clusterReader struct{ stores *[]*storage.Engine }

func (r clusterReader) Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	for _, st := range *r.stores {
		if err := st.Scan(lower, upper, epoch, fn); err != nil {
			return err
		}
	}
	return nil
}

func (r clusterReader) Get(key []byte, epoch uint64) ([]byte, bool, error) {
	for _, st := range *r.stores {
		if v, ok, err := st.Get(key, epoch); ok || err != nil {
			return v, ok, err
		}
	}
	return nil, false, nil
}

func (r clusterReader) TableDiskUsage(uint32) (uint64, error) { return 0, nil }

// testNode is one node of an in-process cluster.
type testNode struct {
	id    string
	store *Store
	mgr   *BarrierManager
	rt    *Runtime
}

// testCluster drives the epochs of its nodes as the controller does: one
// tick at a time on every node, committed once every node sealed it.
type testCluster struct {
	t     *testing.T
	ctx   context.Context
	nodes []*testNode
	mu    sync.Mutex
	epoch uint64
	seals map[uint64]int
}

func newTestCluster(t *testing.T, ids ...string) *testCluster {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &testCluster{t: t, ctx: ctx, seals: map[uint64]int{}}
	net := newMemNet()
	var stores []*storage.Engine
	for _, id := range ids {
		st, err := storage.Open(t.TempDir(), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
		n := &testNode{id: id, store: NewStore(st)}
		n.mgr = NewBarrierManager(n.store, 0, Hooks{Sealed: c.sealed, Request: func() {}})
		n.rt = NewRuntime(ctx, n.store, n.mgr, 16, slog.New(slog.DiscardHandler))
		n.rt.SetCluster(id, memTransport{net: net, node: id}, clusterReader{&stores})
		go n.mgr.Run(ctx)
		c.nodes = append(c.nodes, n)
	}
	return c
}

// sealed commits an epoch on every node once every node sealed it.
func (c *testCluster) sealed(epoch uint64, _ bool) {
	c.mu.Lock()
	c.seals[epoch]++
	all := c.seals[epoch] == len(c.nodes)
	c.mu.Unlock()
	if all {
		for _, n := range c.nodes {
			n.mgr.SetCommitted(epoch)
		}
	}
}

// tick runs fn with the next tick on every node, then waits until the
// epoch is committed everywhere.
func (c *testCluster) tick(fn func(n *testNode, t Tick) error) uint64 {
	c.t.Helper()
	c.epoch++
	t := Tick{Epoch: c.epoch, Time: time.Now().UnixMicro()}
	for _, n := range c.nodes {
		if err := fn(n, t); err != nil {
			c.t.Fatalf("node %s, epoch %d: %v", n.id, t.Epoch, err)
		}
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	for _, n := range c.nodes {
		if err := n.mgr.WaitCommitted(ctx, t.Epoch); err != nil {
			c.t.Fatalf("epoch %d not committed on %s: %v", t.Epoch, n.id, err)
		}
	}
	return t.Epoch
}

func (c *testCluster) barrier() uint64 {
	return c.tick(func(n *testNode, t Tick) error { return n.rt.Inject(c.ctx, t) })
}

// twoTables starts tables l (id 1001) and r (1002) with rows of types ts,
// written on nodes a and b, and returns them.
func (c *testCluster) twoTables(ts []types.T) (left, right *TableRef) {
	c.t.Helper()
	left = &TableRef{ID: 1001, Name: "l", Types: ts, PK: []int{0}}
	right = &TableRef{ID: 1002, Name: "r", Types: ts, PK: []int{0}}
	for _, n := range c.nodes {
		if err := n.rt.StartTable(left, "a"); err != nil {
			c.t.Fatal(err)
		}
		if err := n.rt.StartTable(right, "b"); err != nil {
			c.t.Fatal(err)
		}
	}
	c.barrier()
	return left, right
}

// joinView returns the graph of view id, the inner join on their first
// columns of tables left and right (twoTables) in 16 vnodes, its join
// state in tables 2001 and 2002.
func joinView(view uint32, left, right *TableRef, ts []types.T) *GraphSpec {
	out := []types.T{types.TInt8, types.TText, types.TInt8, types.TText}
	return &GraphSpec{VNodeCount: 16, Fragments: []*FragmentSpec{{
		ID: 0,
		Inputs: []InputSpec{{Fragment: -1, Table: left, Dist: DistHash, Keys: []int{0}},
			{Fragment: -1, Table: right, Dist: DistHash, Keys: []int{0}}},
		Chain: []Spec{&HashJoinSpec{Kind: 0, LeftKey: []int{0}, RightKey: []int{0}, LeftTypes: ts, RightTypes: ts,
			LeftStreamKey: []int{0}, RightStreamKey: []int{0}, LeftTable: 2001, RightTable: 2002},
			&MaterializeSpec{TableID: view, PK: []int{0}, Types: out}},
		OutTypes: out,
	}}}
}

// keys returns the live keys of table id in a node's storage at epoch.
func (n *testNode) keys(t *testing.T, id uint32, epoch uint64) int {
	t.Helper()
	count := 0
	prefix := storage.TablePrefix(id)
	upper := storage.TablePrefix(id + 1)
	err := n.store.Engine().Scan(prefix, upper, epoch, func(_, _ []byte) error { count++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return count
}

// TestRemoteExchange runs a table on node a and a view of it at
// parallelism 2 placed on nodes a and b: rows reach the actor of their
// vnode on either node, barriers align across nodes, and a stopped job's
// queues between nodes end.
func TestRemoteExchange(t *testing.T) {
	c := newTestCluster(t, "a", "b")
	const table, view = 1001, 1002
	ts := []types.T{types.TInt8, types.TText}
	ref := &TableRef{ID: table, Name: "t", Types: ts, PK: []int{0}}
	for _, n := range c.nodes {
		if err := n.rt.StartTable(ref, "a"); err != nil {
			t.Fatal(err)
		}
	}
	c.barrier()
	g := &GraphSpec{VNodeCount: 16, Fragments: []*FragmentSpec{{
		ID:       0,
		Inputs:   []InputSpec{{Fragment: -1, Table: ref, Dist: DistHash, Keys: []int{0}}},
		Chain:    []Spec{&MaterializeSpec{TableID: view, PK: []int{0}, Types: ts}},
		OutTypes: ts,
	}}}
	owner := Contiguous(16, 2)
	nodes := Placement{"a", "b"}
	c.tick(func(n *testNode, tk Tick) error {
		_, err := n.rt.StartJob(c.ctx, tk, view, g, owner, nodes, true)
		return err
	})
	a := c.nodes[0]
	const rows = 200
	chunk := &Chunk{}
	for i := range rows {
		chunk.Append(Insert, []types.Datum{types.NewInt(int64(i)), types.NewString(fmt.Sprint("r", i))})
	}
	if _, err := a.mgr.Send(c.ctx, table, chunk, nil); err != nil {
		t.Fatal(err)
	}
	epoch := c.barrier()
	onA, onB := c.nodes[0].keys(t, view, epoch), c.nodes[1].keys(t, view, epoch)
	if onA+onB != rows || onA == 0 || onB == 0 {
		t.Fatalf("view rows: %d on a, %d on b; want %d spread over both", onA, onB, rows)
	}
	// Deletes reach the owners too.
	del := &Chunk{}
	for i := range rows / 2 {
		del.Append(Delete, chunk.Rows[i])
	}
	if _, err := a.mgr.Send(c.ctx, table, del, nil); err != nil {
		t.Fatal(err)
	}
	epoch = c.barrier()
	if got := c.nodes[0].keys(t, view, epoch) + c.nodes[1].keys(t, view, epoch); got != rows/2 {
		t.Fatalf("after deletes the view has %d rows, want %d", got, rows/2)
	}
	c.tick(func(n *testNode, tk Tick) error { return n.rt.StopJob(c.ctx, tk, view) })
	// The table goes on without its consumer.
	if _, err := a.mgr.Send(c.ctx, table, chunk, nil); err != nil {
		t.Fatal(err)
	}
	c.barrier()
}

// TestRemoteJoinBackfill joins two tables placed on different nodes in a
// view whose actors are on both, created with a backfill of rows already
// there.
func TestRemoteJoinBackfill(t *testing.T) {
	c := newTestCluster(t, "a", "b")
	ts := []types.T{types.TInt8, types.TText}
	left, right := c.twoTables(ts)
	rows := &Chunk{}
	for i := range 100 {
		rows.Append(Insert, []types.Datum{types.NewInt(int64(i)), types.NewString(fmt.Sprint("x", i))})
	}
	if _, err := c.nodes[0].mgr.Send(c.ctx, left.ID, rows, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.nodes[1].mgr.Send(c.ctx, right.ID, rows, nil); err != nil {
		t.Fatal(err)
	}
	c.barrier()
	const view = 1003
	g := joinView(view, left, right, ts)
	created := make([]<-chan struct{}, len(c.nodes))
	c.tick(func(n *testNode, tk Tick) error {
		ch, err := n.rt.StartJob(c.ctx, tk, view, g, Contiguous(16, 4), Placement{"a", "b", "a", "b"}, true)
		created[slices.Index(c.nodes, n)] = ch
		return err
	})
	for range 20 {
		c.barrier()
	}
	for i, ch := range created {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("node %s did not finish creating the view", c.nodes[i].id)
		}
	}
	epoch := c.barrier()
	if got := c.nodes[0].keys(t, view, epoch) + c.nodes[1].keys(t, view, epoch); got != 100 {
		t.Fatalf("the join view has %d rows, want 100", got)
	}
}
