package expr

import "testing"

// The expected results are PostgreSQL 15's answers to the same
// expressions.
var numericSpecialCases = []opCase{
	{l: num("Infinity"), op: "+", r: num("-Infinity"), want: "NaN"},
	{l: num("-Infinity"), op: "+", r: num("-Infinity"), want: "-Infinity"},
	{l: num("2.50"), op: "+", r: num("-Infinity"), want: "-Infinity"},
	{l: num("NaN"), op: "+", r: num("Infinity"), want: "NaN"},
	{l: num("Infinity"), op: "-", r: num("Infinity"), want: "NaN"},
	{l: num("Infinity"), op: "-", r: num("-Infinity"), want: "Infinity"},
	{l: num("0"), op: "-", r: num("Infinity"), want: "-Infinity"},
	{l: num("-Infinity"), op: "*", r: num("0"), want: "NaN"},
	{l: num("-Infinity"), op: "*", r: num("-3"), want: "Infinity"},
	{l: num("2.50"), op: "*", r: num("-Infinity"), want: "-Infinity"},
	{l: num("Infinity"), op: "/", r: num("-Infinity"), want: "NaN"},
	{l: num("Infinity"), op: "/", r: num("-3"), want: "-Infinity"},
	{l: num("Infinity"), op: "/", r: num("0"), code: "22012", want: "division by zero"},
	{l: num("-3"), op: "/", r: num("Infinity"), want: "0"},
	{l: num("NaN"), op: "/", r: num("0"), want: "NaN"},
	{l: num("NaN"), op: "%", r: num("0"), want: "NaN"},
	{l: num("Infinity"), op: "%", r: num("2"), want: "NaN"},
	{l: num("-Infinity"), op: "%", r: num("0"), code: "22012", want: "division by zero"},
	{l: num("2.50"), op: "%", r: num("-Infinity"), want: "2.50"},
	{l: num("NaN"), op: "^", r: num("0"), want: "1"},
	{l: num("1"), op: "^", r: num("NaN"), want: "1"},
	{l: num("0"), op: "^", r: num("-Infinity"), code: "2201F", want: "zero raised to a negative power is undefined"},
	{l: num("-Infinity"), op: "^", r: num("0.5"), code: "2201F", want: "a negative number raised to a non-integer power yields a complex result"},
	{l: num("-1"), op: "^", r: num("Infinity"), want: "1"},
	{l: num("0.5"), op: "^", r: num("-Infinity"), want: "Infinity"},
	{l: num("2.50"), op: "^", r: num("-Infinity"), want: "0"},
	{l: num("-Infinity"), op: "^", r: num("3"), want: "-Infinity"},
	{l: num("-Infinity"), op: "^", r: num("2"), want: "Infinity"},
	{l: num("-Infinity"), op: "^", r: num("-3"), want: "0"},
	{l: num("Infinity"), op: "^", r: num("0"), want: "1"},
	// Finite powers: an integer exponent gives max(16, scale of the base)
	// fractional digits, any other 16 significant digits.
	{l: num("0"), op: "^", r: num("0"), want: "1.0000000000000000"},
	{l: num("2.50"), op: "^", r: num("1"), want: "2.5000000000000000"},
	{l: num("1.123456789"), op: "^", r: num("3"), want: "1.4179767796223607"},
	{l: num("1.00000000000000000001"), op: "^", r: num("2"), want: "1.00000000000000000002"},
	{l: num("0.1"), op: "^", r: num("20"), want: "0.0000000000000000"},
	{l: num("0.9"), op: "^", r: num("-200"), want: "1417418549.9538582150688417"},
	{l: num("100"), op: "^", r: num("1.5"), want: "1000.0000000000000"},
	{l: num("2"), op: "^", r: num("3000000000"), code: "22003", want: "value overflows numeric format"},
	{l: num("0.5"), op: "^", r: num("10000"), want: "0.0000000000000000"},
}

func TestNumericSpecialValues(t *testing.T) { runOpCases(t, numericSpecialCases) }
