package sqllogic

import (
	"strings"
	"testing"
)

func TestLabels(t *testing.T) {
	l := labels{}
	steps := []struct {
		label, hash, where string
		wantErr            string
	}{
		{"", "h0", "f:1", ""},
		{"label-1", "h1", "f:2", ""},
		{"label-1", "h1", "f:5", ""},
		{"label-2", "h1", "f:7", ""},
		{"label-1", "h2", "f:9", "results differ from those of f:2, which has the same label label-1"},
		{"label-1", "h1", "f:11", ""}, // a mismatch does not replace the first result
	}
	for _, s := range steps {
		err := l.check(s.label, s.hash, s.where)
		if (err == nil) != (s.wantErr == "") || (err != nil && !strings.Contains(err.Error(), s.wantErr)) {
			t.Errorf("check(%q, %q) = %v, want %q", s.label, s.hash, err, s.wantErr)
		}
	}
}
