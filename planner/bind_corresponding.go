package planner

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
)

// correspondence is the CORRESPONDING [BY (names)] of a set operation:
// both sides keep the columns of the names (by default those of the left
// side that the right side has too), in that order.
type correspondence struct {
	by []string // nil without BY
}

// correspondingOperand recognizes the SQL front's form of the right
// operand of a set operation with CORRESPONDING: SELECT
// pg_corresponding('name', ...) FROM (query) AS pg_corresponding.
func correspondingOperand(sel *ast.SelectStmt) (ast.ResultSetNode, *correspondence, bool) {
	if sel.From == nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, nil, false
	}
	f, ok := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	ts, isTS := sel.From.TableRefs.Left.(*ast.TableSource)
	if !ok || f.FnName.L != "pg_corresponding" || !isTS || sel.From.TableRefs.Right != nil {
		return nil, nil, false
	}
	c := &correspondence{}
	for _, a := range f.Args {
		c.by = append(c.by, a.(*parser.Literal).Value.Str())
	}
	return ts.Source, c, true
}

// pick projects both sides onto their corresponding columns, with errors
// as RisingWave words them.
func (c *correspondence) pick(l, r Node, op string) (Node, Node, error) {
	lnames, err := uniqueNames(l, op)
	if err != nil {
		return nil, nil, err
	}
	rnames, err := uniqueNames(r, op)
	if err != nil {
		return nil, nil, err
	}
	var li, ri []int
	names := c.by
	if names == nil {
		names = lnames
	}
	for _, name := range names {
		i, j := slices.Index(lnames, name), slices.Index(rnames, name)
		if i < 0 || j < 0 {
			if c.by == nil {
				continue
			}
			return nil, nil, pgerror.New(pgerror.CodeInvalidColumnReference,
				"column name %q in CORRESPONDING BY is not found in both sides of the %s operation", name, op)
		}
		li, ri = append(li, i), append(ri, j)
	}
	if li == nil {
		return nil, nil, pgerror.New(pgerror.CodeInvalidColumnReference,
			"%s CORRESPONDING needs a column name common to both sides: left side columns (%s), right side columns (%s)",
			op, strings.Join(lnames, ", "), strings.Join(rnames, ", "))
	}
	return pickColumns(l, li), pickColumns(r, ri), nil
}

// uniqueNames returns the names of n's visible columns, which must be
// distinct.
func uniqueNames(n Node, op string) ([]string, error) {
	var names []string
	for _, c := range n.Columns() {
		if c.Hidden {
			continue
		}
		if slices.Contains(names, c.Name) {
			return nil, pgerror.New(pgerror.CodeInvalidColumnReference,
				"column name %q appears more than once in an operand of %s CORRESPONDING", c.Name, op)
		}
		names = append(names, c.Name)
	}
	return names, nil
}

// pickColumns projects n onto its visible columns idx (positions among the
// visible ones).
func pickColumns(n Node, idx []int) Node {
	var visible []int
	for i, c := range n.Columns() {
		if !c.Hidden {
			visible = append(visible, i)
		}
	}
	cols := n.Columns()
	p := &Project{Input: n}
	for _, i := range idx {
		c := cols[visible[i]]
		p.Exprs = append(p.Exprs, &expr.ColRef{Idx: visible[i], T: c.T, Name: c.Name})
		p.Cols = append(p.Cols, c)
	}
	return p
}
