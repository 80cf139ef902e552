package types

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestJSONPath(t *testing.T) {
	doc := `{"a": [1, 2, {"b": 3}], "o": {"x": 1, "y": [4, 5]}, "k y": true}`
	for _, tc := range []struct {
		path, want string // items joined by " ", or "error CODE"
	}{
		{"$", doc},
		{"$.a", "[1, 2, {\"b\": 3}]"},
		{"$.a[*]", `1 2 {"b": 3}`},
		{"$.a.b", "3"},
		{"strict $.a.b", "error 2203A"},
		{"$.o.*", "1 [4, 5]"},
		{"$.o.y[last]", "5"},
		{"$.o.y[last - 1]", "4"},
		{"$.a[0 to 1]", "1 2"},
		{"$.a[2, 0]", `{"b": 3} 1`},
		{"$.a[9]", ""},
		{"strict $.a[9]", "error 22033"},
		{`$."k y"`, "true"},
		{"$.nope", ""},
		{"strict $.nope", "error 2203A"},
		{"$.o.x[0]", "1"},
		{"strict $.o.x[*]", "error 22039"},
		{"$.a ? (@ > 1)", "error 0A000"},
		{"$.a.size()", "error 0A000"},
		{"$.", "error 42601"},
		{"a", "error 42601"},
	} {
		got := ""
		p, err := ParseJSONPath(tc.path)
		var items []JSON
		if err == nil {
			j, _ := ParseJSON(doc)
			items, err = p.Query(j)
		}
		if err != nil {
			got = "error " + pgerror.Code(err)
		} else {
			var parts []string
			for _, it := range items {
				parts = append(parts, it.Datum().Str())
			}
			got = strings.Join(parts, " ")
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
}
