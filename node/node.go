// Package node wires one streamdb node together: the state store, the Raft
// catalog, the streaming runtime with its controller, the SQL engine and
// the pgwire listener. The embedded single-node default and tests start
// exactly this.
package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/meta/raftstore"
	"github.com/streamdb/streamdb/metrics"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/storage/shared"
)

// Version is streamdb's release.
const Version = "0.1.0"

// ServerVersion is what clients see as server_version.
const ServerVersion = "15.0 (streamdb " + Version + ")"

// Config configures a node.
type Config struct {
	// Listen is the pgwire address, e.g. "127.0.0.1:4566" (":0" for any port).
	Listen string
	// DataDir holds the state store and the Raft log.
	DataDir string
	// ClusterAddr is the address other nodes reach this one at (gRPC and
	// Raft share it); default 127.0.0.1:0.
	ClusterAddr string
	// AdvertiseAddr is the cluster address to tell other nodes when
	// ClusterAddr binds every interface.
	AdvertiseAddr string
	// NodeID is the node's permanent id in the cluster; default "node1".
	NodeID string
	// Join lists cluster addresses of members of the cluster to join;
	// empty: a new cluster of this node (or a restart).
	Join []string
	// Voters is how many nodes a new cluster makes Raft voters; default 3.
	Voters int
	// BarrierInterval is the time between checkpoint barriers; default 1 s.
	BarrierInterval time.Duration
	// Parallelism is the default actor count per fragment of a
	// materialized view; default the number of cores.
	Parallelism int
	// StateCacheBytes bounds the memory of cached operator state; 0 means
	// DefaultStateCache.
	StateCacheBytes int64
	// FollowHeap holds the state cache to what the Go heap has room for
	// under the runtime's memory limit (control.Options.FollowHeap): set
	// it for the one node of a server process.
	FollowHeap bool
	// SharedStorage names the shared storage of durable checkpoints
	// (storage/shared.Open: file:///path or s3://bucket/prefix?...);
	// empty: none, and a node's state lives only on its disk.
	SharedStorage string
	// HTTPAddr is the address of the HTTP listener of /metrics, /healthz,
	// /readyz and /debug/pprof/ (":0" for any port); empty: none.
	HTTPAddr string
	// SlowStatement is the duration from which a statement is logged as
	// slow; 0: none is.
	SlowStatement time.Duration
	// Security is TLS and authentication (security.go).
	Security Security
	Logger   *slog.Logger
}

// readyTimeout bounds how long Start waits for the cluster's jobs to run.
const readyTimeout = 30 * time.Second

// Node is a running streamdb node.
type Node struct {
	cfg     Config
	storage *storage.Engine
	shared  remote.Storage
	mux     *cluster.Mux
	rpc     *cluster.Server
	client  *cluster.Client
	meta    *meta.Meta
	stream  *control.Streaming
	engine  *sql.Engine
	server  *pgwire.Server
	ln      net.Listener
	done    chan error
	http    *http.Server
	httpLn  net.Listener
	// stopSampling stops the dashboard's time series.
	stopSampling func()
}

// Start opens the data directory and starts serving.
func Start(cfg Config) (_ *Node, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	pgOpts := pgwire.Options{Logger: cfg.Logger, ServerVersion: ServerVersion}
	if err := cfg.Security.apply(&pgOpts, cfg.Listen, cmp.Or(cfg.ClusterAddr, "127.0.0.1:0"), cfg.AdvertiseAddr); err != nil {
		return nil, err
	}
	if cfg.StateCacheBytes <= 0 {
		cfg.StateCacheBytes = DefaultStateCache()
	}
	n := &Node{cfg: cfg, done: make(chan error, 1)}
	defer func() {
		if err != nil {
			n.closeStores()
		}
	}()
	storeOpts := StoreOptions(cfg.StateCacheBytes)
	storeOpts.Logger = cfg.Logger
	st, err := storage.Open(filepath.Join(cfg.DataDir, "state"), storeOpts)
	if err != nil {
		return nil, err
	}
	n.storage = st
	if n.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is another server using that port? choose one with --listen)", cfg.Listen, err)
	}
	if n.mux, err = cluster.ListenTLS(cmp.Or(cfg.ClusterAddr, "127.0.0.1:0"), cfg.Security.Cluster); err != nil {
		return nil, err
	}
	n.rpc, n.client = cluster.NewServer(), cluster.NewClient(n.mux.Dialer())
	m, err := meta.Open(meta.Config{Dir: cfg.DataDir, NodeID: cfg.NodeID, Mux: n.mux, Server: n.rpc, Client: n.client, Log: raftstore.Within(st.RaftKeys()),
		AdvertiseAddr: cfg.AdvertiseAddr, PgAddr: n.ln.Addr().String(), Version: Version, Join: cfg.Join, Voters: cfg.Voters, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	n.meta = m
	opts := control.Options{BarrierInterval: cfg.BarrierInterval, StateCacheBytes: cfg.StateCacheBytes, FollowHeap: cfg.FollowHeap, Logger: cfg.Logger}
	if cfg.SharedStorage != "" {
		if n.shared, err = shared.Open(cfg.SharedStorage); err != nil {
			return nil, fmt.Errorf("shared storage: %w", err)
		}
		opts.Shared = n.shared
	}
	n.stream, err = control.Start(m, st, planner.NewJobs(m.Catalog), opts)
	if err != nil {
		return nil, err
	}
	n.engine = sql.NewEngine(m, n.stream, sql.Options{Version: ServerVersion, Parallelism: cfg.Parallelism, Logger: cfg.Logger})
	for _, s := range append(n.stream.Controller().Services(), n.engine.Services()...) {
		n.rpc.Register(s)
	}
	go func() { _ = n.rpc.Serve(n.mux) }()
	// The leader's controller restarts every node's jobs once all the
	// cluster's nodes answer; until then queries of streaming state wait.
	select {
	case <-n.stream.Ready():
	case <-time.After(readyTimeout):
		cfg.Logger.Warn("the cluster's jobs have not started yet: waiting for every node of the cluster to be up; serving clients meanwhile", "waited", readyTimeout)
	}
	go func() {
		// The temporary subscriptions of SUBSCRIBEs this node served
		// before a crash go once its jobs run again.
		<-n.stream.Ready()
		if err := n.engine.DropOrphanedSubscriptions(context.Background()); err != nil {
			cfg.Logger.Warn("dropping the subscriptions of SUBSCRIBEs before a restart failed", "err", err)
		}
	}()
	stmts := metrics.NewStatements(cfg.Logger, cfg.SlowStatement)
	pgOpts.Passwords, pgOpts.OnStatement = catalogPasswords{m}, stmts.OnStatement
	n.server = pgwire.NewServer(n.engine, pgOpts)
	n.engine.SetBackends(n.server)
	if err := n.serveHTTP(stmts); err != nil {
		n.server.Close()
		n.server = nil // closeStores closes n.ln
		return nil, err
	}
	go func() { n.done <- n.server.Serve(n.ln) }()
	return n, nil
}

// Addr returns the address the node accepts PostgreSQL connections on.
func (n *Node) Addr() string { return n.ln.Addr().String() }

// ClusterAddr returns the address other nodes reach this one at.
func (n *Node) ClusterAddr() string { return n.meta.RaftAddr() }

// Role returns this node's role in the cluster (leader, voter or
// non-voter) and the number of nodes.
func (n *Node) Role() (string, int) {
	members := n.meta.Members()
	for _, m := range members {
		if m.ID == n.meta.NodeID() {
			return m.Role, len(members)
		}
	}
	return "unknown", len(members)
}

// Meta returns the node's member of the catalog's Raft group.
func (n *Node) Meta() *meta.Meta { return n.meta }

// Storage returns the node's state store.
func (n *Node) Storage() *storage.Engine { return n.storage }

// Engine returns the node's SQL engine.
func (n *Node) Engine() *sql.Engine { return n.engine }

// Close stops serving (open sessions are told the server shuts down) and
// closes the stores.
func (n *Node) Close() error {
	if n.http != nil {
		n.http.Close()
		n.stopSampling()
	}
	n.server.Close()
	err := <-n.done
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return errors.Join(err, n.closeStores())
}

func (n *Node) closeStores() error {
	var errs []error
	if n.stream != nil {
		n.stream.Close()
	}
	if n.meta != nil {
		errs = append(errs, n.meta.Close())
	}
	if n.rpc != nil {
		n.rpc.Stop()
	}
	if n.client != nil {
		n.client.Close()
	}
	if n.mux != nil {
		n.mux.Close()
	}
	if n.ln != nil && n.server == nil {
		n.ln.Close()
	}
	if n.shared != nil {
		errs = append(errs, n.shared.Close())
	}
	if n.storage != nil {
		errs = append(errs, n.storage.Close())
	}
	return errors.Join(errs...)
}
