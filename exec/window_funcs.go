package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// compute fills res with fn's value for each row of the partition.
func (p *windowPartition) compute(c *expr.Ctx, fn *WindowFunc, fr *frameSpec, res []types.Datum) error {
	if fr.Mode == FrameSession {
		if err := fr.splitSessions(c, p); err != nil {
			return err
		}
	}
	switch {
	case fn.Name == "first_value" || fn.Name == "last_value" || fn.Name == "nth_value":
		return p.nthInFrame(c, fn, fr, res)
	case fn.Agg != nil:
		return p.aggregate(c, fn.Agg, fr, res)
	case fr.rangeOffsets():
		// PostgreSQL finds a RANGE frame with offsets for every row also
		// for the functions that ignore it, and fails where it cannot.
		for i := range p.rows {
			if _, _, err := fr.bounds(c, p, i); err != nil {
				return err
			}
		}
	}
	n := len(p.rows)
	switch fn.Name {
	case "row_number":
		for i := range res {
			res[i] = types.NewInt(int64(i + 1))
		}
	case "rank":
		for i := range res {
			lo, _ := p.peers(i)
			res[i] = types.NewInt(int64(lo + 1))
		}
	case "dense_rank":
		for i := range res {
			res[i] = types.NewInt(int64(p.group[i] + 1))
		}
	case "percent_rank":
		for i := range res {
			lo, _ := p.peers(i)
			v := 0.0
			if n > 1 {
				v = float64(lo) / float64(n-1)
			}
			res[i] = types.NewFloat(v)
		}
	case "cume_dist":
		for i := range res {
			_, hi := p.peers(i)
			res[i] = types.NewFloat(float64(hi) / float64(n))
		}
	case "ntile":
		return p.ntile(c, fn.Args[0], res)
	case "lag", "lead":
		return p.shifted(c, fn, res)
	}
	return nil
}

// ntile numbers buckets from 1 as evenly as possible, the first buckets
// taking one row more, for the bucket count on the partition's first row.
func (p *windowPartition) ntile(c *expr.Ctx, arg expr.Expr, res []types.Datum) error {
	v, err := arg.Eval(c, p.rows[0])
	if err != nil {
		return err
	}
	if v.IsNull() {
		clear(res)
		return nil
	}
	if v.Int() <= 0 {
		return pgerror.New(codeInvalidNtile, "argument of ntile must be greater than zero")
	}
	n := int64(len(res))
	size, extra := n/v.Int(), n%v.Int()
	big := extra * (size + 1) // rows in the buckets of size+1
	for i := range res {
		k := int64(i)
		if k < big {
			res[i] = types.NewInt(k/(size+1) + 1)
		} else {
			res[i] = types.NewInt(extra + (k-big)/size + 1)
		}
	}
	return nil
}

// shifted computes lag and lead: the value offset rows before (lag) or
// after (lead) the current row, or the default outside the partition.
// A NULL offset gives NULL.
func (p *windowPartition) shifted(c *expr.Ctx, fn *WindowFunc, res []types.Datum) error {
	for i, row := range p.rows {
		off, null, err := shiftOffset(c, fn, row)
		if err != nil {
			return err
		}
		if null {
			res[i] = types.Null
			continue
		}
		if fn.Name == "lag" {
			off = -off
		}
		if j := offsetFrom(i, off, len(p.rows)); j >= 0 && j < len(p.rows) {
			res[i], err = fn.Args[0].Eval(c, p.rows[j])
		} else if len(fn.Args) > 2 {
			res[i], err = fn.Args[2].Eval(c, row)
		} else {
			res[i] = types.Null
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// nthInFrame computes first_value, last_value and nth_value: the value at
// a position of the row's frame, NULL when the frame is too short. With
// IGNORE NULLS the positions count the rows whose value is not NULL.
func (p *windowPartition) nthInFrame(c *expr.Ctx, fn *WindowFunc, fr *frameSpec, res []types.Datum) error {
	for i, row := range p.rows {
		rs, err := fr.rows(c, p, i)
		if err != nil {
			return err
		}
		nth := int64(1)
		if fn.Name == "nth_value" {
			v, err := fn.Args[1].Eval(c, row)
			if err != nil {
				return err
			}
			if v.IsNull() {
				res[i] = types.Null
				continue
			}
			if nth = v.Int(); nth <= 0 {
				return pgerror.New(codeInvalidNthValue, "argument of nth_value must be greater than zero")
			}
		}
		size := rs.len()
		// pos returns the row at position k, counted from the end for
		// last_value.
		pos := func(k int) int {
			if fn.Name == "last_value" {
				k = size - 1 - k
			}
			return rs.at(k)
		}
		res[i] = types.Null
		if !fn.IgnoreNulls {
			if nth <= int64(size) {
				if res[i], err = fn.Args[0].Eval(c, p.rows[pos(int(nth-1))]); err != nil {
					return err
				}
			}
			continue
		}
		for k := 0; k < size; k++ {
			v, err := fn.Args[0].Eval(c, p.rows[pos(k)])
			if err != nil {
				return err
			}
			if !v.IsNull() {
				if nth--; nth == 0 {
					res[i] = v
					break
				}
			}
		}
	}
	return nil
}

// aggregate computes an aggregate over each row's frame. An accumulator
// holding the rows [from, to) serves the next row while its frame is one
// run of rows starting at from that does not shrink (frames starting at
// UNBOUNDED PRECEDING, and peers): each row is then added once. A frame
// its exclusion splits is aggregated afresh, as PostgreSQL does.
func (p *windowPartition) aggregate(c *expr.Ctx, agg *expr.AggFunc, fr *frameSpec, res []types.Datum) error {
	var state expr.AggState
	from, to := -1, 0
	var prev frameRows
	p.args = resize(p.args, len(agg.Args))
	for i := range p.rows {
		rs, err := fr.rows(c, p, i)
		if err != nil {
			return err
		}
		if i > 0 && rs == prev {
			res[i] = res[i-1]
			continue
		}
		lo, hi := rs.runs[0][0], rs.runs[0][1]
		if rs.n > 1 || lo != from || hi < to {
			state, from, to = agg.NewState(), lo, lo
		}
		for _, run := range rs.runs[:rs.n] {
			for j := max(run[0], to); j < run[1]; j++ {
				if err := p.accumulate(c, agg, state, j); err != nil {
					return err
				}
			}
		}
		if to = hi; rs.n > 1 {
			from = -1
		}
		v, err := state.Result()
		if err != nil {
			return err
		}
		res[i], prev = v, rs
	}
	return nil
}

// accumulate adds row j to an aggregate's state.
func (p *windowPartition) accumulate(c *expr.Ctx, agg *expr.AggFunc, state expr.AggState, j int) error {
	if ok, err := agg.Accepts(c, p.rows[j]); !ok {
		return err
	}
	for k, a := range agg.Args {
		v, err := a.Eval(c, p.rows[j])
		if err != nil {
			return err
		}
		p.args[k] = v
	}
	return state.Add(p.args)
}
