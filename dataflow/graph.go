package dataflow

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// GraphSpec is one streaming job (a materialized view): fragments, each a
// pipeline of operators run as parallel actors, connected by exchanges.
type GraphSpec struct {
	// Fragments are ordered so that every fragment comes after the
	// fragments it reads; the last one materializes the job's result.
	Fragments []*FragmentSpec
	// VNodeCount is the job's number of key groups G.
	VNodeCount int
	// Zone is the TimeZone its expressions run in ("": UTC).
	Zone string
}

// FragmentSpec is a pipeline segment between exchanges: its inputs feed
// the first operator of Chain (input number = index in Inputs), each
// operator feeds the next.
type FragmentSpec struct {
	ID     int
	Inputs []InputSpec
	Chain  []Spec
	// Singleton fragments run as one actor (global Top-N, global
	// aggregation); others run at the job's parallelism.
	Singleton bool
	// OutTypes are the types of the rows the fragment emits.
	OutTypes []types.T
}

// DistKind says how rows are routed from an upstream to this fragment's
// actors.
type DistKind uint8

// Distributions.
const (
	// DistHash routes each row to the actor owning vnode(Keys).
	DistHash DistKind = iota
	// DistSingle routes every row to the single actor of a singleton fragment.
	DistSingle
	// DistBroadcast sends every row to every actor of the fragment (the
	// one-row side of a dynamic filter, which each actor keeps a copy of).
	DistBroadcast
)

// String names the distribution: hash, single or broadcast.
func (d DistKind) String() string {
	switch d {
	case DistSingle:
		return "single"
	case DistBroadcast:
		return "broadcast"
	}
	return "hash"
}

// InputSpec is one input of a fragment: another fragment of the job, or
// the change stream of a table or materialized view (with a backfill of
// its current contents first).
type InputSpec struct {
	// Fragment is the upstream fragment's ID, or -1 for a table.
	Fragment int
	// Table is the upstream table or view when Fragment is -1.
	Table *TableRef
	Dist  DistKind
	// Keys are the columns whose hash routes a row (DistHash), of the rows
	// as the fragment reads them (after Cols).
	Keys []int
	// Cols, if set, are the upstream fragment's output columns the input
	// reads, in order: the upstream's actors send each row as these
	// columns. A fragment whose output several fragments read, each in an
	// order of its own (an aggregation a query repeats), so needs no
	// fragment per reader only to reorder columns.
	Cols []int
}

// TableRef names an upstream relation whose changes a job reads.
type TableRef struct {
	ID         uint32
	Name       string
	Types      []types.T
	PK         []int
	AppendOnly bool
	// RowBlocks: the relation stores its rows in row blocks
	// (meta.Table.RowBlocks).
	RowBlocks bool
	// Source marks a source, which stores nothing: its consumers get no
	// backfill.
	Source bool
	// Watermark makes the watermarks of a table's rows (nil: none).
	Watermark *WatermarkFilterSpec
}

// Explain renders the graph, one fragment per paragraph.
func (g *GraphSpec) Explain() []string {
	var lines []string
	for i := len(g.Fragments) - 1; i >= 0; i-- {
		f := g.Fragments[i]
		par := "parallelism default"
		if f.Singleton {
			par = "singleton"
		}
		lines = append(lines, fmt.Sprintf("Fragment %d (%s)", f.ID, par))
		for j := len(f.Chain) - 1; j >= 0; j-- {
			lines = append(lines, "  "+strings.Repeat("  ", len(f.Chain)-1-j)+f.Chain[j].Explain())
		}
		for _, in := range f.Inputs {
			dist := "Single"
			switch in.Dist {
			case DistHash:
				dist = fmt.Sprintf("Hash%v", in.Keys)
			case DistBroadcast:
				dist = "Broadcast"
			}
			src := fmt.Sprintf("Fragment %d", in.Fragment)
			switch {
			case in.Fragment >= 0:
				if in.Cols != nil {
					src += fmt.Sprintf(" cols=%v", in.Cols)
				}
			case in.Table.Source:
				src = "Source " + in.Table.Name
			default:
				src = "Table " + in.Table.Name
			}
			if in.Fragment < 0 && in.Table.Watermark != nil {
				src += fmt.Sprintf(" watermark $%d: %s", in.Table.Watermark.Col, in.Table.Watermark.Expr)
			}
			lines = append(lines, "  "+strings.Repeat("  ", len(f.Chain))+"Exchange "+dist+" <- "+src)
		}
	}
	return lines
}
