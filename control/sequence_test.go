package control

import (
	"context"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
)

// openSeqMeta opens a catalog in dir holding sequence s (created when
// create is set).
func openSeqMeta(t *testing.T, dir string, create bool) (*meta.Meta, *meta.Table) {
	t.Helper()
	m, err := meta.Open(meta.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if create {
		seq, err := meta.NewSequence(meta.SeqOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.CreateTable(context.Background(), &meta.Table{Name: "s", Kind: meta.KindSequence, Sequence: seq}, false); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := m.Catalog().Table("", "s")
	return m, s
}

// TestSequencesNoRepeats hands out values from several "nodes" (each its
// own Sequences over one catalog) concurrently, restarts, and checks no
// value repeats, that a node's values come from its block in order, and
// that setval voids every block.
func TestSequencesNoRepeats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, s := openSeqMeta(t, dir, true)
	seen := map[int64]bool{}
	var mu sync.Mutex
	run := func(nodes, each int) {
		var wg sync.WaitGroup
		for range nodes {
			node := NewSequences(m)
			for range 4 {
				wg.Go(func() {
					prev := int64(0)
					for range each {
						v, err := node.NextVal(ctx, s.ID)
						if err != nil {
							t.Error(err)
							return
						}
						if v <= prev {
							t.Errorf("values out of order on one node: %d after %d", v, prev)
						}
						prev = v
						mu.Lock()
						if seen[v] {
							t.Errorf("value %d handed out twice", v)
						}
						seen[v] = true
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
	}
	run(3, 50)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, s = openSeqMeta(t, dir, false)
	defer m.Close()
	run(2, 50)
	if len(seen) != 5*4*50 {
		t.Fatalf("%d values, want %d", len(seen), 5*4*50)
	}

	a, b := NewSequences(m), NewSequences(m)
	if _, err := a.NextVal(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.SetVal(ctx, s.ID, 1000, true); err != nil {
		t.Fatal(err)
	}
	for _, n := range []*Sequences{a, b} {
		if v, err := n.NextVal(ctx, s.ID); err != nil || v <= 1000 {
			t.Fatalf("nextval after setval = %d, %v; want above 1000", v, err)
		}
	}
	if _, err := a.NextVal(ctx, 12345); pgerror.Code(err) != pgerror.CodeUndefinedTable {
		t.Fatalf("nextval of a missing sequence = %v", err)
	}
}

// TestSequenceRow checks SELECT * FROM s as one node sees it.
func TestSequenceRow(t *testing.T) {
	ctx := context.Background()
	m, s := openSeqMeta(t, t.TempDir(), true)
	defer m.Close()
	n := NewSequences(m)
	steps := []struct {
		do           func() error
		last, logCnt int64
		called       bool
	}{
		{func() error { return nil }, 1, 0, false},
		{func() error { _, err := n.NextVal(ctx, s.ID); return err }, 1, LogValues, true},
		{func() error { _, err := n.NextVal(ctx, s.ID); return err }, 2, LogValues - 1, true},
		{func() error { return n.SetVal(ctx, s.ID, 10, false) }, 10, 0, false},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatal(err)
		}
		last, logCnt, called, err := n.Row(s.ID)
		if err != nil || last != st.last || logCnt != st.logCnt || called != st.called {
			t.Fatalf("step %d: row = %d, %d, %v, %v; want %d, %d, %v", i, last, logCnt, called, err, st.last, st.logCnt, st.called)
		}
	}
}
