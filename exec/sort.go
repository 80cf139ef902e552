package exec

import (
	"sort"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// SortKey is one ordering column.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Sort materializes its input and emits it ordered by Keys (stable).
type Sort struct {
	Input Op
	Keys  []SortKey
}

// Run implements Op.
func (s *Sort) Run(c *expr.Ctx, emit Emit) error {
	rows, err := Collect(c, s.Input)
	if err != nil {
		return err
	}
	sortRows(rows, s.Keys)
	for _, r := range rows {
		if more, err := emit(r); err != nil || !more {
			return err
		}
	}
	return nil
}

// sortRows orders rows by keys, keeping the input order of equal rows.
func sortRows(rows [][]types.Datum, keys []SortKey) {
	sort.SliceStable(rows, func(i, j int) bool { return compareRows(keys, rows[i], rows[j]) < 0 })
}

// compareRows compares two rows by keys: negative when a sorts first,
// zero when they are peers.
func compareRows(keys []SortKey, a, b []types.Datum) int {
	for _, k := range keys {
		if c := expr.CompareOrdered(a[k.Col], b[k.Col], k.Desc, k.NullsFirst); c != 0 {
			return c
		}
	}
	return 0
}

// Distinct passes the first occurrence of each distinct row.
type Distinct struct{ Input Op }

// Run implements Op.
func (d *Distinct) Run(c *expr.Ctx, emit Emit) error {
	seen := map[string]struct{}{}
	var key []byte
	return d.Input.Run(c, func(row []types.Datum) (bool, error) {
		key = rowKey(key[:0], row)
		if _, ok := seen[string(key)]; ok {
			return true, nil
		}
		seen[string(key)] = struct{}{}
		return emit(row)
	})
}

func rowKey(dst []byte, row []types.Datum) []byte {
	for _, v := range row {
		dst = types.AppendKey(dst, v, false)
	}
	return dst
}

// SetOpKind is UNION, EXCEPT or INTERSECT.
type SetOpKind uint8

// Set operation kinds.
const (
	Union SetOpKind = iota
	Except
	Intersect
)

func (k SetOpKind) String() string {
	return [...]string{"Union", "Except", "Intersect"}[k]
}

// Copies returns how many copies of a row EXCEPT or INTERSECT (kind,
// with all for the ALL form) outputs when its left input has l copies of
// it and its right input r: min(l, r) or max(l-r, 0) for ALL, otherwise
// at most one.
func (k SetOpKind) Copies(all bool, l, r int64) int64 {
	var n int64
	if k == Intersect {
		n = min(l, r)
	} else if r == 0 || all {
		n = max(l-r, 0)
	}
	if !all {
		n = min(n, 1)
	}
	return n
}

// SetOp combines two inputs with bag (All) or set semantics.
type SetOp struct {
	Kind SetOpKind
	All  bool
	L, R Op
}

// Run implements Op.
func (s *SetOp) Run(c *expr.Ctx, emit Emit) error {
	if s.Kind == Union {
		if s.All {
			stopped := false
			err := s.L.Run(c, func(row []types.Datum) (bool, error) {
				more, err := emit(row)
				stopped = !more
				return more, err
			})
			if err != nil || stopped {
				return err
			}
			return s.R.Run(c, emit)
		}
		return (&Distinct{Input: &SetOp{Kind: Union, All: true, L: s.L, R: s.R}}).Run(c, emit)
	}
	counts := map[string]int{}
	var key []byte
	if err := s.R.Run(c, func(row []types.Datum) (bool, error) {
		key = rowKey(key[:0], row)
		counts[string(key)]++
		return true, nil
	}); err != nil {
		return err
	}
	emitted := map[string]struct{}{}
	return s.L.Run(c, func(row []types.Datum) (bool, error) {
		key = rowKey(key[:0], row)
		n := counts[string(key)]
		keep := false
		switch {
		case s.Kind == Intersect && s.All:
			keep = n > 0
			counts[string(key)] = n - 1
		case s.Kind == Except && s.All:
			keep = n <= 0
			counts[string(key)] = n - 1
		default:
			if _, done := emitted[string(key)]; done {
				return true, nil
			}
			keep = (n > 0) == (s.Kind == Intersect)
			if keep {
				emitted[string(key)] = struct{}{}
			}
		}
		if !keep {
			return true, nil
		}
		return emit(row)
	})
}
