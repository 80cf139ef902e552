// SELECT DISTINCT ON (exprs): the first row of each group of rows equal on
// exprs, by the ORDER BY, planned as a row_number() partitioned by exprs
// and filtered to 1, which views keep with a group Top-1.

package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// distinctOnMarker splits the select list fl into the expressions of
// the pg_distinct_on marker the SQL front puts first for DISTINCT ON (nil
// without one) and the select list proper.
func distinctOnMarker(fl *ast.FieldList) ([]*ast.ByItem, *ast.FieldList) {
	if len(fl.Fields) == 0 {
		return nil, fl
	}
	f, ok := fl.Fields[0].Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_distinct_on" {
		return nil, fl
	}
	items := make([]*ast.ByItem, len(f.Args))
	for i, a := range f.Args {
		items[i] = &ast.ByItem{Expr: a}
	}
	return items, &ast.FieldList{Fields: fl.Fields[1:]}
}

// checkDistinctOn checks, as PostgreSQL does, that the DISTINCT ON keys on
// and the ORDER BY keys order agree: the ORDER BY keys that are DISTINCT
// ON keys come first, and after one that is not, no DISTINCT ON key may
// be left.
func checkDistinctOn(on, order []SortKey) error {
	isOn := func(k SortKey) bool {
		return slices.ContainsFunc(on, func(o SortKey) bool { return o.Col == k.Col })
	}
	matched := 0
	for _, k := range order {
		if !isOn(k) {
			break
		}
		matched++
	}
	leading := order[:matched]
	for _, k := range order[matched:] {
		if isOn(k) {
			return distinctOnMismatch()
		}
	}
	if len(order) > matched {
		for _, o := range on {
			if !slices.ContainsFunc(leading, func(k SortKey) bool { return k.Col == o.Col }) {
				return distinctOnMismatch()
			}
		}
	}
	return nil
}

// distinctOnMismatch is PostgreSQL's error for DISTINCT ON keys that do not
// lead the ORDER BY.
func distinctOnMismatch() error {
	return pgerror.New(pgerror.CodeInvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
}

// firstPerGroup keeps, of the rows of input, the first of each group of
// rows equal on the columns of on (NULLs equal), by order.
func firstPerGroup(input Node, on, order []SortKey) Node {
	cols := input.Columns()
	w := &Window{Input: input, Order: order, Funcs: []WindowFunc{{Name: "row_number"}},
		Cols: append(slices.Clip(cols), Column{Name: "row_number", T: types.TInt8, Hidden: true})}
	for _, k := range on {
		if !slices.Contains(w.Partition, k.Col) {
			w.Partition = append(w.Partition, k.Col)
		}
	}
	rn := &expr.ColRef{Idx: len(cols), T: types.TInt8, Name: "row_number"}
	first, err := expr.NewBinary("=", rn, expr.NewConst(types.NewInt(1), types.TInt8))
	if err != nil {
		panic(err) // int8 = int8 always resolves
	}
	exprs := make([]expr.Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
	}
	return &Project{Input: &Filter{Input: w, Cond: first}, Exprs: exprs, Cols: cols}
}
