package meta

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// quiet discards the log of failing commands that tests provoke.
var quiet = slog.New(slog.DiscardHandler)

func col(name string, t types.T) Column { return Column{Name: name, Type: t} }

func tbl(name string, kind ObjectKind, deps ...uint32) *Table {
	return &Table{Name: name, Kind: kind, Columns: []Column{col("a", types.TInt4), col("b", types.TText)}, PK: []int{0}, DependsOn: deps}
}

// applyCmd runs one command through the FSM as Raft would.
func applyCmd(t *testing.T, f *fsm, o op, payload any) (any, error) {
	t.Helper()
	return applyCmdID(t, f, o, payload, "")
}

// applyCmdID is applyCmd with a request id.
func applyCmdID(t *testing.T, f *fsm, o op, payload any, id string) (any, error) {
	t.Helper()
	data, err := encodeCommand(o, payload, id)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Apply(&raft.Log{Data: data}).(result)
	return r.value, r.err
}

func names(ts []*Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestFSMDDL(t *testing.T) {
	f := newFSM(quiet)
	steps := []struct {
		name    string
		op      op
		payload any
		code    string                        // expected SQLSTATE, "" for success
		check   func(t *testing.T, value any) // optional check of the result
	}{
		{"create t", opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, "", func(t *testing.T, v any) {
			if tb := v.(*Table); tb.ID != 1000 || tb.Schema != "public" {
				t.Errorf("created %+v, want id 1000 in public", tb)
			}
		}},
		{"create t again", opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, "42P07", nil},
		{"create t if not exists", opCreateTable, createTableCmd{Table: tbl("t", KindTable), IfNotExists: true}, "", func(t *testing.T, v any) {
			if v.(*Table) != nil {
				t.Errorf("skipped create returned %+v", v)
			}
		}},
		{"create u with row id", opCreateTable, createTableCmd{Table: &Table{Name: "u", Columns: []Column{col("x", types.TInt8)}, HiddenRowID: true}}, "", func(t *testing.T, v any) {
			tb := v.(*Table)
			if tb.ID != 1001 || len(tb.Columns) != 2 || tb.Columns[1].Name != RowIDColumn || !tb.Columns[1].Hidden || !slices.Equal(tb.PK, []int{1}) {
				t.Errorf("created %+v", tb)
			}
		}},
		{"row id and pk", opCreateTable, createTableCmd{Table: &Table{Name: "bad", Columns: []Column{col("x", types.TInt8)}, PK: []int{0}, HiddenRowID: true}}, "XX000", nil},
		{"bad pk", opCreateTable, createTableCmd{Table: &Table{Name: "bad", Columns: []Column{col("x", types.TInt8)}, PK: []int{1}}}, "XX000", nil},
		{"duplicate column", opCreateTable, createTableCmd{Table: &Table{Name: "bad", Columns: []Column{col("x", types.TInt8), col("x", types.TText)}}}, "42701", nil},
		{"unknown schema", opCreateTable, createTableCmd{Table: &Table{Schema: "foo", Name: "bad"}}, "3F000", nil},
		{"create view v", opCreateTable, createTableCmd{Table: tbl("v", KindView, 1000)}, "", nil},
		{"create mv on v", opCreateTable, createTableCmd{Table: tbl("mv", KindMaterializedView, 1002)}, "", nil},
		{"view on dropped", opCreateTable, createTableCmd{Table: tbl("w", KindView, 9999)}, "42P01", nil},
		{"drop t restricted", opDropObject, dropObjectCmd{Kind: KindTable, Name: "t"}, "2BP01", func(t *testing.T, v any) {}},
		{"drop table v", opDropObject, dropObjectCmd{Kind: KindView, Name: "t"}, "42809", nil},
		{"drop missing", opDropObject, dropObjectCmd{Kind: KindTable, Name: "nope"}, "42P01", nil},
		{"drop missing if exists", opDropObject, dropObjectCmd{Kind: KindTable, Name: "nope", IfExists: true}, "", func(t *testing.T, v any) {
			if len(v.([]*Table)) != 0 {
				t.Errorf("dropped %v", v)
			}
		}},
		{"index unnamed", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Columns: []string{"b"}}}, "", nil},
		{"index unnamed again", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Columns: []string{"b"}}}, "", nil},
		{"index named like table", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Name: "u", Columns: []string{"b"}}}, "42P07", nil},
		{"index i1", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Name: "i1", Columns: []string{"a", "b"}, Unique: true}}, "", nil},
		{"index i1 again", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Name: "i1", Columns: []string{"a"}}}, "42P07", nil},
		{"index i1 if not exists", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Name: "i1", Columns: []string{"a"}}, IfNotExists: true}, "", nil},
		{"index bad column", opCreateIndex, createIndexCmd{Table: "t", Index: Index{Name: "i2", Columns: []string{"z"}}}, "42703", nil},
		{"index on view", opCreateIndex, createIndexCmd{Table: "v", Index: Index{Name: "i2", Columns: []string{"a"}}}, "42809", nil},
		{"index on missing", opCreateIndex, createIndexCmd{Table: "nope", Index: Index{Name: "i2", Columns: []string{"a"}}}, "42P01", nil},
		{"table named like index", opCreateTable, createTableCmd{Table: tbl("i1", KindTable)}, "42P07", nil},
		{"drop table i1", opDropObject, dropObjectCmd{Kind: KindTable, Name: "i1"}, "42809", nil},
		{"drop index i1", opDropIndex, dropIndexCmd{Name: "i1"}, "", nil},
		{"drop index i1 again", opDropIndex, dropIndexCmd{Name: "i1"}, "42704", nil},
		{"drop index i1 if exists", opDropIndex, dropIndexCmd{Name: "i1", IfExists: true}, "", nil},
		{"drop index t", opDropIndex, dropIndexCmd{Name: "t"}, "42809", nil},
		{"drop t cascade", opDropObject, dropObjectCmd{Kind: KindTable, Name: "t", Cascade: true}, "", func(t *testing.T, v any) {
			if got := names(v.([]*Table)); !slices.Equal(got, []string{"mv", "v", "t"}) {
				t.Errorf("dropped %v, want [mv v t]", got)
			}
		}},
		{"ids are not reused", opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, "", func(t *testing.T, v any) {
			if id := v.(*Table).ID; id != 1004 {
				t.Errorf("new id %d, want 1004", id)
			}
		}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			v, err := applyCmd(t, f, s.op, s.payload)
			if got := pgerror.Code(err); got != s.code {
				t.Fatalf("error %v (code %q), want code %q", err, got, s.code)
			}
			if s.check != nil {
				s.check(t, v)
			}
		})
	}
	if got := names(f.catalog.Load().Tables()); !slices.Equal(got, []string{"t", "u"}) {
		t.Errorf("final tables %v, want [t u]", got)
	}
}

func TestFSMErrorMessages(t *testing.T) {
	f := newFSM(quiet)
	for _, tb := range []*Table{tbl("t", KindTable), tbl("v", KindView, 1000), tbl("mv", KindMaterializedView, 1001)} {
		if _, err := applyCmd(t, f, opCreateTable, createTableCmd{Table: tb}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		op                    op
		payload               any
		message, detail, hint string
	}{
		{opDropObject, dropObjectCmd{Kind: KindTable, Name: "t"},
			"cannot drop table t because other objects depend on it",
			"view v depends on table t\nmaterialized view mv depends on view v",
			"Use DROP ... CASCADE to drop the dependent objects too."},
		{opDropObject, dropObjectCmd{Kind: KindTable, Name: "mv"},
			`"mv" is not a table`, "", "Use DROP MATERIALIZED VIEW to remove a materialized view."},
		{opDropObject, dropObjectCmd{Kind: KindMaterializedView, Name: "x"},
			`materialized view "x" does not exist`, "", ""},
		{opCreateIndex, createIndexCmd{Table: "v", Index: Index{Columns: []string{"a"}}},
			`cannot create index on relation "v"`, "This operation is not supported for views.", ""},
		{opDropIndex, dropIndexCmd{Name: "t"}, `"t" is not an index`, "", "Use DROP TABLE to remove a table."},
		{opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, `relation "t" already exists`, "", ""},
	}
	for _, tt := range tests {
		_, err := applyCmd(t, f, tt.op, tt.payload)
		pe := pgerror.From(err)
		if pe.Message != tt.message || pe.Detail != tt.detail || pe.Hint != tt.hint {
			t.Errorf("%s %+v: got %q / %q / %q\nwant %q / %q / %q", tt.op, tt.payload, pe.Message, pe.Detail, pe.Hint, tt.message, tt.detail, tt.hint)
		}
	}
}

func TestFSMRejectsUnknownCommands(t *testing.T) {
	f := newFSM(quiet)
	for _, data := range []string{
		`not json`,
		`{"v":2,"op":"create_table","payload":{}}`,
		`{"v":1,"op":"launch_rocket","payload":{}}`,
		`{"v":1,"op":"create_table","payload":[1]}`,
	} {
		r := f.Apply(&raft.Log{Data: []byte(data)}).(result)
		if r.err == nil {
			t.Errorf("Apply(%s) succeeded", data)
		}
	}
}

func TestCatalogIsImmutable(t *testing.T) {
	f := newFSM(quiet)
	if _, err := applyCmd(t, f, opCreateTable, createTableCmd{Table: tbl("t", KindTable)}); err != nil {
		t.Fatal(err)
	}
	before := f.catalog.Load()
	if _, err := applyCmd(t, f, opCreateIndex, createIndexCmd{Table: "t", Index: Index{Name: "i", Columns: []string{"a"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := applyCmd(t, f, opDropObject, dropObjectCmd{Kind: KindTable, Name: "t"}); err != nil {
		t.Fatal(err)
	}
	tb, ok := before.Table("", "t")
	if !ok || len(tb.Indexes) != 0 || len(before.Tables()) != 1 {
		t.Errorf("old catalog changed: %+v %v", tb, ok)
	}
	if _, ok := f.catalog.Load().Table("public", "t"); ok {
		t.Error("t still in the new catalog")
	}
}

// TestCommitEpochKeepsCatalog checks that committing epochs leaves the
// catalog as it is (statements bound against it stay valid) and that the
// committed epoch only grows.
func TestCommitEpochKeepsCatalog(t *testing.T) {
	f := newFSM(quiet)
	if _, err := applyCmd(t, f, opCreateTable, createTableCmd{Table: tbl("t", KindTable)}); err != nil {
		t.Fatal(err)
	}
	cat := f.catalog.Load()
	for _, step := range []struct{ epoch, want uint64 }{{5, 5}, {9, 9}, {7, 9}} {
		if _, err := applyCmd(t, f, opCommitEpoch, commitEpochCmd{Epoch: step.epoch}); err != nil {
			t.Fatal(err)
		}
		if got := f.committed.Load(); got != step.want {
			t.Errorf("after committing %d: committed epoch %d, want %d", step.epoch, got, step.want)
		}
		if f.catalog.Load() != cat {
			t.Errorf("committing epoch %d replaced the catalog", step.epoch)
		}
	}
}

// TestRestoreKeepsSnapshotFormat restores a snapshot as earlier versions
// wrote it: the committed epoch inside the catalog.
func TestRestoreKeepsSnapshotFormat(t *testing.T) {
	f := newFSM(quiet)
	old := `{"v":1,"catalog":{"next_id":1001,"committed_epoch":7,"tables":[{"id":1000,"schema":"public","name":"t","kind":"table","columns":[]}]}}`
	if err := f.Restore(io.NopCloser(strings.NewReader(old))); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.catalog.Load().Table("", "t"); !ok || f.committed.Load() != 7 {
		t.Fatalf("restored t: %v, committed epoch %d (want 7)", ok, f.committed.Load())
	}
}

// memSink is a raft.SnapshotSink writing to memory.
type memSink struct{ bytes.Buffer }

func (*memSink) ID() string    { return "mem" }
func (*memSink) Cancel() error { return nil }
func (*memSink) Close() error  { return nil }

// restored returns a new FSM restored from a snapshot of f, as a node
// that installs it.
func restored(t *testing.T, f *fsm) *fsm {
	t.Helper()
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	g := newFSM(quiet)
	if err := g.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSnapshotRestore(t *testing.T) {
	f := newFSM(quiet)
	cmds := []struct {
		op      op
		payload any
	}{
		{opCreateTable, createTableCmd{Table: &Table{Name: "t", Columns: []Column{
			col("a", types.T{Family: types.Varchar, Mod: 10}),
			{Name: "n", Type: types.T{Family: types.Numeric, Mod: 10<<16 | 2}, NotNull: true, Default: "0"},
			col("j", types.TJsonb),
		}, HiddenRowID: true, AppendOnly: true, Options: map[string]string{"connector": "datagen"},
			Indexes: []Index{{Columns: []string{"a"}}}}}},
		{opCreateTable, createTableCmd{Table: &Table{Name: "v", Kind: KindView, ViewSQL: "SELECT a FROM t", DependsOn: []uint32{1000}, Columns: []Column{col("a", types.TVarchar)}}}},
		{opCreateTable, createTableCmd{Table: tbl("gone", KindSource)}},
		{opDropObject, dropObjectCmd{Kind: KindSource, Name: "gone"}},
		{opCommitEpoch, commitEpochCmd{Epoch: 42}},
	}
	for _, c := range cmds {
		if _, err := applyCmd(t, f, c.op, c.payload); err != nil {
			t.Fatal(err)
		}
	}
	g := restored(t, f)
	want, _ := json.Marshal(f.catalog.Load())
	got, _ := json.Marshal(g.catalog.Load())
	if !bytes.Equal(got, want) {
		t.Fatalf("restored catalog\n%s\nwant\n%s", got, want)
	}
	if got := g.committed.Load(); got != 42 {
		t.Fatalf("restored committed epoch %d, want 42", got)
	}
	cat := g.catalog.Load()
	tb, ok := cat.Table("", "t")
	if !ok || tb.Columns[0].Type != (types.T{Family: types.Varchar, Mod: 10}) || tb.Columns[1].Type.Mod != 10<<16|2 {
		t.Fatalf("restored t = %+v", tb)
	}
	if it, idx, ok := cat.Index("", "t_a_idx"); !ok || it != tb || idx.Columns[0] != "a" {
		t.Fatalf("restored index lookup = %v %v %v", it, idx, ok)
	}
	if v, ok := cat.TableByID(1001); !ok || v.ViewSQL != "SELECT a FROM t" {
		t.Fatalf("restored view = %+v", v)
	}
	// The id sequence survives: the next table gets the same id on both.
	for _, fs := range []*fsm{f, g} {
		v, err := applyCmd(t, fs, opCreateTable, createTableCmd{Table: tbl("next", KindTable)})
		if err != nil || v.(*Table).ID != 1003 {
			t.Fatalf("next id = %v, %v; want 1003", v, err)
		}
	}
	if err := g.Restore(io.NopCloser(bytes.NewReader([]byte(`{"v":9,"catalog":{}}`)))); err == nil {
		t.Fatal("restored a snapshot of a newer version")
	}
}
