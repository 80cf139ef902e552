package sqllogic

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const knownList = `# comment
[sqlite-vs-pg: empty IN list]
sqlite/test/evidence/in2.test:81
sqlite/test/evidence/in2.test:88

[missing: triggers]
sqlite/test/evidence/slt_lang_createtrigger.test:24
`

// TestKnownFailuresCheck checks a run against a list both ways: unlisted
// failures and listed records that passed are reported; listed failures
// count under their reasons; paths match by their trailing components.
func TestKnownFailuresCheck(t *testing.T) {
	k, err := parseKnownFailures("list", strings.NewReader(knownList))
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Files: []FileResult{
		{Path: "corpus/sqlite/test/evidence/in2.test", Outcomes: map[string]bool{
			"corpus/sqlite/test/evidence/in2.test:81":  false, // listed, fails
			"corpus/sqlite/test/evidence/in2.test:88":  true,  // listed, passes now
			"corpus/sqlite/test/evidence/in2.test:100": false, // not listed
			"corpus/sqlite/test/evidence/in2.test:9":   true,
		}},
		{Path: "corpus/sqlite/test/evidence/slt_lang_createtrigger.test", Outcomes: map[string]bool{
			"corpus/sqlite/test/evidence/slt_lang_createtrigger.test:24": false,
		}},
	}}
	v := k.Check(res)
	if want := []string{"corpus/sqlite/test/evidence/in2.test:100"}; !slices.Equal(v.Unexpected, want) {
		t.Errorf("unexpected = %v, want %v", v.Unexpected, want)
	}
	if want := []string{"sqlite/test/evidence/in2.test:88"}; !slices.Equal(v.Fixed, want) {
		t.Errorf("fixed = %v, want %v", v.Fixed, want)
	}
	want := []ReasonCount{{"sqlite-vs-pg: empty IN list", 1}, {"missing: triggers", 1}}
	if !slices.Equal(v.Failing, want) {
		t.Errorf("failing = %v, want %v", v.Failing, want)
	}
	if v.OK() {
		t.Error("OK() with an unexpected failure and a fixed record")
	}
	// A record that ran twice and failed once is a failure.
	res.Files[0].Outcomes = map[string]bool{"corpus/sqlite/test/evidence/in2.test:81": false}
	if v := k.Check(res); !v.OK() {
		t.Errorf("a run failing exactly the listed records is not OK: %+v", v)
	}
}

// TestKnownFailuresParseErrors checks that a malformed list is refused.
func TestKnownFailuresParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"record before reason", "a.test:1\n", "before any [reason]"},
		{"no line", "[r]\na.test\n", "want path:line"},
		{"bad line", "[r]\na.test:x\n", "want path:line"},
		{"zero line", "[r]\na.test:0\n", "want path:line"},
		{"twice", "[r]\na.test:1\n[s]\na.test:1\n", "listed twice"},
		{"repeated reason", "[r]\na.test:1\n[r]\na.test:2\n", "repeated reason"},
	} {
		if _, err := parseKnownFailures("list", strings.NewReader(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestKnownFailuresUpdate checks that Update drops records that passed,
// adds new failures under the triage header, keeps the header comment and
// the reasons' order, and that the triage header fails a later check.
func TestKnownFailuresUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known.txt")
	if err := os.WriteFile(path, []byte(knownList), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := LoadKnownFailures(path)
	if err != nil {
		t.Fatal(err)
	}
	v := Verdict{
		Fixed:      []string{"sqlite/test/evidence/in2.test:88"},
		Unexpected: []string{"corpus/sqlite/test/evidence/in2.test:100"},
	}
	if err := k.Update(path, "corpus", v); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `# comment

[sqlite-vs-pg: empty IN list]
sqlite/test/evidence/in2.test:81

[missing: triggers]
sqlite/test/evidence/slt_lang_createtrigger.test:24

[` + triageReason + `]
sqlite/test/evidence/in2.test:100
`
	if string(got) != want {
		t.Errorf("updated list:\n%s\nwant:\n%s", got, want)
	}
	k, err = LoadKnownFailures(path)
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Files: []FileResult{{Outcomes: map[string]bool{
		"corpus/sqlite/test/evidence/in2.test:81":  false,
		"corpus/sqlite/test/evidence/in2.test:100": false,
	}}}}
	if v := k.Check(res); v.OK() || len(v.Untriaged) != 1 {
		t.Errorf("a list with a triage record passed the check: %+v", v)
	}
}
