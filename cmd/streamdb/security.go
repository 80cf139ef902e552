package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/node"
	"github.com/streamdb/streamdb/pgwire"
)

// securityFlags registers the TLS and authentication flags of start on fs
// and returns what reads them once fs is parsed.
func securityFlags(fs *flag.FlagSet) func() (node.Security, error) {
	tlsCert := fs.String("tls-cert", "", "PEM file of the certificate for TLS on the PostgreSQL port (with --tls-key); empty: no TLS")
	tlsKey := fs.String("tls-key", "", "PEM file of the private key of --tls-cert")
	tlsRequired := fs.Bool("tls-required", false, "refuse clients that do not use TLS (needs --tls-cert and --tls-key)")
	auth := fs.String("auth", pgwire.AuthLoopbackTrust.String(), "who must give a password (SCRAM-SHA-256): loopback-trust (every client but those on this machine), scram (every client) or trust (none)")
	insecure := fs.Bool("insecure", false, "allow plain text and trust on addresses other than loopback")
	clusterCert := fs.String("cluster-tls-cert", "", "PEM file of this node's certificate for mutual TLS between nodes (with --cluster-tls-key and --cluster-ca)")
	clusterKey := fs.String("cluster-tls-key", "", "PEM file of the private key of --cluster-tls-cert")
	clusterCA := fs.String("cluster-ca", "", "PEM file of the CA certificate that signs every node's --cluster-tls-cert")
	maxConns := fs.Int("max-connections", 100, "most client connections open at once, authenticated or not; one more is refused with 53300")
	reserved := fs.Int("superuser-reserved-connections", 3, "of --max-connections, how many only superusers may take")
	authTimeout := fs.Duration("auth-timeout", time.Minute, "longest time a client may take from connecting to being authenticated before it is disconnected")
	maxMessageMB := fs.Int("max-message-mb", 64, "largest message an authenticated client may send, in MiB; a longer one ends its connection with 08P01")
	return func() (node.Security, error) {
		policy, err := pgwire.ParseAuthPolicy(*auth)
		if err != nil {
			return node.Security{}, fmt.Errorf("--auth: %w", err)
		}
		if (*tlsCert == "") != (*tlsKey == "") {
			return node.Security{}, fmt.Errorf("--tls-cert and --tls-key go together: set both, or neither")
		}
		if *maxConns < 1 || *reserved < 0 || *authTimeout <= 0 || *maxMessageMB < 1 || *maxMessageMB > 1023 {
			return node.Security{}, fmt.Errorf("--max-connections and --max-message-mb (at most 1023) must be at least 1, --superuser-reserved-connections at least 0, --auth-timeout positive")
		}
		s := node.Security{TLSCert: *tlsCert, TLSKey: *tlsKey, TLSRequired: *tlsRequired, Auth: policy, Insecure: *insecure,
			MaxConnections: *maxConns, ReservedConnections: *reserved, AuthTimeout: *authTimeout, MaxMessageSize: *maxMessageMB << 20}
		switch set := btoi(*clusterCert != "") + btoi(*clusterKey != "") + btoi(*clusterCA != ""); set {
		case 3:
			s.Cluster = &cluster.TLS{CertFile: *clusterCert, KeyFile: *clusterKey, CAFile: *clusterCA}
		case 1, 2:
			return node.Security{}, fmt.Errorf("--cluster-tls-cert, --cluster-tls-key and --cluster-ca go together: set all three, or none")
		}
		return s, nil
	}
}

// connectHint returns one line that says who the superuser is and how to
// connect to addr, for the log at start.
func connectHint(addr string, s node.Security) string {
	host, port := hostOf(addr), portOf(addr)
	conn := fmt.Sprintf("psql -h %s -p %s -U %s -d streamdb", host, port, meta.BootstrapRole)
	if s.TLSCert != "" {
		conn = fmt.Sprintf("psql 'host=%s port=%s user=%s dbname=streamdb sslmode=require'", host, port, meta.BootstrapRole)
	}
	switch s.Auth {
	case pgwire.AuthTrust:
		return conn + " (superuser " + meta.BootstrapRole + "; no client needs a password)"
	case pgwire.AuthSCRAM:
		return conn + " (superuser " + meta.BootstrapRole + "; every client needs a password: set one with ALTER USER)"
	}
	return conn + " (superuser " + meta.BootstrapRole + "; no password from this machine, clients elsewhere need one: ALTER USER " + meta.BootstrapRole + " PASSWORD '...')"
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
