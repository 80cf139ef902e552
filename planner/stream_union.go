package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// planSetOp plans UNION [ALL] with one Union operator over every branch
// of a chain of unions, EXCEPT and INTERSECT [ALL] with a SetOp.
func (p *streamPlanner) planSetOp(x *SetOp) (*stream, error) {
	if x.Kind != Union {
		return p.exceptIntersect(x)
	}
	var branches []*stream
	for _, n := range unionBranches(x, x.All) {
		b, err := p.plan(n)
		if err != nil {
			return nil, err
		}
		branches = append(branches, b)
	}
	if x.All {
		return p.unionAll(x.Cols, branches), nil
	}
	return p.unionDistinct(x.Cols, branches), nil
}

// unionBranches flattens a chain of unions into its branches: under UNION
// ALL only UNION ALL nests flatly, under UNION every union does.
func unionBranches(n Node, all bool) []Node {
	if s, ok := n.(*SetOp); ok && s.Kind == Union && (s.All || !all) {
		return append(unionBranches(s.L, all), unionBranches(s.R, all)...)
	}
	return []Node{n}
}

// unionAll merges the branches. Each branch adds a hidden branch number
// and its stream key in key slots (NULL in the slots of other branches'
// keys), so that the union's stream key, the branch number and the slots,
// stays unique; branches whose keys have the same types share slots.
func (p *streamPlanner) unionAll(cols []Column, branches []*stream) *stream {
	width := len(cols)
	slots := []Column{{Name: "_branch", T: types.TInt4, Hidden: true}}
	fill := make([][]int, len(branches)) // the column of each branch's key column
	for i, b := range branches {
		used := make([]bool, len(slots))
		used[0] = true
		for _, k := range b.key {
			j := 0
			for j < len(slots) && (used[j] || slots[j].T != b.cols[k].T) {
				j++
			}
			if j == len(slots) {
				slots = append(slots, Column{Name: b.cols[k].Name, T: b.cols[k].T, Hidden: true})
				used = append(used, false)
			}
			used[j] = true
			fill[i] = append(fill[i], width+j)
		}
	}
	out := &stream{cols: slices.Concat(cols, slots), key: seq(width, width+len(slots)), appendOnly: true}
	inputs := make([]dataflow.InputSpec, len(branches))
	for i, b := range branches {
		exprs := make([]expr.Expr, len(out.cols))
		src := make([]int, len(out.cols))
		for j := range exprs {
			exprs[j], src[j] = expr.NewConst(types.Null, out.cols[j].T), -1
			if j < width {
				exprs[j], src[j] = b.ref(j), j
			}
		}
		exprs[width] = expr.NewConst(types.NewInt(int64(i)), types.TInt4)
		for n, k := range b.key {
			exprs[fill[i][n]], src[fill[i][n]] = b.ref(k), k
		}
		b.apply(exprs, out.cols, src)
		inputs[i] = p.input(b, hashOn(out.key))
		out.appendOnly = out.appendOnly && b.appendOnly
	}
	out.frag = p.newFragment(false, inputs, &dataflow.UnionSpec{Inputs: len(inputs)})
	out.dist = out.key
	return out
}

// unionDistinct merges the branches' visible rows into a HashAgg grouping
// by every column: duplicates only count, so no branch needs a key.
func (p *streamPlanner) unionDistinct(cols []Column, branches []*stream) *stream {
	group := seq(0, len(cols))
	inputs := make([]dataflow.InputSpec, len(branches))
	appendOnly := true
	for i, b := range branches {
		inputs[i] = p.visibleInput(b, len(cols))
		appendOnly = appendOnly && b.appendOnly
	}
	frag := p.newFragment(false, inputs, &dataflow.UnionSpec{Inputs: len(inputs)})
	spec := &dataflow.HashAggSpec{GroupKey: group, InputTypes: typesOf(cols), AppendOnly: appendOnly}
	p.aggTables(spec)
	frag.Chain = append(frag.Chain, spec)
	return &stream{cols: cols, key: group, frag: frag, dist: group}
}

// exceptIntersect plans EXCEPT or INTERSECT [ALL] with a SetOp over both
// inputs' visible rows. Its stream key is the row, and, for ALL, the
// number of each copy. With inserts only on both sides an INTERSECT only
// gains copies.
func (p *streamPlanner) exceptIntersect(x *SetOp) (*stream, error) {
	l, err := p.plan(x.L)
	if err != nil {
		return nil, err
	}
	r, err := p.plan(x.R)
	if err != nil {
		return nil, err
	}
	width := len(x.Cols)
	inputs := []dataflow.InputSpec{p.visibleInput(l, width), p.visibleInput(r, width)}
	spec := &dataflow.SetOpSpec{Kind: x.Kind, All: x.All, InputTypes: typesOf(x.Cols), StateTable: p.alloc()}
	out := &stream{cols: x.Cols, key: seq(0, width), dist: seq(0, width),
		appendOnly: x.Kind == Intersect && l.appendOnly && r.appendOnly,
		frag:       p.newFragment(false, inputs, spec)}
	if x.All {
		out.cols = append(slices.Clip(x.Cols), Column{Name: "_copy", T: types.TInt8, Hidden: true})
		out.key = append(out.key, width)
	}
	return out, nil
}

// visibleInput is the input of a consumer that reads the first width
// columns of b, its visible ones, routed by all of them: hidden columns
// are dropped.
func (p *streamPlanner) visibleInput(b *stream, width int) dataflow.InputSpec {
	all := seq(0, width)
	if len(b.cols) > width {
		exprs := make([]expr.Expr, width)
		for j := range exprs {
			exprs[j] = b.ref(j)
		}
		b.apply(exprs, b.cols[:width], all)
	}
	return p.input(b, hashOn(all))
}
