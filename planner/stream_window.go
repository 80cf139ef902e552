package planner

import (
	"context"
	"math"
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// A streaming job computes window functions in an OverWindow (any
// function and frame the batch evaluator computes), or, in one shape, in a
// Top-N per partition:
//
//	SELECT ... FROM (SELECT ..., row_number() OVER (PARTITION BY p ORDER BY o) AS rn FROM t) s
//	WHERE rn <= N
//
// The filter over the row numbers becomes a Top-N grouped by p, ranked by
// o, in a fragment hashed on p (a singleton without PARTITION BY). When
// the row numbers are selected, the Top-N numbers the rows it keeps and
// updates those whose numbers shift.

// groupTopN is a Window computing only row_number(), filtered to the row
// numbers offset+1 .. offset+limit (limit < 0: no upper bound). It only
// exists while the streaming planner plans a filter over row numbers.
type groupTopN struct {
	w             *Window
	limit, offset int64
	// ties: the numbers are rank()s, so rows tied with a kept row are kept.
	ties bool
}

// Columns implements Node.
func (n *groupTopN) Columns() []Column { return n.w.Cols }

// Inputs implements Node.
func (n *groupTopN) Inputs() []Node { return []Node{n.w.Input} }

func (n *groupTopN) explain() string { return "GroupTopN" }

// topNFilter is a filter whose conjuncts bound the row numbers of a Window
// below it (through projections).
type topNFilter struct {
	top *groupTopN
	// projs are the projections from the filter down to the Window.
	projs []*Project
	// rest are the conjuncts that do not bound row numbers.
	rest []expr.Expr
}

// matchTopN reports whether f is a filter on row numbers that a Top-N can
// keep. A filter that reads row numbers in another way is an error.
func matchTopN(f *Filter) (*topNFilter, bool, error) {
	m := &topNFilter{}
	n := f.Input
	for {
		p, ok := n.(*Project)
		if !ok {
			break
		}
		m.projs = append(m.projs, p)
		n = p.Input
	}
	w, ok := n.(*Window)
	if !ok {
		return nil, false, nil
	}
	ties := false
	for _, fn := range w.Funcs {
		switch fn.Name {
		case "row_number":
		case "rank":
			ties = true
		default:
			return nil, false, nil
		}
	}
	if ties && len(w.Funcs) > 1 {
		return nil, false, nil
	}
	// isRN reports whether column c of the filter's input is a row number.
	isRN := func(c int) bool {
		for _, p := range m.projs {
			r, ok := p.Exprs[c].(*expr.ColRef)
			if !ok {
				return false
			}
			c = r.Idx
		}
		return c >= len(w.Input.Columns())
	}
	lo, hi := int64(1), int64(math.MaxInt64)
	bounded := false
	for _, c := range conjuncts(f.Cond) {
		if l, h, ok := rowNumberBound(c, isRN); ok {
			lo, hi, bounded = max(lo, l), min(hi, h), true
			continue
		}
		if readsColumn(c, isRN) {
			return nil, false, pgerror.New(pgerror.CodeFeatureNotSupported, "this condition on a row number cannot be maintained by a materialized view yet").
				WithHint("Compare the row number with integer constants: rn <= N, rn < N, rn = N, rn > N, rn >= N or BETWEEN.")
		}
		m.rest = append(m.rest, c)
	}
	if !bounded {
		return nil, false, nil
	}
	m.top = &groupTopN{w: w, limit: -1, offset: lo - 1, ties: ties}
	if hi < math.MaxInt64 {
		m.top.limit = max(hi-lo+1, 0)
	}
	return m, true, nil
}

// plan rebuilds the filter over the Top-N: the projections, then the
// conjuncts that remain.
func (m *topNFilter) plan() Node {
	var n Node = m.top
	for i := len(m.projs) - 1; i >= 0; i-- {
		n = &Project{Input: n, Exprs: m.projs[i].Exprs, Cols: m.projs[i].Cols}
	}
	if len(m.rest) > 0 {
		n = &Filter{Input: n, Cond: andOf(m.rest)}
	}
	return n
}

// rowNumberBound reads c as a comparison of a row number (a column for
// which isRN holds) with an integer constant, and returns the range
// [lo, hi] of row numbers it keeps.
func rowNumberBound(c expr.Expr, isRN func(int) bool) (lo, hi int64, ok bool) {
	b, ok := c.(*expr.Binary)
	if !ok {
		return 0, 0, false
	}
	op, col, k := b.Op, b.L, b.R
	if _, ok := col.(*expr.ColRef); !ok {
		col, k = k, col
		op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}[op]
	}
	r, ok := col.(*expr.ColRef)
	if !ok || !isRN(r.Idx) || !k.Type().IsInteger() || !isConstant(k) {
		return 0, 0, false
	}
	v, err := k.Eval(expr.NewCtx(context.Background(), nil), nil)
	if err != nil || v.IsNull() {
		return 0, 0, false
	}
	n := v.Int()
	lo, hi = 1, math.MaxInt64
	switch op {
	case "<":
		hi = max(n, 1) - 1
	case "<=":
		hi = n
	case "=":
		lo, hi = n, n
	case ">":
		lo = min(n, math.MaxInt64-1) + 1
	case ">=":
		lo = n
	default:
		return 0, 0, false
	}
	return lo, hi, true
}

// isConstant reports whether e reads no row and always has one value.
func isConstant(e expr.Expr) bool {
	constant := true
	expr.Walk(e, func(x expr.Expr) bool {
		switch f := x.(type) {
		case *expr.ColRef, *expr.OuterRef, *expr.Param, *expr.Subquery:
			constant = false
		case *expr.Func:
			constant = !f.Volatile()
		}
		return constant
	})
	return constant
}

// readsColumn reports whether e reads a column for which is holds.
func readsColumn(e expr.Expr, is func(int) bool) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if r, ok := x.(*expr.ColRef); ok && is(r.Idx) {
			found = true
		}
		return !found
	})
	return found
}

// planGroupTopN keeps the Top-N of each partition in a fragment hashed on
// the partition key, numbering its rows when the plan reads the row
// numbers (p.uses).
// Its stream key is the partition key, then the input's.
func (p *streamPlanner) planGroupTopN(x *groupTopN) (*stream, error) {
	w := x.w
	in, d, frag, err := p.partitioned(w)
	if err != nil {
		return nil, err
	}
	spec := &dataflow.TopNSpec{GroupKey: w.Partition, Limit: x.limit, Offset: x.offset, WithTies: x.ties,
		InputTypes: typesOf(in.cols), StreamKey: in.key, StateTable: p.alloc()}
	for _, k := range w.Order {
		spec.Order = append(spec.Order, dataflow.SortKey(k))
	}
	frag.Chain = append(frag.Chain, spec)
	// A row whose partition changes leaves one actor's Top-N and enters
	// another's: the key includes the partition, so that downstream the
	// delete and the insert, which race, are rows of different keys.
	out := &stream{cols: in.cols, key: partitionFirst(in.key, w.Partition), frag: frag}
	if !d.single {
		out.dist = d.keys
	}
	n := len(w.Input.Columns())
	exprs := make([]expr.Expr, n, len(w.Cols))
	for i := range n {
		exprs[i] = out.ref(i)
	}
	used := p.uses[w]
	for j := range w.Funcs {
		spec.Number = spec.Number || used == nil || used[n+j]
	}
	if spec.Number {
		out.cols = append(slices.Clip(out.cols), Column{Name: w.Funcs[0].Name, T: types.TInt8})
	}
	for range w.Funcs {
		var num expr.Expr = expr.NewConst(types.Null, types.TInt8)
		if spec.Number {
			num = out.ref(n)
		}
		exprs = append(exprs, num)
	}
	out.project(exprs, w.Cols)
	return out, nil
}

// planOverWindow computes the window functions of w in an OverWindow,
// which keeps each partition's rows, in a fragment hashed on the partition
// key (a singleton without PARTITION BY). Its stream key is the partition
// key, then the input's, for the reason planGroupTopN gives. The window a
// view emitting on window close ends in is an EowcOverWindow instead, its
// output append-only.
func (p *streamPlanner) planOverWindow(w *Window) (*stream, error) {
	eowc := p.eowc != nil && p.eowc.window == w
	if eowc {
		if err := eowcWindowCheck(w); err != nil {
			return nil, err
		}
		p.eowc.closed = true
	}
	in, d, frag, err := p.partitioned(w)
	if err != nil {
		return nil, err
	}
	n := len(w.Input.Columns())
	order := make([]dataflow.SortKey, len(w.Order))
	for i, k := range w.Order {
		order[i] = dataflow.SortKey(k)
	}
	inTypes, funcTypes := typesOf(in.cols), typesOf(w.Cols[n:])
	if eowc {
		frag.Chain = append(frag.Chain, &dataflow.EowcOverWindowSpec{Partition: w.Partition, Order: order, Funcs: w.Funcs,
			InputTypes: inTypes, FuncTypes: funcTypes, StreamKey: in.key, StateTable: p.alloc(), CountTable: p.alloc()})
	} else {
		frag.Chain = append(frag.Chain, &dataflow.OverWindowSpec{Partition: w.Partition, Order: order, Funcs: w.Funcs,
			InputTypes: inTypes, FuncTypes: funcTypes, StreamKey: in.key, StateTable: p.alloc()})
	}
	// The input may carry hidden columns (its stream key) after the
	// Window input's: the functions' values follow them.
	width := len(in.cols)
	out := &stream{cols: append(slices.Clip(in.cols), w.Cols[n:]...), key: partitionFirst(in.key, w.Partition), frag: frag, appendOnly: eowc}
	if !d.single {
		out.dist = d.keys
	}
	exprs := make([]expr.Expr, 0, len(w.Cols))
	for i := range n {
		exprs = append(exprs, out.ref(i))
	}
	for j := range w.Funcs {
		exprs = append(exprs, out.ref(width+j))
	}
	out.project(exprs, w.Cols)
	return out, nil
}

// partitioned plans the input of w into a fragment hashed on w's
// partition key (a singleton without PARTITION BY), where the window's
// operator goes.
func (p *streamPlanner) partitioned(w *Window) (*stream, distribution, *dataflow.FragmentSpec, error) {
	in, err := p.plan(w.Input)
	if err != nil {
		return nil, distribution{}, nil, err
	}
	d := single
	if len(w.Partition) > 0 {
		d = hashOn(w.Partition)
	}
	return in, d, p.into(in, d), nil
}

// partitionFirst returns key with the partition columns not in it before
// it.
func partitionFirst(key, partition []int) []int {
	key = slices.Clone(key)
	for _, c := range slices.Backward(partition) {
		if !slices.Contains(key, c) {
			key = slices.Insert(key, 0, c)
		}
	}
	return key
}

// columnUses finds, for each node of the plan root, which of its output
// columns the plan reads (the root's all). The
// conjuncts of a filter that becomes a Top-N do not count. The streaming
// planner leaves out what nothing reads: row numbers nobody selects,
// expressions and scanned columns no operator looks at.
func columnUses(root Node) map[Node][]bool {
	uses := map[Node][]bool{}
	markUses(root, allColumns(root), uses)
	return uses
}

// markUses marks in uses what the nodes under n provide, given that the
// plan reads n's columns need. A node reached again (a subtree a rewrite
// shares) is marked with the union of its needs.
func markUses(n Node, need []bool, uses map[Node][]bool) {
	if prev, ok := uses[n]; ok {
		need = slices.Clone(need)
		for i, used := range prev {
			need[i] = need[i] || used
		}
	}
	uses[n] = need
	switch x := n.(type) {
	case *Filter:
		if j, ok := x.Input.(*Join); ok && j.Kind == InnerJoin {
			markUses(pushIntoJoin(j, x.Cond), need, uses)
			return
		}
		conds := []expr.Expr{x.Cond}
		if m, ok, _ := matchTopN(x); ok {
			conds = m.rest
		}
		markUses(x.Input, withRefs(need, conds...), uses)
	case *Project:
		in := make([]bool, len(x.Input.Columns()))
		for i, e := range x.Exprs {
			if need[i] {
				addRefs(in, e)
			}
		}
		markUses(x.Input, in, uses)
	case *Window:
		in := slices.Clone(need[:len(x.Input.Columns())])
		for _, c := range x.Partition {
			in[c] = true
		}
		for _, k := range x.Order {
			in[k.Col] = true
		}
		for _, f := range x.Funcs {
			addRefs(in, f.Args...)
		}
		markUses(x.Input, in, uses)
	case *Join:
		j := pushOnDown(x)
		nl := len(j.L.Columns())
		// A semi or anti join's output is its left's columns alone.
		all := make([]bool, nl+len(j.R.Columns()))
		copy(all, need)
		addRefs(all, nonNil(j.On)...)
		markUses(j.L, all[:nl], uses)
		markUses(j.R, all[nl:], uses)
	case *Expand:
		markUses(x.Input, slices.Clone(need[:len(x.Input.Columns())]), uses)
	case *Aggregate:
		in := make([]bool, len(x.Input.Columns()))
		addRefs(in, x.Group...)
		for _, a := range x.Aggs {
			addRefs(in, a.Args...)
			addRefs(in, nonNil(a.Filter)...)
		}
		markUses(x.Input, in, uses)
	case *ProjectSet:
		in := slices.Clone(need[:len(x.Input.Columns())])
		for _, f := range x.Funcs {
			addRefs(in, f.Args...)
		}
		markUses(x.Input, in, uses)
	case *Sort:
		in := slices.Clone(need)
		for _, k := range x.Keys {
			in[k.Col] = true
		}
		markUses(x.Input, in, uses)
	case *Limit:
		markUses(x.Input, need, uses)
	default:
		for _, in := range n.Inputs() {
			markUses(in, allColumns(in), uses)
		}
	}
}

func allColumns(n Node) []bool {
	out := make([]bool, len(n.Columns()))
	for i := range out {
		out[i] = true
	}
	return out
}

// withRefs returns a copy of need that also marks the columns es read.
func withRefs(need []bool, es ...expr.Expr) []bool {
	out := slices.Clone(need)
	addRefs(out, es...)
	return out
}

// addRefs marks the columns es read.
func addRefs(cols []bool, es ...expr.Expr) {
	for _, e := range es {
		expr.Walk(e, func(x expr.Expr) bool {
			if r, ok := x.(*expr.ColRef); ok {
				cols[r.Idx] = true
			}
			return true
		})
	}
}
