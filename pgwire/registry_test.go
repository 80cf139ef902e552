package pgwire

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// openPortal returns a portal whose rows are open, as after an Execute.
func openPortal(t *testing.T) (*portal, *fakeRows) {
	t.Helper()
	rows := &fakeRows{}
	p := &portal{rows: rows}
	p.context(context.Background())
	return p, rows
}

func TestRegistryStatements(t *testing.T) {
	var r registry
	s1, s2 := &fakeStmt{tag: "1"}, &fakeStmt{tag: "2"}
	tests := []struct {
		name     string
		op       func() error
		wantCode string
	}{
		{"unknown statement", func() error { _, err := r.stmt("s"); return err }, pgerror.CodeInvalidPreparedStatement},
		{"add named", func() error { r.addStmt("s", s1); return nil }, ""},
		{"named taken", func() error { return r.stmtNameFree("s") }, pgerror.CodeDuplicatePreparedStatement},
		{"unnamed always free", func() error { r.addStmt("", s1); return r.stmtNameFree("") }, ""},
		{"unnamed replaced", func() error {
			r.addStmt("", s2)
			if st, _ := r.stmt(""); st != s2 {
				t.Error("the unnamed statement was not replaced")
			}
			return nil
		}, ""},
		{"empty query", func() error {
			r.addStmt("e", nil)
			st, err := r.stmt("e")
			if st != nil {
				t.Error("an empty query should be a nil statement")
			}
			return err
		}, ""},
		{"closed", func() error { r.closeStmt("s"); _, err := r.stmt("s"); return err }, pgerror.CodeInvalidPreparedStatement},
		{"closing twice", func() error { r.closeStmt("s"); return r.stmtNameFree("s") }, ""},
	}
	for _, tc := range tests {
		if got := pgerror.Code(tc.op()); got != tc.wantCode {
			t.Errorf("%s: got code %q, want %q", tc.name, got, tc.wantCode)
		}
	}
}

func TestRegistryPortals(t *testing.T) {
	var r registry
	if _, err := r.portal(""); pgerror.Code(err) != pgerror.CodeInvalidCursorName {
		t.Errorf("unknown portal: %v", err)
	}

	unnamed1, rows1 := openPortal(t)
	unnamed2, rows2 := openPortal(t)
	r.addPortal("", unnamed1)
	if err := r.portalNameFree(""); err != nil {
		t.Errorf("the unnamed portal must be replaceable: %v", err)
	}
	r.addPortal("", unnamed2)
	if rows1.closed != 1 || unnamed1.ctx.Err() == nil {
		t.Error("a replaced portal must be closed and its context cancelled")
	}
	if p, _ := r.portal(""); p != unnamed2 {
		t.Error("the unnamed portal was not replaced")
	}

	named, rows3 := openPortal(t)
	r.addPortal("p", named)
	if err := r.portalNameFree("p"); pgerror.Code(err) != codeDuplicateCursor {
		t.Errorf("a named portal must be closed before reuse: %v", err)
	}
	r.closePortal("p")
	r.closePortal("p")
	if rows3.closed != 1 {
		t.Errorf("closing a portal twice closed its rows %d times", rows3.closed)
	}
	if _, err := r.portal("p"); err == nil {
		t.Error("a closed portal is still registered")
	}

	done, rows4 := openPortal(t)
	done.finish()
	r.addPortal("done", done)
	r.closePortals()
	if rows2.closed != 1 || rows4.closed != 1 || len(r.portals) != 0 {
		t.Errorf("closePortals: rows closed %d and %d times, %d portals left", rows2.closed, rows4.closed, len(r.portals))
	}
}

// TestRegistrySpareParams checks that closed portals leave their
// parameters' storage, the largest, to the next Bind, once.
func TestRegistrySpareParams(t *testing.T) {
	var r registry
	small, large := make([]types.Datum, 2), make([]types.Datum, 8)
	r.addPortal("a", &portal{params: large})
	r.addPortal("b", &portal{params: small})
	r.closePortals()
	if got := r.spareParams(); cap(got) != 8 || &got[0] != &large[0] {
		t.Fatalf("spare has capacity %d, want the larger portal's 8", cap(got))
	}
	if got := r.spareParams(); got != nil {
		t.Fatalf("spare handed out twice: capacity %d", cap(got))
	}
	params, err := decodeParams(large, []types.T{types.TInt8, types.TInt8}, nil, [][]byte{[]byte("7"), nil}, nil)
	if err != nil || len(params) != 2 || &params[0] != &large[0] || params[0].Int() != 7 || !params[1].IsNull() {
		t.Fatalf("decoding into spare storage: %v %v", params, err)
	}
}
