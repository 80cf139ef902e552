package exec

import (
	"sort"
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// WindowFunc is one window function a Window operator computes for every
// row: row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag,
// lead, first_value, last_value, nth_value, or an aggregate over the
// row's frame (Agg set, whose arguments are Args).
type WindowFunc struct {
	Name  string
	Args  []expr.Expr
	Agg   *expr.AggFunc
	Frame Frame
	// IgnoreNulls skips the rows whose value is NULL (first_value,
	// last_value and nth_value; RisingWave and the SQL standard, not
	// PostgreSQL).
	IgnoreNulls bool
}

// String renders the call with its frame when that is not the default.
func (f *WindowFunc) String() string {
	var s string
	if f.Agg != nil {
		s = f.Agg.String()
	} else {
		args := make([]string, len(f.Args))
		for i, a := range f.Args {
			args[i] = a.String()
		}
		s = f.Name + "(" + strings.Join(args, ", ") + ")"
		if f.IgnoreNulls {
			s += " IGNORE NULLS"
		}
	}
	if f.Frame != DefaultFrame {
		s += " " + f.Frame.String()
	}
	return s
}

// Window computes window functions over the partitions of its input: the
// rows equal on the Partition columns, each ordered by Order. It emits each
// input row followed by one value per function, partition after partition
// in window order.
type Window struct {
	Input     Op
	Partition []int
	Order     []SortKey
	Funcs     []WindowFunc
}

// Run implements Op.
func (w *Window) Run(c *expr.Ctx, emit Emit) error {
	ev, err := NewWindowEval(c, w.Order, w.Funcs)
	if err != nil {
		return err
	}
	rows, err := Collect(c, w.Input)
	if err != nil || len(rows) == 0 {
		return err
	}
	part := make([]SortKey, len(w.Partition), len(w.Partition)+len(w.Order))
	for i, col := range w.Partition {
		part[i] = SortKey{Col: col}
	}
	sortRows(rows, append(part, w.Order...))
	width := len(rows[0])
	out := make([]types.Datum, width+len(w.Funcs))
	results := make([][]types.Datum, len(w.Funcs))
	var k canceler
	for lo := 0; lo < len(rows); {
		hi := lo + 1
		for hi < len(rows) && compareRows(part, rows[lo], rows[hi]) == 0 {
			hi++
		}
		for f := range results {
			results[f] = resize(results[f], hi-lo)
		}
		if err := ev.Compute(c, rows[lo:hi], results); err != nil {
			return err
		}
		for i, r := range rows[lo:hi] {
			if err := k.check(c); err != nil {
				return err
			}
			copy(out, r)
			for f, res := range results {
				out[width+f] = res[i]
			}
			if more, err := emit(out); err != nil || !more {
				return err
			}
		}
		lo = hi
	}
	return nil
}

// WindowEval computes window functions over one partition at a time, for
// the batch Window and for the streaming window operator.
type WindowEval struct {
	order  []SortKey
	funcs  []WindowFunc
	frames []frameSpec
	p      windowPartition
}

// NewWindowEval returns the evaluator of funcs over partitions ordered by
// order, with the frame offsets evaluated.
func NewWindowEval(c *expr.Ctx, order []SortKey, funcs []WindowFunc) (*WindowEval, error) {
	e := &WindowEval{order: order, funcs: funcs, frames: make([]frameSpec, len(funcs))}
	for i, f := range funcs {
		fr := &e.frames[i]
		fr.Frame = f.Frame
		if len(order) > 0 {
			fr.order = order[0]
		}
		var err error
		if fr.startOff, err = frameOffset(c, f.Frame.Mode, f.Frame.Start, "starting"); err != nil {
			return nil, err
		}
		if fr.endOff, err = frameOffset(c, f.Frame.Mode, f.Frame.End, "ending"); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Compute sets results[f][i] to function f's value on rows[i], rows being
// one partition in window order and each results[f] len(rows) long.
func (e *WindowEval) Compute(c *expr.Ctx, rows [][]types.Datum, results [][]types.Datum) error {
	e.p.reset(rows, e.order)
	for f := range e.funcs {
		if err := e.p.compute(c, &e.funcs[f], &e.frames[f], results[f]); err != nil {
			return err
		}
	}
	return nil
}

// frameOffset evaluates the offset of a bound (NULL for bounds without
// one); which is "starting" or "ending" for the messages. A RANGE offset's
// sign is checked where it is used (expr.InRange).
func frameOffset(c *expr.Ctx, mode FrameMode, b FrameBound, which string) (types.Datum, error) {
	if b.Offset == nil {
		return types.Null, nil
	}
	v, err := b.Offset.Eval(c, nil)
	switch {
	case err != nil:
		return v, err
	case v.IsNull():
		return v, pgerror.New(codeNullValueNotAllowed, "frame %s offset must not be null", which)
	case mode != FrameRange && v.Int() < 0:
		return v, pgerror.New(pgerror.CodeInvalidPrecedingFollowing, "frame %s offset must not be negative", which)
	}
	return v, nil
}

// SQLSTATEs of window function errors.
const (
	codeNullValueNotAllowed = "22004"
	codeInvalidNtile        = "22014"
	codeInvalidNthValue     = "22016"
)

// resize returns s with length n, reusing its array when it is big enough.
func resize(s []types.Datum, n int) []types.Datum {
	if cap(s) < n {
		return make([]types.Datum, n)
	}
	return s[:n]
}

// windowPartition is one partition's rows in window order, with their
// peer groups (rows equal on the window's ORDER BY).
type windowPartition struct {
	rows [][]types.Datum
	// group is the peer group of each row; start the first row of each
	// group, followed by len(rows).
	group, start []int
	// args is the argument buffer of aggregates.
	args []types.Datum
}

func (p *windowPartition) reset(rows [][]types.Datum, order []SortKey) {
	p.rows, p.group, p.start = rows, p.group[:0], p.start[:0]
	for i, r := range rows {
		if i == 0 || compareRows(order, rows[i-1], r) != 0 {
			p.start = append(p.start, i)
		}
		p.group = append(p.group, len(p.start)-1)
	}
	p.start = append(p.start, len(rows))
}

// nonNull returns the rows [lo, hi) whose column col is not NULL (NULLs
// sort first or last).
func (p *windowPartition) nonNull(col int, nullsFirst bool) (lo, hi int) {
	n := len(p.rows)
	if nullsFirst {
		return sort.Search(n, func(k int) bool { return !p.rows[k][col].IsNull() }), n
	}
	return 0, sort.Search(n, func(k int) bool { return p.rows[k][col].IsNull() })
}

// peers returns the rows [lo, hi) of row i's peer group.
func (p *windowPartition) peers(i int) (lo, hi int) {
	g := p.group[i]
	return p.start[g], p.start[g+1]
}
