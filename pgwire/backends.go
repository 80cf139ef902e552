package pgwire

import (
	"context"
	"net"

	"github.com/streamdb/streamdb/pgerror"
)

// pidKey keys the process ID of a connection in the context its session
// is created with (BackendPID).
type pidKey struct{}

// BackendPID returns the process ID of the connection whose Handler.Connect
// got ctx: what the client knows it by (BackendKeyData, pg_backend_pid()).
func BackendPID(ctx context.Context) (uint32, bool) {
	pid, ok := ctx.Value(pidKey{}).(uint32)
	return pid, ok
}

// remoteKey keys the client's address in the context a session is created
// with (RemoteAddr).
type remoteKey struct{}

// RemoteAddr returns the client's address of the connection whose
// Handler.Connect got ctx (nil if unknown).
func RemoteAddr(ctx context.Context) net.Addr {
	addr, _ := ctx.Value(remoteKey{}).(net.Addr)
	return addr
}

// reservedKey keys, in the context a session is created with, whether
// the connection took one of the slots kept for superusers
// (InReservedSlot).
type reservedKey struct{}

// InReservedSlot reports whether the connection whose Handler.Connect got
// ctx found more connections open than Options.MaxConnections leaves to
// other roles: the Handler then admits only a superuser (53300 for the
// rest, as PostgreSQL's superuser_reserved_connections).
func InReservedSlot(ctx context.Context) bool {
	r, _ := ctx.Value(reservedKey{}).(bool)
	return r
}

// CancelBackend cancels the statement the connection with process ID pid
// runs, if any, as a CancelRequest would (pg_cancel_backend); it reports
// whether such a connection exists.
func (s *Server) CancelBackend(pid uint32) bool {
	c := s.conn(pid)
	if c != nil {
		c.cancelRunning()
	}
	return c != nil
}

// TerminateBackend ends the connection with process ID pid with cause as
// a FATAL error, or, if cause is nil, with 57P01 as the server's Close does
// to every connection (pg_terminate_backend); it reports whether such a
// connection exists.
func (s *Server) TerminateBackend(pid uint32, cause *pgerror.Error) bool {
	c := s.conn(pid)
	if c != nil {
		c.shutdown(cause)
	}
	return c != nil
}

// conn returns the connection with process ID pid (nil: none).
func (s *Server) conn(pid uint32) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[pid]
}
