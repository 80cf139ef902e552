package expr

import "testing"

func TestDatePart(t *testing.T) {
	const stamp = "2001-02-16 20:38:40.5"
	part := func(unit string, v Expr, want string) fnCase {
		return fnCase{fn: "date_part", args: args(txt(unit), v), want: want}
	}
	partErr := func(unit string, v Expr, code, msg string) fnCase {
		return fnCase{fn: "date_part", args: args(txt(unit), v), code: code, want: msg}
	}
	runFnCases(t, []fnCase{
		part("year", ts(stamp), "2001"),
		part("YEAR", ts(stamp), "2001"),
		part("years", ts(stamp), "2001"),
		part("month", ts(stamp), "2"),
		part("day", ts(stamp), "16"),
		part("hour", ts(stamp), "20"),
		part("minute", ts(stamp), "38"),
		part("second", ts(stamp), "40.5"),
		part("milliseconds", ts(stamp), "40500"),
		part("microseconds", ts(stamp), "40500000"),
		part("quarter", ts(stamp), "1"),
		part("week", ts(stamp), "7"),
		part("doy", ts(stamp), "47"),
		part("dow", ts(stamp), "5"),
		part("isodow", ts(stamp), "5"),
		part("dow", date("2001-02-18"), "0"),
		part("isodow", date("2001-02-18"), "7"),
		part("decade", ts(stamp), "200"),
		part("century", ts(stamp), "21"),
		part("century", ts("2000-12-16 12:21:13"), "20"),
		part("millennium", ts(stamp), "3"),
		part("millennium", ts("2000-12-16 12:21:13"), "2"),
		part("epoch", ts("2001-02-16 20:38:40.12"), "982355920.12"),
		part("epoch", tstz("2001-02-16 20:38:40.12-08"), "982384720.12"),
		part("epoch", date("1970-01-02"), "86400"),
		part("isoyear", date("2006-01-01"), "2005"),
		part("isoyear", date("2006-01-02"), "2006"),
		part("julian", date("2006-01-01"), "2453737"),
		part("julian", ts("2006-01-01 12:00"), "2453737.5"),
		part("year", date("0044-03-15 BC"), "-44"),
		part("century", date("0044-03-15 BC"), "-1"),
		part("timezone", tstz(stamp), "0"),
		part("timezone_hour", tstz(stamp), "0"),
		part("year", date("infinity"), "Infinity"),
		part("epoch", ts("-infinity"), "-Infinity"),
		part("day", ts("infinity"), nullOut),
		part("year", ts("NULL"), nullOut),
		partErr("timezone", ts(stamp), "0A000", `unit "timezone" not supported for type timestamp without time zone`),
		partErr("foo", ts(stamp), "22023", `unit "foo" not recognized for type timestamp without time zone`),
		partErr("Foo", tstz(stamp), "22023", `unit "foo" not recognized for type timestamp with time zone`),

		part("hour", tm("13:30:15.25"), "13"),
		part("second", tm("13:30:15.25"), "15.25"),
		part("milliseconds", tm("17:12:28.5"), "28500"),
		part("epoch", tm("01:00"), "3600"),
		partErr("day", tm("13:30"), "0A000", `unit "day" not supported for type time without time zone`),

		part("day", ival("40 days 1 minute"), "40"),
		part("minute", ival("-1 hour -5 minutes"), "-5"),
		part("hour", ival("30 hours"), "30"),
		part("month", ival("2 years 3 months"), "3"),
		part("quarter", ival("2 years 3 months"), "2"),
		part("year", ival("2 years 3 months"), "2"),
		part("decade", ival("25 years"), "2"),
		part("epoch", ival("5 days 3 hours"), "442800"),
		part("epoch", ival("1 year 1 month"), "34149600"),
		partErr("week", ival("1 day"), "0A000", `unit "week" not supported for type interval`),
	})
}

func TestExtract(t *testing.T) {
	extract := func(unit string, v Expr, want string) fnCase {
		return fnCase{fn: "extract", args: args(txt(unit), v), want: want}
	}
	runFnCases(t, []fnCase{
		extract("second", ts("2001-02-16 20:38:40.5"), "40.500000"),
		extract("milliseconds", tm("17:12:28.5"), "28500.000"),
		extract("microseconds", tm("17:12:28.5"), "28500000"),
		extract("year", ts("2001-02-16 20:38:40.5"), "2001"),
		extract("epoch", ts("2001-02-16 20:38:40.12"), "982355920.120000"),
		extract("epoch", tstz("2001-02-16 20:38:40.12-08"), "982384720.120000"),
		extract("epoch", ts("1969-12-31 23:59:58.5"), "-1.500000"),
		extract("epoch", date("2001-02-16"), "982281600"),
		extract("epoch", ival("5 days 3 hours"), "442800.000000"),
		extract("epoch", ival("-1.5 seconds"), "-1.500000"),
		extract("epoch", tm("01:00"), "3600.000000"),
		extract("second", ival("1 minute 1.5 seconds"), "1.500000"),
		extract("julian", date("2006-01-01"), "2453737"),
		extract("julian", ts("2006-01-01 12:00"), "2453737.50000000000000000000"),
		extract("dow", date("2001-02-18"), "0"),
		extract("timezone", tstz("2001-02-16 20:38:40+00"), "0"),
		extract("year", date("infinity"), "Infinity"),
		extract("epoch", tstz("-infinity"), "-Infinity"),
		extract("day", date("infinity"), nullOut),
		{fn: "extract", args: args(txt("hour"), date("2001-02-16")), code: "0A000", want: `unit "hour" not supported for type date`},
		{fn: "extract", args: args(txt("hour"), date("infinity")), code: "0A000"},
		{fn: "extract", args: args(txt("foo"), date("2001-02-16")), code: "22023", want: `unit "foo" not recognized for type date`},
	})
}
