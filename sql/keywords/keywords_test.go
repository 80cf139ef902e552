package keywords

import "testing"

// TestOf checks categories against PostgreSQL 15's pg_get_keywords.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		word string
		want Category
	}{
		{"select", Reserved},
		{"user", Reserved},
		{"between", ColName},
		{"int", ColName},
		{"left", TypeFuncName},
		{"similar", TypeFuncName},
		{"abort", Unreserved},
		{"system_user", Unreserved}, // a keyword from PostgreSQL 16 on
		{"foo", Unreserved},
		{"SELECT", Unreserved}, // words are lowercase
	} {
		if got := Of(c.word); got != c.want {
			t.Errorf("Of(%q) = %c, want %c", c.word, got, c.want)
		}
	}
	if n := len(Words(Reserved)) + len(Words(ColName)) + len(Words(TypeFuncName)); n != 77+51+23 {
		t.Errorf("%d keywords, PostgreSQL 15 has 151 that are not unreserved", n)
	}
}
