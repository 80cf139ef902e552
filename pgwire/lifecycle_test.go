package pgwire

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
)

// sendCancel sends a CancelRequest on a new connection and waits until the
// server has handled it and closed that connection.
func sendCancel(t *testing.T, addr string, pid, secret uint32) {
	t.Helper()
	c := dial(t, addr)
	c.send(&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret})
	c.expectEOF()
}

func TestCancelRequest(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	c.send(query("sleep"))
	ctx := <-srv.h.sleeping

	sendCancel(t, srv.addr, c.pid, c.secret+1)
	sendCancel(t, srv.addr, c.pid+1, c.secret)
	if ctx.Err() != nil {
		t.Fatal("a CancelRequest with the wrong key cancelled the statement")
	}

	sendCancel(t, srv.addr, c.pid, c.secret)
	checkMessages(t, c.untilReady(), []string{"E ERROR 57014 canceling statement due to user request", "Z I"})
	checkMessages(t, c.query("series 1"), []string{"T n:20:0", "D 1", "C SELECT 1", "Z I"})
}

func TestCancelRequestExtended(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	c.send(parseMsg("", "sleep"), bindMsg("", "", nil, nil, nil), executeMsg("", 0), query("series 1"), syncMsg)
	<-srv.h.sleeping
	sendCancel(t, srv.addr, c.pid, c.secret)
	checkMessages(t, c.untilReady(), []string{"ParseComplete", "BindComplete",
		"E ERROR 57014 canceling statement due to user request", "Z I"})
}

func TestShutdown(t *testing.T) {
	srv := startServer(t)
	idle := connect(t, srv.addr)
	busy := connect(t, srv.addr)
	busy.send(query("sleep"))
	<-srv.h.sleeping
	srv.Close()
	for _, c := range []*testClient{idle, busy} {
		checkMessages(t, []string{c.recv()}, []string{"E FATAL 57P01 terminating connection due to administrator command"})
		c.expectEOF()
	}
	if nc, err := net.Dial("tcp", srv.addr); err == nil {
		nc.Close()
		t.Error("the server accepts connections after Close")
	}
}

func TestPanicInSession(t *testing.T) {
	srv := startServer(t)
	other := connect(t, srv.addr)
	c := connect(t, srv.addr)
	checkMessages(t, c.query("series 1; panic"), []string{"T n:20:0", "D 1", "C SELECT 1",
		"E FATAL XX000 internal error: fake session panics as asked"})
	c.expectEOF()
	c = connect(t, srv.addr)
	c.send(parseMsg("", "panicrow"), bindMsg("p", "", nil, nil, nil), executeMsg("p", 0), syncMsg)
	checkMessages(t, c.untilReady(), []string{"ParseComplete", "BindComplete",
		"E FATAL XX000 internal error: fake rows panic as asked"})
	c.expectEOF()
	c = connect(t, srv.addr)
	checkMessages(t, c.query("panicrow"), []string{"E FATAL XX000 internal error: fake rows panic as asked"})
	c.expectEOF()
	checkMessages(t, other.query("series 1"), []string{"T n:20:0", "D 1", "C SELECT 1", "Z I"})
	srv.Close()
	if got := srv.logs.messages(); len(got) != 3 || !strings.HasPrefix(got[0], "ERROR pgwire: panic") {
		t.Errorf("want the panics logged, got %q", got)
	}
}

func TestClientDisconnectIsNotLogged(t *testing.T) {
	srv := startServer(t)
	mid := connect(t, srv.addr)
	mid.write([]byte{'Q', 0, 0, 0, 100, 's'}) // a message cut short
	mid.nc.Close()
	reading := connect(t, srv.addr)
	reading.send(query("series 1000"))
	reading.nc.Close()
	atStart := dial(t, srv.addr)
	atStart.write([]byte{0, 0})
	atStart.nc.Close()
	srv.Close()
	if got := srv.logs.messages(); len(got) != 0 {
		t.Errorf("disconnects were logged: %q", got)
	}
}

// TestClientGoneStopsStatement closes a client's socket while its
// statement runs: the server notices and cancels the statement.
func TestClientGoneStopsStatement(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	c.send(query("sleep"))
	ctx := <-srv.h.sleeping
	c.nc.Close()
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the statement of a client that went away still runs after 30 s")
	}
	if cause := context.Cause(ctx); !strings.Contains(cause.Error(), "connection to client lost") {
		t.Fatalf("statement canceled by %v", cause)
	}
	checkMessages(t, connect(t, srv.addr).query("series 1"), []string{"T n:20:0", "D 1", "C SELECT 1", "Z I"})
}
