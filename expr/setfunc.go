package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// SetIter yields the values of one call of a set-returning function, one
// per call; ok is false after the last value.
type SetIter func() (v types.Datum, ok bool, err error)

var setBuiltins = map[string][]Overload{}

// RegisterSetBuiltin adds overloads of a set-returning function (lowercase
// name); each overload's Set starts its values.
func RegisterSetBuiltin(name string, overloads ...Overload) {
	setBuiltins[name] = append(setBuiltins[name], overloads...)
}

// setOutNames are the names PostgreSQL gives the column of set-returning
// functions declared with an OUT parameter (others' column takes the
// function's alias).
var setOutNames = map[string]string{"jsonb_array_elements": "value", "jsonb_array_elements_text": "value"}

// SetOutName returns the column name of set-returning function name, if
// it has its own.
func SetOutName(name string) (string, bool) {
	n, ok := setOutNames[name]
	return n, ok
}

// IsSetReturning reports whether name is a set-returning function.
func IsSetReturning(name string) bool {
	_, ok := setBuiltins[name]
	return ok
}

// SetFunc is a resolved call of a set-returning function (generate_series,
// range, unnest): each evaluation yields zero or more values of type T.
type SetFunc struct {
	Name string
	Args []Expr
	T    types.T
	o    *Overload
}

// NewSetFunc resolves a call of the named set-returning function for the
// argument types, as NewFunc does for scalar functions.
func NewSetFunc(name string, args []Expr) (*SetFunc, error) {
	o, err := pick(name, setBuiltins[name], args)
	if err != nil {
		return nil, err
	}
	cast, argTypes, err := castArgs(name, o, args)
	if err != nil {
		return nil, err
	}
	return &SetFunc{Name: name, Args: cast, T: o.Ret(argTypes), o: o}, nil
}

// Start evaluates the arguments over row and returns the call's values.
// The functions are strict: a NULL argument gives no values.
func (f *SetFunc) Start(c *Ctx, row []types.Datum) (SetIter, error) {
	args := make([]types.Datum, len(f.Args))
	for i, a := range f.Args {
		v, err := a.Eval(c, row)
		if err != nil {
			return nil, err
		}
		if v.IsNull() {
			return noValues, nil
		}
		args[i] = v
	}
	return f.o.Set(c, args)
}

func noValues() (types.Datum, bool, error) { return types.Null, false, nil }

// valuesOf yields vals in order.
func valuesOf(vals []types.Datum) SetIter {
	i := 0
	return func() (types.Datum, bool, error) {
		if i == len(vals) {
			return types.Null, false, nil
		}
		i++
		return vals[i-1], true, nil
	}
}

// WithArgs returns f calling other arguments of the same types.
func (f *SetFunc) WithArgs(args []Expr) *SetFunc {
	c := *f
	c.Args = args
	return &c
}

// String renders the call.
func (f *SetFunc) String() string { return f.Name + "(" + joinStrings(f.Args, ", ") + ")" }

// errZeroStep is generate_series's error for a zero step.
func errZeroStep() error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, "step size cannot equal zero")
}
