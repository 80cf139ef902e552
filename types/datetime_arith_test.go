package types

import (
	"fmt"
	"math"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// The expected results below are PostgreSQL 15's answers to the same
// expressions: the value's text, or "ERROR <SQLSTATE>: <message>".

var dateAddDaysTests = []struct {
	date string
	n    int64
	want string
}{
	{"2022-08-09", -2147483648, "ERROR 22008: date out of range"},
	{"2022-08-09", 2147483647, "ERROR 22008: date out of range"},
	{"2022-08-09", -2147483647, "ERROR 22008: date out of range"},
	{"2022-01-01", 1000000000, "2739929-01-04"},
	{"4714-11-24 BC", -1, "ERROR 22008: date out of range"},
	{"4714-11-24 BC", 0, "4714-11-24 BC"},
	{"4714-11-25 BC", -1, "4714-11-24 BC"},
	{"5874897-12-31", 1, "ERROR 22008: date out of range"},
	{"5874897-12-30", 1, "5874897-12-31"},
	{"4714-11-24 BC", 2147483493, "5874897-12-31"},
	{"4714-11-24 BC", 2147483494, "ERROR 22008: date out of range"},
	{"5874897-12-31", -2147483493, "4714-11-24 BC"},
	{"5874897-12-31", -2147483494, "ERROR 22008: date out of range"},
	{"infinity", 1, "infinity"},
	{"-infinity", -2147483647, "-infinity"},
	{"infinity", -2147483648, "infinity"},
}

var timestampIntervalTests = []struct {
	ts, op, iv string
	want       string
}{
	{"2022-08-09", "+", "1000000 years", "ERROR 22008: timestamp out of range"},
	{"2022-08-09", "+", "2147483647 days", "ERROR 22008: timestamp out of range"},
	{"2022-08-09", "-", "2147483647 months", "ERROR 22008: timestamp out of range"},
	{"2022-08-09", "+", "2147483647 months", "ERROR 22008: timestamp out of range"},
	{"2022-08-09", "+", "-2147483648 days", "ERROR 22008: timestamp out of range"},
	{"2022-08-09", "+", "9223372036854775807 microseconds", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "+", "-9223372036854775808 usec", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "-", "-9223372036854775808 usec", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "-", "-2147483648 days", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "-", "-2147483648 months", "ERROR 22008: timestamp out of range"},
	{"294276-12-31 23:59:59", "+", "1 day", "ERROR 22008: timestamp out of range"},
	{"294276-12-31 23:59:59.999998", "+", "1 usec", "294276-12-31 23:59:59.999999"},
	{"294276-12-31 23:59:59.999999", "+", "1 usec", "ERROR 22008: timestamp out of range"},
	{"294276-12-31 23:59:59.999999", "-", "-1 usec", "ERROR 22008: timestamp out of range"},
	{"294276-12-31 23:59:59.999999", "+", "0", "294276-12-31 23:59:59.999999"},
	{"294276-12-01", "+", "1 mon", "ERROR 22008: timestamp out of range"},
	{"294276-11-30 12:00", "+", "1 mon", "294276-12-30 12:00:00"},
	{"294276-01-31 12:00", "+", "1 mon", "294276-02-29 12:00:00"},
	{"294276-12-15", "+", "1 mon -20 days", "ERROR 22008: timestamp out of range"},
	{"294276-12-31", "+", "-298988 years -11 mons -7 days", "4713-01-24 00:00:00 BC"},
	{"294276-12-31", "+", "-298988 years -11 mons -6 days", "4713-01-25 00:00:00 BC"},
	{"4714-11-24 BC", "+", "-1 usec", "ERROR 22008: timestamp out of range"},
	{"4714-11-24 BC", "-", "1 day", "ERROR 22008: timestamp out of range"},
	{"4714-11-24 00:00:00.000001 BC", "-", "1 usec", "4714-11-24 00:00:00 BC"},
	{"4714-12-24 BC", "+", "-1 mon", "4714-11-24 00:00:00 BC"},
	{"4714-12-23 BC", "+", "-1 mon", "ERROR 22008: timestamp out of range"},
	{"4714-11-30 BC", "+", "1 mon", "4714-12-30 00:00:00 BC"},
	{"2000-01-01", "+", "106751982 days 23:59:59.999999", "294276-12-31 23:59:59.999999"},
	{"2000-01-01", "+", "106751983 days", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "+", "2562047788 hours", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "+", "-2451545 days", "4714-11-24 00:00:00 BC"},
	{"2000-01-01", "+", "-2451546 days", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "+", "106751984 days -24:00:00.000001", "ERROR 22008: timestamp out of range"},
	{"2000-01-01", "+", "-106751984 days 1000000000 hours", "ERROR 22008: timestamp out of range"},
	{"2024-01-31", "+", "1 mon", "2024-02-29 00:00:00"},
	{"2023-03-31", "-", "1 mon 1 day", "2023-02-27 00:00:00"},
	{"infinity", "+", "1 day", "infinity"},
	{"-infinity", "-", "2147483647 months", "-infinity"},
}

var timestampSubTests = []struct {
	a, b string
	want string
}{
	{"294276-12-31", "4713-01-01 BC", "-104300493 days -08:01:49.551616"},
	{"294276-12-31 23:59:59.999999", "2000-01-01", "106751982 days 23:59:59.999999"},
	{"4714-11-24 BC", "294276-12-31 23:59:59.999999", "104300454 days 08:01:49.551617"},
	{"294276-12-31 23:59:59.999999", "4714-11-24 BC", "-104300454 days -08:01:49.551617"},
	{"100000-01-01", "2000-01-01", "35793765 days"},
	{"147000-01-01", "4714-11-24 BC", "55411708 days"},
	{"150000-01-01", "4714-11-24 BC", "56507435 days"},
	{"4714-11-24 BC", "150000-01-01", "-56507435 days"},
	{"2022-08-09 10:00", "2022-08-08 11:30:00.5", "22:29:59.5"},
	{"infinity", "2000-01-01", "ERROR 22008: cannot subtract infinite timestamps"},
	{"2000-01-01", "-infinity", "ERROR 22008: cannot subtract infinite timestamps"},
}

var dateToTimestampTests = []struct{ date, want string }{
	{"294276-12-31", "294276-12-31 00:00:00"},
	{"294277-01-01", "ERROR 22008: date out of range for timestamp"},
	{"5874897-12-31", "ERROR 22008: date out of range for timestamp"},
	{"4714-11-24 BC", "4714-11-24 00:00:00 BC"},
	{"infinity", "infinity"},
	{"-infinity", "-infinity"},
}

var intervalAddSubTests = []struct {
	a, op, b string
	want     string
}{
	{"2147483647 days", "+", "1 day", "ERROR 22008: interval out of range"},
	{"2147483647 months", "+", "1 month", "ERROR 22008: interval out of range"},
	{"2147483647 months", "+", "-1 month", "178956970 years 6 mons"},
	{"-2147483648 months", "-", "1 month", "ERROR 22008: interval out of range"},
	{"-2147483648 days", "+", "-1 days", "ERROR 22008: interval out of range"},
	{"9223372036854775807 usec", "+", "1 usec", "ERROR 22008: interval out of range"},
	{"-9223372036854775807 usec", "-", "1 usec", "-2562047788:00:54.775808"},
	{"-9223372036854775807 usec", "-", "2 usec", "ERROR 22008: interval out of range"},
	{"-2147483648 days", "-", "1 day", "ERROR 22008: interval out of range"},
	{"1 day", "-", "-2147483648 days", "ERROR 22008: interval out of range"},
	{"-2147483647 days", "-", "1 day", "-2147483648 days"},
	{"1 year 2 mons 3 days 04:05:06", "-", "2 years -1 day 01:00:00", "-10 mons +4 days 03:05:06"},
}

var intervalNegTests = []struct{ iv, want string }{
	{"-2147483648 days", "ERROR 22008: interval out of range"},
	{"-2147483648 months", "ERROR 22008: interval out of range"},
	{"-9223372036854775808 usec", "ERROR 22008: interval out of range"},
	{"-2147483647 days", "2147483647 days"},
	{"-9223372036854775807 usec", "2562047788:00:54.775807"},
	{"2147483647 months 2147483647 days 9223372036854775807 usec", "-178956970 years -7 mons -2147483647 days -2562047788:00:54.775807"},
	{"1 mon -1 day 01:00:00", "-1 mons +1 day -01:00:00"},
}

var intervalScaleTests = []struct {
	iv, op string
	f      float64
	want   string
}{
	{"2147483647 months", "*", 2, "ERROR 22008: interval out of range"},
	{"1 day", "*", 1e300, "ERROR 22008: interval out of range"},
	{"2147483647 days", "/", 0.5, "ERROR 22008: interval out of range"},
	{"2147483647 months", "/", 0.5, "ERROR 22008: interval out of range"},
	{"9223372036854775807 microseconds", "/", 0.5, "ERROR 22008: interval out of range"},
	{"1 day", "/", 1e-300, "ERROR 22008: interval out of range"},
	{"1 month", "*", math.NaN(), "ERROR 22008: interval out of range"},
	{"1 month", "/", math.NaN(), "ERROR 22008: interval out of range"},
	{"1 month", "/", math.Inf(1), "00:00:00"},
	{"1 month", "*", math.Inf(1), "ERROR 22008: interval out of range"},
	{"1 mon 1 day 1 sec", "*", 0.3, "9 days 07:12:00.3"},
	{"1 mon 1 day 1 sec", "/", 7, "4 days 10:17:08.6896"},
	{"1 day", "/", 0, "ERROR 22012: division by zero"},
	{"-2147483648 months", "*", -1, "ERROR 22008: interval out of range"},
	{"2147483647 days 1000000 hours", "*", 1, "2147483647 days 1000000:00:00"},
	{"1 mon", "*", 2147483647.5, "178956970 years 7 mons 15 days"},
	{"29 days 23:59:59.9999999", "*", 1.00000001, "29 days 24:00:00.02592"},
	{"10000000 mons 2147483647 days", "*", 0.99999999, "ERROR 22008: interval out of range"},
	{"10000000 mons 2147483647 days", "/", 1.00000001, "ERROR 22008: interval out of range"},
	{"2147483647 days 23:00:00", "*", 1.0000000001, "2147483647 days 28:09:14.260262"},
	{"1 mon", "/", 3, "10 days"},
	{"-1 mon -1 day -1 sec", "*", 0.3, "-9 days -07:12:00.3"},
	{"7 mon 17 days 3 hours", "/", 1.7, "4 mons 13 days 14:28:14.137976"},
	{"1 year", "/", 7, "1 mon 21 days 10:17:08.5344"},
	{"1 day 00:00:00.000001", "*", 3.333, "3 days 07:59:31.200003"},
	{"29 days", "*", 1.0345, "30 days 00:00:43.2"},
	{"1 usec", "*", 9.3e18, "ERROR 22008: interval out of range"},
	{"1 usec", "*", -9.3e18, "ERROR 22008: interval out of range"},
	{"1 day", "*", -2147483648, "-2147483648 days"},
	{"1 day", "*", -2147483649, "ERROR 22008: interval out of range"},
	{"1 day", "/", math.Inf(-1), "00:00:00"},
}

var dateTimeInputTests = []struct{ typ, in, want string }{
	{"date", "4714-11-24 BC", "4714-11-24 BC"},
	{"date", "4714-11-23 BC", "ERROR 22008: date out of range: \"4714-11-23 BC\""},
	{"date", "5874897-12-31", "5874897-12-31"},
	{"date", "5874898-01-01", "ERROR 22008: date out of range: \"5874898-01-01\""},
	{"timestamp", "294276-12-31 23:59:59.999999", "294276-12-31 23:59:59.999999"},
	{"timestamp", "294277-01-01", "ERROR 22008: timestamp out of range: \"294277-01-01\""},
	{"timestamp", "4714-11-24 00:00:00 BC", "4714-11-24 00:00:00 BC"},
	{"timestamp", "4714-11-23 23:59:59.999999 BC", "ERROR 22008: timestamp out of range: \"4714-11-23 23:59:59.999999 BC\""},
	{"timestamp", "294276-12-31 24:00", "ERROR 22008: timestamp out of range: \"294276-12-31 24:00\""},
	{"timestamp", "4714-11-24 BC 24:00", "4714-11-25 00:00:00 BC"},
	{"timestamp", "99999999-01-01", "ERROR 22008: timestamp out of range: \"99999999-01-01\""},
	{"timestamp", "epoch", "1970-01-01 00:00:00"},
	{"timestamp(0)", "294276-12-31 23:59:59.999999", "294277-01-01 00:00:00"},
	{"timestamp(3)", "294276-12-31 23:59:59.9995", "294277-01-01 00:00:00"},
	{"timestamp(0)", "4714-11-24 00:00:00.4 BC", "4714-11-24 00:00:00 BC"},
	{"timestamptz", "294276-12-31 23:59:59.999999+00", "294276-12-31 23:59:59.999999+00"},
	{"timestamptz", "294276-12-31 23:59:59.999999-01", "ERROR 22008: timestamp out of range: \"294276-12-31 23:59:59.999999-01\""},
	{"timestamptz", "294277-01-01 00:59:59+01", "294276-12-31 23:59:59+00"},
	{"timestamptz", "294277-01-01 01:00:00+01", "ERROR 22008: timestamp out of range: \"294277-01-01 01:00:00+01\""},
	{"timestamptz", "4714-11-24 00:00:00+01 BC", "ERROR 22008: timestamp out of range: \"4714-11-24 00:00:00+01 BC\""},
	{"timestamptz", "4714-11-23 23:00:00-01 BC", "4714-11-24 00:00:00+00 BC"},
	{"timestamptz", "epoch", "1970-01-01 00:00:00+00"},
	{"interval", "-9223372036854775808 usec", "-2562047788:00:54.775808"},
	{"interval", "-9223372036854775808 usec ago", "ERROR 22015: interval field value out of range: \"-9223372036854775808 usec ago\""},
	{"interval", "-2147483648 days ago", "ERROR 22015: interval field value out of range: \"-2147483648 days ago\""},
	{"interval", "-2147483648 months ago", "ERROR 22015: interval field value out of range: \"-2147483648 months ago\""},
	{"interval", "-9223372036854775808.5 usec", "-2562047788:00:54.775808"},
	{"interval", "-01:60:00", "ERROR 22007: invalid input syntax for type interval: \"-01:60:00\""},
	{"interval", "+2562047788:00:54.775808", "ERROR 22007: invalid input syntax for type interval: \"+2562047788:00:54.775808\""},
	{"interval", "2562047788:00:54.775808", "ERROR 22015: interval field value out of range: \"2562047788:00:54.775808\""},
	{"interval", "-2562047788:00:54.775807", "-2562047788:00:54.775807"},
	{"interval", "-178956970 years -8 months ago", "ERROR 22008: interval out of range"},
}

// checkDateTimeResult compares a result with PostgreSQL's answer.
func checkDateTimeResult(t *testing.T, what string, typ T, d Datum, err error, want string) {
	t.Helper()
	got := ""
	if err != nil {
		e := pgerror.From(err)
		got = fmt.Sprintf("ERROR %s: %s", e.Code, e.Message)
	} else {
		got = string(FormatText(nil, typ, d))
	}
	if got != want {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// mustParseText parses a test input.
func mustParseText(t *testing.T, typ T, s string) Datum {
	t.Helper()
	d, err := ParseText(typ, s)
	if err != nil {
		t.Fatalf("ParseText(%s, %q): %v", typ, s, err)
	}
	return d
}

func TestDateAddDays(t *testing.T) {
	for _, c := range dateAddDaysTests {
		d, err := DateAddDays(mustParseText(t, TDate, c.date).Date(), c.n)
		checkDateTimeResult(t, fmt.Sprintf("date '%s' + %d", c.date, c.n), TDate, d, err, c.want)
	}
}

func TestTimestampInterval(t *testing.T) {
	for _, c := range timestampIntervalTests {
		ts, iv := mustParseText(t, TTimestamp, c.ts).Micros(), mustParseText(t, TInterval, c.iv).Interval()
		add := TimestampAddInterval
		if c.op == "-" {
			add = TimestampSubInterval
		}
		r, err := add(ts, iv)
		checkDateTimeResult(t, fmt.Sprintf("timestamp '%s' %s interval '%s'", c.ts, c.op, c.iv), TTimestamp, NewTimestamp(r), err, c.want)
	}
}

func TestTimestampSub(t *testing.T) {
	for _, c := range timestampSubTests {
		iv, err := TimestampSub(mustParseText(t, TTimestamp, c.a).Micros(), mustParseText(t, TTimestamp, c.b).Micros())
		checkDateTimeResult(t, fmt.Sprintf("timestamp '%s' - timestamp '%s'", c.a, c.b), TInterval, NewInterval(iv), err, c.want)
	}
}

func TestDateToTimestamp(t *testing.T) {
	for _, c := range dateToTimestampTests {
		ts, err := DateToTimestamp(mustParseText(t, TDate, c.date).Date())
		checkDateTimeResult(t, fmt.Sprintf("date '%s'::timestamp", c.date), TTimestamp, NewTimestamp(ts), err, c.want)
		// Casts go the same way.
		d, err := Cast(mustParseText(t, TDate, c.date), TDate, TTimestamp)
		checkDateTimeResult(t, fmt.Sprintf("cast(date '%s' as timestamp)", c.date), TTimestamp, d, err, c.want)
	}
}

func TestIntervalArithmetic(t *testing.T) {
	for _, c := range intervalAddSubTests {
		a, b := mustParseText(t, TInterval, c.a).Interval(), mustParseText(t, TInterval, c.b).Interval()
		op := a.Add
		if c.op == "-" {
			op = a.Sub
		}
		iv, err := op(b)
		checkDateTimeResult(t, fmt.Sprintf("interval '%s' %s interval '%s'", c.a, c.op, c.b), TInterval, NewInterval(iv), err, c.want)
	}
	for _, c := range intervalNegTests {
		iv, err := mustParseText(t, TInterval, c.iv).Interval().Neg()
		checkDateTimeResult(t, fmt.Sprintf("-interval '%s'", c.iv), TInterval, NewInterval(iv), err, c.want)
	}
	for _, c := range intervalScaleTests {
		a := mustParseText(t, TInterval, c.iv).Interval()
		op := a.Mul
		if c.op == "/" {
			op = a.Div
		}
		iv, err := op(c.f)
		checkDateTimeResult(t, fmt.Sprintf("interval '%s' %s %g", c.iv, c.op, c.f), TInterval, NewInterval(iv), err, c.want)
	}
}

func TestDateTimeInputRange(t *testing.T) {
	for _, c := range dateTimeInputTests {
		typ, err := ParseTypeName(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseText(typ, c.in)
		checkDateTimeResult(t, fmt.Sprintf("'%s'::%s", c.in, c.typ), typ, d, err, c.want)
	}
}

// Binary input takes PostgreSQL's values and range.
func TestDateTimeBinaryRange(t *testing.T) {
	be := func(v int64, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(v >> (8 * (n - 1 - i)))
		}
		return b
	}
	for _, c := range []struct {
		typ  T
		src  []byte
		want string
	}{
		{TTimestamp, be(endTimestamp-1, 8), "294276-12-31 23:59:59.999999"},
		{TTimestamp, be(endTimestamp, 8), "ERROR 22008: timestamp out of range"},
		{TTimestampTZ, be(minTimestamp, 8), "4714-11-24 00:00:00+00 BC"},
		{TTimestampTZ, be(minTimestamp-1, 8), "ERROR 22008: timestamp out of range"},
		{TTimestamp, be(math.MaxInt64, 8), "infinity"},
		{TDate, be(endDateDays-pgEpochDays-1, 4), "5874897-12-31"},
		{TDate, be(endDateDays-pgEpochDays, 4), "ERROR 22008: date out of range"},
		{TDate, be(minDateDays-pgEpochDays-1, 4), "ERROR 22008: date out of range"},
	} {
		d, err := DecodeBinary(c.typ, c.src)
		checkDateTimeResult(t, fmt.Sprintf("%s from %x", c.typ, c.src), c.typ, d, err, c.want)
		if err == nil {
			if back, _ := EncodeBinary(nil, c.typ, d); string(back) != string(c.src) {
				t.Errorf("%s %s encodes as %x, want %x", c.typ, c.want, back, c.src)
			}
		}
	}
}

func TestIntervalSum(t *testing.T) {
	type step struct {
		iv      string
		retract bool
	}
	for _, c := range []struct {
		steps []step
		want  string
	}{
		{[]step{{"2147483647 days", false}, {"1 day", false}}, "ERROR 22008: interval out of range"},
		{[]step{{"2147483647 days", false}, {"1 day", false}, {"1 day", true}}, "2147483647 days"},
		{[]step{{"-2147483648 months", false}, {"1 mon", true}, {"-1 mon", true}}, "-178956970 years -8 mons"},
		{[]step{{"9223372036854775807 usec", false}, {"1 usec", false}}, "ERROR 22008: interval out of range"},
		{[]step{{"9223372036854775807 usec", false}, {"1 usec", false}, {"1 usec", true}}, "2562047788:00:54.775807"},
		{[]step{{"1 usec", false}, {"-9223372036854775808 usec", true}}, "ERROR 22008: interval out of range"},
		{[]step{{"-1 usec", false}, {"-9223372036854775808 usec", true}}, "2562047788:00:54.775807"},
		{[]step{{"-9223372036854775808 usec", false}, {"-9223372036854775808 usec", false}, {"-9223372036854775808 usec", true}}, "-2562047788:00:54.775808"},
	} {
		var s IntervalSum
		for _, st := range c.steps {
			s.Add(mustParseText(t, TInterval, st.iv).Interval(), st.retract)
		}
		iv, err := s.Interval()
		checkDateTimeResult(t, fmt.Sprint(c.steps), TInterval, NewInterval(iv), err, c.want)
	}
}
