package pgwire

import (
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"net"
	"sync"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// Defaults of the Options left 0.
const (
	defaultMaxMessageSize = 64 << 20
	defaultAuthTimeout    = time.Minute
	defaultMaxConnections = 100
)

// Options configures a Server.
type Options struct {
	// Logger receives connection-level events and recovered panics; nil
	// means slog.Default().
	Logger *slog.Logger
	// ServerVersion (for example "15.0 (streamdb 0.1.0)") is reported as the
	// server_version parameter when the session does not report one itself.
	ServerVersion string
	// MaxMessageSize is the largest frontend message accepted once the
	// client is authenticated, in bytes; 0 means 64 MiB. A longer message
	// ends the connection with 08P01 before its body is read. Before, a
	// startup packet is at most 10,000 bytes and a SASL message
	// maxAuthMessageSize, as in PostgreSQL.
	MaxMessageSize int
	// AuthTimeout bounds the time from accepting a connection to the end
	// of its authentication (PostgreSQL's authentication_timeout); a client
	// that has not finished by then is disconnected. 0 means 1 minute.
	AuthTimeout time.Duration
	// MaxConnections bounds the open connections, authenticated or not; 0
	// means 100. A connection beyond it gets FATAL 53300 in answer to its
	// StartupMessage (a CancelRequest is still served); one beyond twice
	// as many gets it at once, before anything is read.
	MaxConnections int
	// ReservedConnections of the MaxConnections are kept for superusers:
	// a connection that finds more than MaxConnections -
	// ReservedConnections open is marked so (InReservedSlot) and the
	// Handler refuses it to other roles.
	ReservedConnections int
	// OnStatement, if set, hears of each statement that ran to its end
	// (from the connection's goroutine: it must not block).
	OnStatement func(StatementDone)
	// TLS, if set, answers SSLRequest with 'S' and runs TLS with it; nil
	// declines it ('N') and connections stay plain text.
	TLS *tls.Config
	// TLSRequired refuses, with FATAL 28000, a client that did not start
	// TLS.
	TLSRequired bool
	// Passwords, if set, holds the users' password verifiers, and Auth
	// says which clients must prove theirs with SCRAM-SHA-256; nil trusts
	// every client.
	Passwords Passwords
	Auth      AuthPolicy
}

// Server accepts PostgreSQL connections and runs each one, in its own
// goroutine, against a Session from its Handler.
type Server struct {
	h    Handler
	opts Options
	// cbind is the channel-binding data of the TLS certificate (nil:
	// none), mockSecret salts mock verifiers (Passwords).
	cbind      []byte
	mockSecret []byte

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[uint32]*conn // by process ID (BackendKeyData)
	lastPID   uint32
	accepted  uint64         // connections tracked since the start
	wg        sync.WaitGroup // one per tracked connection
}

// NewServer returns a server that creates sessions with h.
func NewServer(h Handler, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = defaultMaxMessageSize
	}
	if opts.AuthTimeout <= 0 {
		opts.AuthTimeout = defaultAuthTimeout
	}
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = defaultMaxConnections
	}
	return &Server{
		h:          h,
		opts:       opts,
		cbind:      channelBinding(opts.TLS),
		mockSecret: newMockSecret(),
		listeners:  make(map[net.Listener]struct{}),
		conns:      make(map[uint32]*conn),
	}
}

// Serve accepts connections on ln until ln is closed (by the caller or by
// Close), then returns nil; any other accept error is returned. Serve may be
// called for several listeners at once.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		// Tracked here, in the order of arrival, so that the connection
		// limits count every connection accepted before.
		c, refused := s.track(nc)
		go s.run(nc, c, refused)
	}
}

// Close shuts the server down: it closes the listeners, sends FATAL 57P01
// to every open connection (cancelling the statement each one runs), and
// returns once all connection goroutines have ended.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for ln := range s.listeners {
		ln.Close()
	}
	for _, c := range s.conns {
		c.shutdown(nil)
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// serveConn runs one connection to its end.
func (s *Server) serveConn(nc net.Conn) {
	c, refused := s.track(nc)
	s.run(nc, c, refused)
}

// run serves nc, which track registered as c (nil: not registered, and
// refused if there is no room), to its end.
func (s *Server) run(nc net.Conn, c *conn, refused bool) {
	if refused {
		s.refuse(nc)
	}
	if c == nil {
		nc.Close()
		return
	}
	defer s.untrack(c)
	c.serve()
}

// errTooManyConnections is the answer of a connection beyond
// MaxConnections.
func errTooManyConnections() *pgerror.Error {
	return fatal(pgerror.New(pgerror.CodeTooManyConnections, "sorry, too many clients already"))
}

// refuse tells a client beyond twice MaxConnections that there is no room,
// as its first message, without reading anything from it.
func (s *Server) refuse(nc net.Conn) {
	s.opts.Logger.Info("pgwire: connection refused: too many clients", "remote", nc.RemoteAddr().String(), "max_connections", s.opts.MaxConnections)
	w := writer{w: nc}
	w.send(errorResponse(errTooManyConnections()))
	nc.SetWriteDeadline(time.Now().Add(closeWriteGrace))
	w.flush()
}

// track registers a new connection under a fresh process ID and secret,
// or returns nil when the server is closed. Beyond MaxConnections it is
// registered full: its startup serves a CancelRequest and refuses a
// StartupMessage with 53300, as PostgreSQL does; beyond twice as many it is
// not registered but refused.
func (s *Server) track(nc net.Conn) (_ *conn, refused bool) {
	var secret [4]byte
	rand.Read(secret[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	if len(s.conns) >= 2*s.opts.MaxConnections {
		return nil, true
	}
	for {
		// Process IDs stay positive int32s: some clients read them signed.
		s.lastPID = s.lastPID%math.MaxInt32 + 1
		if _, used := s.conns[s.lastPID]; !used {
			break
		}
	}
	c := newConn(s, nc, s.lastPID, binary.BigEndian.Uint32(secret[:]))
	c.full = len(s.conns) >= s.opts.MaxConnections
	s.conns[c.pid] = c
	s.accepted++
	s.wg.Add(1)
	return c, false
}

// inReservedSlot reports whether more connections are open than
// MaxConnections leaves to roles that are not superusers.
func (s *Server) inReservedSlot() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns) > s.opts.MaxConnections-s.opts.ReservedConnections
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c.pid)
	s.mu.Unlock()
	s.wg.Done()
}

// cancelRequest cancels the statement that the connection identified by pid
// and secret is running, if any. Mismatched keys are ignored, as PostgreSQL
// does, so that a guesser learns nothing.
func (s *Server) cancelRequest(pid, secret uint32) {
	c := s.conn(pid)
	if c == nil || subtle.ConstantTimeEq(int32(c.secret), int32(secret)) != 1 {
		s.opts.Logger.Debug("pgwire: cancel request matches no connection", "pid", pid)
		return
	}
	c.cancelRunning()
}
