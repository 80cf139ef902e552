// Package meta holds the cluster's metadata: the catalog of relations (and,
// later, nodes, jobs, fragments, vnode assignments and epochs) as the state
// machine of a hashicorp/raft group. Every change is a Raft log entry; the
// state is an immutable value replaced on each change, so readers take the
// current Catalog without locking. The first node of a cluster bootstraps
// a one-voter group; later nodes join it (Config.Join) as voters up to the
// cluster's voter count, then as non-voters. The embedded default is a
// cluster of one node, not a separate code path.
package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/meta/raftstore"
	"github.com/streamdb/streamdb/types"
)

// Config configures a node's Meta.
type Config struct {
	// Dir is the node's data directory; Meta keeps its state in Dir/raft.
	Dir string
	// NodeID is this node's permanent id in the cluster; default "node1".
	NodeID string
	// Mux is the node's cluster listener: Raft runs on its RaftTag
	// connections; Open registers meta's service on Server (which the
	// caller then serves on the Mux) and Client calls other nodes. Nil:
	// Open makes and serves its own on RaftAddr (tests, tools).
	Mux    *cluster.Mux
	Server *cluster.Server
	Client *cluster.Client
	// RaftAddr is the address of the Mux Open makes; default
	// "127.0.0.1:0" (any free port).
	RaftAddr string
	// AdvertiseAddr is the cluster address other nodes reach this one at;
	// default the Mux's bound address. Required when binding a wildcard
	// address.
	AdvertiseAddr string
	// PgAddr, Cores and Version describe the node in the catalog.
	PgAddr  string
	Cores   int
	Version string
	// Join lists cluster addresses of members to join the cluster
	// through. Empty: a new node bootstraps a cluster of its own; a node
	// with state restarts as what it was.
	Join []string
	// Voters is how many nodes a new cluster makes Raft voters; default
	// DefaultVoters.
	Voters int
	// Logger receives warnings and errors; nil means slog.Default().
	Logger *slog.Logger
	// SnapshotThreshold is the number of log entries after which the
	// catalog is snapshotted and the log truncated; default 4096.
	SnapshotThreshold uint64
	// TrailingLogs is the number of entries kept after a snapshot, so that
	// a lagging follower can catch up without the snapshot; default 1024.
	TrailingLogs uint64
	// Log, if set, is where Raft keeps its log and stable keys: a node's
	// is a key space of its state store (raftstore.Within), whose WAL it
	// shares (see SyncsState); a log left in Dir/raft/log by an earlier
	// version moves into it. Nil: a store of its own in Dir/raft/log.
	Log *raftstore.Store
}

// Timeouts of the Raft group: Raft's own defaults, so that a leader whose
// followers are busy (three nodes sharing two cores while state moves
// between them, their answers late by over 250 ms) keeps its lease (a
// lost lease recovers every job of the cluster); a dead leader is
// replaced within about two seconds.
const (
	heartbeatTimeout   = time.Second
	leaderLeaseTimeout = 500 * time.Millisecond
	// startTimeout bounds waiting for a leader on Open.
	startTimeout = 10 * time.Second
	// enqueueTimeout bounds waiting for Raft to accept a command when the
	// context has no deadline.
	enqueueTimeout = 10 * time.Second
	// transportTimeout bounds each Raft RPC's I/O.
	transportTimeout  = 10 * time.Second
	snapshotsRetained = 2
)

// Meta is a node's member of the metadata Raft group.
type Meta struct {
	id     raft.ServerID
	cfg    Config
	raft   *raft.Raft
	fsm    *fsm
	store  *raftstore.Store
	trans  *raft.NetworkTransport
	client *cluster.Client
	// owned are the cluster pieces Open made itself (Config.Mux nil).
	owned *ownedTransport
	// live tracks when each other node last answered (liveness).
	live *liveness
	// reqIDs names this process's commands (see outcomes).
	reqIDs *requestIDs
	// readIndex batches followers' read index requests, and readyTerm is
	// the last term in which this node, leading, applied an entry of its
	// own (see Sync).
	readIndex readIndexBatch
	readyTerm atomic.Uint64
	cancel    context.CancelFunc
}

// ownedTransport is the Mux, server and client Open made for itself.
type ownedTransport struct {
	mux    *cluster.Mux
	server *cluster.Server
}

// Open starts this node's Raft member: it bootstraps a new cluster (no
// state, nothing to join), joins one (Config.Join), or restarts as what
// it was; it returns once a leader is known and the catalog lists this
// node.
func Open(cfg Config) (_ *Meta, err error) {
	if cfg.Dir == "" {
		return nil, errors.New("meta: no data directory configured")
	}
	m := &Meta{id: raft.ServerID(cfg.NodeID), reqIDs: newRequestIDs(cfg.NodeID)}
	defer func() {
		if err != nil {
			err = errors.Join(err, m.close())
		}
	}()
	if cfg, err = m.withDefaults(cfg); err != nil {
		return nil, err
	}
	m.cfg, m.id, m.client = cfg, raft.ServerID(cfg.NodeID), cfg.Client
	m.fsm = newFSM(cfg.Logger)
	dir := filepath.Join(cfg.Dir, "raft")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("meta: create %s: %w", dir, err)
	}
	hlog := newRaftLogger(cfg.Logger)
	if m.store = cfg.Log; m.store != nil {
		if err := m.store.Adopt(filepath.Join(dir, "log"), cfg.Logger); err != nil {
			return nil, err
		}
	} else if m.store, err = raftstore.Open(filepath.Join(dir, "log"), cfg.Logger); err != nil {
		return nil, err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, snapshotsRetained, hlog)
	if err != nil {
		return nil, fmt.Errorf("meta: snapshot store: %w", err)
	}
	m.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  raftLayer{Listener: cfg.Mux.Listener(cluster.RaftTag), advertise: advertiseAddr(cfg), dialer: cfg.Mux.Dialer()},
		MaxPool: 3, Timeout: transportTimeout, Logger: hlog,
	})
	cfg.Server.Register(m.service())
	if m.owned != nil {
		go func() { _ = m.owned.server.Serve(m.owned.mux) }()
	}
	rc := raftConfig(cfg, hlog)
	existing, err := raft.HasExistingState(m.store, m.store, snaps)
	if err != nil {
		return nil, fmt.Errorf("meta: %w", err)
	}
	stored, err := readClusterID(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if !existing && len(cfg.Join) == 0 {
		boot := raft.Configuration{Servers: []raft.Server{{Suffrage: raft.Voter, ID: m.id, Address: m.trans.LocalAddr()}}}
		if err := raft.BootstrapCluster(rc, m.store, m.store, snaps, m.trans, boot); err != nil {
			return nil, fmt.Errorf("meta: bootstrap: %w", err)
		}
	}
	if m.raft, err = raft.NewRaft(rc, m.fsm, m.store, m.store, snaps, m.trans); err != nil {
		return nil, fmt.Errorf("meta: start raft: %w", err)
	}
	if len(cfg.Join) > 0 {
		if err := m.joinCluster(existing, stored); err != nil {
			return nil, err
		}
	}
	if existing {
		if err := m.checkVoter(); err != nil {
			return nil, err
		}
	}
	if err := m.waitReady(); err != nil {
		return nil, err
	}
	if err := m.registerSelf(); err != nil {
		return nil, err
	}
	if stored == "" {
		if err := writeClusterID(cfg.Dir, m.Catalog().ClusterID()); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.live = newLiveness()
	go m.live.run(ctx, m)
	return m, nil
}

// SyncsState reports whether an entry this node appends to its Raft log
// makes every write committed before it to the node's state store durable
// (Config.Log: the log shares the state's WAL).
func (m *Meta) SyncsState() bool { return m.cfg.Log != nil }

func (m *Meta) withDefaults(cfg Config) (Config, error) {
	if cfg.NodeID == "" {
		cfg.NodeID = "node1"
	}
	if cfg.RaftAddr == "" {
		cfg.RaftAddr = "127.0.0.1:0"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.SnapshotThreshold == 0 {
		cfg.SnapshotThreshold = 4096
	}
	if cfg.TrailingLogs == 0 {
		cfg.TrailingLogs = 1024
	}
	if cfg.Cores == 0 {
		cfg.Cores = runtime.NumCPU()
	}
	if cfg.Mux == nil {
		mux, err := cluster.Listen(cfg.RaftAddr)
		if err != nil {
			return cfg, err
		}
		srv := cluster.NewServer()
		m.owned = &ownedTransport{mux: mux, server: srv}
		cfg.Mux, cfg.Server, cfg.Client = mux, srv, cluster.NewClient(mux.Dialer())
	}
	if cfg.AdvertiseAddr != "" {
		if _, err := net.ResolveTCPAddr("tcp", cfg.AdvertiseAddr); err != nil {
			return cfg, fmt.Errorf("meta: advertise address %q: %w", cfg.AdvertiseAddr, err)
		}
	} else if a, ok := cfg.Mux.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		return cfg, fmt.Errorf("meta: the cluster address %s binds every interface: set an advertise address (--advertise-addr) that other nodes can reach", a)
	}
	return cfg, nil
}

// advertiseAddr is the cluster address other nodes reach this one at.
func advertiseAddr(cfg Config) net.Addr {
	if cfg.AdvertiseAddr != "" {
		a, _ := net.ResolveTCPAddr("tcp", cfg.AdvertiseAddr)
		return a
	}
	return cfg.Mux.Addr()
}

// raftLayer runs hashicorp/raft's network transport over the cluster
// address: its connections are the Mux's RaftTag ones.
type raftLayer struct {
	net.Listener
	advertise net.Addr
	dialer    *cluster.Dialer
}

// Dial implements raft.StreamLayer.
func (l raftLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return cluster.DialTagged(l.dialer, string(addr), cluster.RaftTag, timeout)
}

// Addr implements net.Listener: the advertised address.
func (l raftLayer) Addr() net.Addr { return l.advertise }

func raftConfig(cfg Config, hlog hclog.Logger) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(cfg.NodeID)
	rc.HeartbeatTimeout = heartbeatTimeout
	rc.ElectionTimeout = heartbeatTimeout
	rc.LeaderLeaseTimeout = leaderLeaseTimeout
	rc.SnapshotThreshold = cfg.SnapshotThreshold
	rc.TrailingLogs = cfg.TrailingLogs
	rc.Logger = hlog
	return rc
}

// checkVoter fails when the stored configuration does not list this node,
// which happens when a data directory is started with another node id.
func (m *Meta) checkVoter() error {
	f := m.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("meta: read raft configuration: %w", err)
	}
	var ids []raft.ServerID
	for _, s := range f.Configuration().Servers {
		if s.ID == m.id {
			return nil
		}
		ids = append(ids, s.ID)
	}
	return fmt.Errorf("meta: node id %q is not a member of the Raft group stored in this data directory (members: %v); start with the node id this directory was created with", m.id, ids)
}

// waitReady waits for a leader; on the leader it then waits until the
// catalog reflects every committed entry, updates this node's address in
// the Raft configuration if it changed (a restart on another port), and
// gives a new cluster its id.
func (m *Meta) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if addr, _ := m.raft.LeaderWithID(); addr != "" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("meta: no Raft leader after %s (node %s at %s): if this node belongs to a cluster, start a majority of its voters; otherwise check the log for Raft errors",
				startTimeout, m.id, m.trans.LocalAddr())
		}
		<-tick.C
	}
	if m.raft.State() != raft.Leader {
		return nil
	}
	if err := m.raft.Barrier(startTimeout).Error(); err != nil {
		return fmt.Errorf("meta: catch up with the raft log: %w", err)
	}
	f := m.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return fmt.Errorf("meta: read raft configuration: %w", err)
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == m.id && s.Address != m.trans.LocalAddr() {
			if err := m.raft.AddVoter(m.id, m.trans.LocalAddr(), 0, startTimeout).Error(); err != nil {
				return fmt.Errorf("meta: update this node's raft address to %s: %w", m.trans.LocalAddr(), err)
			}
		}
	}
	if m.Catalog().ClusterID() == "" {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		if _, err := m.apply(ctx, opInitCluster, initClusterCmd{ClusterID: newClusterID(), Voters: m.cfg.Voters, Origin: string(m.id)}); err != nil {
			return fmt.Errorf("meta: initialize the cluster: %w", err)
		}
	}
	return nil
}

// self returns this node's record as it should be in the catalog.
func (m *Meta) self(voter bool) *Node {
	return &Node{ID: string(m.id), ClusterAddr: string(m.trans.LocalAddr()), PgAddr: m.cfg.PgAddr,
		Cores: m.cfg.Cores, Voter: voter, Version: m.cfg.Version}
}

// registerSelf makes the catalog's record of this node current: the
// first node of a new cluster records itself; a joining node waits until
// the record its join made reaches it; a restarted node whose record is
// out of date (other addresses, another release) updates it in the
// background, since it may take Raft a while to reach it again.
func (m *Meta) registerSelf() error {
	ctx, cancel := context.WithTimeout(context.Background(), joinCatchUp)
	defer cancel()
	for {
		cur, ok := m.Catalog().Node(string(m.id))
		switch {
		case ok && *cur == *m.self(cur.Voter):
			return nil
		case ok:
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), joinCatchUp)
				defer cancel()
				if _, err := m.apply(ctx, opPutNode, putNodeCmd{Node: m.self(cur.Voter)}); err != nil {
					m.cfg.Logger.Warn("updating this node's record in the catalog failed", "err", err)
				}
			}()
			return nil
		case len(m.cfg.Join) > 0:
			// The join recorded it: wait for the entry to arrive.
			if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
				return fmt.Errorf("meta: the catalog does not list this node %s after joining: %w", m.id, err)
			}
		default:
			if _, err := m.apply(ctx, opPutNode, putNodeCmd{Node: m.self(true)}); err != nil {
				return fmt.Errorf("meta: record this node in the catalog: %w", err)
			}
		}
	}
}

// joinCatchUp bounds how long a node waits for the catalog to reach it
// after joining or restarting: Raft retries an unreachable follower with
// a backoff of up to about 20 s.
const joinCatchUp = time.Minute

// RaftAddr returns the address this node advertises to the Raft group.
func (m *Meta) RaftAddr() string { return string(m.trans.LocalAddr()) }

// Catalog returns the current catalog. It is immutable: hold on to it for a
// consistent view across several lookups. Only catalog changes replace it,
// not epoch commits.
func (m *Meta) Catalog() *Catalog { return m.fsm.catalog.Load() }

// CommittedEpoch returns the newest epoch recorded by CommitEpoch: the
// recovery point.
func (m *Meta) CommittedEpoch() uint64 { return m.fsm.committed.Load() }

// OnCommit has fn called with each epoch this node learns is committed
// (as it applies the entry), and once at once with the newest so far.
func (m *Meta) OnCommit(fn func(epoch uint64)) {
	m.fsm.onCommit.Store(&fn)
	fn(m.CommittedEpoch())
}

// Close shuts down Raft and closes the transport and the log store. Call it
// once.
func (m *Meta) Close() error { return m.close() }

func (m *Meta) close() error {
	var err error
	if m.cancel != nil {
		m.cancel()
	}
	if m.raft != nil {
		err = m.raft.Shutdown().Error()
	}
	if m.trans != nil {
		err = errors.Join(err, m.trans.Close())
	}
	if m.owned != nil {
		m.owned.server.Stop()
		m.owned.mux.Close()
		m.cfg.Client.Close()
	}
	if m.store != nil {
		err = errors.Join(err, m.store.Close())
	}
	return err
}

// apply proposes a command and returns the FSM's result once the entry is
// applied on this node: the value itself on the leader, its JSON
// (json.RawMessage) when the leader applied it for this node (see as).
// FSM errors are *pgerror.Error.
func (m *Meta) apply(ctx context.Context, o op, payload any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := encodeCommand(o, payload, m.reqIDs.new())
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, enqueueTimeout)
		defer cancel()
	}
	return m.applyData(ctx, data)
}

// as returns an apply result as a T.
func as[T any](v any) (T, error) {
	if t, ok := v.(T); ok {
		return t, nil
	}
	var t T
	raw, ok := v.(json.RawMessage)
	if !ok {
		return t, fmt.Errorf("meta: command result %T is not a %T", v, t)
	}
	err := json.Unmarshal(raw, &t)
	return t, err
}

// CreateTable adds a relation of any kind (table, view, materialized view,
// source), assigning it a new id, and returns it as stored. With
// ifNotExists and the name taken it returns nil and no error (PostgreSQL
// then sends the notice: relation "t" already exists, skipping).
func (m *Meta) CreateTable(ctx context.Context, t *Table, ifNotExists bool) (*Table, error) {
	v, err := m.apply(ctx, opCreateTable, createTableCmd{Table: t, IfNotExists: ifNotExists})
	if err != nil {
		return nil, err
	}
	return as[*Table](v)
}

// DropObject drops the relation schema.name of the given kind (not
// KindIndex: see DropIndex) and, with cascade, everything that depends on
// it. It returns the dropped relations, dependents before what they depend
// on; nothing when ifExists and there is no such relation.
func (m *Meta) DropObject(ctx context.Context, kind ObjectKind, schema, name string, ifExists, cascade bool) ([]*Table, error) {
	v, err := m.apply(ctx, opDropObject, dropObjectCmd{kind, schema, name, ifExists, cascade})
	if err != nil {
		return nil, err
	}
	return as[[]*Table](v)
}

// AllocIDs reserves n consecutive object ids (for state tables and views
// created in several steps) and returns the first.
func (m *Meta) AllocIDs(ctx context.Context, n int) (uint32, error) {
	v, err := m.apply(ctx, opAllocIDs, allocIDsCmd{N: n})
	if err != nil {
		return 0, err
	}
	return as[uint32](v)
}

// SetSystem sets a cluster setting (ALTER SYSTEM SET).
func (m *Meta) SetSystem(ctx context.Context, name, value string) error {
	_, err := m.apply(ctx, opSetSystem, setSystemCmd{Name: name, Value: value})
	return err
}

// BeginRecovery records the recovery f of the streaming jobs, on the
// leader of f's term: from then on only f's epochs commit. Read the
// committed epoch to recover from after it returns: no older recovery's
// commit can land later.
func (m *Meta) BeginRecovery(ctx context.Context, f Fence) error {
	_, err := m.applyAsLeader(ctx, opBeginRecovery, beginRecoveryCmd{Fence: f})
	return err
}

// CommitEpoch records epoch, sealed by every node of the recovery f's
// generation, as committed: the recovery point and the newest state
// readers see. One Raft entry per checkpoint, which also records the
// rescale step its barrier switched, if step is not nil: the step is
// durable exactly when its checkpoint is. It fails with ErrStaleRecovery
// once a later recovery began, and when this node no longer leads f's
// term. It returns the entry's Raft index: another node's catalog holds
// the epoch's record once it has applied that index (WaitApplied).
func (m *Meta) CommitEpoch(ctx context.Context, f Fence, epoch uint64, step *RescaleStep) (uint64, error) {
	return m.applyAsLeader(ctx, opCommitEpoch, commitEpochCmd{Fence: f, Epoch: epoch, Step: step})
}

// applyAsLeader applies a command of the leader's own (a recovery's), on
// this node only: never forwarded, never retried, since a command of a
// deposed leader must not reach its successor. It returns the entry's
// Raft index.
func (m *Meta) applyAsLeader(ctx context.Context, o op, payload any) (uint64, error) {
	data, err := encodeCommand(o, payload, "")
	if err != nil {
		return 0, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, enqueueTimeout)
		defer cancel()
	}
	index, _, err := m.applyLocal(ctx, data)
	return index, err
}

// BeginRescale records the plan of a rescale of the job of table id (a
// materialized view, source or table with a connector); its steps are
// recorded as their checkpoints commit (CommitEpoch).
func (m *Meta) BeginRescale(ctx context.Context, id uint32, r *Rescale) error {
	_, err := m.apply(ctx, opRescale, rescaleCmd{Table: id, Rescale: r})
	return err
}

// EndRescale forgets the rescale of the job of table id that node runner
// runs (it failed): another node may rescale the job from then on.
func (m *Meta) EndRescale(ctx context.Context, id uint32, runner string) error {
	_, err := m.apply(ctx, opEndRescale, endRescaleCmd{Table: id, Runner: runner})
	return err
}

// CreateSchema adds a schema (CREATE SCHEMA) owned by role owner.
func (m *Meta) CreateSchema(ctx context.Context, name string, ifNotExists bool, owner uint32) error {
	_, err := m.apply(ctx, opCreateSchema, createSchemaCmd{name, ifNotExists, owner})
	return err
}

// DropSchema drops a schema and, with cascade, its relations and their
// dependents, which it returns so that their jobs are stopped.
func (m *Meta) DropSchema(ctx context.Context, name string, ifExists, cascade bool) ([]*Table, error) {
	v, err := m.apply(ctx, opDropSchema, dropSchemaCmd{name, ifExists, cascade})
	if err != nil {
		return nil, err
	}
	return as[[]*Table](v)
}

// CreateFunction adds the SQL function f (CREATE [OR REPLACE] FUNCTION).
func (m *Meta) CreateFunction(ctx context.Context, f *Function, orReplace bool) error {
	_, err := m.apply(ctx, opCreateFunc, createFunctionCmd{f, orReplace})
	return err
}

// DropFunction drops the function schema.name taking argTypes (nil: the
// only function of that name) and, with cascade, the views calling it,
// which it returns so that their jobs are stopped.
func (m *Meta) DropFunction(ctx context.Context, schema, name string, argTypes []types.T, ifExists, cascade bool) ([]*Table, error) {
	var oids []types.OID
	if argTypes != nil {
		oids = make([]types.OID, len(argTypes))
		for i, t := range argTypes {
			oids[i] = t.OID()
		}
	}
	v, err := m.apply(ctx, opDropFunc, dropFunctionCmd{schema, name, oids, ifExists, cascade})
	if err != nil {
		return nil, err
	}
	return as[[]*Table](v)
}

// Rename renames the relation (or index) schema.name of kind (ALTER ...
// RENAME TO).
func (m *Meta) Rename(ctx context.Context, kind ObjectKind, schema, name, newName string, ifExists bool) error {
	_, err := m.apply(ctx, opRename, renameCmd{kind, schema, name, newName, ifExists})
	return err
}

// RenameColumn renames a column of the relation schema.table of kind.
func (m *Meta) RenameColumn(ctx context.Context, kind ObjectKind, schema, table, column, newName string) error {
	_, err := m.apply(ctx, opRenameColumn, renameColumnCmd{kind, schema, table, column, newName})
	return err
}

// Comment sets the comment of a relation, or of its column when column
// is set ("" removes it).
func (m *Meta) Comment(ctx context.Context, kind ObjectKind, schema, name, column, text string) error {
	_, err := m.apply(ctx, opComment, commentCmd{kind, schema, name, column, text})
	return err
}

// AddColumn appends a column to the table schema.table.
func (m *Meta) AddColumn(ctx context.Context, schema, table string, col Column, ifNotExists bool) error {
	_, err := m.apply(ctx, opAddColumn, addColumnCmd{schema, table, col, ifNotExists})
	return err
}

// DropColumn drops a column of the table schema.table.
func (m *Meta) DropColumn(ctx context.Context, schema, table, column string, ifExists bool) error {
	_, err := m.apply(ctx, opDropColumn, dropColumnCmd{schema, table, column, ifExists})
	return err
}

// CreateIndex adds a secondary index to schema.table. An index without a
// name gets one like PostgreSQL's (table_col_idx).
func (m *Meta) CreateIndex(ctx context.Context, schema, table string, idx Index, ifNotExists bool) error {
	_, err := m.apply(ctx, opCreateIndex, createIndexCmd{schema, table, idx, ifNotExists})
	return err
}

// DropIndex drops the index schema.name.
func (m *Meta) DropIndex(ctx context.Context, schema, name string, ifExists bool) error {
	_, err := m.apply(ctx, opDropIndex, dropIndexCmd{schema, name, ifExists})
	return err
}
