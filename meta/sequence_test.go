package meta

import (
	"context"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestSequenceOptions checks CREATE and ALTER SEQUENCE's defaults and
// errors against PostgreSQL's.
func TestSequenceOptions(t *testing.T) {
	cases := []struct {
		name string
		old  *Sequence
		o    SeqOptions
		want Sequence // when code is ""
		code string
	}{
		{"defaults", nil, SeqOptions{}, Sequence{TypeOID: types.OIDInt8, Start: 1, Increment: 1, Min: 1, Max: 1<<63 - 1, Cache: 1}, ""},
		{"descending", nil, SeqOptions{Increment: new(int64(-2))}, Sequence{TypeOID: types.OIDInt8, Start: -1, Increment: -2, Min: -1 << 63, Max: -1, Cache: 1}, ""},
		{"smallint", nil, SeqOptions{As: types.OIDInt2, Start: new(int64(10))}, Sequence{TypeOID: types.OIDInt2, Start: 10, Increment: 1, Min: 1, Max: 32767, Cache: 1}, ""},
		{"not an integer type", nil, SeqOptions{As: types.OIDText}, Sequence{}, pgerror.CodeInvalidParameterValue},
		{"zero increment", nil, SeqOptions{Increment: new(int64(0))}, Sequence{}, pgerror.CodeInvalidParameterValue},
		{"max out of type", nil, SeqOptions{As: types.OIDInt2, Max: new(int64(100000))}, Sequence{}, pgerror.CodeInvalidParameterValue},
		{"min above max", nil, SeqOptions{Min: new(int64(5)), Max: new(int64(5))}, Sequence{}, pgerror.CodeInvalidParameterValue},
		{"start below min", nil, SeqOptions{Min: new(int64(5)), Start: new(int64(1))}, Sequence{}, pgerror.CodeInvalidParameterValue},
		{"zero cache", nil, SeqOptions{Cache: new(int64(0))}, Sequence{}, pgerror.CodeInvalidParameterValue},
		{"alter keeps start", &Sequence{TypeOID: types.OIDInt8, Start: 7, Increment: 1, Min: 1, Max: 100, Cache: 1}, SeqOptions{Increment: new(int64(3))},
			Sequence{TypeOID: types.OIDInt8, Start: 7, Increment: 3, Min: 1, Max: 100, Cache: 1}, ""},
		{"alter type moves a bound at the old limit", &Sequence{TypeOID: types.OIDInt8, Start: 1, Increment: 1, Min: 1, Max: 1<<63 - 1, Cache: 1}, SeqOptions{As: types.OIDInt4},
			Sequence{TypeOID: types.OIDInt4, Start: 1, Increment: 1, Min: 1, Max: 1<<31 - 1, Cache: 1}, ""},
		{"restart above max", &Sequence{TypeOID: types.OIDInt8, Start: 1, Increment: 1, Min: 1, Max: 10, Cache: 1}, SeqOptions{Restart: true, RestartWith: new(int64(11))}, Sequence{}, pgerror.CodeInvalidParameterValue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := c.o.apply(c.old)
			if code := pgerror.Code(err); code != c.code && !(c.code == "" && err == nil) {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if c.code == "" && *got != c.want {
				t.Fatalf("got %+v, want %+v", *got, c.want)
			}
		})
	}
}

// TestSequenceAlloc checks blocks: contiguous, short at the end, cycling
// or 2200H there, and setval.
func TestSequenceAlloc(t *testing.T) {
	up := &Sequence{TypeOID: types.OIDInt8, Start: 1, Increment: 5, Min: 1, Max: 12, Cache: 1}
	cyc := *up
	cyc.Cycle = true
	down := &Sequence{TypeOID: types.OIDInt2, Start: -1, Increment: -1, Min: -32768, Max: -1, Cache: 1}
	huge := &Sequence{TypeOID: types.OIDInt8, Start: 1<<63 - 2, Increment: 1, Min: 1, Max: 1<<63 - 1, Cache: 1}
	cases := []struct {
		name string
		s    *Sequence
		st   SeqState
		n    int64
		want SeqBlock
		code string
	}{
		{"first block", up, up.initialState(), 2, SeqBlock{First: 1, Count: 2, Inc: 5}, ""},
		{"short at the end", up, SeqState{Last: 6, Called: true}, 10, SeqBlock{First: 11, Count: 1, Inc: 5}, ""},
		{"exhausted", up, SeqState{Last: 11, Called: true}, 10, SeqBlock{}, "2200H"},
		{"cycles", &cyc, SeqState{Last: 11, Called: true, Gen: 3}, 10, SeqBlock{First: 1, Count: 3, Inc: 5, Gen: 3}, ""},
		{"descending", down, down.initialState(), 3, SeqBlock{First: -1, Count: 3, Inc: -1}, ""},
		{"no overflow at the type's end", huge, SeqState{Last: 1<<63 - 1, Called: true}, 1, SeqBlock{}, "2200H"},
		{"last value of int8", huge, huge.initialState(), 100, SeqBlock{First: 1<<63 - 2, Count: 2, Inc: 1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, b, err := c.s.alloc("s", c.st, c.n)
			if pgerror.Code(err) != c.code && !(c.code == "" && err == nil) {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if c.code != "" {
				return
			}
			if b != c.want || st.Last != b.Value(b.Count-1) || !st.Called {
				t.Fatalf("block %+v state %+v, want block %+v", b, st, c.want)
			}
		})
	}
	if _, err := up.setval("s", SeqState{}, 13, true); pgerror.Code(err) != pgerror.CodeNumericValueOutOfRange {
		t.Fatalf("setval out of bounds = %v", err)
	}
	if st, _ := up.setval("s", SeqState{Gen: 1}, 6, false); st != (SeqState{Last: 6, Gen: 2}) {
		t.Fatalf("setval = %+v", st)
	}
}

// TestSequenceBlocksReplicated takes blocks concurrently through Raft,
// restarts the catalog, and checks that no value is handed out twice, and
// that a serial sequence goes with its table.
func TestSequenceBlocksReplicated(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Dir: t.TempDir(), TrailingLogs: 1}
	m := openMeta(t, cfg)
	tbl := &Table{Name: "t", Kind: KindTable, Columns: []Column{col("id", types.TInt4), col("v", types.TText)}, PK: []int{0}}
	if _, err := m.CreateTableWithSequences(ctx, tbl, []OwnedSequence{{Column: 0}}, false); err != nil {
		t.Fatal(err)
	}
	seq, ok := m.Catalog().Table("", "t_id_seq")
	if !ok || seq.Sequence.Type() != types.TInt4 {
		t.Fatalf("serial sequence = %+v", seq)
	}
	if tb, _ := m.Catalog().Table("", "t"); tb.Columns[0].Default != "nextval('t_id_seq'::regclass)" || !tb.Columns[0].NotNull {
		t.Fatalf("serial column = %+v", tb.Columns[0])
	}
	seen := map[int64]bool{}
	var mu sync.Mutex
	take := func(n int) {
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				b, err := m.AllocSequence(ctx, seq.ID, 7)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for i := range b.Count {
					if v := b.Value(i); seen[v] {
						t.Errorf("value %d handed out twice", v)
					} else {
						seen[v] = true
					}
				}
			})
		}
		wg.Wait()
	}
	take(8)
	if err := m.raft.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	take(2)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = openMeta(t, cfg)
	defer m.Close()
	take(4)
	if len(seen) != 14*7 {
		t.Fatalf("%d values, want %d", len(seen), 14*7)
	}
	if _, err := m.DropObject(ctx, KindSequence, "", "t_id_seq", false, false); pgerror.Code(err) != pgerror.CodeDependentObjectsStillExist {
		t.Fatalf("drop of a serial's sequence = %v", err)
	}
	dropped, err := m.DropObject(ctx, KindTable, "", "t", false, false)
	if err != nil || len(dropped) != 2 {
		t.Fatalf("drop table = %v, %v; want the table and its sequence", dropped, err)
	}
}
