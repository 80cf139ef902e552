// Package node wires one streamdb node together: the state store, the Raft
// catalog, the SQL engine and the pgwire listener. The embedded single-node
// default and tests start exactly this.
package node

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/storage"
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
	// RaftAddr is the Raft transport's address; default 127.0.0.1:0.
	RaftAddr string
	// NodeID is the node's Raft server id; default "node1".
	NodeID string
	// BarrierInterval is the time between checkpoint barriers; default 1 s.
	BarrierInterval time.Duration
	// Parallelism is the default actor count per fragment of a
	// materialized view; default the number of cores.
	Parallelism int
	// StateCacheBytes bounds the memory of cached operator state; 0 means
	// an eighth of the machine's memory, at least 256 MiB.
	StateCacheBytes int64
	Logger          *slog.Logger
}

// Node is a running streamdb node.
type Node struct {
	cfg     Config
	storage *storage.Engine
	meta    *meta.Meta
	engine  *sql.Engine
	server  *pgwire.Server
	ln      net.Listener
	done    chan error
}

// Start opens the data directory and starts serving.
func Start(cfg Config) (_ *Node, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	if cfg.StateCacheBytes <= 0 {
		cfg.StateCacheBytes = defaultStateCache()
	}
	n := &Node{cfg: cfg, done: make(chan error, 1)}
	defer func() {
		if err != nil {
			n.closeStores()
		}
	}()
	st, err := storage.Open(filepath.Join(cfg.DataDir, "state"), storage.Options{Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	n.storage = st
	m, err := meta.Open(meta.Config{Dir: cfg.DataDir, NodeID: cfg.NodeID, RaftAddr: cfg.RaftAddr, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	n.meta = m
	if n.engine, err = sql.NewEngine(n.meta, n.storage, sql.Options{Version: ServerVersion, BarrierInterval: cfg.BarrierInterval, Parallelism: cfg.Parallelism, StateCacheBytes: cfg.StateCacheBytes, Logger: cfg.Logger}); err != nil {
		return nil, err
	}
	if n.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is another server using that port? choose one with --listen)", cfg.Listen, err)
	}
	n.server = pgwire.NewServer(n.engine, pgwire.Options{Logger: cfg.Logger, ServerVersion: ServerVersion})
	go func() { n.done <- n.server.Serve(n.ln) }()
	return n, nil
}

// Addr returns the address the node accepts PostgreSQL connections on.
func (n *Node) Addr() string { return n.ln.Addr().String() }

// Storage returns the node's state store.
func (n *Node) Storage() *storage.Engine { return n.storage }

// Engine returns the node's SQL engine.
func (n *Node) Engine() *sql.Engine { return n.engine }

// Close stops serving (open sessions are told the server shuts down) and
// closes the stores.
func (n *Node) Close() error {
	n.server.Close()
	err := <-n.done
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return errors.Join(err, n.closeStores())
}

func (n *Node) closeStores() error {
	var errs []error
	if n.engine != nil {
		n.engine.Close()
	}
	if n.meta != nil {
		errs = append(errs, n.meta.Close())
	}
	if n.storage != nil {
		errs = append(errs, n.storage.Close())
	}
	return errors.Join(errs...)
}
