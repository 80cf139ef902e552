package meta

import (
	"context"
	"maps"

	"github.com/streamdb/streamdb/pgerror"
)

// Sequence values are replicated beside the catalog, like the committed
// epoch: a node takes a block of values in one Raft entry and hands them
// out from memory, so nextval costs a round trip once per block, and no
// value is handed out twice, across nodes and restarts (a crash loses
// the rest of a block: gaps, as PostgreSQL has after one).

type seqAllocCmd struct {
	ID uint32 `json:"id"`
	N  int64  `json:"n"`
}

type seqSetCmd struct {
	ID     uint32 `json:"id"`
	Value  int64  `json:"value"`
	Called bool   `json:"called"`
}

type alterSequenceCmd struct {
	Schema   string     `json:"schema"`
	Name     string     `json:"name"`
	Options  SeqOptions `json:"options"`
	Owner    *SeqOwner  `json:"owner,omitempty"`
	IfExists bool       `json:"if_exists,omitempty"`
	// GiveBack, if set, returns the unused end of the proposing node's
	// block.
	GiveBack *SeqGiveBack `json:"give_back,omitempty"`
}

// SeqGiveBack returns the unused values of a node's block: if the block
// (of generation Gen, ending at End) is still the last one taken, the
// sequence goes back to Last, the last value the node handed out, so that
// ALTER SEQUENCE continues from there as PostgreSQL's does.
type SeqGiveBack struct {
	Gen  uint64 `json:"gen"`
	End  int64  `json:"end"`
	Last int64  `json:"last"`
}

// seqStates maps sequence ids to their states; a map is replaced, never
// modified. A sequence without an entry is in its initial state.
type seqStates map[uint32]SeqState

// seqState returns the state of sequence t.
func (f *fsm) seqState(t *Table) SeqState {
	if m := f.seqs.Load(); m != nil {
		if st, ok := (*m)[t.ID]; ok {
			return st
		}
	}
	return t.Sequence.initialState()
}

// setSeqState records st as the state of sequence id, forgetting the
// states of sequences cat no longer has.
func (f *fsm) setSeqState(cat *Catalog, id uint32, st SeqState) {
	next := seqStates{id: st}
	if m := f.seqs.Load(); m != nil {
		next = maps.Clone(*m)
		next[id] = st
		maps.DeleteFunc(next, func(id uint32, _ SeqState) bool { _, ok := cat.byID[id]; return !ok })
	}
	f.seqs.Store(&next)
}

// applySequence applies a sequence command to cat's sequences; cat
// changes only for ALTER SEQUENCE.
func (f *fsm) applySequence(cat *Catalog, c command) (*Catalog, any, error) {
	switch c.Op {
	case opSeqAlloc:
		p, err := decodePayload[seqAllocCmd](c)
		if err != nil {
			return cat, nil, err
		}
		t, err := cat.sequence(p.ID)
		if err != nil {
			return cat, nil, err
		}
		st, b, err := t.Sequence.alloc(t.Name, f.seqState(t), max(p.N, 1))
		if err != nil {
			return cat, nil, err
		}
		f.setSeqState(cat, t.ID, st)
		return cat, b, nil
	case opSeqSet:
		p, err := decodePayload[seqSetCmd](c)
		if err != nil {
			return cat, nil, err
		}
		t, err := cat.sequence(p.ID)
		if err != nil {
			return cat, nil, err
		}
		st, err := t.Sequence.setval(t.Name, f.seqState(t), p.Value, p.Called)
		if err != nil {
			return cat, nil, err
		}
		f.setSeqState(cat, t.ID, st)
		return cat, nil, nil
	case opAlterSequence:
		p, err := decodePayload[alterSequenceCmd](c)
		if err != nil {
			return cat, nil, err
		}
		n, restart, err := cat.alterSequence(p.Schema, p.Name, p.Options, p.Owner, p.IfExists)
		if err != nil || n == cat {
			return cat, nil, err
		}
		t, _ := n.Table(schemaOrDefault(p.Schema), p.Name)
		// Blocks nodes hold follow the old options: void them.
		st := f.seqState(t)
		if g := p.GiveBack; g != nil && g.Gen == st.Gen && g.End == st.Last && st.Called {
			st.Last = g.Last
		}
		st.Gen++
		if restart != nil {
			st.Last, st.Called = *restart, false
		}
		f.setSeqState(n, t.ID, st)
		return n, nil, nil
	}
	return cat, nil, pgerror.New(pgerror.CodeInternal, "meta: %q is not a sequence command", c.Op)
}

// SequenceState returns the replicated state of sequence t as this node
// applied it.
func (m *Meta) SequenceState(t *Table) SeqState { return m.fsm.seqState(t) }

// AllocSequence takes a block of up to n values of the sequence id for
// this node (2200H when it has none left).
func (m *Meta) AllocSequence(ctx context.Context, id uint32, n int64) (SeqBlock, error) {
	v, err := m.apply(ctx, opSeqAlloc, seqAllocCmd{ID: id, N: n})
	if err != nil {
		return SeqBlock{}, err
	}
	return as[SeqBlock](v)
}

// SetSequence is setval(id, value, called): it voids every node's block.
func (m *Meta) SetSequence(ctx context.Context, id uint32, value int64, called bool) error {
	_, err := m.apply(ctx, opSeqSet, seqSetCmd{ID: id, Value: value, Called: called})
	return err
}

// AlterSequence applies ALTER SEQUENCE schema.name's options and, with
// owner set, OWNED BY; it voids every node's block, taking giveBack's
// values back.
func (m *Meta) AlterSequence(ctx context.Context, schema, name string, o SeqOptions, owner *SeqOwner, ifExists bool, giveBack *SeqGiveBack) error {
	_, err := m.apply(ctx, opAlterSequence, alterSequenceCmd{Schema: schema, Name: name, Options: o, Owner: owner, IfExists: ifExists, GiveBack: giveBack})
	return err
}

// CreateTableWithSequences is CreateTable for a table whose serial and
// identity columns own new sequences, created in the same entry.
func (m *Meta) CreateTableWithSequences(ctx context.Context, t *Table, owned []OwnedSequence, ifNotExists bool) (*Table, error) {
	v, err := m.apply(ctx, opCreateTable, createTableCmd{Table: t, Owned: owned, IfNotExists: ifNotExists})
	if err != nil {
		return nil, err
	}
	return as[*Table](v)
}
