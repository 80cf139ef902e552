package meta

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestFSMDedupe applies commands sent again with their request ids: each
// is applied once and the repeat gets the first outcome, also after the
// FSM is restored from a snapshot; ids beyond the window are forgotten.
func TestFSMDedupe(t *testing.T) {
	f := newFSM(quiet)
	v, err := applyCmdID(t, f, opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, "n1/x/1")
	if err != nil || v.(*Table).ID != 1000 {
		t.Fatalf("create: %v %v", v, err)
	}
	again := func(f *fsm) {
		t.Helper()
		v, err := applyCmdID(t, f, opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, "n1/x/1")
		tb, aerr := as[*Table](v)
		if err != nil || aerr != nil || tb.ID != 1000 || tb.Name != "t" {
			t.Fatalf("the repeated create returned %v, %v (%v), want the first outcome", v, err, aerr)
		}
		if n := len(f.catalog.Load().Tables()); n != 1 {
			t.Fatalf("%d tables after the repeat, want 1", n)
		}
	}
	again(f)
	// A failed command's repeat fails alike.
	for range 2 {
		if _, err := applyCmdID(t, f, opDropObject, dropObjectCmd{Kind: KindTable, Name: "nope"}, "n1/x/2"); pgerror.Code(err) != "42P01" {
			t.Fatalf("drop of a missing table: %v, want 42P01", err)
		}
	}
	// The memory travels in snapshots.
	g := restored(t, f)
	again(g)
	// Beyond the window an id is forgotten: the command applies anew.
	for i := range dedupeWindow {
		if _, err := applyCmdID(t, g, opSetSystem, setSystemCmd{Name: "x", Value: "y"}, fmt.Sprintf("n2/y/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := applyCmdID(t, g, opCreateTable, createTableCmd{Table: tbl("t", KindTable)}, "n1/x/1"); pgerror.Code(err) != "42P07" {
		t.Fatalf("a forgotten id's create: %v, want 42P07", err)
	}
}
