package planner

import (
	"sync"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// Build turns a logical plan into a batch operator tree: it prunes plans
// under a constant false condition and orders its inner joins by the row
// counts of env's storage (see Optimize; env may be nil), pushes filters
// into joins, hashes equi-joins, and gives each scan the filter and the
// columns read above it, for the nodes that hold its rows.
func Build(n Node, env *exec.Env) exec.Op {
	return build(Optimize(n, StorageRowCounts(env)))
}

// tableScan returns the operator that reads table t.
func tableScan(t *meta.Table) *exec.TableScan {
	ts := make([]types.T, len(t.Columns))
	for i, c := range t.Columns {
		ts[i] = c.Type
	}
	return &exec.TableScan{TableID: t.ID, Types: ts, RowBlocks: t.RowBlocks}
}

func build(n Node) exec.Op {
	switch x := n.(type) {
	case *Scan:
		return tableScan(x.Table)
	case *Values:
		return &exec.Values{Rows: x.Rows}
	case *Filter:
		return buildFilter(x, nil)
	case *Project:
		cols := readCols(make([]bool, len(x.Input.Columns())), x.Exprs...)
		return &exec.Project{Input: buildReading(x.Input, cols), Exprs: x.Exprs}
	case *Join:
		if x.Kind == InnerJoin && x.On != nil {
			if oneTime, rest := splitGate(x.On); oneTime != nil {
				j := *x
				j.On = rest
				return &exec.Gate{Input: buildJoin(&j), Cond: oneTime}
			}
		}
		return buildJoin(x)
	case *Apply:
		return &exec.Apply{Kind: x.Kind, Left: build(x.L), Right: build(x.R), On: x.On,
			LeftWidth: len(x.L.Columns()), RightWidth: len(x.R.Columns())}
	case *ProjectSet:
		return &exec.ProjectSet{Input: build(x.Input), Funcs: x.Funcs, Ordinality: x.Ordinality}
	case *Aggregate:
		cols := readCols(make([]bool, len(x.Input.Columns())), x.Group...)
		for _, a := range x.Aggs {
			cols = readCols(cols, append(nonNil(a.Filter), a.Args...)...)
		}
		return &exec.HashAgg{Input: buildReading(x.Input, cols), Group: x.Group, Aggs: x.Aggs, EmptySets: x.EmptySets}
	case *Expand:
		return &exec.Expand{Input: build(x.Input), Nulled: x.Nulled}
	case *Distinct:
		return &exec.Distinct{Input: build(x.Input)}
	case *Sort:
		return &exec.Sort{Input: build(x.Input), Keys: execKeys(x.Keys)}
	case *Window:
		return &exec.Window{Input: build(x.Input), Partition: x.Partition, Order: execKeys(x.Order), Funcs: x.Funcs}
	case *Limit:
		l := &exec.Limit{Input: build(x.Input), Count: x.Count, Offset: x.Offset}
		if x.WithTies {
			l.Ties = execKeys(x.Input.(*Sort).Keys)
		}
		return l
	case *SetOp:
		return &exec.SetOp{Kind: x.Kind, All: x.All, L: build(x.L), R: build(x.R)}
	}
	panic("planner: unknown node")
}

// buildFilter builds a filter whose parent reads the columns cols marks
// (nil: all of them). Over a scan, the scan gets the filter's conjuncts
// and the columns read above it, for the nodes that hold the rows to
// apply where they are (exec.Pushdown); the filter still applies all of
// its condition.
func buildFilter(x *Filter, cols []bool) exec.Op {
	if oneTime, rest := splitGate(x.Cond); oneTime != nil {
		var in Node = x.Input
		if rest != nil {
			in = &Filter{Input: x.Input, Cond: rest}
		}
		return &exec.Gate{Input: buildReading(in, cols), Cond: oneTime}
	}
	if j, ok := x.Input.(*Join); ok && j.Kind == InnerJoin {
		return build(pushIntoJoin(j, x.Cond))
	}
	s, ok := x.Input.(*Scan)
	if !ok {
		return &exec.Filter{Input: build(x.Input), Cond: x.Cond}
	}
	scan := tableScan(s.Table)
	scan.Conds = conjuncts(x.Cond)
	scan.Needed = readCols(cols, x.Cond)
	return &exec.Filter{Input: scan, Cond: x.Cond}
}

// buildReading builds n for a parent that reads only the columns of n
// that cols marks (nil: all): a scan right under it, or under a filter
// right under it, reads only those (and the filter's).
func buildReading(n Node, cols []bool) exec.Op {
	switch x := n.(type) {
	case *Scan:
		scan := tableScan(x.Table)
		scan.Needed = cols
		return scan
	case *Filter:
		return buildFilter(x, cols)
	}
	return build(n)
}

// readCols marks in cols the columns es read and returns cols; nil (all
// columns) if cols is nil or one of es has a subquery, which sees the
// whole row when it is correlated.
func readCols(cols []bool, es ...expr.Expr) []bool {
	for _, e := range es {
		expr.Walk(e, func(x expr.Expr) bool {
			switch r := x.(type) {
			case *expr.ColRef:
				if r.Idx < len(cols) {
					cols[r.Idx] = true
				} else {
					cols = nil
				}
			case *expr.Subquery:
				cols = nil
			}
			return cols != nil
		})
	}
	return cols
}

// execKeys converts sort keys for exec.
func execKeys(keys []SortKey) []exec.SortKey {
	out := make([]exec.SortKey, len(keys))
	for i, k := range keys {
		out[i] = exec.SortKey(k)
	}
	return out
}

// pushIntoJoin distributes the conjuncts of a filter over an inner join:
// one-sided conjuncts move below the join, the rest join its condition.
func pushIntoJoin(j *Join, cond expr.Expr) *Join {
	nl := len(j.L.Columns())
	var left, right, both []expr.Expr
	for _, c := range conjuncts(cond) {
		switch side(c, nl) {
		case sideLeft:
			left = append(left, c)
		case sideRight:
			right = append(right, shift(c, -nl))
		default:
			both = append(both, c)
		}
	}
	out := &Join{Kind: j.Kind, L: j.L, R: j.R, On: j.On, Temporal: j.Temporal}
	if len(left) > 0 {
		out.L = &Filter{Input: j.L, Cond: andOf(left)}
	}
	if len(right) > 0 {
		out.R = &Filter{Input: j.R, Cond: andOf(right)}
	}
	if out.On != nil {
		both = append(conjuncts(out.On), both...)
	}
	if len(both) > 0 {
		out.On = andOf(both)
	}
	return out
}

func buildJoin(j *Join) exec.Op {
	j = pushOnDown(j)
	nl, nr := len(j.L.Columns()), len(j.R.Columns())
	op := &exec.Join{Kind: j.Kind, Left: build(j.L), Right: build(j.R), LeftWidth: nl, RightWidth: nr}
	op.LeftKeys, op.RightKeys, op.On = equiJoin(j.On, nl)
	return op
}

// pushOnDown moves the one-sided conjuncts of an inner join's ON clause
// below the join; other joins are returned as they are.
func pushOnDown(j *Join) *Join {
	if j.Kind != InnerJoin || j.On == nil {
		return j
	}
	return pushIntoJoin(&Join{Kind: j.Kind, L: j.L, R: j.R, Temporal: j.Temporal}, j.On)
}

// equiJoin splits a join condition over the concatenated row (nl left
// columns first) into equality keys, left ones over the left input and
// right ones over the right input, and the residual condition (nil if
// none).
func equiJoin(on expr.Expr, nl int) (left, right []expr.Expr, residual expr.Expr) {
	if on == nil {
		return nil, nil, nil
	}
	var rest []expr.Expr
	for _, c := range conjuncts(on) {
		if l, r, ok := hashEquality(c); ok {
			ls, rs := side(l, nl), side(r, nl)
			if ls == sideLeft && rs == sideRight {
				left = append(left, l)
				right = append(right, shift(r, -nl))
				continue
			}
			if ls == sideRight && rs == sideLeft {
				left = append(left, r)
				right = append(right, shift(l, -nl))
				continue
			}
		}
		rest = append(rest, c)
	}
	if len(rest) > 0 {
		residual = andOf(rest)
	}
	return left, right, residual
}

// hashEquality returns the operands of c as hash keys when c is an
// equality of values that hash alike: of one type family, or a date and a
// timestamp, the date converted as their comparison converts it.
func hashEquality(c expr.Expr) (l, r expr.Expr, ok bool) {
	b, isBinary := c.(*expr.Binary)
	if !isBinary || b.Op != "=" {
		return nil, nil, false
	}
	l, r = b.L, b.R
	lf, rf := l.Type().Family, r.Type().Family
	switch {
	case lf == rf:
	case lf == types.Date && (rf == types.Timestamp || rf == types.TimestampTZ):
		l = &expr.Cast{E: l, To: r.Type(), Compare: true}
	case rf == types.Date && (lf == types.Timestamp || lf == types.TimestampTZ):
		r = &expr.Cast{E: r, To: l.Type(), Compare: true}
	default:
		return nil, nil, false
	}
	return l, r, true
}

func conjuncts(e expr.Expr) []expr.Expr {
	if a, ok := e.(*expr.And); ok {
		var out []expr.Expr
		for _, x := range a.Args {
			out = append(out, conjuncts(x)...)
		}
		return out
	}
	return []expr.Expr{e}
}

type sideOf uint8

const (
	sideNone  sideOf = iota // constant: no column references
	sideLeft                // only columns < nl
	sideRight               // only columns >= nl
	sideBoth                // both, or something that must stay in place
)

// side classifies which join input an expression reads. Expressions with
// subqueries or outer references stay where they are.
func side(e expr.Expr, nl int) sideOf {
	s := sideNone
	expr.Walk(e, func(x expr.Expr) bool {
		switch r := x.(type) {
		case *expr.ColRef:
			cur := sideLeft
			if r.Idx >= nl {
				cur = sideRight
			}
			if s == sideNone {
				s = cur
			} else if s != cur {
				s = sideBoth
			}
		case *expr.Subquery, *expr.OuterRef:
			s = sideBoth
			return false
		case *expr.Func:
			if r.Volatile() {
				s = sideBoth
				return false
			}
		}
		return s != sideBoth
	})
	if s == sideNone {
		return sideBoth
	}
	return s
}

// shift moves column references by delta.
func shift(e expr.Expr, delta int) expr.Expr {
	return mapCols(e, func(i int) int { return i + delta })
}

// mapCols renumbers column references: column i becomes column to(i).
func mapCols(e expr.Expr, to func(int) int) expr.Expr {
	out, _ := expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		if r, ok := x.(*expr.ColRef); ok {
			return &expr.ColRef{Idx: to(r.Idx), T: r.T, Name: r.Name}, true, nil
		}
		return nil, false, nil
	})
	return out
}

// subPlan runs a subquery's logical plan; its operator tree is built on
// first use.
type subPlan struct {
	node Node
	once sync.Once
	op   exec.Op
}

// Run implements expr.SubPlan.
func (p *subPlan) Run(c *expr.Ctx, emit func([]types.Datum) (bool, error)) error {
	p.once.Do(func() { p.op = Build(p.node, exec.EnvFrom(c.Context)) })
	return p.op.Run(c, emit)
}

// String implements expr.SubPlan.
func (p *subPlan) String() string { return "subplan" }
