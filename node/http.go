package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/streamdb/streamdb/dashboard"
	"github.com/streamdb/streamdb/metrics"
)

// serveHTTP starts the node's HTTP listener on cfg.HTTPAddr (none if
// empty): /metrics over the node's figures and statements, /healthz,
// /readyz, /debug/pprof/ and the dashboard (/ and /api/v1/), whose time
// series it samples until the node closes.
func (n *Node) serveHTTP(stmts *metrics.Statements) error {
	if n.cfg.HTTPAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", n.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s for HTTP (metrics, health, dashboard): %w (choose another address with --http-addr, or turn it off with --http-addr '')", n.cfg.HTTPAddr, err)
	}
	reg := metrics.NewRegistry(metrics.Sources{Streaming: n.stream, Store: n.storage, Conns: n.server, Splits: n.engine}, stmts)
	mux := http.NewServeMux()
	mux.Handle("/", reg.Handler(n.Ready))
	dash := dashboard.New(dashSource{Streaming: n.stream, n: n})
	dash.Register(mux)
	ctx, cancel := context.WithCancel(context.Background())
	go dash.Run(ctx)
	n.http, n.stopSampling = &http.Server{Handler: mux}, cancel
	n.httpLn = ln
	go func() {
		if err := n.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.cfg.Logger.Error("the HTTP listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	return nil
}

// HTTPAddr returns the address of the node's HTTP listener ("" if none).
func (n *Node) HTTPAddr() string {
	if n.httpLn == nil {
		return ""
	}
	return n.httpLn.Addr().String()
}

// Ready reports why the node is not ready to serve (nil: it is): it has
// joined its cluster (Start returned), the catalog's Raft quorum answers
// and the cluster's jobs run again after the last recovery.
func (n *Node) Ready(ctx context.Context) error {
	if err := n.meta.Sync(ctx); err != nil {
		return fmt.Errorf("the catalog's Raft quorum does not answer (%v): start or reconnect the cluster's other voters", err)
	}
	select {
	case <-n.stream.Ready():
		return nil
	default:
		return errors.New("the cluster's jobs are not running yet: recovery waits for every node of the cluster to be up")
	}
}
