package pgwire

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/scram"
)

// Passwords is where pgwire finds the verifiers of users' passwords; it
// knows nothing else of users.
type Passwords interface {
	// Verifier returns user's SCRAM-SHA-256 verifier in PostgreSQL's format
	// (scram.Verifier.String); ok is false when the user does not exist or
	// has no password. The exchange then runs against a mock verifier and
	// fails like a wrong password, so that a client learns nothing.
	Verifier(user string) (verifier string, ok bool)
}

// AuthPolicy says which connections must prove their user's password.
type AuthPolicy int

const (
	// AuthLoopbackTrust trusts clients on the loopback interface (or a
	// Unix socket) and asks every other client for its password.
	AuthLoopbackTrust AuthPolicy = iota
	// AuthSCRAM asks every client for its password.
	AuthSCRAM
	// AuthTrust asks no client for a password.
	AuthTrust
)

var authPolicyNames = map[AuthPolicy]string{AuthLoopbackTrust: "loopback-trust", AuthSCRAM: "scram", AuthTrust: "trust"}

// String returns the policy's name as --auth takes it.
func (p AuthPolicy) String() string { return authPolicyNames[p] }

// ParseAuthPolicy reads a policy's name: loopback-trust, scram or trust.
func ParseAuthPolicy(s string) (AuthPolicy, error) {
	for p, name := range authPolicyNames {
		if name == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown authentication policy %q: use loopback-trust (passwords for all but loopback clients), scram (passwords for every client) or trust (no passwords)", s)
}

// trusts reports whether a client at remote logs in without a password.
func (p AuthPolicy) trusts(remote net.Addr) bool {
	switch p {
	case AuthTrust:
		return true
	case AuthLoopbackTrust:
		return IsLoopback(remote)
	}
	return false
}

// IsLoopback reports whether addr is on the loopback interface or a Unix
// socket: a client on this machine.
func IsLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// channelBinding returns the tls-server-end-point data of cfg's first
// certificate, nil when there is none to bind to (no TLS, or certificates
// chosen per connection).
func channelBinding(cfg *tls.Config) []byte {
	if cfg == nil || len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return nil
	}
	cert, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		return nil
	}
	return scram.ChannelBinding(cert)
}

// newMockSecret returns the server's secret for mock verifiers.
func newMockSecret() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

// errAuthFailed is what a client with a wrong password, or a user that does
// not exist or has no password, is told: the same, as PostgreSQL does.
func errAuthFailed(user string) *pgerror.Error {
	return fatal(pgerror.New(pgerror.CodeInvalidPassword, "password authentication failed for user %q", user))
}

// authenticate asks the client to prove it is user, as the server's policy
// demands, and reports whether it did; on failure the FATAL error has been
// queued.
func (c *conn) authenticate(user string) bool {
	o := c.srv.opts
	if o.Passwords == nil || o.Auth.trusts(c.nc.RemoteAddr()) {
		c.w.send(&pgproto3.AuthenticationOk{})
		return true
	}
	var cbind []byte
	if c.tls {
		cbind = c.srv.cbind
	}
	c.w.send(&pgproto3.AuthenticationSASL{AuthMechanisms: scram.Mechanisms(cbind != nil)})
	c.w.flush()
	v, known := o.Passwords.Verifier(user)
	parsed, err := scram.Parse(v)
	if !known || err != nil {
		parsed, known = scram.Mock(user, c.srv.mockSecret), false
	}
	s := scram.NewServer(parsed, known, cbind)
	c.be.SetAuthType(pgproto3.AuthTypeSASL)
	first, ok := receiveAs[*pgproto3.SASLInitialResponse](c)
	if !ok {
		return false
	}
	out, err := s.First(first.AuthMechanism, first.Data)
	if err != nil {
		return c.authFailed(user, err)
	}
	c.w.send(&pgproto3.AuthenticationSASLContinue{Data: out})
	c.w.flush()
	c.be.SetAuthType(pgproto3.AuthTypeSASLContinue)
	final, ok := receiveAs[*pgproto3.SASLResponse](c)
	if !ok {
		return false
	}
	if out, err = s.Final(final.Data); err != nil {
		return c.authFailed(user, err)
	}
	c.w.send(&pgproto3.AuthenticationSASLFinal{Data: out})
	c.w.send(&pgproto3.AuthenticationOk{})
	return true
}

// authFailed queues the FATAL error of a failed exchange: 28P01 for a
// wrong proof, 08P01 for a malformed message.
func (c *conn) authFailed(user string, err error) bool {
	var pe *scram.ProtocolError
	if errors.As(err, &pe) {
		c.violation("%s", pe.Msg)
		return false
	}
	c.log.Info("pgwire: password authentication failed", "user", user)
	c.sendError(errAuthFailed(user))
	return false
}

// receiveAs reads the client's next message, which must be a T; otherwise
// the FATAL error is queued.
func receiveAs[T pgproto3.FrontendMessage](c *conn) (T, bool) {
	var zero T
	msg, err := safeReceive(c.be.Receive)
	if err != nil {
		c.readFailed(err)
		return zero, false
	}
	m, ok := msg.(T)
	if !ok {
		c.violation("expected SASL response, got message type %T", msg)
		return zero, false
	}
	return m, true
}
