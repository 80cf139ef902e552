package pgwire

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgproto3/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/scram"
	"github.com/streamdb/streamdb/tests/testcerts"
)

// passwords is a Passwords of fixed verifiers.
type passwords map[string]string

func (p passwords) Verifier(user string) (string, bool) {
	v, ok := p[user]
	return v, ok
}

// serverTLS returns the server's TLS configuration with a certificate of a
// new CA.
func serverTLS(tb testing.TB) (*tls.Config, *testcerts.CA) {
	tb.Helper()
	ca := testcerts.New(tb)
	cert, err := tls.LoadX509KeyPair(ca.Issue("server"))
	if err != nil {
		tb.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}}, ca
}

// TestAuthentication connects with pgx under each policy, with and without
// TLS, with right and wrong passwords: SCRAM-SHA-256 as PostgreSQL runs it,
// channel binding (SCRAM-SHA-256-PLUS) over TLS, TLS verified against the
// CA (verify-full), and plain text refused when TLS is required.
func TestAuthentication(t *testing.T) {
	tlsConfig, ca := serverTLS(t)
	users := passwords{"alice": scram.NewVerifier("right").String(), "nopass": ""}
	verify := "sslmode=verify-full sslrootcert=" + ca.CAFile
	for _, tc := range []struct {
		name string
		opts Options
		conn string // connection string after host and port
		code string // SQLSTATE of the failure; "" for success
		err  string // else a client-side error containing this
		logs int    // messages the server logs at Info
	}{
		{name: "scram right", opts: Options{Passwords: users, Auth: AuthSCRAM}, conn: "user=alice password=right sslmode=disable"},
		{name: "scram wrong", opts: Options{Passwords: users, Auth: AuthSCRAM}, conn: "user=alice password=wrong sslmode=disable", code: "28P01", logs: 1},
		{name: "scram unknown user", opts: Options{Passwords: users, Auth: AuthSCRAM}, conn: "user=bob password=right sslmode=disable", code: "28P01", logs: 1},
		{name: "scram user without password", opts: Options{Passwords: users, Auth: AuthSCRAM}, conn: "user=nopass password=x sslmode=disable", code: "28P01", logs: 1},
		{name: "loopback trusted", opts: Options{Passwords: users, Auth: AuthLoopbackTrust}, conn: "user=bob sslmode=disable"},
		{name: "verify-full with channel binding", opts: Options{Passwords: users, Auth: AuthSCRAM, TLS: tlsConfig},
			conn: "user=alice password=right channel_binding=require " + verify},
		{name: "verify-full wrong password", opts: Options{Passwords: users, Auth: AuthSCRAM, TLS: tlsConfig},
			conn: "user=alice password=wrong " + verify, code: "28P01", logs: 1},
		{name: "TLS without channel binding", opts: Options{Passwords: users, Auth: AuthSCRAM, TLS: tlsConfig},
			conn: "user=alice password=right channel_binding=disable sslmode=require"},
		{name: "TLS required, plain text refused", opts: Options{Passwords: users, Auth: AuthSCRAM, TLS: tlsConfig, TLSRequired: true},
			conn: "user=alice password=right sslmode=disable", code: "28000"},
		{name: "TLS required, TLS accepted", opts: Options{TLS: tlsConfig, TLSRequired: true}, conn: "user=bob sslmode=require"},
		{name: "no TLS configured", opts: Options{}, conn: "user=bob sslmode=require", err: "server refused TLS connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServerWith(t, tc.opts)
			host, port, _ := strings.Cut(srv.addr, ":")
			conn, err := pgx.Connect(context.Background(), "host="+host+" port="+port+" database=db "+tc.conn)
			var pe *pgconn.PgError
			switch {
			case tc.code != "":
				if !errors.As(err, &pe) || pe.Code != tc.code || pe.Severity != "FATAL" {
					t.Fatalf("error %v; want FATAL %s", err, tc.code)
				}
				if tc.code == "28P01" && pe.Message != `password authentication failed for user "`+strings.Fields(tc.conn)[0][5:]+`"` {
					t.Fatalf("message %q", pe.Message)
				}
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v; want %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if _, err := conn.Exec(context.Background(), "write"); err != nil {
					t.Fatal(err)
				}
				conn.Close(context.Background())
			}
			srv.Close()
			if got := srv.logs.messages(); len(got) != tc.logs {
				t.Fatalf("logged %q; want %d messages", got, tc.logs)
			}
		})
	}
}

// TestSCRAMProtocolErrors sends SCRAM messages libpq and pgx never send:
// each ends the connection with FATAL 08P01.
func TestSCRAMProtocolErrors(t *testing.T) {
	srv := startServerWith(t, Options{Passwords: passwords{}, Auth: AuthSCRAM})
	for _, tc := range []struct {
		mechanism, data, want string
	}{
		{"SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc", "E FATAL 08P01 client selected an invalid SASL authentication mechanism"},
		{"SCRAM-SHA-256", "n,,r=abc", "E FATAL 08P01 malformed SCRAM message: expected n=<user>,r=<nonce>"},
		{"SCRAM-SHA-256", "n,a=x,n=,r=abc", "E FATAL 08P01 client uses authorization identity, but it is not supported"},
	} {
		c := dial(t, srv.addr)
		c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u", "database": "db"}})
		if got := c.recv(); got != "R SASL SCRAM-SHA-256" {
			t.Fatalf("got %q", got)
		}
		c.send(&pgproto3.SASLInitialResponse{AuthMechanism: tc.mechanism, Data: []byte(tc.data)})
		if got := c.recv(); got != tc.want {
			t.Errorf("%s %q: got %q; want %q", tc.mechanism, tc.data, got, tc.want)
		}
	}
	srv.Close()
	if got := srv.logs.messages(); len(got) != 3 {
		t.Fatalf("logged %q", got)
	}
}

// BenchmarkLogin measures a pgx connection's start and end under trust,
// SCRAM-SHA-256, and SCRAM-SHA-256-PLUS over TLS (client and server on
// this machine: both sides' PBKDF2 and the handshake count).
func BenchmarkLogin(b *testing.B) {
	tlsConfig, ca := serverTLS(b)
	users := passwords{"alice": scram.NewVerifier("right").String()}
	for _, bc := range []struct {
		name string
		opts Options
		conn string
	}{
		{"trust", Options{}, "user=alice sslmode=disable"},
		{"scram", Options{Passwords: users, Auth: AuthSCRAM}, "user=alice password=right sslmode=disable"},
		{"scram-plus-tls", Options{Passwords: users, Auth: AuthSCRAM, TLS: tlsConfig},
			"user=alice password=right channel_binding=require sslmode=verify-full sslrootcert=" + ca.CAFile},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := startServerWith(b, bc.opts)
			host, port, _ := strings.Cut(srv.addr, ":")
			for b.Loop() {
				conn, err := pgx.Connect(context.Background(), "host="+host+" port="+port+" database=db "+bc.conn)
				if err != nil {
					b.Fatal(err)
				}
				conn.Close(context.Background())
			}
		})
	}
}
