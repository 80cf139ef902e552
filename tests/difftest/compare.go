package difftest

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// colClass is how a result column's values compare.
type colClass uint8

const (
	exactClass    colClass = iota // text as sent
	decimalClass                  // integers and numerics, by value
	floatClass                    // by value within a relative tolerance
	intervalClass                 // by PostgreSQL's comparison: 1 day = 24 hours, 1 mon = 30 days
)

// OIDs of the types compared by value.
const (
	oidInt2, oidInt4, oidInt8 = 21, 23, 20
	oidNumeric                = 1700
	oidFloat4, oidFloat8      = 700, 701
	oidInterval               = 1186
)

// classOf returns how a column compares, from its type on each side: a
// number column is compared as floats if either side is a float.
func classOf(a, b uint32) colClass {
	num := func(o uint32) bool {
		return o == oidInt2 || o == oidInt4 || o == oidInt8 || o == oidNumeric || o == oidFloat4 || o == oidFloat8
	}
	switch {
	case num(a) && num(b) && (a == oidFloat4 || a == oidFloat8 || b == oidFloat4 || b == oidFloat8):
		return floatClass
	case num(a) && num(b):
		return decimalClass
	case a == oidInterval && b == oidInterval:
		return intervalClass
	}
	return exactClass
}

// floatDigits is how many significant digits of a float the row keys
// keep; floatTolerance the relative difference under which floats are
// equal (sums of floats depend on the order of the additions).
const (
	floatDigits    = 10
	floatTolerance = 1e-9
)

// canonical returns v in a form equal for equal values of its class.
func canonical(v Value, c colClass) string {
	if v.Null {
		return "\x00NULL"
	}
	switch c {
	case decimalClass:
		d, _, err := apd.NewFromString(v.S)
		if err != nil {
			return v.S
		}
		d.Reduce(d)
		if d.IsZero() {
			d.Negative = false
		}
		return d.Text('f')
	case floatClass:
		f, err := parseFloat(v.S)
		if err != nil {
			return v.S
		}
		if f == 0 {
			f = 0 // -0 = 0
		}
		return strconv.FormatFloat(f, 'g', floatDigits, 64)
	case intervalClass:
		if n, ok := intervalValue(v.S); ok {
			return n.String()
		}
	}
	return v.S
}

// parseFloat reads a float in PostgreSQL's text form (Infinity, NaN).
func parseFloat(s string) (float64, error) {
	switch s {
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// floatsClose reports whether a and b, texts of numbers, are equal within
// floatTolerance.
func floatsClose(a, b string) bool {
	x, err1 := parseFloat(a)
	y, err2 := parseFloat(b)
	switch {
	case err1 != nil || err2 != nil:
		return false
	case math.IsNaN(x) || math.IsNaN(y):
		return math.IsNaN(x) && math.IsNaN(y)
	case math.IsInf(x, 0) || math.IsInf(y, 0):
		return x == y
	}
	return math.Abs(x-y) <= floatTolerance*math.Max(math.Abs(x), math.Abs(y))
}

// intervalValue returns an interval in microseconds as PostgreSQL compares
// intervals (a month is 30 days, a day 24 hours), from the postgres output
// style: "1 year 2 mons -3 days +04:05:06.5".
func intervalValue(s string) (*big.Int, bool) {
	total := new(big.Int)
	fields := strings.Fields(s)
	add := func(n *big.Int, unit int64) { total.Add(total, n.Mul(n, big.NewInt(unit))) }
	const day = 86400_000_000
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Contains(f, ":") {
			neg := strings.HasPrefix(f, "-")
			hms := strings.Split(strings.TrimLeft(f, "+-"), ":")
			if len(hms) != 3 {
				return nil, false
			}
			h, ok1 := new(big.Int).SetString(hms[0], 10)
			m, err2 := strconv.ParseInt(hms[1], 10, 64)
			sec, frac, _ := strings.Cut(hms[2], ".")
			sc, err3 := strconv.ParseInt(sec, 10, 64)
			us, err4 := strconv.ParseInt((frac + "000000")[:6], 10, 64)
			if !ok1 || err2 != nil || err3 != nil || err4 != nil {
				return nil, false
			}
			t := h.Mul(h, big.NewInt(3600_000_000))
			t.Add(t, big.NewInt(m*60_000_000+sc*1_000_000+us))
			if neg {
				t.Neg(t)
			}
			total.Add(total, t)
			continue
		}
		if i+1 == len(fields) {
			return nil, false
		}
		n, ok := new(big.Int).SetString(f, 10)
		if !ok {
			return nil, false
		}
		i++
		switch strings.TrimSuffix(fields[i], "s") {
		case "year":
			add(n, 12*30*day)
		case "mon":
			add(n, 30*day)
		case "day":
			add(n, day)
		default:
			return nil, false
		}
	}
	return total, true
}

// rowsDiff compares PostgreSQL's rows with streamdb's: in order when
// ordered, else as multisets. It returns "" when they are equal, else
// what differs.
func rowsDiff(pgOIDs, sdbOIDs []uint32, pg, sdb [][]Value, ordered bool) string {
	if len(pgOIDs) != len(sdbOIDs) {
		return fmt.Sprintf("%d columns, streamdb %d", len(pgOIDs), len(sdbOIDs))
	}
	classes := make([]colClass, len(pgOIDs))
	for i := range classes {
		classes[i] = classOf(pgOIDs[i], sdbOIDs[i])
	}
	key := func(row []Value) string {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = canonical(v, classes[i])
		}
		return strings.Join(parts, "\x1f")
	}
	same := func(a, b []Value) bool {
		for i := range a {
			ka, kb := canonical(a[i], classes[i]), canonical(b[i], classes[i])
			if ka != kb && !(classes[i] == floatClass && !a[i].Null && !b[i].Null && floatsClose(a[i].S, b[i].S)) {
				return false
			}
		}
		return true
	}
	a, b := pg, sdb
	if !ordered {
		a, b = sortedBy(pg, key), sortedBy(sdb, key)
	}
	if len(a) == len(b) {
		equal := true
		for i := range a {
			if !same(a[i], b[i]) {
				equal = false
				break
			}
		}
		if equal {
			return ""
		}
	}
	if ordered && len(a) == len(b) && rowsDiff(pgOIDs, sdbOIDs, pg, sdb, false) == "" {
		return "same rows in another order"
	}
	onlyPG, onlySDB := multisetMinus(a, b, key), multisetMinus(b, a, key)
	return fmt.Sprintf("PostgreSQL %d rows, streamdb %d; only in PostgreSQL: %s; only in streamdb: %s",
		len(pg), len(sdb), formatRows(onlyPG, 5), formatRows(onlySDB, 5))
}

// sortedBy returns rows sorted by key.
func sortedBy(rows [][]Value, key func([]Value) string) [][]Value {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(x, y []Value) int { return strings.Compare(key(x), key(y)) })
	return out
}

// multisetMinus returns the rows of a not matched by a row of b.
func multisetMinus(a, b [][]Value, key func([]Value) string) [][]Value {
	count := map[string]int{}
	for _, row := range b {
		count[key(row)]++
	}
	var out [][]Value
	for _, row := range a {
		k := key(row)
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, row)
	}
	return out
}
