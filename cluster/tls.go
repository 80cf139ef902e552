package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
)

// TLS is the cluster's mutual TLS: every node has a certificate signed by
// the cluster's CA, serves with it and presents it when it dials; a node
// accepts only peers whose certificate the CA signed. It encrypts and
// authenticates every connection between nodes (gRPC and Raft alike).
type TLS struct {
	// CertFile and KeyFile hold this node's certificate and key (PEM);
	// the certificate names the hosts or IPs of the node's cluster address.
	CertFile, KeyFile string
	// CAFile holds the certificate of the CA that signs every node's.
	CAFile string
}

// configs loads t's files: the server and the client side of a node.
func (t *TLS) configs() (server, client *tls.Config, err error) {
	cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster TLS: load the node certificate: %w (check --cluster-tls-cert and --cluster-tls-key)", err)
	}
	pem, err := os.ReadFile(t.CAFile)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster TLS: read the CA certificate: %w (check --cluster-ca)", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, nil, fmt.Errorf("cluster TLS: %s holds no PEM certificate (check --cluster-ca)", t.CAFile)
	}
	certs := []tls.Certificate{cert}
	server = &tls.Config{Certificates: certs, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS13}
	client = &tls.Config{Certificates: certs, RootCAs: pool, MinVersion: tls.VersionTLS13}
	return server, client, nil
}

// Dialer connects to other nodes' Muxes (Mux.Dialer): over TLS when the
// cluster has it.
type Dialer struct {
	net.Dialer
	// TLS is the client side of the cluster's TLS; nil: plain TCP.
	TLS *tls.Config
}

// Dial connects to the Mux at addr.
func (d *Dialer) Dial(ctx context.Context, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || d.TLS == nil {
		return c, err
	}
	cfg := d.TLS.Clone()
	if cfg.ServerName, _, err = net.SplitHostPort(addr); err != nil {
		c.Close()
		return nil, err
	}
	tc := tls.Client(c, cfg)
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("cluster TLS handshake with %s: %w (do both nodes have certificates of the same --cluster-ca, naming their cluster addresses?)", addr, err)
	}
	return tc, nil
}
