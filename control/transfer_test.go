package control

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/streamdb/streamdb/storage"
)

// TestTransferPull has n2 pull vnodes 2-5 and 8 of a table from n1 as a
// migration does, a pre-copy as of epoch 2 and then the delta to epoch 3,
// and checks that n2 then reads those vnodes at epoch 3 as n1 does, and
// nothing of the other vnodes.
func TestTransferPull(t *testing.T) {
	n1 := startReader(t, "n1")
	n2 := startReader(t, "n2", n1.meta.RaftAddr())
	const table = 4242
	b := n1.local.NewBatch()
	for i := range 3000 {
		key := storage.AppendKey(nil, table, uint16(i%10), fmt.Appendf(nil, "k%05d", i%1000))
		epoch := uint64(1 + i/1000)
		if i%7 == 0 && epoch > 1 {
			b.Delete(key, epoch)
		} else {
			b.Put(key, epoch, fmt.Appendf(nil, "v%d", i))
		}
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	vnodes := []int{2, 3, 4, 5, 8}
	ranges := vnodeRanges([]uint32{table}, vnodes)
	if fmt.Sprint(ranges) != "[table 4242 vnodes [2, 6) table 4242 vnodes [8, 9)]" {
		t.Fatalf("ranges of %v: %v", vnodes, ranges)
	}
	pull := NewTransfer(context.Background(), func(fn func()) { go fn() }, "n2", n2.meta, n2.local, nil, n2, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	var received int64
	for _, round := range [][2]uint64{{0, 2}, {2, 3}} {
		n, err := pull.Pull(ctx, "n1", &exportRequest{Ranges: ranges, From: round[0], To: round[1]})
		if err != nil {
			t.Fatal(err)
		}
		received += n
	}
	scan := func(e *storage.Engine, lo, hi uint16) []string {
		var out []string
		if err := e.Scan(storage.AppendKey(nil, table, lo, nil), storage.AppendKey(nil, table, hi, nil), 3, func(k, v []byte) error {
			out = append(out, fmt.Sprintf("%x=%s", k, v))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got, want := scan(n2.local, 0, 10), append(scan(n1.local, 2, 6), scan(n1.local, 8, 9)...)
	if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("n2 after pulling %v: %d rows, want %d", ranges, len(got), len(want))
	}
	t.Logf("pulled %v: %d live rows at epoch 3, %d bytes of SSTs", ranges, len(got), received)
}
