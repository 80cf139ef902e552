package expr

import (
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// binaryFn computes a strict binary operator on two non-NULL values.
type binaryFn func(c *Ctx, a, b types.Datum) (types.Datum, error)

// Binary is a binary operator resolved for its argument types. Operands are
// already cast to the types the operator takes.
type Binary struct {
	Op   string
	L, R Expr
	T    types.T
	fn   binaryFn
	// scaled: a numeric product, which mulScaled may compute in integers.
	scaled bool
}

// Type implements Expr.
func (e *Binary) Type() types.T { return e.T }

// Eval implements Expr. A strict operator evaluates both operands before
// a NULL makes it NULL, as PostgreSQL's executor does: the right one's
// error is raised even when the left one is NULL.
func (e *Binary) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	if e.scaled {
		if v, ok, err := e.mulScaled(c, row); ok {
			return v, err
		}
	}
	a, err := e.L.Eval(c, row)
	if err != nil {
		return types.Null, err
	}
	b, err := e.R.Eval(c, row)
	if err != nil || a.IsNull() || b.IsNull() {
		return types.Null, err
	}
	return e.fn(c, a, b)
}

// String implements Expr.
func (e *Binary) String() string { return "(" + e.L.String() + " " + e.Op + " " + e.R.String() + ")" }

// Children implements Expr.
func (e *Binary) Children() []Expr { return []Expr{e.L, e.R} }

// WithChildren implements Expr.
func (e *Binary) WithChildren(ch []Expr) Expr { c := *e; c.L, c.R = ch[0], ch[1]; return &c }

// NullSafeEq is IS NOT DISTINCT FROM: never NULL.
type NullSafeEq struct{ L, R Expr }

// Type implements Expr.
func (e *NullSafeEq) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *NullSafeEq) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	a, err := e.L.Eval(c, row)
	if err != nil {
		return a, err
	}
	b, err := e.R.Eval(c, row)
	if err != nil {
		return b, err
	}
	if a.IsNull() || b.IsNull() {
		return types.NewBool(a.IsNull() == b.IsNull()), nil
	}
	return types.NewBool(types.Compare(a, b) == 0), nil
}

// String implements Expr.
func (e *NullSafeEq) String() string {
	return "(" + e.L.String() + " IS NOT DISTINCT FROM " + e.R.String() + ")"
}

// Children implements Expr.
func (e *NullSafeEq) Children() []Expr { return []Expr{e.L, e.R} }

// WithChildren implements Expr.
func (e *NullSafeEq) WithChildren(ch []Expr) Expr { return &NullSafeEq{L: ch[0], R: ch[1]} }

// IsComparison reports whether op is one of = <> < <= > >=.
func IsComparison(op string) bool {
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

func undefinedOperator(op string, l, r types.T) error {
	return pgerror.New(pgerror.CodeUndefinedFunction, "operator does not exist: %s %s %s", l, op, r).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

// NewBinary resolves op for the operand types and returns the operator
// expression, inserting implicit casts (integer widening, integer to
// numeric or float, date to timestamp). Operands of unknown type must have
// been coerced by the caller.
func NewBinary(op string, l, r Expr) (Expr, error) {
	e, err := resolveBinary(op, l, r)
	if err != nil {
		return nil, err
	}
	if _, strict := e.(*Binary); strict && (isNullConst(l) || isNullConst(r)) {
		// Operators are strict: PostgreSQL folds them to NULL when an
		// argument is a NULL constant, without evaluating the other one.
		return NewConst(types.Null, e.Type()), nil
	}
	return e, nil
}

// NewNullIf returns NULLIF(l, r): NULL when l = r, else l. As in PostgreSQL
// the result is the comparison's left operand, promoted to the type both
// sides are compared in (NULLIF(1, 2.2) is numeric), and a NULL argument
// does not make it NULL (NULLIF(x, NULL) is x).
func NewNullIf(l, r Expr) (Expr, error) {
	e, err := resolveBinary("=", l, r)
	if err != nil {
		return nil, err
	}
	eq := e.(*Binary)
	var cond Expr = eq
	if isNullConst(l) || isNullConst(r) {
		cond = NewConst(types.Null, types.TBool)
	}
	t := eq.L.Type()
	return &Case{Whens: []Expr{cond}, Thens: []Expr{NewConst(types.Null, t)}, Else: eq.L, T: t}, nil
}

func isNullConst(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.V.IsNull()
}

func resolveBinary(op string, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if IsComparison(op) {
		ct, ok := ComparisonType(lt, rt)
		if !ok {
			return nil, undefinedOperator(op, lt, rt)
		}
		l, r = castTo(l, ComparedAs(lt, ct)), castTo(r, ComparedAs(rt, ct))
		return &Binary{Op: op, L: l, R: r, T: types.TBool, fn: compareFn(op, ct)}, nil
	}
	if e, ok, err := jsonOperator(op, l, r); ok {
		return e, err
	}
	if fn, ok := arrayOperators[op]; ok && (lt.Family == types.Array || rt.Family == types.Array) {
		if lt.WithoutMod() != rt.WithoutMod() {
			return nil, undefinedOperator(op, lt, rt)
		}
		return NewFunc(fn, []Expr{l, r})
	}
	if op == "||" {
		if lt.Family == types.Array || rt.Family == types.Array {
			return arrayConcat(l, r)
		}
		if lt.Family == types.Bytea && rt.Family == types.Bytea {
			return &Binary{Op: op, L: l, R: r, T: types.TBytea, fn: concatFn}, nil
		}
		if lt.IsString() || rt.IsString() || lt.Family == types.Unknown || rt.Family == types.Unknown {
			return &Binary{Op: op, L: castTo(l, types.TText), R: castTo(r, types.TText), T: types.TText, fn: concatFn}, nil
		}
		return nil, undefinedOperator(op, lt, rt)
	}
	if e, ok := bitwiseOp(op, l, r); ok {
		return e, nil
	}
	if lt.IsNumeric() && rt.IsNumeric() {
		t := NumericResultType(lt, rt)
		if op == "^" && t.IsInteger() {
			t = types.TFloat8 // PostgreSQL has ^ for float8 and numeric only
		}
		fn := arithFn(op, t)
		if fn == nil {
			return nil, undefinedOperator(op, lt, rt)
		}
		return &Binary{Op: op, L: castTo(l, t), R: castTo(r, t), T: t, fn: fn, scaled: op == "*" && t.Family == types.Numeric}, nil
	}
	if fn, t, ok := datetimeOp(op, lt, rt); ok {
		return &Binary{Op: op, L: l, R: r, T: t, fn: fn}, nil
	}
	return nil, undefinedOperator(op, lt, rt)
}

// arrayOperators are the functions of the array operators @>, <@ and &&.
var arrayOperators = map[string]string{"@>": "arraycontains", "<@": "arraycontained", "&&": "arrayoverlap"}

// arrayConcat resolves || with an array operand (an unknown one having
// been given the array type): array_cat of two arrays, array_append or
// array_prepend of an element.
func arrayConcat(l, r Expr) (Expr, error) {
	name := "array_cat"
	switch {
	case l.Type().Family != types.Array:
		name = "array_prepend"
	case r.Type().Family != types.Array:
		name = "array_append"
	}
	e, err := NewFunc(name, []Expr{l, r})
	if err != nil {
		return nil, undefinedOperator("||", l.Type(), r.Type())
	}
	return e, nil
}

// castTo wraps e in an implicit cast unless it already has type t's family
// (and element family).
func castTo(e Expr, t types.T) Expr {
	if e.Type().WithoutMod() == t.WithoutMod() {
		return e
	}
	if c, ok := e.(*Const); ok {
		if c.V.IsNull() {
			return NewConst(types.Null, t)
		}
		if v, err := types.Cast(c.V, c.T, t); err == nil && !types.ZoneDependent(c.T, t) {
			return NewConst(v, t)
		}
	}
	return &Cast{E: e, To: t}
}

// CastTo returns e converted to type t (an explicit cast), an error if
// there is no such cast, folding constants. An untyped literal that does
// not convert is an error at once, as in PostgreSQL's parse analysis; a
// typed constant that does not is left to the cast's evaluation, as
// PostgreSQL folds it only where it evaluates it (not in a CASE branch
// that is never taken).
func CastTo(e Expr, t types.T) (Expr, error) {
	if e.Type() == t {
		return e, nil
	}
	if err := types.CheckCast(e.Type(), t); err != nil {
		return nil, err
	}
	if c, ok := e.(*Const); ok {
		if c.V.IsNull() {
			return NewConst(types.Null, t), nil
		}
		v, err := types.Cast(c.V, c.T, t)
		switch {
		case err == nil && !types.ZoneDependent(c.T, t):
			return NewConst(v, t), nil
		case err != nil && c.T.Family == types.Unknown:
			return nil, err
		}
	}
	return &Cast{E: e, To: t}, nil
}

// ComparisonType returns the type both operands of a comparison are cast to.
func ComparisonType(lt, rt types.T) (types.T, bool) {
	switch {
	case lt.Family == types.Array || rt.Family == types.Array:
		// Arrays compare only with arrays of the same element type.
		return lt, lt.WithoutMod() == rt.WithoutMod()
	case lt.Family == rt.Family:
		return lt, true
	case lt.IsNumeric() && rt.IsNumeric():
		return NumericResultType(lt, rt), true
	case (lt.Family == types.Oid && rt.IsInteger()) || (lt.IsInteger() && rt.Family == types.Oid):
		// PostgreSQL casts integers to oid implicitly (reloftype = 0).
		return types.TOid, true
	case lt.IsString() && rt.IsString():
		return types.TText, true
	case lt.Family == types.Time && rt.Family == types.Interval, lt.Family == types.Interval && rt.Family == types.Time:
		// time casts to interval implicitly.
		return types.TInterval, true
	case isDatetime(lt) && isDatetime(rt):
		if lt.Family == types.TimestampTZ || rt.Family == types.TimestampTZ {
			return types.TTimestampTZ, true
		}
		return types.TTimestamp, true
	}
	return types.TUnknown, false
}

// ComparedAs returns the type an operand of type t is compared in when
// the comparison's type is ct: ct, except that a date stays a date against
// a timestamp or timestamptz, as PostgreSQL's cross-type operators compare
// it (date_cmp_timestamp: a date past the timestamp range is later than
// every finite timestamp, not an error).
func ComparedAs(t, ct types.T) types.T {
	if t.Family == types.Date && (ct.Family == types.Timestamp || ct.Family == types.TimestampTZ) {
		return t
	}
	return ct
}

// SameTypeOperands returns a comparison's operands with a date compared
// against a timestamp cast to the timestamp's type, for operators that
// compare values of one type.
func SameTypeOperands(b *Binary) (l, r Expr) {
	l, r = b.L, b.R
	switch lt, rt := l.Type(), r.Type(); {
	case lt.Family == types.Date && isDatetime(rt):
		l = castTo(l, rt)
	case rt.Family == types.Date && isDatetime(lt):
		r = castTo(r, lt)
	}
	return l, r
}

func isDatetime(t types.T) bool {
	return t.Family == types.Date || t.Family == types.Timestamp || t.Family == types.TimestampTZ
}

// NumericResultType returns the type of arithmetic between two numeric types.
func NumericResultType(a, b types.T) types.T {
	rank := func(t types.T) int {
		switch t.Family {
		case types.Int2:
			return 1
		case types.Int4:
			return 2
		case types.Int8:
			return 3
		case types.Numeric:
			return 4
		case types.Float4:
			return 5
		}
		return 6
	}
	ra, rb := rank(a), rank(b)
	if ra == 5 && rb == 5 {
		return types.TFloat4
	}
	if ra >= 5 || rb >= 5 {
		return types.TFloat8
	}
	if ra >= rb {
		return types.T{Family: a.Family, Mod: -1}
	}
	return types.T{Family: b.Family, Mod: -1}
}

func compareFn(op string, t types.T) binaryFn {
	var test func(int) bool
	switch op {
	case "=":
		test = func(c int) bool { return c == 0 }
	case "<>":
		test = func(c int) bool { return c != 0 }
	case "<":
		test = func(c int) bool { return c < 0 }
	case "<=":
		test = func(c int) bool { return c <= 0 }
	case ">":
		test = func(c int) bool { return c > 0 }
	default:
		test = func(c int) bool { return c >= 0 }
	}
	return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
		return types.NewBool(test(types.CompareAs(t, a, b))), nil
	}
}

func concatFn(_ *Ctx, a, b types.Datum) (types.Datum, error) {
	if a.Kind() == types.KindBytes {
		return types.NewBytes([]byte(a.Str() + b.Str())), nil
	}
	return types.NewString(a.Str() + b.Str()), nil
}

// IntRangeError returns PostgreSQL's out-of-range error for an integer type.
func IntRangeError(t types.T) error {
	name := map[types.Family]string{types.Int2: "smallint", types.Int4: "integer", types.Int8: "bigint"}[t.Family]
	return pgerror.New(pgerror.CodeNumericValueOutOfRange, "%s out of range", name)
}

// CheckIntRange errors when v does not fit integer type t.
func CheckIntRange(v int64, t types.T) error {
	switch t.Family {
	case types.Int2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return IntRangeError(t)
		}
	case types.Int4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return IntRangeError(t)
		}
	}
	return nil
}

var errDivByZero = pgerror.New(pgerror.CodeDivisionByZero, "division by zero")

func arithFn(op string, t types.T) binaryFn {
	switch {
	case t.IsInteger():
		return intArith(op, t)
	case t.Family == types.Numeric:
		return numericArith(op)
	default:
		return floatArith(op, t)
	}
}

func intArith(op string, t types.T) binaryFn {
	ret := func(v int64) (types.Datum, error) {
		if err := CheckIntRange(v, t); err != nil {
			return types.Null, err
		}
		return types.NewInt(v), nil
	}
	switch op {
	case "+":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Int(), b.Int()
			s := x + y
			if (s > x) != (y > 0) {
				return types.Null, IntRangeError(t)
			}
			return ret(s)
		}
	case "-":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Int(), b.Int()
			s := x - y
			if (s < x) != (y > 0) {
				return types.Null, IntRangeError(t)
			}
			return ret(s)
		}
	case "*":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Int(), b.Int()
			if x == 0 || y == 0 {
				return types.NewInt(0), nil
			}
			p := x * y
			if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return types.Null, IntRangeError(t)
			}
			return ret(p)
		}
	case "/":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Int(), b.Int()
			if y == 0 {
				return types.Null, errDivByZero
			}
			if y == -1 {
				if x == math.MinInt64 {
					return types.Null, IntRangeError(t)
				}
				return ret(-x)
			}
			return ret(x / y)
		}
	case "%":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Int(), b.Int()
			if y == 0 {
				return types.Null, errDivByZero
			}
			if y == -1 {
				return types.NewInt(0), nil
			}
			return types.NewInt(x % y), nil
		}
	}
	return nil
}

func numericArith(op string) binaryFn {
	var f func(_ *Ctx, a, b types.Datum) (types.Datum, error)
	wrap := func(g func(x, y *apdDecimal) (*apdDecimal, error)) binaryFn {
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			r, err := g(a.Decimal(), b.Decimal())
			if err != nil {
				return types.Null, err
			}
			return types.NewDecimal(r), nil
		}
	}
	switch op {
	case "+":
		f = wrap(NumericAdd)
	case "-":
		f = wrap(NumericSub)
	case "*":
		f = wrap(NumericMul)
	case "/":
		f = wrap(NumericDiv)
	case "%":
		f = wrap(NumericMod)
	case "^":
		f = wrap(NumericPow)
	}
	return f
}

// floatArith is float4 and float8 arithmetic with PostgreSQL's checks
// (float.h): a result that turns infinite from finite operands is an
// overflow; a product, quotient or power that turns zero from nonzero
// operands (a finite divisor) is an underflow. NaN divided by zero is NaN.
func floatArith(op string, t types.T) binaryFn {
	ret := func(v float64, inputsFinite, zeroIsValid bool) (types.Datum, error) {
		if t.Family == types.Float4 {
			v = float64(float32(v))
		}
		if inputsFinite && math.IsInf(v, 0) {
			return types.Null, ErrFloatOverflow
		}
		if !zeroIsValid && v == 0 {
			return types.Null, errFloatUnderflow
		}
		return types.NewFloat(v), nil
	}
	finite := func(a, b float64) bool { return !math.IsInf(a, 0) && !math.IsInf(b, 0) }
	switch op {
	case "+":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			return ret(a.Float()+b.Float(), finite(a.Float(), b.Float()), true)
		}
	case "-":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			return ret(a.Float()-b.Float(), finite(a.Float(), b.Float()), true)
		}
	case "*":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Float(), b.Float()
			return ret(x*y, finite(x, y), x == 0 || y == 0)
		}
	case "/":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Float(), b.Float()
			if y == 0 && !math.IsNaN(x) {
				return types.Null, errDivByZero
			}
			return ret(x/y, !math.IsInf(x, 0), x == 0 || math.IsInf(y, 0))
		}
	case "%":
		return nil
	case "^":
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			x, y := a.Float(), b.Float()
			if x == 0 && y < 0 {
				return types.Null, pgerror.New("2201F", "zero raised to a negative power is undefined")
			}
			if x < 0 && y != math.Trunc(y) {
				return types.Null, pgerror.New("2201F", "a negative number raised to a non-integer power yields a complex result")
			}
			// dpow: infinite operands follow POSIX without errors.
			return ret(math.Pow(x, y), finite(x, y), x == 0 || !finite(x, y))
		}
	}
	return nil
}

// mulScaled computes a numeric constant times an integer cast to numeric
// (Nexmark q1's 0.908 * price) as the integer product of the integer and
// the constant's coefficient, at the constant's exponent: what the
// decimal product gives, without the cast's decimal and the general
// multiplication. ok is false, with nothing evaluated, when the operands
// are of another shape; a zero or a product beyond int64 goes the general
// way.
func (e *Binary) mulScaled(c *Ctx, row []types.Datum) (v types.Datum, ok bool, err error) {
	k, cast := e.L, e.R
	if _, isConst := k.(*Const); !isConst {
		k, cast = cast, k
	}
	kc, isConst := k.(*Const)
	cc, isCast := cast.(*Cast)
	if !isConst || !isCast || !cc.E.Type().IsInteger() || cc.To.Mod != -1 || kc.V.IsNull() {
		return types.Null, false, nil
	}
	x, err := cc.E.Eval(c, row)
	if err != nil || x.IsNull() {
		return types.Null, true, err
	}
	d := kc.V.Decimal()
	if n := x.Int(); n != 0 && n != math.MinInt64 && d.Form == apd.Finite && d.Coeff.IsInt64() {
		m := d.Coeff.Int64()
		hi, lo := bits.Mul64(uint64(max(n, -n)), uint64(m))
		if m != 0 && hi == 0 && lo <= math.MaxInt64 {
			r := new(apd.Decimal)
			r.SetFinite(int64(lo), d.Exponent)
			r.Negative = (n < 0) != d.Negative
			return types.NewDecimal(r), true, nil
		}
	}
	xd, err := cc.cast(c, x)
	if err != nil {
		return types.Null, true, err
	}
	if k == e.L {
		v, err = e.fn(c, kc.V, xd)
	} else {
		v, err = e.fn(c, xd, kc.V)
	}
	return v, true, err
}
