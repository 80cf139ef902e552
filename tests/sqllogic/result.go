package sqllogic

import (
	"fmt"
	"io"
	"strings"
)

// FileResult counts the records of one test file.
type FileResult struct {
	Path    string
	Passed  int
	Failed  int
	Skipped int
	// Err is a failure to read, parse (including includes) or connect for the
	// file; it is counted as one failed test.
	Err error
	// Outcomes maps the location ("file:line", the file an included one
	// where the record came from) of each record run to whether it passed;
	// a record run more than once passed only if it passed every time.
	Outcomes map[string]bool
}

// Result sums the results of every file run.
type Result struct {
	Files   []FileResult
	Passed  int
	Failed  int
	Skipped int
}

// Summary returns "N passed, M failed, K skipped".
func (r Result) Summary() string {
	return counts(r.Passed, r.Failed, r.Skipped)
}

func counts(passed, failed, skipped int) string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", passed, failed, skipped)
}

// String returns "path: P passed, F failed, S skipped", followed by the
// error if the file had one.
func (f FileResult) String() string {
	s := f.Path + ": " + counts(f.Passed, f.Failed, f.Skipped)
	if f.Err != nil {
		s += " (error: " + f.Err.Error() + ")"
	}
	return s
}

func (r *Result) add(f FileResult) {
	r.Files = append(r.Files, f)
	r.Passed += f.Passed
	r.Failed += f.Failed
	r.Skipped += f.Skipped
}

// failure describes why a record failed. expected and actual, when either is
// set, are result lines shown one per line.
type failure struct {
	msg              string
	expected, actual []string
	// final means retrying cannot help (the record could not even be sent).
	final bool
}

// maxShown is how many failures per file are printed unless Options.Verbose.
const maxShown = 5

// reporter prints failures of one file to w.
type reporter struct {
	w       io.Writer
	verbose bool
	failed  int
}

// report prints a failure of the record at where running sql.
func (rp *reporter) report(where, sql string, f *failure) {
	rp.failed++
	if !rp.verbose && rp.failed > maxShown {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL %s: %s\n", where, f.msg)
	writeIndented(&b, "    ", sql)
	if f.expected != nil || f.actual != nil {
		writeResults(&b, "expected", f.expected)
		writeResults(&b, "actual", f.actual)
	}
	io.WriteString(rp.w, b.String())
}

// finish prints how many failures were not shown.
func (rp *reporter) finish(path string) {
	if hidden := rp.failed - maxShown; !rp.verbose && hidden > 0 {
		fmt.Fprintf(rp.w, "%s: %d more failures not shown (run verbose to see all)\n", path, hidden)
	}
}

func writeResults(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		fmt.Fprintf(b, "  %s: (no rows)\n", title)
		return
	}
	fmt.Fprintf(b, "  %s:\n", title)
	writeIndented(b, "    ", lines...)
}

func writeIndented(b *strings.Builder, indent string, texts ...string) {
	for _, t := range texts {
		for _, l := range strings.Split(t, "\n") {
			b.WriteString(indent)
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
}
