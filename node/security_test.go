package node

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/pgwire"
)

// TestSecurityCheck checks which addresses a node may serve with which
// protection, and that a refusal names what to set.
func TestSecurityCheck(t *testing.T) {
	tlsOn := Security{TLSCert: "c", TLSKey: "k"}
	mtls := &cluster.TLS{CertFile: "c", KeyFile: "k", CAFile: "ca"}
	for _, tc := range []struct {
		name            string
		s               Security
		listen, cluster string
		want            string // "" for accepted, else part of the error
	}{
		{"embedded default", Security{}, "127.0.0.1:4566", "127.0.0.1:5566", ""},
		{"localhost", Security{}, "localhost:4566", "[::1]:5566", ""},
		{"every interface, plain", Security{}, "0.0.0.0:4566", "127.0.0.1:5566", "--tls-cert and --tls-key"},
		{"empty host, plain", Security{}, ":4566", "127.0.0.1:5566", "--insecure"},
		{"every interface, TLS", tlsOn, "0.0.0.0:4566", "127.0.0.1:5566", ""},
		{"every interface, TLS, trust", Security{TLSCert: "c", TLSKey: "k", Auth: pgwire.AuthTrust}, "0.0.0.0:4566", "127.0.0.1:5566", "--auth=scram"},
		{"every interface, insecure", Security{Insecure: true}, "0.0.0.0:4566", "0.0.0.0:5566", ""},
		{"cluster elsewhere, plain", tlsOn, "0.0.0.0:4566", "10.0.0.5:5566", "--cluster-ca"},
		{"cluster elsewhere, mutual TLS", Security{TLSCert: "c", TLSKey: "k", Cluster: mtls}, "0.0.0.0:4566", "10.0.0.5:5566", ""},
		{"reserved slots within the limit", Security{MaxConnections: 4, ReservedConnections: 3}, "127.0.0.1:4566", "127.0.0.1:5566", ""},
		{"reserved slots fill the limit", Security{MaxConnections: 3, ReservedConnections: 3}, "127.0.0.1:4566", "127.0.0.1:5566", "must be less than --max-connections"},
		{"TLS required without a certificate", Security{TLSRequired: true, Insecure: true}, "127.0.0.1:4566", "127.0.0.1:5566", "--tls-required needs"},
	} {
		err := tc.s.check(tc.listen, []string{tc.cluster})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}
