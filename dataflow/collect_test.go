package dataflow

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestStoreCollect checks that the store scans a table vnode once enough
// of its writes are at or before the horizon, and that the scan leaves
// what reads at the horizon see.
func TestStoreCollect(t *testing.T) {
	e, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := NewStore(e)
	key := func(vnode uint16, i int) []byte {
		return storage.AppendKey(nil, 9, vnode, fmt.Appendf(nil, "k%03d", i))
	}
	// Vnode 1: 100 keys written in each of epochs 1-6, the odd ones
	// deleted at 5; vnode 2: 10 keys written once (too few writes to
	// scan).
	for epoch := uint64(1); epoch <= 6; epoch++ {
		var writes []Write
		for i := range 100 {
			w := Write{Key: key(1, i)}
			if epoch != 5 || i%2 == 0 {
				w.Value = fmt.Appendf(nil, "v%d", epoch)
			}
			writes = append(writes, w)
		}
		if epoch == 1 {
			for i := range 10 {
				writes = append(writes, Write{Key: key(2, i), Value: []byte("x")})
			}
		}
		s.Stage(epoch, writes)
		if err := s.Seal(epoch, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Collect(3)
	if err != nil || st.Scans != 1 || st.Deleted != 200 {
		t.Fatalf("Collect(3) = %+v, %v; want vnode 1 scanned, 200 versions deleted", st, err)
	}
	// The 200 writes of epochs 4 and 5 are fewer than collectMin.
	if st, err := s.Collect(5); err != nil || st.Scans != 0 {
		t.Fatalf("Collect(5) = %+v, %v; want nothing due", st, err)
	}
	// With epoch 6's, the versions of 3, 4 and 5 go.
	st, err = s.Collect(6)
	if err != nil || st.Scans != 1 || st.Deleted != 300 {
		t.Fatalf("Collect(6) = %+v, %v; want vnode 1 scanned, 300 versions deleted", st, err)
	}
	if err := e.Scan(storage.TablePrefix(9), storage.TablePrefix(10), 5, func(k, v []byte) error { return nil }); !errors.Is(err, storage.ErrCollected) {
		t.Fatalf("a read at 5 after collecting at 6: %v, want ErrCollected", err)
	}
	live := 0
	err = e.Scan(storage.TablePrefix(9), storage.TablePrefix(10), 6, func(k, v []byte) error {
		if string(k) < string(key(2, 0)) && string(v) != "v6" {
			return fmt.Errorf("key %q = %q", k, v)
		}
		live++
		return nil
	})
	if err != nil || live != 110 {
		t.Fatalf("after collecting, at 6: %d live keys (%v), want 110", live, err)
	}
}

// TestStateTableObsolete checks, against a model, that the versions state
// tables report obsolete leave what reads at the horizon or later see,
// through reloads of the table (a fresh table over the same store, as
// after an eviction or a recovery, which loses the queue), and that
// without reloads they are every version a scan would delete.
func TestStateTableObsolete(tt *testing.T) {
	rapid.Check(tt, func(t *rapid.T) {
		// A fresh store each case (the collection's floor only rises),
		// removed at its end.
		dir, err := os.MkdirTemp(tt.TempDir(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		e, err := storage.Open(dir, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		const table = 100
		s := NewStore(e)
		st := NewStateTable(s, table, pairTypes)
		// history[key][epoch] is the row written at epoch ("" deleted).
		type change struct {
			epoch uint64
			row   string
		}
		history := map[string][]change{}
		at := func(key string, epoch uint64) string {
			v := ""
			for _, c := range history[key] {
				if c.epoch <= epoch {
					v = c.row
				}
			}
			return v
		}
		reloaded := false
		var horizon uint64
		epochs := rapid.Uint64Range(1, 12).Draw(t, "epochs")
		for epoch := uint64(1); epoch <= epochs; epoch++ {
			switch rapid.IntRange(0, 5).Draw(t, "reload") {
			case 0:
				st, reloaded = NewStateTable(s, table, pairTypes), true
			case 1:
				// A recovery at the last epoch: the queue of obsolete
				// versions is lost with the caches.
				s.reset()
				st, reloaded = NewStateTable(s, table, pairTypes), true
			}
			for range rapid.IntRange(0, 8).Draw(t, "changes") {
				vnode := rapid.Uint16Range(0, 1).Draw(t, "vnode")
				prefix := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "prefix")
				suffix := rapid.SampledFrom([]string{"", "x", "y"}).Draw(t, "suffix")
				g, err := st.Group(vnode, types.AppendKey(nil, types.NewString(prefix), false))
				if err != nil {
					t.Fatal(err)
				}
				key := string(storage.AppendKey(nil, table, vnode, append(types.AppendKey(nil, types.NewString(prefix), false), suffix...)))
				row := ""
				if rapid.IntRange(0, 2).Draw(t, "put") > 0 {
					v := rapid.Int64Range(0, 9).Draw(t, "value")
					g.Put([]byte(suffix), pair(v, "r"))
					row = rowString(pair(v, "r"))
				} else {
					g.Delete([]byte(suffix))
				}
				hs := history[key]
				if n := len(hs); n > 0 && hs[n-1].epoch == epoch {
					hs = hs[:n-1]
				}
				history[key] = append(hs, change{epoch, row})
			}
			st.Commit(epoch)
			if err := s.Seal(epoch, nil, true); err != nil {
				t.Fatal(err)
			}
			if rapid.Bool().Draw(t, "collect") {
				horizon = rapid.Uint64Range(horizon, epoch).Draw(t, "horizon")
				if _, err := s.Collect(horizon); err != nil {
					t.Fatal(err)
				}
			}
			for read := horizon; read <= epoch; read++ {
				got := map[string]string{}
				err := e.Scan(storage.TablePrefix(table), storage.TablePrefix(table+1), read, func(k, v []byte) error {
					row, err := types.DecodeRow(v, pairTypes, nil)
					got[string(k)] = rowString(row)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for key := range history {
					if want := at(key, read); got[key] != want {
						t.Fatalf("epoch %d, horizon %d: key %x reads %q at %d, want %q", epoch, horizon, key, got[key], read, want)
					}
				}
			}
		}
		if _, err := s.Collect(epochs); err != nil {
			t.Fatal(err)
		}
		left, err := e.Collect(storage.TablePrefix(table), storage.TablePrefix(table+1), epochs)
		if err != nil {
			t.Fatal(err)
		}
		if !reloaded && left.Deleted > 0 {
			t.Fatalf("a scan after the purges still deleted %d versions", left.Deleted)
		}
	})
}
