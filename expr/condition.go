package expr

import (
	"cmp"
	"slices"

	"github.com/streamdb/streamdb/types"
)

// Truth is the value of a condition: false, true or unknown (NULL).
type Truth uint8

// The values of a condition.
const (
	False Truth = iota
	True
	Unknown
)

// truthOf returns the Truth of a boolean value.
func truthOf(v types.Datum) Truth {
	switch {
	case v.IsNull():
		return Unknown
	case v.Bool():
		return True
	}
	return False
}

// Test evaluates a condition over a row.
type Test func(c *Ctx, row []types.Datum) (Truth, error)

// CompileTest returns a Test of the boolean expression e that gives what
// e.Eval gives, errors included, without a call through the Expr
// interface or a datum returned for the shapes that conditions mostly
// take: AND, OR and NOT of conditions, and comparisons of columns and
// constants that hold integers, booleans, dates, times or timestamps. A
// streaming filter runs it for every row (Nexmark q2's OR of five
// equalities); other expressions are evaluated by Eval.
func CompileTest(e Expr) Test {
	switch x := e.(type) {
	case *And:
		return logicTest(x.Args, False)
	case *Or:
		t := logicTest(x.Args, True)
		if member, ok := equalitiesTest(x, t); ok {
			return member
		}
		return t
	case *InList:
		if t, ok := inListTest(x); ok {
			return t
		}
	case *Not:
		t := CompileTest(x.E)
		return func(c *Ctx, row []types.Datum) (Truth, error) {
			v, err := t(c, row)
			if v != Unknown {
				v ^= 1
			}
			return v, err
		}
	case *Binary:
		if t, ok := comparisonTest(x); ok {
			return t
		}
	}
	return func(c *Ctx, row []types.Datum) (Truth, error) {
		v, err := e.Eval(c, row)
		return truthOf(v), err
	}
}

// logicTest is the Test of AND (decisive False) or OR (decisive True) of
// args, in evalLogic's order: the first error or decisive value ends it.
func logicTest(args []Expr, decisive Truth) Test {
	tests := make([]Test, len(args))
	for i, a := range args {
		tests[i] = CompileTest(a)
	}
	return func(c *Ctx, row []types.Datum) (Truth, error) {
		out := decisive ^ 1
		for _, t := range tests {
			v, err := t(c, row)
			if err != nil {
				return Unknown, err
			}
			switch v {
			case decisive:
				return v, nil
			case Unknown:
				out = Unknown
			}
		}
		return out, nil
	}
}

// operand is a comparison's column (col >= 0) or constant.
type operand struct {
	col int
	v   types.Datum
}

func (o *operand) at(row []types.Datum) types.Datum {
	if o.col >= 0 {
		return row[o.col]
	}
	return o.v
}

// operandOf returns e as an operand, if it is a column or a constant.
func operandOf(e Expr) (operand, bool) {
	switch x := e.(type) {
	case *ColRef:
		return operand{col: x.Idx}, true
	case *Const:
		return operand{col: -1, v: x.V}, true
	}
	return operand{}, false
}

// comparisonTest compiles a comparison of columns and constants: values
// of one kind that types.Compare orders by their integer compare as
// integers; others as the comparison's own function does.
func comparisonTest(b *Binary) (Test, bool) {
	if !IsComparison(b.Op) {
		return nil, false
	}
	l, lok := operandOf(b.L)
	r, rok := operandOf(b.R)
	if !lok || !rok {
		return nil, false
	}
	// accepts has bit 1+cmp.Compare(x, y) set for the orders that make
	// the comparison true.
	accepts := map[string]uint8{"<": 0b001, "=": 0b010, ">": 0b100, "<=": 0b011, ">=": 0b110, "<>": 0b101}[b.Op]
	return func(c *Ctx, row []types.Datum) (Truth, error) {
		x, y := l.at(row), r.at(row)
		if x.IsNull() || y.IsNull() {
			return Unknown, nil
		}
		if k := x.Kind(); k == y.Kind() && comparesAsInt(k) {
			return Truth(accepts >> (1 + cmp.Compare(x.Int(), y.Int())) & 1), nil
		}
		v, err := b.fn(c, x, y)
		return truthOf(v), err
	}, true
}

// comparesAsInt reports whether types.Compare orders two values of kind k
// by their integers.
func comparesAsInt(k types.Kind) bool {
	switch k {
	case types.KindBool, types.KindInt, types.KindDate, types.KindTime, types.KindTimestamp, types.KindTimestampTZ:
		return true
	}
	return false
}

// equalitiesTest compiles an OR of equalities of one column with
// non-NULL constants of one kind that compares as integers (col = 1 OR
// col = 7 ...) into a membership test; or, the OR's general Test, takes
// values of another kind.
func equalitiesTest(o *Or, or Test) (Test, bool) {
	col, set := -1, make([]types.Datum, 0, len(o.Args))
	for _, a := range o.Args {
		b, ok := a.(*Binary)
		if !ok || b.Op != "=" {
			return nil, false
		}
		l, lok := operandOf(b.L)
		r, rok := operandOf(b.R)
		if !lok || !rok || (l.col >= 0) == (r.col >= 0) {
			return nil, false
		}
		if l.col < 0 {
			l, r = r, l
		}
		if r.v.IsNull() || (col >= 0 && l.col != col) {
			return nil, false
		}
		col = l.col
		set = append(set, r.v)
	}
	return memberTest(col, set, false, false, or)
}

// inListTest compiles col [NOT] IN (constants) whose non-NULL constants
// are of one kind that compares as integers into a membership test.
func inListTest(in *InList) (Test, bool) {
	c, ok := in.E.(*ColRef)
	if !ok {
		return nil, false
	}
	set, sawNull := make([]types.Datum, 0, len(in.List)), false
	for _, e := range in.List {
		k, ok := e.(*Const)
		switch {
		case !ok:
			return nil, false
		case k.V.IsNull():
			sawNull = true
		default:
			set = append(set, k.V)
		}
	}
	return memberTest(c.Idx, set, sawNull, in.Not, func(ctx *Ctx, row []types.Datum) (Truth, error) {
		v, err := in.Eval(ctx, row)
		return truthOf(v), err
	})
}

// memberTest tests whether column col holds one of the values set (of one
// kind that compares as integers): SQL's IN, NOT IN if not, whose answer
// is unknown rather than false when the list held a NULL (sawNull). A
// value of another kind than the set's goes to fallback.
func memberTest(col int, set []types.Datum, sawNull, not bool, fallback Test) (Test, bool) {
	if len(set) == 0 || !comparesAsInt(set[0].Kind()) {
		return nil, false
	}
	kind := set[0].Kind()
	ints := make([]int64, len(set))
	for i, v := range set {
		if v.Kind() != kind {
			return nil, false
		}
		ints[i] = v.Int()
	}
	slices.Sort(ints)
	found, missing := True, False
	if not {
		found, missing = False, True
	}
	if sawNull {
		missing = Unknown
	}
	return func(c *Ctx, row []types.Datum) (Truth, error) {
		x := row[col]
		switch {
		case x.IsNull():
			return Unknown, nil
		case x.Kind() != kind:
			return fallback(c, row)
		case holds(ints, x.Int()):
			return found, nil
		}
		return missing, nil
	}, true
}

// holds reports whether sorted holds v: a scan for a few values, a
// binary search for more.
func holds(sorted []int64, v int64) bool {
	if len(sorted) <= 16 {
		return slices.Contains(sorted, v)
	}
	_, ok := slices.BinarySearch(sorted, v)
	return ok
}
