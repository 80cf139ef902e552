package pgwire

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgproto3/v2"
)

// testServer is a Server on a loopback listener with a fake handler. At the
// end of the test it is closed and checked: every session closed, every
// Rows closed exactly once, nothing logged at Info or above unless the test
// expected it.
type testServer struct {
	*Server
	addr string
	h    *fakeHandler
	logs *logRecorder
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	return startServerWith(t, Options{})
}

// startServerWith is startServer with opts (its Logger and ServerVersion
// are the test's).
func startServerWith(t testing.TB, opts Options) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logRecorder{}
	h := &fakeHandler{sleeping: make(chan context.Context, 1), allowPanic: true}
	opts.Logger, opts.ServerVersion = slog.New(logs), "15.0 (streamdb test)"
	srv := NewServer(h, opts)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ts := &testServer{Server: srv, addr: ln.Addr().String(), h: h, logs: logs}
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve returned %v", err)
		}
		h.checkReleased(t)
	})
	return ts
}

// logRecorder is a slog.Handler keeping the messages of records at Info
// level and above.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecorder) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelInfo
}
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Level.String()+" "+r.Message)
	return nil
}

func (l *logRecorder) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// testClient speaks the protocol with pgproto3's frontend.
type testClient struct {
	t           *testing.T
	nc          net.Conn
	fe          *pgproto3.Frontend
	pid, secret uint32
}

func dial(t *testing.T, addr string) *testClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &testClient{t: t, nc: nc, fe: pgproto3.NewFrontend(pgproto3.NewChunkReader(nc), nc)}
}

// connect dials and completes the startup, checking it succeeded.
func connect(t *testing.T, addr string) *testClient {
	t.Helper()
	c := dial(t, addr)
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "u", "database": "db"}})
	got := c.untilReady()
	if got[len(got)-1] != "Z I" {
		t.Fatalf("startup: %q", got)
	}
	return c
}

// send writes msgs in one write.
func (c *testClient) send(msgs ...message) {
	c.t.Helper()
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf); err != nil {
			c.t.Fatal(err)
		}
	}
	c.write(buf)
}

func (c *testClient) write(b []byte) {
	c.t.Helper()
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one message and summarizes it (see summarize).
func (c *testClient) recv() string {
	c.t.Helper()
	msg, err := c.fe.Receive()
	if err != nil {
		c.t.Fatalf("receive: %v", err)
	}
	if k, ok := msg.(*pgproto3.BackendKeyData); ok {
		c.pid, c.secret = k.ProcessID, k.SecretKey
	}
	return summarize(msg)
}

// recvN reads n messages.
func (c *testClient) recvN(n int) []string {
	c.t.Helper()
	out := make([]string, n)
	for i := range out {
		out[i] = c.recv()
	}
	return out
}

// untilReady reads messages up to ReadyForQuery, or up to a FATAL error.
func (c *testClient) untilReady() []string {
	c.t.Helper()
	var out []string
	for {
		s := c.recv()
		out = append(out, s)
		if strings.HasPrefix(s, "Z ") || strings.HasPrefix(s, "E FATAL") {
			return out
		}
	}
}

// expectEOF checks that the server closed the connection.
func (c *testClient) expectEOF() {
	c.t.Helper()
	msg, err := c.fe.Receive()
	if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		c.t.Fatalf("want the connection closed, got %v, %v", summarize(msg), err)
	}
}

// query runs a simple query and returns the summarized answer.
func (c *testClient) query(sql string) []string {
	c.t.Helper()
	c.send(&pgproto3.Query{String: sql})
	return c.untilReady()
}

// summarize renders a backend message compactly for comparisons.
func summarize(msg pgproto3.BackendMessage) string {
	switch m := msg.(type) {
	case *pgproto3.AuthenticationOk:
		return "AuthenticationOk"
	case *pgproto3.AuthenticationSASL:
		return "R SASL " + strings.Join(m.AuthMechanisms, ",")
	case *pgproto3.ParameterStatus:
		return "S " + m.Name + "=" + m.Value
	case *pgproto3.BackendKeyData:
		return "BackendKeyData"
	case *pgproto3.ReadyForQuery:
		return "Z " + string(m.TxStatus)
	case *pgproto3.RowDescription:
		var fields []string
		for _, f := range m.Fields {
			fields = append(fields, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.Format))
		}
		return "T " + strings.Join(fields, ",")
	case *pgproto3.DataRow:
		var vals []string
		for _, v := range m.Values {
			switch {
			case v == nil:
				vals = append(vals, "NULL")
			case utf8.Valid(v) && !bytes.ContainsFunc(v, func(r rune) bool { return r < ' ' }):
				vals = append(vals, string(v))
			default:
				vals = append(vals, "0x"+hex.EncodeToString(v))
			}
		}
		return "D " + strings.Join(vals, "|")
	case *pgproto3.CommandComplete:
		return "C " + string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		return "E " + m.Severity + " " + m.Code + " " + m.Message
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("ParameterDescription %v", m.ParameterOIDs)
	case *pgproto3.ParseComplete:
		return "ParseComplete"
	case *pgproto3.BindComplete:
		return "BindComplete"
	case *pgproto3.CloseComplete:
		return "CloseComplete"
	case *pgproto3.NoData:
		return "NoData"
	case *pgproto3.PortalSuspended:
		return "PortalSuspended"
	case *pgproto3.EmptyQueryResponse:
		return "EmptyQueryResponse"
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("G %d %v", m.OverallFormat, m.ColumnFormatCodes)
	}
	return fmt.Sprintf("%T", msg)
}
