package dataflow

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestOutputGroupToOneActor checks that a large chunk for a single actor
// goes on at once as it is, while small ones wait for the barrier,
// gathered, which follows every row pushed before it.
func TestOutputGroupToOneActor(t *testing.T) {
	ch := make(chan Message, 8)
	g := newOutputGroup(DistHash, []int{0}, testVNodes, make([]int, testVNodes), []chan<- Message{ch})
	chunk := func(n int) *Chunk {
		c := &Chunk{}
		for i := range n {
			c.Append(Insert, []types.Datum{types.NewInt(int64(i))})
		}
		return c
	}
	ctx := context.Background()
	large := chunk(passChunkRows)
	if err := g.push(ctx, large); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got != large {
		t.Fatalf("a large chunk did not go on as it is: %v", got)
	}
	for _, c := range []*Chunk{chunk(3), chunk(passChunkRows), chunk(2)} {
		if err := g.push(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if len(ch) != 0 {
		t.Fatalf("%d messages sent while rows were buffered", len(ch))
	}
	if err := g.barrier(ctx, &Barrier{Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	if got := (<-ch).(*Chunk); got.Len() != 3+passChunkRows+2 {
		t.Fatalf("gathered %d rows, want %d", got.Len(), 3+passChunkRows+2)
	}
	if _, ok := (<-ch).(*Barrier); !ok {
		t.Fatal("no barrier after the rows")
	}
}

// TestOutputGroupTruncate checks that a truncate goes to every actor of a
// hash-distributed consumer, after the rows routed to each before it and
// before those after it.
func TestOutputGroupTruncate(t *testing.T) {
	chs, g := twoActorGroup(4)
	c := &Chunk{}
	for i := range 8 {
		c.Append(Insert, []types.Datum{types.NewInt(int64(i))})
	}
	c.Append(Truncate, []types.Datum{types.Unchanged})
	for i := range 8 {
		c.Append(Insert, []types.Datum{types.NewInt(int64(100 + i))})
	}
	ctx := context.Background()
	if err := g.push(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := g.barrier(ctx, &Barrier{Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for a, ch := range chs {
		got := (<-ch).(*Chunk)
		truncates := 0
		for i, op := range got.Ops {
			if op != Truncate {
				continue
			}
			truncates++
			for j, row := range got.Rows {
				if j != i && (row[0].Int() < 100) != (j < i) {
					t.Errorf("actor %d: row %v on the wrong side of the truncate", a, row)
				}
			}
		}
		if truncates != 1 {
			t.Errorf("actor %d got %d truncates, want 1", a, truncates)
		}
		total += got.Len() - 1
	}
	if total != 16 {
		t.Errorf("the actors got %d rows, want 16", total)
	}
}

// TestOutputGroupCols checks an output group whose consumer reads some
// columns in an order of its own (InputSpec.Cols): each row arrives cut to
// them, routed by the hash of its key among them, a truncate as it is, and
// a watermark renumbered, or dropped if its column is not read.
func TestOutputGroupCols(t *testing.T) {
	chs, g := twoActorGroup(8)
	g.cols = []int{2, 0}
	c := &Chunk{}
	for i := range 16 {
		c.Append(Insert, []types.Datum{types.NewInt(int64(i)), types.NewString("unread"), types.NewInt(int64(100 + i))})
	}
	c.Append(Truncate, []types.Datum{types.Unchanged})
	ctx := context.Background()
	if err := g.push(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := g.broadcast(ctx, &Watermark{Col: 1, Val: types.NewInt(5)}); err != nil {
		t.Fatal(err)
	}
	if err := g.broadcast(ctx, &Watermark{Col: 2, Val: types.NewInt(7)}); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for a, ch := range chs {
		got := (<-ch).(*Chunk)
		for i, row := range got.Rows {
			if got.Ops[i] == Truncate {
				continue
			}
			rows++
			if len(row) != 2 || row[0].Int() != row[1].Int()+100 {
				t.Fatalf("actor %d got row %v, want (col 2, col 0)", a, row)
			}
			if to := g.route(row); to != a {
				t.Fatalf("row %v reached actor %d, its key routes it to %d", row, a, to)
			}
		}
		if got.Ops[len(got.Ops)-1] != Truncate {
			t.Fatalf("actor %d: no truncate after its rows:\n%v", a, got)
		}
		if w := (<-ch).(*Watermark); w.Col != 0 || w.Val.Int() != 7 {
			t.Fatalf("actor %d got watermark %+v, want column 2's as column 0 (column 1's is not read)", a, w)
		}
		if len(ch) != 0 {
			t.Fatalf("actor %d got %d more messages", a, len(ch))
		}
	}
	if rows != 16 {
		t.Fatalf("%d rows arrived, want 16", rows)
	}
}

// twoActorGroup returns an output group routing by the hash of column 0
// to two actors, which own the even and the odd vnodes, and their queues
// of n messages each.
func twoActorGroup(n int) ([]chan Message, *outputGroup) {
	chs := []chan Message{make(chan Message, n), make(chan Message, n)}
	owner := make([]int, testVNodes)
	for v := range owner {
		owner[v] = v % 2
	}
	return chs, newOutputGroup(DistHash, []int{0}, testVNodes, owner, []chan<- Message{chs[0], chs[1]})
}
