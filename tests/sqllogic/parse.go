package sqllogic

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// recordKind tells what a record does.
type recordKind int

const (
	kindStatement    recordKind = iota // statement ok | error | count N
	kindQuery                          // query <types> | query error
	kindLet                            // let v1, v2: run a query, keep its first row
	kindHalt                           // halt: ignore the rest of the file
	kindInclude                        // include <glob>; expanded by load
	kindSubstitution                   // control substitution on|off
	kindSleep                          // sleep <duration>
	kindSystem                         // system ...: external programs, never run
)

// sortMode is how query results are ordered before comparison.
type sortMode int

const (
	noSort sortMode = iota
	rowSort
	valueSort
)

// condition is a skipif (only == false) or onlyif (only == true) prefix.
type condition struct {
	only   bool
	engine string
}

// retry is a "retry N backoff D" clause: up to attempts tries, backoff apart.
type retry struct {
	attempts int
	backoff  time.Duration
}

// record is one parsed record of a test file.
type record struct {
	kind  recordKind
	file  string // file the record was read from (an included file for included records)
	line  int    // 1-based line of the record's directive
	conds []condition
	conn  string // connection name; "" is the file's default connection
	sql   string
	retry retry

	expectErr  bool   // statement error / query error
	errPattern string // the expected error text, if the file gives one
	count      int64  // statement count N; -1 when not checked

	types    string   // query type letters
	sort     sortMode // query sort mode
	label    string   // query label
	expected []string // expected result lines (after "----")

	vars []string      // let: variable names
	arg  string        // include: glob pattern
	on   bool          // control substitution: on or off
	dur  time.Duration // sleep: how long
}

// maxIncludeDepth bounds nested includes, so that a file including itself
// fails instead of recursing forever.
const maxIncludeDepth = 16

// load reads and parses the file at path and expands its includes, which are
// resolved relative to the including file. Conditions written before an
// include apply to every record it brings in.
func load(path string) ([]record, error) {
	return loadDepth(path, 0)
}

func loadDepth(path string, depth int) ([]record, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, err := parse(path, string(src))
	if err != nil {
		return nil, err
	}
	out := recs[:0:0]
	for _, r := range recs {
		if r.kind != kindInclude {
			out = append(out, r)
			continue
		}
		if depth >= maxIncludeDepth {
			return nil, fmt.Errorf("%s:%d: includes nested deeper than %d levels (does a file include itself?)", r.file, r.line, maxIncludeDepth)
		}
		pattern := r.arg
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(filepath.Dir(path), pattern)
		}
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: include %q: %v", r.file, r.line, r.arg, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s:%d: include %q matches no file", r.file, r.line, r.arg)
		}
		for _, m := range matches {
			sub, err := loadDepth(m, depth+1)
			if err != nil {
				return nil, err
			}
			for _, s := range sub {
				s.conds = append(append([]condition(nil), r.conds...), s.conds...)
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// parse splits the text of one test file into records. Includes are left as
// kindInclude records. Lines starting with '#' are comments wherever they
// appear; records are separated by blank lines. skipif, onlyif and connection
// lines apply to the next record, even across blank lines.
func parse(file, src string) ([]record, error) {
	p := parser{file: file, lines: strings.Split(src, "\n")}
	for i, l := range p.lines {
		p.lines[i] = strings.TrimSuffix(l, "\r")
	}
	return p.records()
}

type parser struct {
	file  string
	lines []string
	pos   int // index of the next unread line
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, line, fmt.Sprintf(format, args...))
}

func isBlank(l string) bool   { return strings.TrimSpace(l) == "" }
func isComment(l string) bool { return strings.HasPrefix(l, "#") }

// body reads the lines of the current record up to the next blank line,
// dropping comments, and splits them at the first "----" line. With
// multiline, what follows "----" ends at two blank lines in a row instead, as
// sqllogictest-rs reads expected error messages and command output.
func (p *parser) body(multiline bool) (sql, results []string) {
	separated := false
	for ; p.pos < len(p.lines); p.pos++ {
		l := p.lines[p.pos]
		switch {
		case isBlank(l) && !(separated && multiline):
			return sql, results
		case isBlank(l) && (p.pos+1 == len(p.lines) || isBlank(p.lines[p.pos+1])):
			return sql, results
		case isComment(l):
		case !separated && strings.TrimSpace(l) == "----":
			separated = true
		case separated:
			results = append(results, l)
		default:
			sql = append(sql, l)
		}
	}
	return sql, results
}

// headerFields splits a directive line into fields, stopping at a "#"
// comment.
func headerFields(l string) []string {
	if i := strings.Index(l, "#"); i >= 0 {
		l = l[:i]
	}
	return strings.Fields(l)
}

func (p *parser) records() ([]record, error) {
	var (
		out   []record
		conds []condition
		conn  string
	)
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		if isBlank(l) || isComment(l) {
			p.pos++
			continue
		}
		line := p.pos + 1
		f := headerFields(l)
		if len(f) == 0 { // a line like "  # comment"
			p.pos++
			continue
		}
		p.pos++
		switch f[0] {
		case "skipif", "onlyif":
			if len(f) != 2 {
				return nil, p.errorf(line, "%s takes one engine name", f[0])
			}
			conds = append(conds, condition{only: f[0] == "onlyif", engine: f[1]})
			continue
		case "connection":
			if len(f) != 2 {
				return nil, p.errorf(line, "connection takes one name")
			}
			conn = f[1]
			continue
		case "hash-threshold":
			// Results are compared in whichever form the file wrote them
			// (values or a hash), so the threshold itself is not needed.
			if len(f) != 2 {
				return nil, p.errorf(line, "hash-threshold takes one number")
			}
			if _, err := strconv.Atoi(f[1]); err != nil {
				return nil, p.errorf(line, "hash-threshold: %q is not a number", f[1])
			}
			continue
		}
		r := record{file: p.file, line: line, conds: conds, conn: conn, count: -1}
		conds, conn = nil, ""
		var err error
		switch f[0] {
		case "statement":
			err = p.statement(&r, l, f)
		case "query":
			err = p.query(&r, l, f)
		case "let":
			err = p.let(&r, l)
		case "halt":
			r.kind = kindHalt
		case "include":
			r.kind = kindInclude
			r.arg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "include"))
			if r.arg == "" {
				err = p.errorf(line, "include needs a file pattern")
			}
		case "control":
			err = p.control(&r, f)
		case "sleep":
			r.kind = kindSleep
			if len(f) != 2 {
				err = p.errorf(line, "sleep takes one duration")
			} else if r.dur, err = time.ParseDuration(f[1]); err != nil {
				err = p.errorf(line, "sleep: %v", err)
			}
		case "system":
			r.kind = kindSystem
			p.body(true)
		default:
			err = p.errorf(line, "unknown record type %q", f[0])
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// rest returns what follows the first n fields of l.
func rest(l string, n int) string {
	l = strings.TrimSpace(l)
	for range n {
		i := strings.IndexAny(l, " \t")
		if i < 0 {
			return ""
		}
		l = strings.TrimSpace(l[i:])
	}
	return l
}

// parseRetry parses "retry N backoff D" from f.
func parseRetry(f []string) (retry, error) {
	if len(f) != 4 || f[0] != "retry" || f[2] != "backoff" {
		return retry{}, fmt.Errorf("expected \"retry N backoff DURATION\", got %q", strings.Join(f, " "))
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 {
		return retry{}, fmt.Errorf("retry count %q is not a positive number", f[1])
	}
	d, err := time.ParseDuration(f[3])
	if err != nil {
		return retry{}, fmt.Errorf("backoff: %v", err)
	}
	return retry{attempts: n, backoff: d}, nil
}

func (p *parser) statement(r *record, l string, f []string) error {
	r.kind = kindStatement
	if len(f) < 2 {
		return p.errorf(r.line, "statement needs ok, error or count")
	}
	var tail []string
	switch f[1] {
	case "ok":
		tail = f[2:]
	case "error":
		r.expectErr = true
		r.errPattern = rest(l, 2)
	case "count":
		if len(f) < 3 {
			return p.errorf(r.line, "statement count needs a number")
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || n < 0 {
			return p.errorf(r.line, "statement count: %q is not a row count", f[2])
		}
		r.count = n
		tail = f[3:]
	default:
		return p.errorf(r.line, "statement %q: expected ok, error or count", f[1])
	}
	if len(tail) > 0 {
		var err error
		if r.retry, err = parseRetry(tail); err != nil {
			return p.errorf(r.line, "statement: %v", err)
		}
	}
	sql, _ := p.body(r.expectErr) // lines after "----" are the expected error text
	return p.setSQL(r, sql)
}

func (p *parser) setSQL(r *record, sql []string) error {
	r.sql = strings.Join(sql, "\n")
	if strings.TrimSpace(r.sql) == "" {
		return p.errorf(r.line, "record has no SQL")
	}
	return nil
}

func (p *parser) query(r *record, l string, f []string) error {
	r.kind = kindQuery
	if len(f) < 2 {
		return p.errorf(r.line, "query needs type letters or error")
	}
	if f[1] == "error" {
		r.expectErr = true
		r.errPattern = rest(l, 2)
		sql, _ := p.body(true) // lines after "----" are the expected error text
		return p.setSQL(r, sql)
	}
	r.types = f[1]
	for i := 2; i < len(f); i++ {
		switch f[i] {
		case "nosort":
			r.sort = noSort
		case "rowsort":
			r.sort = rowSort
		case "valuesort":
			r.sort = valueSort
		case "retry":
			var err error
			if r.retry, err = parseRetry(f[i:min(i+4, len(f))]); err != nil {
				return p.errorf(r.line, "query: %v", err)
			}
			i += 3
		default:
			if r.label != "" {
				return p.errorf(r.line, "query: unexpected %q after label %q", f[i], r.label)
			}
			r.label = f[i]
		}
	}
	sql, results := p.body(false)
	r.expected = results
	return p.setSQL(r, sql)
}

func (p *parser) let(r *record, l string) error {
	r.kind = kindLet
	for _, v := range strings.Split(rest(l, 1), ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return p.errorf(r.line, "let needs comma-separated variable names")
		}
		r.vars = append(r.vars, v)
	}
	sql, _ := p.body(false)
	return p.setSQL(r, sql)
}

func (p *parser) control(r *record, f []string) error {
	r.kind = kindSubstitution
	if len(f) != 3 || f[1] != "substitution" || (f[2] != "on" && f[2] != "off") {
		return p.errorf(r.line, "unsupported control %q (only \"control substitution on|off\")", strings.Join(f[1:], " "))
	}
	r.on = f[2] == "on"
	return nil
}

// skip reports whether conds exclude engine.
func skip(conds []condition, engine string) bool {
	for _, c := range conds {
		if strings.EqualFold(c.engine, engine) != c.only {
			return true
		}
	}
	return false
}
