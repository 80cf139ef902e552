package meta

import (
	"slices"
	"strconv"

	"github.com/streamdb/streamdb/pgerror"
)

// OwnedSequence asks CREATE TABLE for the sequence of a serial or
// identity column: Column indexes the table's Columns.
type OwnedSequence struct {
	Column  int        `json:"column"`
	Options SeqOptions `json:"options"`
}

// maxIdentLen is PostgreSQL's NAMEDATALEN-1: longer names are truncated.
const maxIdentLen = 63

// sequenceName returns the name PostgreSQL chooses for the sequence of
// table.column: table_column_seq, numbered from 1 while taken.
func (c *Catalog) sequenceName(schema, table, column string) string {
	for i := 0; ; i++ {
		suffix := "seq"
		if i > 0 {
			suffix += strconv.Itoa(i)
		}
		name1, name2 := table, column
		for len(name1)+len(name2)+len(suffix)+2 > maxIdentLen {
			if len(name1) > len(name2) {
				name1 = name1[:len(name1)-1]
			} else {
				name2 = name2[:len(name2)-1]
			}
		}
		name := name1 + "_" + name2 + "_" + suffix
		if !c.nameTaken(schema, name) {
			return name
		}
	}
}

// checkOwner checks the OWNED BY of a sequence in schema: a column of a
// table of the same schema (55000 otherwise, as PostgreSQL).
func (c *Catalog) checkOwner(schema string, s *Sequence) error {
	if s.OwnedTable == 0 {
		return nil
	}
	t, ok := c.byID[s.OwnedTable]
	switch {
	case !ok:
		return pgerror.New(pgerror.CodeUndefinedTable, "relation with id %d does not exist", s.OwnedTable)
	case t.Kind != KindTable:
		return pgerror.New(pgerror.CodeObjectNotInState, "sequence cannot be owned by relation %q", t.Name).
			WithDetail("This operation is not supported for %ss.", t.Kind)
	case t.Schema != schema:
		return pgerror.New(pgerror.CodeObjectNotInState, "sequence must be in same schema as table it is linked to")
	case s.OwnedColumn < 0 || s.OwnedColumn >= len(t.Columns) || t.Columns[s.OwnedColumn].Hidden:
		return pgerror.New(pgerror.CodeUndefinedColumn, "column %d of relation %q does not exist", s.OwnedColumn, t.Name)
	}
	return nil
}

// createTableWithSequences adds t as createTable does and, in the same
// change, the sequences of its serial and identity columns, owned by
// them: a serial column gets DEFAULT nextval(...) and NOT NULL.
func (c *Catalog) createTableWithSequences(t *Table, owned []OwnedSequence, ifNotExists bool) (*Catalog, *Table, error) {
	n, created, err := c.createTable(t, ifNotExists)
	if err != nil || created == nil || len(owned) == 0 {
		return n, created, err
	}
	nt := *created
	nt.Columns = slices.Clone(created.Columns)
	for _, o := range owned {
		if o.Column < 0 || o.Column >= len(nt.Columns) {
			return c, nil, pgerror.New(pgerror.CodeInternal, "table %q: no column %d for a sequence", t.Name, o.Column)
		}
		col := &nt.Columns[o.Column]
		o.Options.As = col.Type.OID()
		seq, err := NewSequence(o.Options)
		if err != nil {
			return c, nil, err
		}
		seq.OwnedTable, seq.OwnedColumn = nt.ID, o.Column
		st := &Table{ID: n.nextID, Schema: nt.Schema, Name: n.sequenceName(nt.Schema, nt.Name, col.Name), Kind: KindSequence, Sequence: seq, Owner: nt.Owner}
		n.nextID++
		n.put(st)
		col.NotNull = true
		if col.Identity == 0 {
			col.Default = SerialDefault(st.Schema, st.Name)
		}
	}
	n.put(&nt)
	return n.seal(), &nt, nil
}

// OwnedSequences returns the sequences owned by columns of t.
func (c *Catalog) OwnedSequences(t *Table) []*Table {
	var out []*Table
	for _, s := range c.ordered {
		if s.Sequence != nil && s.Sequence.OwnedTable == t.ID {
			out = append(out, s)
		}
	}
	return out
}

// ColumnSequence returns the sequence t's column i owns (serial,
// identity, OWNED BY).
func (c *Catalog) ColumnSequence(t *Table, i int) (*Table, bool) {
	for _, s := range c.OwnedSequences(t) {
		if s.Sequence.OwnedColumn == i {
			return s, true
		}
	}
	return nil, false
}

// ownedBy reports whether d is a sequence owned by one of ts: it goes
// with them without CASCADE.
func ownedBy(d *Table, ts []*Table) bool {
	return d.Sequence != nil && slices.ContainsFunc(ts, func(t *Table) bool { return t.ID == d.Sequence.OwnedTable })
}

// dropSequenceUsers handles the column using sequence s when s is
// dropped: an identity column needs it (2BP01 always); a serial
// column's default goes with CASCADE (2BP01 without). It returns c with
// that default removed.
func (c *Catalog) dropSequenceUsers(s *Table, cascade bool) (*Catalog, error) {
	t, ok := c.byID[s.Sequence.OwnedTable]
	if !ok || s.Sequence.OwnedColumn >= len(t.Columns) {
		return c, nil
	}
	col := t.Columns[s.Sequence.OwnedColumn]
	switch {
	case col.Identity != 0:
		return c, pgerror.New(pgerror.CodeDependentObjectsStillExist, "cannot drop sequence %s because column %s of table %s requires it", s.Name, col.Name, t.Name).
			WithHint("You can drop column %s of table %s instead.", col.Name, t.Name)
	case col.Default != SerialDefault(s.Schema, s.Name):
		return c, nil
	case !cascade:
		return c, pgerror.New(pgerror.CodeDependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", s.Name).
			WithDetail("default value for column %s of table %s depends on sequence %s", col.Name, t.Name, s.Name).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	nt := *t
	nt.Columns = slices.Clone(t.Columns)
	nt.Columns[s.Sequence.OwnedColumn].Default = ""
	return c.replace(&nt), nil
}

// renameSerialDefault returns c with the DEFAULT of the serial column
// using sequence s, renamed to newName, following the rename.
func (c *Catalog) renameSerialDefault(s *Table, newName string) *Catalog {
	t, ok := c.byID[s.Sequence.OwnedTable]
	if !ok || s.Sequence.OwnedColumn >= len(t.Columns) || t.Columns[s.Sequence.OwnedColumn].Default != SerialDefault(s.Schema, s.Name) {
		return c
	}
	nt := *t
	nt.Columns = slices.Clone(t.Columns)
	nt.Columns[s.Sequence.OwnedColumn].Default = SerialDefault(s.Schema, newName)
	return c.replace(&nt)
}

// alterSequence applies ALTER SEQUENCE's options o (and, with owner set,
// its OWNED BY: Table 0 for NONE) to schema.name. It returns the new
// catalog and the value RESTART restarts at, nil if none.
func (c *Catalog) alterSequence(schema, name string, o SeqOptions, owner *SeqOwner, ifExists bool) (*Catalog, *int64, error) {
	t, ok := c.Table(schemaOrDefault(schema), name)
	switch {
	case !ok && ifExists:
		return c, nil, nil
	case !ok:
		return c, nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", name)
	case t.Kind != KindSequence:
		return c, nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a sequence", name)
	}
	seq, restart, err := o.apply(t.Sequence)
	if err != nil {
		return c, nil, err
	}
	if owner != nil {
		seq.OwnedTable, seq.OwnedColumn = owner.Table, owner.Column
		if err := c.checkOwner(t.Schema, seq); err != nil {
			return c, nil, err
		}
	}
	nt := *t
	nt.Sequence = seq
	return c.replace(&nt), restart, nil
}

// SeqOwner is the column of OWNED BY: Table 0 is OWNED BY NONE.
type SeqOwner struct {
	Table  uint32 `json:"table"`
	Column int    `json:"column"`
}

// sequence returns the sequence with the given id (42P01 if none, 42809
// if not a sequence).
func (c *Catalog) sequence(id uint32) (*Table, error) {
	t, ok := c.byID[id]
	switch {
	case !ok:
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "could not open relation with OID %d", id)
	case t.Kind != KindSequence:
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a sequence", t.Name)
	}
	return t, nil
}
