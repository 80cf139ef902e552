package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
	"slices"
)

// Values emits constant rows.
type Values struct {
	Rows [][]expr.Expr
}

// Run implements Op.
func (v *Values) Run(c *expr.Ctx, emit Emit) error {
	var row []types.Datum
	for _, r := range v.Rows {
		row = row[:0]
		for _, e := range r {
			d, err := e.Eval(c, nil)
			if err != nil {
				return err
			}
			row = append(row, d)
		}
		if more, err := emit(row); err != nil || !more {
			return err
		}
	}
	return nil
}

// Rows emits rows already in memory.
type Rows [][]types.Datum

// Run implements Op.
func (r Rows) Run(_ *expr.Ctx, emit Emit) error {
	for _, row := range r {
		if more, err := emit(row); err != nil || !more {
			return err
		}
	}
	return nil
}

// Filter passes rows for which Cond is true.
type Filter struct {
	Input Op
	Cond  expr.Expr
}

// Run implements Op.
func (f *Filter) Run(c *expr.Ctx, emit Emit) error {
	return f.Input.Run(c, func(row []types.Datum) (bool, error) {
		v, err := f.Cond.Eval(c, row)
		if err != nil {
			return false, err
		}
		if v.IsNull() || !v.Bool() {
			return true, nil
		}
		return emit(row)
	})
}

// Project computes expressions over each row.
type Project struct {
	Input Op
	Exprs []expr.Expr
}

// Run implements Op.
func (p *Project) Run(c *expr.Ctx, emit Emit) error {
	out := make([]types.Datum, len(p.Exprs))
	return p.Input.Run(c, func(row []types.Datum) (bool, error) {
		for i, e := range p.Exprs {
			v, err := e.Eval(c, row)
			if err != nil {
				return false, err
			}
			out[i] = v
		}
		return emit(out)
	})
}

// Limit skips Offset rows and passes at most Count. With Ties (FETCH ...
// WITH TIES over input sorted by Ties), the rows that are peers of the last
// of those by Ties pass too, and a NULL Count is an error.
type Limit struct {
	Input         Op
	Count, Offset expr.Expr
	Ties          []SortKey
}

// Run implements Op.
func (l *Limit) Run(c *expr.Ctx, emit Emit) error {
	count, offset := int64(-1), int64(0)
	// As in PostgreSQL, OFFSET is checked before LIMIT, each with its own
	// SQLSTATE.
	for _, x := range []struct {
		e    expr.Expr
		dst  *int64
		nm   string
		code string
	}{{l.Offset, &offset, "OFFSET", "2201X"}, {l.Count, &count, "LIMIT", "2201W"}} {
		if x.e == nil {
			continue
		}
		v, err := x.e.Eval(c, nil)
		if err != nil {
			return err
		}
		if v.IsNull() {
			if l.Ties != nil && x.dst == &count {
				return pgerror.New(x.code, "row count cannot be null in FETCH FIRST ... WITH TIES clause")
			}
			continue
		}
		if v.Int() < 0 {
			return pgerror.New(x.code, "%s must not be negative", x.nm)
		}
		*x.dst = v.Int()
	}
	if count == 0 {
		return nil
	}
	seen := int64(0)
	var last []types.Datum
	return l.Input.Run(c, func(row []types.Datum) (bool, error) {
		seen++
		if seen <= offset {
			return true, nil
		}
		if last != nil && compareRows(l.Ties, last, row) != 0 {
			return false, nil
		}
		more, err := emit(row)
		if count >= 0 && seen-offset >= count && last == nil {
			if l.Ties == nil {
				return false, err
			}
			last = slices.Clone(row)
		}
		return more, err
	})
}

// Gate runs Input only if Cond, which reads no column of the row (a
// PostgreSQL one-time filter: constants, parameters, columns of enclosing
// queries, uncorrelated subqueries), is true; it is evaluated once per
// Run, before Input.
type Gate struct {
	Input Op
	Cond  expr.Expr
}

// Run implements Op.
func (g *Gate) Run(c *expr.Ctx, emit Emit) error {
	v, err := g.Cond.Eval(c, nil)
	if err != nil || v.IsNull() || !v.Bool() {
		return err
	}
	return g.Input.Run(c, emit)
}
