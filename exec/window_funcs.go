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
		lo, hi, err := fr.bounds(c, p, i)
		if err != nil {
			return err
		}
		nth, step, from := int64(1), 1, lo
		switch fn.Name {
		case "last_value":
			step, from = -1, hi-1
		case "nth_value":
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
		if !fn.IgnoreNulls {
			res[i] = types.Null
			j := from + step*int(min(nth-1, int64(hi-lo)))
			if j >= lo && j < hi {
				if res[i], err = fn.Args[0].Eval(c, p.rows[j]); err != nil {
					return err
				}
			}
			continue
		}
		if res[i], err = p.nthNonNull(c, fn.Args[0], from, step, lo, hi, nth); err != nil {
			return err
		}
	}
	return nil
}

// nthNonNull returns the nth value of arg that is not NULL over the rows
// [lo, hi) walked from row from by step, NULL when there are fewer.
func (p *windowPartition) nthNonNull(c *expr.Ctx, arg expr.Expr, from, step, lo, hi int, nth int64) (types.Datum, error) {
	for j := from; j >= lo && j < hi; j += step {
		v, err := arg.Eval(c, p.rows[j])
		if err != nil {
			return v, err
		}
		if !v.IsNull() {
			if nth--; nth == 0 {
				return v, nil
			}
		}
	}
	return types.Null, nil
}

// aggregate computes an aggregate over each row's frame. An accumulator
// holding the rows [from, to) serves the next row while its frame starts at
// from and does not shrink (frames starting at UNBOUNDED PRECEDING, and
// peers): each row is then added once.
func (p *windowPartition) aggregate(c *expr.Ctx, agg *expr.AggFunc, fr *frameSpec, res []types.Datum) error {
	var state expr.AggState
	from, to := -1, 0
	prevLo, prevHi := -1, -1
	p.args = resize(p.args, len(agg.Args))
	for i := range p.rows {
		lo, hi, err := fr.bounds(c, p, i)
		if err != nil {
			return err
		}
		if lo == prevLo && hi == prevHi {
			res[i] = res[i-1]
			continue
		}
		if lo != from || hi < to {
			state, from, to = agg.NewState(), lo, lo
		}
		for ; to < hi; to++ {
			for k, a := range agg.Args {
				v, err := a.Eval(c, p.rows[to])
				if err != nil {
					return err
				}
				p.args[k] = v
			}
			if err := state.Add(p.args); err != nil {
				return err
			}
		}
		v, err := state.Result()
		if err != nil {
			return err
		}
		res[i], prevLo, prevHi = v, lo, hi
	}
	return nil
}
