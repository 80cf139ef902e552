package exec_test

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
)

func TestSort(t *testing.T) {
	// (k, text, seq) rows; seq shows stability among equal keys.
	in := func() exec.Op {
		return source(row(2, "b", 1), row(nil, "a", 2), row(1, "b", 3), row(2, "a", 4), row(nil, "c", 5), row(1, "a", 6))
	}
	tests := []struct {
		name string
		keys []exec.SortKey
		want []string
	}{
		{"no keys keeps input order", nil, []string{"2,b,1", "NULL,a,2", "1,b,3", "2,a,4", "NULL,c,5", "1,a,6"}},
		{"ASC NULLS LAST, stable", []exec.SortKey{{Col: 0}},
			[]string{"1,b,3", "1,a,6", "2,b,1", "2,a,4", "NULL,a,2", "NULL,c,5"}},
		{"ASC NULLS FIRST", []exec.SortKey{{Col: 0, NullsFirst: true}},
			[]string{"NULL,a,2", "NULL,c,5", "1,b,3", "1,a,6", "2,b,1", "2,a,4"}},
		{"DESC NULLS FIRST", []exec.SortKey{{Col: 0, Desc: true, NullsFirst: true}},
			[]string{"NULL,a,2", "NULL,c,5", "2,b,1", "2,a,4", "1,b,3", "1,a,6"}},
		{"DESC NULLS LAST", []exec.SortKey{{Col: 0, Desc: true}},
			[]string{"2,b,1", "2,a,4", "1,b,3", "1,a,6", "NULL,a,2", "NULL,c,5"}},
		{"two keys", []exec.SortKey{{Col: 1}, {Col: 0, Desc: true}},
			[]string{"2,a,4", "1,a,6", "NULL,a,2", "2,b,1", "1,b,3", "NULL,c,5"}},
		{"text DESC", []exec.SortKey{{Col: 1, Desc: true}},
			[]string{"NULL,c,5", "2,b,1", "1,b,3", "NULL,a,2", "2,a,4", "1,a,6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalRows(t, "rows", run(t, &exec.Sort{Input: in(), Keys: tt.keys}), tt.want)
		})
	}
}

func TestSortEarlyStop(t *testing.T) {
	equalRows(t, "rows", take(t, &exec.Sort{Input: ints(3, 1, 2), Keys: []exec.SortKey{{Col: 0}}}, 2), []string{"1", "2"})
}

func TestDistinct(t *testing.T) {
	tests := []struct {
		name string
		in   exec.Op
		want []string
	}{
		{"first occurrences in order", ints(3, 1, 3, nil, 1, nil, 2), []string{"3", "1", "NULL", "2"}},
		{"rows with NULLs", source(row(1, nil), row(nil, 1), row(1, nil), row(nil, nil), row(nil, nil)),
			[]string{"1,NULL", "NULL,1", "NULL,NULL"}},
		{"text and int columns", source(row(1, "a"), row(1, "b"), row(1, "a")), []string{"1,a", "1,b"}},
		{"empty", ints(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalRows(t, "rows", run(t, &exec.Distinct{Input: tt.in}), tt.want)
		})
	}
}
