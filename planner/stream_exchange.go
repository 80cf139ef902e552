package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// stream is a planned subtree: a changelog of rows with columns cols, whose
// first columns are the subtree's output and the rest hidden: columns that
// complete its stream key, and keys computed for its consumer.
//
// A stream is either placed, the output of its fragment's chain so far, or
// still a table's change stream, or a fragment's output, through a chain of
// stateless operators that waits for its consumer: the consumer chooses
// how the rows are routed, so that, where the routing key survives the
// chain, no second exchange is needed.
type stream struct {
	cols []Column
	// key identifies a row among the live rows (empty: at most one row).
	key        []int
	appendOnly bool
	// weighted: column weight holds each row's multiplicity
	// (dataflow.ConsolidateSpec); only an aggregation reads such a stream.
	weighted bool
	weight   int
	// rising lists the columns whose values only rise under each stream
	// key: a retraction comes just before the insert of its update, with
	// a value not below it (a count or max of append-only rows).
	// Projections carry them; any other operator added clears them.
	rising []int

	// frag is set once the stream is placed; dist lists the columns whose
	// hash routes its rows to frag's actors (nil: unknown or singleton).
	frag *dataflow.FragmentSpec
	dist []int

	// table or up, chain and origin describe a stream not yet placed: it
	// reads the table, or the columns sel (in order) of fragment up's
	// output, routed by upDist unless its consumer routes it, through
	// chain; origin maps each column to the column it copies of the rows
	// read, -1 for computed ones.
	table  *dataflow.TableRef
	up     *dataflow.FragmentSpec
	upDist []int
	sel    []int
	chain  []dataflow.Spec
	origin []int
}

// distribution is how a consumer needs its input's rows routed: all to one
// actor, by the hash of keys, or all to every actor (broadcast).
type distribution struct {
	single, all bool
	keys        []int
}

func hashOn(keys []int) distribution { return distribution{keys: keys} }

var (
	single    = distribution{single: true}
	broadcast = distribution{all: true}
)

// add appends a stateless operator that keeps the columns as they are;
// but for a projection (see apply), it may drop or reorder rows, so no
// column stays rising.
func (s *stream) add(spec dataflow.Spec) {
	if _, ok := spec.(*dataflow.ProjectSpec); !ok {
		s.rising = nil
	}
	if s.frag != nil {
		s.frag.Chain = append(s.frag.Chain, spec)
	} else {
		s.chain = append(s.chain, spec)
	}
}

// project appends a projection computing exprs (output columns cols). It
// keeps the stream key: key columns that exprs do not copy are appended as
// hidden columns. A projection that copies every column in order is
// dropped.
func (s *stream) project(exprs []expr.Expr, cols []Column) {
	src := make([]int, len(exprs))
	for i, e := range exprs {
		src[i] = -1
		if r, ok := e.(*expr.ColRef); ok {
			src[i] = r.Idx
		}
	}
	exprs, cols = slices.Clip(exprs), slices.Clip(cols)
	for _, k := range s.key {
		if !slices.Contains(src, k) {
			exprs = append(exprs, s.ref(k))
			c := s.cols[k]
			cols = append(cols, Column{Name: c.Name, T: c.T, Hidden: true})
			src = append(src, k)
		}
	}
	s.apply(exprs, cols, src)
	s.key = remap(s.key, src)
}

// pick projects onto the columns pos, in order, keeping the stream key.
func (s *stream) pick(pos []int) {
	s.project(s.refs(pos), s.columns(pos))
}

// refs returns references to the columns pos.
func (s *stream) refs(pos []int) []expr.Expr {
	out := make([]expr.Expr, len(pos))
	for i, k := range pos {
		out[i] = s.ref(k)
	}
	return out
}

// columns returns the columns pos.
func (s *stream) columns(pos []int) []Column {
	out := make([]Column, len(pos))
	for i, k := range pos {
		out[i] = s.cols[k]
	}
	return out
}

// apply appends the projection exprs, whose output column i copies input
// column src[i] (-1: computed), and maps the distribution through it; the
// caller maps the key.
func (s *stream) apply(exprs []expr.Expr, cols []Column, src []int) {
	if !identity(src, len(s.cols)) {
		rising := s.rising
		selects := s.frag == nil && s.up != nil && len(s.chain) == 0 && !slices.Contains(src, -1)
		if selects {
			// The input reads the upstream's columns in the new order.
			sel := make([]int, len(src))
			for i, j := range src {
				sel[i] = s.sel[j]
			}
			s.sel = sel
		} else {
			s.addProject(exprs)
		}
		s.rising = nil
		for i, j := range src {
			if j >= 0 && slices.Contains(rising, j) {
				s.rising = append(s.rising, i)
			}
		}
		switch {
		case s.frag != nil:
			s.dist = remap(s.dist, src)
		case selects:
			s.origin = seq(0, len(src))
		default:
			origin := make([]int, len(src))
			for i, j := range src {
				origin[i] = -1
				if j >= 0 {
					origin[i] = s.origin[j]
				}
			}
			s.origin = origin
		}
	}
	s.cols = cols
}

// addProject appends a projection, merged into the one before it when
// that computes nothing twice, or fused into a ProjectSet before it.
func (s *stream) addProject(exprs []expr.Expr) {
	chain := s.chain
	if s.frag != nil {
		chain = s.frag.Chain
	}
	if n := len(chain); n > 0 {
		prev, ok := chain[n-1].(*dataflow.ProjectSpec)
		if set, isSet := chain[n-1].(*dataflow.ProjectSetSpec); isSet {
			if set.Then == nil {
				set.Then = &dataflow.ProjectSpec{Exprs: exprs}
				return
			}
			prev, ok = set.Then, true
		}
		if ok {
			if merged, ok := compose(exprs, prev.Exprs); ok {
				prev.Exprs = merged
				return
			}
		}
	}
	s.add(&dataflow.ProjectSpec{Exprs: exprs})
}

// compose substitutes inner's expressions for the column references of
// outer; ok is false when that would compute one of them more than once.
func compose(outer, inner []expr.Expr) (out []expr.Expr, ok bool) {
	uses := make([]int, len(inner))
	for _, e := range outer {
		expr.Walk(e, func(x expr.Expr) bool {
			if r, isRef := x.(*expr.ColRef); isRef {
				uses[r.Idx]++
			}
			return true
		})
	}
	for i, e := range inner {
		switch e.(type) {
		case *expr.ColRef, *expr.Const:
		default:
			if uses[i] > 1 {
				return nil, false
			}
		}
	}
	out = slices.Clone(outer)
	substituteRefs(out, inner)
	return out, true
}

// substituteRefs replaces, in each of es, the references to column i by
// by[i]: es over a projection's output become es over its input.
func substituteRefs(es, by []expr.Expr) {
	for i, e := range es {
		es[i], _ = expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
			if r, isRef := x.(*expr.ColRef); isRef {
				return by[r.Idx], true, nil
			}
			return nil, false, nil
		})
	}
}

// columnsFor returns a column holding the value of each expression: a
// column reference is its column, other expressions are computed by a
// projection appended to s.
func (s *stream) columnsFor(es []expr.Expr) []int {
	out := make([]int, len(es))
	var computed []expr.Expr
	for i, e := range es {
		if r, ok := e.(*expr.ColRef); ok {
			out[i] = r.Idx
			continue
		}
		out[i] = len(s.cols) + len(computed)
		computed = append(computed, e)
	}
	if len(computed) == 0 {
		return out
	}
	n := len(s.cols)
	exprs := make([]expr.Expr, n, n+len(computed))
	cols := make([]Column, n, n+len(computed))
	src := make([]int, n, n+len(computed))
	for i := range n {
		exprs[i], cols[i], src[i] = s.ref(i), s.cols[i], i
	}
	for _, e := range computed {
		exprs = append(exprs, e)
		cols = append(cols, Column{Name: "?column?", T: e.Type(), Hidden: true})
		src = append(src, -1)
	}
	s.apply(exprs, cols, src)
	return out
}

// ref returns a reference to column i.
func (s *stream) ref(i int) expr.Expr {
	return &expr.ColRef{Idx: i, T: s.cols[i].T, Name: s.cols[i].Name}
}

// into returns the fragment a single-input consumer of s is appended to,
// with s's rows routed by d: s's own fragment when its rows are already
// routed so, otherwise a new fragment reading s.
func (p *streamPlanner) into(s *stream, d distribution) *dataflow.FragmentSpec {
	if s.frag == nil {
		if in, ok := s.unplacedInput(d); ok {
			return p.newFragment(d.single, []dataflow.InputSpec{in}, s.chain...)
		}
	} else if s.routed(d) {
		return s.frag
	}
	return p.newFragment(d.single, []dataflow.InputSpec{p.input(s, d)})
}

// input returns the input that reads s routed by d, for a consumer that
// starts a new fragment. A bare unplaced stream is read directly.
func (p *streamPlanner) input(s *stream, d distribution) dataflow.InputSpec {
	if s.frag == nil {
		in, ok := s.unplacedInput(d)
		if ok && len(s.chain) == 0 {
			return in
		}
		// A broadcast chain runs where the rows are hashed: each row goes
		// out of one actor.
		p.place(s, in, ok && !d.all)
	}
	s.frag.OutTypes = typesOf(s.cols)
	in := dataflow.InputSpec{Fragment: s.frag.ID, Dist: dataflow.DistHash, Keys: d.keys}
	switch {
	case d.single:
		in.Dist = dataflow.DistSingle
	case d.all:
		in.Dist = dataflow.DistBroadcast
	}
	return in
}

// place gives s a fragment that reads its table or upstream fragment,
// routed as in when ok, otherwise by the table's primary key or as the
// upstream's rows are.
func (p *streamPlanner) place(s *stream, in dataflow.InputSpec, ok bool) {
	switch {
	case ok:
	case s.table != nil:
		in = s.source()
		in.Dist, in.Keys = dataflow.DistHash, s.table.PK
	default:
		// Routed as the upstream's rows, unless it is a singleton or some
		// routing column is not read: then one actor reads them all.
		in = s.source()
		if keys := remap(s.upDist, s.sel); !s.up.Singleton && keys != nil {
			in.Dist, in.Keys = dataflow.DistHash, keys
		}
	}
	s.frag = p.newFragment(in.Dist == dataflow.DistSingle, []dataflow.InputSpec{in}, s.chain...)
	if in.Dist == dataflow.DistHash {
		s.dist = remap(in.Keys, s.origin)
	}
	s.table, s.up, s.upDist, s.sel, s.chain, s.origin = nil, nil, nil, nil, nil, nil
}

// upCols returns the InputSpec.Cols that read the columns sel of the
// upstream fragment: nil when they are all of its columns in order.
func (s *stream) upCols() []int {
	if identity(s.sel, len(s.up.OutTypes)) {
		return nil
	}
	return s.sel
}

// source returns the input that reads the table or upstream fragment of
// unplaced s, all to one actor.
func (s *stream) source() dataflow.InputSpec {
	if s.up != nil {
		return dataflow.InputSpec{Fragment: s.up.ID, Cols: s.upCols(), Dist: dataflow.DistSingle}
	}
	return dataflow.InputSpec{Fragment: -1, Table: s.table, Dist: dataflow.DistSingle}
}

// unplacedInput returns the input of an unplaced stream routed by d; ok is
// false when d's keys are computed by the chain.
func (s *stream) unplacedInput(d distribution) (in dataflow.InputSpec, ok bool) {
	in = s.source()
	switch {
	case d.single:
		return in, true
	case d.all:
		in.Dist = dataflow.DistBroadcast
		return in, true
	}
	in.Dist = dataflow.DistHash
	in.Keys = make([]int, len(d.keys))
	for i, k := range d.keys {
		if in.Keys[i] = s.origin[k]; in.Keys[i] < 0 {
			return in, false
		}
	}
	return in, true
}

// routed reports whether the rows of placed s are already routed by d.
func (s *stream) routed(d distribution) bool {
	if d.all {
		return false
	}
	if d.single {
		return s.frag.Singleton
	}
	return !s.frag.Singleton && len(d.keys) > 0 && slices.Equal(s.dist, d.keys)
}

// remap maps column numbers through a projection whose output column i
// copies input column src[i]; nil when some column is not copied.
func remap(cols, src []int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		if out[i] = slices.Index(src, c); out[i] < 0 {
			return nil
		}
	}
	return out
}

// identity reports whether src copies all n columns in order.
func identity(src []int, n int) bool {
	if len(src) != n {
		return false
	}
	for i, j := range src {
		if i != j {
			return false
		}
	}
	return true
}

func typesOf(cols []Column) []types.T {
	out := make([]types.T, len(cols))
	for i, c := range cols {
		out[i] = c.T
	}
	return out
}

// seq returns the column numbers from..to-1.
func seq(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
