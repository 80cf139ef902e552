package scram

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrFailed is the error of an exchange whose proof does not match: a wrong
// password, or a user without a password or who does not exist.
var ErrFailed = errors.New("SCRAM authentication failed")

// ProtocolError is a malformed or inconsistent client message (SQLSTATE
// 08P01 in PostgreSQL).
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

func protocolErr(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// Mechanisms returns the mechanisms to offer, PostgreSQL's order: the
// channel-binding one first when the connection is TLS.
func Mechanisms(tls bool) []string {
	if tls {
		return []string{MechanismPlus, Mechanism}
	}
	return []string{Mechanism}
}

// ChannelBinding returns the tls-server-end-point channel-binding data of
// the server's certificate (RFC 5929): its hash with the hash function of
// its signature, SHA-256 for MD5, SHA-1 and signatures without one.
func ChannelBinding(cert *x509.Certificate) []byte {
	switch cert.SignatureAlgorithm {
	case x509.SHA384WithRSA, x509.ECDSAWithSHA384, x509.SHA384WithRSAPSS:
		h := sha512.Sum384(cert.Raw)
		return h[:]
	case x509.SHA512WithRSA, x509.ECDSAWithSHA512, x509.SHA512WithRSAPSS:
		h := sha512.Sum512(cert.Raw)
		return h[:]
	}
	h := sha256.Sum256(cert.Raw)
	return h[:]
}

// Mock returns the verifier of a mock exchange for a user who does not
// exist or has no password: its salt depends on the user and the server's
// secret only, so that the exchange looks the same every time and tells
// nothing, and no proof matches it (see Server).
func Mock(user string, secret []byte) Verifier {
	h := sha256.Sum256(append(append([]byte{}, secret...), user...))
	return Verifier{Iterations: Iterations, Salt: h[:saltLen], StoredKey: make([]byte, sha256.Size), ServerKey: make([]byte, sha256.Size)}
}

// Server is the server side of one exchange: First answers the client's
// first message, Final checks its proof.
type Server struct {
	v     Verifier
	known bool
	cbind []byte

	gs2, nonce                string
	clientFirstBare, srvFirst string
}

// NewServer starts an exchange against v; known false (a mock verifier)
// makes it fail at the end like a wrong password. cbind is the
// connection's channel-binding data (ChannelBinding), nil when it is not
// TLS.
func NewServer(v Verifier, known bool, cbind []byte) *Server {
	return &Server{v: v, known: known, cbind: cbind}
}

// First takes the client-first-message of mechanism and returns the
// server-first-message.
func (s *Server) First(mechanism string, msg []byte) ([]byte, error) {
	if mechanism != Mechanism && (mechanism != MechanismPlus || s.cbind == nil) {
		return nil, protocolErr("client selected an invalid SASL authentication mechanism")
	}
	m := string(msg)
	flag, rest, ok := strings.Cut(m, ",")
	if !ok {
		return nil, protocolErr("malformed SCRAM message: no GS2 header")
	}
	switch {
	case flag == "n":
	case flag == "y":
		if s.cbind != nil {
			// The client could have used channel binding but thought the
			// server could not: a downgrade.
			return nil, protocolErr("SCRAM channel binding negotiation error")
		}
	case strings.HasPrefix(flag, "p="):
		if s.cbind == nil {
			return nil, protocolErr("client requires SCRAM channel binding, but it is not supported")
		}
		if flag != "p=tls-server-end-point" {
			return nil, protocolErr("unsupported SCRAM channel-binding type %q", strings.TrimPrefix(flag, "p="))
		}
	default:
		return nil, protocolErr("malformed SCRAM message: unexpected channel-binding flag %q", flag)
	}
	if (mechanism == MechanismPlus) != strings.HasPrefix(flag, "p=") {
		return nil, protocolErr("SCRAM channel binding negotiation error: mechanism %s with channel-binding flag %q", mechanism, flag)
	}
	authzid, bare, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, protocolErr("malformed SCRAM message: no GS2 header")
	}
	if authzid != "" {
		return nil, protocolErr("client uses authorization identity, but it is not supported")
	}
	s.gs2 = flag + "," + authzid + ","
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") || len(attrs[1]) == 2 {
		return nil, protocolErr("malformed SCRAM message: expected n=<user>,r=<nonce>")
	}
	serverNonce := make([]byte, 18)
	rand.Read(serverNonce)
	s.nonce = attrs[1][2:] + base64.StdEncoding.EncodeToString(serverNonce)
	s.clientFirstBare = bare
	s.srvFirst = "r=" + s.nonce + ",s=" + base64.StdEncoding.EncodeToString(s.v.Salt) + ",i=" + strconv.Itoa(s.v.Iterations)
	return []byte(s.srvFirst), nil
}

// Final takes the client-final-message and returns the server-final-message,
// or ErrFailed if the proof is wrong.
func (s *Server) Final(msg []byte) ([]byte, error) {
	m := string(msg)
	i := strings.LastIndex(m, ",p=")
	if i < 0 {
		return nil, protocolErr("malformed SCRAM message: no proof")
	}
	withoutProof, proof64 := m[:i], m[i+3:]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return nil, protocolErr("malformed SCRAM message: expected c=<binding>,r=<nonce>")
	}
	cb, err := base64.StdEncoding.DecodeString(attrs[0][2:])
	if err != nil {
		return nil, protocolErr("malformed SCRAM message: channel binding is not base64")
	}
	want := []byte(s.gs2)
	if strings.HasPrefix(s.gs2, "p=") {
		want = append(want, s.cbind...)
	}
	if !hmac.Equal(cb, want) {
		return nil, protocolErr("SCRAM channel binding check failed")
	}
	if attrs[1][2:] != s.nonce {
		return nil, protocolErr("malformed SCRAM message: nonce does not match")
	}
	proof, err := base64.StdEncoding.DecodeString(proof64)
	if err != nil || len(proof) != sha256.Size {
		return nil, protocolErr("malformed SCRAM message: the proof is not a base64 SHA-256 digest")
	}
	authMessage := s.clientFirstBare + "," + s.srvFirst + "," + withoutProof
	clientSig := mac(s.v.StoredKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	subtle.XORBytes(clientKey, proof, clientSig)
	got := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(got[:], s.v.StoredKey) != 1 || !s.known {
		return nil, ErrFailed
	}
	return []byte("v=" + base64.StdEncoding.EncodeToString(mac(s.v.ServerKey, authMessage))), nil
}
