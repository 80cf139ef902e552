package expr

import (
	"strconv"
	"testing"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

func TestCurrentTimeBuiltins(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "now", want: "2024-02-29 13:45:30.123456+00"},
		{fn: "transaction_timestamp", want: "2024-02-29 13:45:30.123456+00"},
		{fn: "statement_timestamp", want: "2024-02-29 13:45:30.123456+00"},
		{fn: "current_timestamp", want: "2024-02-29 13:45:30.123456+00"},
		{fn: "current_timestamp", args: args(i4("2")), want: "2024-02-29 13:45:30.12+00"},
		{fn: "current_timestamp", args: args(i4("-1")), code: "22023", want: "TIMESTAMP(-1) WITH TIME ZONE precision must not be negative"},
		{fn: "current_date", want: "2024-02-29"},
		{fn: "localtimestamp", want: "2024-02-29 13:45:30.123456"},
		{fn: "localtimestamp", args: args(i4("0")), want: "2024-02-29 13:45:30"},
		{fn: "current_time", want: "13:45:30.123456"},
		{fn: "localtime", args: args(i4("4")), want: "13:45:30.1235"},
		{fn: "localtime", args: args(i4("-2")), code: "22023", want: "TIME(-2) precision must not be negative"},
	})
}

func TestDateTrunc(t *testing.T) {
	trunc := func(unit string, v Expr, want string) fnCase {
		return fnCase{fn: "date_trunc", args: args(txt(unit), v), want: want}
	}
	const stamp = "2001-02-16 20:38:40.123456"
	runFnCases(t, []fnCase{
		trunc("microseconds", ts(stamp), "2001-02-16 20:38:40.123456"),
		trunc("milliseconds", ts(stamp), "2001-02-16 20:38:40.123"),
		trunc("second", ts(stamp), "2001-02-16 20:38:40"),
		trunc("minute", ts(stamp), "2001-02-16 20:38:00"),
		trunc("hour", ts(stamp), "2001-02-16 20:00:00"),
		trunc("day", ts(stamp), "2001-02-16 00:00:00"),
		trunc("week", ts(stamp), "2001-02-12 00:00:00"),
		trunc("week", ts("2006-01-01 10:00"), "2005-12-26 00:00:00"),
		trunc("month", ts(stamp), "2001-02-01 00:00:00"),
		trunc("quarter", ts("2001-05-16"), "2001-04-01 00:00:00"),
		trunc("year", ts(stamp), "2001-01-01 00:00:00"),
		trunc("decade", ts(stamp), "2000-01-01 00:00:00"),
		trunc("century", ts(stamp), "2001-01-01 00:00:00"),
		trunc("century", ts("2000-02-16"), "1901-01-01 00:00:00"),
		trunc("millennium", ts("2000-02-16"), "1001-01-01 00:00:00"),
		trunc("year", ts("0044-03-15 BC"), "0044-01-01 00:00:00 BC"),
		trunc("day", tstz("2001-02-16 20:38:40+00"), "2001-02-16 00:00:00+00"),
		trunc("month", date("2020-05-05"), "2020-05-01 00:00:00+00"),
		trunc("year", ts("infinity"), "infinity"),
		trunc("hour", ival("2 days 3 hours 40 minutes"), "2 days 03:00:00"),
		trunc("year", ival("2 years 3 months 4 days"), "2 years"),
		trunc("quarter", ival("1 year 5 months 4 days"), "1 year 3 mons"),
		trunc("decade", ival("-25 years"), "-20 years"),
		{fn: "date_trunc", args: args(txt("week"), ival("1 day")), code: "0A000"},
		{fn: "date_trunc", args: args(txt("foo"), ts(stamp)), code: "22023", want: `unit "foo" not recognized for type timestamp without time zone`},
		{fn: "date_trunc", args: args(txt("dow"), ts(stamp)), code: "0A000", want: `unit "dow" not supported for type timestamp without time zone`},
	})
}

func TestDatetimeConstructors(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "age", args: args(ts("2001-04-10"), ts("1957-06-13")), want: "43 years 9 mons 27 days"},
		{fn: "age", args: args(ts("1957-06-13"), ts("2001-04-10")), want: "-43 years -9 mons -27 days"},
		{fn: "age", args: args(ts("2001-03-01 00:00"), ts("2001-02-28 23:00")), want: "01:00:00"},
		{fn: "age", args: args(tstz("2001-04-10 12:00+00"), tstz("2001-04-09 13:30+00")), want: "22:30:00"},
		{fn: "age", args: args(ts("2023-02-28")), want: "1 year 1 day"},
		// PostgreSQL 15 reads infinity as its stored value; -infinity fails.
		{fn: "age", args: args(ts("infinity"), ts("2001-01-01")), want: "292276 years 8 days 04:00:54.775807"},
		{fn: "age", args: args(ts("-infinity"), ts("2001-01-01")), code: "22008", want: "timestamp out of range"},

		{fn: "make_date", args: args(i4("2013"), i4("7"), i4("15")), want: "2013-07-15"},
		{fn: "make_date", args: args(i4("-44"), i4("3"), i4("15")), want: "0044-03-15 BC"},
		{fn: "make_date", args: args(i4("2024"), i4("2"), i4("29")), want: "2024-02-29"},
		{fn: "make_date", args: args(i4("2013"), i4("2"), i4("30")), code: "22008", want: "date field value out of range: 2013-02-30"},
		{fn: "make_date", args: args(i4("0"), i4("7"), i4("15")), code: "22008", want: "date field value out of range: 0-07-15"},
		{fn: "make_date", args: args(i4("2013"), i4("13"), i4("1")), code: "22008"},
		{fn: "make_time", args: args(i4("8"), i4("15"), f8("23.5")), want: "08:15:23.5"},
		{fn: "make_time", args: args(i4("24"), i4("0"), f8("0")), want: "24:00:00"},
		{fn: "make_time", args: args(i4("25"), i4("0"), f8("0")), code: "22008", want: "time field value out of range: 25:00:00"},
		{fn: "make_time", args: args(i4("23"), i4("59"), f8("60.5")), code: "22008", want: "time field value out of range: 23:59:60.5"},
		{fn: "make_timestamp", args: args(i4("2013"), i4("7"), i4("15"), i4("8"), i4("15"), f8("23.5")), want: "2013-07-15 08:15:23.5"},
		{fn: "make_timestamptz", args: args(i4("2013"), i4("7"), i4("15"), i4("8"), i4("15"), f8("23.5")), want: "2013-07-15 08:15:23.5+00"},
		{fn: "make_timestamp", args: args(i4("2013"), i4("7"), i4("15"), i4("8"), i4("60"), f8("0")), code: "22008"},
		{fn: "make_interval", want: "00:00:00"},
		{fn: "make_interval", args: args(i4("1")), want: "1 year"},
		{fn: "make_interval", args: args(i4("0"), i4("0"), i4("1"), i4("3")), want: "10 days"},
		{fn: "make_interval", args: args(i4("1"), i4("2"), i4("0"), i4("1"), i4("5"), i4("6"), f8("1.5")), want: "1 year 2 mons 1 day 05:06:01.5"},
		{fn: "make_interval", args: args(i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), i4("0"), f8("Infinity")), code: "22008", want: "interval out of range"},

		{fn: "to_timestamp", args: args(f8("1284352323")), want: "2010-09-13 04:32:03+00"},
		{fn: "to_timestamp", args: args(f8("0.5")), want: "1970-01-01 00:00:00.5+00"},
		{fn: "to_timestamp", args: args(f8("-1")), want: "1969-12-31 23:59:59+00"},
		{fn: "to_timestamp", args: args(f8("Infinity")), want: "infinity"},
		{fn: "to_timestamp", args: args(f8("NaN")), code: "22008", want: "timestamp cannot be NaN"},
		{fn: "to_timestamp", args: args(f8("1e20")), code: "22008", want: `timestamp out of range: "1e+20"`},

		{fn: "justify_days", args: args(ival("35 days")), want: "1 mon 5 days"},
		{fn: "justify_days", args: args(ival("-35 days")), want: "-1 mons -5 days"},
		{fn: "justify_days", args: args(ival("1 mon -35 days")), want: "-5 days"},
		{fn: "justify_hours", args: args(ival("27 hours")), want: "1 day 03:00:00"},
		{fn: "justify_hours", args: args(ival("1 day -1 hour")), want: "23:00:00"},
		{fn: "justify_interval", args: args(ival("1 mon -1 hour")), want: "29 days 23:00:00"},
		{fn: "justify_interval", args: args(ival("-1 mon 1 hour")), want: "-29 days -23:00:00"},
	})
}

func TestToChar(t *testing.T) {
	const stamp = "2002-04-20 17:31:12.66"
	toChar := func(format, want string) fnCase {
		return fnCase{fn: "to_char", args: args(ts(stamp), txt(format)), want: want}
	}
	runFnCases(t, []fnCase{
		toChar("HH12:MI:SS", "05:31:12"),
		toChar("YYYY-MM-DD HH24:MI:SS.MS", "2002-04-20 17:31:12.660"),
		toChar("Day, DD  HH12:MI:SS", "Saturday , 20  05:31:12"),
		toChar("FMDay, FMDD  HH12:MI:SS", "Saturday, 20  05:31:12"),
		toChar("Month|FMMonth|MON|mon|Mon|DY|dy", "April    |April|APR|apr|Apr|SAT|sat"),
		toChar("DDth FMDDTH", "20th 20TH"),
		toChar(`YYYY "year" Q`, "2002 year 2"),
		toChar(`"quoted \"HH\"" \"Y`, `quoted "HH" "2`),
		toChar("AM am P.M. p.m.", "PM pm P.M. p.m."),
		toChar("US FF2 FF6", "660000 66 660000"),
		toChar("J", "2452385"),
		toChar("IYYY-IW-ID IDDD", "2002-16-6 111"),
		toChar("RM|FMrm|", "IV  |iv|"),
		toChar("CC Y,YYY YYY YY Y", "21 2,002 002 02 2"),
		toChar("DDD WW W D", "110 16 3 7"),
		toChar("SSSS", "63072"),
		toChar("TZ", ""),
		toChar("hh24 mi ss yyyy", "17 31 12 2002"),
		toChar("", nullOut),
		{fn: "to_char", args: args(ts("0044-03-15 BC"), txt("YYYY BC b.c.")), want: "0044 BC b.c."},
		{fn: "to_char", args: args(ts("2001-02-01 00:00"), txt("FMDDth FMHH12 AM")), want: "1st 12 AM"},
		{fn: "to_char", args: args(ts("2001-02-11"), txt("DDth")), want: "11th"},
		{fn: "to_char", args: args(tstz("2001-02-03 04:05:06+00"), txt("TZ tz OF")), want: "UTC utc +00"},
		{fn: "to_char", args: args(ts("infinity"), txt("YYYY")), want: nullOut},
		{fn: "to_char", args: args(ts("2020-01-01 00:00:00.005"), txt("FMMS FMUS FMFF2 FMHH12 FMCC")), want: "005 005000 00 12 21"},
	})
}

// TestToCharInterval checks to_char(interval, format) against PostgreSQL
// 15: signed fields from the interval's months, days and time, widened by
// their sign, and errors for calendar names.
func TestToCharInterval(t *testing.T) {
	toChar := func(iv, format, want string) fnCase {
		return fnCase{fn: "to_char", args: args(ival(iv), txt(format)), want: want}
	}
	const pos, neg = "1 year 2 months 3 days 04:05:06.789", "-1 year -2 months -3 days -04:05:06.789"
	runFnCases(t, []fnCase{
		toChar(pos, "HH HH12 HH24 MI SS MS US FF1 FF3 SSSS", "04 04 04 05 06 789 789000 7 789 14706"),
		toChar(neg, "HH HH12 HH24 MI SS MS US FF1 FF3 SSSS", "-04 -04 -04 -05 -06 -789 -789000 -7 -789 -14706"),
		toChar(pos, "DD DDD MM YYYY YYY YY Y Y,YYY CC", "03 423 02 0001 001 01 1 0,001 00"),
		toChar(neg, "DD DDD MM YYYY YYY YY Y Y,YYY CC", "-3 -423 -02 -0001 -001 -01 -1 0,-01 00"),
		toChar(pos, "W WW J Q", "1 61 1721459 1"),
		toChar(neg, "W WW J Q", "1 -59 1720599 0"),
		toChar(neg, "FMHH24:FMMI:FMSS FMMS FMDD FMMM FMYYYY", "-4:-5:-6 -789 -3 -2 -1"),
		toChar(neg, "HH24TH DDth MMth YYYYth", "-04TH -3rd -02nd -0001st"),
		toChar(neg, "IW IYYY IDDD I IY IYY", "39 -0002 273 -2 -02 -002"),
		toChar("0", "HH MI AM Q RM|W WW J", "12 00 AM  |1 01 1721028"),
		toChar("0", "IW IYYY IDDD I IY IYY", "48 -001 331 -1 -1 -01"),
		toChar("30 hours", "HH HH24 AM SSSS", "06 30 AM 108000"),
		toChar("100 years 11 months 45 days 123:00:00", "HH24TH CC DDD WW RM", "123RD 01 36375 5197 XI  "),
		toChar("12 months", "RM|MM|YYYY", "XII |00|0001"),
		toChar("-12 months", "RM|YYYY", "I   |-0001"),
		toChar("-1 month", "RM|MM|Q", "XII |-01|1"),
		toChar("-3 months", "FMRM|Q|DDD", "X|0|-90"),
		toChar("-00:00:01.5", "SS MS US FF1 SSSS", "-01 -500 -500000 -5 -1"),
		toChar("1 mon", "", nullOut),
		{fn: "to_char", args: args(ival("1 mon"), txt("Mon")), code: "22007", want: "invalid format specification for an interval value"},
		{fn: "to_char", args: args(ival("1 mon"), txt("Day")), code: "22007"},
		{fn: "to_char", args: args(ival("1 mon"), txt("AD")), code: "22007"},
		{fn: "to_char", args: args(ival("1 mon"), txt("TZ")), code: "22007"},
		{fn: "to_char", args: args(ival("1 mon"), txt("OF")), code: "22007"},
		{fn: "to_char", args: args(ival("1 mon"), txt("ID")), code: "22007"},
	})
}

// TestMakeTimestampRoundTrip checks that date_part recovers the fields
// make_timestamp was given, across the calendar including BC years.
func TestMakeTimestampRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		year := rapid.IntRange(-4000, 9999).Filter(func(y int) bool { return y != 0 }).Draw(t, "year")
		month := rapid.IntRange(1, 12).Draw(t, "month")
		day := rapid.IntRange(1, 28).Draw(t, "day")
		hour := rapid.IntRange(0, 23).Draw(t, "hour")
		minute := rapid.IntRange(0, 59).Draw(t, "minute")
		_, v, err := call("make_timestamp", args(i4(strconv.Itoa(year)), i4(strconv.Itoa(month)), i4(strconv.Itoa(day)),
			i4(strconv.Itoa(hour)), i4(strconv.Itoa(minute)), f8("1.25")))
		if err != nil {
			t.Fatal(err)
		}
		stamp := NewConst(v, types.TTimestamp)
		for unit, want := range map[string]float64{
			"year": float64(year), "month": float64(month), "day": float64(day),
			"hour": float64(hour), "minute": float64(minute), "second": 1.25,
		} {
			_, got, err := call("date_part", args(txt(unit), stamp))
			if err != nil || got.Float() != want {
				t.Fatalf("date_part(%s, %v) = %v, %v; want %v", unit, v, got, err, want)
			}
		}
		_, got, err := call("date_trunc", args(txt("day"), stamp))
		if err != nil || got.Micros() > v.Micros() || v.Micros()-got.Micros() >= microsPerDay {
			t.Fatalf("date_trunc(day, %v) = %v, %v", v, got, err)
		}
	})
}

// TestJustifyIntervalKeepsLength checks that justify_interval keeps an
// interval's length counted with 30-day months and 24-hour days.
func TestJustifyIntervalKeepsLength(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		iv := types.IntervalValue{
			Months: int32(rapid.IntRange(-1000, 1000).Draw(t, "months")),
			Days:   int32(rapid.IntRange(-1000, 1000).Draw(t, "days")),
			Micros: rapid.Int64Range(-1e12, 1e12).Draw(t, "micros"),
		}
		length := func(iv types.IntervalValue) int64 {
			return (int64(iv.Months)*30+int64(iv.Days))*microsPerDay + iv.Micros
		}
		_, v, err := call("justify_interval", args(NewConst(types.NewInterval(iv), types.TInterval)))
		if err != nil {
			t.Fatal(err)
		}
		r := v.Interval()
		if length(r) != length(iv) || r.Micros <= -microsPerDay || r.Micros >= microsPerDay || r.Days <= -30 || r.Days >= 30 {
			t.Fatalf("justify_interval(%v) = %v", iv, r)
		}
	})
}
