package dataflow

import (
	"maps"
	"slices"
	"sync/atomic"

	"github.com/streamdb/streamdb/types"
)

// fragment is a running fragment of a job: its actors by slot and the
// slot owning each vnode. Slots name actors across rescales: an actor
// keeps its slot while it lives, and the vnode assignment recorded in the
// catalog maps vnodes to slots.
type fragment struct {
	job *job
	// spec is nil for a table's DML fragment.
	spec *FragmentSpec
	// types are the types of the rows the fragment emits.
	types []types.T
	// owner maps each vnode to the slot of the actor owning it (all slot 0
	// for a singleton).
	owner  []int
	actors map[int]*actor
	// ins are the fragment's inputs by input number; outs the inputs of
	// other fragments (of any job) that it feeds.
	ins  []*edge
	outs []*edge
	// rows counts the rows its actors took in and passed on.
	rows rowCounts
}

// rowCounts counts the rows a fragment's actors took in and passed on,
// a chunk at a time; FragmentRows reads them.
type rowCounts struct{ in, out atomic.Int64 }

// parallel reports whether the fragment runs at its job's parallelism
// (its vnodes spread over its actors) rather than as one actor.
func (f *fragment) parallel() bool { return f.spec != nil && !f.spec.Singleton }

// id returns the fragment's id in its job's graph (0 for a table's DML
// fragment).
func (f *fragment) id() int {
	if f.spec == nil {
		return 0
	}
	return f.spec.ID
}

// slots returns the slots of the fragment's actors in ascending order.
func (f *fragment) slots() []int { return slices.Sorted(maps.Keys(f.actors)) }

// vnodesOf returns the vnodes slot owns under owner.
func vnodesOf(owner []int, slot int) *Bitmap {
	b := NewBitmap(len(owner))
	for v, s := range owner {
		if s == slot {
			b.Set(v)
		}
	}
	return b
}

// splitVNode is the vnode that source split sp of splits goes with: the
// middle of its share of the vnodes, so that splits spread over actors
// owning ranges of vnodes. The owner of the vnode reads the split and
// keeps its offset under the vnode (DESIGN.md §4): a split moves, on one
// node or between nodes, with its vnode and that vnode's state.
func splitVNode(sp, splits, vnodes int) int {
	return (2*sp + 1) * vnodes / (2 * splits) % vnodes
}

// splitsOf returns the source splits of splits that the actor at slot
// reads under the vnode owners owner.
func splitsOf(splits int, owner []int, slot int) []int {
	var out []int
	for sp := range splits {
		if owner[splitVNode(sp, splits, len(owner))] == slot {
			out = append(out, sp)
		}
	}
	return out
}

// edge is one input of a fragment: a queue from each actor of the
// producing fragment to each actor of the consuming one, rows routed by
// the consumer's vnode owners.
type edge struct {
	from, to *fragment
	input    int
	dist     DistKind
	keys     []int
	// cols, if set, are the producer's columns the consumer reads
	// (InputSpec.Cols).
	cols   []int
	queues map[actorPair]chan Message
	// remote holds this node's end of each queue between nodes.
	remote map[actorPair]*remoteQueue
}

type actorPair struct{ from, to *actor }

// link returns the queue from p to c, creating it (and c's port for it)
// if new; created reports that.
func (e *edge) link(p, c *actor) (port *inputPort, created bool) {
	k := actorPair{p, c}
	if _, ok := e.queues[k]; ok {
		return nil, false
	}
	ch := make(chan Message, queueLen)
	e.queues[k] = ch
	return newPort(ch, e.input), true
}

// group returns p's output group for e over the consumer's current actors
// and owners; every queue from p must exist.
func (e *edge) group(p *actor) *outputGroup {
	slots := e.to.slots()
	pos := make(map[int]int, len(slots))
	outs := make([]chan<- Message, len(slots))
	for i, s := range slots {
		pos[s] = i
		outs[i] = e.queues[actorPair{p, e.to.actors[s]}]
	}
	owner := make([]int, len(e.to.owner))
	for v, s := range e.to.owner {
		owner[v] = pos[s]
	}
	g := newOutputGroup(e.dist, e.keys, len(owner), owner, outs)
	g.job, g.edge, g.cols = e.to.job.id, e, e.cols
	return g
}

// types returns the types of the rows e carries.
func (e *edge) types() []types.T {
	if e.cols == nil {
		return e.from.types
	}
	out := make([]types.T, len(e.cols))
	for i, c := range e.cols {
		out[i] = e.from.types[c]
	}
	return out
}

// unlink forgets the queues from or to actors that are no longer in their
// fragments (queues between nodes end after the barrier of epoch) and
// returns, per surviving consumer, the ports of the queues it loses.
func (e *edge) unlink(epoch uint64) map[*actor][]chan Message {
	lost := map[*actor][]chan Message{}
	for k, ch := range e.queues {
		fromLive := e.from.actors[k.from.slot] == k.from
		toLive := e.to.actors[k.to.slot] == k.to
		if fromLive && toLive {
			continue
		}
		delete(e.queues, k)
		if q := e.remote[k]; q != nil {
			q.last.Store(epoch)
			delete(e.remote, k)
		}
		if toLive {
			lost[k.to] = append(lost[k.to], ch)
		}
	}
	return lost
}

// end ends every queue between nodes of e after the barrier of epoch (its
// consumer's job stops).
func (e *edge) end(epoch uint64) {
	for k, q := range e.remote {
		q.last.Store(epoch)
		delete(e.remote, k)
	}
}
