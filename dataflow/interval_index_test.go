package dataflow

import (
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestIntervalIndex checks the index against a list of its rows: rows come
// from several streams each in time order (so from a few runs to more
// streams than runs, whose rows overflow into the B-tree), or in any order,
// some with NULL Keys; some are removed again; each cleanup takes exactly
// the rows below its threshold, each once.
func TestIntervalIndex(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		x := newIntervalIndex()
		groups := map[string]*Group{}
		type row struct {
			k      types.Datum
			prefix string
			suffix string
		}
		var live []row
		streams := make([]int64, rapid.IntRange(1, maxIndexRuns+3).Draw(rt, "streams"))
		ordered := rapid.Bool().Draw(rt, "ordered")
		id := 0
		below := int64(-1 << 62)
		for range rapid.IntRange(1, 300).Draw(rt, "steps") {
			switch rapid.SampledFrom([]string{"add", "add", "add", "remove", "clean"}).Draw(rt, "action") {
			case "add":
				var k types.Datum
				if rapid.IntRange(0, 20).Draw(rt, "null") > 0 {
					s := rapid.IntRange(0, len(streams)-1).Draw(rt, "stream")
					if ordered {
						streams[s] += rapid.Int64Range(0, 3).Draw(rt, "step")
					} else {
						streams[s] = max(below, 0) + rapid.Int64Range(0, 12).Draw(rt, "ahead")
					}
					k = types.NewInt(max(streams[s], below))
				}
				prefix := fmt.Sprint(rapid.IntRange(0, 3).Draw(rt, "group"))
				if groups[prefix] == nil {
					groups[prefix] = &Group{prefix: prefix}
				}
				id++
				r := row{k, prefix, fmt.Sprint(id)}
				live = append(live, r)
				x.add(r.k, groups[prefix], []byte(r.suffix))
			case "remove":
				if len(live) == 0 {
					continue
				}
				i := rapid.IntRange(0, len(live)-1).Draw(rt, "row")
				r := live[i]
				live = slices.Delete(live, i, i+1)
				x.remove(r.k, r.prefix, []byte(r.suffix))
			case "clean":
				below += rapid.Int64Range(0, 6).Draw(rt, "advance")
				if below < 0 {
					below = 0
				}
				var got, want []string
				err := x.takeBelow(types.NewInt(below), func(r indexedRow) error {
					got = append(got, r.g.prefix+"/"+string(r.suffix))
					return nil
				})
				if err != nil {
					rt.Fatal(err)
				}
				live = slices.DeleteFunc(live, func(r row) bool {
					if !r.k.IsNull() && r.k.Int() < below {
						want = append(want, r.prefix+"/"+r.suffix)
						return true
					}
					return false
				})
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					rt.Fatalf("below %d took %v, want %v", below, got, want)
				}
			}
		}
		// Everything that is not NULL goes at last; NULLs stay.
		var left int
		err := x.takeBelow(types.NewInt(1<<62), func(indexedRow) error { left++; return nil })
		if err != nil {
			rt.Fatal(err)
		}
		nulls := 0
		for _, r := range live {
			if r.k.IsNull() {
				nulls++
			}
		}
		if left != len(live)-nulls || x.overflow.Len() != nulls {
			rt.Fatalf("took %d and kept %d at last, want %d and %d", left, x.overflow.Len(), len(live)-nulls, nulls)
		}
	})
}
