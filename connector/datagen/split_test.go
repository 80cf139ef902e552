package datagen

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// created is the creation time the tests pass to ParseOptions.
var created = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// newRows allocates n rows of width w.
func newRows(n, w int) [][]types.Datum {
	rows := make([][]types.Datum, n)
	slab := make([]types.Datum, n*w)
	for i := range rows {
		rows[i] = slab[i*w : (i+1)*w : (i+1)*w]
	}
	return rows
}

// table reads every split of cfg to its end in chunks of at most chunk rows
// and returns the rows by table row number.
func table(t interface{ Fatalf(string, ...any) }, cfg Config, chunk int) map[int64][]types.Datum {
	out := make(map[int64][]types.Datum)
	for i := range cfg.SplitNum {
		s := NewSplit(cfg, i)
		for !s.Done() {
			off := s.Offset()
			rows := newRows(chunk, s.Width())
			n := s.Next(rows)
			if n == 0 {
				t.Fatalf("split %d: no rows before Done", i)
			}
			for _, row := range rows[:n] {
				r := int64(i) + int64(cfg.SplitNum)*off
				if out[r] != nil {
					t.Fatalf("row %d generated twice", r)
				}
				out[r] = row
				off++
			}
		}
		if s.Next(newRows(chunk, s.Width())) != 0 {
			t.Fatalf("split %d: rows after Done", i)
		}
	}
	return out
}

// mustParse parses options for cols or fails the test.
func mustParse(t interface{ Fatalf(string, ...any) }, cols []Column, opts map[string]string) Config {
	cfg, err := ParseOptions(cols, opts, created)
	if err != nil {
		t.Fatalf("ParseOptions: %v", err)
	}
	return cfg
}

// equalRows compares rows value by value.
func equalRows(a, b []types.Datum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind() != b[i].Kind() || types.Compare(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

var mixedColumns = []Column{
	{"id", types.TInt8},
	{"i", types.TInt4},
	{"f", types.TFloat8},
	{"n", types.T{Family: types.Numeric, Mod: types.NumericMod(10, 2)}},
	{"b", types.TBool},
	{"s", types.TVarchar},
	{"ts", types.TTimestampTZ},
	{"d", types.TDate},
}

// TestSplitsPartition checks that the rows of a table do not depend on its
// number of splits.
func TestSplitsPartition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		end := rapid.IntRange(0, 500).Draw(t, "end")
		opts := map[string]string{
			"fields.id.kind": "sequence", "fields.id.start": "-3", "fields.id.end": strconv.Itoa(end),
			"fields.i.min": "-5", "fields.i.max": "5", "fields.n.max": "10",
		}
		one := table(t, mustParse(t, mixedColumns, opts), rapid.IntRange(1, 100).Draw(t, "chunk"))
		opts["datagen.split.num"] = strconv.Itoa(rapid.IntRange(2, 6).Draw(t, "splits"))
		many := table(t, mustParse(t, mixedColumns, opts), rapid.IntRange(1, 30).Draw(t, "split chunk"))
		if len(one) != end+4 || len(many) != len(one) {
			t.Fatalf("%d rows in one split, %d over several, want %d", len(one), len(many), end+4)
		}
		for r, row := range one {
			if !equalRows(many[r], row) || row[0].Int() != r-3 {
				t.Fatalf("row %d: %v over splits, %v in one", r, many[r], row)
			}
		}
	})
}

// TestSetOffsetResumes checks that a split set to a checkpointed offset
// continues exactly as the old one.
func TestSetOffsetResumes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		splits := rapid.IntRange(1, 4).Draw(t, "splits")
		cfg := mustParse(t, mixedColumns, map[string]string{"datagen.split.num": strconv.Itoa(splits)})
		index := rapid.IntRange(0, splits-1).Draw(t, "index")
		s := NewSplit(cfg, index)
		s.Next(newRows(rapid.IntRange(0, 300).Draw(t, "before"), s.Width()))
		resumed := NewSplit(cfg, index)
		resumed.SetOffset(s.Offset())
		a, b := newRows(50, s.Width()), newRows(50, s.Width())
		if s.Next(a) != 50 || resumed.Next(b) != 50 {
			t.Fatalf("short read")
		}
		for i := range a {
			if !equalRows(a[i], b[i]) {
				t.Fatalf("row %d after resuming: %v, want %v", i, b[i], a[i])
			}
		}
	})
}

// TestSequenceSplits follows RisingWave's partition test: 1..10 over 3
// splits gives 4, 3 and 3 rows.
func TestSequenceSplits(t *testing.T) {
	cols := []Column{{"c1", types.TInt4}, {"c2", types.TFloat4}}
	cfg := mustParse(t, cols, map[string]string{
		"fields.c1.kind": "sequence", "fields.c1.start": "1", "fields.c1.end": "10",
		"fields.c2.kind": "sequence", "fields.c2.start": "1", "fields.c2.end": "10",
		"datagen.split.num": "3",
	})
	for i, want := range [][]int64{{1, 4, 7, 10}, {2, 5, 8}, {3, 6, 9}} {
		s := NewSplit(cfg, i)
		rows := newRows(10, 2)
		n := s.Next(rows)
		var got []int64
		for _, row := range rows[:n] {
			if row[1].Float() != float64(row[0].Int()) {
				t.Fatalf("split %d: float sequence %v beside %v", i, row[1], row[0])
			}
			got = append(got, row[0].Int())
		}
		if !slices.Equal(got, want) || !s.Done() {
			t.Fatalf("split %d: %v (done %v), want %v", i, got, s.Done(), want)
		}
	}
}

func TestPace(t *testing.T) {
	cfg := mustParse(t, []Column{{"v", types.TInt8}}, map[string]string{
		"datagen.rows.per.second": "10", "datagen.split.num": "2", "fields.v.kind": "sequence",
	})
	for _, c := range []struct {
		from, rows int
		want       time.Duration
	}{
		{0, 0, 0},
		{0, 5, time.Second},
		{7, 10, 2 * time.Second},
	} {
		s := NewSplit(cfg, 0)
		s.SetOffset(int64(c.from))
		s.Next(newRows(c.rows, s.Width()))
		if got := s.Pace(); got != c.want {
			t.Errorf("%d rows from offset %d at 5 rows/s: Pace = %v, want %v", c.rows, c.from, got, c.want)
		}
	}
}

func TestRate(t *testing.T) {
	for _, c := range []struct {
		rps, splits int
		want        []int64
	}{
		{10, 1, []int64{10}},
		{10, 3, []int64{4, 3, 3}},
		{2, 4, []int64{1, 1, 0, 0}},
	} {
		cfg := mustParse(t, nil, map[string]string{
			"datagen.rows.per.second": strconv.Itoa(c.rps), "datagen.split.num": strconv.Itoa(c.splits),
		})
		for i, want := range c.want {
			if got := NewSplit(cfg, i).Rate(); got != want {
				t.Errorf("%d rows/s over %d splits: split %d rate %d, want %d", c.rps, c.splits, i, got, want)
			}
		}
	}
}
