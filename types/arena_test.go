package types

import (
	"slices"
	"testing"
	"unsafe"
)

func TestRowArena(t *testing.T) {
	tests := []struct {
		name string
		rows []int // the widths of the rows asked for, in turn
		// blocks are the capacities of the allocations made, in turn.
		blocks []int
	}{
		{"one small row", []int{3}, []int{16}},
		{"no columns", []int{0}, []int{16}},
		{"a row wider than the block", []int{40}, []int{40}},
		{"doubling", []int{10, 10, 10, 10, 30}, []int{16, 32, 64}},
		{"capped", slices.Repeat([]int{8}, 300), []int{16, 32, 64, 128, 256, 512, 1024, 1024}},
	}
	for _, tt := range tests {
		var a RowArena
		var blocks []int
		var rows [][]Datum
		for _, n := range tt.rows {
			before := unsafe.SliceData(a.free)
			row := a.Row(n)
			if row == nil || len(row) != n || cap(row) != n {
				t.Fatalf("%s: Row(%d) = len %d cap %d (nil %v)", tt.name, n, len(row), cap(row), row == nil)
			}
			if unsafe.SliceData(a.free) != before {
				blocks = append(blocks, cap(a.free))
			}
			for i := range row {
				if !row[i].IsNull() {
					t.Fatalf("%s: a new row's datum %d is not NULL", tt.name, i)
				}
				row[i] = NewInt(int64(len(rows)))
			}
			rows = append(rows, row)
		}
		for i, row := range rows {
			for _, d := range row {
				if d.Int() != int64(i) {
					t.Fatalf("%s: row %d was overwritten by row %d", tt.name, i, d.Int())
				}
			}
		}
		if !slices.Equal(blocks, tt.blocks) {
			t.Errorf("%s: allocations %v, want %v", tt.name, blocks, tt.blocks)
		}
	}
}
