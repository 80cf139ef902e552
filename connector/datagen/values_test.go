package datagen

import (
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// rowsOf generates n rows of a one-split table.
func rowsOf(t *testing.T, cfg Config, n int) [][]types.Datum {
	s := NewSplit(cfg, 0)
	rows := newRows(n, s.Width())
	if got := s.Next(rows); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
	return rows
}

// TestRandomValues checks each type's random values against its options.
func TestRandomValues(t *testing.T) {
	day := int64(86_400_000_000)
	base := created.UnixMicro()
	for _, c := range []struct {
		name  string
		typ   types.T
		opts  map[string]string
		check func(types.Datum) bool
	}{
		{"int2 default", types.TInt2, nil, func(d types.Datum) bool { return d.Int() >= 0 && d.Int() <= 32767 }},
		{"int8 range", types.TInt8, map[string]string{"min": "-3", "max": "3"},
			func(d types.Datum) bool { return d.Int() >= -3 && d.Int() <= 3 }},
		{"int8 full", types.TInt8, map[string]string{"min": "-9223372036854775808", "max": "9223372036854775807"},
			func(d types.Datum) bool { return true }},
		{"float4", types.TFloat4, map[string]string{"min": "1.5", "max": "2.5"},
			func(d types.Datum) bool {
				return d.Float() >= 1.5 && d.Float() <= 2.5 && d.Float() == float64(float32(d.Float()))
			}},
		{"numeric scale", types.T{Family: types.Numeric, Mod: types.NumericMod(6, 2)}, map[string]string{"min": "-1", "max": "1"},
			func(d types.Datum) bool {
				f, _ := d.Decimal().Float64()
				return d.Decimal().Exponent == -2 && f >= -1 && f <= 1
			}},
		{"numeric inferred scale", types.TNumeric, map[string]string{"min": "0.5", "max": "0.75"},
			func(d types.Datum) bool {
				f, _ := d.Decimal().Float64()
				return d.Decimal().Exponent >= -2 && f >= 0.5 && f <= 0.75
			}},
		{"varchar", types.TVarchar, map[string]string{"length": "7"},
			func(d types.Datum) bool { return len(d.Str()) == 7 && strings.Trim(d.Str(), alphanumeric) == "" }},
		{"text default", types.TText, nil, func(d types.Datum) bool { return len(d.Str()) == 10 }},
		{"bool", types.TBool, nil, func(d types.Datum) bool { return d.Kind() == types.KindBool }},
		{"timestamptz", types.TTimestampTZ, map[string]string{"max_past": "1h"},
			func(d types.Datum) bool {
				us := unixMicros(d)
				return us <= base && us >= base-3_600_000_000 && us%1000 == 0
			}},
		{"timestamp basetime", types.TTimestamp, map[string]string{"basetime": "2020-01-01T08:00:00+08:00", "max_past": "10s"},
			func(d types.Datum) bool {
				wall := time.Date(2020, 1, 1, 8, 0, 0, 0, time.UTC).UnixMicro()
				return unixMicros(d) <= wall && unixMicros(d) >= wall-10_000_000
			}},
		{"date", types.TDate, map[string]string{"max_past": "3days"},
			func(d types.Datum) bool { return d.Date() <= base/day && d.Date() >= base/day-3 }},
	} {
		opts := map[string]string{}
		for k, v := range c.opts {
			opts["fields.c."+k] = v
		}
		cfg := mustParse(t, []Column{{"c", c.typ}}, opts)
		distinct := make(map[string]bool)
		for _, row := range rowsOf(t, cfg, 500) {
			if !c.check(row[0]) {
				t.Fatalf("%s: bad value %v", c.name, row[0])
			}
			distinct[row[0].String()] = true
		}
		if len(distinct) < 2 {
			t.Errorf("%s: %d distinct values in 500 rows", c.name, len(distinct))
		}
	}
}

func TestSeeds(t *testing.T) {
	cols := []Column{{"a", types.TInt4}, {"b", types.TInt4}, {"c", types.TInt4}}
	rows := rowsOf(t, mustParse(t, cols, map[string]string{"fields.a.seed": "7", "fields.c.seed": "7"}), 100)
	again := rowsOf(t, mustParse(t, cols, map[string]string{"fields.a.seed": "7", "fields.c.seed": "7"}), 100)
	sameAB := 0
	for i, row := range rows {
		if !equalRows(row, again[i]) {
			t.Fatalf("row %d differs between runs: %v, %v", i, row, again[i])
		}
		if row[0].Int() != row[2].Int() {
			t.Fatalf("row %d: columns with one seed differ: %v", i, row)
		}
		if row[0].Int() == row[1].Int() {
			sameAB++
		}
	}
	if sameAB > 5 {
		t.Fatalf("columns with different seeds agree in %d of 100 rows", sameAB)
	}
}

func TestRelativeTime(t *testing.T) {
	cfg := mustParse(t, []Column{{"ts", types.TTimestamp}}, map[string]string{
		"fields.ts.max_past": "1s", "fields.ts.max_past_mode": "Relative",
	})
	now := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	cfg.Clock = func() time.Time { return now }
	for _, row := range rowsOf(t, cfg, 100) {
		if d := now.UnixMicro() - unixMicros(row[0]); d < 0 || d > 1_000_000 {
			t.Fatalf("%v is not within 1s before %v", row[0], now)
		}
	}
}

func TestNumericSequence(t *testing.T) {
	cfg := mustParse(t, []Column{{"n", types.TNumeric}}, map[string]string{
		"fields.n.kind": "SEQUENCE", "fields.n.start": "1.56", "fields.n.end": "4",
	})
	rows := newRows(10, 1)
	n := NewSplit(cfg, 0).Next(rows)
	var got []string
	for _, row := range rows[:n] {
		got = append(got, row[0].String())
	}
	if strings.Join(got, " ") != "1.56 2.56 3.56" {
		t.Fatalf("numeric sequence %v, want 1.56 2.56 3.56", got)
	}
}

// unixMicros returns a timestamp datum in microseconds since 1970.
func unixMicros(d types.Datum) int64 { return d.Micros() - types.UnixEpochTimestamp }
