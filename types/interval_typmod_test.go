package types

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestIntervalTypmod checks interval type names against PostgreSQL 15's
// typmods (pg_attribute.atttypmod) and format_type.
func TestIntervalTypmod(t *testing.T) {
	tests := []struct {
		name string
		mod  int32
		str  string
	}{
		{"interval", -1, "interval"},
		{"INTERVAL YEAR", 327679, "interval year"},
		{"interval month", 196607, "interval month"},
		{"interval day", 589823, "interval day"},
		{"interval hour", 67174399, "interval hour"},
		{"interval minute", 134283263, "interval minute"},
		{"interval second", 268500991, "interval second"},
		{"interval year to month", 458751, "interval year to month"},
		{"interval day to hour", 67698687, "interval day to hour"},
		{"interval day to minute", 201916415, "interval day to minute"},
		{"interval day to second", 470351871, "interval day to second"},
		{"interval hour to minute", 201392127, "interval hour to minute"},
		{"interval hour to second", 469827583, "interval hour to second"},
		{"interval minute to second", 402718719, "interval minute to second"},
		{"interval(3)", 2147418115, "interval(3)"},
		{"interval second(2)", 268435458, "interval second(2)"},
		{"interval day to second(0)", 470286336, "interval day to second(0)"},
		{"interval minute to second (1)", 402653185, "interval minute to second(1)"},
		{"interval(9)", 2147418118, "interval(6)"},
	}
	for _, tt := range tests {
		typ, err := ParseTypeName(tt.name)
		if err != nil || typ.Family != Interval || typ.Mod != tt.mod || typ.WireMod() != tt.mod || typ.String() != tt.str {
			t.Errorf("ParseTypeName(%q) = %v (mod %d), %v; want mod %d, %q", tt.name, typ, typ.Mod, err, tt.mod, tt.str)
			continue
		}
		if back, err := ParseTypeName(typ.String()); err != nil || back != typ {
			t.Errorf("%q does not read back: %v, %v", typ.String(), back, err)
		}
	}
	for _, bad := range []struct{ in, code string }{
		{"interval year(2)", "42601"}, {"interval(1,2)", "42601"}, {"interval(-1)", "42601"},
		{"interval year to day", "42704"}, {"interval second to minute", "42704"},
	} {
		if _, err := ParseTypeName(bad.in); pgerror.From(err).Code != bad.code {
			t.Errorf("ParseTypeName(%q) = %v, want %s", bad.in, err, bad.code)
		}
	}
}

// TestIntervalInputTypmod checks interval input and casts under a typmod
// against PostgreSQL 15's answers.
func TestIntervalInputTypmod(t *testing.T) {
	tests := []struct{ typ, in, want string }{
		{"interval year", "1", "1 year"},
		{"interval year to month", "1", "1 mon"},
		{"interval day to hour", "1", "01:00:00"},
		{"interval minute to second", "1", "00:00:01"},
		{"interval year", "1.5", "1 year"},
		{"interval day to hour", "1.5", "01:00:00"},
		{"interval day to hour", "1 2", "1 day 02:00:00"},
		{"interval day to minute", "1 2:03", "1 day 02:03:00"},
		{"interval minute to second", "1:2", "00:01:02"},
		{"interval hour to second", "1:2", "01:02:00"},
		{"interval year to month", "1-2", "1 year 2 mons"},
		{"interval hour to minute", "1:2.5", "00:01:00"},
		{"interval minute to second", "1 1:2", "1 day 00:01:02"},
		{"interval(2)", "1.2345", "00:00:01.23"},
		{"interval(2)", "-1.235", "-00:00:01.24"},
		{"interval hour", "1.5 years 3.5 days", "1 year 6 mons 3 days 12:00:00"},
		{"interval second", "1 day", "1 day"},
		{"interval day", "1 mon 1 day 1 hour", "1 mon 1 day"},
		{"interval year", "-1 year 14 mons -40 days 25:59:59.5", "00:00:00"},
		{"interval day to second(0)", "25:59:59.5", "26:00:00"},
		{"interval hour to minute", "P1Y2M3DT4H5M6.789S", "1 year 2 mons 3 days 04:05:00"},
	}
	for _, tt := range tests {
		typ, err := ParseTypeName(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseText(typ, tt.in)
		if err != nil {
			t.Errorf("'%s'::%s: %v", tt.in, tt.typ, err)
			continue
		}
		if got := string(FormatText(nil, typ, d)); got != tt.want {
			t.Errorf("'%s'::%s = %s, want %s", tt.in, tt.typ, got, tt.want)
		}
	}
	// interval_scale: a cast from interval applies the typmod alone.
	casts := []struct{ typ, in, want string }{
		{"interval hour", "1 day 2 hours 30 min", "1 day 02:00:00"},
		{"interval year", "1 year 5 mons", "1 year"},
		{"interval minute", "-1 mon -2 days -03:04:05.6", "-1 mons -2 days -03:04:00"},
		{"interval second(1)", "12:34:56.789", "12:34:56.8"},
		{"interval(0)", "-00:00:00.5", "-00:00:01"},
	}
	for _, tt := range casts {
		typ, _ := ParseTypeName(tt.typ)
		full, err := ParseText(TInterval, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := Cast(full, TInterval, typ); err != nil || string(FormatText(nil, typ, c)) != tt.want {
			t.Errorf("'%s'::interval::%s = %s, %v; want %s", tt.in, tt.typ, FormatText(nil, typ, c), err, tt.want)
		}
	}
	for _, bad := range []struct{ typ, in string }{
		{"interval day to second", "1 2"}, {"interval minute to second", "61:2"},
	} {
		typ, _ := ParseTypeName(bad.typ)
		if _, err := ParseText(typ, bad.in); err == nil {
			t.Errorf("'%s'::%s: no error", bad.in, bad.typ)
		}
	}
}
