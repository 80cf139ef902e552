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
	free := btreemap.NewFreeList[[]byte, []types.Datum](btreemap.DefaultFreeListSize)
	rapid.Check(t, func(t *rapid.T) {
		var es entries
		ref := map[string]int64{}
		for i, n := 0, rapid.IntRange(0, 200).Draw(t, "ops"); i < n; i++ {
			k := []byte{byte(rapid.IntRange(0, 80).Draw(t, "key"))}
			if rapid.Bool().Draw(t, "put") {
				v := rapid.Int64().Draw(t, "value")
				es.put(k, []types.Datum{types.NewInt(v)}, free)
				ref[string(k)] = v
			} else {
				_, row, ok := es.delete(k)
				v, had := ref[string(k)]
				if ok != had || ok && row[0].Int() != v {
					t.Fatalf("delete %x: got %v %v, want %v %v", k, row, ok, v, had)
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
			if _, row, ok := es.get([]byte(k)); !ok || row[0].Int() != ref[k] {
				t.Fatalf("get %x: %v %v", k, row, ok)
			}
		}
		es.clear()
		if es.len() != 0 {
			t.Fatal("clear left entries")
		}
	})
}
