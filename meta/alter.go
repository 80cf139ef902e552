package meta

import (
	"slices"
	"strconv"

	"github.com/streamdb/streamdb/pgerror"
)

// lookupForAlter finds the relation schema.name for ALTER kind: ALTER
// TABLE reaches every relation (as PostgreSQL lets it rename views), the
// other kinds only their own.
func (c *Catalog) lookupForAlter(kind ObjectKind, schema, name string) (*Table, error) {
	t, ok := c.Table(schema, name)
	if !ok {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", name)
	}
	if kind != KindTable && t.Kind != kind {
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a%s %s", name, article(kind), kind)
	}
	return t, nil
}

// errHasDependents refuses to change what views read by name: a view
// keeps its query as text, so a renamed relation or column would no
// longer be found when the view is planned again.
func (c *Catalog) errHasDependents(t *Table, what string) error {
	for _, d := range c.ordered {
		if slices.Contains(d.DependsOn, t.ID) {
			return pgerror.New(pgerror.CodeDependentObjectsStillExist, "cannot %s %s %s because %s %s depends on it", what, t.Kind, t.Name, d.Kind, d.Name).
				WithHint("Drop the views that read it first and create them again afterwards: streamdb keeps a view's query as its text.")
		}
	}
	return nil
}

// replace returns c with t swapped for its changed copy nt.
func (c *Catalog) replace(nt *Table) *Catalog {
	n := c.clone()
	n.put(nt)
	return n.seal()
}

// rename gives the relation (or, for KindIndex, the index) schema.name of
// kind the name newName.
func (c *Catalog) rename(kind ObjectKind, schema, name, newName string, ifExists bool) (*Catalog, error) {
	schema = schemaOrDefault(schema)
	if kind == KindIndex {
		t, idx, ok := c.Index(schema, name)
		if !ok {
			if ifExists {
				return c, nil
			}
			return c, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", name)
		}
		if c.nameTaken(schema, newName) {
			return c, errRelationExists(newName)
		}
		nt := *t
		nt.Indexes = slices.Clone(t.Indexes)
		nt.Indexes[slices.IndexFunc(nt.Indexes, func(x Index) bool { return x.Name == idx.Name })].Name = newName
		return c.replace(&nt), nil
	}
	t, err := c.lookupForAlter(kind, schema, name)
	if err != nil {
		if ifExists && pgerror.Code(err) == pgerror.CodeUndefinedTable {
			return c, nil
		}
		return c, err
	}
	if c.nameTaken(schema, newName) {
		return c, errRelationExists(newName)
	}
	if err := c.errHasDependents(t, "rename"); err != nil {
		return c, err
	}
	nt := *t
	nt.Name = newName
	n := c.replace(&nt)
	if t.Sequence != nil {
		// A serial column's DEFAULT names its sequence: follow the rename.
		n = n.renameSerialDefault(t, newName)
	}
	return n, nil
}

// renameColumn renames column of the relation schema.table.
func (c *Catalog) renameColumn(kind ObjectKind, schema, table, column, newName string) (*Catalog, error) {
	t, err := c.lookupForAlter(kind, schemaOrDefault(schema), table)
	if err != nil {
		return c, err
	}
	i := t.ColumnIndex(column)
	if i < 0 || t.Columns[i].Hidden {
		return c, pgerror.New(pgerror.CodeUndefinedColumn, "column %q does not exist", column)
	}
	if t.ColumnIndex(newName) >= 0 {
		return c, pgerror.New(pgerror.CodeDuplicateColumn, "column %q of relation %q already exists", newName, t.Name)
	}
	if err := c.errHasDependents(t, "rename a column of"); err != nil {
		return c, err
	}
	nt := *t
	nt.Columns = slices.Clone(t.Columns)
	nt.Columns[i].Name = newName
	nt.Indexes = slices.Clone(t.Indexes)
	rename := func(cols []string) []string {
		cols = slices.Clone(cols)
		for j, name := range cols {
			if name == column {
				cols[j] = newName
			}
		}
		return cols
	}
	for k, idx := range nt.Indexes {
		nt.Indexes[k].Columns, nt.Indexes[k].Include = rename(idx.Columns), rename(idx.Include)
	}
	return c.replace(&nt), nil
}

// comment sets (or, with text "", removes) the comment of the relation
// schema.name or, when column is set, of its column.
func (c *Catalog) comment(kind ObjectKind, schema, name, column, text string) (*Catalog, error) {
	t, err := c.lookupForAlter(kind, schemaOrDefault(schema), name)
	if err != nil {
		return c, err
	}
	nt := *t
	if column == "" {
		nt.Comment = text
		return c.replace(&nt), nil
	}
	i := t.ColumnIndex(column)
	if i < 0 || t.Columns[i].Hidden {
		return c, pgerror.New(pgerror.CodeUndefinedColumn, "column %q of relation %q does not exist", column, t.Name)
	}
	nt.Columns = slices.Clone(t.Columns)
	nt.Columns[i].Comment = text
	return c.replace(&nt), nil
}

// DroppedColumnName is the name a dropped column keeps, as in PostgreSQL:
// no query can name it, and it keeps its place in the stored rows.
func DroppedColumnName(attnum int) string {
	return "........pg.dropped." + strconv.Itoa(attnum) + "........"
}

// alterableTable returns the table schema.name whose columns ALTER TABLE
// may change: a table fed by DML that no view reads.
func (c *Catalog) alterableTable(schema, name string) (*Table, error) {
	t, err := c.lookupForAlter(KindTable, schemaOrDefault(schema), name)
	if err != nil {
		return nil, err
	}
	if t.Kind != KindTable {
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a table", name)
	}
	if conn := t.Connector(); conn != "" {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot change the columns of table %q: its rows come from connector %s", name, conn)
	}
	if err := c.errHasDependents(t, "change the columns of"); err != nil {
		return nil, err
	}
	return t, nil
}

// addColumn appends col to the table schema.name; rows stored before
// read NULL in it. With ifNotExists a column of that name is left alone
// (and nil returned for it).
func (c *Catalog) addColumn(schema, name string, col Column, ifNotExists bool) (*Catalog, error) {
	t, err := c.alterableTable(schema, name)
	if err != nil {
		return c, err
	}
	if t.ColumnIndex(col.Name) >= 0 {
		if ifNotExists {
			return c, nil
		}
		return c, pgerror.New(pgerror.CodeDuplicateColumn, "column %q of relation %q already exists", col.Name, t.Name)
	}
	nt := *t
	nt.Columns = append(slices.Clone(t.Columns), col)
	return c.replace(&nt), nil
}

// dropColumn drops column of the table schema.name: it stays in the
// stored rows, hidden and renamed (DroppedColumnName), and new rows hold
// NULL in it. A key column cannot be dropped; with ifExists a missing
// column is no error.
func (c *Catalog) dropColumn(schema, name, column string, ifExists bool) (*Catalog, error) {
	t, err := c.alterableTable(schema, name)
	if err != nil {
		return c, err
	}
	i := t.ColumnIndex(column)
	if i < 0 || t.Columns[i].Hidden {
		if ifExists {
			return c, nil
		}
		return c, pgerror.New(pgerror.CodeUndefinedColumn, "column %q of relation %q does not exist", column, t.Name)
	}
	if slices.Contains(t.PK, i) {
		return c, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot drop column %s of table %s: it is part of the primary key", column, t.Name)
	}
	if t.Watermark != nil && t.Watermark.Column == i {
		return c, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot drop column %s of table %s: its WATERMARK FOR is on it", column, t.Name)
	}
	visible := 0
	for _, col := range t.Columns {
		if !col.Hidden {
			visible++
		}
	}
	if visible == 1 {
		return c, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot drop the last column of table %s", t.Name)
	}
	nt := *t
	nt.Columns = slices.Clone(t.Columns)
	nt.Columns[i] = Column{Name: DroppedColumnName(i + 1), Type: t.Columns[i].Type, Hidden: true, Dropped: true}
	nt.Indexes = nil
	for _, idx := range t.Indexes {
		if !slices.Contains(idx.AllColumns(), column) {
			nt.Indexes = append(nt.Indexes, idx) // PostgreSQL drops an index on the column with it
		}
	}
	n := c.replace(&nt)
	// The column's sequence (serial, identity, OWNED BY) goes with it.
	if s, ok := c.ColumnSequence(t, i); ok {
		n.remove(s)
		n.seal()
	}
	return n, nil
}
