package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/node"
)

func runStart(args []string) error {
	fs := flag.NewFlagSet("start", flag.ExitOnError)
	fs.Usage = startUsage(fs, os.Stderr)
	listen := fs.String("listen", "127.0.0.1:4566", "address to accept PostgreSQL connections on")
	dataDir := fs.String("data-dir", "./streamdb-data", "directory for the state store and the Raft log")
	clusterAddr := fs.String("cluster-addr", "127.0.0.1:5566", "address other nodes reach this one at (gRPC and Raft share it)")
	advertise := fs.String("advertise-addr", "", "cluster address to tell other nodes, when --cluster-addr binds every interface")
	join := fs.String("join", "", "cluster addresses of members to join through, comma-separated (empty: start a new cluster, or restart)")
	voters := fs.Int("voters", 3, "how many nodes a new cluster makes Raft voters (3 or 5); the others are non-voters")
	nodeID := fs.String("node-id", "node1", "this node's permanent id in the cluster")
	logLevel := fs.String("log-level", "info", "the least severe log lines written: debug, info, warn or error")
	barrierMS := fs.Int("barrier-interval-ms", 1000, "milliseconds between checkpoint barriers (DML also asks for one at once)")
	parallelism := fs.Int("parallelism", 0, "default actors per fragment of a materialized view (0: the number of cores)")
	cacheMB := fs.Int64("state-cache-mb", 0, "memory for cached operator state, in MiB; state beyond it stays in Pebble, and the server's Go heap is held to it plus half as much again, at least 192 MiB, less Pebble's memtables (GOMEMLIMIT overrides) (0: a sixteenth of the machine's memory, between 256 MiB and 1 GiB)")
	sharedStorage := fs.String("shared-storage", "", "shared storage for durable checkpoints, the same on every node: file:///path (a directory every node sees) or s3://bucket/prefix?endpoint=host:port (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); empty: state lives only on this node's disk")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the server's whole run to this file (go tool pprof reads it)")
	o := observeFlags(fs)
	security := securityFlags(fs)
	_ = fs.Parse(args)
	if *o.version {
		fmt.Println("streamdb", versionString())
		return nil
	}
	origins, err := applySettings(fs, "config", os.Getenv)
	if err != nil {
		return err
	}
	sec, err := security()
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := profileCPU(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}

	logger, err := newLogger(*o.logFormat, *logLevel)
	if err != nil {
		return err
	}
	logger.Info("streamdb starting", append([]any{"version", versionString()}, changedSettings(fs, origins)...)...)
	cacheBytes := *cacheMB << 20
	if cacheBytes <= 0 {
		cacheBytes = node.DefaultStateCache()
	}
	gogc, limit := tuneMemory(cacheBytes)
	logger.Info("memory", "state_cache_mb", cacheBytes>>20, "go_memory_limit_mb", limit>>20, "gogc", gogc)
	var joinAddrs []string
	for _, a := range strings.Split(*join, ",") {
		if a = strings.TrimSpace(a); a != "" {
			joinAddrs = append(joinAddrs, a)
		}
	}
	n, err := node.Start(node.Config{Listen: *listen, DataDir: *dataDir, ClusterAddr: *clusterAddr, AdvertiseAddr: *advertise,
		NodeID: *nodeID, Join: joinAddrs, Voters: *voters, Logger: logger,
		BarrierInterval: time.Duration(*barrierMS) * time.Millisecond, Parallelism: *parallelism, StateCacheBytes: cacheBytes, FollowHeap: true, SharedStorage: *sharedStorage,
		HTTPAddr: httpAddress(*o.httpAddr, *listen), SlowStatement: time.Duration(*o.slowMS) * time.Millisecond,
		Security: sec})
	if err != nil {
		return err
	}
	role, members := n.Role()
	logger.Info("streamdb ready", "version", node.Version, "node", *nodeID, "role", role, "cluster", n.Meta().Catalog().ClusterID(),
		"nodes", members, "addr", n.Addr(), "cluster_addr", n.ClusterAddr(), "http_addr", n.HTTPAddr(), "data_dir", *dataDir,
		"connect", connectHint(n.Addr(), sec))

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

// observed are streamdb start's flags of configuration, logs and
// metrics.
type observed struct {
	config, httpAddr, logFormat *string
	slowMS                      *int
	version                     *bool
}

// observeFlags defines the observed flags on fs.
func observeFlags(fs *flag.FlagSet) observed {
	return observed{
		config:    fs.String("config", "", "TOML file of settings, keys named like these flags (state-cache-mb = 512); flags and STREAMDB_* environment variables win over it"),
		httpAddr:  fs.String("http-addr", "auto", "address of the HTTP listener for Prometheus (/metrics), health checks (/healthz, /readyz), the dashboard (/) and Go's profiler (/debug/pprof/, for clients on this machine only); auto: --listen's host and its port + 2000 (127.0.0.1:6566 by default); empty: off"),
		logFormat: fs.String("log-format", "text", "log lines as text (key=value) or json (one object per line, for log collectors)"),
		slowMS:    fs.Int("slow-statement-ms", 1000, "log each statement that runs at least this many milliseconds, with its text (0: none)"),
		version:   fs.Bool("version", false, "print the version (release, commit, Go version) and exit"),
	}
}

// httpPortOffset is how far the HTTP listener's port is from the pgwire
// port by default: 4566 serves HTTP on 6566, clear of the cluster
// addresses (5566 and up) of a cluster on one machine.
const httpPortOffset = 2000

// httpAddress resolves --http-addr: auto is listen's host with its port +
// httpPortOffset (any free port if listen's is 0 or that is beyond 65535).
func httpAddress(flagValue, listen string) string {
	if flagValue != "auto" {
		return flagValue
	}
	port, err := strconv.Atoi(portOf(listen))
	if err != nil || port == 0 || port+httpPortOffset > 65535 {
		return net.JoinHostPort(hostOf(listen), "0")
	}
	return net.JoinHostPort(hostOf(listen), strconv.Itoa(port+httpPortOffset))
}

// newLogger returns the server's logger: text or json lines on stderr
// from level on.
func newLogger(format, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use text or json", format)
}
