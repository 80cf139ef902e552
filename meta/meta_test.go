package meta

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/meta/raftstore"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func openMeta(t *testing.T, cfg Config) *Meta {
	t.Helper()
	cfg.Logger = quiet
	m, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func createTables(t *testing.T, m *Meta, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := m.CreateTable(context.Background(), tbl(n, KindTable), false); err != nil {
			t.Fatal(err)
		}
	}
}

func tableNames(m *Meta) []string { return names(m.Catalog().Tables()) }

func TestMetaPersists(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Dir: t.TempDir()}
	m := openMeta(t, cfg)
	createTables(t, m, "b", "a")
	if err := m.CreateIndex(ctx, "", "a", Index{Name: "a_i", Columns: []string{"b"}}, false); err != nil {
		t.Fatal(err)
	}
	src := &Table{Name: "s", Kind: KindSource, HiddenRowID: true, AppendOnly: true, StateTables: []uint32{7},
		Columns: []Column{col("v", types.TInt8)}, Options: map[string]string{ConnectorOption: "datagen", "fields.v.kind": "sequence"}}
	if _, err := m.CreateTable(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	_, err := m.CreateTable(ctx, tbl("a", KindTable), false)
	if pgerror.Code(err) != pgerror.CodeDuplicateTable {
		t.Fatalf("duplicate create = %v, want 42P07", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	m = openMeta(t, cfg)
	defer m.Close()
	if got := tableNames(m); !slices.Equal(got, []string{"a", "b", "s"}) {
		t.Fatalf("tables after reopen = %v", got)
	}
	// A source keeps its kind, options, state table and hidden row id.
	if s, ok := m.Catalog().Table("", "s"); !ok || s.Kind != KindSource || s.Connector() != "datagen" ||
		s.Options["fields.v.kind"] != "sequence" || !slices.Equal(s.StateTables, []uint32{7}) || !slices.Equal(s.PK, []int{1}) {
		t.Fatalf("source after reopen = %+v", s)
	}
	if _, _, ok := m.Catalog().Index("", "a_i"); !ok {
		t.Fatal("index lost on reopen")
	}
	// The node restarted on another port; it still commits.
	dropped, err := m.DropObject(ctx, KindTable, "", "b", false, false)
	if err != nil || len(dropped) != 1 || dropped[0].ID != 1000 {
		t.Fatalf("drop = %v, %v", dropped, err)
	}
	if err := m.DropIndex(ctx, "", "a_i", false); err != nil {
		t.Fatal(err)
	}
}

func TestMetaSnapshotAndTruncation(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), TrailingLogs: 1}
	m := openMeta(t, cfg)
	createTables(t, m, "t1", "t2", "t3")
	if err := m.raft.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	createTables(t, m, "t4")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := raftstore.Open(filepath.Join(cfg.Dir, "raft", "log"), quiet)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.FirstIndex()
	if cerr := s.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if first <= 2 {
		t.Fatalf("log not truncated after the snapshot: first index %d", first)
	}

	m = openMeta(t, cfg)
	defer m.Close()
	if got := tableNames(m); !slices.Equal(got, []string{"t1", "t2", "t3", "t4"}) {
		t.Fatalf("tables after restore = %v", got)
	}
	tb, err := m.CreateTable(context.Background(), tbl("t5", KindTable), false)
	if err != nil || tb.ID != 1004 {
		t.Fatalf("create after restore = %+v, %v; want id 1004", tb, err)
	}
}

func TestMetaOpenErrors(t *testing.T) {
	dir := t.TempDir()
	m := openMeta(t, Config{Dir: dir, NodeID: "n1"})
	_, err := Open(Config{Dir: dir, NodeID: "n1", Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), "in use by another streamdb process") {
		t.Fatalf("second Open = %v, want in-use error", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open(Config{Dir: dir, NodeID: "n2", Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), `node id "n2" is not a member`) {
		t.Fatalf("Open with another node id = %v", err)
	}
}
