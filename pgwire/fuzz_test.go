package pgwire

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
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
		logs := &logRecorder{}
		srv := NewServer(h, Options{Logger: slog.New(logs), MaxMessageSize: 1 << 16})
		done := make(chan struct{})
		go func() {
			defer close(done)
			srv.serveConn(&scriptConn{r: bytes.NewReader(append(startup[:len(startup):len(startup)], data...))})
		}()
		select {
		case <-done:
		case <-time.After(fuzzHangLimit):
			t.Fatalf("the server hung on input %q", data)
		}
		for _, m := range logs.messages() {
			if strings.HasPrefix(m, "ERROR") {
				t.Errorf("logged %q on input %q", m, data)
			}
		}
		h.checkReleased(t)
	})
}

// scriptConn is a net.Conn that reads a fixed script, then EOF, and
// discards what is written.
type scriptConn struct {
	r *bytes.Reader
}

func (c *scriptConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *scriptConn) Close() error                     { return nil }
func (c *scriptConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) SetDeadline(time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(time.Time) error { return nil }
