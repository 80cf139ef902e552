package nexmark

import (
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// newRows allocates n rows of width w.
func newRows(n, w int) [][]types.Datum {
	rows := make([][]types.Datum, n)
	slab := make([]types.Datum, n*w)
	for i := range rows {
		rows[i] = slab[i*w : (i+1)*w : (i+1)*w]
	}
	return rows
}

// drain reads s to its end in chunks of at most chunk rows, returning the
// rows by offset.
func drain(t interface{ Fatalf(string, ...any) }, s *Split, chunk int) map[int64][]types.Datum {
	rows := make(map[int64][]types.Datum)
	for !s.Done() {
		off := s.Offset()
		got := newRows(chunk, s.Width())
		got = got[:s.Next(got)]
		if len(got) == 0 {
			t.Fatalf("Next returned no rows before Done")
		}
		for _, row := range got {
			rows[off] = row
			off += s.step
		}
		if off != s.Offset() {
			t.Fatalf("offset %d after %d rows, want %d", s.Offset(), len(got), off)
		}
	}
	if s.Next(newRows(chunk, s.Width())) != 0 {
		t.Fatalf("Next returned rows after Done")
	}
	return rows
}

func drawConfig(t *rapid.T) Config {
	cfg := DefaultConfig()
	cfg.Table = EventType(rapid.IntRange(0, 2).Draw(t, "table"))
	cfg.EventNum = rapid.Int64Range(1, 2000).Draw(t, "events")
	cfg.Seed = rapid.Int64Range(0, 3).Draw(t, "seed")
	return cfg
}

// TestSplitsPartition checks that the splits of a table partition it: their
// union, by offset, is what a single split produces.
func TestSplitsPartition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		single := drain(t, NewSplit(cfg, 0), rapid.IntRange(1, 300).Draw(t, "chunk"))
		cfg.SplitNum = rapid.IntRange(2, 7).Draw(t, "splits")
		union := make(map[int64][]types.Datum)
		for i := range cfg.SplitNum {
			for off, row := range drain(t, NewSplit(cfg, i), rapid.IntRange(1, 50).Draw(t, "split chunk")) {
				if int(off%int64(cfg.SplitNum)) != i || union[off] != nil {
					t.Fatalf("split %d produced offset %d", i, off)
				}
				union[off] = row
			}
		}
		if len(union) != len(single) {
			t.Fatalf("%d rows over %d splits, %d in one", len(union), cfg.SplitNum, len(single))
		}
		for off, row := range single {
			if !slices.Equal(union[off], row) {
				t.Fatalf("offset %d: %v over splits, %v in one", off, union[off], row)
			}
		}
	})
}

// TestSetOffsetResumes checks that a new split set to a checkpointed offset
// continues exactly as the old one.
func TestSetOffsetResumes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		cfg.SplitNum = rapid.IntRange(1, 4).Draw(t, "splits")
		index := rapid.IntRange(0, cfg.SplitNum-1).Draw(t, "index")
		s := NewSplit(cfg, index)
		s.Next(newRows(rapid.IntRange(0, 500).Draw(t, "before"), s.Width()))
		checkpoint := s.Offset()
		want := drain(t, s, 64)
		resumed := NewSplit(cfg, index)
		resumed.SetOffset(checkpoint)
		got := drain(t, resumed, 7)
		if len(got) != len(want) {
			t.Fatalf("resumed at %d: %d rows, want %d", checkpoint, len(got), len(want))
		}
		for off, row := range want {
			if !slices.Equal(got[off], row) {
				t.Fatalf("offset %d: %v, want %v", off, got[off], row)
			}
		}
	})
}

// TestEventNum checks that a table holds exactly its events numbered below
// EventNum, and that they are the Generator's events.
func TestEventNum(t *testing.T) {
	for _, table := range []EventType{PersonEvent, AuctionEvent, BidEvent} {
		cfg := DefaultConfig()
		cfg.Table, cfg.EventNum = table, 1234
		rows := drain(t, NewSplit(cfg, 0), 100)
		var want []Event
		for _, e := range events(cfg, int(cfg.EventNum)) {
			if e.Type == table {
				want = append(want, e)
			}
		}
		if len(rows) != len(want) {
			t.Fatalf("%v: %d rows, want %d", table, len(rows), len(want))
		}
		if got := cfg.Rows(); got != int64(len(want)) {
			t.Errorf("%v: Rows() = %d, want %d", table, got, len(want))
		}
		// The last row's event number is below EventNum, the next's not.
		if n := cfg.EventNumber(int64(len(want)) - 1); n >= cfg.EventNum || cfg.EventNumber(int64(len(want))) < cfg.EventNum {
			t.Errorf("%v: EventNumber of the last row %d, of the next %d; EventNum %d", table, n, cfg.EventNumber(int64(len(want))), cfg.EventNum)
		}
		row := make([]types.Datum, len(Schema(table)))
		for i, e := range want {
			switch table {
			case PersonEvent:
				e.Person.fillRow(row)
			case AuctionEvent:
				e.Auction.fillRow(row)
			default:
				e.Bid.fillRow(row)
			}
			if !slices.Equal(rows[int64(i)], row) {
				t.Fatalf("%v row %d: %v, want %v", table, i, rows[int64(i)], row)
			}
		}
	}
}

func TestSchema(t *testing.T) {
	kinds := map[types.Family]types.Kind{types.Int8: types.KindInt, types.Varchar: types.KindString, types.Timestamp: types.KindTimestamp}
	for _, table := range []EventType{PersonEvent, AuctionEvent, BidEvent} {
		cfg := DefaultConfig()
		cfg.Table = table
		s := NewSplit(cfg, 0)
		cols := Schema(table)
		if s.Width() != len(cols) {
			t.Fatalf("%v: rows of width %d, schema has %d columns", table, s.Width(), len(cols))
		}
		rows := newRows(3, len(cols))
		if n := s.Next(rows); n != 3 {
			t.Fatalf("%v: %d rows", table, n)
		}
		for _, row := range rows {
			for i, c := range cols {
				if row[i].Kind() != kinds[c.Type.Family] {
					t.Fatalf("%v.%s holds a %v", table, c.Name, row[i].Kind())
				}
			}
		}
	}
	if got := Schema(BidEvent)[4].Name; got != "url" {
		t.Fatalf("bid column 4 is %q", got)
	}
}

func TestPace(t *testing.T) {
	for _, c := range []struct {
		name     string
		realTime bool
		table    EventType
		rows     int
		want     time.Duration
	}{
		// 46 bids span one round of 50 events: 50 gaps of 100 µs.
		{"gap", false, BidEvent, 46, 5 * time.Millisecond},
		{"gap persons", false, PersonEvent, 2, 10 * time.Millisecond},
		// Event time runs at 10 events per ms.
		{"real time", true, BidEvent, 46, 5 * time.Millisecond},
		{"real time auctions", true, AuctionEvent, 30, 50 * time.Millisecond},
		{"nothing yet", true, BidEvent, 0, 0},
	} {
		cfg := DefaultConfig()
		cfg.Table, cfg.UseRealTime = c.table, c.realTime
		s := NewSplit(cfg, 0)
		s.Next(newRows(c.rows, s.Width()))
		if got := s.Pace(); got != c.want {
			t.Errorf("%s: Pace = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestNextAllocations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Table = BidEvent
	s := NewSplit(cfg, 0)
	rows := newRows(256, s.Width())
	// One string per row.
	if got := testing.AllocsPerRun(20, func() { s.Next(rows) }); got > 256 {
		t.Fatalf("%.0f allocations per 256 rows", got)
	}
	cfg.EventNum = 1
	done := NewSplit(cfg, 0)
	if got := testing.AllocsPerRun(20, func() { done.Next(rows) }); got != 0 {
		t.Fatalf("%.0f allocations by a finished split", got)
	}
}
