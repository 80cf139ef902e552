package expr

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// AggOrder is the direction of one ORDER BY key of an aggregate call.
type AggOrder struct{ Desc, NullsFirst bool }

// orderSensitive are the aggregates whose result depends on the order of
// their input.
var orderSensitive = map[string]bool{"string_agg": true, "array_agg": true, "first_value": true, "last_value": true}

// WithOrder gives the call the ORDER BY keys exprs with directions order.
// An aggregate whose result does not depend on the order of its input
// (count, sum, ...) ignores them.
func (a *AggFunc) WithOrder(exprs []Expr, order []AggOrder) {
	if orderSensitive[a.Name] && len(exprs) > 0 {
		a.Args = append(a.Args, exprs...)
		a.Order = order
	}
}

// Ordered reports whether the call has ORDER BY keys.
func (a *AggFunc) Ordered() bool { return len(a.Order) > 0 }

// ValueArgs are the call's arguments without the ORDER BY keys.
func (a *AggFunc) ValueArgs() []Expr { return a.Args[:len(a.Args)-len(a.Order)] }

// orderString renders the ORDER BY of the call ("" without one).
func (a *AggFunc) orderString() string {
	if !a.Ordered() {
		return ""
	}
	keys := a.Args[len(a.Args)-len(a.Order):]
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
		o := a.Order[i]
		if o.Desc {
			parts[i] += " DESC"
		}
		if o.NullsFirst != o.Desc {
			parts[i] += map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[o.NullsFirst]
		}
	}
	return " ORDER BY " + strings.Join(parts, ", ")
}

// CompareOrdered compares two values of one ORDER BY key: negative when x
// sorts first. Desc reverses the order of values; NULLs sort first or
// last as nullsFirst says.
func CompareOrdered(x, y types.Datum, desc, nullsFirst bool) int {
	switch {
	case x.IsNull() && y.IsNull():
		return 0
	case x.IsNull() != y.IsNull():
		if x.IsNull() == nullsFirst {
			return -1
		}
		return 1
	}
	c := types.Compare(x, y)
	if desc {
		return -c
	}
	return c
}

// orderedState collects a group's rows and feeds them to the aggregate
// sorted by the call's ORDER BY keys, equal keys by the argument values
// (so that the result does not depend on arrival order); with DISTINCT
// each argument tuple once.
type orderedState struct {
	a    *AggFunc
	rows [][]types.Datum // arguments, then ORDER BY keys
}

func (s *orderedState) Add(args []types.Datum) error {
	if s.a.Distinct && !s.a.keepsNulls() && slices.ContainsFunc(args[:len(s.a.ValueArgs())], types.Datum.IsNull) {
		return nil
	}
	s.rows = append(s.rows, slices.Clone(args))
	return nil
}

func (s *orderedState) Result() (types.Datum, error) {
	n := len(s.a.ValueArgs())
	slices.SortStableFunc(s.rows, func(x, y []types.Datum) int {
		for i, o := range s.a.Order {
			if c := CompareOrdered(x[n+i], y[n+i], o.Desc, o.NullsFirst); c != 0 {
				return c
			}
		}
		return slices.CompareFunc(x[:n], y[:n], types.Compare)
	})
	inner := s.a.NewSortedState()
	for i, r := range s.rows {
		if s.a.Distinct && i > 0 && slices.EqualFunc(r[:n], s.rows[i-1][:n], func(x, y types.Datum) bool { return types.Compare(x, y) == 0 }) {
			continue
		}
		if err := inner.Add(s.a.Fed(r)); err != nil {
			return types.Null, err
		}
	}
	return inner.Result()
}

// keepsNulls reports whether the aggregate takes NULL values in (array_agg
// does; others skip them, also under DISTINCT).
func (a *AggFunc) keepsNulls() bool { return a.Name == "array_agg" }

// firstLastState keeps the first or the last value fed to it, NULL
// included (RisingWave's first_value and last_value aggregates, fed in
// ORDER BY order).
type firstLastState struct {
	last, any bool
	v         types.Datum
}

func (s *firstLastState) Add(args []types.Datum) error {
	if !s.any || s.last {
		s.v, s.any = args[0], true
	}
	return nil
}

func (s *firstLastState) Result() (types.Datum, error) { return s.v, nil }
