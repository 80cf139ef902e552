package raftstore

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/storage"
	"pgregory.net/rapid"
)

// layouts are the two places a store keeps its keys: a database of its
// own, and a key space of a node's state store. open returns the store and
// what closes it.
var layouts = []struct {
	name string
	open func(t testing.TB, dir string) (*Store, func() error)
}{
	{"own", func(t testing.TB, dir string) (*Store, func() error) {
		s, err := Open(dir, slog.Default())
		if err != nil {
			t.Fatal(err)
		}
		return s, s.Close
	}},
	{"state store", func(t testing.TB, dir string) (*Store, func() error) {
		e, err := storage.Open(dir, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return Within(e.RaftKeys()), e.Close
	}},
}

// eachLayout runs test on a store of each layout.
func eachLayout(t *testing.T, test func(t *testing.T, open func(dir string) (*Store, func() error))) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			test(t, func(dir string) (*Store, func() error) { return l.open(t, dir) })
		})
	}
}

func entry(i uint64) *raft.Log {
	l := &raft.Log{Index: i, Term: i / 3, Type: raft.LogCommand, Data: []byte{byte(i), 'x'}}
	if i%2 == 0 {
		l.Extensions = []byte("ext")
		l.AppendedAt = time.Unix(1700000000, int64(i))
	}
	return l
}

func entries(lo, hi uint64) []*raft.Log {
	var ls []*raft.Log
	for i := lo; i <= hi; i++ {
		ls = append(ls, entry(i))
	}
	return ls
}

// tb is what the helpers need from *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func checkRange(t tb, s *Store, first, last uint64) {
	t.Helper()
	f, err := s.FirstIndex()
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.LastIndex()
	if err != nil {
		t.Fatal(err)
	}
	if f != first || l != last {
		t.Fatalf("FirstIndex, LastIndex = %d, %d; want %d, %d", f, l, first, last)
	}
}

func equalLogs(a, b *raft.Log) bool {
	return a.Index == b.Index && a.Term == b.Term && a.Type == b.Type &&
		reflect.DeepEqual(a.Data, b.Data) && reflect.DeepEqual(a.Extensions, b.Extensions) &&
		a.AppendedAt.Equal(b.AppendedAt)
}

func TestLogStore(t *testing.T) {
	eachLayout(t, testLogStore)
}

func testLogStore(t *testing.T, open func(dir string) (*Store, func() error)) {
	s, closeStore := open(t.TempDir())
	defer closeStore()
	checkRange(t, s, 0, 0)
	var got raft.Log
	if err := s.GetLog(1, &got); !errors.Is(err, raft.ErrLogNotFound) {
		t.Fatalf("GetLog on empty store = %v, want ErrLogNotFound", err)
	}
	if err := s.StoreLog(entry(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.StoreLogs(entries(2, 10)); err != nil {
		t.Fatal(err)
	}
	checkRange(t, s, 1, 10)
	for i := uint64(1); i <= 10; i++ {
		if err := s.GetLog(i, &got); err != nil || !equalLogs(&got, entry(i)) {
			t.Fatalf("GetLog(%d) = %+v, %v; want %+v", i, got, err, entry(i))
		}
	}
	steps := []struct {
		min, max    uint64
		first, last uint64
	}{
		{1, 4, 5, 10},  // truncate the head after a snapshot
		{9, 10, 5, 8},  // truncate a conflicting tail
		{5, 8, 0, 0},   // everything
		{11, 11, 0, 0}, // nothing there
		{0, ^uint64(0), 0, 0},
	}
	for _, st := range steps {
		if err := s.DeleteRange(st.min, st.max); err != nil {
			t.Fatal(err)
		}
		checkRange(t, s, st.first, st.last)
	}
}

func TestStableStore(t *testing.T) {
	eachLayout(t, testStableStore)
}

func testStableStore(t *testing.T, open func(dir string) (*Store, func() error)) {
	dir := t.TempDir()
	s, closeStore := open(dir)
	if _, err := s.Get([]byte("k")); err == nil || err.Error() != "not found" {
		t.Fatalf("Get missing = %v, want not found", err)
	}
	if _, err := s.GetUint64([]byte("term")); err == nil || err.Error() != "not found" {
		t.Fatalf("GetUint64 missing = %v, want not found", err)
	}
	if err := s.Set([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetUint64([]byte("term"), 42); err != nil {
		t.Fatal(err)
	}
	if err := s.StoreLogs(entries(3, 5)); err != nil {
		t.Fatal(err)
	}
	if err := closeStore(); err != nil {
		t.Fatal(err)
	}

	s, closeStore = open(dir)
	defer closeStore()
	if v, err := s.Get([]byte("k")); err != nil || string(v) != "v" {
		t.Fatalf("Get after reopen = %q, %v", v, err)
	}
	if v, err := s.GetUint64([]byte("term")); err != nil || v != 42 {
		t.Fatalf("GetUint64 after reopen = %d, %v", v, err)
	}
	checkRange(t, s, 3, 5)
	if _, err := s.GetUint64([]byte("k")); err == nil {
		t.Fatal("GetUint64 of a 1-byte value succeeded")
	}
}

// TestLogModel drives the store the way raft does (append at the tail,
// truncate the head or the tail) and compares it with a slice.
func TestLogModel(t *testing.T) {
	eachLayout(t, testLogModel)
}

func testLogModel(t *testing.T, open func(dir string) (*Store, func() error)) {
	s, closeStore := open(t.TempDir())
	defer closeStore()
	rapid.Check(t, func(t *rapid.T) {
		if err := s.DeleteRange(0, ^uint64(0)); err != nil {
			t.Fatal(err)
		}
		var first, last uint64 // the model: entries first..last, none when last == 0
		for range rapid.IntRange(1, 20).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 2).Draw(t, "op"); {
			case op == 0 || last == 0:
				n := rapid.Uint64Range(1, 5).Draw(t, "n")
				lo := last + 1
				if last == 0 {
					lo = rapid.Uint64Range(1, 100).Draw(t, "start")
					first = lo
				}
				if err := s.StoreLogs(entries(lo, lo+n-1)); err != nil {
					t.Fatal(err)
				}
				last = lo + n - 1
			case op == 1:
				upTo := rapid.Uint64Range(first, last).Draw(t, "head")
				if err := s.DeleteRange(first, upTo); err != nil {
					t.Fatal(err)
				}
				first = upTo + 1
			default:
				from := rapid.Uint64Range(first, last).Draw(t, "tail")
				if err := s.DeleteRange(from, last); err != nil {
					t.Fatal(err)
				}
				last = from - 1
			}
			if first > last {
				first, last = 0, 0
			}
			checkRange(t, s, first, last)
		}
		var got raft.Log
		for i := first; last > 0 && i <= last; i++ {
			if err := s.GetLog(i, &got); err != nil || !equalLogs(&got, entry(i)) {
				t.Fatalf("GetLog(%d) = %+v, %v", i, got, err)
			}
		}
	})
}

func TestCodec(t *testing.T) {
	tests := []*raft.Log{
		{},
		{Index: 1, Term: 1, Type: raft.LogConfiguration, Data: []byte("cfg")},
		entry(8),
		{Index: ^uint64(0), Term: ^uint64(0), Type: raft.LogBarrier, Extensions: make([]byte, 300)},
	}
	for _, l := range tests {
		var got raft.Log
		if err := decodeLog(encodeLog(nil, l), &got); err != nil || !equalLogs(&got, l) {
			t.Errorf("round trip of %+v = %+v, %v", l, got, err)
		}
	}
	enc := encodeLog(nil, entry(8))
	for _, bad := range [][]byte{nil, enc[:10], enc[:len(enc)-1], append(enc, 0), append([]byte{9}, enc[1:]...)} {
		var got raft.Log
		if err := decodeLog(bad, &got); err == nil {
			t.Errorf("decodeLog(%x) succeeded", bad)
		}
	}
}

// TestAdopt moves a store of its own into a state store's key space, where
// the state's own keys and the log's stay apart.
func TestAdopt(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "log")
	own, closeOwn := layouts[0].open(t, old)
	if err := own.StoreLogs(entries(4, 9)); err != nil {
		t.Fatal(err)
	}
	if err := own.SetUint64([]byte("term"), 7); err != nil {
		t.Fatal(err)
	}
	if err := closeOwn(); err != nil {
		t.Fatal(err)
	}
	e, err := storage.Open(filepath.Join(dir, "state"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	b := e.NewBatch()
	b.Put(storage.AppendKey(nil, 5, 3, []byte("row")), 1, []byte("value"))
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	s := Within(e.RaftKeys())
	if err := s.Adopt(old, slog.Default()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the adopted store is still there: %v", err)
	}
	// What a crash while removing an adopted store leaves goes at the
	// next start.
	if err := os.MkdirAll(filepath.Join(old+".adopted", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Adopt(old, slog.Default()); err != nil {
		t.Fatalf("Adopt without a store: %v", err)
	}
	if _, err := os.Stat(old + ".adopted"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a half-removed adopted store is still there: %v", err)
	}
	checkRange(t, s, 4, 9)
	var got raft.Log
	if err := s.GetLog(6, &got); err != nil || !equalLogs(&got, entry(6)) {
		t.Fatalf("GetLog(6) = %+v, %v", got, err)
	}
	if v, err := s.GetUint64([]byte("term")); err != nil || v != 7 {
		t.Fatalf("GetUint64(term) = %d, %v", v, err)
	}
	// The state's keys: only the row, in a scan of the whole store too.
	var keys []string
	err = e.Scan(nil, nil, 1, func(k, _ []byte) error {
		keys = append(keys, string(k))
		return nil
	})
	if err != nil || len(keys) != 1 {
		t.Fatalf("the state holds %q, %v; want the one row", keys, err)
	}
	// A durable checkpoint exports the row's table alone.
	var tables []uint32
	err = e.ExportTables(0, 1, 1<<20, func(sst storage.SST) error {
		tables = append(tables, sst.Table)
		return nil
	})
	if err != nil || !reflect.DeepEqual(tables, []uint32{5}) {
		t.Fatalf("ExportTables exported tables %v, %v; want [5]", tables, err)
	}
	if err := s.DeleteRange(0, ^uint64(0)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := e.Get(storage.AppendKey(nil, 5, 3, []byte("row")), 1); !ok || err != nil {
		t.Fatalf("the row is gone with the log: %v, %v", ok, err)
	}
}
