package pgwire

import (
	"context"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
)

// closeWriteGrace bounds the time spent writing a final message (FATAL) to a
// client that does not read.
const closeWriteGrace = 5 * time.Second

// conn is one client connection: its message loop and protocol state. Other
// goroutines touch only what is immutable or safe to share (pid, secret,
// cancel, the deadlines of nc) and running, under mu; the rest belongs to
// the connection's goroutine.
type conn struct {
	srv         *Server
	nc          net.Conn
	pid, secret uint32 // BackendKeyData
	log         *slog.Logger

	// ctx lives as long as the connection; Close cancels it with
	// errAdminShutdown as the cause.
	ctx    context.Context
	cancel context.CancelCauseFunc

	in    *inputReader
	buf   *bufferedReader
	limit *limitReader // bounds messages: maxAuthMessageSize until authenticated
	be    *pgproto3.Backend
	w     writer

	sess           Session
	user           string // the startup's user parameter
	reg            registry
	sentParams     map[string]string // ParameterStatus values the client has
	ignoreTillSync bool              // an extended-protocol message failed
	fatal          bool              // a FATAL error was sent; the connection ends
	tls            bool              // the connection runs TLS (SSLRequest)
	full           bool              // beyond MaxConnections: no session

	mu      sync.Mutex
	running context.CancelCauseFunc // cancels the session call in progress
}

func newConn(s *Server, nc net.Conn, pid, secret uint32) *conn {
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &inputReader{r: nc}
	buf := newBufferedReader(in)
	limit := &limitReader{cr: buf, max: maxAuthMessageSize}
	return &conn{
		srv:        s,
		nc:         nc,
		pid:        pid,
		secret:     secret,
		log:        s.opts.Logger.With("pid", pid, "remote", nc.RemoteAddr().String()),
		ctx:        ctx,
		cancel:     cancel,
		in:         in,
		buf:        buf,
		limit:      limit,
		be:         pgproto3.NewBackend(limit, nc),
		w:          writer{w: nc},
		sentParams: make(map[string]string),
	}
}

// serve runs the connection to its end and releases everything it holds.
func (c *conn) serve() {
	defer c.release()
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("pgwire: panic serving connection", "panic", r, "stack", string(debug.Stack()))
			c.sendError(fatal(pgerror.New(pgerror.CodeInternal, "internal error: %v", r)))
			c.finalFlush()
		}
	}()
	deadline := time.Now().Add(c.srv.opts.AuthTimeout)
	c.nc.SetDeadline(deadline)
	if !c.startup() {
		if time.Now().After(deadline) {
			c.log.Info("pgwire: authentication timed out", "auth_timeout", c.srv.opts.AuthTimeout, "user", c.user)
		}
		return
	}
	c.nc.SetDeadline(time.Time{})
	if c.ctx.Err() != nil {
		// shutdown set its deadline before ours was lifted.
		c.nc.SetReadDeadline(time.Now())
	}
	c.limit.max = c.srv.opts.MaxMessageSize
	c.loop()
}

// loop reads and handles messages until the connection ends.
func (c *conn) loop() {
	for {
		msg, err := safeReceive(c.be.Receive)
		if err != nil {
			c.readFailed(err)
			return
		}
		if !c.handle(msg) {
			return
		}
		if !c.fatal && c.ctx.Err() != nil {
			c.sendError(context.Cause(c.ctx))
		}
		if c.fatal || c.w.err != nil {
			c.finalFlush()
			return
		}
	}
}

// handle dispatches one message; it returns false on Terminate.
func (c *conn) handle(msg pgproto3.FrontendMessage) bool {
	if c.ignoreTillSync {
		switch msg.(type) {
		case *pgproto3.Sync, *pgproto3.Terminate:
		default:
			return true
		}
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.simpleQuery(m.String)
	case *pgproto3.Parse:
		c.afterExtended(c.parse(m))
	case *pgproto3.Bind:
		c.afterExtended(c.bind(m))
	case *pgproto3.Describe:
		c.afterExtended(c.describe(m))
	case *pgproto3.Execute:
		c.afterExtended(c.execute(m))
	case *pgproto3.Close:
		c.afterExtended(c.closeMessage(m))
	case *pgproto3.Sync:
		c.ignoreTillSync = false
		c.readyForQuery()
	case *pgproto3.Flush:
		c.w.flush()
	case *pgproto3.Terminate:
		return false
	case *pgproto3.FunctionCall:
		c.sendError(pgerror.New(pgerror.CodeFeatureNotSupported, "the function call protocol is not supported").
			WithHint("Call the function with a SELECT statement."))
		c.readyForQuery()
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Ignored outside COPY, as the protocol specifies: they may follow
		// a COPY that failed.
	default:
		c.violation("unexpected message %T", msg)
	}
	return true
}

// afterExtended reports the error of an extended-protocol message, after
// which messages are discarded until Sync.
func (c *conn) afterExtended(err error) {
	if err != nil {
		c.sendError(err)
		c.ignoreTillSync = true
	}
}

// readyForQuery ends the implicit transaction, reports the transaction
// status and flushes. Outside a transaction block portals end, as they do
// in PostgreSQL.
func (c *conn) readyForQuery() {
	if err := c.sync(); err != nil {
		c.sendError(err)
	}
	if c.fatal {
		return
	}
	status := c.sess.TxStatus()
	if status != 'T' {
		c.reg.closePortals()
	}
	c.w.send(&pgproto3.ReadyForQuery{TxStatus: status})
	c.w.flush()
}

// sync calls Session.Sync under a context that a CancelRequest can cancel.
func (c *conn) sync() error {
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	c.setRunning(cancel)
	defer c.setRunning(nil)
	return callError(ctx, c.sess.Sync(ctx))
}

// sendError sends err as an ErrorResponse; errors that are not
// *pgerror.Error become XX000. A FATAL error ends the connection, after
// which nothing more is sent.
func (c *conn) sendError(err error) {
	if c.fatal {
		return
	}
	pe := pgerror.From(err)
	if pe.Severity == severityFatal {
		c.fatal = true
	}
	c.w.send(errorResponse(pe))
}

// readFailed ends the connection after Receive failed: quietly when the
// client went away, with FATAL when the server is shutting down or the
// client broke the protocol.
func (c *conn) readFailed(err error) {
	switch {
	case c.ctx.Err() != nil:
		c.sendError(context.Cause(c.ctx))
	case c.in.err != nil:
		c.log.Debug("pgwire: client disconnected", "err", c.in.err)
		return
	default:
		c.violation("invalid frontend message: %v", err)
	}
	c.finalFlush()
}

// violation logs a protocol violation and sends it as FATAL 08P01.
func (c *conn) violation(format string, args ...any) {
	e := fatal(pgerror.New(pgerror.CodeProtocolViolation, format, args...))
	c.log.Info("pgwire: protocol violation", "err", e.Message)
	c.sendError(e)
}

// finalFlush writes the remaining output, giving up after closeWriteGrace.
func (c *conn) finalFlush() {
	c.nc.SetWriteDeadline(time.Now().Add(closeWriteGrace))
	c.w.flush()
}

// setRunning registers the cancel function of the session call in progress
// (nil when there is none) for CancelRequest.
func (c *conn) setRunning(cancel context.CancelCauseFunc) {
	c.mu.Lock()
	c.running = cancel
	c.mu.Unlock()
}

// cancelRunning cancels the session call in progress, if any. It runs on
// the goroutine of the connection that carried the CancelRequest.
func (c *conn) cancelRunning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running != nil {
		c.running(errQueryCanceled())
	}
}

// shutdown asks the connection to end with cause as a FATAL error (nil:
// 57P01). It runs on another goroutine (Server.Close, TerminateBackend):
// it cancels the connection's context and wakes its goroutine from a
// blocked read or write.
func (c *conn) shutdown(cause *pgerror.Error) {
	if cause == nil {
		cause = errAdminShutdown()
	}
	c.cancel(fatal(cause))
	c.nc.SetReadDeadline(time.Now())
	c.nc.SetWriteDeadline(time.Now().Add(closeWriteGrace))
}

// release closes the portals, the session and the socket. A panic in the
// session's cleanup is logged; the connection is gone either way.
func (c *conn) release() {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("pgwire: panic closing session", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	defer c.nc.Close()
	defer c.cancel(nil)
	c.reg.closePortals()
	if c.sess != nil {
		c.sess.Close()
	}
}
