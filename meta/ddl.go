package meta

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// The functions here apply DDL to a catalog: they validate against it and
// return a new catalog, leaving the receiver unchanged. They run inside the
// Raft FSM, so they must be deterministic.

// nameTaken reports whether a relation or index named schema.name exists.
func (c *Catalog) nameTaken(schema, name string) bool {
	q := qualName{schema, name}
	_, rel := c.byName[q]
	_, idx := c.indexes[q]
	return rel || idx
}

func errRelationExists(name string) error {
	return pgerror.New(pgerror.CodeDuplicateTable, "relation %q already exists", name)
}

// createTable adds t, assigning its id. With ifNotExists and the name taken
// it returns c and a nil table.
func (c *Catalog) createTable(t *Table, ifNotExists bool) (*Catalog, *Table, error) {
	t.Schema = schemaOrDefault(t.Schema)
	if err := checkSchema(c, t.Schema); err != nil {
		return c, nil, err
	}
	if c.nameTaken(t.Schema, t.Name) {
		if ifNotExists {
			return c, nil, nil
		}
		return c, nil, errRelationExists(t.Name)
	}
	if t.HiddenRowID {
		if len(t.PK) > 0 {
			return c, nil, pgerror.New(pgerror.CodeInternal, "table %q has both a primary key and a hidden row id", t.Name)
		}
		t.Columns = append(t.Columns, Column{Name: RowIDColumn, Type: types.TInt8, NotNull: true, Hidden: true})
		t.PK = []int{len(t.Columns) - 1}
	}
	for i, col := range t.Columns {
		if t.ColumnIndex(col.Name) != i {
			return c, nil, pgerror.New(pgerror.CodeDuplicateColumn, "column %q specified more than once", col.Name)
		}
	}
	for i, p := range t.PK {
		if p < 0 || p >= len(t.Columns) || slices.Index(t.PK, p) != i {
			return c, nil, pgerror.New(pgerror.CodeInternal, "table %q: invalid primary key column index %d", t.Name, p)
		}
	}
	if t.Sequence != nil {
		if err := c.checkOwner(t.Schema, t.Sequence); err != nil {
			return c, nil, err
		}
	}
	for _, id := range t.DependsOn {
		if _, ok := c.byID[id]; !ok {
			return c, nil, pgerror.New(pgerror.CodeUndefinedTable, "relation with id %d does not exist", id).
				WithHint("It was dropped while this statement ran; retry the statement.")
		}
	}
	for _, id := range t.Functions {
		if _, ok := c.FunctionByID(id); !ok {
			return c, nil, pgerror.New(pgerror.CodeUndefinedFunction, "function with id %d does not exist", id).
				WithHint("It was dropped while this statement ran; retry the statement.")
		}
	}
	indexes := t.Indexes
	t.Indexes = nil
	n := c.clone()
	if t.ID == 0 {
		t.ID = c.nextID
		n.nextID++
	} else if t.ID >= c.nextID || c.byID[t.ID] != nil {
		return c, nil, pgerror.New(pgerror.CodeInternal, "relation id %d was not allocated or is in use", t.ID)
	}
	n.put(t)
	for _, idx := range indexes {
		nt, err := n.withIndex(t, idx)
		if err != nil {
			return c, nil, err
		}
		n.put(nt)
		t = nt
	}
	return n.seal(), t, nil
}

// allocIDs reserves n consecutive object ids and returns the first.
func (c *Catalog) allocIDs(n int) (*Catalog, uint32) {
	first := c.nextID
	nc := c.clone()
	nc.nextID += uint32(n)
	return nc.seal(), first
}

// setSystem sets a cluster setting.
func (c *Catalog) setSystem(name, value string) *Catalog {
	nc := c.clone()
	nc.system = maps.Clone(c.system)
	if nc.system == nil {
		nc.system = map[string]string{}
	}
	nc.system[name] = value
	return nc.seal()
}

// withIndex validates idx as a new index of t in n's namespace, names it
// if unnamed, and returns a copy of t with idx added.
func (n *Catalog) withIndex(t *Table, idx Index) (*Table, error) {
	if len(idx.Columns) == 0 {
		return nil, pgerror.New(pgerror.CodeInternal, "index on %q has no columns", t.Name)
	}
	for _, col := range idx.AllColumns() {
		if t.ColumnIndex(col) < 0 {
			return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q does not exist", col)
		}
	}
	if idx.Name == "" {
		idx.Name = n.indexName(t, idx.AllColumns())
	} else if n.nameTaken(t.Schema, idx.Name) {
		return nil, errRelationExists(idx.Name)
	}
	nt := *t
	nt.Indexes = append(slices.Clip(t.Indexes), idx)
	return &nt, nil
}

// indexName chooses an unused name the way PostgreSQL does:
// table_col1_col2_idx, a repeated column numbered (b, b1), then with a
// number appended.
func (n *Catalog) indexName(t *Table, columns []string) string {
	names := make([]string, 0, len(columns))
	for _, c := range columns {
		name := c
		for i := 1; slices.Contains(names, name); i++ {
			name = fmt.Sprintf("%s%d", c, i)
		}
		names = append(names, name)
	}
	base := t.Name + "_" + strings.Join(names, "_") + "_idx"
	name := base
	for i := 1; n.nameTaken(t.Schema, name); i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}

// createIndex adds idx to the table schema.table. With ifNotExists and the
// index name taken it returns c unchanged.
func (c *Catalog) createIndex(schema, table string, idx Index, ifNotExists bool) (*Catalog, error) {
	schema = schemaOrDefault(schema)
	t, ok := c.Table(schema, table)
	if !ok {
		return c, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", table)
	}
	if t.Kind != KindTable && t.Kind != KindMaterializedView {
		return c, pgerror.New(pgerror.CodeWrongObjectType, "cannot create index on relation %q", table).
			WithDetail("This operation is not supported for %ss.", t.Kind)
	}
	if ifNotExists && idx.Name != "" && c.nameTaken(schema, idx.Name) {
		return c, nil
	}
	nt, err := c.withIndex(t, idx)
	if err != nil {
		return c, err
	}
	n := c.clone()
	n.put(nt)
	return n.seal(), nil
}

// dropIndex removes the index schema.name.
func (c *Catalog) dropIndex(schema, name string, ifExists bool) (*Catalog, error) {
	schema = schemaOrDefault(schema)
	t, _, ok := c.Index(schema, name)
	if !ok {
		if rel, isRel := c.Table(schema, name); isRel {
			return c, errWrongKind(name, KindIndex, rel.Kind)
		}
		if ifExists {
			return c, nil
		}
		return c, pgerror.New(pgerror.CodeUndefinedObject, "index %q does not exist", name)
	}
	nt := *t
	nt.Indexes = slices.DeleteFunc(slices.Clone(t.Indexes), func(x Index) bool { return x.Name == name })
	n := c.clone()
	n.put(&nt)
	return n.seal(), nil
}

func errWrongKind(name string, want, have ObjectKind) error {
	return pgerror.New(pgerror.CodeWrongObjectType, "%q is not a%s %s", name, article(want), want).
		WithHint("Use DROP %s to remove a%s %s.", strings.ToUpper(have.String()), article(have), have)
}

func article(k ObjectKind) string {
	if k == KindIndex {
		return "n"
	}
	return ""
}

// dropObject removes the relation schema.name of the given kind and, with
// cascade, every object that depends on it, directly or not. It returns the
// dropped objects, dependents before the objects they depend on; with
// ifExists and no such relation it returns c and nothing.
func (c *Catalog) dropObject(kind ObjectKind, schema, name string, ifExists, cascade bool) (*Catalog, []*Table, error) {
	if kind == KindIndex {
		return c, nil, pgerror.New(pgerror.CodeInternal, "indexes are dropped with DropIndex")
	}
	schema = schemaOrDefault(schema)
	t, ok := c.Table(schema, name)
	if !ok {
		if _, _, isIndex := c.Index(schema, name); isIndex {
			return c, nil, errWrongKind(name, kind, KindIndex)
		}
		if ifExists {
			return c, nil, nil
		}
		return c, nil, pgerror.New(pgerror.CodeUndefinedTable, "%s %q does not exist", kind, name)
	}
	if t.Kind != kind {
		return c, nil, errWrongKind(name, kind, t.Kind)
	}
	if t.Sequence != nil {
		var err error
		if c, err = c.dropSequenceUsers(t, cascade); err != nil {
			return c, nil, err
		}
	}
	dropped := c.withDependents(t)
	if slices.ContainsFunc(dropped, func(d *Table) bool { return d != t && !ownedBy(d, dropped) }) && !cascade {
		return c, nil, errDependents(t, dropped)
	}
	n := c.clone()
	for _, d := range dropped {
		n.remove(d)
	}
	return n.seal(), dropped, nil
}

// withDependents returns t and everything that depends on it, each after
// all of its own dependents.
func (c *Catalog) withDependents(t *Table) []*Table {
	var out []*Table
	seen := map[uint32]bool{}
	var visit func(*Table)
	visit = func(t *Table) {
		if seen[t.ID] {
			return
		}
		seen[t.ID] = true
		for _, d := range c.ordered { // sorted, so the result is deterministic
			if slices.Contains(d.DependsOn, t.ID) || ownedBy(d, []*Table{t}) {
				visit(d)
			}
		}
		out = append(out, t)
	}
	visit(t)
	return out
}

func errDependents(t *Table, dropped []*Table) error {
	var lines []string
	for _, d := range slices.Backward(dropped) {
		for _, id := range d.DependsOn {
			if i := slices.IndexFunc(dropped, func(x *Table) bool { return x.ID == id }); i >= 0 {
				lines = append(lines, fmt.Sprintf("%s %s depends on %s %s", d.Kind, d.Name, dropped[i].Kind, dropped[i].Name))
			}
		}
	}
	return pgerror.New(pgerror.CodeDependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", t.Kind, t.Name).
		WithDetail("%s", strings.Join(lines, "\n")).
		WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
}
