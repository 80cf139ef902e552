package pgbaseline

import "testing"

func TestNumericValue(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"708.0000000000000000", "708"},
		{"710.2500", "710.25"},
		{"700", "700"},
		{"0.000", "0"},
		{"-1.50", "-1.5"},
		{"NaN", "NaN"},
		{"1.0e5", "1.0e5"},
	} {
		if got := string(numericValue([]byte(tc.in))); got != tc.want {
			t.Errorf("numericValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
