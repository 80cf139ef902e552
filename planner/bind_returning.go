package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// bindReturning binds the RETURNING list of a DML statement on t, whose
// target is named alias ("" for the table's name), into a Project over a
// Values without rows that stands for the rows the statement writes: full
// rows of t, hidden columns included (the new row of an insert or update,
// the old one of a delete). It returns nil when there is no list.
// Aggregates, window functions and set-returning functions are not
// allowed there, as in PostgreSQL.
func (b *Binder) bindReturning(t *meta.Table, alias string, list []*ast.SelectField) (*Project, error) {
	if list == nil {
		return nil, nil
	}
	saved := b.aggForbidden
	b.aggForbidden = "RETURNING"
	defer func() { b.aggForbidden = saved }()
	defer b.noWindows(windowsNotAllowed("RETURNING"))()
	defer b.noSRFs(srfsNotAllowed("RETURNING"))()
	rows := &Values{Cols: tableColumns(t, alias)}
	s := (&scope{}).child(rows.Cols, nil)
	fields, names, err := b.expandFields(&ast.FieldList{Fields: list}, s)
	if err != nil {
		return nil, err
	}
	p := &Project{Input: rows, Exprs: make([]expr.Expr, len(fields)), Cols: make([]Column, len(fields))}
	for i, f := range fields {
		e, err := b.bindExpr(f, s)
		if err != nil {
			return nil, err
		}
		p.Cols[i] = outputColumn(names[i], e, rows.Cols)
		p.Cols[i].T = outputType(e.Type())
		if p.Exprs[i], err = b.coerce(e, types.TText); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// tableColumns returns the columns of a DML statement's target t, named
// alias ("" for the table's name), hidden ones included.
func tableColumns(t *meta.Table, alias string) []Column {
	if alias == "" {
		alias = t.Name
	}
	cols := make([]Column, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = Column{Name: c.Name, Table: alias, T: c.Type, Hidden: c.Hidden, TableID: t.ID, Attr: int16(i + 1)}
	}
	return cols
}

// outputColumn is the output column named name of a select-list
// expression e over input columns in: a column it reads as is keeps its
// table and attribute number, which RowDescription reports.
func outputColumn(name string, e expr.Expr, in []Column) Column {
	c := Column{Name: name, T: e.Type()}
	if cr, ok := e.(*expr.ColRef); ok {
		c.TableID, c.Attr = in[cr.Idx].TableID, in[cr.Idx].Attr
	}
	return c
}
