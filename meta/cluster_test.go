package meta

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// freeAddr returns a loopback address with a free port.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// testNode is one member of a test cluster: its configuration survives
// restarts.
type testNode struct {
	cfg Config
	m   *Meta
}

func startNode(t *testing.T, id string, join ...string) *testNode {
	t.Helper()
	n := &testNode{cfg: Config{Dir: t.TempDir(), NodeID: id, RaftAddr: freeAddr(t), Join: join, Logger: quiet}}
	n.start(t)
	return n
}

func (n *testNode) start(t *testing.T) {
	t.Helper()
	m, err := Open(n.cfg)
	if err != nil {
		t.Fatalf("start %s: %v", n.cfg.NodeID, err)
	}
	n.m = m
	t.Cleanup(func() { n.stop() })
}

func (n *testNode) stop() {
	if n.m != nil {
		n.m.Close()
		n.m = nil
	}
}

func (n *testNode) addr() string { return n.cfg.RaftAddr }

// roles returns each member's role as node n sees them.
func roles(n *testNode) map[string]string {
	out := map[string]string{}
	for _, mb := range n.m.Members() {
		out[mb.ID] = mb.Role
	}
	return out
}

// waitFor polls cond for up to 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClusterJoinAndForward starts a cluster of four: the first three join
// as voters, the fourth as a non-voter; a change made on any node is
// applied through the leader and visible on every node once the call
// returns there.
func TestClusterJoinAndForward(t *testing.T) {
	ctx := context.Background()
	n1 := startNode(t, "n1")
	n2 := startNode(t, "n2", n1.addr())
	n3 := startNode(t, "n3", n2.addr()) // through a follower
	n4 := startNode(t, "n4", n1.addr(), n3.addr())
	want := map[string]string{"n1": "leader", "n2": "voter", "n3": "voter", "n4": "non-voter"}
	for _, n := range []*testNode{n1, n2, n3, n4} {
		waitFor(t, n.cfg.NodeID+" to see every member's role", func() bool {
			got := roles(n)
			for id, r := range want {
				if got[id] != r {
					return false
				}
			}
			return len(got) == len(want)
		})
		if n.m.Catalog().ClusterID() != n1.m.Catalog().ClusterID() || n.m.Catalog().ClusterID() == "" {
			t.Fatalf("%s has cluster id %q, n1 %q", n.cfg.NodeID, n.m.Catalog().ClusterID(), n1.m.Catalog().ClusterID())
		}
	}
	// A follower and a non-voter create tables: the change is visible on
	// the node that made it when the call returns.
	for _, n := range []*testNode{n3, n4} {
		name := "t_" + n.cfg.NodeID
		created, err := n.m.CreateTable(ctx, tbl(name, KindTable), false)
		if err != nil {
			t.Fatalf("create on %s: %v", n.cfg.NodeID, err)
		}
		if got, ok := n.m.Catalog().Table("", name); !ok || got.ID != created.ID {
			t.Fatalf("%s does not see its own table: %v", n.cfg.NodeID, got)
		}
	}
	// After Sync, every node sees what any node acknowledged before
	// (linearizable reads), whoever made the change and wherever it is
	// read.
	nodes := []*testNode{n1, n2, n3, n4}
	for i := range 20 {
		name := "s" + string(rune('a'+i))
		if _, err := nodes[i%4].m.CreateTable(ctx, tbl(name, KindTable), false); err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if err := n.m.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if _, ok := n.m.Catalog().Table("", name); !ok {
				t.Fatalf("%s does not see %s after Sync", n.cfg.NodeID, name)
			}
		}
	}
	// FSM errors keep their SQLSTATE across the hop.
	if _, err := n2.m.CreateTable(ctx, tbl("t_n3", KindTable), false); pgerror.Code(err) != pgerror.CodeDuplicateTable {
		t.Fatalf("duplicate create on a follower = %v, want 42P07", err)
	}
	waitFor(t, "n1 to hear from every node", func() bool {
		for _, mb := range n1.m.Members() {
			if !mb.Up {
				return false
			}
		}
		return true
	})
}

// TestClusterJoinErrors checks the refusals a joining node gets.
func TestClusterJoinErrors(t *testing.T) {
	n1 := startNode(t, "n1")
	// Nobody answers.
	_, err := Open(Config{Dir: t.TempDir(), NodeID: "n9", RaftAddr: freeAddr(t), Join: []string{freeAddr(t)}, Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "no member of the cluster") {
		t.Fatalf("joining a dead address = %v", err)
	}
	// An id taken by another address.
	_, err = Open(Config{Dir: t.TempDir(), NodeID: "n1", RaftAddr: freeAddr(t), Join: []string{n1.addr()}, Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), `node id "n1" is already used`) {
		t.Fatalf("joining with a used id = %v", err)
	}
	// A data directory of another cluster.
	other := startNode(t, "x1")
	other.stop()
	other.cfg.Join = []string{n1.addr()}
	if _, err := Open(other.cfg); err == nil || !strings.Contains(err.Error(), "has the data of cluster") {
		t.Fatalf("joining with another cluster's data = %v", err)
	}
}

// TestClusterLeaderLossAndRejoin kills the leader of three voters: the
// others elect a new one and keep applying changes; the old leader
// restarts with its data directory, rejoins as itself and catches up.
func TestClusterLeaderLossAndRejoin(t *testing.T) {
	ctx := context.Background()
	n1 := startNode(t, "n1")
	n2 := startNode(t, "n2", n1.addr())
	n3 := startNode(t, "n3", n1.addr())
	waitFor(t, "three voters", func() bool { r := roles(n3); return r["n2"] == "voter" && r["n3"] == "voter" })
	n1.stop()
	waitFor(t, "a new leader", func() bool { r := roles(n2); return r["n2"] == "leader" || r["n3"] == "leader" })
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := n3.m.CreateTable(cctx, tbl("after_failover", KindTable), false); err != nil {
		t.Fatalf("create after the leader died: %v", err)
	}
	n1.start(t)
	waitFor(t, "n1 to catch up", func() bool { _, ok := n1.m.Catalog().Table("", "after_failover"); return ok })
	if _, err := n1.m.CreateTable(ctx, tbl("from_n1", KindTable), false); err != nil {
		t.Fatalf("create on the restarted node: %v", err)
	}
}

// TestClusterRemoveNode removes a voter: a non-voter takes its place.
func TestClusterRemoveNode(t *testing.T) {
	ctx := context.Background()
	n1 := startNode(t, "n1")
	n2 := startNode(t, "n2", n1.addr())
	n3 := startNode(t, "n3", n1.addr())
	n4 := startNode(t, "n4", n1.addr())
	waitFor(t, "n4 as a non-voter", func() bool { return roles(n1)["n4"] == "non-voter" })
	if err := n2.m.RemoveNode(ctx, "n3"); err != nil {
		t.Fatal(err)
	}
	n3.stop()
	waitFor(t, "n4 promoted and n3 gone", func() bool {
		r := roles(n4)
		_, has3 := r["n3"]
		return r["n4"] == "voter" && !has3
	})
	if err := n1.m.RemoveNode(ctx, "n9"); pgerror.Code(err) != pgerror.CodeUndefinedObject {
		t.Fatalf("removing an unknown node = %v, want 42704", err)
	}
}
