package meta

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// snapshotVersion is the version of the snapshot format.
const snapshotVersion = 1

// fsm is the Raft state machine: it applies commands to the current catalog,
// copy-on-write, and publishes each new catalog atomically. The committed
// epoch is kept beside the catalog: it changes at every checkpoint, and
// the catalog only on DDL, so that what is bound against a catalog stays
// valid across checkpoints.
type fsm struct {
	catalog   atomic.Pointer[Catalog]
	committed atomic.Uint64
	// onCommit, if set, is told of each epoch committed.
	onCommit atomic.Pointer[func(uint64)]
	// applied is the index of the last entry applied (Raft's own
	// AppliedIndex runs ahead of the FSM: it counts entries handed to it).
	applied atomic.Uint64
	// recent are the outcomes of the last commands with request ids, and
	// fence the latest recovery of the streaming jobs; only Apply,
	// Snapshot and Restore use them, which Raft calls in turn.
	recent outcomes
	fence  Fence
	// durable is the last durable checkpoint and restore the restore
	// the next recovery does; like the committed epoch, they change
	// beside the catalog.
	durable atomic.Pointer[Durable]
	restore atomic.Pointer[RestorePoint]
	// seqs are the sequences' states (sequence_state.go).
	seqs   atomic.Pointer[seqStates]
	logger *slog.Logger
}

var _ raft.FSM = (*fsm)(nil)

func newFSM(logger *slog.Logger) *fsm {
	f := &fsm{logger: logger}
	f.catalog.Store(newCatalog().seal())
	return f
}

// result is what Apply returns to the proposer through the ApplyFuture.
type result struct {
	value any
	err   error
}

// Apply implements raft.FSM.
func (f *fsm) Apply(l *raft.Log) any {
	value, err := f.apply(l.Data, l.Term)
	if err != nil && pgerror.Code(err) == pgerror.CodeInternal {
		f.logger.Error("catalog command failed", "index", l.Index, "err", err)
	}
	f.applied.Store(l.Index)
	return result{value, err}
}

// apply applies the command data of a log entry of term.
func (f *fsm) apply(data []byte, term uint64) (any, error) {
	c, err := decodeCommand(data)
	if err != nil {
		return nil, err
	}
	if c.ID == "" {
		return f.applyCommand(c, term)
	}
	if v, err, ok := f.recent.lookup(c.ID); ok {
		return v, err
	}
	value, err := f.applyCommand(c, term)
	f.recent.remember(c.ID, value, err)
	return value, err
}

// applyCommand applies one decoded command of a log entry of term.
func (f *fsm) applyCommand(c command, term uint64) (any, error) {
	cat := f.catalog.Load()
	var value any
	switch c.Op {
	case opCreateTable:
		p, err := decodePayload[createTableCmd](c)
		if err != nil {
			return nil, err
		}
		cat, value, err = cat.createTableWithSequences(p.Table, p.Owned, p.IfNotExists)
		if err != nil {
			return nil, err
		}
	case opDropObject:
		p, err := decodePayload[dropObjectCmd](c)
		if err != nil {
			return nil, err
		}
		cat, value, err = cat.dropObject(p.Kind, p.Schema, p.Name, p.IfExists, p.Cascade)
		if err != nil {
			return nil, err
		}
	case opCreateIndex:
		p, err := decodePayload[createIndexCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.createIndex(p.Schema, p.Table, p.Index, p.IfNotExists); err != nil {
			return nil, err
		}
	case opDropIndex:
		p, err := decodePayload[dropIndexCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.dropIndex(p.Schema, p.Name, p.IfExists); err != nil {
			return nil, err
		}
	case opCreateSchema:
		p, err := decodePayload[createSchemaCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.createSchema(p.Name, p.IfNotExists, p.Owner); err != nil {
			return nil, err
		}
	case opDropSchema:
		p, err := decodePayload[dropSchemaCmd](c)
		if err != nil {
			return nil, err
		}
		cat, value, err = cat.dropSchema(p.Name, p.IfExists, p.Cascade)
		if err != nil {
			return nil, err
		}
	case opRename:
		p, err := decodePayload[renameCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.rename(p.Kind, p.Schema, p.Name, p.NewName, p.IfExists); err != nil {
			return nil, err
		}
	case opRenameColumn:
		p, err := decodePayload[renameColumnCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.renameColumn(p.Kind, p.Schema, p.Table, p.Column, p.NewName); err != nil {
			return nil, err
		}
	case opComment:
		p, err := decodePayload[commentCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.comment(p.Kind, p.Schema, p.Name, p.Column, p.Text); err != nil {
			return nil, err
		}
	case opAddColumn:
		p, err := decodePayload[addColumnCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.addColumn(p.Schema, p.Table, p.Column, p.IfNotExists); err != nil {
			return nil, err
		}
	case opDropColumn:
		p, err := decodePayload[dropColumnCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.dropColumn(p.Schema, p.Table, p.Column, p.IfExists); err != nil {
			return nil, err
		}
	case opCreateFunc:
		p, err := decodePayload[createFunctionCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.createFunction(p.Function, p.OrReplace); err != nil {
			return nil, err
		}
	case opDropFunc:
		p, err := decodePayload[dropFunctionCmd](c)
		if err != nil {
			return nil, err
		}
		var argTypes []types.T
		if p.ArgTypes != nil {
			argTypes = make([]types.T, len(p.ArgTypes))
			for i, oid := range p.ArgTypes {
				if argTypes[i], err = typeOf(oid, -1, "function "+p.Name); err != nil {
					return nil, err
				}
			}
		}
		cat, value, err = cat.dropFunction(p.Schema, p.Name, argTypes, p.IfExists, p.Cascade)
		if err != nil {
			return nil, err
		}
	case opAllocIDs:
		p, err := decodePayload[allocIDsCmd](c)
		if err != nil {
			return nil, err
		}
		cat, value = cat.allocIDs(p.N)
	case opSetSystem:
		p, err := decodePayload[setSystemCmd](c)
		if err != nil {
			return nil, err
		}
		cat = cat.setSystem(p.Name, p.Value)
	case opRescale:
		p, err := decodePayload[rescaleCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.beginRescale(p.Table, p.Rescale); err != nil {
			return nil, err
		}
	case opEndRescale:
		p, err := decodePayload[endRescaleCmd](c)
		if err != nil {
			return nil, err
		}
		cat = cat.endRescale(p.Table, p.Runner)
	case opInitCluster:
		p, err := decodePayload[initClusterCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.initCluster(p.ClusterID, p.Voters, p.Origin); err != nil {
			return nil, err
		}
	case opPutNode:
		p, err := decodePayload[putNodeCmd](c)
		if err != nil {
			return nil, err
		}
		cat = cat.putNode(p.Node)
	case opBeginRecovery:
		p, err := decodePayload[beginRecoveryCmd](c)
		if err != nil {
			return nil, err
		}
		return nil, f.beginRecovery(p, term)
	case opRemoveNode:
		p, err := decodePayload[removeNodeCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.removeNode(p.ID); err != nil {
			return nil, err
		}
	case opForceRemove:
		p, err := decodePayload[forceRemoveCmd](c)
		if err != nil {
			return nil, err
		}
		if cat, err = f.forceRemove(cat, p.ID); err != nil {
			return nil, err
		}
	case opDurable:
		p, err := decodePayload[durableCmd](c)
		if err != nil {
			return nil, err
		}
		return f.applyDurable(p)
	case opCreateRole, opAlterRole, opDropRole:
		var err error
		if cat, err = applyRole(cat, c); err != nil {
			return nil, err
		}
	case opGrant, opAlterOwner:
		var err error
		if cat, err = applyPrivilege(cat, c); err != nil {
			return nil, err
		}
	case opSeqAlloc, opSeqSet, opAlterSequence:
		var err error
		if cat, value, err = f.applySequence(cat, c); err != nil {
			return nil, err
		}
	case opCommitEpoch:
		p, err := decodePayload[commitEpochCmd](c)
		if err != nil {
			return nil, err
		}
		if err := f.checkCommit(p, term); err != nil {
			return nil, err
		}
		if r := f.restore.Load(); r != nil && r.Fence.Before(p.Fence) {
			// A recovery after the restore began has restored every
			// job and runs them: later ones recover from its epochs.
			f.restore.Store(nil)
		}
		if p.Epoch > f.committed.Load() {
			f.committed.Store(p.Epoch)
			if fn := f.onCommit.Load(); fn != nil {
				(*fn)(p.Epoch)
			}
		}
		if p.Step == nil {
			return nil, nil
		}
		if cat, err = cat.rescaleStep(*p.Step); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("meta: unknown command %q: upgrade this node", c.Op)
	}
	f.catalog.Store(cat)
	return value, nil
}

// snapshotJSON is the persisted form of the FSM: the catalog, with the
// committed epoch among its fields.
type snapshotJSON struct {
	Version int          `json:"v"`
	Catalog *catalogJSON `json:"catalog"`
	// Recent are the FSM's remembered command outcomes.
	Recent []*outcome `json:"recent,omitempty"`
	// Applied is the index of the last entry applied.
	Applied uint64 `json:"applied,omitempty"`
	// Fence is the latest recovery of the streaming jobs.
	Fence Fence `json:"fence"`
	// Durable is the last durable checkpoint; Restore a pending restore.
	Durable *Durable      `json:"durable,omitempty"`
	Restore *RestorePoint `json:"restore,omitempty"`
	// Sequences are the sequences' states.
	Sequences seqStates `json:"sequences,omitempty"`
}

// Snapshot implements raft.FSM. Raft calls it between Applies, and the
// catalog is immutable, so the snapshot just holds on to it and the epoch.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	var seqs seqStates
	if m := f.seqs.Load(); m != nil {
		seqs = *m
	}
	return fsmSnapshot{f.catalog.Load(), f.committed.Load(), f.recent.snapshot(), f.applied.Load(), f.fence, f.durable.Load(), f.restore.Load(), seqs}, nil
}

// Restore implements raft.FSM.
func (f *fsm) Restore(r io.ReadCloser) error {
	defer r.Close()
	var s snapshotJSON
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return fmt.Errorf("meta: undecodable snapshot: %w", err)
	}
	if s.Version > snapshotVersion || s.Catalog == nil {
		return fmt.Errorf("meta: snapshot version %d not understood (up to %d): upgrade this node", s.Version, snapshotVersion)
	}
	cat, committed := fromJSON(*s.Catalog)
	f.catalog.Store(cat)
	f.recent.restore(s.Recent)
	f.fence = s.Fence
	f.durable.Store(s.Durable)
	f.restore.Store(s.Restore)
	f.seqs.Store(&s.Sequences)
	f.applied.Store(max(f.applied.Load(), s.Applied))
	if committed > f.committed.Load() {
		f.committed.Store(committed)
		if fn := f.onCommit.Load(); fn != nil {
			(*fn)(committed)
		}
	}
	return nil
}

type fsmSnapshot struct {
	catalog   *Catalog
	committed uint64
	recent    []*outcome
	applied   uint64
	fence     Fence
	durable   *Durable
	restore   *RestorePoint
	seqs      seqStates
}

// Persist implements raft.FSMSnapshot.
func (s fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	err := json.NewEncoder(sink).Encode(snapshotJSON{Version: snapshotVersion, Catalog: new(s.catalog.toJSON(s.committed)), Recent: s.recent, Applied: s.applied, Fence: s.fence, Durable: s.durable, Restore: s.restore, Sequences: s.seqs})
	if err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

// Release implements raft.FSMSnapshot.
func (fsmSnapshot) Release() {}
