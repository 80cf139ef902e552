package expr

import (
	"math"
	"slices"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// IsOrderedSet reports whether name is an ordered-set aggregate
// (percentile_cont, percentile_disc, mode), called as name(direct args)
// WITHIN GROUP (ORDER BY value): it aggregates the sorted values.
func IsOrderedSet(name string) bool {
	return name == "percentile_cont" || name == "percentile_disc" || name == "mode"
}

// NewOrderedSetAgg resolves name(direct) WITHIN GROUP (ORDER BY key) with
// key's direction order. Its Args are the direct arguments, then the key.
func NewOrderedSetAgg(name string, direct []Expr, key Expr, order AggOrder) (*AggFunc, error) {
	bad := NoSuchFunction(name, append(slices.Clone(direct), key))
	kt := key.Type()
	switch {
	case name == "mode" && len(direct) == 0:
	case name == "percentile_cont" && len(direct) == 1:
		switch _, toFloat := castCost(kt, types.Float8); {
		case toFloat:
			kt = types.TFloat8
		case kt.Family == types.Interval || kt.Family == types.Time:
			kt = types.TInterval
		default:
			return nil, bad
		}
	case name == "percentile_disc" && len(direct) == 1:
	default:
		return nil, bad
	}
	if kt.Family == types.Unknown {
		kt = types.TText
	}
	t := kt.WithoutMod()
	if len(direct) == 1 {
		// The fraction is float8, or float8[] for one result per element.
		ft := types.TFloat8
		if pt := direct[0].Type(); pt.Family == types.Array {
			if _, ok := castCost(pt.ElemType(), types.Float8); !ok {
				return nil, bad
			}
			ft, _ = types.ArrayOf(types.TFloat8)
			at, err := types.ArrayOf(t)
			if err != nil {
				return nil, err
			}
			t = at
		} else if _, ok := castCost(pt, types.Float8); !ok {
			return nil, bad
		}
		direct = []Expr{castTo(direct[0], ft)}
	}
	return &AggFunc{Name: name, Args: append(direct, castTo(key, kt)), Order: []AggOrder{order}, T: t}, nil
}

// orderedSet reports whether the call is of an ordered-set aggregate.
func (a *AggFunc) orderedSet() bool { return IsOrderedSet(a.Name) }

// Fed returns what the aggregate takes of one row's evaluated Args (the
// arguments, then the ORDER BY keys), fed in ORDER BY order: the
// arguments, or for an ordered-set aggregate all of them (its direct
// arguments and the sorted value).
func (a *AggFunc) Fed(args []types.Datum) []types.Datum {
	if a.orderedSet() {
		return args
	}
	return args[:len(a.ValueArgs())]
}

// NewSortedState returns an accumulator to be fed (see Fed) the rows of a
// group sorted by the call's ORDER BY keys, equal keys by their arguments;
// a call with DISTINCT must be fed each argument tuple once.
func (a *AggFunc) NewSortedState() AggState {
	switch a.Name {
	case "percentile_cont", "percentile_disc":
		s := &percentileState{a: a}
		if c, ok := a.Args[0].(*Const); ok {
			// Known without rows: a constant out of range is an error
			// also over no rows, as in PostgreSQL.
			s.frac = c.V
		}
		return s
	case "mode":
		return &modeState{}
	}
	return a.newState()
}

// percentileState collects the sorted non-NULL values of percentile_cont
// or percentile_disc with the fraction (or array of fractions) of their
// group.
type percentileState struct {
	a    *AggFunc
	frac types.Datum
	vals []types.Datum
}

func (s *percentileState) Add(args []types.Datum) error {
	s.frac = args[0]
	if !args[1].IsNull() {
		s.vals = append(s.vals, args[1])
	}
	return nil
}

func (s *percentileState) Result() (types.Datum, error) {
	if s.frac.IsNull() {
		return types.Null, nil
	}
	if s.frac.Kind() != types.KindArray {
		if err := checkPercentile(s.frac); err != nil || len(s.vals) == 0 {
			return types.Null, err
		}
		return s.pick(s.frac.Float())
	}
	// PostgreSQL's percentile_*_multi_final: no values come first.
	if len(s.vals) == 0 {
		return types.Null, nil
	}
	fracs := s.frac.Array()
	for _, f := range fracs {
		if err := checkPercentile(f); err != nil {
			return types.Null, err
		}
	}
	out := make([]types.Datum, len(fracs))
	for i, f := range fracs {
		if !f.IsNull() {
			v, err := s.pick(f.Float())
			if err != nil {
				return types.Null, err
			}
			out[i] = v
		}
	}
	return types.NewArray(out), nil
}

// checkPercentile returns PostgreSQL's error for a fraction (NULL or
// float8) outside [0, 1].
func checkPercentile(f types.Datum) error {
	if f.IsNull() {
		return nil
	}
	if p := f.Float(); !(p >= 0 && p <= 1) {
		return pgerror.New(pgerror.CodeNumericValueOutOfRange, "percentile value %s is not between 0 and 1", formatG(p, 0))
	}
	return nil
}

// pick returns the value at fraction p of the sorted values: the first
// value at or past it (percentile_disc), or the interpolation between the
// values around it (percentile_cont).
func (s *percentileState) pick(p float64) (types.Datum, error) {
	n := len(s.vals)
	if s.a.Name == "percentile_disc" {
		row := max(int(math.Ceil(p*float64(n))), 1)
		return s.vals[row-1], nil
	}
	pos := p * float64(n-1)
	lo, hi := s.vals[int(math.Floor(pos))], s.vals[int(math.Ceil(pos))]
	if math.Floor(pos) == math.Ceil(pos) {
		return lo, nil
	}
	frac := pos - math.Floor(pos)
	if lo.Kind() == types.KindFloat {
		return types.NewFloat(lo.Float() + frac*(hi.Float()-lo.Float())), nil
	}
	// interval_lerp: (hi - lo) * frac + lo.
	d, err := hi.Interval().Sub(lo.Interval())
	if err == nil {
		d, err = d.Mul(frac)
	}
	if err == nil {
		d, err = d.Add(lo.Interval())
	}
	if err != nil {
		return types.Null, err
	}
	return types.NewInterval(d), nil
}

// modeState finds the most frequent of the sorted non-NULL values, the
// first in sort order of equally frequent ones (and of equal values, the
// first).
type modeState struct {
	cur, best   types.Datum
	run, bestOf int
}

func (s *modeState) Add(args []types.Datum) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	if s.run > 0 && types.Compare(v, s.cur) == 0 {
		s.run++
	} else {
		s.cur, s.run = v, 1
	}
	if s.run > s.bestOf {
		s.best, s.bestOf = s.cur, s.run
	}
	return nil
}

func (s *modeState) Result() (types.Datum, error) { return s.best, nil }
