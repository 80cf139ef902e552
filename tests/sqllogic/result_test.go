package sqllogic

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	var r Result
	r.add(FileResult{Path: "a.test", Passed: 3, Failed: 1, Skipped: 2})
	r.add(FileResult{Path: "b.slt", Failed: 1, Err: errors.New("b.slt:3: include \"x\" matches no file")})
	if got, want := r.Summary(), "3 passed, 2 failed, 2 skipped"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := r.Files[0].String(), "a.test: 3 passed, 1 failed, 2 skipped"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := r.Files[1].String(), `b.slt: 0 passed, 1 failed, 0 skipped (error: b.slt:3: include "x" matches no file)`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestReporter(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var b strings.Builder
		rp := reporter{w: &b, verbose: verbose}
		rp.report("f.test:3", "SELECT a\nFROM t", &failure{msg: "query result mismatch", expected: []string{"1", "2"}})
		for i := range maxShown + 2 {
			rp.report(fmt.Sprintf("f.test:%d", 10+i), "SELECT 1", &failure{msg: "ERROR: boom (SQLSTATE XX000)"})
		}
		rp.finish("f.test")
		out := b.String()
		first := "FAIL f.test:3: query result mismatch\n    SELECT a\n    FROM t\n  expected:\n    1\n    2\n  actual: (no rows)\n"
		if !strings.HasPrefix(out, first) {
			t.Errorf("verbose=%v: report starts\n%s\nwant\n%s", verbose, out, first)
		}
		shown := strings.Count(out, "FAIL ")
		hidden := strings.Contains(out, "f.test: 3 more failures not shown")
		if verbose && (shown != maxShown+3 || hidden) || !verbose && (shown != maxShown || !hidden) {
			t.Errorf("verbose=%v: %d failures shown, hidden note %v:\n%s", verbose, shown, hidden, out)
		}
	}
}
