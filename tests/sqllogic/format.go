package sqllogic

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
)

// formatPlain renders a raw text value the way sqllogictest-rs files write
// it: NULL as "NULL", the empty string as "(empty)", anything else as sent.
func formatPlain(raw []byte) string {
	switch {
	case raw == nil:
		return "NULL"
	case len(raw) == 0:
		return "(empty)"
	}
	return string(raw)
}

// formatSQLite renders a raw text value of a column of type oid the way
// SQLite's runner prints a value of type letter: I as an integer (numbers
// truncated toward zero, booleans as 1/0), R as "%.3f", anything else as text
// with every byte outside printable ASCII replaced by '@'.
func formatSQLite(raw []byte, oid uint32, letter byte) string {
	if raw == nil {
		return "NULL"
	}
	switch letter {
	case 'I', 'R':
		s := string(raw)
		if oid == pgtype.BoolOID {
			s = "0"
			if len(raw) > 0 && raw[0] == 't' {
				s = "1"
			}
		}
		if letter == 'I' {
			return strconv.FormatInt(toInt(s), 10)
		}
		return strconv.FormatFloat(toFloat(s), 'f', 3, 64)
	}
	if len(raw) == 0 {
		return "(empty)"
	}
	return printable(raw)
}

// printable returns raw as a string with every byte outside printable ASCII
// replaced by '@'.
func printable(raw []byte) string {
	i := slices.IndexFunc(raw, func(c byte) bool { return c < ' ' || c > '~' })
	if i < 0 {
		return string(raw)
	}
	b := slices.Clone(raw)
	for ; i < len(b); i++ {
		if b[i] < ' ' || b[i] > '~' {
			b[i] = '@'
		}
	}
	return string(b)
}

// numberPrefix matches the longest leading decimal number of a string, as
// SQLite reads numbers out of text.
var numberPrefix = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`)

// toInt converts text to an integer as SQLite does: the leading number,
// truncated toward zero and clamped to the int64 range; 0 if there is none.
func toInt(s string) int64 {
	s = strings.TrimSpace(s)
	p := numberPrefix.FindString(s)
	if p == "" {
		return int64(clampFloat(special(s)))
	}
	if !strings.ContainsAny(p, "eE") {
		// Exact for any decimal: drop the fraction, keep the digits.
		ip, _, _ := strings.Cut(p, ".")
		n, _ := strconv.ParseInt(ip, 10, 64) // clamped on overflow; "", "-" give 0
		return n
	}
	f, _ := strconv.ParseFloat(p, 64)
	return clampFloat(f)
}

// toFloat converts text to a float as SQLite does: the leading number, or 0.
func toFloat(s string) float64 {
	s = strings.TrimSpace(s)
	if p := numberPrefix.FindString(s); p != "" {
		f, _ := strconv.ParseFloat(p, 64) // ±Inf on overflow, like C
		return f
	}
	return special(s)
}

// special reads PostgreSQL's Infinity, -Infinity and NaN; 0 otherwise.
func special(s string) float64 {
	switch s {
	case "Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	return 0 // NaN reads as 0, as SQLite does
}

// clampFloat truncates f toward zero into the int64 range.
func clampFloat(f float64) int64 {
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// resultSet is a query result rendered as strings, row-major.
type resultSet struct {
	ncols  int
	values []string
}

// rows returns the rows of rs as subslices of rs.values.
func (rs *resultSet) rows() [][]string {
	if rs.ncols == 0 {
		return nil
	}
	out := make([][]string, 0, len(rs.values)/rs.ncols)
	for i := 0; i < len(rs.values); i += rs.ncols {
		out = append(out, rs.values[i:i+rs.ncols:i+rs.ncols])
	}
	return out
}

// sortValues orders flat values (ncols per row) in place by mode: rowsort
// compares rows column by column with byte order, valuesort ignores rows.
func sortValues(values []string, ncols int, mode sortMode) {
	switch mode {
	case rowSort:
		if ncols <= 0 {
			return
		}
		rs := resultSet{ncols: ncols, values: values}
		rows := rs.rows()
		slices.SortFunc(rows, slices.Compare)
		flat := make([]string, 0, len(values))
		for _, r := range rows {
			flat = append(flat, r...)
		}
		copy(values, flat)
	case valueSort:
		slices.Sort(values)
	}
}

// hash returns the md5 of every value followed by "\n", in order, as hex.
func (rs *resultSet) hash() string {
	h := md5.New()
	for _, v := range rs.values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashLine matches an expected result given as a hash.
var hashLine = regexp.MustCompile(`^\s*([0-9]+) values hashing to ([0-9a-fA-F]{32})\s*$`)

// expectedHash returns the count and hash of expected results written as
// "N values hashing to <md5>".
func expectedHash(expected []string) (n int, hash string, ok bool) {
	if len(expected) != 1 {
		return 0, "", false
	}
	m := hashLine.FindStringSubmatch(expected[0])
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	return n, strings.ToLower(m[2]), err == nil
}

// normalize trims s and collapses runs of whitespace to one space, as
// sqllogictest-rs compares rows, and writes a whole-hour time zone offset
// the way PostgreSQL does (RisingWave's "10:00:00+00:00" is PostgreSQL's
// "10:00:00+00").
func normalize(s string) string {
	return wholeHourOffset.ReplaceAllString(strings.Join(strings.Fields(s), " "), "$1")
}

// wholeHourOffset matches a time of day with a "+HH:00" or "-HH:00" offset.
var wholeHourOffset = regexp.MustCompile(`(\d:\d\d(?:\.\d+)?[+-]\d\d):00\b`)

// matches reports whether rs, already sorted by mode, equals the expected
// result lines: a hash line, one value per line, or one row per line with
// columns separated by whitespace.
func (rs *resultSet) matches(expected []string, mode sortMode) bool {
	if n, h, ok := expectedHash(expected); ok {
		return n == len(rs.values) && h == rs.hash()
	}
	if len(expected) == len(rs.values) {
		want := slices.Clone(expected)
		sortValues(want, rs.ncols, mode)
		if slices.Equal(want, rs.values) {
			return true
		}
	}
	if len(expected) != len(rs.values)/max(rs.ncols, 1) {
		return false
	}
	got := rs.lines()
	want := make([]string, len(expected))
	for i, e := range expected {
		want[i] = normalize(e)
	}
	if mode != noSort {
		slices.Sort(got)
		slices.Sort(want)
	}
	return slices.Equal(got, want)
}

// lines renders rs one row per line, normalized, columns separated by one
// space.
func (rs *resultSet) lines() []string {
	rows := rs.rows()
	out := make([]string, len(rows))
	var b strings.Builder
	for i, r := range rows {
		b.Reset()
		for j, v := range r {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(normalize(v))
		}
		out[i] = b.String()
	}
	return out
}

// render shows rs the way expected is written, for failure reports: as a
// hash line if expected is one, else one value per line when valueWise, else
// one row per line.
func (rs *resultSet) render(expected []string, valueWise bool) []string {
	if _, _, ok := expectedHash(expected); ok {
		return []string{fmt.Sprintf("%d values hashing to %s", len(rs.values), rs.hash())}
	}
	if valueWise {
		return rs.values
	}
	return rs.lines()
}
