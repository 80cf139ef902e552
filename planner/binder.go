package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Binder binds one statement against a catalog snapshot. It infers the
// types of parameters ($n) from their context.
type Binder struct {
	cat    *meta.Catalog
	params []types.T
	// searchPath resolves unqualified relation names (nil: public).
	searchPath []string
	ctes       []map[string]*cte
	// agg is the aggregation being collected for the current SELECT, nil
	// where aggregates are not allowed.
	agg *aggCollector
	// aggForbidden names the clause where aggregates are not allowed.
	aggForbidden string
	// win collects the window functions of the current SELECT's select
	// list and ORDER BY; elsewhere it is nil and winErr, when set, says
	// why window functions are not allowed.
	win    *windowCollector
	winErr error
	// srf collects the set-returning function calls of the current
	// SELECT's select list and ORDER BY; elsewhere it is nil and srfErr,
	// when set, says why they are not allowed.
	srf    *srfCollector
	srfErr error
	// setOpMember marks the SELECT about to be bound as a member of a set
	// operation: its unknown-typed outputs (NULL, 'literal') stay unknown
	// so that the set operation resolves them, as in PostgreSQL.
	setOpMember bool
	// status gives the streamdb_catalog relations their rows; readsStatus
	// records that the statement read one.
	status      Status
	readsStatus bool
	// readsReplicated records that the statement read a relation or a
	// catalog record (anything but the node's own live figures).
	readsReplicated bool
	// inlining is the SQL function whose body is being bound, nil
	// outside one; functions are the ids of the SQL functions called.
	inlining  *inlining
	functions []uint32
	// role is the role whose privileges the statement needs (SetRole);
	// 0 checks none.
	role uint32
}

type cte struct {
	node Node
	cols []Column
}

// NewBinder returns a binder over cat; paramTypes are the types the client
// declared for $1..$n (Unknown where it left them to be inferred).
func NewBinder(cat *meta.Catalog, paramTypes []types.T) *Binder {
	return &Binder{cat: cat, params: append([]types.T(nil), paramTypes...)}
}

// ParamTypes returns the parameter types after binding; parameters whose
// type could not be inferred are text, as in PostgreSQL's unknown literals.
func (b *Binder) ParamTypes() []types.T {
	out := make([]types.T, len(b.params))
	for i, t := range b.params {
		if t.Family == types.Unknown {
			t = types.TText
		}
		out[i] = t
	}
	return out
}

// SetNumParams makes sure the binder knows about n parameters.
func (b *Binder) SetNumParams(n int) {
	for len(b.params) < n {
		b.params = append(b.params, types.TUnknown)
	}
}

// BindQuery binds a SELECT, set operation or WITH query.
func (b *Binder) BindQuery(n ast.Node) (Node, error) {
	return b.bindQuery(n, &scope{}, nil)
}

// bindQuery binds a query nested in outer (the scope of the enclosing query
// level, empty at the top); sub collects facts about it when it is a
// subquery expression.
func (b *Binder) bindQuery(n ast.Node, outer *scope, sub *subqueryInfo) (Node, error) {
	switch q := n.(type) {
	case *ast.SelectStmt:
		return b.bindSelect(q, outer, sub)
	case *ast.SetOprStmt:
		return b.bindSetOpr(q, outer, sub)
	case *ast.SubqueryExpr:
		return b.bindQuery(q.Query, outer, sub)
	}
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "statement %T is not supported as a query", n)
}

func (b *Binder) pushCTEs(w *ast.WithClause, s *scope, sub *subqueryInfo) (func(), error) {
	if w == nil {
		return func() {}, nil
	}
	seen := map[string]bool{}
	for _, c := range w.CTEs {
		if seen[c.Name.O] {
			return nil, pgerror.New(pgerror.CodeDuplicateAlias, "WITH query name %q specified more than once", c.Name.O)
		}
		seen[c.Name.O] = true
	}
	if w.IsRecursive {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "WITH RECURSIVE is not supported yet")
	}
	m := map[string]*cte{}
	b.ctes = append(b.ctes, m)
	pop := func() { b.ctes = b.ctes[:len(b.ctes)-1] }
	for _, c := range w.CTEs {
		node, err := b.bindQuery(c.Query.Query, s, sub)
		if err != nil {
			pop()
			return nil, err
		}
		cols := append([]Column(nil), node.Columns()...)
		if len(c.ColNameList) > len(cols) {
			pop()
			return nil, pgerror.New(pgerror.CodeInvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.Name.O, len(cols), len(c.ColNameList))
		}
		for i, name := range c.ColNameList {
			cols[i].Name = name.O
		}
		m[c.Name.O] = &cte{node: node, cols: cols}
	}
	return pop, nil
}

func (b *Binder) lookupCTE(name string) *cte {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if c, ok := b.ctes[i][name]; ok {
			return c
		}
	}
	return nil
}

// SetSearchPath sets the schemas unqualified relation names resolve in
// (the session's search_path).
func (b *Binder) SetSearchPath(path []string) { b.searchPath = path }

// table looks up a base table or view by name.
func (b *Binder) table(schema, name string) (*meta.Table, error) {
	t, ok := b.cat.Resolve(b.searchPath, schema, name)
	if !ok {
		if schema != "" {
			name = schema + "." + name
		}
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", name)
	}
	return t, nil
}

// coerce gives an expression of unknown type (a string literal, NULL or a
// parameter) the type t.
func (b *Binder) coerce(e expr.Expr, t types.T) (expr.Expr, error) {
	if e.Type().Family != types.Unknown || t.Family == types.Unknown {
		return e, nil
	}
	if p, ok := e.(*expr.Param); ok {
		b.params[p.Idx] = t
		return &expr.Param{Idx: p.Idx, T: t}, nil
	}
	return expr.CastTo(e, t)
}

// coerceTo converts e to type t with an implicit (assignment-style) cast.
func (b *Binder) coerceTo(e expr.Expr, t types.T) (expr.Expr, error) {
	e, err := b.coerce(e, t)
	if err != nil {
		return nil, err
	}
	if e.Type() == t {
		return e, nil
	}
	return expr.CastTo(e, t)
}
