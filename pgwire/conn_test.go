package pgwire

import (
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgproto3/v2"
)

func startupMsg(database string) *pgproto3.StartupMessage {
	return &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": "u", "database": database, "application_name": "app"}}
}

// startupMsgUser is the StartupMessage of user to database db.
func startupMsgUser(user string) *pgproto3.StartupMessage {
	return &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": user, "database": "db"}}
}

func encode(m message) []byte {
	b, err := m.Encode(nil)
	if err != nil {
		panic(err)
	}
	return b
}

func TestStartup(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv.addr)
	c.send(startupMsg("db"))
	checkMessages(t, c.untilReady(), []string{
		"AuthenticationOk",
		"S server_version=15.0 (streamdb test)",
		"S DateStyle=ISO, MDY",
		"S application_name=app",
		"S client_encoding=UTF8",
		"S standard_conforming_strings=on",
		"BackendKeyData",
		"Z I",
	})
	if c.pid == 0 {
		t.Error("BackendKeyData carries process ID 0")
	}
}

func TestStartupDeclinesEncryption(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv.addr)
	for _, req := range []message{&pgproto3.SSLRequest{}, &pgproto3.GSSEncRequest{}} {
		c.send(req)
		var answer [1]byte
		if _, err := io.ReadFull(c.nc, answer[:]); err != nil || answer[0] != 'N' {
			t.Fatalf("answer to %T: %q, %v", req, answer, err)
		}
	}
	c.send(startupMsg("db"))
	if got := c.untilReady(); got[len(got)-1] != "Z I" {
		t.Fatalf("startup after SSLRequest: %q", got)
	}
}

func TestStartupConnectError(t *testing.T) {
	srv := startServer(t)
	c := dial(t, srv.addr)
	c.send(startupMsg("nodb"))
	checkMessages(t, c.untilReady(), []string{"AuthenticationOk", `E FATAL 3D000 database "nodb" does not exist`})
	c.expectEOF()
}

// TestStartupGarbage sends startup packets that are malformed, or longer
// than PostgreSQL's 10,000 bytes (refused from their length alone, before
// their body is read): each gets FATAL 08P01 and the connection ends.
func TestStartupGarbage(t *testing.T) {
	srv := startServer(t)
	for _, tc := range []struct {
		name   string
		packet []byte
		want   string
	}{
		{"unknown protocol code", []byte{0, 0, 0, 8, 0, 0, 0, 1}, "unknown startup message code: 1"},
		{"too long", []byte{0, 0, 0x27, 0x15}, "invalid length of startup packet: 10001"},
		{"longest length word", []byte{0xff, 0xff, 0xff, 0xff}, "invalid length of startup packet: 4294967291"},
		{"too short", []byte{0, 0, 0, 4}, "invalid length of startup packet: 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, srv.addr)
			c.write(tc.packet)
			checkMessages(t, []string{c.recv()}, []string{"E FATAL 08P01 invalid frontend message: " + tc.want})
			c.expectEOF()
		})
	}
}

func TestErrorResponseFields(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	tests := []struct {
		query string
		want  pgproto3.ErrorResponse
	}{
		{"fail 22012", pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "22012",
			Message: "failed as asked", Detail: "detail", Hint: "hint"}},
		{"bogus", pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "42601",
			Message: `syntax error at or near "bogus"`, Position: 1}},
	}
	for _, tc := range tests {
		c.send(query(tc.query))
		msg, err := c.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := msg.(*pgproto3.ErrorResponse)
		if !ok {
			t.Fatalf("%s: got %s", tc.query, summarize(msg))
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.query, *got, tc.want)
		}
		c.untilReady()
	}
}

func TestTerminate(t *testing.T) {
	srv := startServer(t)
	c := connect(t, srv.addr)
	c.send(parseMsg("", "series 2"), bindMsg("", "", nil, nil, nil), executeMsg("", 1), &pgproto3.Terminate{})
	c.expectEOF() // no output was flushed; the portal is closed (checked at cleanup)
}

func TestProtocolViolations(t *testing.T) {
	negativeParamLen := []byte{'B', 0, 0, 0, 14, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"unknown message type", []byte{'z', 0, 0, 0, 4}, "E FATAL 08P01 invalid frontend message: unknown message type: z"},
		{"negative length", []byte{'Q', 0, 0, 0, 0}, "E FATAL 08P01 *"},
		{"bind with a negative value length", negativeParamLen, "E FATAL 08P01 invalid frontend message: malformed message*"},
		{"truncated function call", []byte{'F', 0, 0, 0, 5, 0}, "E FATAL 08P01 invalid frontend message: malformed message*"},
		{"undecodable message", []byte{'C', 0, 0, 0, 4}, "E FATAL 08P01 *"},
		{"message over the size limit", binary.BigEndian.AppendUint32([]byte{'Q'}, defaultMaxMessageSize+5), "E FATAL 08P01 *"},
		{"startup message after startup", encode(&pgproto3.PasswordMessage{Password: "x"}), "E FATAL 08P01 unexpected message *"},
	}
	srv := startServer(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, srv.addr)
			c.write(tc.raw)
			checkMessages(t, []string{c.recv()}, []string{tc.want})
			c.expectEOF()
		})
	}
	srv.Close()
	if got := srv.logs.messages(); len(got) != len(tests) || !strings.HasPrefix(got[0], "INFO pgwire: protocol violation") {
		t.Errorf("want one protocol violation logged per test, got %q", got)
	}
}
