package expr

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Any in an overload's argument list accepts any type.
const Any = types.Family(255)

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
}

// Type implements Expr.
func (e *Func) Type() types.T { return e.T }

// Volatile reports whether the function must not be constant-folded.
func (e *Func) Volatile() bool { return e.o.Volatile }

// Eval implements Expr.
func (e *Func) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	args := make([]types.Datum, len(e.Args))
	for i, a := range e.Args {
		v, err := a.Eval(c, row)
		if err != nil {
			return types.Null, err
		}
		if v.IsNull() && !e.o.NonStrict {
			return types.Null, nil
		}
		args[i] = v
	}
	return e.o.Fn(c, args)
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
	overloads, ok := builtins[name]
	if !ok {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function %s does not exist", signature(name, args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	best, bestCost := -1, 1<<30
	for i := range overloads {
		if cost, ok := matchCost(&overloads[i], args); ok && cost < bestCost {
			best, bestCost = i, cost
		}
	}
	if best < 0 {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function %s does not exist", signature(name, args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	o := &overloads[best]
	cast := make([]Expr, len(args))
	argTypes := make([]types.T, len(args))
	for i, a := range args {
		f := paramFamily(o, i)
		if f != Any && a.Type().Family != f {
			a = castTo(a, types.T{Family: f, Mod: -1})
		} else if f == Any && a.Type().Family == types.Unknown {
			a = castTo(a, types.TText)
		}
		cast[i] = a
		argTypes[i] = a.Type()
	}
	t := o.Ret(argTypes)
	if !o.NonStrict && !o.Volatile {
		for _, a := range cast {
			if isNullConst(a) {
				return NewConst(types.Null, t), nil
			}
		}
	}
	return &Func{Name: name, Args: cast, T: t, o: o}, nil
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
	case f == types.Unknown:
		if to == types.Text {
			return 1, true
		}
		return 2, true
	case from.IsString() && (to == types.Text || to == types.Varchar || to == types.Bpchar || to == types.Name):
		return 1, true
	case from.IsInteger() && (to == types.Int2 || to == types.Int4 || to == types.Int8):
		if rankInt(f) < rankInt(to) {
			return 1 + rankInt(to) - rankInt(f), true
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
	}
	return 0, false
}

func rankInt(f types.Family) int {
	switch f {
	case types.Int2:
		return 1
	case types.Int4:
		return 2
	}
	return 3
}

func signature(name string, args []Expr) string {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().String()
	}
	return name + "(" + strings.Join(ts, ", ") + ")"
}
