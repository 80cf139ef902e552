package storage

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func openTest(t testing.TB, dir string) *Engine {
	t.Helper()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// write is one versioned write; value nil means a delete.
type write struct {
	pk    string
	epoch uint64
	value []byte
}

func commit(t testing.TB, e *Engine, tableID uint32, writes ...write) {
	t.Helper()
	b := e.NewBatch()
	for _, w := range writes {
		key := AppendKey(nil, tableID, 1, []byte(w.pk))
		if w.value == nil {
			b.Delete(key, w.epoch)
		} else {
			b.Put(key, w.epoch, w.value)
		}
	}
	if b.Len() != len(writes) {
		t.Fatalf("batch Len = %d, want %d", b.Len(), len(writes))
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
}

// scanAll returns "pk=value" pairs of table 1000, vnode 1, at epoch.
func scanAll(t testing.TB, e *Engine, lower, upper []byte, epoch uint64) []string {
	t.Helper()
	var got []string
	err := e.Scan(lower, upper, epoch, func(k, v []byte) error {
		got = append(got, fmt.Sprintf("%s=%s", k[6:], v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestGetScan(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	commit(t, e, 1000,
		write{"a", 1, []byte("a1")}, write{"b", 1, []byte("b1")}, write{"c", 1, []byte("")},
		write{"a", 3, []byte("a3")}, write{"b", 3, nil}, write{"d", 5, []byte("d5")},
		write{"a\x00", 2, []byte("a0")},
	)
	commit(t, e, 1001, write{"a", 1, []byte("other table")})
	commit(t, e, 999, write{"z", 1, []byte("other table")})

	gets := []struct {
		pk    string
		epoch uint64
		want  string // "" with ok=false is absent
		ok    bool
	}{
		{"a", 0, "", false},
		{"a", 1, "a1", true},
		{"a", 2, "a1", true},
		{"a", 3, "a3", true},
		{"a", ^uint64(0), "a3", true},
		{"b", 2, "b1", true},
		{"b", 3, "", false},
		{"c", 1, "", true},
		{"d", 4, "", false},
		{"d", 5, "d5", true},
		{"a\x00", 2, "a0", true},
		{"e", 9, "", false},
	}
	for _, g := range gets {
		v, ok, err := e.Get(AppendKey(nil, 1000, 1, []byte(g.pk)), g.epoch)
		if err != nil || ok != g.ok || string(v) != g.want {
			t.Errorf("Get(%q, %d) = %q, %v, %v; want %q, %v", g.pk, g.epoch, v, ok, err, g.want, g.ok)
		}
	}

	tab := TablePrefix(1000)
	scans := []struct {
		lower, upper []byte
		epoch        uint64
		want         string
	}{
		{tab, TablePrefix(1001), 0, ""},
		{tab, TablePrefix(1001), 1, "a=a1 b=b1 c="},
		{tab, TablePrefix(1001), 2, "a=a1 a\x00=a0 b=b1 c="},
		{tab, TablePrefix(1001), 3, "a=a3 a\x00=a0 c="},
		{tab, TablePrefix(1001), 9, "a=a3 a\x00=a0 c= d=d5"},
		{AppendKey(nil, 1000, 1, []byte("a\x00")), AppendKey(nil, 1000, 1, []byte("d")), 9, "a\x00=a0 c="},
		{AppendKey(nil, 1000, 1, []byte("a")), AppendKey(nil, 1000, 1, []byte("a\x00")), 9, "a=a3"},
		{AppendKey(nil, 1000, 1, []byte("b")), nil, 9, "c= d=d5 a=other table"},
	}
	for _, s := range scans {
		got := strings.Join(scanAll(t, e, s.lower, s.upper, s.epoch), " ")
		if got != s.want {
			t.Errorf("Scan(%x, %x, %d) = %q, want %q", s.lower, s.upper, s.epoch, got, s.want)
		}
	}

	stop := errors.New("stop")
	n := 0
	err := e.Scan(tab, nil, 9, func(k, v []byte) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Scan with failing callback = %v after %d calls, want stop after 1", err, n)
	}
}

// TestGetAtEpoch checks the point read of a key with versions newer than
// the epoch read, deletions and a re-insertion, and neighbours sharing a
// prefix of its key, from the memtable and from a flushed table per
// commit (where the bloom filters answer for the keys a table lacks).
func TestGetAtEpoch(t *testing.T) {
	gets := []struct {
		pk    string
		epoch uint64
		want  string // "" with ok=false is absent
		ok    bool
	}{
		{"k", 1, "", false},
		{"k", 2, "k2", true},
		{"k", 3, "k2", true},
		{"k", 4, "", false}, // deleted at 4
		{"k", 5, "", false},
		{"k", 6, "k6", true}, // inserted again at 6
		{"k", ^uint64(0), "k6", true},
		{"k\x00", 3, "", false}, // its neighbour is younger
		{"k\x00", 5, "n5", true},
		{"j", 9, "", false},
		{"kk", 9, "", false},
	}
	for _, flushed := range []bool{false, true} {
		e := openTest(t, t.TempDir())
		for _, ws := range [][]write{
			{{"k", 2, []byte("k2")}},
			{{"k", 4, nil}, {"k\x00", 5, []byte("n5")}},
			{{"k", 6, []byte("k6")}},
		} {
			commit(t, e, 1000, ws...)
			if flushed { // a table per commit
				if err := e.db.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, g := range gets {
			v, ok, err := e.Get(AppendKey(nil, 1000, 1, []byte(g.pk)), g.epoch)
			if err != nil || ok != g.ok || string(v) != g.want {
				t.Errorf("flushed %v: Get(%q, %d) = %q, %v, %v; want %q, %v", flushed, g.pk, g.epoch, v, ok, err, g.want, g.ok)
			}
		}
		e.Close()
	}
}

func TestDropTable(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	for _, id := range []uint32{999, 1000, 1001} {
		commit(t, e, id, write{"a", 1, []byte("x")}, write{"b", 2, []byte("y")})
	}
	if err := e.DropTable(1000); err != nil {
		t.Fatal(err)
	}
	var tables []uint32
	err := e.Scan(nil, nil, 9, func(k, v []byte) error {
		tables = append(tables, uint32(k[3])|uint32(k[2])<<8)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{999, 999, 1001, 1001}; !slices.Equal(tables, want) {
		t.Errorf("tables after drop = %v, want %v", tables, want)
	}
}

func TestSyncedWriteSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	e := openTest(t, dir)
	commit(t, e, 1000, write{"k", 7, []byte("v")})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, dir)
	defer e.Close()
	v, ok, err := e.Get(AppendKey(nil, 1000, 1, []byte("k")), 7)
	if err != nil || !ok || string(v) != "v" {
		t.Fatalf("after reopen Get = %q, %v, %v", v, ok, err)
	}
}

func TestOpenLocked(t *testing.T) {
	dir := t.TempDir()
	e := openTest(t, dir)
	defer e.Close()
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "is in use by another streamdb process (lock file") {
		t.Fatalf("second Open error = %v, want in-use error", err)
	}
}

// version is one write in the model.
type version struct {
	epoch uint64
	value []byte // nil = tombstone
}

// TestModel applies random puts and deletes at increasing epochs and checks
// Get and Scan at random epochs against a map of version lists.
func TestModel(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	tableID := uint32(1000)
	pkGen := rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 'a', 0xff}), 0, 3)
	rapid.Check(t, func(t *rapid.T) {
		tableID++ // each case gets a fresh table
		model := map[string][]version{}
		var epoch uint64
		for range rapid.IntRange(1, 8).Draw(t, "epochs") {
			epoch += rapid.Uint64Range(1, 3).Draw(t, "step")
			b := e.NewBatch()
			for range rapid.IntRange(0, 6).Draw(t, "writes") {
				pk := pkGen.Draw(t, "pk")
				vnode := rapid.Uint16Range(0, 2).Draw(t, "vnode")
				key := string(AppendKey(nil, tableID, vnode, pk))
				var value []byte
				if rapid.Bool().Draw(t, "put") {
					value = append([]byte{}, rapid.SliceOfN(rapid.Byte(), 0, 4).Draw(t, "value")...)
					b.Put([]byte(key), epoch, value)
				} else {
					b.Delete([]byte(key), epoch)
				}
				vs := model[key]
				if n := len(vs); n > 0 && vs[n-1].epoch == epoch {
					vs = vs[:n-1] // the later write of an epoch wins
				}
				model[key] = append(vs, version{epoch, value})
			}
			if err := b.Commit(false); err != nil {
				t.Fatal(err)
			}
			if rapid.IntRange(0, 3).Draw(t, "flush") == 0 {
				// Exercise sstables (bloom filters, index separators) too.
				if err := e.db.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		live := func(key string, at uint64) ([]byte, bool) {
			var found []byte
			for _, v := range model[key] {
				if v.epoch <= at {
					found = v.value
				}
			}
			return found, found != nil
		}
		for range rapid.IntRange(1, 5).Draw(t, "reads") {
			at := rapid.Uint64Range(0, epoch+1).Draw(t, "at")
			var want []string
			for _, key := range slices.Sorted(maps.Keys(model)) {
				v, ok := live(key, at)
				if ok {
					want = append(want, fmt.Sprintf("%x=%x", key, v))
				}
				got, gotOK, err := e.Get([]byte(key), at)
				if err != nil || gotOK != ok || !bytes.Equal(got, v) {
					t.Fatalf("Get(%x, %d) = %x, %v, %v; want %x, %v", key, at, got, gotOK, err, v, ok)
				}
			}
			var got []string
			err := e.Scan(TablePrefix(tableID), TablePrefix(tableID+1), at, func(k, v []byte) error {
				got = append(got, fmt.Sprintf("%x=%x", k, v))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("Scan at %d = %v, want %v", at, got, want)
			}
		}
	})
}

// TestFormatVersion checks that a new store is marked with FormatVersion
// and that a store of another format, or an unmarked one, is refused.
func TestFormatVersion(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err = Open(dir, Options{}); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	e.Close()
	for _, tc := range []struct{ content, want string }{
		{"", "format 1"},
		{"7\n", "format 7"},
	} {
		path := filepath.Join(dir, formatFile)
		if tc.content == "" {
			os.Remove(path)
		} else {
			os.WriteFile(path, []byte(tc.content), 0o644)
		}
		if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("open with format file %q = %v, want an error naming %s", tc.content, err, tc.want)
		}
	}
}
