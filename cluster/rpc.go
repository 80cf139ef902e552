package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// ProtocolVersion is the version of what nodes say to each other. A node
// refuses calls of another version: every node of a cluster must run the
// same streamdb release.
const ProtocolVersion = 1

// versionKey is the metadata key carrying the caller's ProtocolVersion.
const versionKey = "streamdb-protocol"

// pgErrorPrefix starts the status message of an error that carries a
// PostgreSQL error (JSON after the prefix), so that SQLSTATE, hint and
// detail survive the hop.
const pgErrorPrefix = "pgerror:"

// Server serves gRPC services on a Mux's default listener.
type Server struct {
	g *grpc.Server
}

// NewServer returns a server that checks every call's protocol version.
func NewServer() *Server {
	return &Server{g: grpc.NewServer(
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := checkVersion(ctx); err != nil {
				return nil, err
			}
			resp, err := h(ctx, req)
			return resp, toStatus(err)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := checkVersion(ss.Context()); err != nil {
				return err
			}
			return toStatus(h(srv, ss))
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.InitialWindowSize(streamWindow), grpc.InitialConnWindowSize(connWindow),
	)}
}

// Register adds a service.
func (s *Server) Register(desc *grpc.ServiceDesc) { s.g.RegisterService(desc, struct{}{}) }

// Serve serves on the Mux's default listener until Stop.
func (s *Server) Serve(m *Mux) error { return s.g.Serve(m.Default()) }

// Stop stops serving and ends open calls.
func (s *Server) Stop() { s.g.Stop() }

func checkVersion(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	vs := md.Get(versionKey)
	if len(vs) == 1 && vs[0] == strconv.Itoa(ProtocolVersion) {
		return nil
	}
	theirs := "none"
	if len(vs) > 0 {
		theirs = vs[0]
	}
	return status.Errorf(codes.FailedPrecondition, "this node speaks cluster protocol %d and the caller %s: run the same streamdb release on every node", ProtocolVersion, theirs)
}

// toStatus turns a PostgreSQL error into a status that carries it.
func toStatus(err error) error {
	var pe *pgerror.Error
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	b, _ := json.Marshal(pe)
	return status.Error(codes.Unknown, pgErrorPrefix+string(b))
}

// pgStream is a client stream whose errors from the server come back as
// the PostgreSQL errors they carry.
type pgStream struct{ grpc.ClientStream }

// RecvMsg implements grpc.ClientStream.
func (s pgStream) RecvMsg(m any) error { return fromStatus(s.ClientStream.RecvMsg(m)) }

// fromStatus turns a status carrying a PostgreSQL error back into it.
func fromStatus(err error) error {
	s, ok := status.FromError(err)
	if !ok || !strings.HasPrefix(s.Message(), pgErrorPrefix) {
		return err
	}
	pe := &pgerror.Error{}
	if json.Unmarshal([]byte(strings.TrimPrefix(s.Message(), pgErrorPrefix)), pe) != nil {
		return err
	}
	return pe
}

// Unary returns a unary method of a service: fn serves each call.
func Unary[Req, Resp any](name string, fn func(context.Context, *Req) (*Resp, error)) grpc.MethodDesc {
	return grpc.MethodDesc{MethodName: name, Handler: func(_ any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error) {
		req := new(Req)
		if err := dec(req); err != nil {
			return nil, err
		}
		h := func(ctx context.Context, r any) (any, error) { return fn(ctx, r.(*Req)) }
		if in == nil {
			return h(ctx, req)
		}
		return in(ctx, req, &grpc.UnaryServerInfo{FullMethod: name}, h)
	}}
}

// Service returns the description of a service named name (for example
// "streamdb.meta") with the given unary methods and streams.
func Service(name string, methods []grpc.MethodDesc, streams []grpc.StreamDesc) *grpc.ServiceDesc {
	return &grpc.ServiceDesc{ServiceName: name, HandlerType: (*any)(nil), Methods: methods, Streams: streams}
}

// Client calls other nodes, one connection per address.
type Client struct {
	dialer *Dialer
	mu     sync.Mutex
	conns  map[string]*grpc.ClientConn
}

// NewClient returns a client with no connections yet; it connects with d
// (Mux.Dialer), or with a default dialer when d is nil.
func NewClient(d *Dialer) *Client {
	if d == nil {
		d = &Dialer{}
	}
	return &Client{dialer: d, conns: map[string]*grpc.ClientConn{}}
}

// Conn returns the connection to addr, creating it on first use (it
// connects lazily and reconnects by itself).
func (c *Client) Conn(addr string) (*grpc.ClientConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc, ok := c.conns[addr]; ok {
		return cc, nil
	}
	version := strconv.Itoa(ProtocolVersion)
	cc, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return c.dialer.Dial(ctx, addr)
		}),
		grpc.WithDefaultCallOptions(grpc.CallContentSubtype(codecName)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 5 * time.Second, Timeout: 5 * time.Second, PermitWithoutStream: true}),
		// Reconnect within a second of a peer coming back (a restart, a
		// healed partition): gRPC's default waits up to two minutes.
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 5 * time.Second}),
		grpc.WithInitialWindowSize(streamWindow), grpc.WithInitialConnWindowSize(connWindow),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return fromStatus(invoker(metadata.AppendToOutgoingContext(ctx, versionKey, version), method, req, reply, cc, opts...))
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			s, err := streamer(metadata.AppendToOutgoingContext(ctx, versionKey, version), desc, cc, method, opts...)
			if err != nil {
				return nil, fromStatus(err)
			}
			return pgStream{s}, nil
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to %s: %w", addr, err)
	}
	c.conns[addr] = cc
	return cc, nil
}

// Close closes every connection.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for addr, cc := range c.conns {
		cc.Close()
		delete(c.conns, addr)
	}
}

// Call calls the unary method ("/service/Method") of the node at addr.
func Call[Resp any](ctx context.Context, c *Client, addr, method string, req any, opts ...grpc.CallOption) (*Resp, error) {
	cc, err := c.Conn(addr)
	if err != nil {
		return nil, err
	}
	resp := new(Resp)
	if err := cc.Invoke(ctx, method, req, resp, opts...); err != nil {
		return nil, err
	}
	return resp, nil
}

// WhenReachable makes a call wait (until its context ends) for the node
// to be reachable instead of failing at once: the request is sent only
// once connected, so an error after that leaves its outcome unknown.
var WhenReachable = grpc.WaitForReady(true)
