package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Interval joins: a join whose condition bounds one side's time by the
// other side's (B.date_time BETWEEN A.date_time AND A.expires, a.ts >=
// b.ts - INTERVAL '1' HOUR) lets each side delete the rows that no row
// still to come on the other side can match, once that side's watermark
// passes them (dataflow.IntervalBound), and gives the output columns the
// watermarks that follow.

// intervalCandidate is a conjunct lo <= hi (or lo < hi, either way round)
// of a join condition where hi reads one side's columns only and lo the
// other side's, each non-decreasing in one column (expr.Monotone): a row r
// of hi's side matches only rows s of the other side with lo(s) <= hi(r).
type intervalCandidate struct {
	// key is hi, bound lo, each over its own side's columns.
	key, bound       expr.Expr
	keyCol, boundCol int
}

// intervalCandidates returns the interval candidates of each side (0:
// left, 1: right) among the conjuncts of residual, a condition over the
// columns of both sides (nl of them left).
func intervalCandidates(residual expr.Expr, nl int) (out [2][]intervalCandidate) {
	if residual == nil {
		return out
	}
	for _, c := range conjuncts(residual) {
		b, ok := c.(*expr.Binary)
		if !ok || b.L.Type().Family != b.R.Type().Family {
			continue
		}
		lo, hi := b.L, b.R
		switch b.Op {
		case "<", "<=":
		case ">", ">=":
			lo, hi = hi, lo
		default:
			continue
		}
		ls, hs := side(lo, nl), side(hi, nl)
		if ls != sideLeft && ls != sideRight || hs != sideLeft && hs != sideRight || ls == hs {
			continue
		}
		i := 0
		if hs == sideRight {
			i, hi = 1, shift(hi, -nl)
		} else {
			lo = shift(lo, -nl)
		}
		kc, kok := expr.Monotone(hi)
		bc, bok := expr.Monotone(lo)
		if kok && bok {
			out[i] = append(out[i], intervalCandidate{key: hi, bound: lo, keyCol: kc, boundCol: bc})
		}
	}
	return out
}

// intervalPicks returns, per side of join j, the first interval candidate
// whose bound column carries a watermark on the other side, or nil, and
// the watermark columns of both sides.
func intervalPicks(j *Join) (picks [2]*intervalCandidate, wm [2][]bool) {
	nl := len(j.L.Columns())
	_, _, residual := equiJoin(j.On, nl)
	wm = [2][]bool{watermarkColumns(j.L), watermarkColumns(j.R)}
	for i, cands := range intervalCandidates(residual, nl) {
		for k := range cands {
			if wm[1-i][cands[k].boundCol] {
				picks[i] = &cands[k]
				break
			}
		}
	}
	return picks, wm
}

// intervalBounds returns the dataflow.IntervalBound of each side of join
// j, whose inputs are append-only as appendOnly says: a side cleans its
// state when it is append-only or has a watermark of its own on the key
// column (no retraction of a row below it can come), and its key column
// gets output watermarks when it has one and the key can be undone.
func intervalBounds(j *Join, appendOnly [2]bool) (out [2]*dataflow.IntervalBound) {
	picks, wm := intervalPicks(j)
	for i, c := range picks {
		if c == nil {
			continue
		}
		own := wm[i][c.keyCol]
		b := &dataflow.IntervalBound{Key: c.key, Bound: c.bound, KeyCol: c.keyCol, BoundCol: c.boundCol,
			Clean: appendOnly[i] || own, Retracts: !appendOnly[i]}
		if own {
			b.Inverse = invertKey(c.key)
		}
		if b.Clean || b.Inverse != nil {
			out[i] = b
		}
	}
	return out
}

// intervalWatermarks marks in out, the columns of join j, the key columns
// that get watermarks from an interval bound (see intervalBounds).
func intervalWatermarks(j *Join, out []bool) {
	picks, wm := intervalPicks(j)
	for i, c := range picks {
		if c != nil && wm[i][c.keyCol] && invertKey(c.key) != nil {
			out[i*len(j.L.Columns())+c.keyCol] = true
		}
	}
}

// invertKey returns the expression that undoes key over a row holding
// key's value in its column: the column itself, or the column minus
// (plus) the constant key adds (subtracts); nil unless the constant is an
// integer or an interval of a fixed length (no months or days, which vary).
func invertKey(key expr.Expr) expr.Expr {
	if _, ok := key.(*expr.ColRef); ok {
		return key
	}
	b, ok := key.(*expr.Binary)
	if !ok || b.Op != "+" && b.Op != "-" {
		return nil
	}
	col, c := b.L, b.R
	if _, ok := col.(*expr.ColRef); !ok && b.Op == "+" {
		col, c = c, col
	}
	k, ok := c.(*expr.Const)
	if _, isCol := col.(*expr.ColRef); !isCol || !ok || k.V.IsNull() {
		return nil
	}
	switch k.T.Family {
	case types.Int2, types.Int4, types.Int8:
	case types.Interval:
		if iv := k.V.Interval(); iv.Months != 0 || iv.Days != 0 {
			return nil
		}
	default:
		return nil
	}
	op := map[string]string{"+": "-", "-": "+"}[b.Op]
	inv, err := expr.NewBinary(op, col, c)
	if err != nil {
		return nil
	}
	return inv
}
