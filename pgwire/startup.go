package pgwire

import (
	"context"
	"crypto/tls"
	"maps"
	"net"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
)

// maxStartupPackets bounds the packets before StartupMessage: one
// SSLRequest and one GSSEncRequest at most, in either order.
const maxStartupPackets = 3

// maxAuthMessageSize bounds a message before authentication ends (SASL
// responses), PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH; pgproto3 bounds a
// startup packet to 10,000 bytes itself.
const maxAuthMessageSize = 65535

// startup runs the connection's start: an SSLRequest starts TLS when the
// server has it (GSS encryption is declined), a CancelRequest is served,
// and a StartupMessage opens a session once its user is authenticated. It
// reports whether the connection is ready for queries.
func (c *conn) startup() bool {
	for range maxStartupPackets {
		msg, err := safeReceive(c.be.ReceiveStartupMessage)
		if err != nil {
			c.readFailed(err)
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if c.srv.opts.TLS == nil || c.tls {
				c.w.sendByte('N')
				c.w.flush()
				continue
			}
			if !c.startTLS() {
				return false
			}
		case *pgproto3.GSSEncRequest:
			c.w.sendByte('N')
			c.w.flush()
		case *pgproto3.CancelRequest:
			c.srv.cancelRequest(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			return c.connect(maps.Clone(m.Parameters))
		}
	}
	return false
}

// startTLS answers an SSLRequest with 'S' and runs the TLS handshake; from
// then on the connection reads and writes through TLS.
func (c *conn) startTLS() bool {
	c.w.sendByte('S')
	c.w.flush()
	if c.buf.r.Buffered() > 0 {
		// Bytes sent before the handshake would be read as if they had
		// come through TLS (CVE-2021-23214).
		c.violation("received unencrypted data after SSL request")
		c.finalFlush()
		return false
	}
	tc := tls.Server(c.nc, c.srv.opts.TLS)
	if err := tc.HandshakeContext(c.ctx); err != nil {
		c.log.Info("pgwire: TLS handshake failed", "err", err)
		return false
	}
	c.in.r, c.w.w = tc, tc
	c.be = pgproto3.NewBackend(c.limit, tc)
	c.tls = true
	return true
}

// connect authenticates the user, opens the session and reports its
// parameters, the cancellation key and the transaction status.
func (c *conn) connect(params map[string]string) bool {
	if c.full {
		c.log.Info("pgwire: connection refused: too many clients", "max_connections", c.srv.opts.MaxConnections)
		c.sendError(errTooManyConnections())
		c.finalFlush()
		return false
	}
	if c.srv.opts.TLSRequired && !c.tls {
		c.sendError(fatal(pgerror.New(pgerror.CodeInvalidAuthorization, "connection without TLS refused for host %q, user %q: this server requires TLS",
			hostOf(c.nc.RemoteAddr()), params["user"]).
			WithHint("Connect with sslmode=require, or sslmode=verify-full and sslrootcert set to the server's CA certificate.")))
		c.finalFlush()
		return false
	}
	c.user = params["user"]
	if !c.authenticate(c.user) {
		c.finalFlush()
		return false
	}
	ctx := context.WithValue(context.WithValue(c.ctx, pidKey{}, c.pid), remoteKey{}, c.nc.RemoteAddr())
	sess, err := c.srv.h.Connect(context.WithValue(ctx, reservedKey{}, c.srv.inReservedSlot()), params)
	if err != nil {
		c.sendError(fatal(pgerror.From(callError(c.ctx, err))))
		c.finalFlush()
		return false
	}
	c.sess = sess
	if v := c.srv.opts.ServerVersion; v != "" {
		if _, ok := sess.ParameterStatus()["server_version"]; !ok {
			c.sentParams["server_version"] = v
			c.w.send(&pgproto3.ParameterStatus{Name: "server_version", Value: v})
		}
	}
	c.reportParams()
	c.w.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret})
	c.readyForQuery()
	return c.w.err == nil
}

// hostOf returns the host of addr, as PostgreSQL names a client.
func hostOf(addr net.Addr) string {
	if host, _, err := net.SplitHostPort(addr.String()); err == nil {
		return host
	}
	return addr.String()
}
