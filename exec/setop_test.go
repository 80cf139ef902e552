package exec_test

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
)

func TestSetOp(t *testing.T) {
	// NULLs are not distinct from each other in set operations.
	l := func() exec.Op { return ints(1, 1, 2, nil, nil, 3, 1) }
	r := func() exec.Op { return ints(1, nil, 4, 4) }
	tests := []struct {
		name string
		kind exec.SetOpKind
		all  bool
		want []string
	}{
		{"UNION", exec.Union, false, []string{"1", "2", "NULL", "3", "4"}},
		{"UNION ALL", exec.Union, true, []string{"1", "1", "2", "NULL", "NULL", "3", "1", "1", "NULL", "4", "4"}},
		{"INTERSECT", exec.Intersect, false, []string{"1", "NULL"}},
		{"INTERSECT ALL", exec.Intersect, true, []string{"1", "NULL"}},
		{"EXCEPT", exec.Except, false, []string{"2", "3"}},
		{"EXCEPT ALL", exec.Except, true, []string{"1", "2", "NULL", "3", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &exec.SetOp{Kind: tt.kind, All: tt.all, L: l(), R: r()}
			equalBags(t, "rows", run(t, op), tt.want)
		})
	}
}

func TestSetOpMultiColumn(t *testing.T) {
	l := func() exec.Op { return source(row(1, nil), row(1, nil), row(nil, "a"), row(2, "b")) }
	r := func() exec.Op { return source(row(1, nil), row(nil, "a"), row(nil, "a"), row(2, "c")) }
	tests := []struct {
		name string
		kind exec.SetOpKind
		all  bool
		want []string
	}{
		{"UNION", exec.Union, false, []string{"1,NULL", "NULL,a", "2,b", "2,c"}},
		{"INTERSECT ALL", exec.Intersect, true, []string{"1,NULL", "NULL,a"}},
		{"EXCEPT ALL", exec.Except, true, []string{"1,NULL", "2,b"}},
		{"EXCEPT", exec.Except, false, []string{"2,b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &exec.SetOp{Kind: tt.kind, All: tt.all, L: l(), R: r()}
			equalBags(t, "rows", run(t, op), tt.want)
		})
	}
}

func TestSetOpEmptySides(t *testing.T) {
	tests := []struct {
		name string
		kind exec.SetOpKind
		all  bool
		l, r exec.Op
		want []string
	}{
		{"UNION of empty left", exec.Union, false, ints(), ints(2, 2), []string{"2"}},
		{"INTERSECT with empty right", exec.Intersect, true, ints(1), ints(), nil},
		{"EXCEPT ALL with empty right", exec.Except, true, ints(1, 1), ints(), []string{"1", "1"}},
		{"EXCEPT of empty left", exec.Except, false, ints(), ints(1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalBags(t, "rows", run(t, &exec.SetOp{Kind: tt.kind, All: tt.all, L: tt.l, R: tt.r}), tt.want)
		})
	}
}

func TestSetOpEarlyStop(t *testing.T) {
	tests := []struct {
		name                 string
		kind                 exec.SetOpKind
		all                  bool
		n                    int
		want                 []string
		lProduced, rProduced int
	}{
		{"UNION ALL stops in the left input", exec.Union, true, 1, []string{"1"}, 1, 0},
		{"UNION ALL stops in the right input", exec.Union, true, 4, []string{"1", "2", "2", "3"}, 3, 1},
		{"UNION stops", exec.Union, false, 3, []string{"1", "2", "3"}, 3, 1},
		{"EXCEPT ALL stops the left input", exec.Except, true, 1, []string{"1"}, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, r := ints(1, 2, 2), ints(3, 4)
			equalRows(t, "rows", take(t, &exec.SetOp{Kind: tt.kind, All: tt.all, L: l, R: r}, tt.n), tt.want)
			if l.produced != tt.lProduced || r.produced != tt.rProduced {
				t.Errorf("inputs produced %d and %d rows, want %d and %d", l.produced, r.produced, tt.lProduced, tt.rProduced)
			}
		})
	}
}

func TestSetOpCopies(t *testing.T) {
	tests := []struct {
		kind exec.SetOpKind
		all  bool
		l, r int64
		want int64
	}{
		{exec.Intersect, false, 3, 2, 1},
		{exec.Intersect, false, 3, 0, 0},
		{exec.Intersect, false, 0, 2, 0},
		{exec.Intersect, true, 3, 2, 2},
		{exec.Intersect, true, 1, 5, 1},
		{exec.Intersect, true, 0, 5, 0},
		{exec.Except, false, 3, 0, 1},
		{exec.Except, false, 3, 1, 0},
		{exec.Except, false, 0, 0, 0},
		{exec.Except, true, 3, 1, 2},
		{exec.Except, true, 3, 0, 3},
		{exec.Except, true, 1, 4, 0},
	}
	for _, tt := range tests {
		if got := tt.kind.Copies(tt.all, tt.l, tt.r); got != tt.want {
			t.Errorf("%s all=%v Copies(%d, %d) = %d, want %d", tt.kind, tt.all, tt.l, tt.r, got, tt.want)
		}
	}
}
