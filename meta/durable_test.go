package meta

import (
	"slices"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/pgerror"
)

// applyTerm runs one command through the FSM as Raft would in term.
func applyTerm(t *testing.T, f *fsm, term uint64, o op, payload any) (any, error) {
	t.Helper()
	data, err := encodeCommand(o, payload, "")
	if err != nil {
		t.Fatal(err)
	}
	r := f.Apply(&raft.Log{Data: data, Term: term}).(result)
	return r.value, r.err
}

func files(names ...string) []SharedFile {
	var out []SharedFile
	for _, n := range names {
		out = append(out, SharedFile{Name: n, Size: 100})
	}
	return out
}

// TestDurableCheckpoints records durable checkpoints (a base, a delta, a
// new base replacing both), refusing one that follows another than the
// last or is not committed yet; then removes a node lost for good: its
// actor slots go to the others, a restore to the last durable checkpoint
// is pending (durable checkpoints refused meanwhile) until an epoch of a
// later recovery commits, and a write of a rolled-back epoch is known as
// such; all of it survives a snapshot.
func TestDurableCheckpoints(t *testing.T) {
	f := newFSM(quiet)
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	refused := func(what string) func(any, error) {
		return func(_ any, err error) {
			t.Helper()
			if pgerror.Code(err) != pgerror.CodeObjectNotInState {
				t.Fatalf("%s: %v, want 55000", what, err)
			}
		}
	}
	commit := func(fence Fence, epoch uint64) {
		t.Helper()
		must(applyTerm(t, f, fence.Term, opCommitEpoch, commitEpochCmd{Fence: fence, Epoch: epoch}))
	}
	must(applyCmd(t, f, opInitCluster, initClusterCmd{ClusterID: "c", Origin: "n1"}))
	for _, n := range []string{"n1", "n2", "n3"} {
		must(applyCmd(t, f, opPutNode, putNodeCmd{Node: &Node{ID: n, Cores: 2}}))
	}
	for i, name := range []string{"v1", "v2"} {
		tb := tbl(name, KindMaterializedView)
		tb.Placement = []string{"n1", "n2", "n3", []string{"n3", "n1"}[i]}
		must(applyCmd(t, f, opCreateTable, createTableCmd{Table: tb}))
	}
	refused("before any commit")(applyCmd(t, f, opDurable, durableCmd{Epoch: 5, Base: true, Files: files("a")}))
	commit(Fence{}, 5)
	refused("a delta first")(applyCmd(t, f, opDurable, durableCmd{Epoch: 5, Files: files("a")}))
	refused("no checkpoint to remove a node from")(applyCmd(t, f, opForceRemove, forceRemoveCmd{ID: "n3"}))
	must(applyCmd(t, f, opDurable, durableCmd{Epoch: 5, Base: true, Files: files("a", "b"), RowIDs: 7}))
	refused("the same again")(applyCmd(t, f, opDurable, durableCmd{Epoch: 5, Base: true, Files: files("a", "b")}))
	commit(Fence{}, 6)
	refused("after another than the last")(applyCmd(t, f, opDurable, durableCmd{Prev: 4, Epoch: 6, Files: files("c")}))
	must(applyCmd(t, f, opDurable, durableCmd{Prev: 5, Epoch: 6, Files: files("c"), RowIDs: 9}))
	if d := f.durable.Load(); d.Epoch != 6 || d.BaseEpoch != 5 || d.BaseBytes != 200 || d.DeltaBytes != 100 || len(d.Files) != 3 || d.RowIDs != 9 {
		t.Fatalf("after a delta: %+v", d)
	}
	commit(Fence{}, 7)
	replaced := must(applyCmd(t, f, opDurable, durableCmd{Prev: 6, Epoch: 7, Base: true, Files: files("d")}))
	if !slices.Equal(replaced.([]string), []string{"a", "b", "c"}) {
		t.Fatalf("a new base replaced %v, want a, b, c", replaced)
	}

	commit(Fence{}, 9)
	must(applyCmd(t, f, opForceRemove, forceRemoveCmd{ID: "n3"}))
	cat := f.catalog.Load()
	if _, ok := cat.Node("n3"); ok {
		t.Fatal("n3 still in the catalog")
	}
	load := map[string]int{}
	for _, name := range []string{"v1", "v2"} {
		tb, _ := cat.Table("", name)
		if slices.Contains(tb.Placement, "n3") || len(tb.Placement) != 4 {
			t.Fatalf("%s placed on %v after n3's removal", name, tb.Placement)
		}
		for _, n := range tb.Placement {
			load[n]++
		}
	}
	if load["n1"] != 4 || load["n2"] != 4 {
		t.Fatalf("slots per node after n3's removal: %v, want 4 and 4", load)
	}
	r := f.restore.Load()
	if r == nil || r.Epoch != 7 || r.Node != "n3" {
		t.Fatalf("restore after the removal: %+v", r)
	}
	d := f.durable.Load()
	if !d.RolledBack(8) || !d.RolledBack(9) || d.RolledBack(7) || d.RolledBack(10) {
		t.Fatalf("restores %+v: epochs 8 and 9 (committed after checkpoint 7) are rolled back, 7 and 10 not", d.Restores)
	}
	commit(Fence{}, 10) // the former recovery's commit does not end the restore
	refused("during a restore")(applyCmd(t, f, opDurable, durableCmd{Prev: 7, Epoch: 10, Files: files("e")}))
	g := restored(t, f)
	if g.restore.Load() == nil || g.durable.Load().Epoch != 7 || len(g.durable.Load().Restores) != 1 {
		t.Fatalf("a snapshot lost the restore or the durable checkpoint: %+v %+v", g.restore.Load(), g.durable.Load())
	}
	next := Fence{Term: 1, Gen: 1}
	must(applyTerm(t, f, 1, opBeginRecovery, beginRecoveryCmd{Fence: next}))
	commit(next, 11)
	if f.restore.Load() != nil {
		t.Fatal("the restore is still pending after the next recovery committed an epoch")
	}
	must(applyCmd(t, f, opDurable, durableCmd{Prev: 7, Epoch: 11, Files: files("e")}))
}
