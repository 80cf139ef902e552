package expr

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestMathBuiltins(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "abs", args: args(num("-17.4")), want: "17.4"},
		{fn: "abs", args: args(i4("-5")), want: "5"},
		{fn: "abs", args: args(f8("-1.5")), want: "1.5"},
		{fn: "abs", args: args(i4("NULL")), want: nullOut},
		{fn: "abs", args: args(i2("-32768")), code: "22003", want: "smallint out of range"},
		{fn: "abs", args: args(i4("-2147483648")), code: "22003", want: "integer out of range"},
		{fn: "abs", args: args(i8("-9223372036854775808")), code: "22003", want: "bigint out of range"},
		{fn: "abs", args: args(lit(types.TFloat4, "-0.1")), want: "0.1"},

		{fn: "sign", args: args(num("-8.4")), want: "-1"},
		{fn: "sign", args: args(num("0.00")), want: "0"},
		{fn: "sign", args: args(f8("3")), want: "1"},

		{fn: "ceil", args: args(num("42.2")), want: "43"},
		{fn: "ceiling", args: args(num("-42.8")), want: "-42"},
		{fn: "ceil", args: args(num("-0.5")), want: "0"},
		{fn: "ceil", args: args(f8("-0.5")), want: "-0"},
		{fn: "ceil", args: args(num("Infinity")), want: "Infinity"},
		{fn: "floor", args: args(num("42.8")), want: "42"},
		{fn: "floor", args: args(num("-42.8")), want: "-43"},
		{fn: "floor", args: args(f8("-42.8")), want: "-43"},

		{fn: "round", args: args(num("42.4")), want: "42"},
		{fn: "round", args: args(num("42.5")), want: "43"},
		{fn: "round", args: args(num("-42.5")), want: "-43"},
		{fn: "round", args: args(f8("2.5")), want: "2"},
		{fn: "round", args: args(f8("3.5")), want: "4"},
		{fn: "round", args: args(f8("-2.5")), want: "-2"},
		{fn: "round", args: args(num("42.4382"), i4("2")), want: "42.44"},
		{fn: "round", args: args(num("1234.56"), i4("-1")), want: "1230"},
		{fn: "round", args: args(num("5"), i4("-1")), want: "10"},
		{fn: "round", args: args(num("4.9"), i4("-2")), want: "0"},
		{fn: "round", args: args(num("1.5"), i4("3")), want: "1.500"},
		{fn: "round", args: args(num("1.5"), i4("NULL")), want: nullOut},
		{fn: "trunc", args: args(num("42.8")), want: "42"},
		{fn: "trunc", args: args(num("-42.8")), want: "-42"},
		{fn: "trunc", args: args(f8("-42.8")), want: "-42"},
		{fn: "trunc", args: args(num("42.4382"), i4("2")), want: "42.43"},
		{fn: "trunc", args: args(num("-1299"), i4("-2")), want: "-1200"},

		{fn: "sqrt", args: args(f8("2")), want: "1.4142135623730951"},
		{fn: "sqrt", args: args(num("2")), want: "1.414213562373095"},
		{fn: "sqrt", args: args(num("100")), want: "10.000000000000000"},
		{fn: "sqrt", args: args(num("2.0000000000000000000")), want: "1.4142135623730950488"},
		{fn: "sqrt", args: args(num("0")), want: "0.000000000000000"},
		{fn: "sqrt", args: args(f8("-1")), code: "2201F", want: "cannot take square root of a negative number"},
		{fn: "sqrt", args: args(num("-1")), code: "2201F"},
		{fn: "cbrt", args: args(f8("27")), want: "3"},

		{fn: "power", args: args(f8("2"), f8("10")), want: "1024"},
		{fn: "pow", args: args(f8("9"), f8("0.5")), want: "3"},
		{fn: "power", args: args(f8("0"), f8("-1")), code: "2201F", want: "zero raised to a negative power is undefined"},
		{fn: "power", args: args(f8("-8"), f8("0.5")), code: "2201F"},
		{fn: "power", args: args(f8("10"), f8("400")), code: "22003"},
		{fn: "power", args: args(num("2"), num("0.5")), want: "1.4142135623730950"},

		{fn: "exp", args: args(num("1.0")), want: "2.7182818284590452"},
		{fn: "exp", args: args(num("0")), want: "1.0000000000000000"},
		{fn: "exp", args: args(f8("1")), want: "2.718281828459045"},
		{fn: "exp", args: args(f8("1000")), code: "22003", want: "value out of range: overflow"},
		{fn: "exp", args: args(f8("-1000")), code: "22003", want: "value out of range: underflow"},
		{fn: "exp", args: args(num("10000")), code: "22003"},

		{fn: "ln", args: args(num("2.0")), want: "0.6931471805599453"},
		{fn: "ln", args: args(num("10")), want: "2.3025850929940457"},
		{fn: "ln", args: args(f8("1")), want: "0"},
		{fn: "ln", args: args(f8("0")), code: "2201E", want: "cannot take logarithm of zero"},
		{fn: "ln", args: args(num("-1")), code: "2201E", want: "cannot take logarithm of a negative number"},
		{fn: "log", args: args(num("2.0")), want: "0.3010299956639812"},
		{fn: "log", args: args(num("100")), want: "2.0000000000000000"},
		{fn: "log", args: args(f8("100")), want: "2"},
		{fn: "log10", args: args(f8("1000")), want: "3"},
		{fn: "log", args: args(num("2.0"), num("64.0")), want: "6.0000000000000000"},
		{fn: "log", args: args(num("1"), num("10")), code: "22012"},
		{fn: "log", args: args(num("0")), code: "2201E"},

		{fn: "mod", args: args(i4("9"), i4("4")), want: "1"},
		{fn: "mod", args: args(i4("-9"), i4("4")), want: "-1"},
		{fn: "mod", args: args(i2("9"), i2("4")), want: "1"},
		{fn: "mod", args: args(i8("-9223372036854775808"), i8("-1")), want: "0"},
		{fn: "mod", args: args(i4("9"), i4("0")), code: "22012", want: "division by zero"},
		{fn: "mod", args: args(num("10.5"), num("3")), want: "1.5"},
		{fn: "mod", args: args(num("1"), num("0")), code: "22012"},
		{fn: "div", args: args(num("9"), num("4")), want: "2"},
		{fn: "div", args: args(num("-9.5"), num("4")), want: "-2"},
		{fn: "div", args: args(num("9.5"), num("0")), code: "22012"},

		{fn: "degrees", args: args(f8("0.5")), want: "28.64788975654116"},
		{fn: "radians", args: args(f8("45")), want: "0.7853981633974483"},
		{fn: "pi", want: "3.141592653589793"},
		{fn: "sin", args: args(f8("0")), want: "0"},
		{fn: "cos", args: args(f8("0")), want: "1"},
		{fn: "tan", args: args(f8("Infinity")), code: "22003", want: "input is out of range"},
		{fn: "cot", args: args(f8("0")), want: "Infinity"},
		{fn: "asin", args: args(f8("1")), want: "1.5707963267948966"},
		{fn: "acos", args: args(f8("2")), code: "22003"},
		{fn: "atan", args: args(f8("1")), want: "0.7853981633974483"},
		{fn: "atan2", args: args(f8("1"), f8("1")), want: "0.7853981633974483"},

		{fn: "gcd", args: args(i4("1071"), i4("462")), want: "21"},
		{fn: "gcd", args: args(i4("-4"), i4("6")), want: "2"},
		{fn: "gcd", args: args(i4("0"), i4("0")), want: "0"},
		{fn: "gcd", args: args(i4("-2147483648"), i4("0")), code: "22003", want: "integer out of range"},
		{fn: "gcd", args: args(i4("-2147483648"), i4("2")), want: "2"},
		{fn: "gcd", args: args(i8("-9223372036854775808"), i8("-9223372036854775808")), code: "22003"},
		{fn: "lcm", args: args(i4("1071"), i4("462")), want: "23562"},
		{fn: "lcm", args: args(i4("0"), i4("5")), want: "0"},
		{fn: "lcm", args: args(i4("-6"), i4("4")), want: "12"},
		{fn: "lcm", args: args(i4("65536"), i4("65537")), code: "22003"},
		{fn: "gcd", args: args(num("1.5"), num("2.50")), want: "0.50"},
		{fn: "lcm", args: args(num("1.5"), num("2.5")), want: "7.5"},
		{fn: "lcm", args: args(num("0"), num("2.5")), want: "0.0"},

		{fn: "width_bucket", args: args(f8("5.35"), f8("0.024"), f8("10.06"), i4("5")), want: "3"},
		{fn: "width_bucket", args: args(f8("-1"), f8("0"), f8("10"), i4("5")), want: "0"},
		{fn: "width_bucket", args: args(f8("10"), f8("0"), f8("10"), i4("5")), want: "6"},
		{fn: "width_bucket", args: args(f8("2"), f8("10"), f8("0"), i4("5")), want: "5"},
		{fn: "width_bucket", args: args(f8("1"), f8("0"), f8("0"), i4("5")), code: "2201G", want: "lower bound cannot equal upper bound"},
		{fn: "width_bucket", args: args(f8("1"), f8("0"), f8("2"), i4("0")), code: "2201G", want: "count must be greater than zero"},
		{fn: "scale", args: args(num("8.4100")), want: "4"},
		{fn: "scale", args: args(num("NaN")), want: nullOut},
	})
}

func TestRandom(t *testing.T) {
	for range 100 {
		_, v, err := call("random", nil)
		if err != nil || v.Float() < 0 || v.Float() >= 1 {
			t.Fatalf("random() = %v, %v", v, err)
		}
	}
}
