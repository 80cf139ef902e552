package expr

import (
	"maps"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// AggFunc is a resolved aggregate call: count(*), count(x), sum, avg, min,
// max, string_agg, array_agg, bool_and, bool_or, bit_and, bit_or,
// bit_xor, the variances and standard deviations, RisingWave's
// first_value and last_value, with an optional DISTINCT and ORDER BY, or
// an ordered-set aggregate (percentile_cont, percentile_disc, mode).
type AggFunc struct {
	Name string
	// Args are the arguments (nil for count(*)), then the expressions of
	// the ORDER BY keys, one per Order entry. An ordered-set aggregate's
	// are its direct arguments, then its WITHIN GROUP key.
	Args     []Expr
	Order    []AggOrder
	Distinct bool
	// Filter, if set, is the FILTER (WHERE ...) condition: rows for which it
	// is not true are left out of this aggregate.
	Filter Expr
	T      types.T
}

// Accepts reports whether row feeds the aggregate (its FILTER holds).
func (a *AggFunc) Accepts(c *Ctx, row []types.Datum) (bool, error) {
	if a.Filter == nil {
		return true, nil
	}
	v, err := a.Filter.Eval(c, row)
	return err == nil && !v.IsNull() && v.Bool(), err
}

// String renders the call.
func (a *AggFunc) String() string {
	filter := ""
	if a.Filter != nil {
		filter = " FILTER (WHERE " + a.Filter.String() + ")"
	}
	if a.Args == nil {
		return a.Name + "(*)" + filter
	}
	d := ""
	if a.Distinct {
		d = "DISTINCT "
	}
	if a.orderedSet() {
		return a.Name + "(" + joinStrings(a.ValueArgs(), ", ") + ") WITHIN GROUP (" + a.orderString()[1:] + ")" + filter
	}
	return a.Name + "(" + d + joinStrings(a.ValueArgs(), ", ") + a.orderString() + ")" + filter
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool {
	switch name {
	case "count", "sum", "avg", "min", "max", "string_agg", "array_agg", "bool_and", "bool_or", "every",
		"first_value", "last_value", "jsonb_agg", "jsonb_object_agg", "bit_and", "bit_or", "bit_xor":
		return true
	}
	_, variance := variances[name]
	return variance || IsOrderedSet(name)
}

// NewAgg resolves an aggregate call for its argument types.
func NewAgg(name string, args []Expr, distinct, star bool) (*AggFunc, error) {
	if star {
		if name != "count" {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "%s(*) is not allowed", name)
		}
		return &AggFunc{Name: name, T: types.TInt8}, nil
	}
	wantArgs := 1
	if name == "string_agg" {
		wantArgs = 2
	}
	if len(args) != wantArgs {
		return nil, NoSuchFunction(name, args)
	}
	a := &AggFunc{Name: name, Args: args, Distinct: distinct}
	t := args[0].Type()
	_, variance := variances[name]
	if t.Family == types.Unknown {
		// An untyped literal takes the preferred type of the candidates:
		// float8 among the variances' numeric types, else text.
		t = types.TText
		if variance {
			t = types.TFloat8
		}
		args[0] = castTo(args[0], t)
	}
	if t.Family == types.Time && (name == "sum" || name == "avg") {
		// time casts to interval implicitly: sum(interval), avg(interval).
		args[0] = castTo(args[0], types.TInterval)
		t = types.TInterval
	}
	switch name {
	case "count":
		a.T = types.TInt8
	case "sum":
		switch t.Family {
		case types.Int2, types.Int4:
			a.T = types.TInt8
		case types.Int8, types.Numeric:
			a.T = types.TNumeric
		case types.Float4, types.Float8, types.Interval:
			a.T = types.T{Family: t.Family, Mod: -1}
		}
	case "avg":
		switch t.Family {
		case types.Int2, types.Int4, types.Int8, types.Numeric:
			a.T = types.TNumeric
		case types.Float4, types.Float8:
			a.T = types.TFloat8
		case types.Interval:
			a.T = types.TInterval
		}
	case "min", "max":
		if t.Family != types.Jsonb {
			a.T = t
		}
	case "string_agg":
		if t.IsString() {
			a.T = types.TText
			a.Args[0] = castTo(a.Args[0], types.TText)
			a.Args[1] = castTo(a.Args[1], types.TText)
		} else if t.Family == types.Bytea {
			a.T = types.TBytea
		}
	case "array_agg":
		at, err := types.ArrayOf(t.WithoutMod())
		if err != nil {
			return nil, err
		}
		a.T = at
	case "bool_and", "bool_or", "every":
		if t.Family == types.Bool {
			a.T = types.TBool
		}
	case "first_value", "last_value":
		a.T = t
	case "bit_and", "bit_or", "bit_xor":
		if t.IsInteger() {
			a.T = t
		}
	}
	switch {
	case !variance:
	case t.IsInteger() || t.Family == types.Numeric:
		a.T = types.TNumeric
	case t.Family == types.Float4 || t.Family == types.Float8:
		a.T = types.TFloat8
	}
	if a.T.Family == types.Unknown {
		return nil, NoSuchFunction(name, args)
	}
	return a, nil
}

// AggState accumulates one group's values.
type AggState interface {
	// Add folds in one row's argument values (len(args)==0 for count(*)).
	Add(args []types.Datum) error
	// Result returns the aggregate's value.
	Result() (types.Datum, error)
}

// NewState returns an empty accumulator (fed in any order).
func (a *AggFunc) NewState() AggState {
	if a.Ordered() {
		return &orderedState{a: a}
	}
	if a.Distinct {
		return &distinctState{inner: a.newState, keepNulls: a.keepsNulls(), seen: map[string][]types.Datum{}}
	}
	return a.newState()
}

// newState returns an empty accumulator without DISTINCT.
func (a *AggFunc) newState() AggState {
	switch a.Name {
	case "count":
		return &countState{star: a.Args == nil}
	case "sum", "avg":
		return &sumState{in: a.Args[0].Type(), out: a.T, avg: a.Name == "avg"}
	case "min", "max":
		return &minMaxState{max: a.Name == "max"}
	case "string_agg":
		return &stringAggState{}
	case "array_agg":
		return &arrayAggState{}
	case "first_value", "last_value":
		return &firstLastState{last: a.Name == "last_value"}
	case "bit_and", "bit_or", "bit_xor":
		return &bitState{name: a.Name}
	case "bool_and", "bool_or", "every":
		return &boolState{and: a.Name != "bool_or"}
	}
	v := variances[a.Name]
	if a.T.Family == types.Float8 {
		return &floatVarianceState{v: v}
	}
	return &numericVarianceState{v: v, sum: new(apd.Decimal), sumSq: new(apd.Decimal)}
}

type countState struct {
	star bool
	n    int64
}

func (s *countState) Add(args []types.Datum) error {
	if s.star || !args[0].IsNull() {
		s.n++
	}
	return nil
}

func (s *countState) Result() (types.Datum, error) { return types.NewInt(s.n), nil }

// sumState sums integers in int64 until they overflow into a decimal,
// numerics in a decimal, floats in a float64 and intervals field-wise.
type sumState struct {
	in, out types.T
	avg     bool
	n       int64
	i       int64
	dec     *apd.Decimal
	f       float64    // the sum of floats
	acc     floatAccum // the state of avg() of floats
	iv      types.IntervalValue
}

func (s *sumState) Add(args []types.Datum) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	s.n++
	switch s.in.Family {
	case types.Int2, types.Int4, types.Int8:
		x := v.Int()
		sum := s.i + x
		if (sum > s.i) == (x > 0) || x == 0 {
			s.i = sum
			return nil
		}
		return s.addDec(DecimalFromInt(x))
	case types.Numeric:
		return s.addDec(v.Decimal())
	case types.Interval:
		var err error
		s.iv, err = s.iv.Add(v.Interval())
		return err
	case types.Float4, types.Float8:
		if s.avg {
			return s.acc.add(v.Float())
		}
		if s.n == 1 {
			s.f = v.Float() // sum's state starts as the first value (so -0 stays)
			return nil
		}
		var err error
		s.f, err = addFloat(s.f, v.Float(), s.in.Family == types.Float4)
		return err
	}
	return nil
}

func (s *sumState) addDec(d *apd.Decimal) error {
	if s.dec == nil {
		s.dec = new(apd.Decimal)
	}
	r, err := NumericAdd(s.dec, d)
	s.dec = r
	return err
}

func (s *sumState) Result() (types.Datum, error) {
	if s.n == 0 {
		return types.Null, nil
	}
	switch s.out.Family {
	case types.Int8:
		if s.dec != nil {
			return types.Null, IntRangeError(s.out)
		}
		return types.NewInt(s.i), nil
	case types.Numeric:
		total := DecimalFromInt(s.i)
		if s.dec != nil {
			var err error
			if total, err = NumericAdd(total, s.dec); err != nil {
				return types.Null, err
			}
		}
		if s.avg {
			q, err := NumericDiv(total, DecimalFromInt(s.n))
			return types.NewDecimal(q), err
		}
		return types.NewDecimal(total), nil
	case types.Interval:
		if s.avg {
			return datumOf(types.NewInterval)(s.iv.Div(float64(s.n)))
		}
		return types.NewInterval(s.iv), nil
	}
	if s.avg {
		return types.NewFloat(s.acc.sx / s.acc.n), nil
	}
	return types.NewFloat(s.f), nil
}

// minMaxState keeps the least or greatest value. Of equal values (1.0 and
// 1.00, 1 mon and 30 days, 0 and -0) it keeps the last, as PostgreSQL's
// numeric_larger, interval_smaller, float8_larger and the like do.
type minMaxState struct {
	max bool
	v   types.Datum
}

func (s *minMaxState) Add(args []types.Datum) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	if s.v.IsNull() {
		s.v = v
		return nil
	}
	c := types.Compare(v, s.v)
	if (s.max && c >= 0) || (!s.max && c <= 0) {
		s.v = v
	}
	return nil
}

func (s *minMaxState) Result() (types.Datum, error) { return s.v, nil }

type stringAggState struct {
	b     strings.Builder
	any   bool
	bytes bool
}

func (s *stringAggState) Add(args []types.Datum) error {
	if args[0].IsNull() {
		return nil
	}
	if s.any && !args[1].IsNull() {
		s.b.WriteString(args[1].Str())
	}
	s.any = true
	s.bytes = args[0].Kind() == types.KindBytes
	s.b.WriteString(args[0].Str())
	return nil
}

func (s *stringAggState) Result() (types.Datum, error) {
	if !s.any {
		return types.Null, nil
	}
	if s.bytes {
		return types.NewBytes([]byte(s.b.String())), nil
	}
	return types.NewString(s.b.String()), nil
}

// arrayAggState collects array_agg's values, NULLs included, in arrival
// order.
type arrayAggState struct {
	vals []types.Datum
	any  bool
}

func (s *arrayAggState) Add(args []types.Datum) error {
	s.any = true
	s.vals = append(s.vals, args[0])
	return nil
}

func (s *arrayAggState) Result() (types.Datum, error) {
	if !s.any {
		return types.Null, nil
	}
	return types.NewArray(slices.Clone(s.vals)), nil
}

type boolState struct {
	and  bool
	any  bool
	vals bool
}

func (s *boolState) Add(args []types.Datum) error {
	if args[0].IsNull() {
		return nil
	}
	if !s.any {
		s.any, s.vals = true, args[0].Bool()
		return nil
	}
	if s.and {
		s.vals = s.vals && args[0].Bool()
	} else {
		s.vals = s.vals || args[0].Bool()
	}
	return nil
}

func (s *boolState) Result() (types.Datum, error) {
	if !s.any {
		return types.Null, nil
	}
	return types.NewBool(s.vals), nil
}

// distinctState feeds a fresh inner accumulator each distinct argument
// tuple once, in sort order (as PostgreSQL sorts a DISTINCT aggregate's
// input), skipping tuples with a NULL unless keepNulls.
type distinctState struct {
	inner     func() AggState
	keepNulls bool
	seen      map[string][]types.Datum // by the tuple's key
	key       []byte
}

func (s *distinctState) Add(args []types.Datum) error {
	s.key = s.key[:0]
	for _, a := range args {
		if a.IsNull() && !s.keepNulls {
			return nil
		}
		s.key = types.AppendKey(s.key, a, false)
	}
	if _, ok := s.seen[string(s.key)]; !ok {
		s.seen[string(s.key)] = slices.Clone(args)
	}
	return nil
}

func (s *distinctState) Result() (types.Datum, error) {
	inner := s.inner()
	for _, k := range slices.Sorted(maps.Keys(s.seen)) {
		if err := inner.Add(s.seen[k]); err != nil {
			return types.Null, err
		}
	}
	return inner.Result()
}
