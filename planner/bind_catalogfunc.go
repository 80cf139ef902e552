package planner

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// catalogFuncs are pg_catalog functions of an object's OID (their first
// argument; the others, pretty-printing flags, are ignored) answered from
// the catalog snapshot the statement is bound against: each adds the
// values of a relation's objects (b gives the statement's search_path),
// other OIDs having the value otherwise (NULL if unset).
var catalogFuncs = map[string]struct {
	minArgs, maxArgs int
	t                types.T
	of               func(b *Binder, t *meta.Table, add func(oid int64, v types.Datum))
	otherwise        types.Datum
	// regclass marks a first parameter of type regclass: a string names
	// the relation.
	regclass bool
	// byTable marks an of that adds a value for t's own OID only: a
	// constant argument then needs of for that relation alone (its sizes,
	// say, rather than every relation's).
	byTable bool
	// cols, if set, gives the values by column number (from 1) that a
	// non-zero second argument asks for.
	cols func(t *meta.Table, add func(oid int64, cols []types.Datum))
	// fn, if set, gives the value of a user function.
	fn func(b *Binder, f *meta.Function) types.Datum
}{
	// The definition of a user function, its parameter list (with and
	// without defaults), its result type, and whether its name alone
	// finds it.
	"pg_get_functiondef": {minArgs: 1, maxArgs: 1, t: types.TText, fn: func(_ *Binder, f *meta.Function) types.Datum {
		return dStr(functionDef(f))
	}},
	"pg_get_function_arguments": {minArgs: 1, maxArgs: 1, t: types.TText, fn: func(_ *Binder, f *meta.Function) types.Datum {
		return dStr(functionArgs(f, true))
	}},
	"pg_get_function_identity_arguments": {minArgs: 1, maxArgs: 1, t: types.TText, fn: func(_ *Binder, f *meta.Function) types.Datum {
		return dStr(functionArgs(f, false))
	}},
	"pg_get_function_result": {minArgs: 1, maxArgs: 1, t: types.TText, fn: func(_ *Binder, f *meta.Function) types.Datum {
		return dStr(f.Returns.String())
	}},
	"pg_function_is_visible": {minArgs: 1, maxArgs: 1, t: types.TBool, otherwise: dTrue, fn: func(b *Binder, f *meta.Function) types.Datum {
		fns := b.cat.ResolveFunctions(b.searchPath, "", f.Name)
		return dBool(slices.IndexFunc(fns, func(o *meta.Function) bool { return meta.Signature(o.Name, o.ArgTypes()) == f.Signature() }) == slices.Index(fns, f))
	}},
	// pg_get_viewdef is the query of a view or materialized view.
	"pg_get_viewdef": {minArgs: 1, maxArgs: 2, t: types.TText, of: func(_ *Binder, t *meta.Table, add func(int64, types.Datum)) {
		if t.Kind == meta.KindView || t.Kind == meta.KindMaterializedView {
			add(int64(t.ID), dStr(viewDef(t)))
		}
	}},
	// pg_get_indexdef is an index's CREATE INDEX, pg_get_constraintdef a
	// constraint's definition (PRIMARY KEY (a, b)).
	"pg_get_indexdef": {minArgs: 1, maxArgs: 3, t: types.TText,
		of: func(_ *Binder, t *meta.Table, add func(int64, types.Datum)) {
			for _, ix := range tableIndexes(t) {
				add(int64(ix.oid), dStr(ix.def(t)))
			}
		},
		cols: func(t *meta.Table, add func(int64, []types.Datum)) {
			for _, ix := range tableIndexes(t) {
				var cols []types.Datum
				for _, c := range ix.columnNames(t) {
					cols = append(cols, dStr(c))
				}
				add(int64(ix.oid), cols)
			}
		}},
	"pg_get_constraintdef": {minArgs: 1, maxArgs: 2, t: types.TText, of: func(_ *Binder, t *meta.Table, add func(int64, types.Datum)) {
		if ix, ok := primaryKey(t); ok {
			add(int64(pkeyConstraintOID(t)), dStr("PRIMARY KEY ("+strings.Join(ix.columnNames(t), ", ")+")"))
		}
	}},
	// obj_description and col_description are COMMENT ON's texts: of a
	// relation (col_description's column 0 too), or of its columns.
	"obj_description": {minArgs: 1, maxArgs: 2, t: types.TText, byTable: true, of: relationComment},
	"col_description": {minArgs: 2, maxArgs: 2, t: types.TText, byTable: true, of: relationComment,
		cols: func(t *meta.Table, add func(int64, []types.Datum)) {
			cols := make([]types.Datum, len(t.Columns))
			for i, c := range t.Columns {
				if c.Comment != "" {
					cols[i] = dStr(c.Comment)
				}
			}
			add(int64(t.ID), cols)
		}},
	// The sizes of a relation in this node's store: its rows
	// (pg_relation_size), with its operators' state (pg_table_size,
	// pg_total_relation_size; there are no index structures to add).
	"pg_relation_size":       {minArgs: 1, maxArgs: 2, t: types.TInt8, byTable: true, regclass: true, of: relationSize(false)},
	"pg_table_size":          {minArgs: 1, maxArgs: 1, t: types.TInt8, byTable: true, regclass: true, of: relationSize(true)},
	"pg_total_relation_size": {minArgs: 1, maxArgs: 1, t: types.TInt8, byTable: true, regclass: true, of: relationSize(true)},
	"pg_indexes_size": {minArgs: 1, maxArgs: 1, t: types.TInt8, byTable: true, regclass: true, of: func(_ *Binder, t *meta.Table, add func(int64, types.Datum)) {
		add(int64(t.ID), dInt(0))
	}},
	// pg_table_is_visible: a relation is visible when its name alone
	// finds it on the search_path; the system catalogs always are.
	"pg_table_is_visible": {minArgs: 1, maxArgs: 1, t: types.TBool, byTable: true, otherwise: dTrue,
		of: func(b *Binder, t *meta.Table, add func(int64, types.Datum)) {
			found, ok := b.cat.Resolve(b.searchPath, "", t.Name)
			add(int64(t.ID), dBool(ok && found == t))
		}},
}

// storageIDs are the storage tables of t: its rows' and, with state,
// those of its operators and watermark.
func storageIDs(t *meta.Table, withState bool) []uint32 {
	ids := []uint32{t.ID}
	if withState {
		ids = append(ids, t.StateTables...)
		if t.Watermark != nil {
			ids = append(ids, t.Watermark.StateTable)
		}
	}
	return ids
}

// bytesOf returns the bytes this node's store holds of the storage
// tables ids, and false without a store to ask.
func (b *Binder) bytesOf(ids []uint32) (int64, bool) {
	if b.status == nil {
		return 0, false
	}
	b.readsStatus = true
	var total uint64
	for _, id := range ids {
		n, err := b.status.TableBytes(id)
		if err != nil {
			return 0, false
		}
		total += n
	}
	return int64(total), true
}

// bindDatabaseSize binds pg_database_size(name or oid): the bytes of
// every relation of the one database, in this node's store.
func (b *Binder) bindDatabaseSize(args []expr.Expr) (expr.Expr, error) {
	if len(args) != 1 {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function pg_database_size with %d arguments does not exist", len(args))
	}
	var ids []uint32
	for _, t := range b.cat.Tables() {
		ids = append(ids, storageIDs(t, true)...)
	}
	n, ok := b.bytesOf(ids)
	if !ok {
		return expr.NewConst(types.Null, types.TInt8), nil
	}
	return expr.NewConst(dInt(n), types.TInt8), nil
}

// relationSize adds the bytes t takes in this node's store, with its
// state tables when withState is set; nothing without a store to ask.
func relationSize(withState bool) func(b *Binder, t *meta.Table, add func(int64, types.Datum)) {
	return func(b *Binder, t *meta.Table, add func(int64, types.Datum)) {
		if t.Kind == meta.KindView {
			return
		}
		if n, ok := b.bytesOf(storageIDs(t, withState)); ok {
			add(int64(t.ID), dInt(n))
		}
	}
}

// relationComment adds the comment of t, if it has one.
func relationComment(_ *Binder, t *meta.Table, add func(int64, types.Datum)) {
	if t.Comment != "" {
		add(int64(t.ID), dStr(t.Comment))
	}
}

// catalogLookup is a bound call of one of catalogFuncs: its values by OID.
type catalogLookup struct {
	name string
	args []expr.Expr
	vals map[int64]types.Datum
	// otherwise is the value of OIDs vals does not hold.
	otherwise types.Datum
	// cols are pg_get_indexdef's per-column values (its second argument
	// a column number from 1).
	cols map[int64][]types.Datum
	t    types.T
}

func (c *catalogLookup) Type() types.T         { return c.t }
func (c *catalogLookup) String() string        { return c.name + "(" + c.args[0].String() + ")" }
func (c *catalogLookup) Children() []expr.Expr { return c.args }
func (c *catalogLookup) WithChildren(ch []expr.Expr) expr.Expr {
	out := *c
	out.args = ch
	return &out
}

// Eval implements expr.Expr.
func (c *catalogLookup) Eval(ctx *expr.Ctx, row []types.Datum) (types.Datum, error) {
	v, err := c.args[0].Eval(ctx, row)
	if err != nil || v.IsNull() {
		return dNull, err
	}
	if c.cols != nil && len(c.args) > 1 {
		n, err := c.args[1].Eval(ctx, row)
		if err != nil {
			return dNull, err
		}
		if !n.IsNull() && n.Int() > 0 {
			if cols := c.cols[v.Int()]; int(n.Int()) <= len(cols) {
				return cols[n.Int()-1], nil
			}
			return dNull, nil
		}
	}
	if r, ok := c.vals[v.Int()]; ok {
		return r, nil
	}
	return c.otherwise, nil
}

// bindCatalogFunc binds a call of one of catalogFuncs.
func (b *Binder) bindCatalogFunc(name string, args []expr.Expr) (expr.Expr, error) {
	f := catalogFuncs[name]
	n := len(args)
	if n < f.minArgs || n > f.maxArgs {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, n).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	if c, ok := args[0].(*expr.Const); ok && f.regclass && c.T.Family == types.Unknown && !c.V.IsNull() {
		rel, err := b.regclass(c.V.Str())
		if err != nil {
			return nil, err
		}
		args[0] = rel
	}
	oid, err := b.coerceTo(args[0], types.TOid)
	if err != nil {
		return nil, err
	}
	args[0] = oid
	vals := map[int64]types.Datum{}
	var cols map[int64][]types.Datum
	if f.cols != nil {
		cols = map[int64][]types.Datum{}
	}
	for _, fn := range b.cat.Functions() {
		if f.fn != nil {
			vals[int64(fn.ID)] = f.fn(b, fn)
		}
	}
	tables := b.cat.Tables()
	if c, ok := oid.(*expr.Const); ok && f.byTable {
		tables = nil
		if t, ok := b.cat.TableByID(uint32(c.V.Int())); !c.V.IsNull() && ok {
			tables = []*meta.Table{t}
		}
	}
	for _, t := range tables {
		if f.of == nil {
			break
		}
		f.of(b, t, func(oid int64, v types.Datum) { vals[oid] = v })
		if f.cols != nil {
			f.cols(t, func(oid int64, c []types.Datum) { cols[oid] = c })
		}
	}
	return &catalogLookup{name: name, args: args, vals: vals, otherwise: f.otherwise, cols: cols, t: f.t}, nil
}
