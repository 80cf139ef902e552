package storage

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"pgregory.net/rapid"
)

// TestCollectModel checks Collect against a model of versioned writes:
// reads at the horizon or later see what they saw before it, and each key
// keeps no version at or before the horizon but its newest live one.
func TestCollectModel(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	tableID := uint32(1000)
	// Epochs go on across cases: the engine's collection floor only rises.
	var epoch, horizon uint64
	rapid.Check(t, func(t *rapid.T) {
		tableID++
		model := map[string][]version{}
		for range rapid.IntRange(1, 10).Draw(t, "epochs") {
			epoch += rapid.Uint64Range(1, 3).Draw(t, "step")
			b := e.NewBatch()
			for range rapid.IntRange(0, 6).Draw(t, "writes") {
				pk := []byte{rapid.ByteRange('a', 'e').Draw(t, "pk")}
				key := string(AppendKey(nil, tableID, rapid.Uint16Range(0, 1).Draw(t, "vnode"), pk))
				var value []byte
				if rapid.IntRange(0, 2).Draw(t, "put") > 0 {
					value = []byte{rapid.Byte().Draw(t, "value")}
					b.Put([]byte(key), epoch, value)
				} else {
					b.Delete([]byte(key), epoch)
				}
				vs := model[key]
				if n := len(vs); n > 0 && vs[n-1].epoch == epoch {
					vs = vs[:n-1]
				}
				model[key] = append(vs, version{epoch, value})
			}
			if err := b.Commit(false); err != nil {
				t.Fatal(err)
			}
			if rapid.Bool().Draw(t, "flush") {
				if err := e.db.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			if rapid.Bool().Draw(t, "collect") {
				horizon = max(horizon, rapid.Uint64Range(0, epoch).Draw(t, "horizon"))
				st, err := e.Collect(TablePrefix(tableID), TablePrefix(tableID+1), horizon)
				if err != nil || st.Horizon != horizon {
					t.Fatalf("Collect at %d = %+v, %v", horizon, st, err)
				}
				checkCollected(t, e, tableID, model, horizon)
			}
		}
		for at := horizon; at <= epoch+1; at++ {
			var want []string
			for _, key := range slices.Sorted(maps.Keys(model)) {
				var found []byte
				for _, v := range model[key] {
					if v.epoch <= at {
						found = v.value
					}
				}
				if found != nil {
					want = append(want, fmt.Sprintf("%x=%x", key, found))
				}
			}
			var got []string
			err := e.Scan(TablePrefix(tableID), TablePrefix(tableID+1), at, func(k, v []byte) error {
				got = append(got, fmt.Sprintf("%x=%x", k, v))
				return nil
			})
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("Scan at %d (horizon %d) = %v, %v; want %v", at, horizon, got, err, want)
			}
		}
	})
}

// checkCollected checks that each key of table keeps every version after
// horizon and, at or before it, only its newest one if that is live.
func checkCollected(t *rapid.T, e *Engine, table uint32, model map[string][]version, horizon uint64) {
	span := tableSpan(table)
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: span.Start, UpperBound: span.End})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	stored := map[string][]uint64{}
	for valid := it.First(); valid; valid = it.Next() {
		k := it.Key()
		p := split(k)
		stored[string(k[:p-1])] = append(stored[string(k[:p-1])], versionEpoch(k))
	}
	for key, vs := range model {
		var want []uint64
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i].epoch > horizon {
				want = append(want, vs[i].epoch)
				continue
			}
			if vs[i].value != nil {
				want = append(want, vs[i].epoch)
			}
			break
		}
		if got := stored[key]; !slices.Equal(got, want) {
			t.Fatalf("key %x after collecting at %d keeps versions %v, want %v", key, horizon, got, want)
		}
	}
}

// TestPin checks that a pin holds the horizon back and that an epoch the
// collector passed cannot be pinned.
func TestPin(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	key := AppendKey(nil, 7, 1, []byte("k"))
	commit(t, e, 7, write{"k", 1, []byte("a")}, write{"k", 2, []byte("b")}, write{"k", 3, []byte("c")})
	unpin, err := e.Pin(2)
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Collect(nil, nil, 3)
	if err != nil || st.Horizon != 2 || st.Deleted != 1 {
		t.Fatalf("Collect at 3 pinned at 2 = %+v, %v; want horizon 2, 1 deleted", st, err)
	}
	if v, ok, err := e.Get(key, 2); err != nil || !ok || string(v) != "b" {
		t.Fatalf("Get at the pinned epoch = %q, %v, %v", v, ok, err)
	}
	unpin()
	unpin() // a second call does nothing
	if st, err := e.Collect(nil, nil, 3); err != nil || st.Horizon != 3 || st.Deleted != 1 {
		t.Fatalf("Collect at 3 unpinned = %+v, %v; want horizon 3, 1 deleted", st, err)
	}
	if _, err := e.Pin(2); !errors.Is(err, ErrCollected) {
		t.Fatalf("Pin below the floor: %v, want ErrCollected", err)
	}
	if unpin, err := e.Pin(3); err != nil {
		t.Fatal(err)
	} else {
		unpin()
	}
	// A pin for a while holds until it is released, or its time is up.
	unpin, err = e.PinFor(3, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	commit(t, e, 7, write{"k", 4, []byte("d")})
	if st, err := e.Collect(nil, nil, 4); err != nil || st.Horizon != 3 {
		t.Fatalf("Collect at 4 pinned at 3 for an hour = %+v, %v", st, err)
	}
	unpin()
	if _, err := e.PinFor(4, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// The pin of 4 goes by itself: wait for it (a pin at 4 does not hold
	// the horizon below 4 anyway).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		e.horizon.mu.Lock()
		n := len(e.horizon.pins)
		e.horizon.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a pin for a millisecond still holds after 10 s")
		}
	}
	if st, err := e.Collect(nil, nil, 4); err != nil || st.Horizon != 4 || st.Deleted != 1 {
		t.Fatalf("Collect at 4 after the pins went = %+v, %v; want horizon 4, 1 deleted", st, err)
	}
}

// TestLatestVersions checks that ScanLatest and GetLatest report each
// key's newest version and whether older ones are stored, and that Purge
// removes exactly one version.
func TestLatestVersions(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	commit(t, e, 8, write{"a", 1, []byte("a1")}, write{"b", 1, []byte("b1")}, write{"b", 3, []byte("b3")},
		write{"c", 2, []byte("c2")}, write{"c", 4, nil})
	scan := func() string {
		var got []string
		err := e.ScanLatest(TablePrefix(8), TablePrefix(9), func(k, v []byte, ver Version) error {
			got = append(got, fmt.Sprintf("%s=%s@%d/%v", k[6:], v, ver.Epoch, ver.Older))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	if got, want := scan(), "[a=a1@1/false b=b3@3/true]"; got != want {
		t.Fatalf("ScanLatest = %s, want %s", got, want)
	}
	key := AppendKey(nil, 8, 1, []byte("b"))
	if v, ver, ok, err := e.GetLatest(key); err != nil || !ok || string(v) != "b3" || ver != (Version{3, true}) {
		t.Fatalf("GetLatest(b) = %q, %+v, %v, %v", v, ver, ok, err)
	}
	b := e.NewBatch()
	b.Purge(key, 1)
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	if got, want := scan(), "[a=a1@1/false b=b3@3/false]"; got != want {
		t.Fatalf("after purging b@1: ScanLatest = %s, want %s", got, want)
	}
	if _, ver, ok, err := e.GetLatest(AppendKey(nil, 8, 1, []byte("c"))); err != nil || ok || ver.Epoch != 4 {
		t.Fatalf("GetLatest(c) = %+v, %v, %v; want absent (a tombstone at 4)", ver, ok, err)
	}
}
