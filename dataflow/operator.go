package dataflow

import (
	"context"

	"github.com/streamdb/streamdb/types"
)

// Emit passes an operator's output chunk downstream. The receiver owns the
// chunk afterwards.
type Emit func(c *Chunk) error

// Operator is one step of an actor's pipeline. An actor calls it from one
// goroutine: Process for each input chunk, Barrier once a barrier has
// arrived on every input.
type Operator interface {
	// Process handles one chunk from input number input (always 0 for
	// single-input operators).
	Process(input int, c *Chunk, emit Emit) error
	// Barrier emits whatever the operator holds back for the epoch, then,
	// for a checkpoint barrier, commits the epoch's state delta to the
	// store. No per-vnode data may stay outside state tables across a
	// barrier (the rescale protocol moves vnodes at barriers).
	Barrier(b *Barrier, emit Emit) error
}

// Env is what an actor gives the operators it builds.
type Env struct {
	Ctx context.Context
	// VNodes are the key groups this actor owns; VNodeCount is the job's G.
	VNodes     *Bitmap
	VNodeCount int
	// Splits are the source splits this actor reads, for a fragment that
	// starts with a SourceSpec; each goes with one of the actor's vnodes (splitVNode).
	Splits []int
	// Store is the node's state store.
	Store *Store
	// Eval evaluates expressions (no parameters, no outer rows).
	Eval *Evaluator
	// WaitCommitted blocks until an epoch is committed.
	WaitCommitted func(ctx context.Context, epoch uint64) error
	// Creating: the actor belongs to a new job, which backfills its
	// inputs; each input tells when its snapshot is in (Loaded).
	Creating bool
	// align is the watermark alignment of a source actor's job, and
	// aligned the actor's part in it, which its source joins and its
	// watermark filter advances (align.go).
	align   *alignGroup
	aligned *alignMember
	// tables are the actor's views of its state tables by id, which
	// outlive its operators: operators rebuilt for new vnodes keep the
	// cache of the vnodes they keep (see StateTable).
	tables map[uint32]*StateTable
}

// StateTable returns the actor's view of state table id, whose rows have
// rowTypes: the one its operators had before they were rebuilt, or a new
// one.
func (e *Env) StateTable(id uint32, rowTypes []types.T) *StateTable {
	if t := e.tables[id]; t != nil {
		return t
	}
	t := NewStateTable(e.Store, id, rowTypes)
	if e.tables == nil {
		e.tables = map[uint32]*StateTable{}
	}
	e.tables[id] = t
	return t
}

// Spec describes an operator of a streaming plan; the runtime builds one
// Operator per actor from it.
type Spec interface {
	Build(env *Env) (Operator, error)
	// Explain renders the operator for EXPLAIN.
	Explain() string
}
