package types

import "testing"

// TestZones checks TimeZone settings and timestamptz text in them against
// what PostgreSQL 15 prints, DST transitions included.
func TestZones(t *testing.T) {
	for _, tc := range []struct {
		zone, show string
		in, out    string // a timestamptz typed in the zone, and its text
	}{
		{"UTC", "UTC", "2024-01-01 12:00", "2024-01-01 12:00:00+00"},
		{"america/new_york", "America/New_York", "2024-07-01 12:00", "2024-07-01 12:00:00-04"},
		// A time the spring jump skips takes the offset before it; one the
		// autumn jump repeats the offset after it.
		{"America/New_York", "America/New_York", "2024-03-10 02:30", "2024-03-10 03:30:00-04"},
		{"America/New_York", "America/New_York", "2024-11-03 01:30", "2024-11-03 01:30:00-05"},
		{"America/New_York", "America/New_York", "2024-11-03 01:30-04", "2024-11-03 01:30:00-04"},
		{"+05:30", "+05:30", "2024-01-01 12:00", "2024-01-01 12:00:00-05:30"},
		{"UTC+3", "UTC+3", "2024-01-01 12:00", "2024-01-01 12:00:00-03"},
		{"<+05:30>-05:30", "<+05:30>-05:30", "2024-01-01 12:00", "2024-01-01 12:00:00+05:30"},
		{"Europe/Lisbon", "Europe/Lisbon", "1900-01-01 00:00", "1900-01-01 00:00:00-00:36:45"},
		{"Asia/Kolkata", "Asia/Kolkata", "2024-01-01 00:00+00", "2024-01-01 05:30:00+05:30"},
		{"EST5EDT", "EST5EDT", "2024-07-01 00:00", "2024-07-01 00:00:00-04"},
		// Names match in any letter case, and show as the database writes them.
		{"us/pacific", "US/Pacific", "2022-01-01 00:00", "2022-01-01 00:00:00-08"},
		{"america/port-au-prince", "America/Port-au-Prince", "2024-01-01 00:00", "2024-01-01 00:00:00-05"},
		{"pst8pdt", "PST8PDT", "2024-01-01 00:00", "2024-01-01 00:00:00-08"},
	} {
		loc, show, err := ParseZone(tc.zone)
		if err != nil {
			t.Errorf("%s: %v", tc.zone, err)
			continue
		}
		if show != tc.show {
			t.Errorf("%s shows as %q, want %q", tc.zone, show, tc.show)
		}
		d, err := ParseTextZone(TTimestampTZ, tc.in, loc)
		if err != nil {
			t.Errorf("%s: %s: %v", tc.zone, tc.in, err)
			continue
		}
		if got := string(FormatTextZone(nil, TTimestampTZ, d, loc)); got != tc.out {
			t.Errorf("%s: %s prints %q, want %q", tc.zone, tc.in, got, tc.out)
		}
	}
	if _, _, err := ParseZone("Mars/Phobos"); err == nil {
		t.Error("Mars/Phobos is a zone")
	}
	for in, want := range map[string]string{"+05:30": "<+05:30>-05:30", "-7": "<-07>+07", "5.5": "<+05:30>-05:30", "0": "<+00>-00"} {
		if got, err := ISOZone(in); err != nil || got != want {
			t.Errorf("ISOZone(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
}
