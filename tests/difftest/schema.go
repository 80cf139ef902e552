package difftest

import (
	"slices"
	"strconv"
	"strings"
)

// Table is a generated table and its initial rows.
type Table struct {
	Name string
	Cols []column // names and types
	PK   int      // the primary key column, -1 for none
	Rows [][]Value
	// keys are the primary key values given out so far.
	keys map[string]bool
}

// DDL returns the table's CREATE TABLE statement.
func (t *Table) DDL() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + " (")
	for i, c := range t.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.name + " " + c.t.String())
		if i == t.PK {
			b.WriteString(" PRIMARY KEY")
		}
	}
	return b.String() + ")"
}

// insertSQL returns an INSERT of rows into t.
func (t *Table) insertSQL(rows [][]Value) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + t.Name + " VALUES ")
	for i, row := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(valueSQL(t.Cols[j].t, v.S, v.Null))
		}
		b.WriteString(")")
	}
	return b.String()
}

// relation returns the table as something queries read.
func (t *Table) relation() *relation { return &relation{name: t.Name, cols: t.Cols} }

// schema returns 2 or 3 tables whose columns come from one pool of names,
// each name with one type, so that USING and NATURAL joins find common
// columns. Some tables have a primary key, some are empty.
func (g *gen) schema() []*Table {
	pool := make([]column, 5+g.r.IntN(4))
	for i := range pool {
		pool[i] = column{name: "c" + strconv.Itoa(i), t: g.anyType()}
	}
	pool[0].t = pick(g.r, []Type{Int4, Int8, Int2, Text})
	tables := make([]*Table, 2+g.r.IntN(2))
	for i := range tables {
		t := &Table{Name: "t" + strconv.Itoa(i), PK: -1, keys: map[string]bool{}}
		idx := g.r.Perm(len(pool))[:2+g.r.IntN(3)]
		slices.Sort(idx)
		for _, j := range idx {
			t.Cols = append(t.Cols, pool[j])
		}
		if g.r.IntN(2) == 0 {
			t.PK = slices.IndexFunc(t.Cols, func(c column) bool { return c.t.isInt() || c.t == Text })
		}
		if g.r.IntN(10) > 0 {
			t.Rows = g.rows(t, 1+g.r.IntN(10))
		}
		tables[i] = t
	}
	return tables
}

// rows returns n new rows for t, with fresh primary keys.
func (g *gen) rows(t *Table, n int) [][]Value {
	rows := make([][]Value, n)
	for i := range rows {
		rows[i] = make([]Value, len(t.Cols))
		for j, c := range t.Cols {
			if j == t.PK {
				rows[i][j] = Value{S: g.key(t)}
				continue
			}
			v, null := g.value(c.t, true)
			rows[i][j] = Value{S: v, Null: null}
		}
	}
	return rows
}

// key returns a primary key value for t not given out before.
func (g *gen) key(t *Table) string {
	for range 20 {
		v, _ := g.value(t.Cols[t.PK].t, false)
		if !t.keys[v] {
			t.keys[v] = true
			return v
		}
	}
	v := strconv.Itoa(100 + len(t.keys))
	if t.Cols[t.PK].t == Text {
		v = "k" + v
	}
	t.keys[v] = true
	return v
}

// value returns a value of type t (NULL sometimes, when nullable) that both
// servers read alike.
func (g *gen) value(t Type, nullable bool) (string, bool) {
	for {
		v, null := randomValue(g.r, t, nullable)
		if null || !g.bad[t][v] {
			return v, null
		}
	}
}

// DML is a generated INSERT, UPDATE or DELETE; its expressions are ASTs
// the reducer can shrink.
type DML struct {
	Table *Table
	Rows  [][]Value // INSERT
	// UPDATE sets Set[i] to Values[i]; UPDATE and DELETE filter by Where.
	Set    []string
	Values []*Expr
	Where  *Expr
	Delete bool
}

// SQL returns the statement.
func (d *DML) SQL() string {
	switch {
	case d.Rows != nil:
		return d.Table.insertSQL(d.Rows)
	case d.Delete:
		return "DELETE FROM " + d.Table.Name + d.where()
	default:
		var sets []string
		for i, c := range d.Set {
			sets = append(sets, c+" = "+d.Values[i].SQL())
		}
		return "UPDATE " + d.Table.Name + " SET " + strings.Join(sets, ", ") + d.where()
	}
}

func (d *DML) where() string {
	if d.Where == nil {
		return ""
	}
	return " WHERE " + d.Where.SQL()
}

// dml returns a random INSERT (fresh keys), UPDATE (of columns other than
// the key) or DELETE on one of tables.
func (g *gen) dml(tables []*Table) *DML {
	t := pick(g.r, tables)
	sc := &scope{}
	for _, c := range t.Cols {
		sc.cols = append(sc.cols, column{ref: c.name, name: c.name, t: c.t, bare: true})
	}
	d := &DML{Table: t}
	k := g.r.IntN(10)
	switch {
	case k < 4:
		d.Rows = g.rows(t, 1+g.r.IntN(3))
		return d
	case k < 7:
		for _, i := range g.r.Perm(len(t.Cols))[:1+g.r.IntN(2)] {
			if i != t.PK {
				d.Set = append(d.Set, t.Cols[i].name)
				d.Values = append(d.Values, g.expr(t.Cols[i].t, sc, 2))
			}
		}
		if d.Set == nil {
			d.Delete = true
		}
	default:
		d.Delete = true
	}
	if g.r.IntN(5) > 0 {
		d.Where = g.expr(Bool, sc, 2)
	}
	return d
}

// shape is the statement with names and values abstracted.
func (d *DML) shape() string {
	switch {
	case d.Rows != nil:
		return "INSERT"
	case d.Delete:
		return "DELETE" + d.whereShape()
	}
	s := "UPDATE SET"
	for _, v := range d.Values {
		s += " " + v.shape()
	}
	return s + d.whereShape()
}

func (d *DML) whereShape() string {
	if d.Where == nil {
		return ""
	}
	return " WHERE " + d.Where.shape()
}

// features are the kinds of the statement's expressions' nodes.
func (d *DML) features() []string {
	q := &Query{Sel: &Select{Items: []Item{}, Where: d.Where}}
	for _, v := range d.Values {
		q.Sel.Items = append(q.Sel.Items, Item{E: v})
	}
	return q.features()
}
