package main

import (
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/node"
)

func versionString() string { return node.Version }

func runStart(args []string) error {
	fs := flag.NewFlagSet("start", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:4566", "address to accept PostgreSQL connections on")
	dataDir := fs.String("data-dir", "./streamdb-data", "directory for the state store and the Raft log")
	clusterAddr := fs.String("cluster-addr", "127.0.0.1:5566", "address other nodes reach this one at (gRPC and Raft share it)")
	advertise := fs.String("advertise-addr", "", "cluster address to tell other nodes, when --cluster-addr binds every interface")
	join := fs.String("join", "", "cluster addresses of members to join through, comma-separated (empty: start a new cluster, or restart)")
	voters := fs.Int("voters", 3, "how many nodes a new cluster makes Raft voters (3 or 5); the others are non-voters")
	nodeID := fs.String("node-id", "node1", "this node's permanent id in the cluster")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	barrierMS := fs.Int("barrier-interval-ms", 1000, "milliseconds between checkpoint barriers (DML also asks for one at once)")
	parallelism := fs.Int("parallelism", 0, "default actors per fragment of a materialized view (0: the number of cores)")
	cacheMB := fs.Int64("state-cache-mb", 0, "memory for cached operator state, in MiB; state beyond it stays in Pebble (0: an eighth of the machine's memory, at least 256)")
	sharedStorage := fs.String("shared-storage", "", "shared storage for durable checkpoints, the same on every node: file:///path (a directory every node sees) or s3://bucket/prefix?endpoint=host:port (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); empty: state lives only on this node's disk")
	debugAddr := fs.String("debug-addr", "", "address to serve Go's profiler on (/debug/pprof/), e.g. 127.0.0.1:6060; empty: off")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the server's whole run to this file (go tool pprof reads it)")
	_ = fs.Parse(args)
	if *cpuProfile != "" {
		stop, err := profileCPU(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	tuneGC()
	var joinAddrs []string
	for _, a := range strings.Split(*join, ",") {
		if a = strings.TrimSpace(a); a != "" {
			joinAddrs = append(joinAddrs, a)
		}
	}
	n, err := node.Start(node.Config{Listen: *listen, DataDir: *dataDir, ClusterAddr: *clusterAddr, AdvertiseAddr: *advertise,
		NodeID: *nodeID, Join: joinAddrs, Voters: *voters, Logger: logger,
		BarrierInterval: time.Duration(*barrierMS) * time.Millisecond, Parallelism: *parallelism, StateCacheBytes: *cacheMB << 20, SharedStorage: *sharedStorage})
	if err != nil {
		return err
	}
	if *debugAddr != "" {
		serveProfiler(*debugAddr, logger)
	}
	role, members := n.Role()
	logger.Info("streamdb ready", "version", node.Version, "node", *nodeID, "role", role, "cluster", n.Meta().Catalog().ClusterID(),
		"nodes", members, "addr", n.Addr(), "cluster_addr", n.ClusterAddr(), "data_dir", *dataDir,
		"connect", "psql -h "+hostOf(n.Addr())+" -p "+portOf(n.Addr())+" -d streamdb")

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	s := <-sig
	logger.Info("shutting down", "signal", s.String())
	if err := n.Close(); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}
