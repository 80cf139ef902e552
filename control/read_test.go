package control

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// startReader starts node id of an in-process cluster (a new one without
// join) with its store and reader, serving other nodes' reads and pulls
// of its state (Transfer).
func startReader(t *testing.T, id string, join ...string) *Reader {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	mux, err := cluster.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, client := cluster.NewServer(), cluster.NewClient(mux.Dialer())
	m, err := meta.Open(meta.Config{Dir: t.TempDir(), NodeID: id, Mux: mux, Server: srv, Client: client, Join: join, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(t.TempDir(), storage.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(id, m, st)
	srv.Register(r.service())
	store := dataflow.NewStore(st)
	rt := dataflow.NewRuntime(context.Background(), store, dataflow.NewBarrierManager(store, 0, dataflow.Hooks{}), rowkey.VNodes, quiet)
	srv.Register(NewTransfer(context.Background(), func(fn func()) { go fn() }, id, m, st, rt, r, quiet).service())
	go func() { _ = srv.Serve(mux) }()
	t.Cleanup(func() {
		srv.Stop()
		m.Close()
		st.Close()
		client.Close()
		mux.Close()
	})
	return r
}

// TestReaderPushdown reads a table whose rows two nodes hold (a table fed
// by a connector, its splits on both), from each node, through a filter
// and a projection: with the pushdown the rows are the same and far fewer
// bytes cross.
func TestReaderPushdown(t *testing.T) {
	n1 := startReader(t, "n1")
	n2 := startReader(t, "n2", n1.meta.RaftAddr())
	ctx := context.Background()
	ts := []types.T{types.TInt4, types.TText}
	tbl := createOnBoth(t, n1, n2, &meta.Table{Name: "t", Kind: meta.KindTable, PK: []int{0}, Placement: []string{"n1", "n2"},
		Options: map[string]string{meta.ConnectorOption: "datagen"},
		Columns: []meta.Column{{Name: "a", Type: ts[0]}, {Name: "b", Type: ts[1]}}})
	// Even rows on n1, odd ones on n2; b pads them.
	batches := []*storage.Batch{n1.local.NewBatch(), n2.local.NewBatch()}
	for i := range 2000 {
		row := []types.Datum{types.NewInt(int64(i)), types.NewString(fmt.Sprintf("%0100d", i))}
		key := types.AppendKey(nil, row[0], false)
		batches[i%2].Put(storage.AppendKey(nil, tbl.ID, uint16(i%7), key), 1, types.AppendRow(nil, row))
	}
	for _, b := range batches {
		if err := b.Commit(false); err != nil {
			t.Fatal(err)
		}
	}
	// SELECT a FROM t WHERE a % 100 <= 1
	mod, _ := expr.NewBinary("%", &expr.ColRef{Idx: 0, T: ts[0]}, expr.NewConst(types.NewInt(100), types.TInt4))
	cond, _ := expr.NewBinary("<=", mod, expr.NewConst(types.NewInt(1), types.TInt4))
	scan := &exec.TableScan{TableID: tbl.ID, Types: ts, Conds: []expr.Expr{cond}, Needed: []bool{true, false}}
	op := &exec.Project{Input: &exec.Filter{Input: scan, Cond: cond}, Exprs: []expr.Expr{&expr.ColRef{Idx: 0, T: ts[0]}}}
	for _, r := range []*Reader{n1, n2} {
		read := func(noPushdown bool) ([]string, int64) {
			before := r.Stats().Bytes
			env := &exec.Env{Engine: r, Epoch: 1, NoPushdown: noPushdown}
			rows, err := exec.Collect(expr.NewCtx(exec.WithEnv(ctx, env), nil), op)
			if err != nil {
				t.Fatalf("read from %s: %v", r.self, err)
			}
			out := make([]string, len(rows))
			for i, row := range rows {
				out[i] = fmt.Sprint(row)
			}
			slices.Sort(out)
			return out, r.Stats().Bytes - before
		}
		want, whole := read(true)
		got, pushed := read(false)
		if len(want) != 40 || !slices.Equal(got, want) {
			t.Errorf("read from %s: %d rows %v, want %v", r.self, len(got), got, want)
		}
		if pushed*20 > whole {
			t.Errorf("read from %s: %d bytes received with the pushdown, %d without", r.self, pushed, whole)
		}
		t.Logf("read from %s: %d bytes received with the pushdown, %d without", r.self, pushed, whole)
	}
}

// TestReaderReadsWholeTablesAtSlotZero reads a table fed by DML from
// both nodes of its placement while the second holds a stray copy of its
// rows (what a move of the table's writer leaves behind until the next
// restart drops it): only the writer's node, slot 0's, is read, so no row
// comes twice.
func TestReaderReadsWholeTablesAtSlotZero(t *testing.T) {
	n1 := startReader(t, "n1")
	n2 := startReader(t, "n2", n1.meta.RaftAddr())
	ctx := context.Background()
	ts := []types.T{types.TInt4}
	tbl := createOnBoth(t, n1, n2, &meta.Table{Name: "w", Kind: meta.KindTable, PK: []int{0}, Placement: []string{"n1", "n2"},
		Columns: []meta.Column{{Name: "a", Type: ts[0]}}})
	for _, r := range []*Reader{n1, n2} {
		b := r.local.NewBatch()
		for i := range 10 {
			row := []types.Datum{types.NewInt(int64(i))}
			b.Put(storage.AppendKey(nil, tbl.ID, uint16(i%7), types.AppendKey(nil, row[0], false)), 1, types.AppendRow(nil, row))
		}
		if err := b.Commit(false); err != nil {
			t.Fatal(err)
		}
	}
	scan := &exec.TableScan{TableID: tbl.ID, Types: ts, Needed: []bool{true}}
	for _, r := range []*Reader{n1, n2} {
		rows, err := exec.Collect(expr.NewCtx(exec.WithEnv(ctx, &exec.Env{Engine: r, Epoch: 1}), nil), scan)
		if err != nil || len(rows) != 10 {
			t.Fatalf("read from %s: %d rows (%v), want the writer's 10", r.self, len(rows), err)
		}
	}
}

// createOnBoth creates def through n1's catalog and returns it once n2's
// catalog has it too.
func createOnBoth(t *testing.T, n1, n2 *Reader, def *meta.Table) *meta.Table {
	t.Helper()
	tbl, err := n1.meta.CreateTable(context.Background(), def, false)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := n2.meta.Catalog().TableByID(tbl.ID); ok {
			return tbl
		}
		if time.Now().After(deadline) {
			t.Fatal("the table has not reached n2")
		}
	}
}
