package control

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/storage"
)

// SplitProgress is the committed position of one split of a source.
type SplitProgress struct {
	// Source names the source (or table with a connector).
	Source string
	// Split is the split's number.
	Split int
	// Offset is the committed offset: the position of the split's next row.
	Offset int64
	// Done reports that the split has no rows beyond Offset: all it
	// produces is in committed state.
	Done bool
}

// StateTableEntries is the size of one operator state table of a
// relation: join sides, aggregation groups, buffered rows, watermarks.
type StateTableEntries struct {
	Relation string
	Table    uint32
	// Entries counts the table's live keys.
	Entries int64
}

// FragmentActor is one actor of a running fragment of a job.
type FragmentActor struct {
	Job         uint32
	Name        string
	Fragment    int
	Parallelism int
	// Actor is the actor's slot; VNodes the number of key groups it owns.
	Actor, VNodes int
	// Node is the id of the node that runs the actor.
	Node string
}

// SourceSplits returns the offset of every split of every source and
// table with a connector, read from the state at committed epoch epoch. A
// split is done when it has no rows beyond its committed offset.
func (r *Reader) SourceSplits(epoch uint64) ([]SplitProgress, error) {
	var out []SplitProgress
	for _, t := range r.meta.Catalog().Tables() {
		if t.Kind != meta.KindSource && t.Connector() == "" {
			continue
		}
		src, err := openSource(t)
		if err != nil {
			return nil, err
		}
		for i := range src.Splits {
			sp := src.NewSplit(i)
			off, ok, err := dataflow.SplitOffset(r, t.StateTables[0], i, src.Splits, epoch)
			if err != nil {
				return nil, err
			}
			if ok {
				sp.SetOffset(off)
			}
			out = append(out, SplitProgress{Source: t.Name, Split: i, Offset: sp.Offset(), Done: sp.Done()})
		}
	}
	return out, nil
}

// StateTables counts the keys of each relation's state tables at
// committed epoch epoch, a scan of each.
func (r *Reader) StateTables(epoch uint64) ([]StateTableEntries, error) {
	var out []StateTableEntries
	for _, t := range r.meta.Catalog().Tables() {
		for _, id := range t.StateTables {
			n := int64(0)
			err := r.Scan(storage.AppendKey(nil, id, 0, nil), storage.AppendKey(nil, id+1, 0, nil), epoch,
				func(_, _ []byte) error { n++; return nil })
			if err != nil {
				return nil, err
			}
			out = append(out, StateTableEntries{Relation: t.Name, Table: id, Entries: n})
		}
	}
	return out, nil
}

// Fragments returns the actors of every job's fragments running on this
// node, by job, fragment and slot.
func (s *Streaming) Fragments() []FragmentActor {
	cat := s.meta.Catalog()
	tables := map[uint32]*meta.Table{}
	for _, t := range cat.Tables() {
		tables[t.ID] = t
	}
	var out []FragmentActor
	for _, f := range s.rt.Fragments() {
		a := FragmentActor{Job: f.Job, Fragment: f.Fragment, Parallelism: f.Parallelism, Actor: f.Slot, VNodes: f.VNodes}
		if t := tables[f.Job]; t != nil {
			a.Name = t.Name
			if nodes := JobPlacement(cat, t); f.Slot < len(nodes) {
				a.Node = nodes[f.Slot]
			}
		}
		out = append(out, a)
	}
	return out
}

// Edges returns the inputs of every running job's fragments: the job
// graphs' edges, and those between jobs.
func (s *Streaming) Edges() []dataflow.FragmentEdge { return s.rt.Edges() }

// VNodeOwners returns the slot of the actor owning each vnode of t's
// parallel fragments and the node of each slot, as the catalog records
// them: the last committed rescale step's (a rescale in progress places
// its new slots by its plan).
func VNodeOwners(cat *meta.Catalog, t *meta.Table) (owner []int, nodes []string) {
	owner = JobAssignment(t)
	nodes = JobPlacement(cat, t)
	if r := t.Rescale; r != nil && len(r.Placement) > len(nodes) {
		nodes = append(slices.Clone(nodes), r.Placement[len(nodes):]...)
	}
	return owner, nodes
}
