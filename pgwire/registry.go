package pgwire

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// registry holds a connection's prepared statements and portals by name; the
// empty name is the unnamed statement or portal, which a new one replaces.
// A nil Statement stands for an empty query.
type registry struct {
	stmts   map[string]Statement
	portals map[string]*portal
	// spare is storage for parameters (see spareParams).
	spare []types.Datum
}

// stmtNameFree checks that a statement may be registered under name: the
// unnamed statement can always be replaced, a named one must be closed
// first.
func (r *registry) stmtNameFree(name string) error {
	if _, ok := r.stmts[name]; ok && name != "" {
		return pgerror.New(pgerror.CodeDuplicatePreparedStatement, "prepared statement %q already exists", name).
			WithHint("Close it first, or use another name.")
	}
	return nil
}

// addStmt registers st under name, replacing the statement there; callers
// check stmtNameFree first.
func (r *registry) addStmt(name string, st Statement) {
	if r.stmts == nil {
		r.stmts = make(map[string]Statement)
	}
	r.stmts[name] = st
}

// stmt returns the statement registered under name.
func (r *registry) stmt(name string) (Statement, error) {
	st, ok := r.stmts[name]
	if !ok {
		return nil, pgerror.New(pgerror.CodeInvalidPreparedStatement, "prepared statement %q does not exist", name)
	}
	return st, nil
}

// closeStmt forgets the statement registered under name, if any. Portals
// bound from it stay usable.
func (r *registry) closeStmt(name string) {
	delete(r.stmts, name)
}

// portalNameFree checks that a portal may be registered under name: the
// unnamed portal can always be replaced, a named one must be closed first.
func (r *registry) portalNameFree(name string) error {
	if _, ok := r.portals[name]; ok && name != "" {
		return pgerror.New(codeDuplicateCursor, "portal %q already exists", name).
			WithHint("Close it first, or use another name.")
	}
	return nil
}

// addPortal registers p under name, closing the portal it replaces; callers
// check portalNameFree first.
func (r *registry) addPortal(name string, p *portal) {
	r.closePortal(name)
	if r.portals == nil {
		r.portals = make(map[string]*portal)
	}
	r.portals[name] = p
}

// spareParams returns the storage of a closed portal's parameters, which
// nothing refers to any more, for the next Bind to decode into (nil: none).
func (r *registry) spareParams() []types.Datum {
	spare := r.spare
	r.spare = nil
	return spare
}

// closed keeps the parameters of a closed portal as spare storage, the
// largest seen: a client repeating a statement binds as many each time.
func (r *registry) closed(p *portal) {
	p.close()
	if cap(p.params) > cap(r.spare) {
		r.spare = p.params
	}
}

// portal returns the portal registered under name.
func (r *registry) portal(name string) (*portal, error) {
	p, ok := r.portals[name]
	if !ok {
		return nil, pgerror.New(pgerror.CodeInvalidCursorName, "portal %q does not exist", name)
	}
	return p, nil
}

// closePortal closes and forgets the portal registered under name, if any.
func (r *registry) closePortal(name string) {
	if p, ok := r.portals[name]; ok {
		delete(r.portals, name)
		r.closed(p)
	}
}

// closePortals closes and forgets every portal, as the end of a
// transaction does.
func (r *registry) closePortals() {
	for name, p := range r.portals {
		delete(r.portals, name)
		r.closed(p)
	}
}
