package sqllogic

import (
	"os"
	"strings"
	"testing"
)

func TestSubstitute(t *testing.T) {
	t.Setenv("SQLLOGIC_TEST_ENV", "from-env")
	s := substituter{database: "dev"}
	s.set("state_table", "__internal_7")
	s.set("id", "42")
	tests := []struct{ in, want, wantErr string }{
		{"SELECT 1", "SELECT 1", ""},
		{"SELECT * FROM ${state_table}", "SELECT * FROM __internal_7", ""},
		{"WHERE id = $id AND x", "WHERE id = 42 AND x", ""},
		{"'[' || $id || ']'", "'[' || 42 || ']'", ""},
		{"${SQLLOGIC_TEST_ENV}/$SQLLOGIC_TEST_ENV", "from-env/from-env", ""},
		{"${__DATABASE__}", "dev", ""},
		{"${missing:fallback}", "fallback", ""},
		{"${id:fallback}", "42", ""},
		{`cost \$5`, "cost $5", ""},
		{"SELECT $1, $$body$$, 5$", "SELECT $1, $$body$$, 5$", ""},
		{"SELECT $missing", "", "undefined variable $missing"},
		{"SELECT ${missing}", "", "undefined variable $missing"},
		{"SELECT ${id", "", "unterminated"},
	}
	for _, tc := range tests {
		got, err := s.expand(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("expand(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestSubstituteTestDirAndNow(t *testing.T) {
	var s substituter
	dir, err := s.expand("${__TEST_DIR__}")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.expand("$__TEST_DIR__"); again != dir {
		t.Errorf("__TEST_DIR__ changed from %q to %q", dir, again)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("__TEST_DIR__ %q is not a directory: %v", dir, err)
	}
	s.close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("__TEST_DIR__ %q still exists after close: %v", dir, err)
	}
	now, err := s.expand("${__NOW__}")
	if err != nil || now == "" || strings.Trim(now, "0123456789") != "" {
		t.Errorf("__NOW__ = %q, %v; want digits", now, err)
	}
}
