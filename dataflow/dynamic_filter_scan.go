package dataflow

import (
	"github.com/streamdb/streamdb/types"
)

// valueRange is a closed range of values; an open end has inf set.
type valueRange struct {
	lo, hi       types.Datum
	loInf, hiInf bool
}

// boundScan walks the rows of a dynamic filter's group whose values lie
// where two sets of bounds may disagree. The rows each set passes form
// one interval (empty when a bound is NULL); the rows that one passes and
// the other does not lie within either interval when they are disjoint,
// else between the two lower ends or between the two upper ends. Those
// ranges, merged where they meet, are walked in value order, so a row is
// seen at most once. Its buffers are reused from barrier to barrier.
type boundScan struct {
	t      types.T
	left   func(row []types.Datum) (types.Datum, error)
	ranges []valueRange
	from   []byte
}

// plan sets the ranges for a move of f's bounds from old to cur.
func (s *boundScan) plan(f *dynamicFilter, old, cur []types.Datum) {
	s.t = f.spec.T
	s.left = func(row []types.Datum) (types.Datum, error) { return f.ev.Eval(f.spec.Left, row) }
	s.ranges = s.ranges[:0]
	a, aok := passRange(f.spec, old)
	b, bok := passRange(f.spec, cur)
	switch {
	case !aok && !bok:
	case !aok:
		s.ranges = append(s.ranges, b)
	case !bok:
		s.ranges = append(s.ranges, a)
	case !s.before(a.hi, a.hiInf, b.lo, b.loInf) && !s.before(b.hi, b.hiInf, a.lo, a.loInf):
		// They overlap: the two lower ends, and the two upper ends.
		lo := valueRange{loInf: a.loInf || b.loInf, lo: s.min(a.lo, b.lo), hi: s.max(a.lo, b.lo)}
		hi := valueRange{lo: s.min(a.hi, b.hi), hiInf: a.hiInf || b.hiInf, hi: s.max(a.hi, b.hi)}
		if !(a.loInf && b.loInf) {
			s.ranges = append(s.ranges, lo)
		}
		if !(a.hiInf && b.hiInf) {
			s.ranges = append(s.ranges, hi)
		}
	case s.before(a.hi, a.hiInf, b.lo, b.loInf):
		s.ranges = append(s.ranges, a, b)
	default:
		s.ranges = append(s.ranges, b, a)
	}
	if len(s.ranges) == 2 && !s.before(s.ranges[0].hi, s.ranges[0].hiInf, s.ranges[1].lo, s.ranges[1].loInf) {
		s.ranges[0].hi, s.ranges[0].hiInf = s.ranges[1].hi, s.ranges[1].hiInf
		s.ranges = s.ranges[:1]
	}
}

// passRange returns the interval of values that bounds pass under spec;
// ok is false when it is empty (a NULL bound).
func passRange(spec *DynamicFilterSpec, bounds []types.Datum) (r valueRange, ok bool) {
	r.loInf, r.hiInf = spec.Lower == nil, spec.Upper == nil
	r.lo, r.hi = bounds[0], bounds[1]
	return r, (r.loInf || !r.lo.IsNull()) && (r.hiInf || !r.hi.IsNull())
}

// before reports whether a value a (+inf if ainf) lies strictly below b
// (-inf if binf).
func (s *boundScan) before(a types.Datum, ainf bool, b types.Datum, binf bool) bool {
	return !ainf && !binf && types.CompareAs(s.t, a, b) < 0
}

func (s *boundScan) min(a, b types.Datum) types.Datum {
	if a.IsNull() || !b.IsNull() && types.CompareAs(s.t, b, a) < 0 {
		return b
	}
	return a
}

func (s *boundScan) max(a, b types.Datum) types.Datum {
	if a.IsNull() || !b.IsNull() && types.CompareAs(s.t, b, a) > 0 {
		return b
	}
	return a
}

// each calls fn with each row of g (and its value) within the ranges, in
// value order, until fn fails.
func (s *boundScan) each(g *Group, fn func(v types.Datum, row []types.Datum) error) error {
	var err error
	for _, r := range s.ranges {
		visit := func(_ []byte, row []types.Datum) bool {
			var v types.Datum
			if v, err = s.left(row); err != nil {
				return false
			}
			if !r.hiInf && types.CompareAs(s.t, v, r.hi) > 0 {
				return false
			}
			err = fn(v, row)
			return err == nil
		}
		if r.loInf {
			g.Ascend(visit)
		} else {
			s.from = types.AppendKey(s.from[:0], r.lo, false)
			g.AscendFrom(s.from, visit)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
