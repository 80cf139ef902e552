package planner

import "testing"

func TestCheckDistinctOn(t *testing.T) {
	keys := func(cols ...int) []SortKey {
		out := make([]SortKey, len(cols))
		for i, c := range cols {
			out[i] = SortKey{Col: c}
		}
		return out
	}
	tests := []struct {
		name      string
		on, order []SortKey
		ok        bool
	}{
		{"no order by", keys(0), nil, true},
		{"same keys", keys(0, 1), keys(0, 1), true},
		{"other order of the same keys", keys(1, 0), keys(0, 1), true},
		{"more keys after", keys(0), keys(0, 2, 3), true},
		{"order by a prefix of the keys", keys(0, 1), keys(0), true},
		{"a key after another column", keys(0), keys(2, 0), false},
		{"a key missing before another column", keys(0, 1), keys(0, 2), false},
		{"no key ordered", keys(0), keys(2), false},
	}
	for _, tt := range tests {
		if err := checkDistinctOn(tt.on, tt.order); (err == nil) != tt.ok {
			t.Errorf("%s: got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
