package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// PostgreSQL 14+ numerics have NaN, Infinity and -Infinity. The arithmetic
// operators give them the results numeric.c does (IEEE-like, with NaN where
// IEEE has an invalid operation, and never an overflow error); the
// functions here are called when an operand is not finite.

func numericNaN() *apd.Decimal { return &apd.Decimal{Form: apd.NaN} }

func numericInf(negative bool) *apd.Decimal {
	return &apd.Decimal{Form: apd.Infinite, Negative: negative}
}

func isNaN(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }

func isSpecial(a, b *apd.Decimal) bool { return a.Form != apd.Finite || b.Form != apd.Finite }

// addSpecial is a+b (or a-b when sub) with a special operand.
func addSpecial(a, b *apd.Decimal, sub bool) *apd.Decimal {
	bNeg := b.Negative != sub
	switch {
	case isNaN(a) || isNaN(b):
		return numericNaN()
	case a.Form == apd.Infinite && b.Form == apd.Infinite && a.Negative != bNeg:
		return numericNaN() // Inf - Inf
	case a.Form == apd.Infinite:
		return numericInf(a.Negative)
	}
	return numericInf(bNeg)
}

// mulSpecial is a*b with a special operand: infinity times zero is NaN.
func mulSpecial(a, b *apd.Decimal) *apd.Decimal {
	if isNaN(a) || isNaN(b) || a.Sign() == 0 || b.Sign() == 0 {
		return numericNaN()
	}
	return numericInf(a.Sign() != b.Sign())
}

// divSpecial is a/b (and div(a, b)) with a special operand: infinity over
// infinity is NaN, infinity over zero a division by zero, a finite number
// over infinity zero.
func divSpecial(a, b *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case isNaN(a) || isNaN(b):
		return numericNaN(), nil
	case a.Form != apd.Infinite:
		return new(apd.Decimal), nil
	case b.Form == apd.Infinite:
		return numericNaN(), nil
	case b.Sign() == 0:
		return nil, errDivByZero
	}
	return numericInf(a.Sign() != b.Sign()), nil
}

// modSpecial is a % b with a special operand: infinity mod anything
// nonzero is NaN, a finite number mod infinity is itself.
func modSpecial(a, b *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case isNaN(a) || isNaN(b):
		return numericNaN(), nil
	case a.Form != apd.Infinite:
		return a, nil
	case b.Sign() == 0:
		return nil, errDivByZero
	}
	return numericNaN(), nil
}

// powSpecial is a^b with a special operand, following POSIX pow() as
// numeric_power does.
func powSpecial(a, b *apd.Decimal) (*apd.Decimal, error) {
	one := apd.New(1, 0)
	switch {
	case isNaN(a) && b.Form == apd.Finite && b.IsZero(),
		isNaN(b) && a.Form == apd.Finite && a.Cmp(one) == 0:
		return one, nil
	case isNaN(a) || isNaN(b):
		return numericNaN(), nil
	}
	if err := checkPowArgs(a, b); err != nil {
		return nil, err
	}
	switch {
	case a.Form == apd.Finite && a.Cmp(one) == 0, b.Sign() == 0:
		return one, nil
	case b.Form == apd.Infinite:
		absA := new(apd.Decimal).Abs(a)
		switch c := absA.Cmp(one); {
		case c == 0: // a is -1
			return one, nil
		case (c > 0) == !b.Negative:
			return numericInf(false), nil
		}
		return new(apd.Decimal), nil
	case b.Negative:
		return new(apd.Decimal), nil // (±Inf)^negative
	case !a.Negative:
		return numericInf(false), nil
	}
	// (-Inf)^b: -Inf for an odd integer b, else +Inf.
	var two, rem apd.Decimal
	two.SetInt64(2)
	_, _ = exact.Rem(&rem, b, &two)
	return numericInf(rem.Cmp(one) == 0), nil
}

// checkPowArgs returns numeric_power's errors for a zero base with a
// negative exponent and a negative base with a non-integer exponent
// (infinities count as integers).
func checkPowArgs(a, b *apd.Decimal) error {
	if a.Sign() == 0 && b.Sign() < 0 {
		return pgerror.New("2201F", "zero raised to a negative power is undefined")
	}
	if a.Sign() < 0 && b.Form == apd.Finite && !isInteger(b) {
		return pgerror.New("2201F", "a negative number raised to a non-integer power yields a complex result")
	}
	return nil
}
