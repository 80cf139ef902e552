package pgwire

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/scram"
)

// fuzzHangLimit is how long one input may keep the server busy before the
// fuzz test calls it a hang; real inputs take milliseconds.
const fuzzHangLimit = 30 * time.Second

// FuzzMessageLoop feeds arbitrary bytes to a connection after a valid
// startup and checks that the server neither panics (a recovered panic is
// logged at ERROR) nor hangs, and that it releases every session and Rows.
// The seed corpus in testdata/fuzz/FuzzMessageLoop covers simple and
// extended queries, row limits, portals in transactions, errors skipped
// until Sync, malformed messages, COPY and function-call messages.
func FuzzMessageLoop(f *testing.F) {
	startup := encode(startupMsg("db"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := &fakeHandler{}
		serveScript(t, h, Options{MaxMessageSize: 1 << 16}, &scriptConn{r: bytes.NewReader(append(startup[:len(startup):len(startup)], data...))})
		h.checkReleased(t)
	})
}

// FuzzStartup feeds arbitrary bytes as the first packets of a connection
// to a server that offers TLS and asks every client for its password
// (alice has one, nopass has none): SSLRequest, GSSEncRequest,
// CancelRequest, StartupMessage, the TLS handshake and the SCRAM exchange.
// The server must neither panic nor hang, and since no input can know the
// password, no session may ever open: nothing but the startup and the
// authentication is processed. The script arrives 8 bytes per read, so
// that an SSLRequest alone in its read starts the TLS handshake.
func FuzzStartup(f *testing.F) {
	scramFirst := &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=rOprNGfwEbeRWgbNEkqO")}
	scramFinal := &pgproto3.SASLResponse{Data: []byte("c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")}
	for _, seed := range [][]message{
		{startupMsgUser("alice"), scramFirst, scramFinal},
		{startupMsgUser("nopass"), scramFirst, scramFinal},
		{startupMsgUser("alice"), &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256-PLUS", Data: []byte("p=tls-server-end-point,,n=,r=x")}},
		{startupMsgUser("alice"), query("select 1")},
		{&pgproto3.GSSEncRequest{}, &pgproto3.SSLRequest{}},
		{&pgproto3.SSLRequest{}, startupMsgUser("alice")},
		{&pgproto3.CancelRequest{ProcessID: 1, SecretKey: 2}},
		{startupMsgUser("alice"), scramFirst, query("select 1"), &pgproto3.Terminate{}},
	} {
		var b []byte
		for _, m := range seed {
			b = append(b, encode(m)...)
		}
		f.Add(b)
	}
	tlsConfig, _ := serverTLS(f)
	users := passwords{"alice": scram.NewVerifier("secret").String(), "nopass": ""}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := &fakeHandler{}
		serveScript(t, h, Options{TLS: tlsConfig, Auth: AuthSCRAM, Passwords: users}, &scriptConn{r: bytes.NewReader(data), chunk: 8})
		if len(h.sessions) > 0 {
			t.Fatal("a session opened without the password on this input")
		}
	})
}

// serveScript serves nc to its end with a server of h and opts, and fails
// t if the server hangs or logs at ERROR (a recovered panic).
func serveScript(t *testing.T, h *fakeHandler, opts Options, nc *scriptConn) {
	logs := &logRecorder{}
	opts.Logger = slog.New(logs)
	srv := NewServer(h, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.serveConn(nc)
	}()
	select {
	case <-done:
	case <-time.After(fuzzHangLimit):
		t.Fatalf("the server hung on this input")
	}
	for _, m := range logs.messages() {
		if strings.HasPrefix(m, "ERROR") {
			t.Errorf("logged %q on this input", m)
		}
	}
}

// scriptConn is a net.Conn that reads a fixed script, then EOF, at most
// chunk bytes per read if chunk > 0, and discards what is written.
type scriptConn struct {
	r     *bytes.Reader
	chunk int
}

func (c *scriptConn) Read(p []byte) (int, error) {
	if c.chunk > 0 && len(p) > c.chunk {
		p = p[:c.chunk]
	}
	return c.r.Read(p)
}

func (c *scriptConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
