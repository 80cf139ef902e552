package storage

import (
	"context"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// scanKeys returns the live rows of [lower, upper) at epoch as
// "key=value" strings, whole keys in hex.
func scanKeys(t *rapid.T, e *Engine, lower, upper []byte, epoch uint64) []string {
	var out []string
	if err := e.Scan(lower, upper, epoch, func(k, v []byte) error {
		out = append(out, fmt.Sprintf("%x=%s", k, v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMigrateVNodes moves a vnode range from one store to another as a
// migration does (a pre-copy as of e0, then the delta up to the switch s,
// in small SSTs) and checks that the receiver reads the range at s as the
// sender does, that what it held of the range before is gone, and that the
// rest of its store is untouched; then that excising the range leaves the
// sender nothing of it.
func TestMigrateVNodes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src, dst := openTest(t, t.TempDir()), openTest(t, t.TempDir())
		defer src.Close()
		defer dst.Close()
		// writes applies random versions to e: tables 7 and 8, vnodes 0-7.
		writes := func(e *Engine, label string, n int) {
			b := e.NewBatch()
			for i := 0; i < n; i++ {
				table := uint32(rapid.IntRange(7, 8).Draw(rt, label+"table"))
				vnode := uint16(rapid.IntRange(0, 7).Draw(rt, label+"vnode"))
				key := AppendKey(nil, table, vnode, []byte{byte(rapid.IntRange(0, 5).Draw(rt, label+"pk"))})
				epoch := uint64(rapid.IntRange(1, 20).Draw(rt, label+"epoch"))
				if rapid.IntRange(0, 3).Draw(rt, label+"delete") == 0 {
					b.Delete(key, epoch)
				} else {
					b.Put(key, epoch, fmt.Appendf(nil, "%s%d", label, i))
				}
			}
			if err := b.Commit(false); err != nil {
				rt.Fatal(err)
			}
		}
		writes(src, "s", rapid.IntRange(0, 120).Draw(rt, "source writes"))
		writes(dst, "d", rapid.IntRange(0, 30).Draw(rt, "leftovers"))
		lo := uint16(rapid.IntRange(0, 6).Draw(rt, "lo"))
		r := VNodeRange{Table: 7, Lo: lo, Hi: uint16(rapid.IntRange(int(lo)+1, 8).Draw(rt, "hi"))}
		e0 := uint64(rapid.IntRange(0, 20).Draw(rt, "e0"))
		s := uint64(rapid.IntRange(int(e0), 20).Draw(rt, "s"))
		span := func() ([]byte, []byte) { return AppendKey(nil, 7, r.Lo, nil), AppendKey(nil, 7, r.Hi, nil) }
		lower, upper := span()
		outside := func(e *Engine) [2][]string {
			return [2][]string{scanKeys(rt, e, TablePrefix(7), lower, 20), scanKeys(rt, e, upper, TablePrefix(9), 20)}
		}
		before := outside(dst)
		maxBytes := rapid.IntRange(1, 200).Draw(rt, "sst bytes")
		ctx := context.Background()
		for round, bounds := range [][2]uint64{{0, e0}, {e0, s}} {
			var ssts [][]byte
			if err := src.ExportVNodes(r, bounds[0], bounds[1], maxBytes, func(sst []byte) error {
				ssts = append(ssts, sst)
				return nil
			}); err != nil {
				rt.Fatal(err)
			}
			if err := dst.IngestVNodes(ctx, r, ssts, round == 0); err != nil {
				rt.Fatal(err)
			}
		}
		if got, want := scanKeys(rt, dst, lower, upper, s), scanKeys(rt, src, lower, upper, s); fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("%s at epoch %d after moving it (e0 %d):\n got %v\nwant %v", r, s, e0, got, want)
		}
		if after := outside(dst); fmt.Sprint(after) != fmt.Sprint(before) {
			rt.Fatalf("the receiver's keys outside %s changed:\n got %v\nwant %v", r, after, before)
		}
		if err := src.ExciseVNodes(ctx, r); err != nil {
			rt.Fatal(err)
		}
		if left := scanKeys(rt, src, lower, upper, 20); len(left) > 0 {
			rt.Fatalf("%s after excising it: %v", r, left)
		}
	})
}
