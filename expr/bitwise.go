package expr

import "github.com/streamdb/streamdb/types"

// bitwiseOp resolves PostgreSQL's integer bitwise operators: & | # (and,
// or, xor) in the operands' common integer type, and << >> shifting the
// left operand's type by an int4 count. Counts go modulo the width of the
// machine word PostgreSQL computes in (32 bits for int2 and int4, 64 for
// int8), as its C shifts do on x86; an int2 result is truncated.
func bitwiseOp(op string, l, r Expr) (Expr, bool) {
	lt, rt := l.Type(), r.Type()
	if !lt.IsInteger() || !rt.IsInteger() {
		return nil, false
	}
	switch op {
	case "&", "|", "#":
		t := NumericResultType(lt, rt)
		fn := func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			switch op {
			case "&":
				return types.NewInt(a.Int() & b.Int()), nil
			case "|":
				return types.NewInt(a.Int() | b.Int()), nil
			}
			return types.NewInt(a.Int() ^ b.Int()), nil
		}
		return &Binary{Op: op, L: castTo(l, t), R: castTo(r, t), T: t, fn: fn}, true
	case "<<", ">>":
		t := lt.WithoutMod()
		fn := func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			v, n := a.Int(), uint(b.Int())
			if t.Family == types.Int8 {
				n &= 63
			} else {
				n &= 31
			}
			if op == ">>" {
				v >>= n
			} else {
				v <<= n
			}
			switch t.Family {
			case types.Int2:
				v = int64(int16(int32(v)))
			case types.Int4:
				v = int64(int32(v))
			}
			return types.NewInt(v), nil
		}
		return &Binary{Op: op, L: l, R: castTo(r, types.TInt4), T: t, fn: fn}, true
	}
	return nil, false
}
