package sqllogic

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"pgregory.net/rapid"
)

func TestFormatSQLite(t *testing.T) {
	const (
		text  = pgtype.TextOID
		num   = pgtype.NumericOID
		float = pgtype.Float8OID
		boolT = pgtype.BoolOID
	)
	tests := []struct {
		raw    []byte
		oid    uint32
		letter byte
		want   string
	}{
		{nil, text, 'T', "NULL"},
		{nil, num, 'I', "NULL"},
		{nil, float, 'R', "NULL"},
		{[]byte{}, text, 'T', "(empty)"},
		{[]byte("hello world"), text, 'T', "hello world"},
		{[]byte("a\tb\nc\x7fd"), text, 'T', "a@b@c@d"},
		{[]byte("é"), text, 'T', "@@"},
		{[]byte("t"), boolT, 'T', "t"},
		{[]byte("42"), pgtype.Int4OID, 'I', "42"},
		{[]byte("-7"), pgtype.Int8OID, 'I', "-7"},
		{[]byte("12.9"), num, 'I', "12"},
		{[]byte("-12.9"), num, 'I', "-12"},
		{[]byte("-0.5"), num, 'I', "0"},
		{[]byte("1e+20"), float, 'I', "9223372036854775807"},
		{[]byte("-1e+20"), float, 'I', "-9223372036854775808"},
		{[]byte("2.5e2"), float, 'I', "250"},
		{[]byte("123456789012345678.99"), num, 'I', "123456789012345678"},
		{[]byte("99999999999999999999"), num, 'I', "9223372036854775807"},
		{[]byte("Infinity"), float, 'I', "9223372036854775807"},
		{[]byte("NaN"), float, 'I', "0"},
		{[]byte("12abc"), text, 'I', "12"},
		{[]byte("abc"), text, 'I', "0"},
		{[]byte("t"), boolT, 'I', "1"},
		{[]byte("f"), boolT, 'I', "0"},
		{[]byte("t"), boolT, 'R', "1.000"},
		{[]byte("1.25"), num, 'R', "1.250"},
		{[]byte("2"), pgtype.Int4OID, 'R', "2.000"},
		{[]byte("1.2345"), float, 'R', "1.234"}, // the double just below 1.2345, as C rounds it
		{[]byte("0.0625"), float, 'R', "0.062"}, // exact tie: half to even, as C
		{[]byte("-0.0001"), float, 'R', "-0.000"},
		{[]byte("x"), text, 'R', "0.000"},
		{[]byte("7"), pgtype.Int4OID, 'B', "7"}, // unknown letters render as text
	}
	for _, tc := range tests {
		if got := formatSQLite(tc.raw, tc.oid, tc.letter); got != tc.want {
			t.Errorf("formatSQLite(%q, %d, %c) = %q, want %q", tc.raw, tc.oid, tc.letter, got, tc.want)
		}
	}
}

func TestFormatPlain(t *testing.T) {
	tests := []struct {
		raw  []byte
		want string
	}{
		{nil, "NULL"},
		{[]byte{}, "(empty)"},
		{[]byte("t"), "t"},
		{[]byte("2024-01-01 00:00:00+00"), "2024-01-01 00:00:00+00"},
		{[]byte("a\tb"), "a\tb"},
	}
	for _, tc := range tests {
		if got := formatPlain(tc.raw); got != tc.want {
			t.Errorf("formatPlain(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestToIntMatchesFloat checks the exact decimal path of toInt against
// float truncation where floats are exact.
func TestToIntMatchesFloat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(-1<<52, 1<<52).Draw(t, "n")
		frac := rapid.IntRange(0, 999).Draw(t, "frac")
		s := strconv.FormatInt(n, 10) + "." + strconv.Itoa(frac)
		if got, want := toInt(s), int64(math.Trunc(float64(n))); got != want {
			t.Fatalf("toInt(%q) = %d, want %d", s, got, want)
		}
	})
}

// Hashes and values from SQLite's select1.test and select2.test, with the
// values PostgreSQL returns for those queries.
func TestHashFromCorpus(t *testing.T) {
	tests := []struct {
		name   string
		ncols  int
		values []string
		mode   sortMode
		want   string
	}{
		{
			name:   "select1 nosort",
			ncols:  2,
			values: strings.Fields("186 1 170 2 181 3 211 3 130 4 240 4"),
			want:   "12 values hashing to d33f553dec1000186e0827b36e03a5a0",
		},
		{
			name:   "select2 rowsort",
			ncols:  5,
			values: strings.Fields("-4 3706 249 245 245 -3 2878 194 191 191"),
			mode:   rowSort,
			want:   "10 values hashing to 4457dbfe4ab387a5f8f9b308280689f6",
		},
		{
			name:   "valuesort",
			ncols:  2,
			values: []string{"NULL", "10", "abc", "9", "(empty)", "-1"},
			mode:   valueSort,
			want:   "6 values hashing to 34c4364179680396c2b51b17a3730bbe",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := resultSet{ncols: tc.ncols, values: tc.values}
			sortValues(rs.values, rs.ncols, tc.mode)
			if !rs.matches([]string{tc.want}, tc.mode) {
				t.Errorf("%v (hash %s) does not match %q", rs.values, rs.hash(), tc.want)
			}
			if got := rs.render([]string{tc.want}, true); !reflect.DeepEqual(got, []string{tc.want}) {
				t.Errorf("render = %q, want %q", got, tc.want)
			}
			wrongCount := strings.Replace(tc.want, strconv.Itoa(len(tc.values))+" values", "99 values", 1)
			if rs.matches([]string{wrongCount}, tc.mode) {
				t.Errorf("matched %q", wrongCount)
			}
		})
	}
}

func TestSortValues(t *testing.T) {
	tests := []struct {
		values []string
		ncols  int
		mode   sortMode
		want   []string
	}{
		{[]string{"b", "1", "a", "2"}, 2, noSort, []string{"b", "1", "a", "2"}},
		// strcmp order: "10" < "9"; rows compare column by column.
		{[]string{"9", "x", "10", "y", "10", "a"}, 2, rowSort, []string{"10", "a", "10", "y", "9", "x"}},
		// A shorter value sorts before a longer one it prefixes.
		{[]string{"ab", "1", "a", "2"}, 2, rowSort, []string{"a", "2", "ab", "1"}},
		{[]string{"b", "1", "a", "2"}, 2, valueSort, []string{"1", "2", "a", "b"}},
		{nil, 0, rowSort, nil},
	}
	for _, tc := range tests {
		got := append([]string(nil), tc.values...)
		sortValues(got, tc.ncols, tc.mode)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("sortValues(%q, %d, %d) = %q, want %q", tc.values, tc.ncols, tc.mode, got, tc.want)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		name     string
		ncols    int
		values   []string // as the server returned them, before sorting
		mode     sortMode
		expected []string
		want     bool
	}{
		{"value per line", 2, []string{"1", "a b", "2", "c"}, noSort, []string{"1", "a b", "2", "c"}, true},
		{"row per line", 2, []string{"1", "NULL", "2", "(empty)"}, noSort, []string{"1 NULL", "2 (empty)"}, true},
		{"row per line, extra spaces", 2, []string{"1", "x"}, noSort, []string{"  1   x "}, true},
		{"order matters without sort", 1, []string{"1", "2"}, noSort, []string{"2", "1"}, false},
		{"rowsort, values per line", 2, []string{"2", "b", "1", "a"}, rowSort, []string{"1", "a", "2", "b"}, true},
		{"rowsort, expected unsorted", 2, []string{"2", "b", "1", "a"}, rowSort, []string{"2 b", "1 a"}, true},
		{"rowsort keeps rows together", 2, []string{"1", "b", "2", "a"}, rowSort, []string{"1", "a", "2", "b"}, false},
		{"valuesort", 2, []string{"2", "b", "1", "a"}, valueSort, []string{"a", "1", "b", "2"}, true},
		{"empty", 3, nil, noSort, nil, true},
		{"missing row", 1, []string{"1", "2"}, noSort, []string{"1"}, false},
		{"unexpected row", 1, nil, noSort, []string{"1"}, false},
		{"extra column", 2, []string{"1", "2"}, noSort, []string{"1"}, false},
		{"wrong value", 2, []string{"1", "2"}, noSort, []string{"1 3"}, false},
		// RisingWave writes whole-hour offsets as +00:00, PostgreSQL as +00.
		{"timestamps", 2, []string{"2024-01-01 00:00:00+00", "10"}, noSort, []string{"2024-01-01 00:00:00+00:00 10"}, true},
		{"timestamps differ", 2, []string{"2024-01-01 00:00:00+00", "10"}, noSort, []string{"2024-01-01 00:00:00+01:00 10"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := resultSet{ncols: tc.ncols, values: append([]string(nil), tc.values...)}
			sortValues(rs.values, rs.ncols, tc.mode)
			if got := rs.matches(tc.expected, tc.mode); got != tc.want {
				t.Errorf("matches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	rs := resultSet{ncols: 2, values: []string{"1", "a  b", "2", "NULL"}}
	if got, want := rs.render([]string{"x"}, true), []string{"1", "a  b", "2", "NULL"}; !reflect.DeepEqual(got, want) {
		t.Errorf("value-wise render = %q, want %q", got, want)
	}
	if got, want := rs.render([]string{"x"}, false), []string{"1 a b", "2 NULL"}; !reflect.DeepEqual(got, want) {
		t.Errorf("row-wise render = %q, want %q", got, want)
	}
}

func TestExpectedHash(t *testing.T) {
	tests := []struct {
		lines []string
		n     int
		hash  string
		ok    bool
	}{
		{[]string{"30 values hashing to 3C13DEE48D9356AE19AF2515E05E6B54"}, 30, "3c13dee48d9356ae19af2515e05e6b54", true},
		{[]string{"30 values hashing to 3c13"}, 0, "", false},
		{[]string{"30 values hashing to 3c13dee48d9356ae19af2515e05e6b54", "1"}, 0, "", false},
		{nil, 0, "", false},
	}
	for _, tc := range tests {
		n, h, ok := expectedHash(tc.lines)
		if n != tc.n || h != tc.hash || ok != tc.ok {
			t.Errorf("expectedHash(%q) = %d, %q, %v; want %d, %q, %v", tc.lines, n, h, ok, tc.n, tc.hash, tc.ok)
		}
	}
}

// TestNormalize checks how rows of sqllogictest-rs files are compared:
// whitespace collapsed and whole-hour offsets written as PostgreSQL does.
func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  a   b\tc ", "a b c"},
		{"1 2024-01-01 00:00:10+00:00 x", "1 2024-01-01 00:00:10+00 x"},
		{"2024-01-01 00:00:10.5-08:00", "2024-01-01 00:00:10.5-08"},
		{"2024-01-01 00:00:10+05:30", "2024-01-01 00:00:10+05:30"},
		{"10:00:00+00", "10:00:00+00"},
		{"12:00 +00:00", "12:00 +00:00"},
	} {
		if got := normalize(tc.in); got != tc.want {
			t.Errorf("normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
