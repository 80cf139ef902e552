package control

import (
	"context"
	"sync"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
)

// LogValues is how many values a node takes beyond a sequence's CACHE in
// each block, as PostgreSQL logs 32 values ahead (SEQ_LOG_VALS): values
// left in a block when the node stops are skipped, never reused.
const LogValues = 32

// SequenceCatalog is what Sequences asks of the replicated catalog
// (*meta.Meta).
type SequenceCatalog interface {
	Catalog() *meta.Catalog
	SequenceState(t *meta.Table) meta.SeqState
	AllocSequence(ctx context.Context, id uint32, n int64) (meta.SeqBlock, error)
	SetSequence(ctx context.Context, id uint32, value int64, called bool) error
}

// Sequences hands out a node's sequence values from blocks it takes
// through the catalog, one Raft entry per block: values never repeat
// across nodes or restarts, and are not rolled back.
type Sequences struct {
	cat    SequenceCatalog
	mu     sync.Mutex
	blocks map[uint32]*seqBlock
}

// seqBlock is a node's block of one sequence and how much of it is used.
type seqBlock struct {
	mu    sync.Mutex
	block meta.SeqBlock
	used  int64
}

// NewSequences returns a node's sequence values over cat.
func NewSequences(cat SequenceCatalog) *Sequences {
	return &Sequences{cat: cat, blocks: map[uint32]*seqBlock{}}
}

// Lookup returns the sequence with the given id: 42P01 if none, 42809 if
// the relation is not a sequence.
func Lookup(cat *meta.Catalog, id uint32) (*meta.Table, error) {
	t, ok := cat.TableByID(id)
	switch {
	case !ok:
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "could not open relation with OID %d", id)
	case t.Kind != meta.KindSequence:
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a sequence", t.Name)
	}
	return t, nil
}

// block returns the node's block of sequence id, locked, dropped if a
// setval, RESTART or ALTER voided it.
func (s *Sequences) block(t *meta.Table) *seqBlock {
	s.mu.Lock()
	b := s.blocks[t.ID]
	if b == nil {
		b = &seqBlock{}
		s.blocks[t.ID] = b
	}
	s.mu.Unlock()
	b.mu.Lock()
	if b.block.Gen != s.cat.SequenceState(t).Gen {
		b.block, b.used = meta.SeqBlock{}, 0
	}
	return b
}

// NextVal returns the next value of sequence id on this node, taking a
// new block when the node's is used up.
func (s *Sequences) NextVal(ctx context.Context, id uint32) (int64, error) {
	t, err := Lookup(s.cat.Catalog(), id)
	if err != nil {
		return 0, err
	}
	b := s.block(t)
	defer b.mu.Unlock()
	if b.used == b.block.Count {
		nb, err := s.cat.AllocSequence(ctx, id, t.Sequence.Cache+LogValues)
		if err != nil {
			return 0, err
		}
		b.block, b.used = nb, 0
	}
	v := b.block.Value(b.used)
	b.used++
	return v, nil
}

// SetVal is setval(id, value, called): every node's block is voided.
func (s *Sequences) SetVal(ctx context.Context, id uint32, value int64, called bool) error {
	if _, err := Lookup(s.cat.Catalog(), id); err != nil {
		return err
	}
	return s.cat.SetSequence(ctx, id, value, called)
}

// Alter runs alter, an ALTER SEQUENCE of sequence t, with the unused
// values of the node's block to give back (nil if none), the block held
// meanwhile so that none of them is handed out.
func (s *Sequences) Alter(t *meta.Table, alter func(giveBack *meta.SeqGiveBack) error) error {
	b := s.block(t)
	defer b.mu.Unlock()
	var g *meta.SeqGiveBack
	if b.used > 0 {
		g = &meta.SeqGiveBack{Gen: b.block.Gen, End: b.block.Value(b.block.Count - 1), Last: b.block.Value(b.used - 1)}
	}
	return alter(g)
}

// Row returns what SELECT * FROM a sequence shows on this node:
// last_value, log_cnt (the values left in the node's block) and
// is_called.
func (s *Sequences) Row(id uint32) (last, logCnt int64, called bool, err error) {
	t, err := Lookup(s.cat.Catalog(), id)
	if err != nil {
		return 0, 0, false, err
	}
	b := s.block(t)
	defer b.mu.Unlock()
	if b.used > 0 {
		return b.block.Value(b.used - 1), b.block.Count - b.used, true, nil
	}
	st := s.cat.SequenceState(t)
	return st.Last, 0, st.Called, nil
}
