package node

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgwire"
)

// Security configures who may connect and how connections are protected:
// TLS and passwords on the pgwire port, mutual TLS between nodes, and the
// limits on clients. The zero value is the embedded default: no TLS,
// loopback clients trusted, pgwire's default limits.
type Security struct {
	// TLSCert and TLSKey are the PEM files of the pgwire port's
	// certificate and key; empty: no TLS (SSLRequest is declined).
	TLSCert, TLSKey string
	// TLSRequired refuses clients that do not start TLS.
	TLSRequired bool
	// Auth says which clients must give a password (SCRAM-SHA-256).
	Auth pgwire.AuthPolicy
	// Cluster, if set, is the mutual TLS between nodes.
	Cluster *cluster.TLS
	// Insecure allows plain text (and trust) on addresses other than
	// loopback.
	Insecure bool
	// MaxConnections, ReservedConnections (kept for superusers),
	// AuthTimeout and MaxMessageSize are pgwire.Options' limits; 0 is
	// pgwire's default.
	MaxConnections, ReservedConnections int
	AuthTimeout                         time.Duration
	MaxMessageSize                      int
}

// apply checks s for the node's addresses and sets opts' TLS and
// authentication policy (the passwords come from the catalog once it is
// open: catalogPasswords).
func (s Security) apply(opts *pgwire.Options, listen string, clusterAddrs ...string) error {
	if err := s.check(listen, clusterAddrs); err != nil {
		return err
	}
	opts.Auth, opts.TLSRequired = s.Auth, s.TLSRequired
	opts.MaxConnections, opts.ReservedConnections = s.MaxConnections, s.ReservedConnections
	opts.AuthTimeout, opts.MaxMessageSize = s.AuthTimeout, s.MaxMessageSize
	if s.TLSCert == "" && s.TLSKey == "" {
		return nil
	}
	cert, err := tls.LoadX509KeyPair(s.TLSCert, s.TLSKey)
	if err != nil {
		return fmt.Errorf("load the TLS certificate: %w (check --tls-cert and --tls-key)", err)
	}
	opts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return nil
}

// check refuses configurations that would expose a node beyond this
// machine unprotected, saying what to set.
func (s Security) check(listen string, clusterAddrs []string) error {
	if s.MaxConnections > 0 && s.ReservedConnections >= s.MaxConnections {
		return fmt.Errorf("--superuser-reserved-connections (%d) must be less than --max-connections (%d)", s.ReservedConnections, s.MaxConnections)
	}
	if s.TLSRequired && s.TLSCert == "" {
		return fmt.Errorf("--tls-required needs a certificate: set --tls-cert and --tls-key")
	}
	if s.Insecure {
		return nil
	}
	if !loopbackAddr(listen) {
		if s.TLSCert == "" {
			return fmt.Errorf("refusing to serve clients on %s in plain text: set --tls-cert and --tls-key (clients then connect with sslmode=require or verify-full), listen on 127.0.0.1, or pass --insecure", listen)
		}
		if s.Auth == pgwire.AuthTrust {
			return fmt.Errorf("refusing to trust every client on %s: use --auth=loopback-trust or --auth=scram and give users passwords (ALTER USER streamdb PASSWORD '...'), or pass --insecure", listen)
		}
	}
	for _, addr := range clusterAddrs {
		if addr != "" && !loopbackAddr(addr) && s.Cluster == nil {
			return fmt.Errorf("refusing to talk to other nodes on %s unencrypted and unauthenticated: set --cluster-tls-cert, --cluster-tls-key and --cluster-ca (every node's certificate signed by that CA), use a loopback cluster address, or pass --insecure", addr)
		}
	}
	return nil
}

// loopbackAddr reports whether the host of addr ("host:port") is on the
// loopback interface: localhost or a loopback IP; every interface ("" or
// 0.0.0.0) and other names are not.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// catalogPasswords gives pgwire the verifiers of the catalog's roles.
type catalogPasswords struct{ m *meta.Meta }

// Verifier implements pgwire.Passwords.
func (p catalogPasswords) Verifier(user string) (string, bool) {
	r, ok := p.m.Catalog().Role(user)
	if !ok || r.Verifier == "" {
		return "", false
	}
	return r.Verifier, true
}
