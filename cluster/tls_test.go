package cluster

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/tests/testcerts"
)

// TestMutualTLS checks that nodes with certificates of the cluster's CA
// call each other over TLS, and that a node of another CA, or one without
// TLS, is refused.
func TestMutualTLS(t *testing.T) {
	ca, other := testcerts.New(t), testcerts.New(t)
	nodeTLS := func(ca *testcerts.CA, name string) *TLS {
		cert, key := ca.Issue(name)
		return &TLS{CertFile: cert, KeyFile: key, CAFile: ca.CAFile}
	}
	srv := startServerTLS(t, nodeTLS(ca, "n1"))
	addr := srv.Addr().String()

	peer, err := ListenTLS("127.0.0.1:0", nodeTLS(ca, "n2"))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	c := NewClient(peer.Dialer())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := Call[echoResp](ctx, c, addr, "/test.Echo/Echo", &echoReq{Text: "hi"}, WhenReachable)
	if err != nil || resp.Text != "echo hi" {
		t.Fatalf("call between nodes of one CA: %v, %v", resp, err)
	}

	stranger, err := ListenTLS("127.0.0.1:0", nodeTLS(other, "n3"))
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	if _, err := DialTagged(stranger.Dialer(), addr, RaftTag, 10*time.Second); err == nil || !strings.Contains(err.Error(), "cluster TLS handshake") {
		t.Fatalf("a node of another CA connected: %v", err)
	}

	plain, err := DialTagged(&Dialer{}, addr, RaftTag, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Write([]byte("append entries")); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(plain); err == nil && len(b) > 0 && b[0] != 0x15 {
		t.Fatalf("a plain-text connection was answered with %q", b)
	}

	if _, err := ListenTLS("127.0.0.1:0", &TLS{CertFile: "missing.crt", KeyFile: "missing.key", CAFile: ca.CAFile}); err == nil || !strings.Contains(err.Error(), "--cluster-tls-cert") {
		t.Fatalf("missing files: %v", err)
	}
}
