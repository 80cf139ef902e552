package pgwire

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/scram"
)

// TestAuthTimeout checks that a client that has not authenticated within
// AuthTimeout is disconnected, wherever it stalls, and that the timeout no
// longer applies once it has.
func TestAuthTimeout(t *testing.T) {
	srv := startServerWith(t, Options{AuthTimeout: 50 * time.Millisecond, Auth: AuthSCRAM,
		Passwords: passwords{"alice": scram.NewVerifier("pw").String()}})
	for _, tc := range []struct {
		name string
		send []byte // then the client stalls
		want []string
	}{
		{name: "sends nothing"},
		{name: "half a startup packet", send: []byte{0, 0, 0, 100, 0, 3}},
		{name: "after SSLRequest", send: encode(&pgproto3.SSLRequest{}), want: []string{"N"}},
		{name: "mid-SCRAM", send: encode(startupMsgUser("alice")), want: []string{"R SASL SCRAM-SHA-256"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, srv.addr)
			c.write(tc.send)
			for _, w := range tc.want {
				if w == "N" {
					b := make([]byte, 1)
					if _, err := c.nc.Read(b); err != nil || b[0] != 'N' {
						t.Fatalf("SSLRequest answered %q, %v", b, err)
					}
					continue
				}
				checkMessages(t, []string{c.recv()}, []string{w})
			}
			c.expectEOF()
		})
	}
	if n := strings.Count(strings.Join(srv.logs.messages(), "\n"), "pgwire: authentication timed out"); n != 4 {
		t.Errorf("logged %d timeouts, want 4: %q", n, srv.logs.messages())
	}

	trusted := startServerWith(t, Options{AuthTimeout: 50 * time.Millisecond})
	c := connect(t, trusted.addr)
	time.Sleep(150 * time.Millisecond) // three timeouts: lifted at authentication
	checkMessages(t, c.query("series 1"), []string{"T n:20:0", "D 1", "C SELECT 1", "Z I"})
}

// TestMessageSizeLimits checks the bounds on a message: maxAuthMessageSize
// before authentication, MaxMessageSize after; a longer message ends the
// connection with 08P01 before its body is read.
func TestMessageSizeLimits(t *testing.T) {
	opts := Options{MaxMessageSize: 1 << 10, Auth: AuthSCRAM, Passwords: passwords{"alice": scram.NewVerifier("pw").String()}}
	scramSrv := startServerWith(t, opts)
	opts.Auth = AuthTrust
	trustSrv := startServerWith(t, opts)
	// A Query's body is its text and a NUL.
	atLimit := "series 1" + strings.Repeat(" ", 1<<10-1-len("series 1"))
	for _, tc := range []struct {
		name  string
		scram bool // stop at the SASL exchange, else authenticate (trusted)
		msg   message
		want  []string
	}{
		{name: "SASL response beyond the auth limit", scram: true,
			msg:  &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: make([]byte, maxAuthMessageSize)},
			want: []string{"E FATAL 08P01 invalid frontend message: message of 65553 bytes exceeds the limit of 65535 bytes"}},
		{name: "query at the limit", msg: query(atLimit),
			want: []string{"T n:20:0", "D 1", "C SELECT 1", "Z I"}},
		{name: "query beyond the limit", msg: query(atLimit + " "),
			want: []string{"E FATAL 08P01 invalid frontend message: message of 1025 bytes exceeds the limit of 1024 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *testClient
			if tc.scram {
				c = dial(t, scramSrv.addr)
				c.send(startupMsgUser("alice"))
				checkMessages(t, []string{c.recv()}, []string{"R SASL SCRAM-SHA-256"})
			} else {
				c = connect(t, trustSrv.addr)
			}
			c.send(tc.msg)
			checkMessages(t, c.untilReady(), tc.want)
		})
	}
}

// TestMaxConnections fills a server of MaxConnections 2 with a connection
// that has not even started and one with a session: the next connection
// is refused with 53300 at its StartupMessage while a CancelRequest is
// still served; beyond twice as many, a connection is refused before it
// sends anything. A freed slot can be taken again.
func TestMaxConnections(t *testing.T) {
	srv := startServerWith(t, Options{MaxConnections: 2})
	silent := dial(t, srv.addr)
	busy := connect(t, srv.addr)
	busy.send(query("sleep"))
	<-srv.h.sleeping

	refused := dial(t, srv.addr)
	refused.send(startupMsg("db"))
	checkMessages(t, refused.untilReady(), []string{"E FATAL 53300 sorry, too many clients already"})
	refused.expectEOF()

	sendCancel(t, srv.addr, busy.pid, busy.secret)
	checkMessages(t, busy.untilReady(), []string{"E ERROR 57014 canceling statement due to user request", "Z I"})

	var pending []*testClient // full connections, not started
	for range 2 {
		pending = append(pending, dial(t, srv.addr))
	}
	checkMessages(t, []string{dial(t, srv.addr).recv()}, []string{"E FATAL 53300 sorry, too many clients already"})
	for _, c := range pending {
		c.send(startupMsg("db"))
		checkMessages(t, c.untilReady(), []string{"E FATAL 53300 sorry, too many clients already"})
	}

	silent.nc.Close()
	for {
		c := dial(t, srv.addr)
		c.send(startupMsg("db"))
		if got := c.untilReady(); got[len(got)-1] == "Z I" {
			break
		}
	}
}

// TestReservedConnections checks that the connections beyond
// MaxConnections - ReservedConnections are marked for the Handler, which
// admits only superusers in them.
func TestReservedConnections(t *testing.T) {
	srv := startServerWith(t, Options{MaxConnections: 4, ReservedConnections: 2})
	connect(t, srv.addr)
	connect(t, srv.addr)
	c := dial(t, srv.addr)
	c.send(startupMsg("db"))
	checkMessages(t, c.untilReady(), []string{"AuthenticationOk",
		"E FATAL 53300 remaining connection slots are reserved for roles with the SUPERUSER attribute"})
	c.expectEOF()
	c = dial(t, srv.addr)
	c.send(startupMsgUser("super"))
	if got := c.untilReady(); got[len(got)-1] != "Z I" {
		t.Fatalf("a superuser in a reserved slot: %q", got)
	}
}
