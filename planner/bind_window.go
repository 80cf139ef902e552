package planner

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// codeWindowingError is PostgreSQL's SQLSTATE for misplaced window
// functions and invalid window definitions.
const codeWindowingError = "42P20"

// windowsNotAllowed is the error for a window function in clause.
func windowsNotAllowed(clause string) error {
	return pgerror.New(codeWindowingError, "window functions are not allowed in %s", clause)
}

// noWindows forbids window functions, with err as the reason, until the
// returned function restores the previous state.
func (b *Binder) noWindows(err error) (restore func()) {
	win, winErr := b.win, b.winErr
	b.win, b.winErr = nil, err
	return func() { b.win, b.winErr = win, winErr }
}

// windowCollector gathers the window function calls of one SELECT's select
// list and ORDER BY, then plans them as Window nodes over the SELECT's
// input (after grouping and HAVING), as PostgreSQL does.
type windowCollector struct {
	// named is the WINDOW clause.
	named []ast.WindowSpec
	calls []*windowCall
}

// windowCall is one bound call; its expressions are over the SELECT's
// input until planned.
type windowCall struct {
	fn        WindowFunc
	partition []expr.Expr
	order     []windowKey
	t         types.T
	// key renders the whole call: equal calls are computed once.
	key string
}

// windowKey is one ORDER BY item of a window.
type windowKey struct {
	e                expr.Expr
	desc, nullsFirst bool
}

// spec renders the call's PARTITION BY and ORDER BY: calls with equal specs
// share a Window node.
func (c *windowCall) spec() string {
	var sb strings.Builder
	sb.WriteString("PARTITION BY ")
	sb.WriteString(joinExprs(c.partition))
	sb.WriteString(" ORDER BY ")
	for _, k := range c.order {
		sb.WriteString(k.e.String())
		if k.desc {
			sb.WriteString(" DESC")
		}
		if k.nullsFirst {
			sb.WriteString(" NULLS FIRST")
		}
		sb.WriteString(", ")
	}
	return sb.String()
}

// mapExprs rewrites the call's expressions with f.
func (c *windowCall) mapExprs(f func(expr.Expr) (expr.Expr, error)) error {
	var err error
	for i := range c.partition {
		if c.partition[i], err = f(c.partition[i]); err != nil {
			return err
		}
	}
	for i := range c.order {
		if c.order[i].e, err = f(c.order[i].e); err != nil {
			return err
		}
	}
	args := make([]expr.Expr, len(c.fn.Args))
	for i, a := range c.fn.Args {
		if args[i], err = f(a); err != nil {
			return err
		}
	}
	c.fn.Args = args
	if c.fn.Agg != nil {
		agg := *c.fn.Agg
		agg.Args = args
		if agg.Filter != nil {
			if agg.Filter, err = f(agg.Filter); err != nil {
				return err
			}
		}
		c.fn.Agg = &agg
	}
	return nil
}

func joinExprs(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// winRef stands for window call idx until planning replaces it.
type winRef struct {
	idx int
	t   types.T
}

func (w *winRef) Type() types.T                      { return w.t }
func (w *winRef) String() string                     { return "win#" + strconv.Itoa(w.idx) }
func (w *winRef) Children() []expr.Expr              { return nil }
func (w *winRef) WithChildren([]expr.Expr) expr.Expr { return w }
func (w *winRef) Eval(*expr.Ctx, []types.Datum) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.CodeInternal, "unplanned window function")
}

// newWindowCollector checks the WINDOW clause's names.
func newWindowCollector(named []ast.WindowSpec) (*windowCollector, error) {
	for i, w := range named {
		for _, prev := range named[:i] {
			if prev.Name.O == w.Name.O {
				return nil, pgerror.New(codeWindowingError, "window %q is already defined", w.Name.O)
			}
		}
	}
	return &windowCollector{named: named}, nil
}

// add records a call, once per distinct call.
func (wc *windowCollector) add(c *windowCall) expr.Expr {
	c.key = c.fn.String() + " OVER (" + c.spec() + ")"
	for i, x := range wc.calls {
		if x.key == c.key {
			return &winRef{idx: i, t: x.t}
		}
	}
	wc.calls = append(wc.calls, c)
	return &winRef{idx: len(wc.calls) - 1, t: c.t}
}

// resolve applies the WINDOW clause: OVER w is the window w, OVER (w ...)
// copies w and adds an ORDER BY or a frame. Named windows may refer to
// the ones defined before them.
func (wc *windowCollector) resolve(spec *ast.WindowSpec, defined int) (*ast.WindowSpec, error) {
	if spec.OnlyAlias {
		return wc.lookup(spec.Name.O, defined)
	}
	ref := spec.Ref.O
	if ref == "" {
		return spec, nil
	}
	base, err := wc.lookup(ref, defined)
	if err != nil {
		return nil, err
	}
	switch {
	case spec.PartitionBy != nil:
		return nil, pgerror.New(codeWindowingError, "cannot override PARTITION BY clause of window %q", ref)
	case spec.OrderBy != nil && base.OrderBy != nil:
		return nil, pgerror.New(codeWindowingError, "cannot override ORDER BY clause of window %q", ref)
	case base.Frame != nil:
		return nil, pgerror.New(codeWindowingError, "cannot copy window %q because it has a frame clause", ref)
	}
	out := &ast.WindowSpec{PartitionBy: base.PartitionBy, OrderBy: base.OrderBy, Frame: spec.Frame}
	if spec.OrderBy != nil {
		out.OrderBy = spec.OrderBy
	}
	return out, nil
}

// lookup resolves the named window among the first defined ones.
func (wc *windowCollector) lookup(name string, defined int) (*ast.WindowSpec, error) {
	for i := range wc.named[:defined] {
		if wc.named[i].Name.O == name {
			return wc.resolve(&wc.named[i], i)
		}
	}
	return nil, pgerror.New(pgerror.CodeUndefinedObject, "window %q does not exist", name)
}

// bindWindowFunc binds a call with an OVER clause.
func (b *Binder) bindWindowFunc(x *ast.WindowFuncExpr, s *scope) (expr.Expr, error) {
	wc := b.win
	if wc == nil {
		if b.winErr != nil {
			return nil, b.winErr
		}
		return nil, windowsNotAllowed("this context")
	}
	defer b.noWindows(pgerror.New(codeWindowingError, "window function calls cannot be nested"))()
	defer b.noSRFs(pgerror.New(codeWindowingError, "window function calls cannot contain set-returning function calls").WithHint(srfHint))()
	spec, err := wc.resolve(&x.Spec, len(wc.named))
	if err != nil {
		return nil, err
	}
	c := &windowCall{}
	if spec.PartitionBy != nil {
		for _, item := range spec.PartitionBy.Items {
			e, err := b.bindExpr(item.Expr, s)
			if err != nil {
				return nil, err
			}
			if e, err = b.coerce(e, types.TText); err != nil {
				return nil, err
			}
			c.partition = append(c.partition, e)
		}
	}
	if spec.OrderBy != nil {
		for _, item := range spec.OrderBy.Items {
			n, nullsFirst, explicit := unwrapNulls(item.Expr)
			key := windowKey{desc: item.Desc, nullsFirst: item.Desc}
			if explicit {
				key.nullsFirst = nullsFirst
			}
			if key.e, err = b.bindExpr(n, s); err != nil {
				return nil, err
			}
			if key.e, err = b.coerce(key.e, types.TText); err != nil {
				return nil, err
			}
			c.order = append(c.order, key)
		}
	}
	if c.fn.Frame, err = b.bindFrame(spec.Frame, c.order, s); err != nil {
		return nil, err
	}
	call, filter, isAgg, err := windowAggregate(x)
	if err != nil {
		return nil, err
	}
	if !isAgg {
		if err := b.bindWindowCall(x, c, s); err != nil {
			return nil, err
		}
		return wc.add(c), nil
	}
	finish, err := b.bindWindowAggregate(call, filter, c, s)
	if err != nil {
		return nil, err
	}
	if finish != "" {
		return expr.NewFunc(finish, []expr.Expr{wc.add(c)})
	}
	return wc.add(c), nil
}

// bindWindowCall resolves a window function (not an aggregate) and its
// type.
func (b *Binder) bindWindowCall(x *ast.WindowFuncExpr, c *windowCall, s *scope) error {
	name := lowerASCII(x.Name)
	c.fn.Name = name
	if x.Distinct {
		return pgerror.New(pgerror.CodeFeatureNotSupported, "DISTINCT is not implemented for window functions")
	}
	if x.FromLast {
		return pgerror.New(pgerror.CodeFeatureNotSupported, "FROM LAST is not supported")
	}
	if c.fn.IgnoreNulls = x.IgnoreNull; x.IgnoreNull && name != "first_value" && name != "last_value" && name != "nth_value" {
		return pgerror.New(pgerror.CodeFeatureNotSupported, "IGNORE NULLS is only supported for first_value, last_value and nth_value")
	}
	args, err := b.bindArgs(x.Args, s)
	if err != nil {
		return err
	}
	bad := expr.NoSuchFunction(name, args)
	arity := func(lo, hi int) bool { return len(args) >= lo && len(args) <= hi }
	switch name {
	case "row_number", "rank", "dense_rank":
		if !arity(0, 0) {
			return bad
		}
		c.t = types.TInt8
	case "percent_rank", "cume_dist":
		if !arity(0, 0) {
			return bad
		}
		c.t = types.TFloat8
	case "ntile":
		if !arity(1, 1) || !b.intArg(args, 0) {
			return bad
		}
		c.t = types.TInt4
	case "lag", "lead":
		if !arity(1, 3) || len(args) > 1 && !b.intArg(args, 1) {
			return bad
		}
		if len(args) == 3 {
			// PostgreSQL 13 and later: anycompatible value and default.
			t, err := b.commonType([]expr.Expr{args[0], args[2]}, name)
			if err != nil {
				return bad
			}
			for _, i := range []int{0, 2} {
				if args[i], err = b.coerceTo(args[i], t); err != nil {
					return err
				}
			}
		}
	case "first_value", "last_value":
		if !arity(1, 1) {
			return bad
		}
	case "nth_value":
		if !arity(2, 2) || !b.intArg(args, 1) {
			return bad
		}
	default:
		return pgerror.New(pgerror.CodeWrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
	}
	if c.t.Family == types.Unknown {
		if args[0], err = b.coerce(args[0], types.TText); err != nil {
			return err
		}
		c.t = args[0].Type()
	}
	c.fn.Args = args
	return nil
}

// intArg gives args[i] an integer type when it is unknown and reports
// whether it is an integer.
func (b *Binder) intArg(args []expr.Expr, i int) bool {
	e, err := b.coerce(args[i], types.TInt4)
	if err != nil || !e.Type().IsInteger() {
		return false
	}
	args[i] = e
	return true
}

// bindFrame binds a frame clause of a window ordered by order.
func (b *Binder) bindFrame(fc *ast.FrameClause, order []windowKey, s *scope) (exec.Frame, error) {
	if fc == nil {
		return exec.DefaultFrame, nil
	}
	if gap, ok := sessionGap(fc); ok {
		return b.bindSession(gap, order, s)
	}
	end, exclude := frameExclusion(fc.Extent.End)
	f := exec.Frame{Start: frameBound(fc.Extent.Start), End: frameBound(end), Exclude: exclude}
	mode := "ROWS"
	switch fc.Type {
	case ast.Ranges:
		f.Mode, mode = exec.FrameRange, "RANGE"
	case ast.Groups:
		f.Mode, mode = exec.FrameGroups, "GROUPS"
	default:
		f.Mode = exec.FrameRows
	}
	windowingErr := func(msg string) error { return pgerror.New(codeWindowingError, "%s", msg) }
	offsets := f.Start.Kind == exec.OffsetPreceding || f.Start.Kind == exec.OffsetFollowing ||
		f.End.Kind == exec.OffsetPreceding || f.End.Kind == exec.OffsetFollowing
	switch {
	case f.Start.Kind == exec.UnboundedFollowing:
		return f, windowingErr("frame start cannot be UNBOUNDED FOLLOWING")
	case f.End.Kind == exec.UnboundedPreceding:
		return f, windowingErr("frame end cannot be UNBOUNDED PRECEDING")
	case f.Start.Kind == exec.CurrentRow && f.End.Kind == exec.OffsetPreceding:
		return f, windowingErr("frame starting from current row cannot have preceding rows")
	case f.Start.Kind == exec.OffsetFollowing && f.End.Kind < exec.OffsetFollowing:
		return f, windowingErr("frame starting from following row cannot have preceding rows")
	case f.Mode == exec.FrameGroups && len(order) == 0:
		return f, windowingErr("GROUPS mode requires an ORDER BY clause")
	case f.Mode == exec.FrameRange && offsets && len(order) != 1:
		return f, windowingErr("RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	var err error
	if f.Start.Offset, err = b.bindFrameOffset(fc.Extent.Start, mode, order, s); err != nil {
		return f, err
	}
	f.End.Offset, err = b.bindFrameOffset(end, mode, order, s)
	return f, err
}

// frameExclusion returns the end bound of a frame and its exclusion, which
// the parser writes as pg_frame_exclude('what', 'bound' [, offset])
// FOLLOWING.
func frameExclusion(fb ast.FrameBound) (ast.FrameBound, exec.FrameExclusion) {
	f, ok := fb.Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_frame_exclude" {
		return fb, exec.ExcludeNoOthers
	}
	str := func(i int) string { return f.Args[i].(ast.ValueExpr).GetString() }
	x := map[string]exec.FrameExclusion{"current row": exec.ExcludeCurrentRow, "group": exec.ExcludeGroup, "ties": exec.ExcludeTies}[str(0)]
	switch bound := str(1); bound {
	case "current row":
		return ast.FrameBound{Type: ast.CurrentRow}, x
	case "unbounded preceding":
		return ast.FrameBound{Type: ast.Preceding, UnBounded: true}, x
	case "unbounded following":
		return ast.FrameBound{Type: ast.Following, UnBounded: true}, x
	case "preceding":
		return ast.FrameBound{Type: ast.Preceding, Expr: f.Args[2]}, x
	}
	return ast.FrameBound{Type: ast.Following, Expr: f.Args[2]}, x
}

// sessionGap returns the gap of a session frame, which the parser writes
// as RANGE BETWEEN pg_session_gap(gap) PRECEDING AND pg_session_gap(gap)
// FOLLOWING.
func sessionGap(fc *ast.FrameClause) (ast.ExprNode, bool) {
	f, ok := fc.Extent.Start.Expr.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_session_gap" || len(f.Args) != 1 {
		return nil, false
	}
	return f.Args[0], true
}

// bindSession binds a session frame (SESSION WITH GAP gap) of a window
// ordered by order: one ordering column, the gap as a RANGE offset.
func (b *Binder) bindSession(gap ast.ExprNode, order []windowKey, s *scope) (exec.Frame, error) {
	f := exec.Frame{Mode: exec.FrameSession, Start: exec.FrameBound{Kind: exec.OffsetPreceding}, End: exec.FrameBound{Kind: exec.OffsetFollowing}}
	if len(order) != 1 {
		return f, pgerror.New(codeWindowingError, "SESSION frames require exactly one ORDER BY column")
	}
	off, err := b.bindFrameOffset(ast.FrameBound{Type: ast.Preceding, Expr: gap}, "SESSION", order, s)
	f.Start.Offset, f.End.Offset = off, off
	return f, err
}

// frameBound returns the kind of one end of a frame.
func frameBound(fb ast.FrameBound) exec.FrameBound {
	switch {
	case fb.Type == ast.CurrentRow:
		return exec.FrameBound{Kind: exec.CurrentRow}
	case fb.UnBounded && fb.Type == ast.Preceding:
		return exec.FrameBound{Kind: exec.UnboundedPreceding}
	case fb.UnBounded:
		return exec.FrameBound{Kind: exec.UnboundedFollowing}
	case fb.Type == ast.Preceding:
		return exec.FrameBound{Kind: exec.OffsetPreceding}
	}
	return exec.FrameBound{Kind: exec.OffsetFollowing}
}

// bindFrameOffset binds the offset of one end of a frame of the given mode
// (nil when it has none), an expression without columns of the query
// (those of enclosing queries are constants here): a bigint for ROWS and
// GROUPS; for RANGE, of the type the in_range function of the ORDER BY
// column's type takes.
func (b *Binder) bindFrameOffset(fb ast.FrameBound, mode string, order []windowKey, s *scope) (expr.Expr, error) {
	if fb.Expr == nil || fb.UnBounded || fb.Type == ast.CurrentRow {
		return nil, nil
	}
	saved := b.aggForbidden
	b.aggForbidden = "window " + mode
	defer func() { b.aggForbidden = saved }()
	e, err := b.bindExpr(fb.Expr, s)
	if err != nil {
		return nil, err
	}
	variables := false
	expr.Walk(e, func(x expr.Expr) bool {
		_, variables = x.(*expr.ColRef)
		return !variables
	})
	if variables {
		return nil, pgerror.New(pgerror.CodeInvalidColumnReference, "argument of %s must not contain variables", mode)
	}
	if mode == "RANGE" || mode == "SESSION" {
		t, err := expr.InRangeOffsetType(order[0].e.Type(), e.Type())
		if err != nil {
			return nil, err
		}
		return b.coerceTo(e, t)
	}
	if e, err = b.coerce(e, types.TInt8); err != nil {
		return nil, err
	}
	if !e.Type().IsInteger() {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "argument of %s must be type bigint, not type %s", mode, e.Type())
	}
	return b.coerceTo(e, types.TInt8)
}

// plan computes the collected calls with one Window node per distinct
// window (PARTITION BY and ORDER BY) over input, and returns, for each call,
// a reference to its column. Computed partition and order keys become
// hidden columns of a projection below the Window.
func (wc *windowCollector) plan(input Node) (Node, []expr.Expr) {
	refs := make([]expr.Expr, len(wc.calls))
	done := make([]bool, len(wc.calls))
	for i, first := range wc.calls {
		if done[i] {
			continue
		}
		cols := input.Columns()
		var extra []expr.Expr
		colOf := func(e expr.Expr) int {
			if r, ok := e.(*expr.ColRef); ok {
				return r.Idx
			}
			for k, x := range extra {
				if expr.Equal(x, e) {
					return len(cols) + k
				}
			}
			extra = append(extra, e)
			return len(cols) + len(extra) - 1
		}
		w := &Window{}
		for _, e := range first.partition {
			w.Partition = append(w.Partition, colOf(e))
		}
		for _, k := range first.order {
			w.Order = append(w.Order, SortKey{Col: colOf(k.e), Desc: k.desc, NullsFirst: k.nullsFirst})
		}
		if len(extra) > 0 {
			input = appendColumns(input, extra)
		}
		w.Input = input
		w.Cols = append([]Column(nil), input.Columns()...)
		spec := first.spec()
		for j := i; j < len(wc.calls); j++ {
			c := wc.calls[j]
			if done[j] || c.spec() != spec {
				continue
			}
			done[j] = true
			refs[j] = &expr.ColRef{Idx: len(w.Cols), T: c.t, Name: c.fn.Name}
			w.Funcs = append(w.Funcs, c.fn)
			w.Cols = append(w.Cols, Column{Name: c.fn.Name, T: c.t})
		}
		input = w
	}
	return input, refs
}

// appendColumns projects input's columns followed by hidden columns
// computing extra.
func appendColumns(input Node, extra []expr.Expr) Node {
	cols := input.Columns()
	p := &Project{Input: input, Cols: append([]Column(nil), cols...)}
	for i, c := range cols {
		p.Exprs = append(p.Exprs, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
	}
	for _, e := range extra {
		p.Exprs = append(p.Exprs, e)
		p.Cols = append(p.Cols, Column{Name: "?column?", T: e.Type(), Hidden: true})
	}
	return p
}

// replaceWindowRefs replaces the calls' placeholders in e by refs.
func replaceWindowRefs(e expr.Expr, refs []expr.Expr) expr.Expr {
	out, _ := expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		if r, ok := x.(*winRef); ok {
			return refs[r.idx], true, nil
		}
		return nil, false, nil
	})
	return out
}
