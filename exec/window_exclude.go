package exec

import "github.com/streamdb/streamdb/expr"

// FrameExclusion is the part around the current row that a frame's
// EXCLUDE clause takes out of it.
type FrameExclusion uint8

// Frame exclusions.
const (
	// ExcludeNoOthers excludes nothing (EXCLUDE NO OTHERS, the default).
	ExcludeNoOthers FrameExclusion = iota
	// ExcludeCurrentRow excludes the current row.
	ExcludeCurrentRow
	// ExcludeGroup excludes the current row and its peers.
	ExcludeGroup
	// ExcludeTies excludes the current row's peers but not the row itself.
	ExcludeTies
)

// String renders the clause in SQL, "" for ExcludeNoOthers.
func (x FrameExclusion) String() string {
	return [...]string{"", "EXCLUDE CURRENT ROW", "EXCLUDE GROUP", "EXCLUDE TIES"}[x]
}

// frameRows is a row's frame less its exclusion: up to three ascending,
// disjoint, non-empty runs of rows [runs[k][0], runs[k][1]).
type frameRows struct {
	runs [3][2]int
	n    int
}

// add appends the run [lo, hi) unless it is empty.
func (r *frameRows) add(lo, hi int) {
	if lo < hi {
		r.runs[r.n] = [2]int{lo, hi}
		r.n++
	}
}

// len returns the number of rows in the frame.
func (r *frameRows) len() int {
	n := 0
	for _, run := range r.runs[:r.n] {
		n += run[1] - run[0]
	}
	return n
}

// at returns the k-th row of the frame, k below r.len().
func (r *frameRows) at(k int) int {
	for _, run := range r.runs[:r.n] {
		if k < run[1]-run[0] {
			return run[0] + k
		}
		k -= run[1] - run[0]
	}
	panic("frame row out of range")
}

// rows returns the frame of row i less the rows its exclusion takes out.
func (f *frameSpec) rows(c *expr.Ctx, p *windowPartition, i int) (frameRows, error) {
	var r frameRows
	lo, hi, err := f.bounds(c, p, i)
	if err != nil {
		return r, err
	}
	xlo, xhi := i, i+1
	switch f.Exclude {
	case ExcludeNoOthers:
		r.add(lo, hi)
		return r, nil
	case ExcludeGroup, ExcludeTies:
		xlo, xhi = p.peers(i)
	}
	r.add(lo, min(hi, xlo))
	if f.Exclude == ExcludeTies && i >= lo && i < hi {
		r.add(i, i+1)
	}
	r.add(max(lo, xhi), hi)
	return r, nil
}
