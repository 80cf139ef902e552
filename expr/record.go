package expr

import (
	"strconv"

	"github.com/streamdb/streamdb/types"
)

// RowCtor is ROW(e1, e2, ...), a record of its fields' values (also a
// whole-row reference t, whose fields have the relation's column names).
type RowCtor struct {
	Fields []Expr
	T      types.T
}

// NewRowCtor returns a record of fields, named by names (nil: f1, f2, ...
// as PostgreSQL names ROW(...)'s fields), folded into a constant when
// every field is one.
func NewRowCtor(fields []Expr, names []string) Expr {
	fs := make([]types.Field, len(fields))
	vals := make([]types.Datum, len(fields))
	consts := true
	for i, f := range fields {
		fs[i] = types.Field{Name: "f" + strconv.Itoa(i+1), T: f.Type()}
		if names != nil {
			fs[i].Name = names[i]
		}
		if c, ok := f.(*Const); ok {
			vals[i] = c.V
		} else {
			consts = false
		}
	}
	t := types.RecordOf(fs)
	if consts {
		return NewConst(types.NewRecord(vals), t)
	}
	return &RowCtor{Fields: fields, T: t}
}

// Type implements Expr.
func (e *RowCtor) Type() types.T { return e.T }

// Eval implements Expr.
func (e *RowCtor) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	vals := make([]types.Datum, len(e.Fields))
	for i, f := range e.Fields {
		v, err := f.Eval(c, row)
		if err != nil {
			return types.Null, err
		}
		vals[i] = v
	}
	return types.NewRecord(vals), nil
}

// String implements Expr.
func (e *RowCtor) String() string { return "ROW(" + joinStrings(e.Fields, ", ") + ")" }

// Children implements Expr.
func (e *RowCtor) Children() []Expr { return e.Fields }

// WithChildren implements Expr.
func (e *RowCtor) WithChildren(ch []Expr) Expr { return &RowCtor{Fields: ch, T: e.T} }

// FieldSel is (e).name: field Idx of the record e, NULL when e is NULL.
type FieldSel struct {
	E   Expr
	Idx int
}

// NewFieldSel returns (e).name, or PostgreSQL's error when e is not a
// record or has no field of that name.
func NewFieldSel(e Expr, name string) (Expr, error) {
	i, err := e.Type().FieldIndex(name)
	if err != nil {
		return nil, err
	}
	if r, ok := e.(*RowCtor); ok {
		return r.Fields[i], nil
	}
	return &FieldSel{E: e, Idx: i}, nil
}

// Type implements Expr.
func (e *FieldSel) Type() types.T { return e.E.Type().Fields()[e.Idx].T }

// Eval implements Expr.
func (e *FieldSel) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	v, err := e.E.Eval(c, row)
	if err != nil || v.IsNull() {
		return types.Null, err
	}
	return v.Record()[e.Idx], nil
}

// String implements Expr.
func (e *FieldSel) String() string {
	name := e.E.Type().Fields()[e.Idx].Name
	return "(" + e.E.String() + ")." + strconv.Quote(name)
}

// Children implements Expr.
func (e *FieldSel) Children() []Expr { return []Expr{e.E} }

// WithChildren implements Expr.
func (e *FieldSel) WithChildren(ch []Expr) Expr { return &FieldSel{E: ch[0], Idx: e.Idx} }

// rowIsNull is IS NULL of a record as PostgreSQL tests it: true when every
// field is NULL, and IS NOT NULL true when none is.
func rowIsNull(v types.Datum, not bool) bool {
	for _, f := range v.Record() {
		if f.IsNull() == not {
			return false
		}
	}
	return true
}
