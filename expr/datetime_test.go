package expr

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// opCase is a binary operator over constants and its expected result:
// PostgreSQL's text output, or an error's SQLSTATE and message.
type opCase struct {
	l    Expr
	op   string
	r    Expr
	want string
	code string
}

// The expected results of the date/time range tests are PostgreSQL 15's
// answers to the same expressions.

var datetimeOperatorCases = []opCase{
	{l: date("2022-08-09"), op: "+", r: i4("-2147483648"), code: "22008", want: "date out of range"},
	{l: date("2022-08-09"), op: "+", r: i4("2147483647"), code: "22008", want: "date out of range"},
	{l: date("2022-08-09"), op: "-", r: i4("2147483647"), code: "22008", want: "date out of range"},
	{l: i4("2147483647"), op: "+", r: date("2022-08-09"), code: "22008", want: "date out of range"},
	{l: date("2022-01-01"), op: "+", r: i4("1000000000"), want: "2739929-01-04"},
	{l: date("4714-11-24 BC"), op: "-", r: i4("1"), code: "22008", want: "date out of range"},
	{l: date("5874897-12-31"), op: "+", r: i4("1"), code: "22008", want: "date out of range"},
	{l: date("5874897-12-30"), op: "+", r: i2("1"), want: "5874897-12-31"},
	{l: i2("-1"), op: "+", r: date("4714-11-25 BC"), want: "4714-11-24 BC"},
	{l: date("infinity"), op: "+", r: i4("1"), want: "infinity"},
	{l: date("2022-08-09"), op: "-", r: i4("-2147483648"), code: "22008", want: "date out of range"},
	{l: date("2022-08-09"), op: "+", r: i8("1"), code: "42883", want: "operator does not exist: date + bigint"},
	{l: date("2022-08-09"), op: "-", r: date("4714-11-24 BC"), want: "2459801"},
	{l: date("5874897-12-31"), op: "-", r: date("4714-11-24 BC"), want: "2147483493"},
	{l: date("infinity"), op: "-", r: date("2000-01-01"), code: "22008", want: "cannot subtract infinite dates"},
	{l: date("5874897-12-31"), op: "=", r: ts("2020-01-01"), want: "f"},
	{l: date("5874897-12-31"), op: ">", r: ts("294276-12-31 23:59:59.999999"), want: "t"},
	{l: date("5874897-12-31"), op: "<", r: ts("infinity"), want: "t"},
	{l: tstz("2020-01-01 00:00+00"), op: "<>", r: date("294277-01-01"), want: "t"},
	{l: date("infinity"), op: "=", r: ts("infinity"), want: "t"},
	{l: date("2020-01-01"), op: "=", r: ts("2020-01-01"), want: "t"},
	{l: date("2022-08-09"), op: "+", r: tm("10:00"), want: "2022-08-09 10:00:00"},
	{l: date("2022-08-09"), op: "-", r: tm("10:00"), want: "2022-08-08 14:00:00"},
	{l: tm("01:00"), op: "+", r: ts("294276-12-31 22:00"), want: "294276-12-31 23:00:00"},
	{l: tstz("294276-12-31 23:00+00"), op: "+", r: tm("24:00"), code: "22008", want: "timestamp out of range"},
	{l: ts("-infinity"), op: "-", r: tm("01:00"), want: "-infinity"},
	{l: tm("24:00"), op: "+", r: date("294276-12-30"), want: "294276-12-31 00:00:00"},
	{l: date("294276-12-31"), op: "+", r: tm("23:59:59.999999"), want: "294276-12-31 23:59:59.999999"},
	{l: date("294276-12-31"), op: "+", r: tm("24:00"), code: "22008", want: "timestamp out of range"},
	{l: date("294277-01-01"), op: "+", r: tm("00:00"), code: "22008", want: "date out of range for timestamp"},
	{l: date("infinity"), op: "+", r: tm("10:00"), want: "infinity"},
	{l: date("2022-08-09"), op: "+", r: ival("1000000 years"), code: "22008", want: "timestamp out of range"},
	{l: date("5874897-12-31"), op: "+", r: ival("1 day"), code: "22008", want: "date out of range for timestamp"},
	{l: date("294276-12-30"), op: "+", r: ival("1 day"), want: "294276-12-31 00:00:00"},
	{l: date("294276-12-31"), op: "+", r: ival("1 day"), code: "22008", want: "timestamp out of range"},
	{l: ival("1 day"), op: "+", r: date("294276-12-30"), want: "294276-12-31 00:00:00"},
	{l: date("4714-11-24 BC"), op: "-", r: ival("1 usec"), code: "22008", want: "timestamp out of range"},
	{l: date("-infinity"), op: "-", r: ival("1 day"), want: "-infinity"},
	{l: ts("2022-08-09"), op: "+", r: ival("1000000 years"), code: "22008", want: "timestamp out of range"},
	{l: ts("2022-08-09"), op: "+", r: ival("2147483647 days"), code: "22008", want: "timestamp out of range"},
	{l: ts("2022-08-09"), op: "-", r: ival("2147483647 months"), code: "22008", want: "timestamp out of range"},
	{l: tstz("2022-08-09 00:00+00"), op: "+", r: ival("2147483647 months"), code: "22008", want: "timestamp out of range"},
	{l: ts("2022-08-09"), op: "+", r: ival("9223372036854775807 microseconds"), code: "22008", want: "timestamp out of range"},
	{l: ts("294276-12-31 23:59:59"), op: "+", r: ival("1 day"), code: "22008", want: "timestamp out of range"},
	{l: ival("1 day"), op: "+", r: ts("294276-12-30 12:00"), want: "294276-12-31 12:00:00"},
	{l: ival("1 day"), op: "+", r: tstz("294276-12-31 00:00+00"), code: "22008", want: "timestamp out of range"},
	{l: tstz("4714-11-24 00:00+00 BC"), op: "-", r: ival("1 usec"), code: "22008", want: "timestamp out of range"},
	{l: ts("infinity"), op: "+", r: ival("1 day"), want: "infinity"},
	// A date compares with a timestamp without failing: past the
	// timestamp range, above every finite timestamp, below infinity.
	{l: date("5874897-12-31"), op: ">", r: ts("294276-12-31 23:59:59.999999"), want: "t"},
	{l: date("294277-01-01"), op: "<", r: ts("infinity"), want: "t"},
	{l: tstz("infinity"), op: "=", r: date("5874897-12-31"), want: "f"},
	{l: date("infinity"), op: "=", r: tstz("infinity"), want: "t"},
	{l: ts("294276-12-31"), op: "-", r: ts("4713-01-01 BC"), want: "-104300493 days -08:01:49.551616"},
	{l: tstz("294276-12-31 23:59:59.999999+00"), op: "-", r: tstz("4714-11-24 00:00:00+00 BC"), want: "-104300454 days -08:01:49.551617"},
	{l: ts("infinity"), op: "-", r: ts("2000-01-01"), code: "22008", want: "cannot subtract infinite timestamps"},
	{l: ival("2147483647 days"), op: "+", r: ival("1 day"), code: "22008", want: "interval out of range"},
	{l: ival("-2147483648 months"), op: "-", r: ival("1 month"), code: "22008", want: "interval out of range"},
	{l: ival("-9223372036854775807 usec"), op: "-", r: ival("1 usec"), want: "-2562047788:00:54.775808"},
	{l: ival("0"), op: "-", r: ival("-2147483648 days"), code: "22008", want: "interval out of range"},
	{l: ival("2147483647 months"), op: "*", r: i4("2"), code: "22008", want: "interval out of range"},
	{l: ival("1 day"), op: "*", r: num("1e300"), code: "22008", want: "interval out of range"},
	{l: i4("2"), op: "*", r: ival("2147483647 months"), code: "22008", want: "interval out of range"},
	{l: num("1.5"), op: "*", r: ival("1 mon"), want: "1 mon 15 days"},
	{l: ival("1 mon 1 day 1 sec"), op: "/", r: i4("7"), want: "4 days 10:17:08.6896"},
	{l: ival("1 day"), op: "/", r: i4("0"), code: "22012", want: "division by zero"},
	{l: ival("2147483647 days"), op: "/", r: num("0.5"), code: "22008", want: "interval out of range"},
	{l: ival("1 month"), op: "*", r: f8("NaN"), code: "22008", want: "interval out of range"},
	{l: ival("1 day"), op: "*", r: num("1e400"), code: "22003", want: "\"10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\" is out of range for type double precision"},
}

var datetimeFunctionCases = []fnCase{
	{fn: "make_date", args: args(i4("2147483647"), i4("1"), i4("1")), code: "22008", want: "date out of range: 2147483647-01-01"},
	{fn: "make_date", args: args(i4("5874897"), i4("12"), i4("31")), want: "5874897-12-31"},
	{fn: "make_date", args: args(i4("5874898"), i4("1"), i4("1")), code: "22008", want: "date out of range: 5874898-01-01"},
	{fn: "make_date", args: args(i4("-4714"), i4("11"), i4("24")), want: "4714-11-24 BC"},
	{fn: "make_date", args: args(i4("-4714"), i4("11"), i4("23")), code: "22008", want: "date out of range: -4713-11-23"},
	{fn: "make_date", args: args(i4("-4715"), i4("12"), i4("30")), code: "22008", want: "date out of range: -4714-12-30"},
	{fn: "make_date", args: args(i4("-5"), i4("2"), i4("30")), code: "22008", want: "date field value out of range: -4-02-30"},
	{fn: "make_date", args: args(i4("-2147483648"), i4("1"), i4("1")), code: "22008", want: "date field value out of range: -2147483648-01-01"},
	{fn: "make_timestamp", args: args(i4("294276"), i4("12"), i4("31"), i4("23"), i4("59"), f8("59.999999")), want: "294276-12-31 23:59:59.999999"},
	{fn: "make_timestamp", args: args(i4("294277"), i4("1"), i4("1"), i4("0"), i4("0"), f8("0")), code: "22008", want: "timestamp out of range: 294277-01-01 0:00:00"},
	{fn: "make_timestamp", args: args(i4("-4714"), i4("11"), i4("24"), i4("0"), i4("0"), f8("0")), want: "4714-11-24 00:00:00 BC"},
	{fn: "make_timestamp", args: args(i4("-4714"), i4("11"), i4("23"), i4("23"), i4("59"), f8("59.999999")), code: "22008", want: "timestamp out of range: -4714-11-23 23:59:60"},
	{fn: "make_timestamp", args: args(i4("-4714"), i4("10"), i4("30"), i4("0"), i4("0"), f8("0")), code: "22008", want: "date out of range: -4714-10-30"},
	{fn: "make_timestamp", args: args(i4("5874898"), i4("5"), i4("1"), i4("0"), i4("0"), f8("0")), code: "22008", want: "timestamp out of range: 5874898-05-01 0:00:00"},
	{fn: "make_timestamp", args: args(i4("-2147483648"), i4("1"), i4("1"), i4("0"), i4("0"), f8("0")), code: "22008", want: "date field value out of range: -2147483648-01-01"},
	{fn: "make_timestamptz", args: args(i4("294276"), i4("12"), i4("31"), i4("23"), i4("59"), f8("59.999999")), want: "294276-12-31 23:59:59.999999+00"},
	{fn: "make_timestamptz", args: args(i4("-4714"), i4("11"), i4("23"), i4("0"), i4("0"), f8("0")), code: "22008", want: "timestamp out of range: -4714-11-23 0:00:00"},
	{fn: "make_interval", args: args(i4("178956970"), i4("7")), want: "178956970 years 7 mons"},
	{fn: "make_interval", args: args(i4("178956971")), want: "-178956970 years -4 mons"},
	{fn: "make_interval", args: args(i4("0"), i4("0"), i4("306783379")), want: "-2147483643 days"},
	{fn: "make_interval", args: args(i4("0"), i4("0"), i4("0"), i4("0"), i4("2147483647"), i4("2147483647"), f8("1e15")), want: "-378772746:53:54.775808"},
	{fn: "make_interval", args: args(i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), f8("9223372036854.775")), want: "-2562047788:00:54.775808"},
	{fn: "make_interval", args: args(i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), f8("1e18")), want: "-2562047788:00:54.775808"},
	{fn: "make_interval", args: args(i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), f8("-Infinity")), code: "22008", want: "interval out of range"},
	{fn: "make_interval", args: args(i4("0"), i4("0"), i4("0"), i4("0"), i4("-2147483648"), i4("0"), f8("-9.3e12")), want: "414564140:00:54.775808"},
	{fn: "date_bin", args: args(ival("1 day"), ts("294276-12-31"), ts("4713-01-01 BC")), code: "22008", want: "interval out of range"},
	{fn: "date_bin", args: args(ival("1 day"), ts("4714-11-24 12:00 BC"), ts("4714-11-24 13:00 BC")), code: "22008", want: "timestamp out of range"},
	{fn: "date_bin", args: args(ival("1 day"), ts("294276-12-31 12:00"), ts("294276-12-31 11:00")), want: "294276-12-31 11:00:00"},
	{fn: "date_bin", args: args(ival("106751992 days"), ts("2000-01-01"), ts("2000-01-01")), code: "22008", want: "interval out of range"},
	{fn: "date_bin", args: args(ival("106751991 days 04:00:54.775807"), ts("2000-01-01"), ts("2000-01-01")), want: "2000-01-01 00:00:00"},
	{fn: "date_bin", args: args(ival("100000000 days"), ts("294276-12-31"), ts("100000-01-01")), want: "100000-01-01 00:00:00"},
	{fn: "date_bin", args: args(ival("100000000 days"), ts("1000-12-31"), ts("200000-01-01")), code: "22008", want: "timestamp out of range"},
	{fn: "date_bin", args: args(ival("7 days"), ts("2022-08-10"), ts("2022-08-11")), want: "2022-08-04 00:00:00"},
	{fn: "date_bin", args: args(ival("1 day"), ts("infinity"), ts("2000-01-01")), want: "infinity"},
	{fn: "date_bin", args: args(ival("1 day"), ts("2000-01-01"), ts("infinity")), code: "22008", want: "origin out of range"},
	{fn: "date_bin", args: args(ival("1 day"), tstz("294276-12-31 00:00+00"), tstz("4713-01-01 00:00+00 BC")), code: "22008", want: "interval out of range"},
	{fn: "date_trunc", args: args(txt("year"), ts("4714-12-01 BC")), code: "22008", want: "timestamp out of range"},
	{fn: "date_trunc", args: args(txt("week"), ts("4714-11-24 BC")), want: "4714-11-24 00:00:00 BC"},
	{fn: "date_trunc", args: args(txt("week"), ts("4714-11-28 BC")), want: "4714-11-24 00:00:00 BC"},
	{fn: "date_trunc", args: args(txt("millennium"), ts("294276-12-31 23:59:59.999999")), want: "294001-01-01 00:00:00"},
	{fn: "date_trunc", args: args(txt("hour"), tstz("294276-12-31 23:59:59.999999+00")), want: "294276-12-31 23:00:00+00"},
	{fn: "date_trunc", args: args(txt("month"), tstz("4714-11-30 00:00+00 BC")), code: "22008", want: "timestamp out of range"},
	{fn: "date_trunc", args: args(txt("hour"), ival("-9223372036854775808 usec")), want: "-2562047788:00:00"},
	{fn: "isfinite", args: args(date("infinity")), want: "f"},
	{fn: "isfinite", args: args(ts("-infinity")), want: "f"},
	{fn: "isfinite", args: args(tstz("294276-12-31 23:59:59.999999+00")), want: "t"},
	{fn: "isfinite", args: args(ival("-178000000 years")), want: "t"},
	{fn: "justify_hours", args: args(ival("9223372036854775807 microseconds")), want: "106751991 days 04:00:54.775807"},
	{fn: "justify_hours", args: args(ival("2147483647 days 24:00:00")), code: "22008", want: "interval out of range"},
	{fn: "justify_hours", args: args(ival("-2147483648 days -24:00:00")), code: "22008", want: "interval out of range"},
	{fn: "justify_days", args: args(ival("2147483647 months 30 days")), code: "22008", want: "interval out of range"},
	{fn: "justify_days", args: args(ival("-2147483648 months -30 days")), code: "22008", want: "interval out of range"},
	{fn: "justify_interval", args: args(ival("2147483647 months 29 days 24 hours")), code: "22008", want: "interval out of range"},
	{fn: "justify_interval", args: args(ival("2147483647 months 30 days -1 usec")), code: "22008", want: "interval out of range"},
	{fn: "justify_interval", args: args(ival("2147483647 days 9223372036854775807 usec")), want: "6261765 years 7 mons 28 days 04:00:54.775807"},
	{fn: "justify_interval", args: args(ival("-2147483648 months -30 days 1 usec")), code: "22008", want: "interval out of range"},
	{fn: "age", args: args(ts("294276-12-31"), ts("4713-01-01 BC")), want: "298988 years 11 mons 30 days"},
	{fn: "age", args: args(ts("4713-01-01 BC"), ts("294276-12-31")), want: "-298988 years -11 mons -30 days"},
	{fn: "age", args: args(tstz("294276-12-31 23:59:59.999999+00"), tstz("4714-11-24 00:00:00+00 BC")), want: "298989 years 1 mon 7 days 23:59:59.999999"},
	{fn: "to_timestamp", args: args(f8("9224318015999.999")), want: "294276-12-31 23:59:59.997952+00"},
	{fn: "to_timestamp", args: args(f8("9224318016000")), code: "22008", want: "timestamp out of range: \"9.22432e+12\""},
	{fn: "to_timestamp", args: args(f8("-210866803200")), want: "4714-11-24 00:00:00+00 BC"},
	{fn: "to_timestamp", args: args(f8("-210866803200.5")), code: "22008", want: "timestamp out of range: \"-2.10867e+11\""},
	{fn: "to_timestamp", args: args(f8("1e300")), code: "22008", want: "timestamp out of range: \"1e+300\""},
	{fn: "extract", args: args(txt("epoch"), ts("294276-12-31 23:59:59.999999")), want: "9224318016000.000000"},
	{fn: "extract", args: args(txt("epoch"), ts("294247-01-10 04:00:54.775806")), want: "9223372036854.775806"},
	{fn: "extract", args: args(txt("epoch"), ts("294247-01-10 04:00:54.775807")), want: "9223372036854.775800"},
	{fn: "extract", args: args(txt("epoch"), tstz("4714-11-24 00:00:00.000001+00 BC")), want: "-210866803199.999999"},
	{fn: "extract", args: args(txt("julian"), ts("294276-12-31 23:59:59.999999")), want: "109203527.99999999998842592593"},
	{fn: "extract", args: args(txt("epoch"), date("5874897-12-31")), want: "185331706992000"},
	{fn: "extract", args: args(txt("year"), date("5874897-12-31")), want: "5874897"},
	{fn: "date_part", args: args(txt("epoch"), ts("294276-12-31 23:59:59.999999")), want: "9224318016000"},
	{fn: "date_part", args: args(txt("epoch"), ts("294250-01-10 04:00:54.77585")), want: "9223466731254.775"},
	{fn: "date_part", args: args(txt("epoch"), date("5874897-12-31")), code: "22008", want: "date out of range for timestamp"},
	{fn: "date_part", args: args(txt("day"), date("294276-12-31")), want: "31"},
	{fn: "extract", args: args(txt("epoch"), ival("-2147483648 months -2147483648 days -9223372036854775808 usec")), want: "-5842218456432054.775808"},
	{fn: "date_part", args: args(txt("epoch"), ival("2147483647 months 2147483647 days 9223372036854775807 usec")), want: "5.842218453753655e+15"},
}

func TestDatetimeOperatorRanges(t *testing.T) { runOpCases(t, datetimeOperatorCases) }

// runOpCases evaluates each case's operator over its constants.
func runOpCases(t *testing.T, cases []opCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %s %s", c.l, c.op, c.r), func(t *testing.T) {
			e, err := NewBinary(c.op, c.l, c.r)
			var v types.Datum
			if err == nil {
				v, err = e.Eval(nil, nil)
			}
			if c.code != "" {
				if pgerror.Code(err) != c.code || pgerror.From(err).Message != c.want {
					t.Fatalf("got %v, %v; want error %s %q", v, err, c.code, c.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if got := string(types.FormatText(nil, e.Type(), v)); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestDatetimeFunctionRanges(t *testing.T) {
	runFnCases(t, datetimeFunctionCases)
}
