package planner

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// StreamPlan is a planned materialized view.
type StreamPlan struct {
	Graph *dataflow.GraphSpec
	// Columns of the view's table: the query's output columns, then hidden
	// columns that complete the stream key.
	Columns []Column
	// PK is the stream key, as indexes into Columns: the view table's
	// primary key (empty when the view has at most one row).
	PK []int
	// AppendOnly is set when the view's stream carries inserts only.
	AppendOnly bool
	// Functions are the ids of the SQL functions the view's query calls
	// (meta.Table.Functions), set by PlanView.
	Functions []uint32
	// RowBlocks is set when the view table stores its rows in row blocks
	// (meta.Table.RowBlocks): rows that are never updated nor deleted need
	// no key each, and a key per block spares the state store most of its
	// per-key work.
	RowBlocks bool
}

// PlanStream plans query, the logical plan of a materialized view's query,
// as a streaming job that maintains the view table viewID over vnodes key
// groups; alloc returns a fresh catalog id for each state table. With
// eowc (EMIT ON WINDOW CLOSE) the view's rows are emitted once, when a
// watermark closes them (see planEOWC). Shapes a streaming job cannot
// maintain yet are *pgerror.Error 0A000.
func PlanStream(query Node, viewID uint32, vnodes int, eowc bool, alloc func() uint32) (*StreamPlan, error) {
	return planJob(query, vnodes, eowc, alloc, func(s *stream) dataflow.Spec {
		return &dataflow.MaterializeSpec{TableID: viewID, PK: s.key, Types: typesOf(s.cols), RowBlocks: s.appendOnly}
	})
}

// PlanChangelog plans query as the job of a subscription or a sink: its
// changes go into the log table logID (dataflow.ChangelogSpec), which
// keeps each epoch's for retention (0: until it is dropped).
func PlanChangelog(query Node, logID uint32, vnodes int, retention time.Duration, alloc func() uint32) (*StreamPlan, error) {
	return planJob(query, vnodes, false, alloc, func(s *stream) dataflow.Spec {
		return &dataflow.ChangelogSpec{TableID: logID, Key: s.key, Types: typesOf(s.cols), Retention: retention}
	})
}

// planJob plans query as a job whose last operator, on the query's stream
// hashed by its key, is the one terminal returns.
func planJob(query Node, vnodes int, eowc bool, alloc func() uint32, terminal func(s *stream) dataflow.Spec) (*StreamPlan, error) {
	query, err := decorrelate(query)
	if err != nil {
		return nil, err
	}
	p := &streamPlanner{alloc: alloc, uses: columnUses(query), repeats: repeatedAggregates(query), shared: map[string]*stream{}, sharedBy: map[string]*Aggregate{}}
	if eowc {
		p.eowc = newEOWCPlan(query)
	}
	s, err := p.plan(query)
	if err != nil {
		return nil, err
	}
	if eowc && p.eowc.agg == nil && !p.eowc.closed {
		if err := p.eowcSort(s, query); err != nil {
			return nil, err
		}
	}
	frag := p.into(s, hashOn(s.key))
	frag.Chain = append(frag.Chain, terminal(s))
	frag.OutTypes = typesOf(s.cols)
	return &StreamPlan{
		Graph:      &dataflow.GraphSpec{Fragments: p.frags, VNodeCount: vnodes},
		Columns:    viewColumns(s.cols),
		PK:         s.key,
		AppendOnly: s.appendOnly,
		RowBlocks:  s.appendOnly,
	}, nil
}

// streamPlanner builds the fragments of one job.
type streamPlanner struct {
	alloc func() uint32
	// frags are the fragments made so far, in creation order (= ID).
	frags []*dataflow.FragmentSpec
	// uses tells which output columns of each node the query reads
	// (columnUses).
	uses map[Node][]bool
	// repeats holds the text of the aggregations that the query computes
	// more than once (repeatedAggregates); shared, those planned so far.
	repeats  map[string]bool
	shared   map[string]*stream
	sharedBy map[string]*Aggregate
	// eowc is set for EMIT ON WINDOW CLOSE.
	eowc *eowcPlan
}

// plan plans the subtree n as a stream whose first columns are n's.
func (p *streamPlanner) plan(n Node) (*stream, error) {
	// Volatile functions (random()) are fine where a retraction never
	// recomputes them: over append-only input and in VALUES, which are
	// evaluated once.
	_, once := n.(*Values)
	_, rowwise := n.(*Project)
	if _, ok := n.(*Filter); ok {
		rowwise = true
	}
	if ps, ok := n.(*ProjectSet); ok {
		// Over constants it is evaluated when planned (planConstant).
		rowwise = len(scanned(ps)) > 0
		once = !rowwise
	}
	es := exprsOf(n)
	if f, ok := n.(*Filter); ok {
		es = streamableConds(f.Cond)
	}
	if err := checkStreamable(once || rowwise, es...); err != nil {
		return nil, err
	}
	s, err := p.planNode(n)
	if err == nil && rowwise && !s.appendOnly {
		err = checkStreamable(false, es...)
	}
	return s, err
}

// planNode plans n; plan checks its expressions.
func (p *streamPlanner) planNode(n Node) (*stream, error) {
	switch x := n.(type) {
	case *Scan:
		return scanStream(x)
	case *Filter:
		if filters, rest := splitTemporal(x.Cond); len(filters) > 0 {
			return p.planTemporal(x, filters, rest)
		}
		m, ok, err := matchTopN(x)
		if err != nil {
			return nil, err
		}
		if ok {
			return p.plan(m.plan())
		}
		if j, ok := x.Input.(*Join); ok && j.Kind == InnerJoin {
			// The join reads what the filter's columns are read for, as
			// markUses marked its own copy of it.
			pushed := pushIntoJoin(j, x.Cond)
			if used, ok := p.uses[x]; ok {
				p.uses[pushed] = used
			}
			return p.plan(pushed)
		}
		s, err := p.plan(x.Input)
		if err != nil {
			return nil, err
		}
		s.add(&dataflow.FilterSpec{Cond: x.Cond})
		return s, nil
	case *Project:
		s, err := p.plan(x.Input)
		if err != nil {
			return nil, err
		}
		exprs, _ := p.pruned(x, x.Exprs, s.key)
		s.project(exprs, x.Cols)
		return s, nil
	case *Aggregate:
		return p.planShared(x, p.planAggregate)
	case *Distinct:
		return p.planDistinct(x)
	case *Expand:
		return p.planExpand(x)
	case *Join:
		return p.planJoin(x)
	case *Sort:
		// A view is unordered: only a Sort under a Limit matters.
		return p.plan(x.Input)
	case *Limit:
		return p.planLimit(x)
	case *SetOp:
		return p.planSetOp(x)
	case *Values:
		return p.planValues(x)
	case *ProjectSet:
		if len(scanned(x)) > 0 {
			return p.planProjectSet(x)
		}
		return p.planConstant(x)
	case *Window:
		return p.planOverWindow(x)
	case *groupTopN:
		return p.planGroupTopN(x)
	}
	return nil, pgerror.New(pgerror.CodeInternal, "streaming plan of %T is not implemented", n)
}

// pruned returns n's output expressions exprs with NULL in place of those
// no operator above reads, and whether there are such: they are neither
// computed nor carried into state. The columns stay, so that no column
// number above changes. References to the input's stream key columns key
// stay too. Expressions beyond n's columns (hidden ones) are kept.
func (p *streamPlanner) pruned(n Node, exprs []expr.Expr, key []int) ([]expr.Expr, bool) {
	used, ok := p.uses[n]
	if !ok {
		return exprs, false
	}
	var out []expr.Expr
	for i, e := range exprs[:len(used)] {
		if used[i] {
			continue
		}
		switch x := e.(type) {
		case *expr.Const:
			if x.V.IsNull() {
				continue
			}
		case *expr.ColRef:
			if slices.Contains(key, x.Idx) {
				continue
			}
		}
		if out == nil {
			out = slices.Clone(exprs)
		}
		out[i] = expr.NewConst(types.Null, e.Type())
	}
	if out == nil {
		return exprs, false
	}
	return out, true
}

// unread lists the columns of s, planned from n, that no operator above n
// reads and that are not in s's stream key: an operator that stores s's
// rows stores NULL in their place.
func (p *streamPlanner) unread(s *stream, n Node) []int {
	var out []int
	for i, used := range p.uses[n] {
		if !used && !slices.Contains(s.key, i) {
			out = append(out, i)
		}
	}
	return out
}

// planShared plans the aggregation x with plan, once however often the
// query repeats it (Nexmark q5 counts the bids per auction and window
// twice, grouping by the two in different orders): each use is an unplaced
// stream of the one fragment that computes it, whose consumer reads its
// columns in the use's order (dataflow.InputSpec.Cols), so that what a use
// adds stays apart from the other.
func (p *streamPlanner) planShared(x *Aggregate, plan func(*Aggregate) (*stream, error)) (*stream, error) {
	text := treeText(x)
	if !p.repeats[text] {
		return plan(x)
	}
	s, ok := p.shared[text]
	if !ok {
		var err error
		if s, err = plan(x); err != nil {
			return nil, err
		}
		if !s.frag.Singleton && len(s.dist) == 0 {
			// No routing to share it by: each use plans its own.
			delete(p.repeats, text)
			return s, nil
		}
		p.shared[text], p.sharedBy[text] = s, x
	}
	s.frag.OutTypes = typesOf(s.cols)
	all := seq(0, len(s.cols))
	use := &stream{cols: s.cols, key: s.key, appendOnly: s.appendOnly, rising: s.rising,
		up: s.frag, upDist: s.dist, sel: all, origin: all}
	// The shared stream's columns are those of the aggregation planned
	// first: find each of x's among them by what computes it. The
	// projection keeps the stream key, which holds the routing columns.
	first := p.sharedBy[text]
	exprs := make([]expr.Expr, len(x.Cols))
	for i, what := range aggOutputs(x) {
		exprs[i] = use.ref(slices.Index(aggOutputs(first), what))
	}
	use.project(exprs, x.Cols)
	return use, nil
}

// aggOutputs names what computes each output column of a: its group
// expressions, then its aggregate calls.
func aggOutputs(a *Aggregate) []string {
	out := make([]string, 0, len(a.Group)+len(a.Aggs))
	for _, g := range a.Group {
		out = append(out, g.String())
	}
	for _, f := range a.Aggs {
		out = append(out, f.String())
	}
	return out
}

// repeatedAggregates returns the text (treeText) of each aggregation that
// occurs more than once in the plan root, with its whole input, and whose
// outputs are told apart by what computes them (aggOutputs).
func repeatedAggregates(root Node) map[string]bool {
	seen := map[string]int{}
	var walk func(n Node)
	walk = func(n Node) {
		if a, ok := n.(*Aggregate); ok {
			outs := aggOutputs(a)
			slices.Sort(outs)
			if len(slices.Compact(outs)) == len(a.Cols) {
				seen[treeText(a)]++
			}
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	out := map[string]bool{}
	for text, n := range seen {
		if n > 1 {
			out[text] = true
		}
	}
	return out
}

// treeText renders the subtree n, each node with its columns' types, so
// that equal texts mean equal computations; an aggregation at its root is
// rendered with its outputs sorted (aggOutputs), the order of its columns
// being the one thing its uses may differ in.
func treeText(n Node) string {
	var b strings.Builder
	if a, ok := n.(*Aggregate); ok {
		outs := aggOutputs(a)
		slices.Sort(outs)
		fmt.Fprintf(&b, "Aggregate %s\n", strings.Join(outs, ", "))
		n = a.Input
	}
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		fmt.Fprintf(&b, "%*s%s |", depth, "", n.explain())
		if s, ok := n.(*Scan); ok {
			fmt.Fprintf(&b, " id %d", s.Table.ID)
		}
		for _, c := range n.Columns() {
			fmt.Fprintf(&b, " %s", c.T)
		}
		b.WriteByte('\n')
		for _, in := range n.Inputs() {
			walk(in, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// planValues evaluates a VALUES list (or the row of a SELECT without FROM)
// once, into a fragment that emits the rows when the view is created; a
// hidden row number is the stream key.
func (p *streamPlanner) planValues(x *Values) (*stream, error) {
	ctx := expr.NewCtx(context.Background(), nil)
	rows := make([][]types.Datum, len(x.Rows))
	for i, es := range x.Rows {
		row := make([]types.Datum, len(es), len(es)+1)
		for j, e := range es {
			v, err := e.Eval(ctx, nil)
			if err != nil {
				return nil, err
			}
			row[j] = v
		}
		rows[i] = row
	}
	return p.planRows(rows, x.Cols), nil
}

// maxConstantRows bounds the rows of a set-returning function evaluated
// when a materialized view is planned.
const maxConstantRows = 1_000_000

// planProjectSet expands the rows of its input stream by set-returning
// functions; the expansion's row number joins the stream key.
func (p *streamPlanner) planProjectSet(x *ProjectSet) (*stream, error) {
	s, err := p.plan(x.Input)
	if err != nil {
		return nil, err
	}
	in, width := len(x.Input.Columns()), len(s.cols)
	added := x.Cols[in:]
	s.add(&dataflow.ProjectSetSpec{Funcs: x.Funcs, Ordinality: x.Ordinality, InputWidth: width})
	if s.frag == nil {
		for range len(added) + 1 {
			s.origin = append(s.origin, -1)
		}
	}
	s.cols = append(append(slices.Clip(s.cols), added...), Column{Name: "_ordinal", T: types.TInt8, Hidden: true})
	s.key = append(slices.Clip(s.key), len(s.cols)-1)
	// x's columns first: the input's, then the functions'.
	pos := make([]int, 0, in+len(added))
	for i := range in {
		pos = append(pos, i)
	}
	for i := range added {
		pos = append(pos, width+i)
	}
	s.pick(pos)
	return s, nil
}

// planConstant evaluates set-returning functions over constants (FROM
// generate_series(1, 10), SELECT unnest(ARRAY[...])) once, like VALUES.
func (p *streamPlanner) planConstant(x *ProjectSet) (*stream, error) {
	var err error
	var walk func(Node)
	walk = func(n Node) {
		if err == nil {
			err = checkStreamable(true, exprsOf(n)...)
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	if walk(x); err != nil {
		return nil, err
	}
	var rows [][]types.Datum
	err = Build(x, nil).Run(expr.NewCtx(context.Background(), nil), func(row []types.Datum) (bool, error) {
		if len(rows) == maxConstantRows {
			return false, pgerror.New(pgerror.CodeProgramLimitExceeded, "set-returning functions in a materialized view may produce at most %d rows", maxConstantRows)
		}
		rows = append(rows, append(make([]types.Datum, 0, len(row)+1), row...))
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return p.planRows(rows, x.Cols), nil
}

// planRows makes a fragment that emits rows (with room for one more
// column) when the view is created; a hidden row number is the stream key.
func (p *streamPlanner) planRows(rows [][]types.Datum, cols []Column) *stream {
	for i := range rows {
		rows[i] = append(rows[i], types.NewInt(int64(i)))
	}
	cols = append(slices.Clip(cols), Column{Name: "_row", T: types.TInt8, Hidden: true})
	return &stream{cols: cols, key: []int{len(cols) - 1}, appendOnly: true,
		frag: p.newFragment(true, nil, &dataflow.ValuesSpec{Rows: rows})}
}

// scanStream reads the changes of a table, materialized view or source;
// its stream key is the relation's primary key (a source's hidden row id).
func scanStream(x *Scan) (*stream, error) {
	t := x.Table
	if t.Kind != meta.KindTable && t.Kind != meta.KindMaterializedView && t.Kind != meta.KindSource {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "materialized views over %s %q are not supported yet", t.Kind, t.Name)
	}
	ref, err := TableRef(t)
	if err != nil {
		return nil, err
	}
	origin := make([]int, len(t.Columns))
	for i := range origin {
		origin[i] = i
	}
	return &stream{cols: x.Cols, key: slices.Clone(t.PK), appendOnly: t.AppendOnly, table: ref, origin: origin}, nil
}

// newFragment adds a fragment reading inputs through chain.
func (p *streamPlanner) newFragment(singleton bool, inputs []dataflow.InputSpec, chain ...dataflow.Spec) *dataflow.FragmentSpec {
	f := &dataflow.FragmentSpec{ID: len(p.frags), Inputs: inputs, Chain: chain, Singleton: singleton}
	p.frags = append(p.frags, f)
	return f
}

// viewColumns names the view table's columns: the query's, then the hidden
// key columns under names made unique among all of them (computed ones
// are called _key).
func viewColumns(cols []Column) []Column {
	out := make([]Column, len(cols))
	taken := map[string]bool{}
	for i, c := range cols {
		out[i] = Column{Name: c.Name, T: c.T, Hidden: c.Hidden}
		if !c.Hidden {
			taken[c.Name] = true
		}
	}
	for i := range out {
		if !out[i].Hidden {
			continue
		}
		base := out[i].Name
		if base == "?column?" {
			// A computed group key.
			base = "_key"
			out[i].Name = base
		}
		for n := 1; taken[out[i].Name]; n++ {
			out[i].Name = base + "_" + strconv.Itoa(n)
		}
		taken[out[i].Name] = true
	}
	return out
}
