package expr

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Any in an overload's argument list accepts any type.
const Any = types.Family(255)

// Polymorphic parameters (PostgreSQL's anycompatiblearray and
// anycompatible): AnyArray takes an array, AnyElem a value of its element
// type. A call's polymorphic arguments are resolved to one element type,
// the common type of the known ones, and cast to it.
const (
	AnyArray = types.Family(254)
	AnyElem  = types.Family(253)
)

// Overload is one signature of a built-in function.
type Overload struct {
	// Args are the parameter families; Any accepts every type.
	Args []types.Family
	// Variadic repeats the last parameter zero or more times.
	Variadic bool
	// Ret computes the result type from the (cast) argument types.
	Ret func(args []types.T) types.T
	// Fn computes the result. Unless NonStrict is set, Fn only sees
	// non-NULL arguments: a NULL argument makes the result NULL.
	Fn        func(c *Ctx, args []types.Datum) (types.Datum, error)
	NonStrict bool
	// Volatile marks functions whose result changes between calls
	// (random(), clock_timestamp()): never folded.
	Volatile bool
	// Typed, if set, returns Fn for the (cast) argument types, for
	// functions whose values do not say enough (array_to_string prints
	// elements by their type).
	Typed func(args []types.T) func(c *Ctx, args []types.Datum) (types.Datum, error)
	// Set starts the values of a set-returning function (see
	// RegisterSetBuiltin) for non-NULL argument values; Fn is unused then.
	Set func(c *Ctx, args []types.Datum) (SetIter, error)
}

var builtins = map[string][]Overload{}

// RegisterBuiltin adds overloads for a function name (lowercase).
func RegisterBuiltin(name string, overloads ...Overload) {
	builtins[name] = append(builtins[name], overloads...)
}

// Returns is a helper for fixed result types.
func Returns(t types.T) func([]types.T) types.T { return func([]types.T) types.T { return t } }

// SameAsArg returns the type of argument i.
func SameAsArg(i int) func([]types.T) types.T { return func(a []types.T) types.T { return a[i] } }

// Func is a call of a resolved built-in function.
type Func struct {
	Name string
	Args []Expr
	T    types.T
	o    *Overload
	fn   builtinFn
}

// Type implements Expr.
func (e *Func) Type() types.T { return e.T }

// Volatile reports whether the function must not be constant-folded.
func (e *Func) Volatile() bool { return e.o.Volatile }

// Eval implements Expr. A strict function evaluates all its arguments
// before a NULL one makes it NULL, as PostgreSQL's executor does.
func (e *Func) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	args := make([]types.Datum, len(e.Args))
	null := false
	for i, a := range e.Args {
		v, err := a.Eval(c, row)
		if err != nil {
			return types.Null, err
		}
		null = null || v.IsNull()
		args[i] = v
	}
	if null && !e.o.NonStrict {
		return types.Null, nil
	}
	return e.fn(c, args)
}

// String implements Expr.
func (e *Func) String() string { return e.Name + "(" + joinStrings(e.Args, ", ") + ")" }

// Children implements Expr.
func (e *Func) Children() []Expr { return e.Args }

// WithChildren implements Expr.
func (e *Func) WithChildren(ch []Expr) Expr { c := *e; c.Args = ch; return &c }

// NewFunc resolves a call of the named built-in for the argument types, the
// way PostgreSQL does in outline: an exact match of families first, then a
// match through implicit casts (integers widen to numeric and float, unknown
// literals take the parameter's type, string types are interchangeable).
func NewFunc(name string, args []Expr) (Expr, error) {
	o, err := pick(name, builtins[name], args)
	if err != nil {
		return nil, err
	}
	return newCall(name, o, args)
}

// newCall returns the call of overload o of the named built-in with args
// cast to its parameter types; a strict function of a NULL constant is
// folded into NULL.
func newCall(name string, o *Overload, args []Expr) (Expr, error) {
	cast, argTypes, err := castArgs(name, o, args)
	if err != nil {
		return nil, err
	}
	t := o.Ret(argTypes)
	if !o.NonStrict && !o.Volatile {
		for _, a := range cast {
			if isNullConst(a) {
				return NewConst(types.Null, t), nil
			}
		}
	}
	fn := o.Fn
	if o.Typed != nil {
		fn = o.Typed(argTypes)
	}
	return &Func{Name: name, Args: cast, T: t, o: o, fn: fn}, nil
}

// pick returns the overload of the named function that fits args best.
func pick(name string, overloads []Overload, args []Expr) (*Overload, error) {
	i, err := pickIndex(name, overloads, args)
	if err != nil {
		return nil, err
	}
	return &overloads[i], nil
}

// pickIndex returns the index of the overload that fits args best, the
// first of the cheapest.
func pickIndex(name string, overloads []Overload, args []Expr) (int, error) {
	best, bestCost := -1, 1<<30
	for i := range overloads {
		if cost, ok := matchCost(&overloads[i], args); ok && cost < bestCost {
			best, bestCost = i, cost
		}
	}
	if best < 0 {
		return -1, NoSuchFunction(name, args)
	}
	return best, nil
}

// PickSignature returns the index of the parameter list of sigs that fits
// args best, resolved as built-in overloads are (the first of the
// cheapest), or NoSuchFunction when none does.
func PickSignature(name string, sigs [][]types.Family, args []Expr) (int, error) {
	overloads := make([]Overload, len(sigs))
	for i, s := range sigs {
		overloads[i].Args = s
	}
	return pickIndex(name, overloads, args)
}

// castArgs casts args to the parameter types of overload o of the named
// function; it also returns the types the result type is computed from.
func castArgs(name string, o *Overload, args []Expr) ([]Expr, []types.T, error) {
	elem, err := polymorphicElem(name, o, args)
	if err != nil {
		return nil, nil, err
	}
	cast := make([]Expr, len(args))
	argTypes := make([]types.T, len(args))
	for i, a := range args {
		switch f := paramFamily(o, i); {
		case f == AnyArray:
			arr, err := types.ArrayOf(elem)
			if err != nil {
				return nil, nil, err
			}
			a = castTo(a, arr)
		case f == AnyElem:
			a = castTo(a, elem)
		case f != Any && a.Type().Family != f:
			a = castTo(a, types.T{Family: f, Mod: -1})
		case f == Any && a.Type().Family == types.Unknown:
			a = castTo(a, types.TText)
		}
		cast[i] = a
		argTypes[i] = a.Type()
		if f := paramFamily(o, i); f == AnyArray || f == AnyElem {
			argTypes[i] = argTypes[i].WithoutMod() // polymorphic types drop modifiers
		}
	}
	return cast, argTypes, nil
}

// polymorphicElem resolves the element type of o's polymorphic parameters
// for args: the common type of the array arguments' elements and the
// element arguments (unknown literals follow the others).
func polymorphicElem(name string, o *Overload, args []Expr) (types.T, error) {
	elem, found, poly := types.TUnknown, false, false
	for i, a := range args {
		t := a.Type()
		switch paramFamily(o, i) {
		case AnyArray:
			poly = true
			if t.Family != types.Array {
				continue
			}
			t = t.ElemType()
		case AnyElem:
			poly = true
			if t.Family == types.Unknown {
				continue
			}
		default:
			continue
		}
		if !found {
			elem, found = t, true
			continue
		}
		ct, ok := ComparisonType(elem, t)
		if !ok {
			return elem, NoSuchFunction(name, args)
		}
		elem = ct
	}
	if poly && !found {
		return elem, pgerror.New(pgerror.CodeDatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	return elem.WithoutMod(), nil
}

func paramFamily(o *Overload, i int) types.Family {
	if i >= len(o.Args) {
		return o.Args[len(o.Args)-1]
	}
	return o.Args[i]
}

func matchCost(o *Overload, args []Expr) (int, bool) {
	if len(args) != len(o.Args) && !(o.Variadic && len(args) >= len(o.Args)-1) {
		return 0, false
	}
	cost := 0
	for i, a := range args {
		c, ok := castCost(a.Type(), paramFamily(o, i))
		if !ok {
			return 0, false
		}
		cost += c
	}
	return cost, true
}

// castCost is the price of passing a value of type from to a parameter of
// family to: 0 for an exact match, more for longer implicit casts.
func castCost(from types.T, to types.Family) (int, bool) {
	f := from.Family
	switch {
	case f == to:
		return 0, true
	case to == Any:
		return 1, true
	case to == AnyArray:
		if f == types.Array {
			return 0, true
		}
		return 2, f == types.Unknown
	case to == AnyElem:
		return 0, f != types.Array
	case f == types.Unknown:
		if to == types.Text {
			return 1, true
		}
		return 2, true
	case from.IsString() && (to == types.Text || to == types.Varchar || to == types.Bpchar || to == types.Name):
		return 1, true
	case from.IsInteger() && (to == types.Int2 || to == types.Int4 || to == types.Int8):
		if intRank(f) < intRank(to) {
			return 1 + intRank(to) - intRank(f), true
		}
	case from.IsInteger() && to == types.Float8:
		// float8 is the preferred type of the numeric category: PostgreSQL
		// picks sqrt(float8) over sqrt(numeric) for an integer argument.
		return 4, true
	case from.IsInteger() && to == types.Numeric:
		return 5, true
	case (f == types.Numeric || f == types.Float4) && to == types.Float8:
		return 6, true
	case from.IsInteger() && to == types.Float4:
		return 7, true
	case f == types.Date && (to == types.Timestamp || to == types.TimestampTZ):
		return 3, true
	case f == types.Timestamp && to == types.TimestampTZ:
		return 3, true
	case from.IsInteger() && to == types.Oid:
		// integers cast to oid implicitly: format_type(23, -1).
		return 3, true
	case f == types.Time && to == types.Interval:
		// time casts to interval implicitly: date_trunc('hour', time)
		// is date_trunc(text, interval).
		return 3, true
	}
	return 0, false
}

// intRank orders the integer types by width (0: not an integer type).
func intRank(f types.Family) int {
	switch f {
	case types.Int2:
		return 1
	case types.Int4:
		return 2
	case types.Int8:
		return 3
	}
	return 0
}

// NoSuchFunction is PostgreSQL's error for a call of name with args that
// matches no function.
func NoSuchFunction(name string, args []Expr) *pgerror.Error {
	return pgerror.New(pgerror.CodeUndefinedFunction, "function %s does not exist", signature(name, args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func signature(name string, args []Expr) string {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().String()
	}
	return name + "(" + strings.Join(ts, ", ") + ")"
}
