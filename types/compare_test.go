package types

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestCompare(t *testing.T) {
	dec := func(s string) Datum {
		d, err := parseNumeric(s)
		if err != nil {
			t.Fatal(err)
		}
		return NewDecimal(d)
	}
	iv := func(m, d int32, us int64) Datum { return NewInterval(IntervalValue{m, d, us}) }
	nan := NewFloat(math.NaN())
	tests := []struct {
		a, b Datum
		want int
	}{
		{Null, NewInt(1), 1},
		{NewInt(1), Null, -1},
		{Null, Null, 0},
		{NewBool(false), NewBool(true), -1},
		{NewInt(1), NewFloat(1), 0},
		{NewInt(1), NewFloat(1.5), -1},
		{NewInt(-2), NewFloat(-1.5), -1},
		{NewInt(math.MaxInt64), NewFloat(math.Exp2(63)), -1},
		{NewInt(math.MinInt64), NewFloat(-math.Exp2(63)), 0},
		{NewInt(math.MaxInt64), nan, -1},
		{nan, NewFloat(math.Inf(1)), 1},
		{nan, nan, 0},
		{NewFloat(math.Copysign(0, -1)), NewFloat(0), 0},
		{dec("2.5"), dec("2.50"), 0},
		{dec("1"), NewInt(1), 0},
		{dec("0.1"), NewFloat(0.1), -1},
		{dec("NaN"), nan, 0},
		{dec("NaN"), dec("Infinity"), 1},
		{dec("-Infinity"), NewFloat(math.Inf(-1)), 0},
		{dec("99999999999999999999"), NewInt(math.MaxInt64), 1},
		{NewString("a"), NewString("b"), -1},
		{NewString("a"), NewString("ab"), -1},
		{NewString("Z"), NewString("a"), -1},
		{NewString("é"), NewString("z"), 1},
		{NewBytes([]byte{0}), NewBytes(nil), 1},
		{iv(1, 0, 0), iv(0, 30, 0), 0},
		{iv(0, 1, 0), iv(0, 0, usecsPerDay), 0},
		{iv(1, 0, 0), iv(0, 29, 25*usecsPerHour), -1},
		{iv(0, -1, 0), iv(0, 0, -usecsPerHour), -1},
		{NewDate(pgEpochDays + 1), NewTimestamp(usecsPerDay), 0},
		{NewDate(pgEpochDays + 1), NewTimestamp(usecsPerDay - 1), 1},
		{NewDate(DateTimeInfinity), NewTimestampTZ(DateTimeInfinity), 0},
		{NewDate(endDateDays - 1), NewTimestamp(endTimestamp - 1), 1},
		{NewDate(endTimestampDays), NewTimestamp(endTimestamp), 1},
		{NewDate(endTimestampDays - 1), NewTimestamp((endTimestampDays - 1 - pgEpochDays) * usecsPerDay), 0},
		{NewTimestamp(5), NewTimestampTZ(5), 0},
		{NewTime(1), NewTime(2), -1},
		{NewJSON(`{"a": 1}`), NewJSON(`{"a": 2}`), -1},
		{NewString("1"), NewInt(1), 1},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
	if Compare(NewDecimal(&apd.Decimal{Form: apd.NaN}), NewDecimal(&apd.Decimal{Form: apd.NaN})) != 0 {
		t.Error("numeric NaN must equal itself")
	}
}
