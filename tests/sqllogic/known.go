package sqllogic

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// KnownFailures is the checked-in list of corpus records expected to fail,
// each under the reason it fails for. A run is checked against it both
// ways, so that the list only shrinks: a failure it does not list is a
// regression, and a listed record that passed must leave the list.
//
// The file is line-oriented: "# ..." comments, "[reason]" headers, and
// under each header the failing records as "path:line", where path names
// the test file by its trailing components (relative to the corpus root,
// e.g. sqlite/test/evidence/in2.test:81), so that the list does not depend
// on where the corpus is checked out.
type KnownFailures struct {
	reasons []string          // in file order
	records map[string]string // "path:line" → reason
}

// triageReason heads records written by Update that still need a reason;
// Check refuses them.
const triageReason = "triage: new failures, give each a reason"

// LoadKnownFailures reads a known-failure list.
func LoadKnownFailures(path string) (*KnownFailures, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseKnownFailures(path, f)
}

func parseKnownFailures(name string, r io.Reader) (*KnownFailures, error) {
	k := &KnownFailures{records: map[string]string{}}
	reason := ""
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			reason = strings.TrimSpace(line[1 : len(line)-1])
			if reason == "" || slices.Contains(k.reasons, reason) {
				return nil, fmt.Errorf("%s:%d: empty or repeated reason %q", name, n, reason)
			}
			k.reasons = append(k.reasons, reason)
		default:
			if reason == "" {
				return nil, fmt.Errorf("%s:%d: record %q before any [reason]", name, n, line)
			}
			if i := strings.LastIndexByte(line, ':'); i <= 0 || !isLineNumber(line[i+1:]) {
				return nil, fmt.Errorf("%s:%d: want path:line, got %q", name, n, line)
			}
			if prev, dup := k.records[line]; dup {
				return nil, fmt.Errorf("%s:%d: %s is listed twice (also under [%s])", name, n, line, prev)
			}
			k.records[line] = reason
		}
	}
	return k, sc.Err()
}

func isLineNumber(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0
}

// lookup returns the listed record that the run location where ("path:line"
// with any leading directories) is, by its trailing path components.
func (k *KnownFailures) lookup(where string) (string, bool) {
	for key := where; ; {
		if _, ok := k.records[key]; ok {
			return key, true
		}
		i := strings.IndexByte(key, '/')
		if i < 0 {
			return "", false
		}
		key = key[i+1:]
	}
}

// Verdict is a run checked against a KnownFailures list.
type Verdict struct {
	// Unexpected are failures the list does not give, in run order.
	Unexpected []string
	// Fixed are listed records that ran and passed.
	Fixed []string
	// Untriaged are listed records still without a reason.
	Untriaged []string
	// Failing counts the listed records that failed, by reason, in the
	// list's order of reasons.
	Failing []ReasonCount
	// FileErrors are files that could not run at all.
	FileErrors []string
}

// ReasonCount is the number of listed records failing for one reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// OK reports whether the run matches the list exactly.
func (v Verdict) OK() bool {
	return len(v.Unexpected) == 0 && len(v.Fixed) == 0 && len(v.Untriaged) == 0 && len(v.FileErrors) == 0
}

// Check compares res with the list.
func (k *KnownFailures) Check(res Result) Verdict {
	var v Verdict
	counts := map[string]int{}
	for _, f := range res.Files {
		if f.Err != nil {
			v.FileErrors = append(v.FileErrors, f.String())
		}
		for _, where := range sortedKeys(f.Outcomes) {
			key, listed := k.lookup(where)
			passed := f.Outcomes[where]
			switch {
			case listed && passed:
				v.Fixed = append(v.Fixed, key)
			case listed:
				counts[k.records[key]]++
				if k.records[key] == triageReason {
					v.Untriaged = append(v.Untriaged, key)
				}
			case !passed:
				v.Unexpected = append(v.Unexpected, where)
			}
		}
	}
	for _, r := range k.reasons {
		if counts[r] > 0 {
			v.Failing = append(v.Failing, ReasonCount{r, counts[r]})
		}
	}
	return v
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareLocations)
	return keys
}

// compareLocations orders "path:line" by path, then by line number.
func compareLocations(a, b string) int {
	ia, ib := strings.LastIndexByte(a, ':'), strings.LastIndexByte(b, ':')
	if c := strings.Compare(a[:ia], b[:ib]); c != 0 {
		return c
	}
	na, _ := strconv.Atoi(a[ia+1:])
	nb, _ := strconv.Atoi(b[ib+1:])
	return na - nb
}

// Report writes v for a reader: the failures by reason, then what differs
// from the list and what to do about it.
func (v Verdict) Report(w io.Writer, listPath string) {
	total := 0
	for _, rc := range v.Failing {
		total += rc.Count
	}
	fmt.Fprintf(w, "known failures (%s): %d records failed as listed, for %d reasons\n", listPath, total, len(v.Failing))
	for _, rc := range v.Failing {
		fmt.Fprintf(w, "  %5d  %s\n", rc.Count, rc.Reason)
	}
	section := func(title, hint string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "%s (%d): %s\n", title, len(items), hint)
		for _, it := range items {
			fmt.Fprintf(w, "  %s\n", it)
		}
	}
	section("FILE ERRORS", "these files could not run", v.FileErrors)
	section("UNEXPECTED FAILURES", "fix them, or list each under its reason (sqllogic --update-known adds them for triage)", v.Unexpected)
	section("NOW PASSING", "remove them from the list (sqllogic --update-known does)", v.Fixed)
	section("UNTRIAGED", "give each a reason", v.Untriaged)
}

// Update rewrites the list at path after a run: records that passed leave
// it, new failures are added under a triage header to be given reasons,
// named from root (the corpus directory the run's paths are under).
func (k *KnownFailures) Update(path, root string, v Verdict) error {
	for _, key := range v.Fixed {
		delete(k.records, key)
	}
	for _, where := range v.Unexpected {
		rel, err := filepath.Rel(root, where)
		if err != nil {
			rel = where
		}
		k.records[filepath.ToSlash(rel)] = triageReason
	}
	byReason := map[string][]string{}
	for key, reason := range k.records {
		byReason[reason] = append(byReason[reason], key)
	}
	reasons := k.reasons
	if len(byReason[triageReason]) > 0 && !slices.Contains(reasons, triageReason) {
		reasons = append(reasons, triageReason)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, line := range strings.Split(string(old), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		b.WriteString(line + "\n")
	}
	for _, r := range reasons {
		keys := byReason[r]
		if len(keys) == 0 {
			continue
		}
		slices.SortFunc(keys, compareLocations)
		fmt.Fprintf(&b, "\n[%s]\n%s\n", r, strings.Join(keys, "\n"))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
