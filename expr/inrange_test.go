package expr

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestInRange checks in_range against PostgreSQL 15's answers
// (SELECT in_range(val, base, offset, sub, less)).
func TestInRange(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ, offType    types.T
		val, base, off  string
		sub, less, want bool
		loc             *time.Location
		code            string
	}{
		{typ: types.TInt4, offType: types.TInt4, val: "1", base: "2", off: "1", sub: true, want: true},
		{typ: types.TInt4, offType: types.TInt4, val: "0", base: "2", off: "1", sub: true},
		{typ: types.TInt4, offType: types.TInt4, val: "3", base: "2", off: "1", less: true, want: true},
		{typ: types.TInt4, offType: types.TInt4, val: "4", base: "2", off: "1", less: true},
		// Past the type's range: beyond every value.
		{typ: types.TInt8, offType: types.TInt8, val: "-9223372036854775808", base: "-9223372036854775808", off: "1", sub: true, want: true},
		{typ: types.TInt8, offType: types.TInt8, val: "9223372036854775807", base: "9223372036854775807", off: "1", less: true, want: true},
		{typ: types.TInt8, offType: types.TInt8, val: "9223372036854775807", base: "9223372036854775807", off: "1", sub: true, less: true},
		{typ: types.TInt4, offType: types.TInt4, val: "1", base: "1", off: "-1", code: pgerror.CodeInvalidPrecedingFollowing},
		// Floats: NaN above every number, infinite offsets.
		{typ: types.TFloat8, offType: types.TFloat8, val: "NaN", base: "1", off: "1", want: true},
		{typ: types.TFloat8, offType: types.TFloat8, val: "NaN", base: "1", off: "1", less: true},
		{typ: types.TFloat8, offType: types.TFloat8, val: "1", base: "NaN", off: "1", less: true, want: true},
		{typ: types.TFloat8, offType: types.TFloat8, val: "-Infinity", base: "Infinity", off: "Infinity", sub: true, less: true, want: true},
		{typ: types.TFloat8, offType: types.TFloat8, val: "5", base: "1", off: "Infinity", less: true, want: true},
		{typ: types.TFloat8, offType: types.TFloat8, val: "5", base: "1", off: "NaN", code: pgerror.CodeInvalidPrecedingFollowing},
		// Numeric with its infinities.
		{typ: types.TNumeric, offType: types.TNumeric, val: "2.5", base: "1", off: "1.5", less: true, want: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "2.6", base: "1", off: "1.5", less: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "-Infinity", base: "1", off: "Infinity", sub: true, less: true, want: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "5", base: "1", off: "Infinity", sub: true, less: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "5", base: "Infinity", off: "Infinity", sub: true, less: true, want: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "Infinity", base: "1", off: "1", want: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "NaN", base: "NaN", off: "1", less: true, want: true},
		{typ: types.TNumeric, offType: types.TNumeric, val: "1", base: "1", off: "-Infinity", code: pgerror.CodeInvalidPrecedingFollowing},
		// Dates and timestamps with intervals.
		{typ: types.TDate, offType: types.TInterval, val: "2024-02-29", base: "2024-01-31", off: "1 month", less: true, want: true},
		{typ: types.TDate, offType: types.TInterval, val: "2024-03-01", base: "2024-01-31", off: "1 month", less: true},
		{typ: types.TTimestamp, offType: types.TInterval, val: "2024-01-01 09:00", base: "2024-01-01 10:00", off: "1 hour", sub: true, want: true},
		{typ: types.TTimestamp, offType: types.TInterval, val: "2024-01-01 09:00", base: "2024-01-01 10:00", off: "-1 hour", sub: true, code: pgerror.CodeInvalidPrecedingFollowing},
		{typ: types.TTimestamp, offType: types.TInterval, val: "2024-01-01", base: "2024-01-01", off: "290000 years", sub: true, code: pgerror.CodeDatetimeFieldOverflow},
		// One day back across the DST change is 23 hours in New York.
		{typ: types.TTimestampTZ, offType: types.TInterval, val: "2024-03-09 11:30-05", base: "2024-03-10 12:00-04", off: "1 day", sub: true, loc: ny},
		{typ: types.TTimestampTZ, offType: types.TInterval, val: "2024-03-09 11:30-05", base: "2024-03-10 12:00-04", off: "24 hours", sub: true, loc: ny, want: true},
		// Times: the offset's time part only, without wrapping.
		{typ: types.TTime, offType: types.TInterval, val: "23:00", base: "01:00", off: "1 day 3 hours", sub: true, less: true, want: false},
		{typ: types.TTime, offType: types.TInterval, val: "00:00", base: "01:00", off: "-1 day 3 hours", sub: true, want: true},
		{typ: types.TTime, offType: types.TInterval, val: "00:00", base: "01:00", off: "1 day -3 hours", code: pgerror.CodeInvalidPrecedingFollowing},
		{typ: types.TInterval, offType: types.TInterval, val: "2 hours", base: "1 hour", off: "1 hour", less: true, want: true},
	}
	for _, tt := range tests {
		parse := func(ty types.T, s string) types.Datum {
			d, err := types.ParseTextZone(ty, s, tt.loc)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			return d
		}
		c := &Ctx{Loc: tt.loc}
		got, err := InRange(c, parse(tt.typ, tt.val), parse(tt.typ, tt.base), parse(tt.offType, tt.off), tt.sub, tt.less)
		if code := pgerror.Code(err); code != tt.code || err == nil && got != tt.want {
			t.Errorf("in_range(%s %s, %s, %s, %v, %v) = %v, %v; want %v, %q", tt.typ, tt.val, tt.base, tt.off, tt.sub, tt.less, got, err, tt.want, tt.code)
		}
	}
}

// TestInRangeOffsetType checks how PostgreSQL picks the offset type of a
// RANGE frame.
func TestInRangeOffsetType(t *testing.T) {
	tests := []struct {
		col, off types.T
		want     types.T
		msg      string
	}{
		{col: types.TInt2, off: types.TInt4, want: types.TInt4},
		{col: types.TInt4, off: types.TUnknown, want: types.TInt4},
		{col: types.TInt8, off: types.TInt2, want: types.TInt8},
		{col: types.TFloat4, off: types.TInt4, want: types.TFloat8},
		{col: types.TNumeric, off: types.TInt8, want: types.TNumeric},
		{col: types.TTimestampTZ, off: types.TUnknown, want: types.TInterval},
		{col: types.TInt4, off: types.TNumeric, msg: "RANGE with offset PRECEDING/FOLLOWING is not supported for column type integer and offset type numeric"},
		{col: types.TDate, off: types.TInt4, msg: "RANGE with offset PRECEDING/FOLLOWING is not supported for column type date and offset type integer"},
		{col: types.T{Family: types.Varchar, Mod: 14}, off: types.TInt4, msg: "RANGE with offset PRECEDING/FOLLOWING is not supported for column type text"},
	}
	for _, tt := range tests {
		got, err := InRangeOffsetType(tt.col, tt.off)
		if tt.msg != "" {
			if e := pgerror.From(err); err == nil || e.Code != pgerror.CodeFeatureNotSupported || e.Message != tt.msg {
				t.Errorf("InRangeOffsetType(%s, %s) error %v, want %q", tt.col, tt.off, err, tt.msg)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("InRangeOffsetType(%s, %s) = %s, %v; want %s", tt.col, tt.off, got, err, tt.want)
		}
	}
}
