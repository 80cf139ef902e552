package pgwire

import (
	"context"
	"maps"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
)

// maxStartupPackets bounds the packets before StartupMessage: one
// SSLRequest and one GSSEncRequest at most, in either order.
const maxStartupPackets = 3

// startup runs the connection's start: encryption requests are declined,
// a CancelRequest is served, and a StartupMessage opens a session. It
// reports whether the connection is ready for queries.
func (c *conn) startup() bool {
	for range maxStartupPackets {
		msg, err := safeReceive(c.be.ReceiveStartupMessage)
		if err != nil {
			c.log.Debug("pgwire: bad startup packet", "err", err)
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
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

// connect authenticates (trust), opens the session and reports its
// parameters, the cancellation key and the transaction status.
func (c *conn) connect(params map[string]string) bool {
	c.w.send(&pgproto3.AuthenticationOk{})
	sess, err := c.srv.h.Connect(context.WithValue(context.WithValue(c.ctx, pidKey{}, c.pid), remoteKey{}, c.nc.RemoteAddr()), params)
	if err != nil {
		c.sendError(fatal(pgerror.From(callError(c.ctx, err))))
		c.finalFlush()
		return false
	}
	c.sess, c.user = sess, params["user"]
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
