package dataflow

import (
	"slices"
	"sort"
	"testing"

	"github.com/RaduBerinde/btreemap"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestEntriesMatchSortedMap drives a group's entries through random puts
// and deletes, across the switch from slice to B-tree, and compares every
// read with a plain map in sorted order.
func TestEntriesMatchSortedMap(t *testing.T) {
	free := btreemap.NewFreeList[[]byte, slot](btreemap.DefaultFreeListSize)
	rapid.Check(t, func(t *rapid.T) {
		var es entries
		ref := map[string]int64{}
		vers := map[string]version{}
		for i, n := 0, rapid.IntRange(0, 200).Draw(t, "ops"); i < n; i++ {
			k := []byte{byte(rapid.IntRange(0, 80).Draw(t, "key"))}
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				v := rapid.Int64().Draw(t, "value")
				ver := newVersion(rapid.Uint64Range(0, 9).Draw(t, "epoch"), rapid.Bool().Draw(t, "older"))
				es.put(k, slot{[]types.Datum{types.NewInt(v)}, ver}, free)
				ref[string(k)], vers[string(k)] = v, ver
			case 1:
				ver := newVersion(rapid.Uint64Range(0, 9).Draw(t, "epoch"), false)
				es.setVersion(k, ver)
				if _, ok := ref[string(k)]; ok {
					vers[string(k)] = ver
				}
			default:
				_, s, ok := es.delete(k)
				v, had := ref[string(k)]
				if ok != had || ok && (s.row[0].Int() != v || s.ver != vers[string(k)]) {
					t.Fatalf("delete %x: got %v %v, want %v %v", k, s, ok, v, had)
				}
				delete(ref, string(k))
			}
		}
		keys := make([]string, 0, len(ref))
		for k := range ref {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if es.len() != len(keys) {
			t.Fatalf("len %d, want %d", es.len(), len(keys))
		}
		var got []string
		es.ascend(func(k []byte, row []types.Datum) bool {
			if row[0].Int() != ref[string(k)] {
				t.Fatalf("value of %x: %v, want %d", k, row, ref[string(k)])
			}
			got = append(got, string(k))
			return true
		})
		if !slices.Equal(got, keys) {
			t.Fatalf("ascend %x, want %x", got, keys)
		}
		from := []byte{byte(rapid.IntRange(0, 81).Draw(t, "from"))}
		got = got[:0]
		es.ascendFrom(from, func(k []byte, _ []types.Datum) bool { got = append(got, string(k)); return true })
		if tail := keys[sort.SearchStrings(keys, string(from)):]; !slices.Equal(got, tail) {
			t.Fatalf("ascend from %x: %x, want %x", from, got, tail)
		}
		got = got[:0]
		es.descend(func(k []byte, _ []types.Datum) bool { got = append(got, string(k)); return true })
		slices.Reverse(keys)
		if !slices.Equal(got, keys) {
			t.Fatalf("descend %x, want %x", got, keys)
		}
		for _, k := range keys {
			if _, s, ok := es.get([]byte(k)); !ok || s.row[0].Int() != ref[k] || s.ver != vers[k] {
				t.Fatalf("get %x: %v %v", k, s, ok)
			}
		}
		es.clear()
		if es.len() != 0 {
			t.Fatal("clear left entries")
		}
	})
}
