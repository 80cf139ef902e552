package dataflow

import (
	"bytes"
	"slices"
	"strings"

	"github.com/RaduBerinde/btreemap"
	"github.com/streamdb/streamdb/types"
)

// intervalIndex lists the stored rows of an interval join's side by their
// Key (IntervalBound), so that a watermark deletes the rows below a
// threshold from the front. Rows come nearly in Key order: each upstream
// actor sends its rows in time order, and its rows are interleaved with
// those of the others. So the index is a few runs, each a queue of rows
// appended in non-decreasing Key order (a row joins the run whose last Key
// is the greatest not above its own), and a B-tree for the rows no run
// takes. Appending to a run and taking from its front cost no comparison
// of keys beyond the run's last and first; an index of a single B-tree
// cost Nexmark q7 a tenth of its time. A row refers to its group, kept
// across Commits, so that cleaning it up needs no lookup of the group while
// the group stays cached (StateTable.Refresh), and to the group entry's
// own key, so that indexing it allocates nothing.
type intervalIndex struct {
	runs     []indexRun
	overflow *btreemap.BTreeMap[indexedRow, struct{}]
}

// indexedRow is one indexed row: its Key, its group (as it was when the
// row was indexed: see StateTable.Refresh) and its suffix in the group. A
// removed row's group is nil.
type indexedRow struct {
	k      types.Datum
	g      *Group
	suffix []byte
}

// indexRun is a queue of rows in non-decreasing Key order; rows[:head]
// are gone.
type indexRun struct {
	rows []indexedRow
	head int
}

// maxIndexRuns is the most runs an index keeps: enough for the upstream
// actors of a join on one node to each fill their own.
const maxIndexRuns = 8

func newIntervalIndex() *intervalIndex {
	return &intervalIndex{overflow: btreemap.New[indexedRow, struct{}](btreeDegree, compareIndexed)}
}

// compareIndexed orders rows by Key, then group prefix and suffix.
func compareIndexed(a, b indexedRow) int {
	if c := types.Compare(a.k, b.k); c != 0 {
		return c
	}
	if c := strings.Compare(a.g.prefix, b.g.prefix); c != 0 {
		return c
	}
	return bytes.Compare(a.suffix, b.suffix)
}

// add indexes the row under suffix in g (kept, not copied) with Key k.
func (x *intervalIndex) add(k types.Datum, g *Group, suffix []byte) {
	r := indexedRow{k, g, suffix}
	if k.IsNull() {
		// A NULL Key sorts after every threshold: the row stays until it
		// is retracted, and would hold up a run.
		x.overflow.ReplaceOrInsert(r, struct{}{})
		return
	}
	best, empty := -1, -1
	var bestLast types.Datum
	for i := range x.runs {
		run := &x.runs[i]
		if run.len() == 0 {
			if empty < 0 {
				empty = i
			}
			continue
		}
		if last := run.rows[len(run.rows)-1].k; types.Compare(last, k) <= 0 && (best < 0 || types.Compare(bestLast, last) < 0) {
			best, bestLast = i, last
		}
	}
	if best < 0 {
		best = empty
	}
	if best < 0 && len(x.runs) < maxIndexRuns {
		x.runs = append(x.runs, indexRun{})
		best = len(x.runs) - 1
	}
	if best < 0 {
		x.overflow.ReplaceOrInsert(r, struct{}{})
		return
	}
	x.runs[best].push(r)
}

// remove drops the row under suffix in the group of prefix with Key k.
func (x *intervalIndex) remove(k types.Datum, prefix string, suffix []byte) {
	for i := range x.runs {
		run := &x.runs[i]
		rows := run.rows[run.head:]
		first, _ := slices.BinarySearchFunc(rows, k, func(r indexedRow, k types.Datum) int { return types.Compare(r.k, k) })
		for j := first; j < len(rows) && types.Compare(rows[j].k, k) == 0; j++ {
			if r := &rows[j]; r.g != nil && r.g.prefix == prefix && bytes.Equal(r.suffix, suffix) {
				*r = indexedRow{k: r.k}
				return
			}
		}
	}
	x.overflow.Delete(indexedRow{k: k, g: &Group{prefix: prefix}, suffix: suffix})
}

// takeBelow removes the rows with Key below threshold, calling fn with
// each, in no particular order, until fn fails.
func (x *intervalIndex) takeBelow(threshold types.Datum, fn func(r indexedRow) error) error {
	for i := range x.runs {
		run := &x.runs[i]
		for run.len() > 0 && types.Compare(run.rows[run.head].k, threshold) < 0 {
			r := run.pop()
			if r.g == nil {
				continue
			}
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	for {
		r, _, ok := x.overflow.Min()
		if !ok || types.Compare(r.k, threshold) >= 0 {
			return nil
		}
		x.overflow.DeleteMin()
		if err := fn(r); err != nil {
			return err
		}
	}
}

// len returns the number of rows in the run, removed ones included.
func (r *indexRun) len() int { return len(r.rows) - r.head }

// push appends row, whose Key is not below the last one's. A full run
// drops its removed rows first: in place if they are at least half of it,
// else into a run of twice its live rows (append would copy them too).
func (r *indexRun) push(row indexedRow) {
	if len(r.rows) == cap(r.rows) && r.head > 0 {
		live := r.rows[r.head:]
		if r.head >= len(r.rows)/2 {
			n := copy(r.rows, live)
			clear(r.rows[n:])
			r.rows = r.rows[:n]
		} else {
			grown := make([]indexedRow, len(live), 2*len(live))
			copy(grown, live)
			r.rows = grown
		}
		r.head = 0
	}
	r.rows = append(r.rows, row)
}

// pop removes and returns the first row.
func (r *indexRun) pop() indexedRow {
	row := r.rows[r.head]
	r.rows[r.head] = indexedRow{}
	r.head++
	if r.head == len(r.rows) {
		r.rows, r.head = r.rows[:0], 0
	}
	return row
}
