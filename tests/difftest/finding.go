package difftest

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Kind classifies a difference.
type Kind string

// The kinds of difference, from the most to the least severe.
const (
	// KindCrash: streamdb dropped the connection or failed with an
	// internal error (XX000, a recovered panic).
	KindCrash Kind = "crash"
	// KindTimeout: streamdb gave no answer in time; PostgreSQL did.
	KindTimeout Kind = "timeout"
	// KindRows: both gave rows, different ones.
	KindRows Kind = "rows"
	// KindViewRows: a materialized view's rows differ from PostgreSQL's
	// answer to its query over the same tables.
	KindViewRows Kind = "view-rows"
	// KindErrorVsRows: one side failed, the other did not.
	KindErrorVsRows Kind = "error-vs-rows"
	// KindErrorClass: both failed, in different SQLSTATE classes.
	KindErrorClass Kind = "error-class"
	// KindSQLState: both failed in the same class with different
	// SQLSTATEs (lower severity).
	KindSQLState Kind = "sqlstate"
	// KindType: same rows, different column types (lower severity).
	KindType Kind = "type"
)

// Low reports whether differences of kind k are of lower severity: they
// are reported but do not fail the test. Which of two errors a statement
// raises first depends on the order of evaluation, which PostgreSQL leaves
// undefined.
func (k Kind) Low() bool { return k == KindSQLState || k == KindType }

// Kinds lists the kinds in report order.
var Kinds = []Kind{KindCrash, KindTimeout, KindRows, KindViewRows, KindErrorVsRows, KindErrorClass, KindSQLState, KindType}

// diff is how one statement's outcomes differ.
type diff struct {
	kind    Kind
	pg, sdb Outcome
	detail  string
	// tag, when set, names a cause explain recognized; it stands for the
	// statement's shape in the signature. low marks a difference of lower
	// severity than its kind.
	tag string
	low bool
}

// compare returns how streamdb's outcome differs from PostgreSQL's, or nil
// when it does not. ordered compares rows in order; view marks the rows
// of a materialized view.
func compare(pg, sdb Outcome, ordered, view bool) *diff {
	d := &diff{pg: pg, sdb: sdb}
	switch {
	case sdb.Lost != "" && sdb.Timeout:
		if pg.Timeout {
			return nil
		}
		d.kind = KindTimeout
	case sdb.Lost != "" || sdb.Err != nil && sdb.Err.Code == "XX000" && (pg.Err == nil || pg.Err.Code != "XX000"):
		d.kind = KindCrash
	case pg.Lost != "":
		return nil // PostgreSQL gave up (a timeout): nothing to compare
	case pg.Err != nil && sdb.Err != nil:
		switch {
		case pg.Err.Code[:2] != sdb.Err.Code[:2]:
			// Which of two run-time errors comes first depends on the
			// order of evaluation.
			d.kind, d.low = KindErrorClass, runtimeError(pg.Err) && runtimeError(sdb.Err)
		case pg.Err.Code != sdb.Err.Code:
			d.kind = KindSQLState
		default:
			return nil
		}
	case pg.Err != nil && pg.Err.Code == "0A000":
		return nil
	case pg.Err != nil || sdb.Err != nil:
		d.kind = KindErrorVsRows
	default:
		if d.detail = rowsDiff(pg.OIDs, sdb.OIDs, pg.Rows, sdb.Rows, ordered); d.detail != "" {
			d.kind = KindRows
			if view {
				d.kind = KindViewRows
			}
		} else if pg.Tag != sdb.Tag && !view {
			d.kind, d.detail = KindRows, fmt.Sprintf("command tag %q, streamdb %q", pg.Tag, sdb.Tag)
		} else if t := typesDiff(pg.OIDs, sdb.OIDs); t != "" && !view {
			d.kind, d.detail = KindType, t
		} else {
			return nil
		}
	}
	return d
}

// runtimeError reports whether err is one a statement raises while it
// runs, over some values: a data exception (class 22), a cardinality
// violation (21000, a scalar subquery's second row), or PostgreSQL's
// 0A000 for a cast of NaN or infinity to an integer.
func runtimeError(err *pgconn.PgError) bool {
	return err.Code[:2] == "22" || err.Code == "21000" ||
		err.Code == "0A000" && (strings.HasPrefix(err.Message, "cannot convert NaN") || strings.HasPrefix(err.Message, "cannot convert infinity"))
}

// typesDiff says which result columns differ in type, "" if none do.
func typesDiff(pg, sdb []uint32) string {
	var out []string
	for i := range pg {
		if pg[i] != sdb[i] {
			out = append(out, fmt.Sprintf("column %d: %s, streamdb %s", i+1, oidName(pg[i]), oidName(sdb[i])))
		}
	}
	return strings.Join(out, "; ")
}

// oidName names a type OID.
func oidName(oid uint32) string {
	if t, ok := typeOfOID(oid); ok {
		return t.String()
	}
	return fmt.Sprintf("oid %d", oid)
}

// outcomeSig is an outcome in a signature: "rows", or the SQLSTATE with
// the message's shape for streamdb's errors (messages name the missing
// feature).
func outcomeSig(o Outcome, message bool) string {
	c := o.code()
	if o.Err != nil && message {
		c += " " + messageShape(o.Err.Message)
	}
	return c
}

var (
	quotedRE = regexp.MustCompile(`"[^"]*"`)
	numberRE = regexp.MustCompile(`-?\d[\d.e+]*`)
)

// messageShape is an error message with its quoted parts and numbers
// replaced, so that one kind of error has one shape.
func messageShape(m string) string {
	return "«" + numberRE.ReplaceAllString(quotedRE.ReplaceAllString(m, `"…"`), "N") + "»"
}

// Finding is a difference found, minimized, with what reproduces it.
type Finding struct {
	Kind Kind
	Seed uint64
	// Mode is "query", "dml" (an INSERT, UPDATE or DELETE, or the table
	// after it) or "view".
	Mode string
	// Setup are the statements to run on both servers first, Stmt the
	// statement that differs (a view's is "SELECT * FROM v" after its
	// definition in Setup).
	Setup    []string
	Stmt     string
	PG, SDB  string // the two answers
	Detail   string
	Original string // Stmt before minimizing
	// Signature identifies the difference: its kind, both outcomes and
	// the statement's shape.
	Signature string
	// Batch, for a view, says whether streamdb's batch answer to the
	// view's query agrees with PostgreSQL.
	Batch string
	// Low marks a difference of lower severity: reported, not failing.
	Low bool
	// Count is how many findings had this signature; Known names the
	// known difference it matches.
	Count int
	Known string

	features []string
}

// Report renders the finding for a person.
func (f *Finding) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s (seed %d, %s mode, seen %d times)\n", f.Kind, f.Signature, f.Seed, f.Mode, f.Count)
	b.WriteString("-- setup (both servers; PostgreSQL creates each MATERIALIZED VIEW as a plain VIEW):\n")
	for _, s := range f.Setup {
		b.WriteString(s + ";\n")
	}
	b.WriteString("-- statement:\n" + f.Stmt + ";\n")
	fmt.Fprintf(&b, "-- PostgreSQL: %s\n-- streamdb:   %s\n", indent(f.PG), indent(f.SDB))
	if f.Detail != "" {
		fmt.Fprintf(&b, "-- difference: %s\n", indent(f.Detail))
	}
	if f.Batch != "" {
		fmt.Fprintf(&b, "-- %s\n", f.Batch)
	}
	if f.Original != f.Stmt {
		fmt.Fprintf(&b, "-- before minimizing: %s\n", f.Original)
	}
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n--   ") }

// knownDifferences is the checked-in list of accepted differences.
//
//go:embed known_differences.txt
var knownDifferences string

// Known is an accepted difference: findings whose signature matches
// Pattern are counted, not reported.
type Known struct {
	Pattern *regexp.Regexp
	Reason  string
}

// ParseKnown reads a list of known differences: each is a signature glob
// ("*" matches anything) on one line, after comment lines ("# ...")
// giving the reason, which every entry must have.
func ParseKnown(text string) ([]Known, error) {
	var out []Known
	var reason []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			reason = nil
		case strings.HasPrefix(line, "#"):
			reason = append(reason, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		default:
			if len(reason) == 0 {
				return nil, fmt.Errorf("known differences, line %d: %q has no reason (a # comment above it)", i+1, line)
			}
			quoted := strings.Split(line, "*")
			for j := range quoted {
				quoted[j] = regexp.QuoteMeta(quoted[j])
			}
			out = append(out, Known{Pattern: regexp.MustCompile("^" + strings.Join(quoted, ".*") + "$"), Reason: strings.Join(reason, " ")})
		}
	}
	return out, nil
}

// match returns the known difference sig matches, if any.
func match(known []Known, sig string) *Known {
	for i := range known {
		if known[i].Pattern.MatchString(sig) {
			return &known[i]
		}
	}
	return nil
}
