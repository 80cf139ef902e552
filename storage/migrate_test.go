package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/sstable"
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
// in small SSTs, each ingested or written through a batch) and checks
// that the receiver reads the range at s as the sender does, that what it
// held of the range before is gone, and that the rest of its store is
// untouched; then that dropping the range (an excise, or range
// deletions) leaves the sender nothing of it and the rest intact.
func TestMigrateVNodes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src, dst := openTest(t, t.TempDir()), openTest(t, t.TempDir())
		defer src.Close()
		defer dst.Close()
		// writes applies random versions to e: tables 7 and 8, vnodes 0-7.
		writes := func(e *Engine, label string, n, first, last int) {
			b := e.NewBatch()
			for i := 0; i < n; i++ {
				table := uint32(rapid.IntRange(7, 8).Draw(rt, label+"table"))
				vnode := uint16(rapid.IntRange(0, 7).Draw(rt, label+"vnode"))
				key := AppendKey(nil, table, vnode, []byte{byte(rapid.IntRange(0, 5).Draw(rt, label+"pk"))})
				epoch := uint64(rapid.IntRange(first, last).Draw(rt, label+"epoch"))
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
		// The source's versions in a few SSTs (flushed apart), so that a
		// delta's read skips the blocks of other epochs.
		for c := range rapid.IntRange(1, 3).Draw(rt, "source flushes") {
			writes(src, "s", rapid.IntRange(0, 60).Draw(rt, "source writes"), 1+7*c, 7+7*c)
			if err := src.db.Flush(); err != nil {
				rt.Fatal(err)
			}
		}
		writes(dst, "d", rapid.IntRange(0, 30).Draw(rt, "leftovers"), 1, 20)
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
				ssts = append(ssts, slices.Clone(sst))
				return nil
			}); err != nil {
				rt.Fatal(err)
			}
			if round == 0 {
				// A first copy replaces the receiver's leftovers.
				if err := dst.ExciseVNodes(ctx, r); err != nil {
					rt.Fatal(err)
				}
			}
			rcv := dst.NewReceiver()
			if !rapid.Bool().Draw(rt, "through a batch") {
				rcv.applyMax = 0
			}
			for _, sst := range ssts {
				if err := rcv.Add(sst); err != nil {
					rt.Fatal(err)
				}
			}
			if err := rcv.Finish(ctx); err != nil {
				rt.Fatal(err)
			}
		}
		if got, want := scanKeys(rt, dst, lower, upper, s), scanKeys(rt, src, lower, upper, s); fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("%s at epoch %d after moving it (e0 %d):\n got %v\nwant %v", r, s, e0, got, want)
		}
		if after := outside(dst); fmt.Sprint(after) != fmt.Sprint(before) {
			rt.Fatalf("the receiver's keys outside %s changed:\n got %v\nwant %v", r, after, before)
		}
		srcOutside := outside(src)
		drop := func() error { return src.ExciseVNodes(ctx, r) }
		if rapid.Bool().Draw(rt, "drop with range deletions") {
			drop = func() error { return src.DropVNodes([]VNodeRange{r}) }
		}
		if err := drop(); err != nil {
			rt.Fatal(err)
		}
		if left := scanKeys(rt, src, lower, upper, 20); len(left) > 0 {
			rt.Fatalf("%s after dropping it: %v", r, left)
		}
		if after := outside(src); fmt.Sprint(after) != fmt.Sprint(srcOutside) {
			rt.Fatalf("the sender's keys outside %s changed as it dropped it:\n got %v\nwant %v", r, after, srcOutside)
		}
	})
}

// BenchmarkMigrateVNodes moves 8 vnodes of 2^18 rows of state between two
// stores (export as SSTs, then ingest with excise, as a pre-copy does) and
// copies the sender's store files byte for byte between the same two
// directories, the baseline: it reports both rates, in MB/s of state.
func BenchmarkMigrateVNodes(b *testing.B) {
	srcDir := b.TempDir()
	src := openTest(b, srcDir)
	defer src.Close()
	const rows, table = 1 << 18, 9
	// Values like a state row's: a few numbers and text, compressible
	// about as much as real rows (not all zeros).
	rng := rand.New(rand.NewPCG(1, 2))
	value := make([]byte, 240)
	for start := 0; start < rows; start += 4096 {
		batch := src.NewBatch()
		for i := start; i < start+4096; i++ {
			key := AppendKey(nil, table, uint16(i%8), fmt.Appendf(nil, "%012d", i))
			for j := range value {
				value[j] = 'a' + byte(rng.IntN(16))
			}
			batch.Put(key, 1, value)
		}
		if err := batch.Commit(false); err != nil {
			b.Fatal(err)
		}
	}
	if err := src.db.Flush(); err != nil {
		b.Fatal(err)
	}
	r := VNodeRange{Table: table, Lo: 0, Hi: 8}
	var moved int64
	var exporting, ingesting time.Duration
	for range b.N {
		dst := openTest(b, b.TempDir())
		var ssts [][]byte
		moved = 0
		start := time.Now()
		if err := src.ExportVNodes(r, 0, 1, 1<<20, func(sst []byte) error {
			ssts = append(ssts, slices.Clone(sst))
			moved += int64(len(sst))
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		exporting += time.Since(start)
		start = time.Now()
		if err := dst.IngestVNodes(context.Background(), ssts); err != nil {
			b.Fatal(err)
		}
		ingesting += time.Since(start)
		dst.Close()
	}
	migrate := float64(moved) * float64(b.N) / (exporting + ingesting).Seconds() / 1e6
	// The baseline: the same bytes read from the sender's directory and
	// written to a new one, synced.
	files, _ := filepath.Glob(filepath.Join(srcDir, "*.sst"))
	var copied int64
	start := time.Now()
	for range b.N {
		dir := b.TempDir()
		copied = 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			out, err := os.Create(filepath.Join(dir, filepath.Base(f)))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := out.Write(data); err != nil {
				b.Fatal(err)
			}
			if err := errors.Join(out.Sync(), out.Close()); err != nil {
				b.Fatal(err)
			}
			copied += int64(len(data))
		}
	}
	raw := float64(copied) * float64(b.N) / time.Since(start).Seconds() / 1e6
	b.ReportMetric(exporting.Seconds()*1e3/float64(b.N), "export_ms")
	b.ReportMetric(ingesting.Seconds()*1e3/float64(b.N), "ingest_ms")
	b.ReportMetric(float64(moved)/1e6, "MB_moved")
	b.ReportMetric(migrate, "migrate_MB/s")
	b.ReportMetric(raw, "raw_copy_MB/s")
	b.ReportMetric(migrate/raw, "migrate/raw")
}

// TestExportTablesChain checks a durable checkpoint chain as shared
// storage keeps it: a base of every table as of e1 and the deltas up to
// e2 and e3, ingested in order into an empty store, read at e3 as the
// source does, for every table; each SST holds keys of one table, with
// the vnodes of its first and last keys. A third store takes a vnode
// range of all the chain's files at once (IngestMerged, a reference
// handoff): it holds that range as the source does and nothing else; a
// fourth takes every version of them at once, as a restore does.
func TestExportTablesChain(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src, dst, part, whole := openTest(t, t.TempDir()), openTest(t, t.TempDir()), openTest(t, t.TempDir()), openTest(t, t.TempDir())
		defer src.Close()
		defer dst.Close()
		defer part.Close()
		defer whole.Close()
		var chain [][][]byte
		moved := []VNodeRange{{Table: 4, Lo: uint16(rapid.IntRange(0, 4).Draw(rt, "lo"))}}
		moved[0].Hi = moved[0].Lo + uint16(rapid.IntRange(1, 5).Draw(rt, "width"))
		write := func(first, last uint64) {
			b := src.NewBatch()
			for i := range rapid.IntRange(0, 60).Draw(rt, "writes") {
				key := AppendKey(nil, uint32(rapid.IntRange(3, 6).Draw(rt, "table")), uint16(rapid.IntRange(0, 9).Draw(rt, "vnode")),
					[]byte{byte(rapid.IntRange(0, 5).Draw(rt, "pk"))})
				epoch := uint64(rapid.IntRange(int(first), int(last)).Draw(rt, "epoch"))
				if rapid.IntRange(0, 3).Draw(rt, "delete") == 0 {
					b.Delete(key, epoch)
				} else {
					b.Put(key, epoch, fmt.Appendf(nil, "v%d@%d", i, epoch))
				}
			}
			if err := b.Commit(false); err != nil {
				rt.Fatal(err)
			}
		}
		maxBytes := rapid.IntRange(50, 4000).Draw(rt, "sst bytes")
		var from uint64
		for _, to := range []uint64{10, 20, 30} {
			write(from+1, to)
			var ssts [][]byte
			err := src.ExportTables(from, to, maxBytes, func(s SST) error {
				first, last := -1, -1
				if err := scanSST(src, s.Data, func(table uint32, vnode uint16) {
					if table != s.Table {
						rt.Fatalf("an SST of table %d holds a key of table %d", s.Table, table)
					}
					if first < 0 {
						first = int(vnode)
					}
					last = int(vnode)
				}); err != nil {
					rt.Fatal(err)
				}
				if first != int(s.Lo) || last != int(s.Hi) {
					rt.Fatalf("SST of table %d says vnodes %d..%d, holds %d..%d", s.Table, s.Lo, s.Hi, first, last)
				}
				ssts = append(ssts, slices.Clone(s.Data))
				return nil
			})
			if err != nil {
				rt.Fatal(err)
			}
			if err := dst.IngestVNodes(context.Background(), ssts); err != nil {
				rt.Fatal(err)
			}
			chain = append(chain, ssts)
			// Versions newer than the checkpoint, which it must not take.
			write(to+1, to+5)
			from = to
		}
		files := func(dir string) ([][]string, error) {
			var groups [][]string
			for c, ssts := range chain {
				var paths []string
				for i, b := range ssts {
					paths = append(paths, filepath.Join(dir, fmt.Sprintf("%d-%d.sst", c, i)))
					if err := os.WriteFile(paths[i], b, 0o644); err != nil {
						return nil, err
					}
				}
				groups = append(groups, paths)
			}
			return groups, nil
		}
		if _, err := part.IngestMerged(context.Background(), moved, files); err != nil {
			rt.Fatal(err)
		}
		if _, err := whole.IngestMerged(context.Background(), nil, files); err != nil {
			rt.Fatal(err)
		}
		for table := uint32(3); table <= 6; table++ {
			lo, hi := TablePrefix(table), TablePrefix(table+1)
			want := scanKeys(rt, src, lo, hi, 30)
			for name, e := range map[string]*Engine{"one ingest per checkpoint": dst, "one merged ingest": whole} {
				if got := scanKeys(rt, e, lo, hi, 30); fmt.Sprint(want) != fmt.Sprint(got) {
					rt.Fatalf("table %d restored at 30 (%s):\n got %v\nwant %v", table, name, got, want)
				}
			}
		}
		lo, hi := AppendKey(nil, 4, moved[0].Lo, nil), AppendKey(nil, 4, moved[0].Hi, nil)
		if want, got := scanKeys(rt, src, lo, hi, 30), scanKeys(rt, part, lo, hi, 30); fmt.Sprint(want) != fmt.Sprint(got) {
			rt.Fatalf("vnodes %v taken from the files:\n got %v\nwant %v", moved, got, want)
		}
		if n := len(scanKeys(rt, part, nil, nil, 30)); n != len(scanKeys(rt, part, lo, hi, 30)) {
			rt.Fatalf("the store that took %v holds %d keys, %d of them outside", moved, n, n-len(scanKeys(rt, part, lo, hi, 30)))
		}
	})
}

// scanSST calls fn with the table and vnode of every key of an SST.
func scanSST(e *Engine, data []byte, fn func(table uint32, vnode uint16)) error {
	r, err := sstable.NewMemReader(data, e.opts.MakeReaderOptions())
	if err != nil {
		return err
	}
	defer r.Close()
	it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles)
	if err != nil {
		return err
	}
	defer it.Close()
	for kv := it.First(); kv != nil; kv = it.Next() {
		k := kv.K.UserKey
		fn(binary.BigEndian.Uint32(k), binary.BigEndian.Uint16(k[4:]))
	}
	return nil
}
