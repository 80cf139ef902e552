package types

import "testing"

// TestJSONOps checks the jsonb operations on values PostgreSQL 15 answers
// the same way (tests/conformance compares them with a live server).
func TestJSONOps(t *testing.T) {
	j := func(s string) JSON {
		t.Helper()
		v, err := ParseJSON(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	text := func(v JSON) string { return v.Datum().Str() }
	for _, tc := range []struct {
		name, got, want string
	}{
		{"concat objects", text(Concat(j(`{"a":1,"b":2}`), j(`{"b":3,"c":4}`))), `{"a": 1, "b": 3, "c": 4}`},
		{"concat array scalar", text(Concat(j(`[1]`), j(`2`))), `[1, 2]`},
		{"set nested", text(must(j(`{"a":{"b":1}}`).Set([]string{"a", "b"}, j(`[2]`), true))), `{"a": {"b": [2]}}`},
		{"set create", text(must(j(`{"a":1}`).Set([]string{"aa"}, j(`2`), true))), `{"a": 1, "aa": 2}`},
		{"set past end", text(must(j(`[1]`).Set([]string{"9"}, j(`2`), true))), `[1, 2]`},
		{"delete path", text(must(j(`{"a":[1,2,3]}`).DeletePath([]string{"a", "-1"}))), `{"a": [1, 2]}`},
		{"strip nulls", text(j(`{"a":null,"b":[null,{"c":null}]}`).StripNulls()), `{"b": [null, {}]}`},
		{"object order", text(JSONObject([]string{"bb", "a", "a"}, []JSON{j(`1`), j(`2`), j(`3`)})), `{"a": 3, "bb": 1}`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":{"c":2}}`, `{"b":{}}`, true},
		{`[1,[2,3]]`, `[[3]]`, true},
		{`[1,[2,3]]`, `[3]`, false},
		{`[1,2]`, `2`, true},
		{`{"a":[1,2]}`, `{"a":1}`, false},
		{`"a"`, `"a"`, true},
	} {
		if got := j(tc.a).Contains(j(tc.b)); got != tc.want {
			t.Errorf("%s @> %s = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func must(j JSON, err error) JSON {
	if err != nil {
		panic(err)
	}
	return j
}
